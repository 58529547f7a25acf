"""The files the import hook mended: the hook writes here as it loads them, the object mender
and ``explain`` read (``graphmend.mend`` leaves their functions alone; ``explain`` takes their
diagnostics from the hook instead of mending them again)."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

__all__ = ["record", "mended_at_import", "import_diagnostics"]

# absolute file name -> the hook that mended it (anything with ``diagnostics_of(filename)``).
_mended_files: Dict[str, Any] = {}


def record(filename: str, hook: Any) -> None:
    """Marks ``filename`` as mended at import by ``hook`` (or found with nothing to rewrite:
    either way the hook's verdict stands)."""
    _mended_files[os.path.abspath(filename)] = hook


def mended_at_import(filename: str) -> bool:
    """Whether an import hook mended ``filename`` at import (or found nothing to rewrite in
    it): ``graphmend.mend`` leaves its functions alone."""
    return os.path.abspath(filename) in _mended_files


def import_diagnostics(filename: str) -> Optional[list]:
    """The diagnostics of ``filename`` when an import hook mended it (else None)."""
    hook = _mended_files.get(os.path.abspath(filename))
    return None if hook is None else hook.diagnostics_of(filename)
