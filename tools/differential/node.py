"""What the two differential testers share: their command line and the node process that answers."""
import json
import subprocess
import sys
from pathlib import Path


def arguments(doc, defaults):
    """(reference checkout, {option: value}) from the command line, each option's type its default's."""
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("--"):
        sys.exit(doc)
    return argv[0], {k: type(v)(argv[argv.index(k) + 1]) if k in argv else v for k, v in defaults.items()}


class Reference:
    """A node process running `script` over the checkout: one case a JSON line in, one answer out."""

    def __init__(self, script, checkout):
        self.process = subprocess.Popen(["node", str(Path(__file__).resolve().parent / script), checkout],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, case):
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())
