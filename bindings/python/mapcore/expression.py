"""Style expressions and filters: include/mapcore/expression.h; and Predicate, a filter compiled
from an NSPredicate format string (include/mapcore/format.h, whose conversions are in format.py)."""
from __future__ import annotations

import ctypes
import json
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Literal, Sequence, TypeVar, overload

from ._lib import (MC_E_BUFFER_TOO_SMALL, MC_E_EVALUATION, MC_OK, Buf, Compiled, EvaluationError, check, lib, take_text,
                   _declare, json_bytes)
from .format import EXPRESSION, PREDICATE, Format, compile_format, format_from_json, format_to_json
from .geojson import GeoJSON, to_bytes

if TYPE_CHECKING:
    from ._lib import GeoJSONLike


class EvalContext(ctypes.Structure):
    """mc_eval_context of expression.h: zoom, feature state and the other inputs of an evaluation."""

    _fields_ = [
        ("version", ctypes.c_int),
        ("has_zoom", ctypes.c_int), ("zoom", ctypes.c_double),
        ("has_heatmap_density", ctypes.c_int), ("heatmap_density", ctypes.c_double),
        ("has_line_progress", ctypes.c_int), ("line_progress", ctypes.c_double),
        ("has_elevation", ctypes.c_int), ("elevation", ctypes.c_double),
        ("feature_state", ctypes.c_char_p), ("feature_state_len", ctypes.c_size_t),
        ("global_state", ctypes.c_char_p), ("global_state_len", ctypes.c_size_t),
        ("available_images", ctypes.c_char_p), ("available_images_len", ctypes.c_size_t),
        ("accumulated", ctypes.c_char_p), ("accumulated_len", ctypes.c_size_t),
        ("has_canonical", ctypes.c_int),
        ("canonical_z", ctypes.c_int), ("canonical_x", ctypes.c_int), ("canonical_y", ctypes.c_int),
    ]


_vp = ctypes.c_void_p
_ctx_p = ctypes.POINTER(EvalContext)
_u8_p = ctypes.POINTER(ctypes.c_uint8)
_size_p = ctypes.POINTER(ctypes.c_size_t)
_declare("mc_expression_compile", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.POINTER(_vp))
_declare("mc_filter_compile", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_vp))
_declare("mc_expression_free", None, _vp)
_declare("mc_expression_evaluate", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.c_size_t, _ctx_p, ctypes.POINTER(Buf))
_declare("mc_expression_matches", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.c_size_t, _ctx_p,
         ctypes.POINTER(ctypes.c_int))
_declare("mc_expression_evaluate_numbers", ctypes.c_int, _vp, _vp, _ctx_p, ctypes.POINTER(ctypes.c_double), _u8_p,
         ctypes.c_size_t, _size_p)
_declare("mc_expression_evaluate_colors", ctypes.c_int, _vp, _vp, _ctx_p, ctypes.POINTER(ctypes.c_float), _u8_p,
         ctypes.c_size_t, _size_p)
_declare("mc_expression_evaluate_booleans", ctypes.c_int, _vp, _vp, _ctx_p, _u8_p, _u8_p, ctypes.c_size_t, _size_p)
_declare("mc_expression_serialize", ctypes.c_int, _vp, ctypes.POINTER(Buf))
_declare("mc_expression_type", ctypes.c_int, _vp, ctypes.POINTER(Buf))
_declare("mc_expression_flags", ctypes.c_int, _vp, ctypes.POINTER(ctypes.c_uint))

# mc_expression_flags bits of expression.h.
FEATURE_CONSTANT, ZOOM_CONSTANT, STATE_CONSTANT = 1, 2, 4


