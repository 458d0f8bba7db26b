"""Reading the contract file: where it is, its bytes, its TOML.

``read_contract(path, schema) -> Contract`` finds the file (:func:`find_config`: the
path given, else ``./animsmith.toml`` when present, else the built-in defaults), reads
it within :data:`CONFIG_MAX_BYTES` and validates it (:class:`~animsmith.config.parser.ContractParser`)
against the checks' keys. A bad file raises :class:`~animsmith.errors.ConfigError`: one
line ``bad config <path>: <key.path>: <problem>`` per problem, every problem at once.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Optional, Union

from animsmith.config.model import Contract, default_contract
from animsmith.config.parser import ContractParser
from animsmith.config.schema import ContractSchema
from animsmith.config.values import Problem
from animsmith.errors import ConfigError, unreadable_reason

DEFAULT_CONFIG_NAME = "animsmith.toml"

#: the checks' keys, or a function returning them (called only when the file needs them)
SchemaSource = Union[ContractSchema, Callable[[], ContractSchema]]



def _toml():
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


def find_config(path: Optional[str]) -> Optional[str]:
    """The config path to load: ``path`` (``""`` too: an explicit, bad path), else
    ./animsmith.toml when anything of that name is there (a dangling link or a folder is
    then an error, not silently the defaults), else None. A ./Animsmith.toml (another
    letter case) is an error: it would be the contract on Windows and macOS only."""
    if path is not None:
        return str(path)
    # only the exact name is the contract: on Windows and macOS (case-insensitive by
    # default) lexists also finds Animsmith.toml, which Linux CI would not; a name that
    # differs in case is an error on every OS instead of a contract on some
    try:
        names = os.listdir(".")
    except OSError:  # an unreadable working directory: by name alone
        return DEFAULT_CONFIG_NAME if os.path.lexists(DEFAULT_CONFIG_NAME) else None
    if DEFAULT_CONFIG_NAME in names:
        return DEFAULT_CONFIG_NAME
    variants = sorted(n for n in names if n.casefold() == DEFAULT_CONFIG_NAME)
    if variants:
        raise ConfigError(
            f"bad config {variants[0]}: the contract is found only as '{DEFAULT_CONFIG_NAME}'; this name differs "
            "in case (Windows and macOS would read it, Linux would not): rename it, or pass --config"
        )
    return None


def read_contract(path: Optional[str], schema: SchemaSource) -> Contract:
    """Read and validate the contract at ``path`` (see :func:`find_config`; the built-in
    defaults when there is none) against ``schema``, the checks' keys (a
    :class:`~animsmith.config.schema.ContractSchema` or a function returning one)."""
    chosen = find_config(path)
    if chosen is None:
        return default_contract()
    if not chosen:
        raise ConfigError("bad config '': empty path")
    import stat

    try:
        st = os.stat(chosen)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block, /dev/zero never end
            raise ConfigError(f"bad config {chosen}: not a regular file")
        if st.st_size > CONFIG_MAX_BYTES:
            raise ConfigError(f"bad config {chosen}: {st.st_size} bytes; the limit is {CONFIG_MAX_BYTES}")
        with open(chosen, "rb") as fh:
            raw = fh.read(st.st_size + 1)
    except OSError as exc:
        raise ConfigError(f"bad config {chosen}: {unreadable_reason(exc)}") from None
    if len(raw) != st.st_size:  # rewritten under us (an editor, a checkout): neither version is certain
        raise ConfigError(f"bad config {chosen}: file changed while being read ({st.st_size} bytes, then {len(raw)})")
    return contract_from_toml(raw, schema, chosen)


#: largest TOML contract read (a real one is a few KB)
CONFIG_MAX_BYTES = 16 * 1024 * 1024


def contract_from_toml(raw: bytes, schema: SchemaSource, path: str = "<config>", base_dir: Optional[str] = None) -> Contract:
    """Validate TOML bytes into a :class:`Contract` against ``schema`` (``ConfigError`` on any problem).

    A leading UTF-8 byte-order mark (Windows PowerShell 5.1's ``-Encoding utf8``, older
    Notepad) is not part of the contract: it is dropped before parsing and hashing."""
    from animsmith.io.text import strip_utf8_bom

    raw = strip_utf8_bom(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"bad config {path}: not UTF-8 text") from None
    try:
        doc = _toml().loads(text)
    except Exception as exc:  # TOMLDecodeError
        raise ConfigError(f"bad config {path}: invalid TOML: {_toml_problem(exc, text)}") from None
    if base_dir is None:
        base_dir = os.path.dirname(os.path.abspath(path)) if path != "<config>" else os.getcwd()
    parser = ContractParser(base_dir, schema)
    try:
        contract = parser.contract(doc, path)
    except Problem as exc:  # pragma: no cover - every entry is guarded; kept as a last line
        parser.problems.append(exc)
    if parser.problems:
        lines = [f"bad config {path}: {p.key}: {p.problem}" for p in parser.problems]
        raise ConfigError(lines[-1], more=lines[:-1])
    import hashlib

    contract.digest = hashlib.sha256(raw.replace(b"\r\n", b"\n")).hexdigest()[:16]  # CRLF checkouts agree
    return contract


def _toml_problem(exc: Exception, text: str) -> str:
    """The parser's complaint, in one line. A decimal integer longer than Python converts
    (4,300 digits) is named by its line, not by the interpreter's advice to raise the limit."""
    import sys

    message = " ".join(str(exc).split())
    if "integer string conversion" in message:
        limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        where = ""
        for m in re.finditer(r"(?m)^[^#\n]*=\s*[+-]?([0-9][0-9_]*)", text):  # a value, not a comment
            if len(m.group(1).replace("_", "")) > limit:
                where = f" at line {text.count(chr(10), 0, m.start(1)) + 1}"
                break
        return f"an integer of more than {limit} digits{where}"
    return message
