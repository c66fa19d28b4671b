"""The wheel (bindings/python/wheel.sh, `make wheel`) installs into a bare virtual environment and
works there on its own: the library and its non-baseline dependencies inside, no Swift runtime
outside, and a manylinux tag no lower than the glibc its files need."""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
LIBRARY = REPO / ".build" / "release" / "libmapcore.so"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    assert LIBRARY.exists(), "make build first"
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([str(REPO / "bindings" / "python" / "wheel.sh"), str(out), sys.executable], check=True)
    wheels = list(out.glob("mapcore-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def glibc_needed(data):
    """The highest GLIBC_x.y symbol version an ELF file's bytes name."""
    versions = {tuple(int(p) for p in m.split(b".")) for m in re.findall(rb"GLIBC_(\d+\.\d+)\b", data)}
    return max(versions) if versions else (0, 0)


def test_wheel_tag_is_honest_about_glibc(wheel):
    # cp38-abi3: the one C extension (mapcore/_dicts.c) uses CPython's stable ABI.
    platforms = re.fullmatch(r"mapcore-[\d.]+-cp38-abi3-(.+)\.whl", wheel.name)
    assert platforms, wheel.name
    tags = [re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", p) for p in platforms[1].split(".")]
    assert tags and all(tags), wheel.name
    tag = min((int(t[1]), int(t[2])) for t in tags)
    with zipfile.ZipFile(wheel) as z:
        elves = [n for n in z.namelist() if ".so" in n]
        needed = max(glibc_needed(z.read(n)) for n in elves)
        names = {Path(n).name.split("-")[0].split(".so")[0] for n in elves}
    assert needed <= tag, f"files need glibc {needed}, the tag says {tag}"
    assert needed >= (2, 17)  # sanity: the scan found the versions
    # GEOS, libcurl and SQLite travel inside; the Swift runtime is linked into libmapcore itself.
    assert {"libmapcore", "libgeos_c", "libcurl", "libsqlite3", "_dicts.abi3"} <= names, names
    assert not any(n.startswith("libswift") for n in names)


def test_wheel_carries_the_licences_of_what_it_vendors(wheel):
    with zipfile.ZipFile(wheel) as z:
        licences = {Path(n).name: n for n in z.namelist() if "/licenses/" in n}
        geos = [n for n in licences if n.startswith("libgeos") and n.endswith(".copyright")]
        assert geos, sorted(licences)
        assert "LGPL-2.1" in z.read(licences[geos[0]]).decode()
        assert "GNU LESSER GENERAL PUBLIC LICENSE" in z.read(licences["LGPL-2.1"]).decode()
    for library in ("libcurl", "libsqlite3"):
        assert any(n.startswith(library) and n.endswith(".copyright") for n in licences), (library, sorted(licences))


def test_wheel_installs_and_runs_in_a_bare_environment(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                    "--disable-pip-version-check", str(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("MAPCORE_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
    program = r"""
import json, subprocess, sys, mapcore
from pathlib import Path
lib = Path(mapcore.library_path)
print(json.dumps({
    "library": str(lib),
    "ldd": subprocess.run(["ldd", str(lib)], capture_output=True, text=True).stdout,
    "within": mapcore.Expression(["within", {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2],
        [0, 0]]]}]).evaluate({"type": "Feature", "properties": {}, "geometry": {"type": "Point",
        "coordinates": [1, 1]}}),
    "geos": mapcore.geos_version(),
    "dicts": mapcore._lib.dicts.__file__,
    "clusters": len(mapcore.Supercluster().load_points([0.0, 0.0, 0.0001, 0.0001]).get_clusters(
        (-180, -85, 180, 85), 0)),
}))
"""
    result = subprocess.run([str(python), "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    facts = __import__("json").loads(result.stdout)
    assert facts["library"].startswith(str(venv)), facts["library"]
    assert facts["within"] is True and facts["clusters"] == 1 and facts["geos"]
    assert facts["dicts"].startswith(str(venv)) and facts["dicts"].endswith(".abi3.so"), facts["dicts"]
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", facts["ldd"], re.M))
    for name in ("libgeos_c", "libcurl", "libsqlite3"):
        path = next((p for n, p in resolved.items() if n.startswith(name)), None)
        assert path and "mapcore.libs" in path, f"{name} resolves to {path}"
    assert "not found" not in facts["ldd"]