def _context(zoom: float | None = None, heatmap_density: float | None = None, line_progress: float | None = None,
             elevation: float | None = None, feature_state: Any = None, global_state: Any = None,
             available_images: Any = None, accumulated: Any = None,
             canonical: tuple[int, int, int] | None = None) -> tuple[EvalContext, list[bytes]]:
    """An mc_eval_context plus the byte strings it points into (kept alive by the caller)."""
    ctx = EvalContext()
    ctx.version = 1
    keep: list[bytes] = []
    for name, value in (("zoom", zoom), ("heatmap_density", heatmap_density), ("line_progress", line_progress),
                        ("elevation", elevation)):
        if value is not None:
            setattr(ctx, "has_" + name, 1)
            setattr(ctx, name, float(value))
    for name, value in (("feature_state", feature_state), ("global_state", global_state),
                        ("available_images", available_images), ("accumulated", accumulated)):
        if value is not None:
            data = json_bytes(value)
            keep.append(data)
            setattr(ctx, name, data)
            setattr(ctx, name + "_len", len(data))
    if canonical is not None:
        z, x, y = canonical
        ctx.has_canonical, ctx.canonical_z, ctx.canonical_x, ctx.canonical_y = 1, int(z), int(x), int(y)
    return ctx, keep


def _features_handle(features: GeoJSONLike) -> GeoJSON:
    """A GeoJSON handle for a GeoJSON object, a FeatureCollection dict, or a list of features."""
    if isinstance(features, GeoJSON):
        return features
    if isinstance(features, (list, tuple)):
        features = {"type": "FeatureCollection", "features": list(features)}
    return GeoJSON(features)


_E = TypeVar("_E", bound="Expression")


