"""Ships libmapcore.so inside the package, so `pip install ./bindings/python` works on its own.

The library comes from $MAPCORE_LIBRARY, else from the repository's SwiftPM build
(.build/release/libmapcore.so), which is built here when missing. Without Swift or the
repository, the package still installs and finds an installed libmapcore at import time.
"""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def built_library():
    env = os.environ.get("MAPCORE_LIBRARY")
    if env:
        return Path(env)
    lib = REPO / ".build" / "release" / "libmapcore.so"
    if not lib.exists() and (REPO / "Package.swift").exists() and shutil.which("swift"):
        # pip shows this output only with -v (`pip install -v ./bindings/python`); the build takes minutes.
        print("mapcore: building libmapcore.so with `swift build -c release` (a few minutes)", flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "mapcore"], cwd=REPO, check=True)
    return lib if lib.exists() else None


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib is None:
            print("mapcore: no libmapcore.so found to ship; the installed package will look for a system one")
            return
        target = Path(self.build_lib) / "mapcore" / "libmapcore.so"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(lib, target)
        if shutil.which("strip"):  # symbols are half the file (22 -> 10 MB), as `cmake --install` strips
            subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)


# Cluster answers as dicts in one C-level pass (mapcore/_dicts.c, the stable ABI of CPython 3.8+).
# Optional: without a C compiler or Python's headers (Debian python3-dev) the package installs
# without it and builds the same dicts in Python, more slowly.
DICTS = Extension("mapcore._dicts", ["mapcore/_dicts.c"], py_limited_api=True, optional=True,
                  extra_compile_args=["-O2"])


class BinaryDistribution(Distribution):
    """The wheel carries a native library, so it is tagged for this platform."""

    def has_ext_modules(self):
        return True


try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel


class PlatformWheel(bdist_wheel):
    """cp38-abi3-<platform>: the library is loaded through ctypes and the one extension uses the
    stable ABI, so any CPython 3.8+ takes the wheel, but only on the platform the library was
    built for (`auditwheel repair` then gives the manylinux tag of the glibc it needs; see
    `make wheel`). Without the extension (it failed to build): py3-none-<platform>."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        if any(Path(self.bdist_dir).rglob("_dicts*.so")):
            return "cp38", "abi3", platform
        return "py3", "none", platform


setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel}, distclass=BinaryDistribution,
      ext_modules=[DICTS])
