"""``[tool.graphmend]`` in pyproject.toml (or the top level of a graphmend.toml): the
command line's settings, found by walking up from the working directory.

Precedence: command-line options, then the file, then the defaults here. An unknown key is
an error with a "did you mean": in a tool that rewrites code, a misspelt ``ignore`` must not
be silently ignored. Paths in the file are relative to the file's folder.
"""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path, PurePosixPath
from typing import Any, Dict, Optional, Tuple, Union

from .codes import CODES, codes_matching
from ..files import UserError
from ..options import REWRITES

__all__ = ["Settings", "load", "find_config", "FAIL_POLICIES"]

FAIL_POLICIES = ("fixable", "any", "never")
OUTPUT_FORMATS = ("text", "json", "sarif", "github")
DEFAULT_SELECT = ("GM0", "GM1", "GM9")


@dataclasses.dataclass
class Settings:
    """Everything check, fix, run, warm and explain take from configuration."""

    path: Optional[Path] = None  # the file read, None for the defaults
    root: Optional[Path] = None  # its folder: what globs are relative to
    select: Tuple[str, ...] = DEFAULT_SELECT
    ignore: Tuple[str, ...] = ()
    fail_on: str = "fixable"
    output_format: str = "text"
    exclude: Tuple[str, ...] = ()
    trace_all: Union[bool, Tuple[str, ...]] = False
    entry_points: Tuple[str, ...] = ()  # "path/to/file.py:Qualified.name"
    target_version: Optional[Tuple[int, int]] = None
    rewrites: Dict[str, bool] = dataclasses.field(
        default_factory=lambda: {r: True for r in REWRITES}
    )
    per_file_ignores: Dict[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)
    hook_packages: Tuple[str, ...] = ()
    hook_cache_dir: Optional[str] = None
    hook_ahead: bool = True
    explain_entry: Optional[str] = None
    explain_max_breaks: int = 0
    sources: Dict[str, str] = dataclasses.field(default_factory=dict)  # key -> where it came from

    def set(self, key: str, value: Any, source: str) -> None:
        setattr(self, key, value)
        self.sources[key] = source

    def selected_codes(self, relative_path: str = "") -> Tuple[str, ...]:
        """The codes reported for a file (select, minus ignore and its per-file ignores)."""
        from ..files import glob_matches

        chosen = {code for prefix in self.select for code in codes_matching(prefix)}
        dropped = {code for prefix in self.ignore for code in codes_matching(prefix)}
        if not self.per_file_ignores:
            return tuple(code for code in CODES if code in chosen and code not in dropped)
        for pattern, prefixes in self.per_file_ignores.items():
            if relative_path and glob_matches(relative_path, [pattern]):
                dropped |= {code for prefix in prefixes for code in codes_matching(prefix)}
        return tuple(code for code in CODES if code in chosen and code not in dropped)

    def traces_all(self, relative_path: str) -> bool:
        from ..files import glob_matches

        if isinstance(self.trace_all, bool):
            return self.trace_all
        return bool(relative_path) and glob_matches(relative_path, self.trace_all)

    def entry_points_in(self, relative_path: str) -> Tuple[str, ...]:
        """The qualified names ``entry-points`` names in this file (its path relative to the
        configuration's folder, ``/``-separated)."""
        found = []
        for entry in self.entry_points:
            where, _, qualname = entry.rpartition(":")
            if relative_path and where == relative_path:
                found.append(qualname)
        return tuple(found)

    def show(self) -> str:
        """The resolved settings and where each came from (``--show-settings``)."""
        lines = [f"configuration file: {self.path or '(none)'}"]
        for field in dataclasses.fields(self):
            if field.name in ("path", "root", "sources"):
                continue
            value = getattr(self, field.name)
            lines.append(
                f"{field.name.replace('_', '-')} = {value!r}  # {self.sources.get(field.name, 'default')}"
            )
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Discovery.


