"""NSPredicate/NSExpression format strings: include/mapcore/format.h (conversions both ways and
compilation; the Predicate class, a Filter compiled from a format string, is in expression.py)."""
from __future__ import annotations

import ctypes
import json
from typing import Any, Iterable, Sequence, TypeVar

from ._lib import Buf, Compiled, check, lib, take_text, _declare, json_bytes

# mc_format_kind of format.h.
MC_FORMAT_PREDICATE, MC_FORMAT_EXPRESSION = 1, 2
PREDICATE, EXPRESSION = MC_FORMAT_PREDICATE, MC_FORMAT_EXPRESSION

_vp = ctypes.c_void_p
_declare("mc_predicate_compile", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.POINTER(_vp))
_declare("mc_expression_compile_format", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
         ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_vp))
_declare("mc_format_to_json", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.c_int, ctypes.POINTER(Buf))
_declare("mc_format_from_json", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.POINTER(Buf),
         ctypes.POINTER(Buf))


_F = TypeVar("_F", bound="Format")


class Format(str):
    """A format string with the values of its `%@`/`%K` placeholders in `.args`, so
    `Predicate(f, *f.args)` reads it back."""

    args: tuple[Any, ...]

    def __new__(cls: type[_F], text: str, args: Iterable[Any] = ()) -> _F:
        """The string `text` carrying `args`, the values of its placeholders in order."""
        obj = super().__new__(cls, text)
        obj.args = tuple(args)
        return obj

    def __repr__(self) -> str:
        """Format('text') or Format('text', args=(...))."""
        return f"Format({str(self)!r}, args={self.args!r})" if self.args else f"Format({str(self)!r})"


def _argument(value: Any) -> Any:
    """A placeholder value as JSON data: Expression objects travel as {"$expression": json}."""
    if isinstance(value, Compiled):
        return {"$expression": value.to_json()}
    return value


def _text_and_args(format: str | bytes, args: Iterable[Any]) -> tuple[bytes, bytes]:
    """The format string's UTF-8 bytes and the JSON array of its arguments."""
    text = format.encode("utf-8", "surrogatepass") if isinstance(format, str) else bytes(format)
    data = json_bytes([_argument(a) for a in args])
    return text, data


def format_to_json(format: str, *args: Any, kind: int = PREDICATE) -> Any:
    """The style-spec JSON expression a format string converts to (not compiled)."""
    text, data = _text_and_args(format, args)
    return json.loads(take_text(lambda buf: lib.mc_format_to_json(text, len(text), data, len(data), kind, buf)))


def format_from_json(expr: Any, kind: int = EXPRESSION) -> Format:
    """A Format for a JSON expression (kind PREDICATE reads legacy filters as the iOS SDK does)."""
    data = json_bytes(expr)
    text, args = Buf(), Buf()
    try:
        check(lib.mc_format_from_json(data, len(data), kind, ctypes.byref(text), ctypes.byref(args)))
        return Format(ctypes.string_at(text.data, text.len).decode("utf-8"),
                      json.loads(ctypes.string_at(args.data, args.len).decode("utf-8")))
    finally:
        lib.mc_buf_dispose(ctypes.byref(text))
        lib.mc_buf_dispose(ctypes.byref(args))


def compile_format(kind: int, format: str, args: Sequence[Any], property_spec: dict[str, Any] | None = None
                   ) -> tuple[ctypes.c_void_p, tuple[str, tuple[Any, ...]]]:
    """A new expression handle (kind PREDICATE: a filter) compiled from a format string and its
    arguments, and the (format, arguments) source it was made from."""
    text, data = _text_and_args(format, args)
    handle = ctypes.c_void_p()
    if kind == PREDICATE:
        check(lib.mc_predicate_compile(text, len(text), data, len(data), ctypes.byref(handle)))
    else:
        spec = json_bytes(property_spec) if property_spec is not None else None
        check(lib.mc_expression_compile_format(text, len(text), data, len(data), spec, len(spec) if spec else 0,
                                               ctypes.byref(handle)))
    return handle, (str(format), tuple(_argument(a) for a in args))
