// Statement-list queries: assigned names and state mutation.
#include <gtest/gtest.h>

#include "sema_program.h"

namespace graphmend::sema {
namespace {

using test_support::Program;

TEST(SemaBody, AssignedNamesAndMutation) {
  Program p(
      "import torch\n"
      "def f(x: torch.Tensor, cache):\n"
      "    global G\n"
      "    if x.sum() > 0:\n"
      "        a = 1\n"
      "        b, (c, *d) = x\n"
      "        a += 1\n"
      "        for i in range(3):\n"
      "            pass\n"
      "        with open('f') as fh:\n"
      "            pass\n"
      "        import os.path\n"
      "        G = 1\n"
      "        def g(): pass\n"
      "        if (w := 1):\n"
      "            pass\n"
      "    if x.sum() > 1:\n"
      "        self_state = x\n"
      "    if x.sum() > 2:\n"
      "        cache.x = 1\n"
      "    if x.sum() > 3:\n"
      "        cache[0] = 1\n"
      "    if x.sum() > 4:\n"
      "        x.add_(1)\n"
      "    if x.sum() > 5:\n"
      "        cache.append(x)\n"
      "    if x.sum() > 6:\n"
      "        y = x.add(1)\n");
  const Analysis& a = *p.analysis;
  auto body = [&](const char* prefix) { return ast::as<ast::If>(p.stmt(prefix))->body; };
  std::vector<std::string_view> want{"a", "b", "c", "d", "i", "fh", "os", "g", "w"};
  EXPECT_EQ(a.assigned_names(body("if x.sum() > 0")), want);
  EXPECT_FALSE(a.mutates_state(body("if x.sum() > 1")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 2")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 3")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 4")));
  EXPECT_TRUE(a.mutates_state(body("if x.sum() > 5")));
  EXPECT_FALSE(a.mutates_state(body("if x.sum() > 6")));
}

}  // namespace
}  // namespace graphmend::sema