def _has_table(path: Path) -> bool:
    if path.name == "graphmend.toml":
        return True
    try:
        return "graphmend" in _read_toml(path).get("tool", {})
    except UserError:
        return True  # report the broken file rather than skip it


def find_config(start: Optional[Path] = None) -> Optional[Path]:
    """The nearest graphmend.toml, or pyproject.toml with a [tool.graphmend] table, from
    ``start`` (the working directory) up."""
    folder = (start or Path.cwd()).resolve()
    for candidate_folder in (folder, *folder.parents):
        for name in ("graphmend.toml", "pyproject.toml"):
            candidate = candidate_folder / name
            if candidate.is_file() and _has_table(candidate):
                return candidate
    return None


def _read_toml(path: Path) -> Dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise UserError(f"cannot read the configuration: {exc.strerror}", str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"invalid TOML: {exc}", str(path)) from None


def table_of(path: Path) -> Dict[str, Any]:
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        return data.get("tool", {}).get("graphmend", {})
    return data


# ---------------------------------------------------------------------------------------------
# Validation.


def _unknown(key: str, known, where: str, path: Path) -> UserError:
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(sorted(known))}"
    return UserError(f"unknown key {key!r} in {where}{hint}", str(path))


def _string_list(value: Any, key: str, path: Path) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{key} must be a list of strings", str(path))
    return tuple(value)


