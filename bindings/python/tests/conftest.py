import sys
from pathlib import Path

# Run against the source tree's package when it is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DATA = Path(__file__).resolve().parents[3] / "data"


def strictly_equal(a, b, path="$"):
    """Equal with the same types (1 is not 1.0, True is not 1), floats to the bit (-0.0 is not
    0.0) and keys in the same order: what two ways of making the same Python values must give."""
    assert type(a) is type(b), f"{path}: {a!r} is {type(a).__name__}, {b!r} is {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            strictly_equal(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            strictly_equal(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert a.hex() == b.hex(), path
    else:
        assert a == b, path
