// Speculation: which values may be assumed tensors (and are recorded for a run-time
// check), and which may not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

const char* const kModule =
    "import torch\n"
    "import numpy as np\n"
    "from torch import nn\n"
    "G = 3\n"
    "class M(nn.Module):\n"
    "    def helper(self, v):\n"
    "        return v\n"
    "    def forward(self, x, flag, n: int):\n"
    "        h = self.lin(x)\n"
    "        a = np.ones(3)\n"
    "        if flag:\n"
    "            g = x\n"
    "        if h.sum() > 0:\n"
    "            k = h * 2\n"
    "            y = k + x + self.scale + self.buf.weight + a + G + g + n + self.helper\n";

// A speculation at the statement `site` of `p`, active while it lives.
struct Speculating {
  explicit Speculating(const Program& p, const char* site = "if h.sum() > 0") : program(p) {
    speculation.site = p.stmt(site);
    before = p.analysis->speculate(&speculation);
  }
  ~Speculating() { program.analysis->speculate(before); }

  std::vector<std::string> assumed() const {
    std::vector<std::string> out;
    for (const ast::expr* e : speculation.assumed) out.emplace_back(program.text(e));
    return out;
  }

  const Program& program;
  Speculation speculation;
  Speculation* before = nullptr;
};

TEST(Speculation, LocalsAndSelfAttributesAreAssumedAndRecorded) {
  Program p(kModule);
  EXPECT_FALSE(p.tensor("h", 1));  // nothing shows it...
  {
    Speculating s(p);
    EXPECT_TRUE(p.tensor("h", 1));  // ...assumed under the speculation
    EXPECT_TRUE(p.tensor("x", 1));
    EXPECT_TRUE(p.tensor("self.scale"));
    EXPECT_TRUE(p.tensor("self.buf.weight"));
    EXPECT_EQ(s.assumed(), (std::vector<std::string>{"h", "x", "self.scale", "self.buf.weight"}));
  }
  EXPECT_FALSE(p.tensor("h", 1));  // and not after it
}

TEST(Speculation, WhatTheCheckCannotSeeIsNeverAssumed) {
  Program p(kModule);
  Speculating s(p);
  EXPECT_FALSE(p.tensor("a", 1));         // known not to be a tensor (numpy)
  EXPECT_FALSE(p.tensor("G", 1));         // a global
  EXPECT_FALSE(p.tensor("g", 1));         // may be unbound before the if
  EXPECT_FALSE(p.tensor("n"));            // annotated int
  EXPECT_FALSE(p.tensor("self.helper"));  // a method
  EXPECT_FALSE(p.tensor("self", 2));      // the module itself
  s.speculation.local = {"k"};            // assigned earlier inside the if...
  EXPECT_FALSE(p.tensor("k", 1));
  s.speculation.derived = {"k"};  // ...to a tensor: no check of its own
  EXPECT_TRUE(p.tensor("k", 1));
  EXPECT_TRUE(s.assumed().empty());
}

TEST(Speculation, ShownTensorsArePreferredToAssumedOnes) {
  Program p(
      "import torch\n"
      "class M(torch.nn.Module):\n"
      "    def forward(self, x, t: torch.Tensor):\n"
      "        if t.sum() > 0:\n"
      "            y = self.eps + t\n"
      "            z = self.eps * x\n"
      "        return y\n");
  Speculating s(p, "if t.sum() > 0");
  EXPECT_TRUE(p.analysis->is_pure(*p.find("self.eps + t")));
  EXPECT_TRUE(s.speculation.assumed.empty());  // t is a tensor: self.eps need not be
  EXPECT_TRUE(p.analysis->is_pure(*p.find("self.eps * x")));
  ASSERT_EQ(s.speculation.assumed.size(), 1u);  // the local, not the attribute
  EXPECT_EQ(p.text(s.speculation.assumed[0]), "x");
}

