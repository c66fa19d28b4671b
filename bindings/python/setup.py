"""Ships libmapcore.so inside the package, so `pip install ./bindings/python` works on its own.

The library comes from $MAPCORE_LIBRARY, else from the repository's SwiftPM build
(.build/release/libmapcore.so), which is built here when missing. Without Swift or the
repository, the package still installs and finds an installed libmapcore at import time.
"""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
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


class BinaryDistribution(Distribution):
    """The wheel carries a native library, so it is tagged for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
