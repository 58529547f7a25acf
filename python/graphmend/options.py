"""The rewrite switches, from the core's registry (``_core.REWRITES``: "where", "defer",
"trap", "scalar", "masked_reduce"). Every entry point that takes them (``mend_source``,
``mend``, ``install``, ``prepare``) takes one keyword per rewrite, all on by default, and passes them on as the
dict ``switches`` returns; a rewrite added to the core's registry needs no change here.
"""

from __future__ import annotations

from typing import Dict, Mapping, Tuple

from . import _core

__all__ = ["REWRITES", "switches", "all_on", "enabled"]

REWRITES: Tuple[str, ...] = tuple(_core.REWRITES)


def switches(given: Mapping[str, object], caller: str) -> Dict[str, bool]:
    """``{rewrite: on}`` for every rewrite: on unless ``given`` switches it off. A keyword
    that names no rewrite is a TypeError, as for any function."""
    for name in given:
        if name not in REWRITES:
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {name!r} "
                f"(rewrites: {', '.join(REWRITES)})"
            )
    return {name: bool(given.get(name, True)) for name in REWRITES}


def all_on() -> Dict[str, bool]:
    """Every rewrite switched on (``graphmend.compile``, ``explain``)."""
    return dict.fromkeys(REWRITES, True)


def enabled(rewrite_switches: Mapping[str, bool]) -> Tuple[str, ...]:
    """The names of the rewrites switched on, as the core takes them."""
    return tuple(name for name in REWRITES if rewrite_switches.get(name, True))
