// Graph-break tagging: each tag kind, positive and negative, on small programs.
#include "sema/tags.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "parse/parser.h"
#include "sema/sema.h"

namespace graphmend::sema {
namespace {

// "GM101@3 branch on tensor value `x.sum() > 0`" per tag, joined by newlines.
std::string tags_of(const std::string& text, const std::vector<ByteRange>* only_within = nullptr) {
  SourceText source(text, "t.py");
  Arena arena;
  ParseResult r = parse_module(source, arena);
  if (r.module == nullptr) return "PARSE ERROR";
  auto analysis = Analysis::run(*r.module, source);
  std::string out;
  TagOptions options;
  options.only_within = only_within;
  for (const BreakTag& tag : tag_breaks(*r.module, *analysis, options)) {
    if (!out.empty()) out += "\n";
    out += break_code(tag.kind);
    out += "@" + std::to_string(source.line_col(tag.site->begin).line) + " " + tag.message;
    EXPECT_NE(tag.statement, nullptr);
    EXPECT_NE(tag.function, nullptr);
    EXPECT_LE(tag.statement->begin, tag.site->begin);
    EXPECT_GE(tag.statement->end, tag.site->end);
  }
  return out;
}

const char* kHeader =
    "import torch\n"
    "import logging\n"
    "import warnings\n"
    "from torch import nn\n"
    "logger = logging.getLogger(__name__)\n";

std::string module_with(const std::string& forward_body) {
  return std::string(kHeader) +  // 5 lines
         "class M(nn.Module):\n"
         "    def forward(self, x: torch.Tensor, mask, y=None):\n" +
         forward_body;
}

TEST(Tags, Codes) {
  EXPECT_STREQ(break_code(BreakKind::DataDependentBranch), "GM101");
  EXPECT_STREQ(break_code(BreakKind::TensorSliceBound), "GM108");
  EXPECT_STREQ(break_code(BreakKind::TensorAssert), "GM110");
  EXPECT_STREQ(break_summary(BreakKind::PrintCall), "print call");
}

TEST(Tags, DataDependentBranch) {
  EXPECT_EQ(tags_of(module_with("        if x.sum() > 0:\n"
                                "            x = x * 2\n"
                                "        elif x.max() > 3:\n"
                                "            x = x + 1\n"
                                "        return x\n")),
            "GM101@8 branch on tensor value `x.sum() > 0`\n"
            "GM101@10 branch on tensor value `x.max() > 3`");
}

TEST(Tags, NoTagForStaticConditions) {
  EXPECT_EQ(tags_of(module_with("        if self.training:\n"
                                "            x = x * 2\n"
                                "        if y is None:\n"
                                "            y = x\n"
                                "        if x.shape[0] > 1 and x.dim() == 3:\n"
                                "            x = x + 1\n"
                                "        if x.dtype == torch.float16:\n"
                                "            x = x.float()\n"
                                "        if isinstance(y, torch.Tensor):\n"
                                "            pass\n"
                                "        while x.size(0) > 3:\n"
                                "            x = x[1:]\n"
                                "        return x\n")),
            "");
}

TEST(Tags, ChainOfDefinitionsAndWhileAndTernary) {
  EXPECT_EQ(tags_of(module_with("        seq_len = torch.max(mask) + 1\n"
                                "        if seq_len > 10:\n"
                                "            pass\n"
                                "        while x.abs().max() > 1:\n"
                                "            x = x / 2\n"
                                "        z = x if x.mean() > 0 else -x\n"
                                "        return z\n")),
            "GM101@9 branch on tensor value `seq_len > 10`\n"
            "GM101@11 loop condition on tensor value `x.abs().max() > 1`\n"
            "GM101@13 conditional expression on tensor value `x.mean() > 0`");
}

// diffusers' Euler step (scheduling_euler_discrete.py): `sigma` is picked from a registered
// buffer, so the chained comparison on it branches on tensor data; the rewrite checks it.
TEST(Tags, ParametersAndBuffersTheClassRegistersAreTensors) {
  std::string text = std::string(kHeader) +
                     "class Base(nn.Module):\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        self.register_buffer('sigmas', torch.ones(4))\n"
                     "class M(Base):\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        self.scale = nn.Parameter(torch.ones(1))\n"
                     "        self.threshold = 0.5\n"
                     "        self.steps = 4\n"
                     "    def forward(self, x: torch.Tensor, i, t_min=0.0):\n"
                     "        sigma = self.sigmas[i]\n"
                     "        gamma = 2.0 if t_min <= sigma <= 5.0 else 0.0\n"
                     "        if self.scale > 1:\n"
                     "            x = x * self.scale\n"
                     "        if self.threshold > 0 and self.steps > 1:\n"
                     "            x = x + 1\n"
                     "        if i > self.steps:\n"
                     "            x = x - 1\n"
                     "        return x * gamma\n";
  EXPECT_EQ(tags_of(text),
            "GM101@18 conditional expression on tensor value `t_min <= sigma <= 5.0` "
            "(its class sets `self.sigmas` to a tensor)\n"
            "GM101@19 branch on tensor value `self.scale > 1` "
            "(its class sets `self.scale` to a tensor)");
}

// An attribute of a class that is not an nn.Module, or a name registered on another object,
// is no evidence.
TEST(Tags, RegistrationsElsewhereAreNoEvidence) {
  std::string text = std::string(kHeader) +
                     "class Plain:\n"
                     "    def __init__(self, other):\n"
                     "        self.register_buffer('limit', torch.ones(1))\n"
                     "        other.register_buffer('bound', torch.ones(1))\n"
                     "    def register_buffer(self, name, value):\n"
                     "        setattr(self, name, float(value))\n"
                     "    @torch.compile\n"
                     "    def step(self, x):\n"
                     "        if self.limit > 0:\n"
                     "            x = x + 1\n"
                     "        return x\n"
                     "class M(nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        if self.bound > 0:\n"
                     "            x = x + 1\n"
                     "        return x\n";
  EXPECT_EQ(tags_of(text), "");
}

// The evidence follows definitions through loops and attributes set from one another without
// running away: `h = h + self.buf` in a loop, `self.a = self.b` / `self.b = self.a`.
TEST(Tags, ClassEvidenceTerminatesOnCycles) {
  std::string text = std::string(kHeader) +
                     "class M(nn.Module):\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        self.register_buffer('buf', torch.ones(1))\n"
                     "        self.a = self.b\n"
                     "        self.b = self.a\n"
                     "    def forward(self, x: torch.Tensor, n):\n"
                     "        h = 0\n"
                     "        for _ in range(n):\n"
                     "            h = h + self.buf\n"
                     "            g = h\n"
                     "            h = g * 2\n"
                     "        if self.a > 0:\n"
                     "            x = x + 1\n"
                     "        while h > 1:\n"
                     "            h = h / 2\n"
                     "        return x\n";
  EXPECT_EQ(tags_of(text), "");  // h is 0 on one path: a number or a tensor
}

// diffusers' schedulers are plain classes that set their schedule in `set_timesteps`
// (`self.sigmas = torch.from_numpy(...)`): an attribute set only to tensors is evidence, one
// also set to a number or a list is not (None, the usual placeholder, says nothing).
TEST(Tags, AttributesSetOnlyToTensorsAreTensors) {
  std::string text = std::string(kHeader) +
                     "class Scheduler:\n"
                     "    def __init__(self):\n"
                     "        self.sigmas = None\n"
                     "        self.mixed = torch.ones(1)\n"
                     "    def set_timesteps(self, sigmas):\n"
                     "        self.sigmas = torch.from_numpy(sigmas)\n"
                     "        self.sigmas = self.sigmas * 2\n"
                     "        self.mixed = 0.5\n"
                     "    @torch.compile\n"
                     "    def step(self, x, i):\n"
                     "        if self.sigmas[i] > 0:\n"
                     "            x = x + 1\n"
                     "        if self.mixed > 0:\n"
                     "            x = x - 1\n"
                     "        return x\n";
  EXPECT_EQ(tags_of(text),
            "GM101@16 branch on tensor value `self.sigmas[i] > 0` "
            "(its class sets `self.sigmas` to a tensor)");
  size_t none = text.find("self.sigmas = None");
  text.replace(none, 18, "self.sigmas = [0.0]");
  EXPECT_EQ(tags_of(text), "");
}

// A parameter annotated a tensor or None (transformers' `labels: Optional[torch.LongTensor] =
// None`) is evidence, also under `and`/`or`; a union with a number, a default that is not
// None, or a string naming a list of tensors, is not.
TEST(Tags, ParametersAnnotatedATensorOrNoneAreTensors) {
  std::string text =
      std::string(kHeader) +
      "from typing import Optional, Union\n"
      "@torch.compile\n"
      "def f(x, pad: int, labels: Optional[torch.LongTensor] = None,\n"
      "      mask: 'torch.Tensor | None' = None, keep: Union[int, torch.Tensor] = 0,\n"
      "      flag: torch.Tensor | None = False, many: 'List[torch.Tensor]' = None):\n"
      "    if labels is not None and pad in labels:\n"
      "        x = x + 1\n"
      "    if pad not in mask:\n"
      "        x = x - 1\n"
      "    if keep == 0:\n"
      "        x = x * 2\n"
      "    if not flag:\n"
      "        x = x * 3\n"
      "    if pad in many:\n"
      "        x = x * 4\n"
      "    return x\n";
  EXPECT_EQ(tags_of(text),
            "GM101@11 branch on tensor value `labels is not None and pad in labels` "
            "(`labels` is annotated as a tensor)\n"
            "GM101@13 branch on tensor value `pad not in mask` (`mask` is annotated as a tensor)");
}

// diffusers' schedulers: `alphas_cumprod[prev_t] if prev_t >= 0 else final_alpha_cumprod`,
// with `timestep` what the pipeline passes (often a 0-d tensor). A parameter with neither
// annotation nor default is evidence only where both values are tensors and the condition
// compares; not one with a default, an annotation, `self`, values that are not shown to be
// tensors, or a truth test (VITS' `cumheights if reverse else cumwidths`: a flag).
TEST(Tags, PlainParametersSelectingTensorsAreEvidence) {
  std::string text = std::string(kHeader) +
                     "class Scheduler(nn.Module):\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        self.register_buffer('alphas', torch.ones(10))\n"
                     "        self.register_buffer('final', torch.tensor(1.0))\n"
                     "    def forward(self, x, timestep, step=0, count: int = 1):\n"
                     "        prev = timestep - 2\n"
                     "        a = self.alphas[prev] if prev >= 0 else self.final\n"
                     "        b = self.alphas[step] if step >= 0 else self.final\n"
                     "        c = self.alphas[count] if count > 1 else self.final\n"
                     "        d = 2.0 if timestep > 0 else 1.0\n"
                     "        e = x if self > 0 else self.final\n"
                     "        f = self.alphas if timestep else self.final\n"
                     "        return x * a * b * c * d * e * f\n";
  EXPECT_EQ(tags_of(text),
            "GM101@13 conditional expression on tensor value `prev >= 0` (its values are "
            "tensors, and `timestep` is a parameter that may be one)");
}

// diffusers' DDPMScheduler: `prev_t = self.previous_timestep(t)`, a method returning `timestep -
// 1`, is what its return computes in the frame of the call (a tensor where `t` may be one), as
// is a module helper's result; a method that loops tells nothing.
TEST(Tags, HelperResultsAreWhatTheyReturnInTheFrameOfTheCall) {
  std::string text = std::string(kHeader) +
                     "def shifted(t):\n"
                     "    if t.ndim == 0:\n"
                     "        return t - 1\n"
                     "    return t[0] - 1\n"
                     "class Scheduler(nn.Module):\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        self.register_buffer('alphas', torch.ones(10))\n"
                     "        self.register_buffer('one', torch.tensor(1.0))\n"
                     "    def previous_timestep(self, timestep):\n"
                     "        return timestep - 1\n"
                     "    def looped(self, timestep):\n"
                     "        for _ in range(2):\n"
                     "            timestep = timestep - 1\n"
                     "        return timestep\n"
                     "    def forward(self, x, t):\n"
                     "        prev_t = self.previous_timestep(t)\n"
                     "        a = self.alphas[prev_t] if prev_t >= 0 else self.one\n"
                     "        before = shifted(t)\n"
                     "        b = self.alphas[before] if before >= 0 else self.one\n"
                     "        later = self.looped(t)\n"
                     "        c = self.alphas[later] if later >= 0 else self.one\n"
                     "        return x * a * b * c\n";
  EXPECT_EQ(tags_of(text),
            "GM101@23 conditional expression on tensor value `prev_t >= 0` (its values are "
            "tensors, and `t` is a parameter that may be one)\n"
            "GM101@25 conditional expression on tensor value `before >= 0` (its values are "
            "tensors, and `t` is a parameter that may be one)");
}

TEST(Tags, ValidationGuard) {
  EXPECT_EQ(tags_of(module_with("        if torch.isnan(x).any():\n"
                                "            raise ValueError('nan')\n"
                                "        if x.shape[0] == 0:\n"
                                "            raise ValueError('empty')\n"
                                "        return x\n")),
            "GM105@8 validation guard on tensor value `torch.isnan(x).any()`");
}

// torch.distributions validates with the private `torch._is_all_true` (a bool tensor).
TEST(Tags, DistributionValidationGuard) {
  EXPECT_EQ(tags_of(module_with("        valid = x > 0\n"
                                "        if not torch._is_all_true(valid):\n"
                                "            raise ValueError('invalid')\n"
                                "        return x\n")),
            "GM105@9 validation guard on tensor value `not torch._is_all_true(valid)`");
}

TEST(Tags, TensorAssert) {
  EXPECT_EQ(tags_of(module_with("        assert (x > 0).all(), 'positive'\n"
                                "        assert x.dim() == 2\n"
                                "        assert y is None or y > 0\n"
                                "        return x\n")),
            "GM110@8 assert on tensor value `(x > 0).all()`");
}

TEST(Tags, SideEffects) {
  EXPECT_EQ(tags_of(module_with("        print('x', x)\n"
                                "        logger.warning('bad %s', x)\n"
                                "        logger.warning_once('once')\n"
                                "        warnings.warn('w')\n"
                                "        y = [print(v) for v in range(3)]\n"
                                "        return x\n")),
            "GM102@8 print call `print('x', x)`\n"
            "GM103@9 logging call `logger.warning('bad %s', x)`\n"
            "GM103@10 logging call `logger.warning_once('once')`\n"
            "GM104@11 warnings.warn call `warnings.warn('w')`\n"
            "GM102@12 print call `print(v)`");
}

TEST(Tags, ShadowedPrintIsNotTagged) {
  EXPECT_EQ(tags_of("import torch\n"
                    "def print(*a):\n"
                    "    pass\n"
                    "@torch.compile\n"
                    "def f(x):\n"
                    "    print(x)\n"
                    "    return x\n"),
            "");
}

TEST(Tags, UnreachedFunctionsHaveNoTags) {
  EXPECT_EQ(tags_of("import torch\n"
                    "def helper(x: torch.Tensor):\n"
                    "    print(x)\n"
                    "    if x.sum() > 0:\n"
                    "        pass\n"
                    "class NotAModule:\n"
                    "    def forward(self, x: torch.Tensor):\n"
                    "        print(x)\n"),
            "");
}

TEST(Tags, HelpersReachedFromEntriesAreTagged) {
  EXPECT_EQ(tags_of("import torch\n"
                    "def helper(x):\n"
                    "    print('in helper')\n"
                    "    return x\n"
                    "def unused(x):\n"
                    "    print('never')\n"
                    "@torch.compile\n"
                    "def f(x):\n"
                    "    return helper(x)\n"),
            "GM102@3 print call `print('in helper')`");
}

TEST(Tags, ScalarUseAndDynamicShapes) {
  EXPECT_EQ(tags_of(module_with("        n = x.sum().item()\n"
                                "        l = x.tolist()\n"
                                "        k = int(x.max())\n"
                                "        m = int(y)\n"
                                "        idx = torch.nonzero(x)\n"
                                "        u = x.unique()\n"
                                "        sel = x[x > 0]\n"
                                "        sel2 = x[:, mask]\n"
                                "        w = torch.where(x > 0)\n"
                                "        w2 = torch.where(x > 0, x, 0)\n"
                                "        return x\n")),
            "GM106@8 tensor converted to a Python scalar `x.sum().item()`\n"
            "GM106@9 tensor converted to a Python scalar `x.tolist()`\n"
            "GM106@10 tensor converted to a Python scalar `int(x.max())`\n"
            "GM107@12 data-dependent output shape `torch.nonzero(x)`\n"
            "GM107@13 data-dependent output shape `x.unique()`\n"
            "GM107@14 boolean-mask indexing `x[x > 0]`\n"
            "GM107@16 data-dependent output shape `torch.where(x > 0)`");
}

TEST(Tags, MethodsOfKnownNonTensorsAreNotTagged) {
  EXPECT_EQ(tags_of("import numpy\n" + module_with("        arr = numpy.zeros(3)\n"
                                                   "        a = arr.item()\n"
                                                   "        b = arr.nonzero()\n"
                                                   "        c = x.nonzero()\n"
                                                   "        return x\n")),
            "GM107@12 data-dependent output shape `x.nonzero()`");
}

TEST(Tags, TensorSliceBound) {
  EXPECT_EQ(tags_of(module_with("        n = x.sum()\n"
                                "        a = x[:n]\n"
                                "        b = x[:, : x.shape[1]]\n"
                                "        return a\n")),
            "GM108@9 tensor slice bound `n` in `x[:n]`");
}

TEST(Tags, MessagesAreFolded) {
  EXPECT_EQ(tags_of(module_with("        if (x.sum()\n"
                                "                > 0):\n"
                                "            pass\n")),
            "GM101@8 branch on tensor value `x.sum() > 0`");
}

TEST(Tags, NestedFunctionsAreSeparate) {
  EXPECT_EQ(tags_of(module_with("        def inner(v):\n"
                                "            print(v)\n"
                                "        return x\n")),
            "");
  EXPECT_EQ(tags_of(module_with("        def inner(v):\n"
                                "            print(v)\n"
                                "        return inner(x)\n")),
            "GM102@9 print call `print(v)`");
}

TEST(Tags, OnlyTheFunctionsMeetingTheRangesAreTagged) {
  std::string text = module_with(
                         "        print(x)\n"
                         "        return self.helper(x)\n") +
                     "    def helper(self, x):\n"
                     "        print(x)\n"
                     "        return x\n";
  EXPECT_EQ(tags_of(text), "GM102@8 print call `print(x)`\nGM102@11 print call `print(x)`");
  auto at = [&](const std::string& needle, size_t from) {
    return static_cast<uint32_t>(text.find(needle, from));
  };
  uint32_t helper = at("print", at("def helper", 0));
  std::vector<ByteRange> in_helper = {{helper, helper + 5}};
  EXPECT_EQ(tags_of(text, &in_helper), "GM102@11 print call `print(x)`");
  // An empty range (an insertion) counts where it lies; the def line belongs to the function.
  uint32_t forward = at("def forward", 0);
  std::vector<ByteRange> at_forward = {{forward, forward}};
  EXPECT_EQ(tags_of(text, &at_forward), "GM102@8 print call `print(x)`");
  std::vector<ByteRange> nowhere = {{0, 3}};
  EXPECT_EQ(tags_of(text, &nowhere), "");
}

}  // namespace
}  // namespace graphmend::sema
