"""Every shell block of README.md and docs/*.md runs as written.

The convention the pages follow:

* a block fenced ```` ```sh ```` is run, one command at a time (a line, with ``\\``
  continuations joined; blank and comment-only lines skipped) from the repository
  root, in order, each command exiting 0 unless its line ends with the comment
  ``# exits N``. Each command runs in its own ``bash -c`` (a ``cd`` or a variable
  does not carry over to the next line; files do). A page's blocks share one fresh copy of the repository, so a
  command may use a file an earlier command of the same page wrote, and nothing
  lands in the real tree.
* a block fenced ```` ```sh template ```` holds placeholders (``<your-pack>/``,
  ``FILE``) and is skipped.
* output samples and synopses are fenced ```` ``` ```` or ```` ```text ````. A line in
  such a block that reads as a concrete ``animsmith`` command (no placeholder, no
  ``[option]``) fails the test: it belongs in a ``sh`` or ``sh template`` block.
* any other shell fence (``bash``, ``shell``, ``console``, ``zsh``) fails the test,
  so no block escapes the two kinds above.

Two commands are recognised and skipped: the README's first two set-up lines
(``pip install -e . && animsmith ... lint ...`` and ``pip install -e '.[test]' &&
python -m pytest``). The tests run in an environment where the package is already
installed, installing it again would touch the network and the shared venv, and the
second line would run this suite inside itself. The lint half of the first line is
the first command of the README's Lint block, which does run (``# exits 1``).
``test_readme_setup_commands_unchanged`` keeps those two lines exactly as they are.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import List, Optional

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the README's set-up lines, recognised verbatim and not run (see the module docstring)
SETUP_COMMANDS = (
    "pip install -e . && animsmith --config examples/run-ring.animsmith.toml lint examples/assets/run-ring.glb",
    "pip install -e '.[test]' && python -m pytest",
)

#: longest time one documented command may take (the whole test stays within tens of seconds)
COMMAND_TIMEOUT_S = 120

SHELL_FENCES = {"bash", "shell", "console", "zsh", "shell-session", "sh-session", "terminal"}
FENCE = re.compile(r"^ {0,3}(```+|~~~+)\s*([^\s`]*)\s*(.*?)\s*$")
EXITS = re.compile(r"#\s*exits\s+(\d+)\s*$")


def pages() -> List[str]:
    return ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    info: str
    lines: List[str]  # the body


@dataclass
class Command:
    page: str
    line: int  # 1-based line where the command starts
    text: str  # continuations joined
    exit_code: int


def blocks(page: str) -> List[Block]:
    with open(os.path.join(ROOT, page), encoding="utf-8") as fh:
        text = fh.read().split("\n")
    out: List[Block] = []
    i = 0
    while i < len(text):
        m = FENCE.match(text[i])
        if not m:
            i += 1
            continue
        fence = m.group(1)
        j = i + 1
        while j < len(text) and not re.match(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", text[j]):
            j += 1
        assert j < len(text), f"{page}:{i + 1}: a code block is never closed"
        out.append(Block(page, i + 1, m.group(2).lower(), m.group(3).lower(), text[i + 1:j]))
        i = j + 1
    return out


def commands(block: Block) -> List[Command]:
    """The block's commands: continuation lines joined, blank and comment-only lines left out."""
    out: List[Command] = []
    pending: Optional[List[str]] = None
    start = 0
    for k, raw in enumerate(block.lines):
        lineno = block.line + 1 + k
        if pending is None:
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            pending, start = [], lineno
        if raw.rstrip().endswith("\\"):
            pending.append(raw.rstrip()[:-1])
            continue
        pending.append(raw)
        text = "\n".join(pending) if len(pending) == 1 else " ".join(p.strip() for p in pending)
        m = EXITS.search(pending[-1])
        out.append(Command(block.page, start, text.strip(), int(m.group(1)) if m else 0))
        pending = None
    assert pending is None, f"{block.page}:{start}: the block ends inside a continued command"
    return out


def runnable(page: str) -> List[Command]:
    out: List[Command] = []
    for b in blocks(page):
        if b.lang == "sh" and b.info != "template":
            out += [c for c in commands(b) if c.text not in SETUP_COMMANDS]
    return out


def _copy_of_repository(dest: str) -> str:
    ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "out", ".pytest_cache", "node_modules")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def _environment() -> dict:
    env = dict(os.environ)
    bindir = os.path.dirname(sys.executable)  # `animsmith` and `python` of this environment
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    for key in [k for k in env if k.startswith("ANIMSMITH_") or k.startswith("_ANIMSMITH")]:
        del env[key]
    return env


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.rstrip().split("\n")[-lines:])


# ---------------------------------------------------------------------------
# The pages' blocks follow the convention
# ---------------------------------------------------------------------------


def test_readme_setup_commands_unchanged():
    first = next(b for b in blocks("README.md") if b.lang == "sh")
    assert [c.text for c in commands(first)] == list(SETUP_COMMANDS), (
        "README.md's first block must hold exactly the two set-up commands "
        "(the docs test skips them by recognising them verbatim)"
    )


@pytest.mark.parametrize("page", pages())
def test_no_other_shell_fences(page):
    bad = [f"{page}:{b.line}: ```{b.lang} block" for b in blocks(page) if b.lang in SHELL_FENCES]
    assert not bad, "fence shell blocks as ```sh (run by this test) or ```sh template (skipped): " + "; ".join(bad)
    odd = [f"{page}:{b.line}: ```sh {b.info}" for b in blocks(page) if b.lang == "sh" and b.info not in ("", "template")]
    assert not odd, "a sh block is either ```sh or ```sh template: " + "; ".join(odd)