TEST(Speculation, AFinfoDtypeIsAssumedFloatingAndRecorded) {
  Program p(
      "import torch\n"
      "def f(h: torch.Tensor, g):\n"
      "    if h.sum() > 0:\n"
      "        c = torch.finfo(h.dtype).max - 1000\n"
      "        d = torch.finfo(g.dtype).max\n");
  PurityFacts facts;
  EXPECT_FALSE(p.analysis->is_pure(*p.find("torch.finfo(h.dtype).max - 1000"), facts));
  Speculation speculation;
  speculation.site = p.stmt("if h.sum() > 0");
  Speculation* before = p.analysis->speculate(&speculation);
  EXPECT_TRUE(p.analysis->is_pure(*p.find("torch.finfo(h.dtype).max - 1000"), facts));
  EXPECT_TRUE(p.analysis->is_pure(*p.find("torch.finfo(g.dtype).max"), facts));
  p.analysis->speculate(before);
  ASSERT_EQ(speculation.floating.size(), 2u);
  EXPECT_EQ(p.text(speculation.floating[0]), "h");
  EXPECT_EQ(p.text(speculation.floating[1]), "g");
  ASSERT_EQ(speculation.assumed.size(), 1u);  // g must be a tensor too; h is one
  EXPECT_EQ(p.text(speculation.assumed[0]), "g");
}

// Tail duplication's numbers: a parameter with a numeric default or an int/float annotation
// is assumed a Python number (recorded, for runtime.numbers) only where the speculation
// allows numbers, and then never a tensor; min/max, a division by a shape and a constant
// power are number expressions.
TEST(Speculation, NumbersAreAssumedWhereAllowed) {
  Program p(
      "import torch\n"
      "def f(sigma: torch.Tensor, t: torch.Tensor, churn=0.5, lo: float = 0.0, other=None):\n"
      "    if sigma > 0:\n"
      "        pass\n"
      "    min(churn / (len(t) - 1), 2**0.5 - 1)\n"
      "    churn / (lo + 1)\n"
      "    other * 2\n"
      "    lo <= sigma\n");
  Speculating s(p, "if sigma > 0");
  PurityFacts facts;
  EXPECT_FALSE(p.analysis->is_number(*p.find("min(churn / (len(t) - 1), 2**0.5 - 1)"), facts));
  s.speculation.assume_numbers = true;
  EXPECT_TRUE(p.analysis->is_number(*p.find("min(churn / (len(t) - 1), 2**0.5 - 1)"), facts));
  EXPECT_FALSE(p.analysis->is_number(*p.find("churn / (lo + 1)"), facts));  // not a shape
  EXPECT_FALSE(p.analysis->is_number(*p.find("other * 2"), facts));
  ASSERT_EQ(s.speculation.numbers.size(), 1u);  // what failed assumed nothing
  EXPECT_EQ(p.text(s.speculation.numbers[0]), "churn");
  EXPECT_TRUE(p.analysis->is_pure(*p.find("lo <= sigma")));
  EXPECT_TRUE(s.speculation.assumed.empty());  // `lo` may be a number: not assumed a tensor
}

// torchmetrics' retrieval metrics: `top_k: Optional[int] = None`, rebound to
// `preds.shape[-1]` when None, may be assumed a number (an int: recorded in `integers` too);
// one rebound to a call's result, or augmented, may not; `float | None` is a number, not an int.
TEST(Speculation, OptionalNumberParametersReboundToNumbersMayBeAssumed) {
  Program p(
      "import torch\n"
      "from typing import Optional\n"
      "def f(preds, target, top_k: Optional[int] = None, scale: float | None = None,\n"
      "      other: Optional[int] = None, more: int = 1):\n"
      "    if top_k is None:\n"
      "        top_k = preds.shape[-1]\n"
      "    other = pick(preds)\n"
      "    more += 1\n"
      "    if target.sum() > 0:\n"
      "        pass\n"
      "    min(top_k, 3)\n"
      "    scale * 2\n"
      "    min(other, 3)\n"
      "    min(more, 3)\n");
  Speculating s(p, "if target.sum() > 0");
  s.speculation.assume_numbers = true;
  PurityFacts facts;
  EXPECT_TRUE(p.analysis->is_number(*p.find("min(top_k, 3)"), facts));
  EXPECT_TRUE(p.analysis->is_number(*p.find("scale * 2"), facts));
  EXPECT_FALSE(p.analysis->is_number(*p.find("min(other, 3)"), facts));
  EXPECT_FALSE(p.analysis->is_number(*p.find("min(more, 3)"), facts));
  ASSERT_EQ(s.speculation.numbers.size(), 2u);
  EXPECT_EQ(p.text(s.speculation.numbers[0]), "top_k");
  EXPECT_EQ(p.text(s.speculation.numbers[1]), "scale");
  ASSERT_EQ(s.speculation.integers.size(), 1u);
  EXPECT_EQ(p.text(s.speculation.integers[0]), "top_k");
}