def check_selectors(selectors, where: str, path: str = "") -> None:
    """A UserError for a selector that names no code (``GM999``, ``prnt-call``)."""
    for selector in selectors:
        if not codes_matching(selector):
            names = [*CODES, *(info.name for info in CODES.values())]
            close = difflib.get_close_matches(selector, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UserError(f"{where}: {selector!r} names no GraphMend code{hint}", path)


def _choice(value: Any, key: str, choices, path: Path) -> str:
    if value not in choices:
        raise UserError(f"{key} must be one of {', '.join(choices)}, not {value!r}", str(path))
    return value


def _version(value: Any, path: Path) -> Tuple[int, int]:
    from .._source import SUPPORTED_VERSIONS

    try:
        major, minor = (int(part) for part in str(value).split("."))
    except ValueError:
        raise UserError(f'target-version must look like "3.11", not {value!r}', str(path)) from None
    if (major, minor) not in SUPPORTED_VERSIONS:
        raise UserError(f"target-version {value} is not supported (3.11 or 3.12)", str(path))
    return major, minor


def _apply_top(settings: Settings, table: Dict[str, Any], path: Path) -> None:
    source = str(path)
    for key, value in table.items():
        if key in ("select", "ignore", "exclude"):
            items = _string_list(value, key, path)
            if key != "exclude":
                check_selectors(items, key, source)
            settings.set(key, items, source)
        elif key == "fail-on":
            settings.set("fail_on", _choice(value, key, FAIL_POLICIES, path), source)
        elif key == "output-format":
            settings.set("output_format", _choice(value, key, OUTPUT_FORMATS, path), source)
        elif key == "entry-points":
            settings.set(
                "entry_points",
                tuple(_entry_point(item, path) for item in _string_list(value, key, path)),
                source,
            )
        elif key == "trace-all":
            settings.set(
                "trace_all",
                value if isinstance(value, bool) else _string_list(value, key, path),
                source,
            )
        elif key == "target-version":
            settings.set("target_version", _version(value, path), source)
        elif key == "rewrites":
            if not isinstance(value, dict):
                raise UserError("rewrites must be a table such as { where = true }", source)
            for name, on in value.items():
                if name not in REWRITES:
                    raise _unknown(name, REWRITES, "rewrites", path)
                if not isinstance(on, bool):
                    raise UserError(f"rewrites.{name} must be true or false", source)
            settings.set("rewrites", {**settings.rewrites, **value}, source)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise UserError("per-file-ignores must be a table of glob = [codes]", source)
            table_value = {}
            for pattern, codes in value.items():
                table_value[pattern] = _string_list(codes, f"per-file-ignores.{pattern!r}", path)
                check_selectors(table_value[pattern], f"per-file-ignores.{pattern!r}", source)
            settings.set("per_file_ignores", table_value, source)
        elif key == "hook":
            _apply_section(settings, value, path, "hook", _HOOK_KEYS)
        elif key == "explain":
            _apply_section(settings, value, path, "explain", _EXPLAIN_KEYS)
        else:
            raise _unknown(key, _TOP_KEYS, "[tool.graphmend]", path)


def _hook_value(key: str, value: Any, path: Path) -> Tuple[str, Any]:
    if key == "packages":
        return "hook_packages", _string_list(value, "hook.packages", path)
    if key == "cache-dir":
        if not isinstance(value, str):
            raise UserError("hook.cache-dir must be a string", str(path))
        return "hook_cache_dir", str((path.parent / value).resolve())
    if not isinstance(value, bool):
        raise UserError("hook.ahead must be true or false", str(path))
    return "hook_ahead", value


def _explain_value(key: str, value: Any, path: Path) -> Tuple[str, Any]:
    if key == "max-breaks":
        if not isinstance(value, int) or value < 0:
            raise UserError("explain.max-breaks must be a non-negative integer", str(path))
        return "explain_max_breaks", value
    if not isinstance(value, str):
        raise UserError("explain.entry must be a string", str(path))
    return "explain_entry", value


_HOOK_KEYS = {"packages": _hook_value, "cache-dir": _hook_value, "ahead": _hook_value}
_EXPLAIN_KEYS = {"entry": _explain_value, "max-breaks": _explain_value}
_TOP_KEYS = (
    "select",
    "ignore",
    "fail-on",
    "output-format",
    "exclude",
    "trace-all",
    "entry-points",
    "target-version",
    "rewrites",
    "per-file-ignores",
    "hook",
    "explain",
)


def _entry_point(item: str, path: Path) -> str:
    """``path/to/file.py:Qualified.name``, the path as relative paths are compared
    (``/``-separated, no leading ``./``)."""
    where, _, qualname = item.rpartition(":")
    names = qualname.split(".")
    if not where.endswith(".py") or not all(n.isidentifier() or n == "<locals>" for n in names):
        raise UserError(
            f"entry-points: {item!r} is not FILE.py:QUALIFIED.NAME "
            '(such as "src/pkg/engine.py:Engine.step")',
            str(path),
        )
    return PurePosixPath(where.replace("\\", "/")).as_posix() + ":" + qualname


def _apply_section(settings: Settings, table: Any, path: Path, name: str, keys) -> None:
    if not isinstance(table, dict):
        raise UserError(f"[tool.graphmend.{name}] must be a table", str(path))
    for key, value in table.items():
        if key not in keys:
            raise _unknown(key, keys, f"[tool.graphmend.{name}]", path)
        attribute, parsed = keys[key](key, value, path)
        settings.set(attribute, parsed, str(path))


def load(config: Optional[str] = None, *, isolated: bool = False) -> Settings:
    """The settings from ``config`` (a path), or the discovered file, or the defaults
    (``isolated``). Raises UserError."""
    settings = Settings()
    if isolated:
        return settings
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise UserError("no such configuration file", config)
    else:
        path = find_config()
        if path is None:
            return settings
    path = path.resolve()
    settings.path, settings.root = path, path.parent
    _apply_top(settings, table_of(path), path)
    return settings


def project_depends_on_graphmend(start: Optional[Path] = None) -> bool:
    """Whether the nearest pyproject.toml lists graphmend in [project].dependencies."""
    folder = (start or Path.cwd()).resolve()
    for candidate_folder in (folder, *folder.parents):
        candidate = candidate_folder / "pyproject.toml"
        if candidate.is_file():
            try:
                dependencies = _read_toml(candidate).get("project", {}).get("dependencies", [])
            except UserError:
                return False
            return any(
                str(d).split(";")[0].strip().lower().startswith("graphmend") for d in dependencies
            )
    return False