_PLACEHOLDER = re.compile(r"[\[|<]|\.\.\.|\b[A-Z][A-Z0-9_/.]*[A-Z]\b")
_COMMAND = re.compile(r"^\s*animsmith\s+[-a-z]")


@pytest.mark.parametrize("page", pages())
def test_no_runnable_command_in_an_output_block(page):
    """A concrete `animsmith ...` line in a ``` / ```text block is a command nobody runs."""
    bad = []
    for b in blocks(page):
        if b.lang not in ("", "text"):
            continue
        for k, line in enumerate(b.lines):
            if _COMMAND.match(line) and not _PLACEHOLDER.search(line.split("#")[0]):
                bad.append(f"{page}:{b.line + 1 + k}: {line.strip()}")
    assert not bad, (
        "commands in an output block: fence them ```sh (run by the docs test) or ```sh template "
        "(placeholders), or write the synopsis with FILE / [options]:\n  " + "\n  ".join(bad)
    )


def test_parser_reads_continuations_and_exit_comments():
    b = Block("x.md", 10, "sh", "", [
        "# a comment line",
        "animsmith lint a.glb   # exits 1",
        "",
        "animsmith transform a.glb \\",
        "    -o b.glb --gait-anchor     # a note",
        "    # a comment under it",
        "animsmith checks  # every check; exits 3 is prose, not the marker",
        "animsmith lint b.glb  # fails # exits 2",
    ])
    got = [(c.line, c.text, c.exit_code) for c in commands(b)]
    assert got == [
        (12, "animsmith lint a.glb   # exits 1", 1),
        (14, "animsmith transform a.glb -o b.glb --gait-anchor     # a note", 0),
        (17, "animsmith checks  # every check; exits 3 is prose, not the marker", 0),
        (18, "animsmith lint b.glb  # fails # exits 2", 2),
    ]


# ---------------------------------------------------------------------------
# ... and run
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", [p for p in pages() if runnable(p)])
def test_shell_blocks_run_as_written(page, tmp_path):
    repo = _copy_of_repository(str(tmp_path / "repo"))
    env = _environment()
    failures = []
    for cmd in runnable(page):
        try:
            proc = subprocess.run(
                ["bash", "-c", cmd.text], cwd=repo, env=env, capture_output=True, text=True,
                timeout=COMMAND_TIMEOUT_S, stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{cmd.page}:{cmd.line}: `{cmd.text}` ran over {COMMAND_TIMEOUT_S} s")
            continue
        if proc.returncode != cmd.exit_code:
            failures.append(
                f"{cmd.page}:{cmd.line}: `{cmd.text}` exited {proc.returncode}, the page says {cmd.exit_code}"
                + (" (end the line with `# exits N` when N is expected)" if cmd.exit_code == 0 else "")
                + f"\n--- stdout (tail)\n{_tail(proc.stdout)}\n--- stderr (tail)\n{_tail(proc.stderr)}"
            )
    assert not failures, "\n\n".join(failures)


# ---------------------------------------------------------------------------
# Product text speaks to users
# ---------------------------------------------------------------------------

#: words that refer to how the tool was developed, not to what it does
PROCESS_WORDS = re.compile(
    r"\bissues? ?#?[0-9]+|\baudit(s|ed|ing)?\b|\breview(s|ed|er|ers)?\b|\bsessions?\b|\bround [0-9]+\b",
    re.IGNORECASE,
)
PRODUCT_TEXT = ("*.py", "*.js", "*.css", "*.html", "*.toml", "*.md")


def _product_files() -> List[str]:
    files = ["README.md", "CHANGELOG.md"] + [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))]
    for folder in ("animsmith", "configs", "examples", "benchmarks"):
        for dirpath, dirs, names in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            files += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in names if any(glob.fnmatch.fnmatch(n, pat) for pat in PRODUCT_TEXT)]
    return sorted(f for f in files if os.path.exists(os.path.join(ROOT, f)))


def test_product_text_has_no_process_references():
    """README, CHANGELOG, docs, code, comments, docstrings and messages state the rule and its
    reason; a tracker number, an audit, a review or a work session means nothing to a user."""
    bad = []
    for rel in _product_files():
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = PROCESS_WORDS.search(line)
                if m:
                    bad.append(f"{rel}:{n}: {m.group(0)!r}: {line.strip()[:120]}")
    assert not bad, "state the rule and its reason instead of the process:\n  " + "\n  ".join(bad)


def test_version_is_one_number_everywhere():
    """pyproject.toml, the package and `animsmith --version` name one version, and the
    CHANGELOG's newest release is that version."""
    import animsmith

    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as fh:
        declared = re.search(r'^version = "([^"]+)"', fh.read(), re.MULTILINE).group(1)
    proc = subprocess.run([sys.executable, "-m", "animsmith", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout == f"animsmith, version {declared}\n"
    assert animsmith.__version__ == declared
    with open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8") as fh:
        releases = re.findall(r"^## \[([^\]]+)\] - (\d{4}-\d{2}-\d{2})$", fh.read(), re.MULTILINE)
    assert releases and releases[0][0] == declared, f"CHANGELOG.md's newest release is {releases[:1]}, the package {declared}"
    assert [v for v, _ in releases] == sorted((v for v, _ in releases), key=lambda v: [int(x) for x in v.split(".")], reverse=True)
