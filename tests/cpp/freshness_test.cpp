// Analysis::why_not_fresh: tensors the running call created itself, and why others are not.
#include <gtest/gtest.h>

#include <string>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

// why_not_fresh of the `nth` expression whose text is `e`.
std::string why(const Program& p, std::string_view e, int nth = 0) {
  return p.analysis->why_not_fresh(*p.find(e, nth));
}

TEST(Freshness, AllocatingOpsArithmeticAndViewsOfThem) {
  Program p(
      "import torch\n"
      "def f(x, t):\n"
      "    a = x.log_softmax(-1).gather(-1, t)\n"
      "    b = torch.cat([x, x]) / 2\n"
      "    c = a.squeeze(-1)[1:]\n"
      "    d, e = x.max(-1)\n"
      "    g = c if t.any() else b\n"
      "    return a, b, c, d, g\n");
  for (const char* name : {"a", "b", "c", "d", "g"}) EXPECT_EQ(why(p, name, 1), "") << name;
}

TEST(Freshness, ReturnsOfHelpersAndNestedParameters) {
  Program p(
      "import torch\n"
      "def helper(x):\n"
      "    y = torch.cosine_similarity(x, x, dim=-1).type_as(x)\n"
      "    return y / 0.1\n"
      "def f(x):\n"
      "    def inner(ll):\n"
      "        return ll\n"
      "    logits = helper(x)\n"
      "    return inner(x.clone()), logits\n");
  EXPECT_EQ(why(p, "logits", 1), "");
  EXPECT_EQ(why(p, "ll"), "");
}

TEST(Freshness, Declines) {
  Program p(
      "import torch\n"
      "G = torch.zeros(3)\n"
      "def top(x):\n"
      "    return x\n"
      "def f(self, x, t):\n"
      "    a = self.buf\n"
      "    b = x.expand(2, 3)\n"
      "    c = x.to(torch.float32)\n"
      "    d = torch.add(x, 1, out=x)\n"
      "    e = torch.einsum('ij->ji', x * 2)\n"
      "    def inner(ll):\n"
      "        return ll\n"
      "    inner(x)\n"
      "    return a, b, c, d, e, G\n"
      "def g(x):\n"
      "    def inner(ll):\n"
      "        return ll\n"
      "    fs = [inner]\n"
      "    return inner(x * 2)\n"
      "def h(x):\n"
      "    y = x * 2\n"
      "    with torch.no_grad():\n"
      "        pass\n"
      "    return y\n");
  EXPECT_NE(why(p, "x", 0).find("not nested"), std::string::npos) << why(p, "x", 0);
  EXPECT_NE(why(p, "a", 1).find("self.buf"), std::string::npos) << why(p, "a", 1);
  EXPECT_NE(why(p, "b", 1).find("x.expand"), std::string::npos) << why(p, "b", 1);
  EXPECT_NE(why(p, "c", 1).find("not nested"), std::string::npos) << why(p, "c", 1);
  EXPECT_NE(why(p, "d", 1).find("out="), std::string::npos) << why(p, "d", 1);
  EXPECT_NE(why(p, "e", 1).find("einsum"), std::string::npos) << why(p, "e", 1);
  EXPECT_NE(why(p, "G", 1).find("not a local"), std::string::npos) << why(p, "G", 1);
  EXPECT_NE(why(p, "ll", 0).find("not nested"), std::string::npos) << why(p, "ll", 0);
  EXPECT_NE(why(p, "ll", 1).find("direct calls"), std::string::npos) << why(p, "ll", 1);
  EXPECT_NE(why(p, "y", 1).find("changes grad mode"), std::string::npos) << why(p, "y", 1);
  Program numbers(
      "def f(x):\n"
      "    n = 3 * 2\n"
      "    y = x * 2\n"
      "    return n, y\n");
  EXPECT_NE(why(numbers, "n", 1).find("known not to be tensors"), std::string::npos);
  EXPECT_EQ(why(numbers, "y", 1), "");  // x unknown: the run-time check asks for a tensor
}

}  // namespace
}  // namespace graphmend::sema