// Transformers' Reformer: a local last bound by `self.<attr>` or `x.shape[i]` before the
// site may be assumed a number; one rebound otherwise may not; a parameter with a bool or
// None default is a flag, never assumed a tensor; `x.shape[-1]` of a tensor is a shape int.
TEST(Speculation, ConfigLocalsAreNumbersAndFlagsAreNotTensors) {
  Program p(
      "import torch\n"
      "class M(torch.nn.Module):\n"
      "    def f(self, v, mask, grow=False):\n"
      "        n = self.num_buckets\n"
      "        b = v.shape[0]\n"
      "        k = self.k\n"
      "        k = k.clone()\n"
      "        if mask.sum() > 0:\n"
      "            pass\n"
      "        n + 1\n"
      "        b * mask.shape[-1]\n"
      "        k + 1\n"
      "        grow\n");
  Speculating s(p, "if mask.sum() > 0");
  s.speculation.assume_numbers = true;
  PurityFacts facts;
  EXPECT_TRUE(p.analysis->is_number(*p.find("n + 1"), facts));
  EXPECT_TRUE(p.analysis->is_number(*p.find("b * mask.shape[-1]"), facts));
  EXPECT_FALSE(p.analysis->is_number(*p.find("k + 1"), facts));
  ASSERT_EQ(s.speculation.numbers.size(), 2u);
  EXPECT_EQ(p.text(s.speculation.numbers[0]), "n");
  EXPECT_EQ(p.text(s.speculation.numbers[1]), "b");
  size_t assumed = s.speculation.assumed.size();
  EXPECT_FALSE(p.analysis->is_data_dependent(*p.find("grow")));
  EXPECT_EQ(s.speculation.assumed.size(), assumed);
}

// A setting the class sets only to literals (`self.use_cache = True`, `self.eps = 1e-5`) is
// never assumed a tensor: assuming it would fail every run-time check (`elif self.flag:`). One
// also set to a tensor, or to anything else, may be.
TEST(Speculation, AttributesSetOnlyToLiteralsAreNotAssumed) {
  Program p(
      "import torch\n"
      "class M(torch.nn.Module):\n"
      "    def __init__(self, cfg):\n"
      "        super().__init__()\n"
      "        self.flag = True\n"
      "        self.eps = 1e-5\n"
      "        self.mode = 'sum'\n"
      "        self.mixed = 0.0\n"
      "        self.config = cfg\n"
      "    def reset(self):\n"
      "        self.mixed = torch.zeros(1)\n"
      "    def forward(self, x):\n"
      "        if x.sum() > 0:\n"
      "            pass\n"
      "        self.flag, self.eps, self.mode, self.mixed, self.config, self.state\n");
  Speculating s(p, "if x.sum() > 0");
  EXPECT_FALSE(p.tensor("self.flag", 1));
  EXPECT_FALSE(p.tensor("self.eps", 1));
  EXPECT_FALSE(p.tensor("self.mode", 1));
  EXPECT_TRUE(p.tensor("self.mixed", 2));
  EXPECT_TRUE(p.tensor("self.config", 1));
  EXPECT_TRUE(p.tensor("self.state"));  // set nowhere in the file
}

// Settings and sizes: a parameter defaulting to a negative number, an attribute set from
// one, and a size read off any value (`x.shape[0]`, `len(x)`) are never assumed tensors.
TEST(Speculation, NegativeDefaultsSettingsAndSizesAreNotAssumed) {
  Program p(
      "import torch\n"
      "class M(torch.nn.Module):\n"
      "    def __init__(self, momentum=-1, decay=0.9):\n"
      "        super().__init__()\n"
      "        self.momentum = momentum\n"
      "        self.decay = decay\n"
      "    def forward(self, x, dim=-1):\n"
      "        rows = x.shape[0]\n"
      "        count = len(x)\n"
      "        if x.sum() > 0:\n"
      "            pass\n"
      "        dim, rows, count, self.momentum, self.decay, x\n");
  Speculating s(p, "if x.sum() > 0");
  EXPECT_FALSE(p.tensor("dim"));
  for (const char* value : {"rows", "count"}) EXPECT_FALSE(p.tensor(value, 1)) << value;
  EXPECT_FALSE(p.tensor("self.momentum", 1));
  EXPECT_FALSE(p.tensor("self.decay", 1));
  EXPECT_TRUE(p.tensor("x", 3));
  EXPECT_EQ(s.assumed(), (std::vector<std::string>{"x"}));
}

