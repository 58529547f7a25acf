// Liveness and reaching definitions.
#include <gtest/gtest.h>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

TEST(SemaFlow, LivenessStraightLineAndBranches) {
  Program p(
      "def f(a, b, c):\n"
      "    x = a + b\n"
      "    y = c\n"
      "    if a:\n"
      "        x = 1\n"
      "        z = 2\n"
      "    else:\n"
      "        x = 3\n"
      "        z = 4\n"
      "    return x + y\n");
  EXPECT_EQ(p.live("x = a + b"), "a,c");
  EXPECT_EQ(p.live("y = c"), "a,y");
  EXPECT_EQ(p.live("if a:"), "x,y");
  EXPECT_EQ(p.live("x = 1"), "x,y");
  EXPECT_EQ(p.live("z = 2"), "x,y");
  EXPECT_EQ(p.live("return x + y"), "");
}

TEST(SemaFlow, LivenessLoopsAreSupersets) {
  Program p(
      "def f(xs):\n"
      "    total = 0\n"
      "    for v in xs:\n"
      "        t = v * 2\n"
      "        total = total + t\n"
      "    while total:\n"
      "        if total > 3:\n"
      "            break\n"
      "        total = total - 1\n"
      "    return total\n");
  EXPECT_EQ(p.live("t = v * 2"), "total,t");
  EXPECT_EQ(p.live("total = total + t"), "total");
  EXPECT_EQ(p.live("total = 0"), "xs,total");
  EXPECT_EQ(p.live("total = total - 1"), "total");
}

TEST(SemaFlow, LivenessTryAndClosures) {
  Program p(
      "def f(a):\n"
      "    x = 1\n"
      "    try:\n"
      "        x = a()\n"
      "        y = 2\n"
      "    except ValueError as e:\n"
      "        return x\n"
      "    finally:\n"
      "        pass\n"
      "    k = 5\n"
      "    def g():\n"
      "        return k\n"
      "    k = 6\n"
      "    return g\n");
  // x is read by the handler if a() raises: live before the try's first statement
  EXPECT_EQ(p.live("x = 1"), "a,x");
  EXPECT_EQ(p.live("x = a()"), "x");  // the handler may still read x
  EXPECT_EQ(p.live("k = 6"), "k,g");  // k is captured by g
}

TEST(SemaFlow, ANestedFunctionsOwnVariableIsNotCaptured) {
  Program p(
      "def f(x):\n"
      "    u = x\n"
      "    def g(x):\n"
      "        u = x + 1\n"
      "        return u\n"
      "    v = x\n"
      "    def h():\n"
      "        nonlocal v\n"
      "        v = 2\n"
      "    u = g(x)\n"
      "    return u, h\n");
  EXPECT_EQ(p.live("u = x"), "x");      // g assigns its own u: the first u is dead
  EXPECT_EQ(p.live("v = x"), "x,g,v");  // h reads f's v (nonlocal): v stays live
}

TEST(SemaFlow, LivenessElifChainAndReturn) {
  Program p(
      "def f(a, b):\n"
      "    r = 0\n"
      "    if a > 1:\n"
      "        r = 1\n"
      "    elif a > 2:\n"
      "        r = 2\n"
      "    elif b:\n"
      "        return a\n"
      "    return r\n");
  EXPECT_EQ(p.live("r = 0"), "a,b,r");
  EXPECT_EQ(p.live("elif a > 2:"), "r");
  EXPECT_EQ(p.live("r = 1"), "r");
  EXPECT_EQ(p.live("return a"), "");
}

TEST(SemaFlow, DefinitelyBound) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, c):\n"
      "    if c:\n"
      "        y = x\n"
      "    if c:\n"
      "        z = 1\n"
      "    y = x * 2\n"
      "    if c:\n"
      "        pass\n");
  const Analysis& a = *p.analysis;
  EXPECT_FALSE(a.is_definitely_bound_before(*p.stmt("if c:", 1), "y"));
  EXPECT_TRUE(a.is_definitely_bound_before(*p.stmt("if c:", 2), "y"));
  EXPECT_TRUE(a.is_tensor_before(*p.stmt("if c:", 2), "y"));
  EXPECT_TRUE(a.is_definitely_bound_before(*p.stmt("if c:", 0), "x"));
  EXPECT_TRUE(a.is_tensor_before(*p.stmt("if c:", 0), "x"));
  EXPECT_FALSE(a.is_tensor_before(*p.stmt("if c:", 2), "c"));
  EXPECT_FALSE(a.is_definitely_bound_before(*p.stmt("if c:", 2), "z"));
}

}  // namespace
}  // namespace graphmend::sema
