"""Every tracked text file keeps to 120 columns, but for data (JSON, GeoJSON, JSON Lines, test
fixtures, fuzz seeds) and Markdown table rows, which cannot wrap. Prints each long line and exits 1.
usage: python3 Tests/lint/line_length.py [ROOT]"""
import subprocess
import sys
from pathlib import Path

LIMIT = 120
DATA = (".json", ".jsonl", ".geojson", ".png", ".mvt", ".pbf", ".dbf", ".shp", ".shx")


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    long_lines, checked = [], 0
    for name in files:
        if name.endswith(DATA) or "/fixtures/" in name or "/conformance/" in name or "/corpus/" in name:
            continue
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        checked += 1
        for number, line in enumerate(text.split("\n"), 1):
            if len(line) > LIMIT and not (name.endswith(".md") and line.lstrip().startswith("|")):
                long_lines.append(f"{name}:{number}: {len(line)} columns")
    for entry in long_lines:
        print(entry)
    print(f"{checked} files checked, {len(long_lines)} lines over {LIMIT} columns")
    sys.exit(1 if long_lines else 0)


if __name__ == "__main__":
    main()
