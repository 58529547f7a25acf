"""The rewrite test cases under tests/cases/ (schema: tests/cases/README.md): finding them,
loading them as modules, and building the object each one tests.

A case is named by its folder and stem, ``"where/if_else"``. Its module is loaded once per
session from its file as ``cases.<folder>.<stem>`` and registered in ``sys.modules``, so
that graphmend finds its source and its classes as for any imported module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from pathlib import Path
from typing import Dict, List

CASES_DIR = Path(__file__).resolve().parents[1] / "cases"
MODULE_PREFIX = "cases."
# The peer corpus (tests/peer/README.md): the same layout, one folder per project.
PEER_DIR = Path(__file__).resolve().parents[1] / "peer"
PEER_PREFIX = "peer."


def case_ids(root: Path = CASES_DIR) -> List[str]:
    """Every case (or peer program, with ``root=PEER_DIR``), ``"folder/stem"``, sorted."""
    return sorted(f"{p.parent.name}/{p.stem}" for p in root.glob("*/*.py"))


def path_of(case: str, root: Path = CASES_DIR) -> Path:
    return root / f"{case}.py"


def golden_of(case: str) -> Path:
    return CASES_DIR / f"{case}.py.mended"


def module_name(case: str, prefix: str = MODULE_PREFIX) -> str:
    return prefix + case.replace("/", ".")


_LOADED: Dict[str, types.ModuleType] = {}


def load(case: str, root: Path = CASES_DIR, prefix: str = MODULE_PREFIX) -> types.ModuleType:
    """The case's module, imported from its file (once: a case keeps its module state, and
    ``reset()`` clears what must not carry over between runs)."""
    name = module_name(case, prefix)
    module = _LOADED.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path_of(case, root))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _LOADED[name] = module
    return module


class ProgramFinder(importlib.abc.MetaPathFinder):
    """Imports ``cases.<folder>.<stem>`` and ``peer.<project>.<name>`` by name, as ``load``
    names them: pytest-xdist's controller re-imports the module of a warning category a
    program defines to report a warning a worker recorded."""

    def find_spec(self, fullname, path, target=None):
        for prefix, root in ((MODULE_PREFIX, CASES_DIR), (PEER_PREFIX, PEER_DIR)):
            parts = fullname.split(".")
            if parts[0] != prefix.rstrip("."):
                continue
            if len(parts) < 3:  # the prefix or a folder: a namespace of no code
                spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
                spec.submodule_search_locations = []
                return spec
            case = "/".join(parts[1:])
            if path_of(case, root).is_file():
                return importlib.util.spec_from_file_location(fullname, path_of(case, root))
        return None


def runs(module: types.ModuleType) -> bool:
    """Whether the case has a program to run (ENTRY); golden-only cases do not."""
    return hasattr(module, "ENTRY")


def build(module: types.ModuleType):
    """The object under test: make(), a fresh instance of an nn.Module ENTRY (seeded), or
    the ENTRY function itself."""
    import torch

    if hasattr(module, "make"):
        torch.manual_seed(0)
        return module.make()
    entry = module.ENTRY
    if isinstance(entry, type):
        torch.manual_seed(0)
        return entry()
    return entry
