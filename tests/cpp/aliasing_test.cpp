// sema/aliasing.h and sema/binding.h: whether a value may share a tensor with another name,
// whether a function changes one in place, and what is bound where a statement stands.
#include "sema/aliasing.h"

#include <gtest/gtest.h>

#include <vector>

#include "ast/names.h"
#include "ast/path.h"
#include "sema/binding.h"
#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

TEST(Aliasing, NamesViewsAndMethodsMayAliasNewValuesDoNot) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, y: torch.Tensor):\n"
      "    x\n"
      "    x[0]\n"
      "    x.view(-1)\n"
      "    torch.narrow(x, 0, 0, 1)\n"
      "    torch.transpose(x, 0, 1)\n"
      "    (x, y + 1)\n"
      "    +x\n"
      "    x + y\n"
      "    -x\n"
      "    torch.zeros(3)\n"
      "    len(x)\n"
      "    (x + 1, y * 2)\n");
  for (const char* alias : {"x", "x[0]", "x.view(-1)", "torch.narrow(x, 0, 0, 1)",
                            "torch.transpose(x, 0, 1)", "(x, y + 1)", "+x"})
    EXPECT_TRUE(may_alias(*p.analysis, *p.find(alias))) << alias;
  for (const char* fresh : {"x + y", "-x", "torch.zeros(3)", "len(x)", "(x + 1, y * 2)"})
    EXPECT_FALSE(may_alias(*p.analysis, *p.find(fresh))) << fresh;
}

TEST(Aliasing, ChangesInPlaceThroughANameOrAnAliasOfOne) {
  Program p(
      "import torch\n"
      "def f(x, y):\n"
      "    v = y.view(-1)\n"
      "    v.add_(1)\n"
      "    return x\n"
      "def g(x, y):\n"
      "    out = (y,)\n"
      "    out[0][0] = 1\n"
      "    return x\n"
      "def h(x, y):\n"
      "    z = y + 1\n"
      "    z.add_(1)\n"
      "    def inner():\n"
      "        y.add_(1)\n"
      "    return x\n");
  auto changes = [&](const char* function, const char* name) {
    std::string ret = std::string("return x");
    int nth = function[0] - 'f';
    return changes_tensors_in_place(*p.analysis, *p.module, *p.stmt(ret, nth), {name});
  };
  EXPECT_TRUE(changes("f", "y"));   // through the view `v`
  EXPECT_TRUE(changes("g", "y"));   // through an element of the tuple `out`
  EXPECT_FALSE(changes("h", "y"));  // `z` is a new tensor; `inner` is its own function
  EXPECT_FALSE(changes("f", "x"));
}

TEST(Aliasing, SoleHolderIsALocalBoundOnceToANewTensorAndOnlyReadAsAnOperand) {
  Program p(
      "import torch\n"
      "def f(self, x):\n"
      "    mean = x.mean(0)\n"   // new, read as an operand: a sole holder
      "    view = x.view(-1)\n"  // a view of the input
      "    twice = x * 2\n"      // passed on whole by a second store
      "    later = x + 1\n"      // read after the if
      "    shared = x - 1\n"     // read by a nested scope
      "    rebound = x * 3\n"
      "    rebound = rebound + 1\n"  // bound twice
      "    if (mean - x).sum() > 0:\n"
      "        self.a = mean\n"
      "        self.b = view\n"
      "        self.c = twice\n"
      "        self.d = twice\n"
      "        self.e = later\n"
      "        self.f = shared\n"
      "        self.g = rebound\n"
      "        self.h = x\n"
      "    g = lambda: shared\n"
      "    return later\n");
  const ast::stmt& branch = *p.stmt("if (mean - x)");
  auto sole = [&](const char* store) {
    const auto* assign = ast::as<ast::Assign>(p.stmt(store));
    return is_sole_holder(*p.analysis, *p.module, branch, *ast::as<ast::Name>(assign->value));
  };
  EXPECT_TRUE(sole("self.a = mean"));
  for (const char* store : {"self.b = view", "self.c = twice", "self.e = later", "self.f = shared",
                            "self.g = rebound", "self.h = x"})
    EXPECT_FALSE(sole(store)) << store;
}

