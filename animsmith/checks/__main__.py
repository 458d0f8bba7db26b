"""``python -m animsmith.checks [--markdown]``: print the check list or docs/checks.md.

Written as UTF-8 bytes with ``\\n`` line ends whatever stdout's encoding (on Windows a
redirected stdout is the ANSI code page with ``\\r\\n``), so ``> docs/checks.md`` gives the
same file on every OS."""

import sys

from animsmith.checks import markdown, registry

if __name__ == "__main__":
    if "--markdown" in sys.argv[1:]:
        text = markdown()
    else:
        text = "".join(f"{spec.id}\t{spec.severity}\t{spec.scope}\t{spec.summary}\n" for spec in registry().values())
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