class Expression(Compiled):
    """A compiled style expression (JSON form of the MapLibre/Mapbox style spec), immutable and
    safe to evaluate from many threads.

        >>> e = mapcore.Expression(["step", ["get", "population"], 1, 100000, 2])
        >>> e.evaluate({"type": "Feature", "geometry": None, "properties": {"population": 250000}})
        2

    `property_spec` (a dict) is the style property the expression is compiled for: its "type"
    decides coercion (e.g. "color"), its "property-type"/"expression" which inputs are allowed."""

    __slots__ = ("_source", "_spec")
    _source: Any  # the JSON compiled, or (format string, arguments) for a format string
    _spec: dict[str, Any] | None
    _free = staticmethod(lib.mc_expression_free)
    _kind: ClassVar[int] = EXPRESSION

    def __init__(self, expr: Any, property_spec: dict[str, Any] | None = None) -> None:
        data = json_bytes(expr)
        spec = json_bytes(property_spec) if property_spec is not None else None
        handle = ctypes.c_void_p()
        check(lib.mc_expression_compile(data, len(data), spec, len(spec) if spec else 0, ctypes.byref(handle)))
        self._handle = handle
        self._source = json.loads(data)
        self._spec = property_spec

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as what it was compiled from (JSON, or a format string and its arguments)."""
        if isinstance(self._source, tuple):
            return (_unpickle_format, (type(self), self._source[0], self._source[1], self._spec))
        return (type(self), (self._source, self._spec))

    def __repr__(self) -> str:
        """<mapcore.Expression JSON> (the first 80 characters of the JSON), or <mapcore.Expression closed>."""
        return f"<mapcore.{type(self).__name__} {json.dumps(self.to_json())[:80]}>" if self._handle else \
            f"<mapcore.{type(self).__name__} closed>"

    @classmethod
    def from_format(cls: type[_E], format: str, *args: Any, property_spec: dict[str, Any] | None = None) -> _E:
        """Compiles an NSExpression format string of the iOS SDKs, e.g.
        `Expression.from_format("MGL_MATCH(x, 0, 'zero', 'default')")`. `args` fill the `%@` and
        `%K` placeholders: JSON-able values (dicts are stops or GeoJSON shapes) or Expression
        objects."""
        return cls._from_format(format, args, property_spec)

    @classmethod
    def _from_format(cls: type[_E], format: str, args: Sequence[Any],
                     property_spec: dict[str, Any] | None = None) -> _E:
        handle, source = compile_format(cls._kind, format, args, property_spec)
        obj = cls._adopt(handle)
        obj._source = source
        obj._spec = property_spec
        return obj


    def evaluate(self, feature: GeoJSONLike | None = None, zoom: float | None = None, **context: Any) -> Any:
        """The value for one feature (a GeoJSON Feature or geometry as dict/str, or None).
        Context keywords: heatmap_density, line_progress, elevation, feature_state,
        global_state, available_images, accumulated, canonical=(z, x, y).
        Colors come back as "rgba(r,g,b,a)" strings. Raises EvaluationError on run-time errors."""
        data = to_bytes(feature) if feature is not None else None
        ctx, keep = _context(zoom=zoom, **context)
        text = take_text(lambda buf: lib.mc_expression_evaluate(self._handle, data, len(data) if data else 0,
                                                                ctypes.byref(ctx), buf))
        return json.loads(text)

    @overload
    def evaluate_many(self, features: GeoJSONLike, zoom: float | None = None, *, kind: Literal["number"],
                      **context: Any) -> list[float | None]: ...

    @overload
    def evaluate_many(self, features: GeoJSONLike, zoom: float | None = None, *, kind: Literal["color"],
                      **context: Any) -> list[tuple[float, float, float, float] | None]: ...

    @overload
    def evaluate_many(self, features: GeoJSONLike, zoom: float | None = None, *, kind: Literal["boolean"],
                      **context: Any) -> list[bool | None]: ...

    @overload
    def evaluate_many(self, features: GeoJSONLike, zoom: float | None = None, kind: str | None = None,
                      **context: Any) -> list[Any]: ...

    def evaluate_many(self, features: GeoJSONLike, zoom: float | None = None, kind: str | None = None,
                      **context: Any) -> list[Any]:
        """Values for many features at once (a list of features, a FeatureCollection dict or a
        mapcore.GeoJSON). `kind` is "number", "color" or "boolean" (default: from the
        expression's type). Returns a list: floats, (r, g, b, a) premultiplied tuples, or bools;
        None where a feature failed."""
        kind = kind or {"number": "number", "color": "color", "boolean": "boolean"}.get(self.type)
        collection = _features_handle(features)
        ctx, keep = _context(zoom=zoom, **context)
        if kind is None:
            raise ValueError(f"evaluate_many needs kind= for expressions of type {self.type}")
        count = ctypes.c_size_t()
        fn = {"number": lib.mc_expression_evaluate_numbers, "color": lib.mc_expression_evaluate_colors,
              "boolean": lib.mc_expression_evaluate_booleans}[kind]
        status = fn(self._handle, collection.handle, ctypes.byref(ctx), None, None, 0, ctypes.byref(count))
        if status not in (MC_OK, MC_E_BUFFER_TOO_SMALL):
            check(status)
        n = count.value
        errors = (ctypes.c_uint8 * max(n, 1))()
        if kind == "number":
            out: ctypes.Array[Any] = (ctypes.c_double * max(n, 1))()
            check(fn(self._handle, collection.handle, ctypes.byref(ctx), out, errors, n, ctypes.byref(count)))
            return [None if errors[i] else out[i] for i in range(n)]
        if kind == "color":
            out = (ctypes.c_float * max(4 * n, 1))()
            check(fn(self._handle, collection.handle, ctypes.byref(ctx), out, errors, n, ctypes.byref(count)))
            return [None if errors[i] else tuple(out[4 * i:4 * i + 4]) for i in range(n)]
        out = (ctypes.c_uint8 * max(n, 1))()
        check(fn(self._handle, collection.handle, ctypes.byref(ctx), out, errors, n, ctypes.byref(count)))
        return [None if errors[i] else bool(out[i]) for i in range(n)]

    def _flags(self) -> int:
        flags = ctypes.c_uint()
        check(lib.mc_expression_flags(self._handle, ctypes.byref(flags)))
        return flags.value

    @property
    def type(self) -> str:
        """The result type in the style spec's spelling: "number", "color", "array<number, 2>"…"""
        return take_text(lambda buf: lib.mc_expression_type(self._handle, buf))

    @property
    def is_feature_constant(self) -> bool:
        """Whether the value is the same for every feature (no "get", "geometry-type", "id"…)."""
        return bool(self._flags() & FEATURE_CONSTANT)

    @property
    def is_zoom_constant(self) -> bool:
        """Whether the value is the same at every zoom (no "zoom" expression)."""
        return bool(self._flags() & ZOOM_CONSTANT)

    def to_json(self) -> Any:
        """The expression as JSON data: for format strings, the SDK's conversion; otherwise the
        compiled form (constants folded, legacy forms converted)."""
        if isinstance(self._source, tuple):
            return format_to_json(self._source[0], *self._source[1], kind=self._kind)
        return json.loads(take_text(lambda buf: lib.mc_expression_serialize(self._handle, buf)))

    def to_format(self) -> Format:
        """The expression as an NSExpression/NSPredicate format string: a str whose `.args` holds
        the values of its `%@`/`%K` placeholders (often none)."""
        if isinstance(self._source, tuple):
            return Format(self._source[0], self._source[1])
        source = self._source if not isinstance(self._source, dict) else self.to_json()  # legacy functions
        return format_from_json(source, kind=self._kind)


class Filter(Expression):
    """A compiled filter: a boolean expression or a legacy filter (["==", "kind", "park"],
    ["in", "$type", "Point"], ["has", "name"], ["all", ...])."""

    __slots__ = ()
    _kind = PREDICATE

    def __init__(self, expr: Any) -> None:
        data = json_bytes(expr)
        handle = ctypes.c_void_p()
        check(lib.mc_filter_compile(data, len(data), ctypes.byref(handle)))
        self._handle = handle
        self._source = json.loads(data)
        self._spec = None

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as what it was compiled from (JSON, or a format string and its arguments)."""
        if isinstance(self._source, tuple):
            return (_unpickle_format, (type(self), self._source[0], self._source[1], None))
        return (type(self), (self._source,))

    def matches(self, feature: GeoJSONLike | None, zoom: float | None = None, *, strict: bool = False,
                **context: Any) -> bool:
        """Whether one feature passes. A feature whose evaluation fails does not pass, as in
        MapLibre and in filter(); strict=True raises EvaluationError instead."""
        data = to_bytes(feature) if feature is not None else None
        ctx, keep = _context(zoom=zoom, **context)
        out = ctypes.c_int()
        status = lib.mc_expression_matches(self._handle, data, len(data) if data else 0, ctypes.byref(ctx),
                                           ctypes.byref(out))
        if status == MC_E_EVALUATION and not strict:
            return False
        check(status)
        return bool(out.value)

    def filter(self, features: Iterable[dict[str, Any]] | dict[str, Any], zoom: float | None = None, *,
               strict: bool = False, **context: Any) -> list[dict[str, Any]]:
        """The features (dicts) that pass, in order; features whose evaluation fails do not pass
        (strict=True raises EvaluationError naming the first one instead)."""
        rows: list[dict[str, Any]] = list(features.get("features", []) if isinstance(features, dict) else features)
        flags = self.evaluate_many(rows, zoom=zoom, kind="boolean", **context)
        if strict and None in flags:
            raise EvaluationError(MC_E_EVALUATION, f"the filter fails on feature {flags.index(None)}")
        return [f for f, keep in zip(rows, flags) if keep]


class Predicate(Filter):
    """A filter written as an NSPredicate format string of the iOS SDKs:

        >>> p = mapcore.Predicate("temperature != nil && temperature >= %@", 100)
        >>> p.matches({"type": "Feature", "geometry": None, "properties": {"temperature": 120}})
        True

    `args` fill the `%@`/`%K` placeholders: JSON-able values (a GeoJSON dict for `SELF IN %@`)
    or Expression objects (`Predicate('%@ == "Point"', Expression.from_format("$geometryType"))`).
    Usable wherever a filter is: DataSource(filter=…), evaluation, to_json(), to_format()."""

    __slots__ = ()

    def __init__(self, format: str, *args: Any) -> None:
        self._handle, self._source = compile_format(PREDICATE, format, args)
        self._spec = None


def _unpickle_format(cls: type[Expression], format: str, args: Sequence[Any],
                     property_spec: dict[str, Any] | None) -> Expression:
    """An expression or filter compiled again from its format string (for pickle)."""
    if issubclass(cls, Predicate):
        return cls(format, *args)
    return cls._from_format(format, args, property_spec)
