"""The ``graphmend`` command (also ``python -m graphmend``): check, fix, rule and explain
graph-break sites, run a script with its model packages mended, warm the hook's cache.

Exit codes, for every command: 0 success, 1 findings the fail policy selects (or breaks
left, for ``explain``), 2 a usage, configuration or path error (one line, no traceback
unless ``-v``); ``run`` returns the script's own status. See docs/CLI.md.

This module parses the arguments and dispatches to the commands: ``check`` (check, fix,
rule), ``explain`` and ``run`` (run, warm). Below them, modules that import neither torch
nor the mender of live objects: ``codes`` (what each code means, hints per reason id),
``findings`` (the Finding record), ``formats`` (text, JSON, SARIF, GitHub) and ``config``
(``[tool.graphmend]``). ``explain`` and ``run`` import the live layers (the mender,
``graphmend.compile``) inside their functions only, so ``check`` never imports torch.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import sys
import traceback
from typing import Callable, Dict, Optional, Sequence

from .._version import __version__

__all__ = ["main", "build_parser", "version_line"]

EXAMPLES = """\
examples:
  graphmend check src/                          # static: which graph breaks, which are fixable
  graphmend fix --diff src/model.py             # preview the rewrite
  graphmend explain examples/model.py:example   # run Dynamo before/after
  graphmend run train.py --epochs 3             # run with model packages mended at import
  graphmend rule GM101                          # what a code means
  graphmend warm transformers                   # mend a package into the hook's cache ahead of time

docs: docs/CLI.md (commands), docs/DIAGNOSTICS.md (codes), docs/HOOK.md (run, warm)
"""


def version_line() -> str:
    """``graphmend 0.1.0 (core <digest>, CPython 3.11.7, torch 2.13.0)``; torch's version is
    read from its metadata, never by importing it."""
    from ..cache import build_id

    try:
        torch = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch = "not installed"
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"graphmend {__version__} (core {build_id()[:12]}, {python}, torch {torch})"


class _Version(argparse.Action):
    def __init__(
        self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None
    ):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()


def _global_options(suppress: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after its name (the subcommands' copies
    default to SUPPRESS, so they only override what was given)."""
    default = (lambda value: argparse.SUPPRESS) if suppress else (lambda value: value)
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group("global options")
    group.add_argument(
        "--config",
        metavar="PATH",
        default=default(None),
        help="use this TOML file (pyproject.toml or graphmend.toml); no discovery",
    )
    group.add_argument(
        "--isolated",
        action="store_true",
        default=default(False),
        help="ignore every configuration file",
    )
    group.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default=default("auto"),
        help="colour text output (default: auto, on a terminal without NO_COLOR)",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=default(False),
        help="print findings only: no summary, notes or progress",
    )
    group.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default(False),
        help="show tracebacks on errors",
    )
    return parser


def _lint_options(parser: argparse.ArgumentParser, *, fix: bool) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or folders to check (default: .); - reads stdin",
    )
    parser.add_argument(
        "--select",
        type=_codes,
        metavar="CODES",
        help="comma-separated code prefixes or names to report (default: GM0,GM1,GM9)",
    )
    parser.add_argument("--ignore", type=_codes, metavar="CODES", help="codes to leave out")
    parser.add_argument(
        "--fail-on",
        choices=("fixable", "any", "never"),
        help="which findings make the exit status 1 (default: fixable)",
    )
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "sarif", "github"),
        help="how findings are printed (default: text)",
    )
    parser.add_argument("--output-file", metavar="PATH", help="write the findings to PATH")
    parser.add_argument(
        "--trace-all",
        action="store_true",
        default=None,
        help="count every function as traced (library code whose callers live elsewhere)",
    )
    parser.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="threads (default: one per CPU)"
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude to files named on the command line too (pre-commit)",
    )
    parser.add_argument(
        "--stdin-filename", metavar="NAME", help="the path of the text read from stdin"
    )
    parser.add_argument("--show-suppressed", action="store_true", help="also list suppressed sites")
    parser.add_argument(
        "--statistics", action="store_true", help="counts per code and status instead"
    )
    parser.add_argument(
        "--show-source", action="store_true", help="show each finding's source line"
    )
    parser.add_argument(
        "--show-settings",
        action="store_true",
        help="print the resolved configuration and where each value came from",
    )
    parser.add_argument(
        "--target-version",
        choices=("3.11", "3.12"),
        help="the Python grammar (default: the running interpreter's)",
    )
    if fix:
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument(
            "--diff",
            action="store_true",
            help="write nothing; print a unified diff (exit 1 when not empty)",
        )
        mode.add_argument(
            "--check", action="store_true", help="write nothing; exit 1 if any file would change"
        )
        mode.add_argument("--stdout", action="store_true", help="print the mended text of one file")
        parser.add_argument(
            "--exit-non-zero-on-fix", action="store_true", help="exit 1 when a file was changed"
        )


