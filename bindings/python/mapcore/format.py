"""NSPredicate/NSExpression format strings: include/mapcore/format.h, plus builders for the SDK's
expression constructors (conditional, match, coalesce, join, interpolate, step)."""
import ctypes
import json

from ._lib import Buf, check, lib, take_text, _declare
from .expression import Expression, Filter, _json_bytes

PREDICATE, EXPRESSION = 1, 2

_vp = ctypes.c_void_p
_declare("mc_predicate_compile", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.POINTER(_vp))
_declare("mc_expression_compile_format", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
         ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_vp))
_declare("mc_format_to_json", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.c_int, ctypes.POINTER(Buf))
_declare("mc_format_from_json", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.POINTER(Buf),
         ctypes.POINTER(Buf))


class Format(str):
    """A format string with the values of its `%@`/`%K` placeholders in `.args`, so
    `Predicate(f, *f.args)` reads it back."""

    def __new__(cls, text, args=()):
        obj = super().__new__(cls, text)
        obj.args = tuple(args)
        return obj

    def __repr__(self):
        return f"Format({str(self)!r}, args={self.args!r})" if self.args else f"Format({str(self)!r})"


def _argument(value):
    """A placeholder value as JSON data: Expression objects travel as {"$expression": json}."""
    if isinstance(value, Expression):
        return {"$expression": value.to_json()}
    return value


def _text_and_args(format, args):
    text = format.encode("utf-8", "surrogatepass") if isinstance(format, str) else bytes(format)
    data = _json_bytes([_argument(a) for a in args])
    return text, data


def format_to_json(format, *args, kind=PREDICATE):
    """The style-spec JSON expression a format string converts to (not compiled)."""
    text, data = _text_and_args(format, args)
    return json.loads(take_text(lambda buf: lib.mc_format_to_json(text, len(text), data, len(data), kind, buf)))


def format_from_json(expr, kind=EXPRESSION):
    """A Format for a JSON expression (kind PREDICATE reads legacy filters as the iOS SDK does)."""
    data = _json_bytes(expr)
    text, args = Buf(), Buf()
    try:
        check(lib.mc_format_from_json(data, len(data), kind, ctypes.byref(text), ctypes.byref(args)))
        return Format(ctypes.string_at(text.data, text.len).decode("utf-8"),
                      json.loads(ctypes.string_at(args.data, args.len).decode("utf-8")))
    finally:
        lib.mc_buf_dispose(ctypes.byref(text))
        lib.mc_buf_dispose(ctypes.byref(args))


def compile_format(cls, format, args, property_spec=None):
    """A compiled `cls` (Expression or Predicate) from a format string and its arguments."""
    text, data = _text_and_args(format, args)
    handle = ctypes.c_void_p()
    if cls._kind == PREDICATE:
        check(lib.mc_predicate_compile(text, len(text), data, len(data), ctypes.byref(handle)))
    else:
        spec = _json_bytes(property_spec) if property_spec is not None else None
        check(lib.mc_expression_compile_format(text, len(text), data, len(data), spec, len(spec) if spec else 0,
                                               ctypes.byref(handle)))
    obj = cls._adopt(handle)
    obj._source = (str(format), tuple(_argument(a) for a in args))
    return obj


class Predicate(Filter):
    """A filter written as an NSPredicate format string of the iOS SDKs:

        >>> p = mapcore.Predicate("temperature != nil && temperature >= %@", 100)
        >>> p.matches({"type": "Feature", "geometry": None, "properties": {"temperature": 120}})
        True

    `args` fill the `%@`/`%K` placeholders: JSON-able values (a GeoJSON dict for `SELF IN %@`)
    or Expression objects (`Predicate('%@ == "Point"', Expression.from_format("$geometryType"))`).
    Usable wherever a filter is: DataSource(filter=…), evaluation, to_json(), to_format()."""

    __slots__ = ()

    def __init__(self, format, *args):
        compiled = compile_format(Predicate, format, args)
        self._handle, compiled._handle = compiled._handle, ctypes.c_void_p()
        self._source = compiled._source


# ---- builders for the SDK's NSExpression constructors (JSON expressions) -------------------

def _json(value):
    return value.to_json() if isinstance(value, Expression) else value


def conditional(condition, true_value, false_value):
    """forAZMConditional:trueExpression:falseExpression: — ["case", condition, a, b]."""
    return ["case", _json(condition), _json(true_value), _json(false_value)]


def match(input, cases, default):
    """forAZMMatchingKey:in:default: — `cases` maps a label (or a tuple/list of labels) to a value,
    as a dict or a sequence of (label, value) pairs."""
    pairs = cases.items() if isinstance(cases, dict) else cases
    out = ["match", _json(input)]
    for label, value in pairs:
        out += [list(label) if isinstance(label, (list, tuple)) else label, _json(value)]
    return out + [_json(default)]


def coalesce(*values):
    """forAZMCoalescing: — the first non-null value."""
    return ["coalesce"] + [_json(v) for v in values]


def join(*values):
    """forAZMJoining: — the strings concatenated."""
    return ["concat"] + [_json(v) for v in values]


def interpolate(input, stops, curve="linear", base=None, control_points=None):
    """forAZMInterpolating:curveType:parameters:stops: — curve "linear", "exponential" (with
    `base`) or "cubic-bezier" (with four `control_points`); `stops` maps numbers to values."""
    if curve == "linear":
        curve_json = ["linear"]
    elif curve == "exponential":
        curve_json = ["exponential", _json(base if base is not None else 1)]
    elif curve == "cubic-bezier":
        if control_points is None or len(control_points) != 4:
            raise ValueError("cubic-bezier needs four control points")
        curve_json = ["cubic-bezier"] + [float(c) for c in control_points]
    else:
        raise ValueError(f"unknown curve type {curve!r} (linear, exponential, cubic-bezier)")
    out = ["interpolate", curve_json, _json(input)]
    for key, value in sorted(dict(stops).items()):
        out += [key, _json(value)]
    return out


def step(input, from_value, stops):
    """forAZMStepping:from:stops: — `from_value` below the first stop, then each stop's value."""
    out = ["step", _json(input), _json(from_value)]
    for key, value in sorted(dict(stops).items()):
        out += [key, _json(value)]
    return out


def json_object(value):
    """azmJSONObject — an Expression from its JSON form."""
    return Expression(value)
