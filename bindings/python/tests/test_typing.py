"""The package's typing: the PEP 561 marker is shipped, a typed user program checks clean under
mypy --strict against the annotations (and mypy reports the deliberate errors in it), every public
name has a docstring, and handles show useful reprs."""
import ctypes
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mapcore

PACKAGE = Path(mapcore.__file__).resolve().parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"

# Every module of the package (all annotated; make lint runs mypy --strict over them).
TYPED_MODULES = ("mapcore._lib", "mapcore.builders", "mapcore.cluster", "mapcore.expression", "mapcore.format",
                 "mapcore.geojson", "mapcore.geometry", "mapcore.interop", "mapcore.source", "mapcore.tile",
                 "mapcore.tilesource", "mapcore.vector_tile")

# A user's program. Lines ending in `# E: code` are deliberate errors mypy must report with that
# code; any other error (an assert_type that fails, an annotation that refuses valid use) fails.
PROGRAM = '''
from __future__ import annotations

import array
from typing import Any, Optional

from typing_extensions import assert_type

import mapcore
from mapcore import builders

point: dict[str, Any] = {"type": "Point", "coordinates": [1.0, 2.0]}
feature: dict[str, Any] = {"type": "Feature", "geometry": point, "properties": {"population": 250000}}

# expressions, filters and predicates
e = mapcore.Expression(["step", ["get", "population"], 1, 100000, 2], property_spec={"type": "number"})
assert_type(e.evaluate(feature, zoom=3), Any)
assert_type(e.evaluate('{"type": "Point", "coordinates": [0, 0]}'), Any)
assert_type(e.type, str)
assert_type(e.is_feature_constant, bool)
assert_type(e.is_zoom_constant, bool)
assert_type(e.to_json(), Any)
assert_type(e.to_format(), mapcore.Format)
assert_type(e.to_format().args, tuple[Any, ...])
assert_type(e.evaluate_many([feature], kind="number"), list[Optional[float]])
assert_type(e.evaluate_many({"type": "FeatureCollection", "features": [feature]}, 2.0, kind="color"),
            list[Optional[tuple[float, float, float, float]]])
assert_type(e.evaluate_many([feature], kind="boolean"), list[Optional[bool]])
assert_type(e.evaluate_many([feature]), list[Any])
assert_type(mapcore.Expression.from_format("MGL_MATCH(x, 0, 'zero', 'default')"), mapcore.Expression)
f = mapcore.Filter(["==", "kind", "park"])
assert_type(f.matches(feature, 10, strict=True), bool)
assert_type(f.filter([feature]), list[dict[str, Any]])
assert_type(f.filter({"type": "FeatureCollection", "features": [feature]}), list[dict[str, Any]])
p = mapcore.Predicate("temperature != nil && temperature >= %@", 100)
assert_type(p, mapcore.Predicate)
assert_type(mapcore.Predicate.from_format("a == 1"), mapcore.Predicate)
with mapcore.Filter(["has", "name"]) as g:
    assert_type(g, mapcore.Filter)
assert_type(mapcore.format_to_json("a == %@", 1), Any)
assert_type(mapcore.format_from_json(["==", ["get", "a"], 1]), mapcore.Format)
assert_type(mapcore.Format("a == %@", [1]), mapcore.Format)
assert_type(builders.match(["get", "k"], {"a": 1, ("b", "c"): 2}, 0), list[Any])
assert_type(builders.interpolate(["zoom"], {0: 1, 10: e}, curve="exponential", base=2), list[Any])
assert_type(builders.json_object(["get", "k"]), mapcore.Expression)

# geometry
box = mapcore.bbox(point)
assert_type(box, Optional[mapcore.BBox])
if box is not None:
    assert_type(box.west, float)
    west, south, east, north = box
    assert_type(north, float)
assert_type(mapcore.bbox([(0.0, 0.0), (10, 5)]), Optional[mapcore.BBox])
assert_type(mapcore.bbox(array.array("d", [0, 0, 10, 5])), Optional[mapcore.BBox])
assert_type(mapcore.positions(point), list[tuple[float, float]])
assert_type(mapcore.convex_hull([(0, 0), (1, 0), (0, 1)]), Optional[dict[str, Any]])
assert_type(mapcore.bbox_merge((0, 0, 1, 1), [2, 2, 3, 3]), mapcore.BBox)
assert_type(mapcore.bbox_contains((0, 0, 1, 1), (0.5, 0.5)), bool)
assert_type(mapcore.bbox_intersects((0, 0, 1, 1), (0.5, 0.5, 2, 2)), bool)
assert_type(mapcore.bbox_crosses_antimeridian((170, 0, -170, 1)), bool)
assert_type(mapcore.bbox_split_antimeridian((170, 0, -170, 1)), list[mapcore.BBox])

# tiles
assert_type(mapcore.tile_cover((0, 0, 1, 1), 3), list[tuple[int, int, int]])
assert_type(mapcore.camera_fit((0, 0, 1, 1), 512, 512, padding=(10, 10, 10, 10)), tuple[float, float, float])
assert_type(mapcore.tile_url("https://t/{z}/{x}/{y}.pbf", 1, 0, 0, scheme="tms", ratio=2), str)
with mapcore.GeoJSONVT(point, max_zoom=10, tolerance=0.5) as vt:
    assert_type(vt, mapcore.GeoJSONVT)
    assert_type(vt.get_tile(0, 0, 0), Optional[dict[str, Any]])
    assert_type(vt.get_tile_mvt(0, 0, 0, layer="points"), Optional[bytes])
    assert_type(vt.stats(), dict[str, Any])
    assert_type(vt.total, int)
source = mapcore.VectorTileSource("https://t/{z}/{x}/{y}.pbf", maxzoom=14, bounds=(0, 0, 1, 1))
assert_type(source.cover((0, 0, 1, 1), 2.5), list[tuple[int, int, int, int]])
assert_type(source.fetch(0, 0, 0, raw=True), Optional[bytes])
assert_type(source.features(0, 0, 0, "water"), list[dict[str, Any]])
assert_type(source.query((0, 0, 1, 1), 3, filter="class == 'river'"), list[dict[str, Any]])
assert_type(source.options, dict[str, Any])
assert_type(source.tilejson, Optional[dict[str, Any]])
assert_type(mapcore.decode_mvt(b"", 0, 0, 0), dict[str, dict[str, Any]])

# the library and its errors
assert_type(mapcore.version(), str)
assert_type(mapcore.abi_version(), int)
assert_type(mapcore.geos_version(), str)
assert_type(mapcore.library_path, str)
try:
    mapcore.Expression(["nope"])
except mapcore.ExpressionError as err:
    assert_type(err.code, int)
    assert_type(err.message, str)
    assert_type(err.path, Optional[str])
    assert_type(err.line, Optional[int])

# deliberate errors
flipped: tuple[str, str, str, str] = mapcore.bbox_merge((0, 0, 1, 1), (1, 1, 2, 2))  # E: assignment
mapcore.tile_url("https://t/{z}/{x}/{y}.pbf", 1, 0, 0, scheme="google")  # E: arg-type
e.evaluate(feature, zoom="3")  # E: arg-type
mapcore.bbox(42)  # E: arg-type
size: int = mapcore.version()  # E: assignment
'''