TEST(Aliasing, FreshInPlaceTargetIsMadeByTheFunctionAndHeldByItAlone) {
  Program p(
      "import torch\n"
      "def f(x, idx, given):\n"
      "    out = torch.zeros(4, 3)\n"  // new, changed in the if: fresh
      "    scaled = x * 2\n"
      "    viewed = torch.zeros(4)\n"
      "    first = viewed[0]\n"  // a view of it taken before the if
      "    passed = x + 1\n"
      "    keep = [passed]\n"  // held by a list too
      "    shared = x - 1\n"
      "    g = lambda: shared\n"  // read by a nested scope
      "    if (x > 0).all():\n"
      "        out.index_add_(0, idx, x)\n"
      "        scaled.mul_(2)\n"
      "        viewed.add_(1)\n"
      "        passed.add_(1)\n"
      "        given.add_(1)\n"
      "        shared.add_(1)\n"
      "    for step in range(2):\n"
      "        looped = x * step\n"
      "        if (x > step).all():\n"
      "            looped.add_(1)\n"
      "    rows = []\n"
      "    kept = x * 4\n"
      "    for step in range(2):\n"
      "        if (x > step).any():\n"
      "            kept.add_(1)\n"
      "        rows.append(kept[0])\n"  // a view the next run's change would reach
      "    return out, scaled, first, keep, looped, rows\n");
  const ast::stmt& branch = *p.stmt("if (x > 0).all()");
  const ast::stmt& in_loop = *p.stmt("if (x > step).all()");
  const ast::stmt& viewed_in_loop = *p.stmt("if (x > step).any()");
  EXPECT_TRUE(is_fresh_in_place_target(*p.analysis, *p.module, branch, "out"));
  EXPECT_TRUE(is_fresh_in_place_target(*p.analysis, *p.module, branch, "scaled"));
  for (const char* name : {"viewed", "passed", "given", "shared", "unbound"})
    EXPECT_FALSE(is_fresh_in_place_target(*p.analysis, *p.module, branch, name)) << name;
  EXPECT_TRUE(is_fresh_in_place_target(*p.analysis, *p.module, in_loop, "looped"));
  EXPECT_FALSE(is_fresh_in_place_target(*p.analysis, *p.module, viewed_in_loop, "kept"));
  EXPECT_EQ(in_place_receiver(*p.stmt("out.index_add_"))->id, "out");
  EXPECT_EQ(in_place_receiver(*p.stmt("return out")), nullptr);
}

TEST(Binding, ParametersAndAssignmentsBeforeOnThePath) {
  Program p(
      "def f(a, *args, k=1, **kw):\n"
      "    b = 1\n"
      "    if a:\n"
      "        c = 2\n"
      "    d, e = 3, 4\n"
      "    if b:\n"
      "        pass\n"
      "    for i in range(3):\n"
      "        g = 5\n");
  std::vector<ast::BlockRef> path;
  ASSERT_TRUE(ast::find_path(p.module->body, nullptr, p.stmt("pass"), path));
  ASSERT_EQ(path.size(), 3u);  // the def, the if, the pass
  for (const char* bound : {"a", "args", "k", "kw", "b", "d", "e"})
    EXPECT_TRUE(definitely_bound(path, bound)) << bound;
  for (const char* unbound : {"c", "g", "i", "z"})
    EXPECT_FALSE(definitely_bound(path, unbound)) << unbound;
  std::set<std::string_view> locals = function_locals(*p.analysis, path);
  for (const char* local : {"a", "args", "k", "kw", "b", "c", "d", "e", "g", "i"})
    EXPECT_EQ(locals.count(local), 1u) << local;
}

TEST(AstNames, RootsOfAccessChains) {
  Program p(
      "self.lin.weight\n"
      "y[..., -1].data\n"
      "f(x).y\n");
  EXPECT_EQ(ast::attribute_root(*p.find("self.lin.weight")), "self");
  EXPECT_EQ(ast::attribute_root(*p.find("y[..., -1].data")), "");
  EXPECT_EQ(ast::access_root(p.find("y[..., -1].data")), "y");
  EXPECT_EQ(ast::access_root(p.find("f(x).y")), "f");
}

}  // namespace
}  // namespace graphmend::sema
