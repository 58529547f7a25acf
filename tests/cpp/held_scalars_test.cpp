// Analysis::held_scalar: Python scalars read from tensors that mended code may hold as
// tensors (only compared with ints, tested with isinstance, read in guards' bodies), and
// why others may not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

// held_scalar of the first statement starting with `assignment`.
HeldScalar held(const Program& p, std::string_view assignment) {
  return p.analysis->held_scalar(*p.stmt(assignment));
}

TEST(HeldScalars, ComparedWithIntsTestedAndReadInGuards) {
  Program p(
      "import torch\n"
      "def f(mask, x, rows):\n"
      "    n = mask.sum().item()\n"
      "    assert isinstance(n, int)\n"
      "    width = x.shape[-1]\n"
      "    if x.shape[0] != n or n > len(rows) or 2 * width <= n:\n"
      "        detail = str(n)\n"
      "        raise ValueError(f'{n} placeholders {detail}')\n"
      "    if n == 0:\n"
      "        x = x * 2\n"
      "    return x\n");
  HeldScalar h = held(p, "n = mask");
  EXPECT_FALSE(h.problem);
  EXPECT_EQ(h.read, "item");
  EXPECT_EQ(p.text(h.tensor), "mask.sum()");
  EXPECT_EQ(h.tests.size(), 4u);
  EXPECT_EQ(h.type_tests.size(), 1u);
  EXPECT_EQ(h.guard_reads.size(), 2u);
}

TEST(HeldScalars, IntAndFloatReads) {
  Program p(
      "import torch\n"
      "def f(x):\n"
      "    a = int(x.sum())\n"
      "    b = float(x.max())\n"
      "    c = bool(x.any())\n"
      "    if a > 3 or b < x.size(0) or c == 1:\n"
      "        raise ValueError('bad')\n"
      "    return x\n");
  EXPECT_EQ(held(p, "a = ").read, "int");
  EXPECT_EQ(held(p, "b = ").read, "float");
  EXPECT_FALSE(held(p, "b = ").problem);
  EXPECT_EQ(held(p, "c = ").read, "bool");
}

TEST(HeldScalars, TheTruthOfAGuardsTest) {
  Program p(
      "import torch\n"
      "def f(x):\n"
      "    n = torch.isnan(x).sum().item()\n"
      "    if n:\n"
      "        raise ValueError(f'{n} NaNs')\n"
      "    ok = int(x.all())\n"
      "    if not ok:\n"
      "        raise ValueError('zero')\n"
      "    m = x.sum().item()\n"
      "    if m:\n"
      "        raise ValueError('sum')\n"
      "    else:\n"
      "        x = x * 2\n"
      "    k = x.sum().item()\n"
      "    if k:\n"
      "        x = x * 2\n"
      "    return x\n");
  EXPECT_FALSE(held(p, "n = ").problem);
  EXPECT_EQ(held(p, "n = ").guard_reads.size(), 1u);
  EXPECT_FALSE(held(p, "ok = ").problem);
  // a guard with an else, or a branch that does not raise, is not a truth test
  EXPECT_TRUE(held(p, "m = ").problem);
  EXPECT_TRUE(held(p, "k = ").problem);
}

TEST(HeldScalars, EachConditionDeclines) {
  struct Case {
    const char* body;
    const char* detail;
  };
  const Case cases[] = {
      {"    n = x.tolist()\n    if n > 0:\n        raise ValueError()\n",
       "the scalar is read otherwise than `.item()`, `int()`, `float()` or `bool()`"},
      {"    n = x.sum().item()\n    n = n + 1\n    if n > 0:\n        raise ValueError()\n",
       "`n` is assigned elsewhere too"},
      {"    n = x.sum().item()\n    y = x / n\n    if n > 0:\n        raise ValueError()\n",
       "`n` is used otherwise than compared with an int, tested with isinstance or read in "
       "the body of a guard"},
      {"    n = x.sum().item()\n    if n > 0.5:\n        raise ValueError()\n",
       "`n` is used otherwise than compared with an int, tested with isinstance or read in "
       "the body of a guard"},
      {"    n = x.sum().item()\n    if n > 10000000000000000:\n        raise ValueError()\n",
       "`n` is used otherwise than compared with an int, tested with isinstance or read in "
       "the body of a guard"},
      {"    n = x.sum().item()\n    if 0 < n < 5:\n        raise ValueError()\n",
       "`n` is used otherwise than compared with an int, tested with isinstance or read in "
       "the body of a guard"},
      {"    n = x.sum().item()\n    g = lambda: n\n    if n > 0:\n        raise ValueError()\n",
       "`n` is global, nonlocal or read by a nested function"},
      {"    n = x.sum().item()\n    del n\n",
       "`n` is used otherwise than compared with an int, tested with isinstance or read in "
       "the body of a guard"},
      {"    n = x.sum().item()\n    assert isinstance(n, int)\n",
       "`n` is never compared with an int"},
      {"    global n\n    n = x.sum().item()\n    if n > 0:\n        raise ValueError()\n",
       "the scalar is not a local of a function"},
  };
  for (const Case& c : cases) {
    Program p(std::string("import torch\ndef f(x):\n") + c.body + "    return x\n");
    std::optional<reasons::Problem> problem = held(p, "n = ").problem;
    ASSERT_TRUE(problem) << c.body;
    EXPECT_EQ(problem->detail, c.detail) << c.body;
  }
}

TEST(HeldScalars, SpeculationAssumesAHeldScalarATensor) {
  Program p(
      "import torch\n"
      "def f(mask, x):\n"
      "    n = mask.sum().item()\n"
      "    if x.shape[0] != n:\n"
      "        raise ValueError('rows')\n"
      "    m = mask.sum().item()\n"
      "    y = m + 1\n"
      "    if y > 2:\n"
      "        raise ValueError('count')\n"
      "    return x\n");
  Speculation speculation;
  speculation.site = p.stmt("if x.shape[0] != n");
  p.analysis->speculate(&speculation);
  EXPECT_TRUE(p.tensor("x.shape[0] != n"));
  std::vector<std::string_view> assumed;
  for (const ast::expr* value : speculation.assumed) assumed.push_back(p.text(value));
  EXPECT_EQ(assumed, (std::vector<std::string_view>{"x", "n"}));
  Speculation other;
  other.site = p.stmt("if y > 2");
  p.analysis->speculate(&other);
  EXPECT_FALSE(p.tensor("y > 2"));  // `m` is used in arithmetic: never held
  p.analysis->speculate(nullptr);
}

}  // namespace
}  // namespace graphmend::sema
