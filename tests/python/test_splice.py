"""graphmend.splice: a mended module compiled from its skeleton, with the untouched functions
taken from the original's code, equals the module compiled from the whole mended text, field
by field, on the rewrite cases (tests/cases/) and on real transformers modules; the
original's ``.pyc`` is used only when it was compiled from the text being mended; and the
import hook's spliced modules behave as the originals."""

from __future__ import annotations

import glob
import importlib
import os
import py_compile
import sys
import time
from types import CodeType

import pytest

import graphmend
from conftest import REPO_ROOT
from graphmend import splice
from graphmend._mend_source import mend_source
from graphmend.codegen import compile_text as _compile_text
from graphmend.codegen import compile_touched

pytestmark = pytest.mark.skipif(not splice.SUPPORTED, reason="splicing is off on this Python")

PROGRAMS = sorted(
    glob.glob(os.path.join(REPO_ROOT, "tests", "cases", "*", "*.py"))
    + glob.glob(os.path.join(REPO_ROOT, "tests", "python", "programs_runtime", "*.py"))
)
# The shared modules every model imports, and the model suite's own modeling files.
TRANSFORMERS_GLOBS = (
    "*.py",
    "utils/*.py",
    "integrations/*.py",
    "models/bart/modeling_*.py",
    "models/longformer/modeling_*.py",
    "models/grounding_dino/modeling_*.py",
    "models/clap/modeling_*.py",
    "models/t5/modeling_*.py",
    "models/whisper/modeling_*.py",
)

FIELDS = (
    "co_name", "co_qualname", "co_filename", "co_firstlineno", "co_code", "co_linetable",
    "co_exceptiontable", "co_flags", "co_argcount", "co_posonlyargcount", "co_kwonlyargcount",
    "co_nlocals", "co_stacksize", "co_names", "co_varnames", "co_freevars", "co_cellvars",
)  # fmt: skip


def assert_same_code(expected: CodeType, got: CodeType) -> None:
    for field in FIELDS:
        assert getattr(got, field) == getattr(expected, field), (expected.co_qualname, field)
    assert len(got.co_consts) == len(expected.co_consts), expected.co_qualname
    for want, have in zip(expected.co_consts, got.co_consts):
        if isinstance(want, CodeType):
            assert isinstance(have, CodeType)
            assert_same_code(want, have)
        else:
            assert type(have) is type(want) and (have == want or want != want), expected.co_qualname


def spliced_and_whole(path: str, text: str):
    """(code from the skeleton and the original, code from the whole text, stubs), or None
    when mending changes nothing."""
    result = mend_source(text, path, trace_all=True, skeleton=True)
    if not result.changed:
        return None
    line_map = list(result.line_map)
    original = compile(text, path, "exec", dont_inherit=True)
    skeleton = _compile_text(result.skeleton, line_map, path)
    spliced = splice.splice(skeleton, original, result.stubbed_lines)
    return spliced, _compile_text(result.source, line_map, path), len(result.stubbed_lines)


def check_files(paths) -> int:
    """Checks every file mending changes; returns how many stubs were spliced."""
    stubs = 0
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            found = spliced_and_whole(path, handle.read())
        if found is None:
            continue
        spliced, whole, count = found
        assert spliced is not None, f"{path}: a stub found no original"
        assert_same_code(whole, spliced)
        stubs += count
    return stubs


def test_program_suite_splices_to_the_whole_compile():
    assert check_files(PROGRAMS) >= 3  # small programs: few functions are left untouched


def transformers_modules():
    """The files of ``TRANSFORMERS_GLOBS`` (the test is skipped without transformers)."""
    spec = importlib.util.find_spec("transformers")
    if spec is None:
        pytest.skip("transformers is not installed")
    root = os.path.dirname(spec.origin)
    return sorted(
        {p for pattern in TRANSFORMERS_GLOBS for p in glob.glob(os.path.join(root, pattern))}
    )


def test_transformers_modules_splice_to_the_whole_compile():
    # Thousands of functions: methods calling super(), decorated, nested, with `global`.
    assert check_files(transformers_modules()) >= 1000


def check_touched(paths) -> int:
    """The object mender's code of each touched function (``codegen.compile_touched``: the
    skeleton alone, renumbered function by function) equals that function in the module
    compiled from the whole text; returns how many functions were compared."""
    compared = 0
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            result = mend_source(
                handle.read(), path, trace_all=True, skeleton=True, definitions=True
            )
        if not result.changed:
            continue
        whole = splice.code_by_name_and_line(
            _compile_text(result.source, list(result.line_map), path)
        )
        touched = [
            (d.qualname, d.first_line) for d in result.definitions if d.touched and not d.is_class
        ]
        got = compile_touched(result, path, touched)
        for key in touched:
            if whole.get(key) is None:
                assert got.get(key) is None, (path, key)
                continue
            assert_same_code(whole[key], got[key])
            assert list(got[key].co_positions()) == list(whole[key].co_positions()), (path, key)
            compared += 1
    return compared


def test_touched_functions_compile_as_in_the_whole_module():
    assert check_touched(PROGRAMS) >= 10
    assert check_touched(transformers_modules()) >= 300