// A parameter declared a number is not assumed a tensor where it still holds the argument,
// and may be where it was rebound (kornia's adjust_gamma: `gain: Union[float, Tensor] = 1.0`,
// then `gain = gain.to(input.dtype)` before its guard).
TEST(Speculation, ANumberParameterReboundBeforeTheReadMayBeAssumed) {
  Program p(
      "import torch\n"
      "def f(x, gain=1.0, scale=2.0):\n"
      "    gain = gain.to(x.dtype)\n"
      "    if (gain < 0.0).any():\n"
      "        pass\n"
      "    gain, scale\n");
  Speculating s(p, "if (gain < 0.0).any()");
  EXPECT_TRUE(p.tensor("gain", 2));
  EXPECT_FALSE(p.tensor("scale"));
  EXPECT_EQ(s.assumed(), (std::vector<std::string>{"gain"}));
}

// A call of a module helper is as pure as its body in the frame of the call: torchvision's
// `hflip` (transforms/_functional_tensor.py) flips a tensor after validating it. Its
// validation `if not _is_tensor_a_torch_image(img): raise TypeError(...)` is a precondition
// the speculation records in the caller's words; without a speculation it cannot be
// checked, so the call is not pure; one of a local it computed reads the local as the
// caller would compute it. Helpers that write state, loop, validate a tensor's values, or
// are passed a non-tensor, are not pure.
TEST(Speculation, HelperCallsArePureInTheFrameOfTheCall) {
  Program p(
      "import torch\n"
      "from torch import Tensor\n"
      "def _is_tensor_a_torch_image(x: Tensor) -> bool:\n"
      "    return x.ndim >= 2\n"
      "def _assert_image_tensor(img: Tensor) -> None:\n"
      "    if not _is_tensor_a_torch_image(img):\n"
      "        raise TypeError('Tensor is not a torch image.')\n"
      "def hflip(img: Tensor) -> Tensor:\n"
      "    _assert_image_tensor(img)\n"
      "    return img.flip(-1)\n"
      "def scaled(x, direction, axis=-1):\n"
      "    \"\"\"The area.\"\"\"\n"
      "    with torch.no_grad():\n"
      "        area = torch.trapz(x, dim=axis) * direction\n"
      "    return area\n"
      "def counted(x, seen):\n"
      "    seen.append(x)\n"
      "    return x\n"
      "def looped(x):\n"
      "    for _ in range(2):\n"
      "        x = x * 2\n"
      "    return x\n"
      "def checks_local(x):\n"
      "    n = x.shape[0] * 2\n"
      "    if n > 10:\n"
      "        raise ValueError(n)\n"
      "    return x\n"
      "def checks_values(x):\n"
      "    if (x < 0).any():\n"
      "        raise ValueError('negative')\n"
      "    return x\n"
      "def f(v, c: torch.Tensor, seen: list, z: torch.Tensor):\n"
      "    if c.sum() > 0:\n"
      "        pass\n"
      "    hflip(v)\n"
      "    scaled(z, -1.0)\n"
      "    scaled(z, -1.0, axis=0, extra=1)\n"
      "    counted(z, seen)\n"
      "    looped(z)\n"
      "    checks_local(z)\n"
      "    checks_values(z)\n"
      "    hflip(seen)\n");
  EXPECT_FALSE(p.pure("hflip(v)"));  // its validation: no speculation to check it
  EXPECT_TRUE(p.pure("scaled(z, -1.0)"));
  EXPECT_FALSE(p.pure("scaled(z, -1.0, axis=0, extra=1)"));  // a TypeError
  EXPECT_FALSE(p.pure("counted(z, seen)"));
  EXPECT_FALSE(p.pure("looped(z)"));
  Speculating s(p, "if c.sum() > 0");
  EXPECT_TRUE(p.pure("hflip(v)"));
  EXPECT_EQ(s.assumed(), std::vector<std::string>{"v"});
  EXPECT_EQ(s.speculation.preconditions, std::vector<std::string>{"_is_tensor_a_torch_image(v)"});
  EXPECT_TRUE(p.pure("checks_local(z)"));  // its local, as the caller would compute it
  EXPECT_EQ(s.speculation.preconditions.back(), "not ((z.shape[0] * 2) > 10)");
  EXPECT_FALSE(p.pure("checks_values(z)"));
  EXPECT_FALSE(p.pure("hflip(seen)"));  // `seen` is a list here: not assumed a tensor
}

