"""``python -m animsmith.checks [--markdown]``: print the check list or docs/checks.md."""

import sys

from animsmith.checks import markdown, registry

if __name__ == "__main__":
    if "--markdown" in sys.argv[1:]:
        sys.stdout.write(markdown())
    else:
        for spec in registry().values():
            print(f"{spec.id}\t{spec.severity}\t{spec.scope}\t{spec.summary}")