SOURCE = """\
import torch

COUNT = 0


class Base(torch.nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.register_buffer("offset", torch.arange(3.0) * scale)


class Model(Base):
    def __init__(self):
        super().__init__(2.0)
        self.extra = torch.nn.Parameter(torch.ones(3), requires_grad=False)

    @staticmethod
    def helper(x: torch.Tensor):
        total = x.sum() + torch.ones(1) * 3 + torch.zeros(1) - torch.zeros(1)
        return total

    def forward(self, x: torch.Tensor):
        print("forward", x.shape)
        return self.helper(x) * self.scale + self.offset + self.extra


def bump():
    global COUNT
    COUNT = COUNT + 1 + 0 * len("a long enough line to be stubbed if it were allowed")
    return COUNT


def closure(n):
    def inner(x: torch.Tensor):
        return x + n + 0 * len("a long enough line to be stubbed if it were allowed")
    return inner
"""


def test_a_stub_without_its_original_declines():
    result = mend_source(SOURCE, "m.py", trace_all=True, skeleton=True)
    assert result.stubbed_lines  # Base.__init__, Model.__init__, helper, closure
    skeleton = _compile_text(result.skeleton, list(result.line_map), "m.py")
    renamed = compile(
        SOURCE.replace("def helper", "def helper2"), "m.py", "exec", dont_inherit=True
    )
    assert splice.splice(skeleton, renamed, result.stubbed_lines) is None
    # A method that lost its super(): its original has no __class__ free variable.
    plain = compile(
        SOURCE.replace("super().__init__(2.0)", "Base.__init__(self, 2.0)"), "m.py", "exec"
    )
    assert splice.splice(skeleton, plain, result.stubbed_lines) is None
    original = compile(SOURCE, "m.py", "exec", dont_inherit=True)
    assert splice.splice(skeleton, original, result.stubbed_lines) is not None


def write_pyc(source_path, mode=py_compile.PycInvalidationMode.TIMESTAMP):
    py_compile.compile(str(source_path), doraise=True, invalidation_mode=mode)


def test_original_code_reads_only_a_pyc_of_the_same_text(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(SOURCE)
    data = path.read_bytes()
    assert splice.original_code(str(path), data) is None  # no .pyc
    old = time.time() - 10
    os.utime(path, (old, old))  # the .pyc is written after the source's last change
    write_pyc(path)
    code = splice.original_code(str(path), data)
    assert isinstance(code, CodeType) and code.co_filename == str(path)
    assert splice.original_code(str(path), data + b"\n") is None  # another size
    # Edited after the .pyc was written, same size, same second as the .pyc records.
    edited = SOURCE.replace("+ 1 + 0", "+ 2 + 0")
    assert len(edited) == len(SOURCE)
    path.write_text(edited)
    os.utime(path, ns=(int(old) * 10**9 + 500_000_000, time.time_ns()))
    assert splice.original_code(str(path), edited.encode()) is None
    # Compiled under another name and moved there: the names become the file's, as on import.
    py_compile.compile(str(path), dfile="/elsewhere/mod.py", doraise=True)
    code = splice.original_code(str(path), edited.encode())
    assert code is not None and code.co_filename == str(path)
    assert all(inner.co_filename == str(path) for inner in splice._walk(code))
    write_pyc(path, py_compile.PycInvalidationMode.CHECKED_HASH)
    assert splice.original_code(str(path), edited.encode()) is not None
    assert splice.original_code(str(path), data) is None  # the hash is of the edited text


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package `gms_model` with the module `model` (SOURCE) and its .pyc."""
    root = tmp_path / "src"
    folder = root / "gms_model"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    model = folder / "model.py"
    model.write_text(SOURCE)
    old = time.time() - 10
    os.utime(model, (old, old))
    write_pyc(model)
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    yield model
    graphmend.uninstall()
    graphmend.runtime.discard()
    for name in [n for n in sys.modules if n.startswith("gms_model")]:
        del sys.modules[name]


def run_module(module, capsys):
    torch = module.torch
    torch.manual_seed(0)
    model = module.Model()
    out = model(torch.ones(3))
    graphmend.runtime.flush()
    counts = [module.bump(), module.bump()]
    inner = module.closure(5)(torch.zeros(2))
    return out.tolist(), counts, inner.tolist(), capsys.readouterr().out


def test_the_hook_splices_and_the_module_behaves_as_the_original(
    package, tmp_path, monkeypatch, capsys
):
    spliced = []
    real = splice.splice

    def counting(*args):
        code = real(*args)
        spliced.append(code is not None)
        return code

    monkeypatch.setattr(splice, "splice", counting)
    with graphmend.install(["gms_model"], cache_dir=str(tmp_path / "cache")) as hook:
        mended = importlib.import_module("gms_model.model")
    assert hook.stats.mended == 2 and spliced == [True]
    assert "__graphmend_rt__" in vars(mended)
    got = run_module(mended, capsys)

    del sys.modules["gms_model.model"]
    original = importlib.import_module("gms_model.model")
    assert "__graphmend_rt__" not in vars(original)
    want = run_module(original, capsys)
    assert got == want
    assert want[1] == [1, 2] and "forward torch.Size([3])" in want[3]
