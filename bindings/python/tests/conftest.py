import sys
from pathlib import Path

# Run against the source tree's package when it is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DATA = Path(__file__).resolve().parents[3] / "data"
