// The skeleton of mended text (rewrite/skeleton.h).
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lex/lexer.h"
#include "parse/parser.h"
#include "rewrite/edits.h"
#include "rewrite/rewrite.h"

namespace graphmend {
namespace {

const char* kSkeletonModel =
    "import torch\n"
    "\n"
    "class M(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.weight = torch.nn.Parameter(torch.ones(3))\n"
    "\n"
    "    @torch.no_grad()\n"
    "    def untouched(self, x: torch.Tensor):\n"
    "        y = x * 2 + 1\n"
    "        return y.sum(dim=0, keepdim=True) + torch.ones_like(y[0:1])\n"
    "\n"
    "    def forward(self, x: torch.Tensor):\n"
    "        print(\"x\", x)\n"
    "        return x\n"
    "\n"
    "def helper(x: torch.Tensor):\n"
    "    def inner(y):\n"
    "        return y + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13\n"
    "    return inner(x)\n"
    "\n"
    "def setter():\n"
    "    global STATE\n"
    "    STATE = 'something long enough to be worth a stub, really quite long'\n"
    "\n"
    "def short(x):\n"
    "    return x\n";

MendResult mend_with_skeleton(const std::string& text) {
  MendOptions options;
  options.trace_all = true;
  options.skeleton = true;
  return mend_source(text, "m.py", options);
}

TEST(Skeleton, StubsUntouchedFunctionsOnTheirOwnLinesAndColumns) {
  MendResult result = mend_with_skeleton(kSkeletonModel);
  ASSERT_TRUE(result.changed);
  // __init__ (keeps `__class__` for super()), untouched (from its decorator), helper.
  std::vector<uint32_t> stubbed = {4, 8, 17};
  EXPECT_EQ(result.stubbed_lines, stubbed);
  EXPECT_EQ(result.skeleton,
            "import graphmend.runtime as __graphmend_rt__; import torch\n"
            "\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        (__class__\n"
            "                                                      )\n"
            "\n"
            "    @torch.no_grad()\n"
            "    def untouched(self, x: torch.Tensor):\n"
            "        (\n"
            "                                                                  )\n"
            "\n"
            "    def forward(self, x: torch.Tensor):\n"
            "        __graphmend_rt__.defer(('m.py', 14, 'forward'), print, \"x\", x)\n"
            "        return x\n"
            "\n"
            "def helper(x: torch.Tensor):\n"
            "    (\n"
            "\n"
            "                  )\n"
            "\n"
            "def setter():\n"
            "    global STATE\n"
            "    STATE = 'something long enough to be worth a stub, really quite long'\n"
            "\n"
            "def short(x):\n"
            "    return x\n");
}

TEST(Skeleton, StubsUntouchedClassesWhole) {
  MendResult result = mend_with_skeleton(
      "import torch\n"
      "@torch.no_grad()\n"
      "class Untouched(torch.nn.Module):\n"
      "    \"\"\"A docstring.\"\"\"\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "    class Inner:\n"
      "        size = 3\n"
      "class Globals:\n"
      "    def set(self):\n"
      "        global STATE\n"
      "        STATE = 'something long enough to be worth a stub, really'\n"
      "    def get(self):\n"
      "        return STATE + 'something long enough to be worth a stub, really'\n"
      "def f(x: torch.Tensor):\n"
      "    print(x)\n");
  ASSERT_TRUE(result.changed);
  // The whole of Untouched (from its decorator; its body's `__class__` cell stays inside the
  // body's code, so the stub needs none); Globals' `get`, not the class, nor its `set`.
  std::vector<uint32_t> stubbed = {2, 13};
  EXPECT_EQ(result.stubbed_lines, stubbed);
  EXPECT_EQ(result.skeleton.substr(0, result.skeleton.find("def f")),
            "import graphmend.runtime as __graphmend_rt__; import torch\n"
            "@torch.no_grad()\n"
            "class Untouched(torch.nn.Module):\n"
            "    (\n"
            "\n"
            "\n"
            "\n"
            "               )\n"
            "class Globals:\n"
            "    def set(self):\n"
            "        global STATE\n"
            "        STATE = 'something long enough to be worth a stub, really'\n"
            "    def get(self):\n"
            "        (                                                               )\n");
}

TEST(Skeleton, NotAskedForOrNothingChangedGivesNone) {
  MendOptions options;
  options.trace_all = true;
  EXPECT_TRUE(mend_source(kSkeletonModel, "m.py", options).skeleton.empty());
  MendResult unchanged =
      mend_with_skeleton("def f(x):\n    return x + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10\n");
  EXPECT_FALSE(unchanged.changed);
  EXPECT_TRUE(unchanged.skeleton.empty());
  EXPECT_TRUE(unchanged.stubbed_lines.empty());
}

TEST(Skeleton, KeepsCrLfLineBreaksAndOneLineBodies) {
  MendResult result = mend_with_skeleton(
      "import torch\r\n"
      "def f(x): return x + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14\r\n"
      "def g(x: torch.Tensor):\r\n"
      "    y = x + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14\r\n"
      "    return y\r\n"
      "def h(x: torch.Tensor):\r\n"
      "    print(x)\r\n");
  ASSERT_TRUE(result.changed);
  std::vector<uint32_t> stubbed = {2, 3};
  EXPECT_EQ(result.stubbed_lines, stubbed);
  EXPECT_EQ(result.skeleton.substr(0, result.skeleton.find("def h")),
            "import graphmend.runtime as __graphmend_rt__; import torch\r\n"
            "def f(x): (                                                                   )\r\n"
            "def g(x: torch.Tensor):\r\n"
            "    (\r\n"
            "           )\r\n");
}

}  // namespace
}  // namespace graphmend
