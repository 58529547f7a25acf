"""What GraphMend never mends: torch and its companions, the standard library, GraphMend
itself. Decided by a module's file where there is one (the import hook, ``graphmend.mend``)."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from typing import List, Optional

# Packages no rewrite of GraphMend's may touch.
NEVER_MENDED = ("torch", "graphmend", "functorch", "triton", "numpy", "typing_extensions")


def is_library_module(module_name: Optional[str]) -> bool:
    """Whether the module named ``module_name`` is a library GraphMend never mends."""
    if not module_name:
        return False
    top = module_name.split(".", 1)[0]
    if top in NEVER_MENDED or top == "builtins":
        return True
    # A user's module may share a name with a stdlib one (test.py, code.py): ask its file.
    module = sys.modules.get(module_name)
    filename = getattr(module, "__file__", None)
    if filename:
        return is_library_file(filename)
    return top in sys.stdlib_module_names


def _library_roots() -> List[str]:
    """Folders of the never-mended packages (a single-file module such as
    ``typing_extensions`` is its file minus ``.py``: its folder is all of site-packages),
    as far as they are imported."""
    loaded = tuple(getattr(sys.modules.get(name), "__file__", None) for name in NEVER_MENDED)
    return _roots_of(loaded)


@functools.lru_cache(maxsize=8)
def _roots_of(loaded: tuple) -> List[str]:
    roots = [os.path.dirname(os.path.abspath(__file__))]
    for filename in loaded:
        if not filename:
            continue
        filename = os.path.abspath(filename)
        if os.path.basename(filename).startswith("__init__."):
            roots.append(os.path.dirname(filename))
        else:
            roots.append(os.path.splitext(filename)[0])
    return roots


@functools.lru_cache(maxsize=None)
def _stdlib_root() -> Optional[str]:
    stdlib = sysconfig.get_paths().get("stdlib")  # slow: expands config variables
    return os.path.abspath(stdlib) if stdlib else None


def is_library_file(filename: str) -> bool:
    """Whether code compiled from ``filename`` belongs to a library GraphMend never mends
    (torch, the standard library, GraphMend itself...). Decided by the file, not by
    ``__module__``, which ``functools.wraps`` copies from the wrapped function."""
    if not filename or filename.startswith("<"):
        return False
    roots = tuple(_library_roots())
    if not os.path.isabs(filename):  # depends on the working folder: not remembered
        return _is_library_file.__wrapped__(filename, roots)
    return _is_library_file(filename, roots)


@functools.lru_cache(maxsize=4096)
def _is_library_file(filename: str, roots: tuple) -> bool:
    path = os.path.abspath(filename)
    stem = os.path.splitext(path)[0]
    parts = path.split(os.sep)
    roots = list(roots)
    if "site-packages" in parts:
        if any(part in NEVER_MENDED for part in parts):
            return True
    elif _stdlib_root():
        roots.append(_stdlib_root())  # not for site-packages, which may lie inside the stdlib
    return any(path.startswith(root + os.sep) or stem == root for root in roots)


def in_folders(path: str, folders: List[str]) -> bool:
    """Whether the file ``path`` lies below one of ``folders`` (absolute paths)."""
    path = os.path.abspath(path)
    return any(path.startswith(folder + os.sep) for folder in folders)
