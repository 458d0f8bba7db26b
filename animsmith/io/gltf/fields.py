"""Small validators of glTF JSON values shared by the loader's modules: each returns
the checked value or raises :class:`~animsmith.errors.LoadError` with a one-line
reason (the loader adds the file name)."""

from __future__ import annotations

from typing import Any, Optional

from animsmith.errors import LoadError

INT_TYPE = {int}


def show_value(v: Any) -> str:
    """Short, bounded repr of a JSON value for messages (depth- and size-limited)."""
    import reprlib

    text = reprlib.repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def as_index(v: Any, n: int, what: str) -> int:
    """``v`` as an index in [0, n): a JSON integer (not bool/float)."""
    if type(v) is not int:
        if v is None:
            raise LoadError(f"{what} is missing")
        raise LoadError(f"{what} must be an integer index, got {show_value(v)}")
    if v < 0 or v >= n:
        raise LoadError(f"{what} {v} out of range ({n} available)")
    return v


def as_uint(v: Any, what: str, default: Optional[int] = None, minimum: int = 0) -> int:
    if v is None and default is not None:
        return default
    if type(v) is not int:
        if v is None:
            raise LoadError(f"{what} is missing")
        raise LoadError(f"{what} must be an integer, got {show_value(v)}")
    if v < minimum:
        raise LoadError(f"{what} must be >= {minimum}, got {v}")
    return v


def accessor_label(what: Any) -> str:
    """Error label: an int means accessor ``what`` (formatted only on error)."""
    return f"accessor {what}" if type(what) is int else str(what)


def as_object(v: Any, what: str) -> dict:
    if type(v) is not dict:
        raise LoadError(f"{what} must be a JSON object, got {show_value(v)}")
    return v


def as_array(d: dict, key: str, what: str) -> list:
    v = d.get(key)
    if v is None:
        return []
    if type(v) is not list:
        raise LoadError(f"{what} must be a JSON array, got {show_value(v)}")
    return v


def as_name(v: Any, fallback: str, what: str) -> str:
    if v is None or v == "":
        return fallback
    if type(v) is not str:
        raise LoadError(f"{what} name must be a string, got {show_value(v)}")
    return v


def as_numbers(v: Any, n: int, what: str) -> list:
    if type(v) is not list or len(v) != n or not all(type(x) is float or type(x) is int for x in v):
        raise LoadError(f"{what} must be an array of {n} numbers, got {show_value(v)}")
    return v


def bad_index(v: Any, n: int, what: str) -> LoadError:
    try:
        as_index(v, n, what)
    except LoadError as exc:
        return exc
    return LoadError(f"{what} is invalid")  # pragma: no cover - as_index raised above


def int_list_in_range(values: list, n: int) -> bool:
    """Every entry a JSON integer in [0, n) (an empty list passes)."""
    return not values or (set(map(type, values)) == INT_TYPE and min(values) >= 0 and max(values) < n)


def ints_at_least(values: list, minimum: int) -> bool:
    """Every entry a JSON integer >= ``minimum`` (an empty list passes)."""
    return not values or (set(map(type, values)) == INT_TYPE and min(values) >= minimum)
