"""Registries read by mended code.

A module-level dict or list of user objects, classes or functions (`SOLVERS[method](...)`,
`DATASETS[task].verify_labels(...)`) is read by a mended function through a ``MendedItems``
bound in its closure. Each read looks the live container up, as the original does, and
gives the mended counterpart of the item it finds: a later registration, or an item
replaced, is seen exactly as the original sees it, and an item the mender never saw is
given as it is. Dynamo traces the lookup (a dict or list read and an identity test) into
guards.
"""

from __future__ import annotations

from typing import Any, Dict, Tuple


class MendedItems:
    """``container[key]`` with each item the mender mended replaced by its counterpart."""

    __slots__ = ("live", "mended")

    def __init__(self, live: Any, mended: Dict[int, Tuple[Any, Any]]) -> None:
        self.live = live
        # id of an original item -> (the item, kept alive so its id is not reused; its
        # mended counterpart)
        self.mended = mended

    def __getitem__(self, key: Any) -> Any:
        value = self.live[key]
        pair = self.mended.get(id(value))
        if pair is not None and pair[0] is value:
            return pair[1]
        return value