def _codes(text: str) -> tuple:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="graphmend",
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="GraphMend finds the places where torch.compile breaks the graph in your "
        "Python source and rewrites the ones it can prove safe, so Dynamo captures whole graphs.",
        epilog=EXAMPLES,
        parents=[_global_options(suppress=False)],
    )
    top.add_argument(
        "--version",
        action=_Version,
        help="print the version of graphmend, its core, Python and torch",
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    common = [_global_options(suppress=True)]

    def command(name: str, help: str, description: str, example: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help,
            description=description,
            parents=common,
            allow_abbrev=False,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog=f"example:\n  {example}",
        )

    check = command(
        "check",
        "report graph-break sites without running anything",
        "Find graph-break sites statically (never imports torch or your code).",
        "graphmend check src/ --output-format github",
    )
    _lint_options(check, fix=False)
    fix = command(
        "fix",
        "rewrite the fixable sites in place (or --diff, --check, --stdout)",
        "Write the mended source of the fixable sites. Fixed files import graphmend.runtime.",
        "graphmend fix --diff src/model.py",
    )
    _lint_options(fix, fix=True)
    rule = command(
        "rule",
        "explain a diagnostic code",
        "Explain what a GraphMend code means.",
        "graphmend rule GM101",
    )
    rule.add_argument("code", nargs="?", help="a code (GM101) or a name (data-dependent-branch)")
    rule.add_argument("--all", action="store_true", help="list every code")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")
    explain = command(
        "explain",
        "run Dynamo on a model before and after mending",
        "Run Dynamo on ENTRY's model before and after mending and list each break "
        "with its GB id and GM code. Exit 1 when more than --max-breaks remain.",
        "graphmend explain examples/model.py:example --max-breaks 0",
    )
    explain.add_argument(
        "target",
        nargs="?",
        metavar="FILE:ENTRY",
        help="FILE.py:ENTRY or module:ENTRY; ENTRY() returns (obj, args[, kwargs])",
    )
    explain.add_argument(
        "--max-breaks", type=int, metavar="N", help="breaks allowed after mending (default 0)"
    )
    explain.add_argument("--no-mend", action="store_true", help="measure the original only")
    explain.add_argument(
        "--grad", action="store_true", help="run with autograd on (default: torch.no_grad())"
    )
    explain.add_argument(
        "--backend",
        metavar="B",
        help="also compile with backend B (inductor, eager, ...) and check it returns "
        "what the original returns eagerly (exit 1 when not)",
    )
    explain.add_argument(
        "--export",
        nargs="?",
        const="both",
        choices=("both", "strict", "non-strict"),
        help="export with graphmend.export instead (strict, non-strict or both, the default): "
        "whether the original and the mended program export, and export's reason when not "
        "(exit 1 when one is still blocked)",
    )
    explain.add_argument("--output-format", choices=("text", "json"), default="text")
    run = command(
        "run",
        "run a script with its model packages mended at import",
        "Run SCRIPT as __main__ with the GraphMend import hook installed.",
        "graphmend run train.py --epochs 3",
    )
    run.add_argument(
        "--package",
        action="append",
        dest="packages",
        metavar="NAME",
        help="mend this package at import (repeatable); default: [tool.graphmend.hook] "
        "packages, else the packages the script imports that define nn.Module subclasses",
    )
    run.add_argument(
        "--cache-dir",
        default="",
        help="the hook's cache (default: $GRAPHMEND_CACHE_DIR or ~/.cache/graphmend)",
    )
    run.add_argument(
        "--no-cache", action="store_true", help="mend every module, read and write no cache"
    )
    run.add_argument(
        "--no-mend-script", action="store_true", help="run the script's own code as it is"
    )
    run.add_argument(
        "--no-boundary",
        action="store_true",
        help="leave the script's own torch.compile as it is (deferred output then appears at exit)",
    )
    run.add_argument(
        "--report", action="store_true", help="list the mended and declined sites at exit (stderr)"
    )
    run.add_argument(
        "--output-format", choices=("text", "json", "sarif", "github"), help="the --report format"
    )
    run.add_argument("--report-file", metavar="PATH", help="write the --report to PATH")
    run.add_argument(
        "--list-packages",
        action="store_true",
        help="print the packages that would be hooked and exit",
    )
    run.add_argument("script", help="the Python file to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    warm = command(
        "warm",
        "mend packages into the hook's cache ahead of time",
        "Mend every source file of PACKAGE into the import hook's cache (like "
        "compileall for .pyc), so the first start with the hook does no mending work.",
        "graphmend warm transformers",
    )
    warm.add_argument("packages", nargs="+", metavar="PACKAGE", help="an importable package name")
    warm.add_argument(
        "--cache-dir",
        default="",
        help="the hook's cache (default: $GRAPHMEND_CACHE_DIR or ~/.cache/graphmend)",
    )
    warm.add_argument("--jobs", type=int, default=None, help="processes (default: one per CPU)")
    return top


def _settings(options):
    from . import config

    settings = config.load(options.config, isolated=options.isolated)
    given = getattr(options, "select", None), getattr(options, "ignore", None)
    for key, value in zip(("select", "ignore"), given):
        if value is not None:
            config.check_selectors(value, f"--{key}")
            settings.set(key, value, "command line")
    version = getattr(options, "target_version", None)
    if version:
        settings.set("target_version", tuple(int(p) for p in version.split(".")), "command line")
    return settings


def _dispatch() -> Dict[str, Callable]:
    from . import check as cmd_check, explain as cmd_explain, run as cmd_run

    def check(options, settings):
        if options.show_settings:
            print(settings.show())
            return 0
        return cmd_check.check(options, settings)

    def fix(options, settings):
        return cmd_check.fix(options, settings)

    return {
        "check": check,
        "fix": fix,
        "rule": lambda options, settings: cmd_check.rule(options),
        "explain": cmd_explain.explain,
        "run": cmd_run.run,
        "warm": cmd_run.warm,
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
    if options.command is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write(
            "graphmend: name a command (check, fix, rule, explain, run, warm); "
            "`graphmend --help` shows examples\n"
        )
        return 2
    from ..files import UserError

    try:
        return _dispatch()[options.command](options, _settings(options))
    except UserError as exc:
        where = f" ({exc.path})" if exc.path else ""
        sys.stderr.write(f"graphmend {options.command}: {exc}{where}\n")
        if options.verbose:
            traceback.print_exc()
        return 2
    except BrokenPipeError:  # `graphmend check | head`
        return 0
    except Exception:  # noqa: BLE001 (the script's own exceptions propagate: see below)
        if options.command == "run":
            raise  # the script's traceback and exit status, as `python script.py` gives them
        sys.stderr.write(
            f"graphmend {options.command}: internal error; please report it with this traceback\n"
        )
        traceback.print_exc()
        return 2