def _expected_errors(program):
    return {(number, m.group(1)) for number, line in enumerate(program.splitlines(), 1)
            for m in [re.search(r"# E: ([\w-]+)$", line)] if m}


def test_py_typed_is_shipped():
    assert (PACKAGE / "py.typed").is_file(), "the PEP 561 marker mapcore/py.typed is missing"
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the line as written
        assert re.search(r'^mapcore = \[.*"py\.typed".*\]$', PYPROJECT.read_text(), re.M)
    else:
        data = tomllib.loads(PYPROJECT.read_text())
        assert "py.typed" in data["tool"]["setuptools"]["package-data"]["mapcore"]


def test_typed_program_checks_under_mypy_strict(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is a test dependency of the Python bindings: install it (pip install mypy, or "
                    "`make test-deps`)")
    program = textwrap.dedent(PROGRAM).lstrip()
    (tmp_path / "user_program.py").write_text(program)
    # mapcore is found on sys.path as an installed package: only its py.typed marker makes mypy read
    # the annotations (without it: "module is installed, but missing library stubs or py.typed marker").
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent), MYPYPATH="")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--show-error-codes", "--no-error-summary", "--no-pretty",
         "--cache-dir", str(tmp_path / "mypy_cache"), "user_program.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    errors = set()
    for m in re.finditer(r"^user_program\.py:(\d+): error: .*\[([\w-]+)\]$", output, re.M):
        errors.add((int(m.group(1)), m.group(2)))
    expected = _expected_errors(program)
    assert len(expected) == 5
    assert errors == expected, f"mypy's errors differ from the expected ones {sorted(expected)}:\n{output}"
    assert result.returncode == 1, output
    # Every other line of mypy's output is a note about one of those errors, nothing about mapcore itself.
    for line in output.splitlines():
        assert line.startswith("user_program.py:"), output


