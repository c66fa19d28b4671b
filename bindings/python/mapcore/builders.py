"""Builders for the iOS SDK's NSExpression constructors (forAZMConditional, forAZMMatchingKey, …):
each returns the JSON expression the SDK builds, usable wherever an expression is."""
from __future__ import annotations

from typing import Any, Iterable, Literal, Mapping, Sequence

from ._lib import Compiled
from .expression import Expression


def _json(value: Any) -> Any:
    """An Expression as its JSON form; other values as they are."""
    return value.to_json() if isinstance(value, Compiled) else value


def conditional(condition: Any, true_value: Any, false_value: Any) -> list[Any]:
    """forAZMConditional:trueExpression:falseExpression: — ["case", condition, a, b]."""
    return ["case", _json(condition), _json(true_value), _json(false_value)]


def match(input: Any, cases: dict[Any, Any] | Iterable[tuple[Any, Any]], default: Any) -> list[Any]:
    """forAZMMatchingKey:in:default: — `cases` maps a label (or a tuple/list of labels) to a value,
    as a dict or a sequence of (label, value) pairs."""
    pairs = cases.items() if isinstance(cases, dict) else cases
    out: list[Any] = ["match", _json(input)]
    for label, value in pairs:
        out += [list(label) if isinstance(label, (list, tuple)) else label, _json(value)]
    return out + [_json(default)]


def coalesce(*values: Any) -> list[Any]:
    """forAZMCoalescing: — the first non-null value."""
    return ["coalesce"] + [_json(v) for v in values]


def join(*values: Any) -> list[Any]:
    """forAZMJoining: — the strings concatenated."""
    return ["concat"] + [_json(v) for v in values]


def interpolate(input: Any, stops: Mapping[Any, Any] | Iterable[tuple[float, Any]],
                curve: Literal["linear", "exponential", "cubic-bezier"] = "linear", base: Any = None,
                control_points: Sequence[float] | None = None) -> list[Any]:
    """forAZMInterpolating:curveType:parameters:stops: — curve "linear", "exponential" (with
    `base`) or "cubic-bezier" (with four `control_points`); `stops` maps numbers to values."""
    curve_json: list[Any]
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
    out: list[Any] = ["interpolate", curve_json, _json(input)]
    for key, value in sorted(dict(stops).items()):
        out += [key, _json(value)]
    return out


def step(input: Any, from_value: Any, stops: Mapping[Any, Any] | Iterable[tuple[float, Any]]) -> list[Any]:
    """forAZMStepping:from:stops: — `from_value` below the first stop, then each stop's value."""
    out: list[Any] = ["step", _json(input), _json(from_value)]
    for key, value in sorted(dict(stops).items()):
        out += [key, _json(value)]
    return out


def json_object(value: Any) -> Expression:
    """azmJSONObject — an Expression from its JSON form."""
    return Expression(value)
