"""The bounded memo behind the caches that outlive one file (loader and pose).

Each cache is a plain dict owned by its module (tests replace or inspect it);
:func:`memo` is the one place that decides how an entry is made, kept and
bounded.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, Optional, TypeVar

T = TypeVar("T")


def memo(cache: Dict[Any, Any], limit: int, key: Optional[Hashable], build: Callable[[], T]) -> T:
    """``cache[key]``, made by ``build()`` on a miss.

    A result of None is returned but not kept; a None ``key`` (nothing safe to
    key on) builds without caching. The cache is emptied before it would hold
    more than ``limit`` entries, so its memory stays bounded.
    """
    if key is None:
        return build()
    value = cache.get(key)
    if value is None:
        value = build()
        if value is not None:
            if len(cache) >= limit:
                cache.clear()
            cache[key] = value
    return value