def _public_members(cls):
    """The public functions, methods and properties a class defines itself."""
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(member, property):
            yield name, member


def test_public_names_have_docstrings():
    missing = []
    for name in mapcore.__all__:
        obj = getattr(mapcore, name)
        module = obj.__name__ if inspect.ismodule(obj) else getattr(obj, "__module__", None)
        if module not in TYPED_MODULES:
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(f"mapcore.{name}")
        if inspect.isclass(obj):
            missing += [f"mapcore.{name}.{m}" for m, member in _public_members(obj)
                        if not (member.__doc__ or "").strip()]
    # ... and every public class, function, method and property of the annotated modules.
    for module_name in TYPED_MODULES:
        module = sys.modules[module_name]
        if not (module.__doc__ or "").strip():
            missing.append(module_name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
                continue
            if getattr(obj, "__name__", name) != name:  # an alias, e.g. c_int_p = ctypes.POINTER(ctypes.c_int)
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                if not (obj.__doc__ or "").strip():
                    missing.append(f"{module_name}.{name}")
            if inspect.isclass(obj):
                missing += [f"{module_name}.{name}.{m}" for m, member in _public_members(obj)
                            if not (member.__doc__ or "").strip()]
    assert not missing, f"public names without a docstring: {sorted(set(missing))}"


def test_reprs():
    point = {"type": "Point", "coordinates": [1, 2]}
    e = mapcore.Expression(["get", "a"])
    assert repr(e) == '<mapcore.Expression ["get", "a"]>'
    e.close()
    assert repr(e) == "<mapcore.Expression closed>"

    vt = mapcore.GeoJSONVT(point, max_zoom=10)
    assert repr(vt) == "<mapcore.GeoJSONVT geojson-vt, max_zoom 10: 1 tile made>"
    vt.close()
    assert repr(vt) == "<mapcore.GeoJSONVT closed>"

    source = mapcore.VectorTileSource(["https://a/{z}/{x}/{y}.pbf", "https://b/{z}/{x}/{y}.pbf"], maxzoom=14)
    assert repr(source) == "<mapcore.VectorTileSource https://a/{z}/{x}/{y}.pbf (+1 more), zoom 0-14>"
    with source:
        pass
    assert repr(source) == "<mapcore.VectorTileSource closed>"

    # Handles without a repr of their own say whether they are open.
    class Bare(mapcore._lib.Handle):
        __slots__ = ()
        _free = staticmethod(lambda pointer: None)
    bare = Bare._adopt(ctypes.c_void_p(1))
    assert repr(bare) == "<mapcore.Bare open>"
    bare.close()
    assert repr(bare) == "<mapcore.Bare closed>"
    assert repr(mapcore.bbox(point)) == "BBox(west=1.0, south=2.0, east=1.0, north=2.0)"
