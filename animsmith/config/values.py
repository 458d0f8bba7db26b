"""Value validation of the contract: one value, one key path, one problem.

:func:`validate_value` type- and range-checks a value and raises :class:`Problem`
(``key.path``, ``problem``); :func:`join_key` writes a key path as TOML writes it;
:func:`unknown` names the closest valid key (:mod:`animsmith.hints`); :func:`parse_member`
reads a group member (``clip``, ``file.glb``, ``file.glb#clip``).
"""

from __future__ import annotations

import math
import os
import re
from typing import Any, List

from animsmith.config.model import MemberRef
from animsmith.hints import did_you_mean

MEMBER_FILE_SUFFIXES = (".glb", ".gltf")


class Problem(Exception):
    """One mistake of the file: the dotted key path and what is wrong there."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def key_part(name: str) -> str:
    """A TOML key as written in a dotted path (quoted unless bare-safe)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name.replace('"', '\\"') + '"'


def join_key(prefix: str, name: str) -> str:
    return f"{prefix}.{key_part(name)}" if prefix else key_part(name)


def unknown(word: str, choices, what: str = "key") -> str:
    return f"unknown {what}" + did_you_mean(word, choices)


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def as_table(value: Any, key: str) -> dict:
    if not isinstance(value, dict):
        raise Problem(key, f"must be a table, got {type_name(value)}")
    return value


def _digits(n: int) -> str:
    """Decimal digits of ``n`` (exact up to ~3,900 digits; Python will not print an int past
    4,300 digits, so beyond that from its bit length, checked against a power of ten)."""
    n = abs(int(n))
    if n.bit_length() <= 13_000:
        return str(len(str(n)))
    digits = int(n.bit_length() * math.log10(2)) + 1
    if n.bit_length() > 200_000:  # a power of ten that large costs seconds: an estimate
        return f"about {digits}"
    if 10 ** (digits - 1) > n:  # the bit length overestimates by at most one digit
        digits -= 1
    return str(digits)


def bone_list(value: Any, key: str) -> List[str]:
    """A list of bone names: non-empty strings, each kept once (in order)."""
    names = validate_value(value, "list", key)
    if any(not n for n in names):
        raise Problem(key, "must list non-empty bone names")
    return list(dict.fromkeys(names))


#: largest integer a contract value may hold (2^53: exact as a float, which checks compare it with)
MAX_CONFIG_INTEGER = 2**53


def validate_value(value: Any, kind: str, key: str, *, minimum=None, maximum=None, choices=None) -> Any:
    """Type/range-check one value; returns it normalised (numbers as float)."""
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Problem(key, f"must be a number, got {type_name(value)}")
        try:
            value = float(value)
        except OverflowError:  # TOML integers have no size limit
            raise Problem(key, f"must be a finite number, got an integer of {_digits(value)} digits") from None
        if not math.isfinite(value):
            raise Problem(key, "must be a finite number")
    elif kind == "integer":
        given = value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and math.isfinite(value) and value.is_integer():
                value = int(value)
            else:
                raise Problem(key, f"must be an integer, got {type_name(value)}")
        if abs(value) > MAX_CONFIG_INTEGER:  # compared with float measurements: keep it exact
            shown = f"{given!r}" if isinstance(given, float) else f"an integer of {_digits(value)} digits"
            raise Problem(key, f"must be at most {MAX_CONFIG_INTEGER} in magnitude, got {shown}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise Problem(key, f"must be true or false, got {type_name(value)}")
    elif kind == "string":
        if not isinstance(value, str):
            raise Problem(key, f"must be a string, got {type_name(value)}")
    elif kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise Problem(key, "must be a list of strings")
    if kind == "positive":  # a rate: 0 is no frame rate at all
        value = validate_value(value, "number", key)
        if value <= 0:
            raise Problem(key, f"must be > 0, got {value:g}")
    if kind in ("number", "integer"):
        if minimum is not None and value < minimum:
            raise Problem(key, f"must be ≥ {minimum:g}, got {value:g}")
        if maximum is not None and value > maximum:
            raise Problem(key, f"must be ≤ {maximum:g}, got {value:g}")
    if choices is not None and value not in choices:
        hint = did_you_mean(str(value), choices)
        raise Problem(key, f"must be one of {', '.join(repr(c) for c in choices)}, got {value!r}{hint}")
    return value


def names_a_file(label: str) -> bool:
    """Whether a label names a .glb/.gltf file (``file.glb``, ``packs/file.gltf#clip``): the part
    before the first ``#`` ends with one of :data:`MEMBER_FILE_SUFFIXES`, any letter case."""
    return label.partition("#")[0].lower().endswith(MEMBER_FILE_SUFFIXES)


def parse_member(label: str, base_dir: str, key: str) -> MemberRef:
    """``clip`` | ``file.glb`` | ``file.glb#clip`` -> MemberRef (file made absolute)."""
    if not label:
        raise Problem(key, "member names must not be empty")
    file_part, sep, clip = label.partition("#")
    is_file = names_a_file(label)
    if sep and not is_file and not any(c in file_part for c in "./\\"):
        return MemberRef(label=label, clip=label)  # a bare clip name with '#' (the loader's "walk#1" for a duplicate)
    if sep or is_file:
        if not is_file:
            raise Problem(key, f"member '{label}': the part before '#' must be a .glb or .gltf file")
        if sep and not clip:
            raise Problem(key, f"member '{label}': empty clip name after '#'")
        path = os.path.normpath(os.path.join(base_dir, file_part))
        return MemberRef(label=label, file=path, clip=clip if sep else None)
    return MemberRef(label=label, clip=label)
