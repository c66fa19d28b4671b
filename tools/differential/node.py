"""What the differential testers share: their command line and the reference process that answers."""
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
    """A process answering one case a JSON line in with one answer a line out."""

    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    @classmethod
    def node(cls, script, checkout):
        """node running `script` (beside this file) over the reference's checkout."""
        return cls(["node", str(Path(__file__).resolve().parent / script), checkout])

    def ask(self, case):
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())