// diffusers' VaeImageProcessor: `self.normalize(image)`, a staticmethod, and a plain method of
// `self` are as pure as their bodies, under a speculation only (the rewrite checks with
// runtime.same_method that the instance runs them); another object's method, a decorated
// one, or one changing the image in place is not.
TEST(Speculation, MethodsOfSelfArePureWhereChecked) {
  Program p(
      "import torch\n"
      "import functools\n"
      "class P(torch.nn.Module):\n"
      "    @staticmethod\n"
      "    def normalize(images):\n"
      "        return 2.0 * images - 1.0\n"
      "    def scale(self, x):\n"
      "        return x * self.k\n"
      "    @functools.lru_cache\n"
      "    def cached(self, x):\n"
      "        return x\n"
      "    def binarize(self, image):\n"
      "        image[image < 0.5] = 0\n"
      "        return image\n"
      "    def forward(self, x: torch.Tensor, other):\n"
      "        if x.sum() > 0:\n"
      "            pass\n"
      "        self.normalize(x)\n"
      "        self.scale(x)\n"
      "        self.cached(x)\n"
      "        self.binarize(x)\n"
      "        other.normalize(x)\n");
  EXPECT_FALSE(p.pure("self.normalize(x)"));
  Speculating s(p, "if x.sum() > 0");
  EXPECT_TRUE(p.pure("self.normalize(x)"));
  EXPECT_TRUE(p.pure("self.scale(x)"));
  EXPECT_FALSE(p.pure("self.cached(x)"));
  EXPECT_FALSE(p.pure("self.binarize(x)"));
  EXPECT_FALSE(p.pure("other.normalize(x)"));
  ASSERT_EQ(s.speculation.methods.size(), 2u);
  EXPECT_EQ(s.speculation.methods[0], (SameMethod{"self", "normalize", "P"}));
  EXPECT_EQ(s.speculation.methods[1], (SameMethod{"self", "scale", "P"}));
}

// A static if in a helper (torchvision's `_functional_tensor` batches a 3-d image: `if
// img.ndim == 3: img = img.unsqueeze(0)`) is resolved while tracing: the helper is pure where
// both sides are, and a name holds what both paths leave it. A test of tensor values, or a
// side that is not pure, is not.
TEST(Speculation, StaticIfsInHelpersArePureOnBothSides) {
  Program p(
      "import torch\n"
      "def batched(img):\n"
      "    if img.ndim == 3:\n"
      "        img = img.unsqueeze(0)\n"
      "        squeeze = True\n"
      "    else:\n"
      "        squeeze = False\n"
      "    return img.flip(-1)\n"
      "def early(img):\n"
      "    if img.ndim < 2:\n"
      "        return img\n"
      "    return img.flip(-1)\n"
      "def by_values(img):\n"
      "    if img.sum() > 0:\n"
      "        img = img * 2\n"
      "    return img\n"
      "def one_side_impure(img, seen):\n"
      "    if img.ndim == 3:\n"
      "        seen.append(img)\n"
      "    return img\n"
      "def f(x: torch.Tensor, seen: list):\n"
      "    batched(x)\n"
      "    early(x)\n"
      "    by_values(x)\n"
      "    one_side_impure(x, seen)\n");
  EXPECT_TRUE(p.pure("batched(x)"));
  EXPECT_TRUE(p.pure("early(x)"));
  EXPECT_FALSE(p.pure("by_values(x)"));
  EXPECT_FALSE(p.pure("one_side_impure(x, seen)"));
}

