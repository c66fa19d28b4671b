"""Builders for the iOS SDK's NSExpression constructors (forAZMConditional, forAZMMatchingKey, …):
each returns the JSON expression the SDK builds, usable wherever an expression is."""
from ._lib import Compiled
from .expression import Expression


def _json(value):
    return value.to_json() if isinstance(value, Compiled) else value


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