// torchvision's `_blend` and `_max_value` (transforms/_functional_tensor.py) in the frame of
// `adjust_brightness(img, 0.5)`: a parameter passed a number literal is a number (`float(r)`,
// `1.0 - r`), dtypes compare without raising (`dtype == torch.uint8`), and a number is
// tested against a display of numbers (`n not in (1, 3)`); `r, g, b = img.unbind(-3)`
// unpacks a tuple of tensors; an assert on a parameter is checked as it holds. A parameter
// passed a string is no number.
TEST(Speculation, HelperFramesKnowNumbersAndDtypes) {
  Program p(
      "import torch\n"
      "from torch import Tensor\n"
      "def _max_value(dtype: torch.dtype) -> int:\n"
      "    if dtype == torch.uint8:\n"
      "        return 255\n"
      "    elif dtype == torch.int8:\n"
      "        return 127\n"
      "    else:\n"
      "        return 1\n"
      "def _blend(img1: Tensor, img2: Tensor, ratio: float) -> Tensor:\n"
      "    ratio = float(ratio)\n"
      "    bound = _max_value(img1.dtype)\n"
      "    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)\n"
      "def gray(img, n=1):\n"
      "    if n not in (1, 3):\n"
      "        raise ValueError('n')\n"
      "    r, g, b = img.unbind(dim=-3)\n"
      "    return (0.2989 * r + 0.587 * g + 0.114 * b).unsqueeze(-3)\n"
      "def batched(img):\n"
      "    assert img.ndim == 4, f'not a batch: {img.shape}'\n"
      "    return img * 2\n"
      "def f(x: torch.Tensor, c: torch.Tensor, s: str):\n"
      "    if c.sum() > 0:\n"
      "        pass\n"
      "    _blend(x, torch.zeros_like(x), 0.5)\n"
      "    _blend(x, torch.zeros_like(x), s)\n"
      "    gray(x, n=3)\n"
      "    batched(x + 1)\n");
  Speculating s(p, "if c.sum() > 0");
  EXPECT_TRUE(p.pure("_blend(x, torch.zeros_like(x), 0.5)"));
  EXPECT_FALSE(p.pure("_blend(x, torch.zeros_like(x), s)"));
  EXPECT_TRUE(p.pure("gray(x, n=3)"));
  EXPECT_TRUE(p.pure("batched(x + 1)"));  // an assert on its parameter: checked as it holds
  EXPECT_EQ(s.speculation.preconditions,
            (std::vector<std::string>{"not (3 not in (1, 3))", "(x + 1).ndim == 4"}));
}

// The check before the site sees the value a name holds there: `variance = 0` is a number
// there, though the read after the if may also see the tensor the branch assigns.
TEST(Speculation, ANameHoldingANumberBeforeTheSiteIsNotAssumed) {
  Program p(
      "import torch\n"
      "def f(x, t, noise):\n"
      "    variance = 0\n"
      "    if t > 0:\n"
      "        variance = noise * 2\n"
      "    return x + variance\n");
  Speculating s(p, "if t > 0");
  EXPECT_TRUE(p.tensor("x"));
  EXPECT_FALSE(p.tensor("variance", 2));
  EXPECT_EQ(s.assumed(), (std::vector<std::string>{"x"}));
}

// A setting the class only ever sets to a number (`self.p = p` from `p=0.5`) is no tensor, and
// neither is a local computed from it; one the class also sets to a tensor may be assumed.
TEST(Speculation, ALocalComputedFromANumberSettingIsNotAssumed) {
  const std::string body =
      "    def forward(self, x):\n"
      "        keep = 1 - self.p\n"
      "        if x.sum() > 0:\n"
      "            x = x / keep\n"
      "        return x\n";
  Program setting("import torch\nclass M:\n    def __init__(self, p=0.5):\n        self.p = p\n" +
                  body);
  {
    Speculating s(setting, "if x.sum() > 0");
    EXPECT_FALSE(setting.tensor("keep", 1));
  }
  Program mixed(
      "import torch\nclass M:\n    def __init__(self, p=0.5):\n        self.p = p\n"
      "    def set(self, t):\n        self.p = torch.tensor(t)\n" +
      body);
  Speculating s(mixed, "if x.sum() > 0");
  EXPECT_TRUE(mixed.tensor("keep", 1));
}

}  // namespace
}  // namespace graphmend::sema
