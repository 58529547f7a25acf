// The mend pipeline with the real analysis (rewrite/mend.h).
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

MendResult mend(const std::string& text, MendOptions options = {}) {
  return mend_source(text, "m.py", options);
}

const char* kModel =
    "\"\"\"Doc.\"\"\"\n"
    "from __future__ import annotations\n"
    "import torch\n"
    "\n"
    "@torch.compile\n"
    "def f(x: torch.Tensor):\n"
    "    print(\"x\", x)  # note\n"
    "    if x.sum() < 0:\n"
    "        raise ValueError(\"negative\")\n"
    "    return x\n";

TEST(Mend, InsertsTheRuntimeImportAndMapsLines) {
  MendResult result = mend(kModel);
  ASSERT_FALSE(result.error.has_value());
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.source,
            "\"\"\"Doc.\"\"\"\n"
            "from __future__ import annotations\n"
            "import graphmend.runtime as __graphmend_rt__; import torch\n"
            "\n"
            "@torch.compile\n"
            "def f(x: torch.Tensor):\n"
            "    __graphmend_rt__.defer(('m.py', 7, 'f'), print, \"x\", x)  # note\n"
            "    __graphmend_rt__.guard(x.sum() < 0, ValueError, \"negative\")\n"
            "\n"
            "    return x\n");
  // The import shares the line of `import torch`, and the guard's one line is padded to the
  // two it replaced: every line keeps its number.
  std::vector<uint32_t> expected = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(result.line_map, expected);
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_EQ(result.diagnostics[0].code, "GM102");
  EXPECT_TRUE(result.diagnostics[0].fixed);
  EXPECT_EQ(result.diagnostics[0].rewrite, "defer");
  EXPECT_EQ(result.diagnostics[0].line, 7u);
  EXPECT_EQ(result.diagnostics[1].code, "GM105");
  EXPECT_EQ(result.diagnostics[1].rewrite, "trap");
  // Everything outside the edits is byte-identical.
  for (const TextEdit& edit : result.edits) EXPECT_LE(edit.begin, edit.end);
}

TEST(Mend, MendingTheOutputChangesNothing) {
  MendResult first = mend(kModel);
  MendResult second = mend(first.source);
  EXPECT_FALSE(second.changed);
  EXPECT_EQ(second.source, first.source);
  for (const MendDiagnostic& d : first.diagnostics) EXPECT_NE(d.code.substr(0, 3), "GM9");
}

// Mended code mended again: the sites in the ifs GraphMend wrote (their tests, and the
// originals kept in their else for when the run-time check fails) are its own fallbacks,
// whichever rewrite wrote them; sites outside them are the user's.
TEST(Mend, SitesInMendedFallbacksAreReportedAsSuch) {
  const char* model =
      "import torch\n"
      "\n"
      "@torch.compile\n"
      "def f(x: torch.Tensor, y: torch.Tensor):\n"
      "    if x.sum() > 0:\n"
      "        x = x * 2\n"
      "    else:\n"
      "        x = x - 1\n"
      "    if x.max().item() > 3:\n"
      "        x = x + 1\n"
      "    if (y < 0).any():\n"
      "        raise ValueError(\"negative\")\n"
      "    while x.sum() > 10:\n"
      "        x = x / 2\n"
      "    return x\n";
  MendResult first = mend(model);
  ASSERT_TRUE(first.changed);
  MendResult second = mend(first.source);
  EXPECT_FALSE(second.changed);
  size_t fallbacks = 0;
  for (const MendDiagnostic& d : second.diagnostics) {
    EXPECT_FALSE(d.fixed) << d.message;
    bool loop = d.message.find("loop condition") != std::string::npos;
    EXPECT_EQ(d.reason_id, loop ? "while-loop" : "predicated-fallback") << d.message;
    if (!loop) {
      ++fallbacks;
      EXPECT_NE(d.reason.find("GraphMend's own code"), std::string::npos) << d.reason;
    }
  }
  EXPECT_GE(fallbacks, 2u);
}

// torch 2.13's Dynamo drops attribute stores on an optimizer in compiled code: a site in an
// optimizer's method that stores state on it keeps its break, which keeps the store eager.
// A plain class, or an optimizer method that stores nothing on self, is mended as usual.
TEST(Mend, OptimizerMethodsThatStoreStateKeepTheirBreaks) {
  const std::string body =
      "    @torch.no_grad()\n"
      "    def step(self):\n"
      "        if not self.warned:\n"
      "            warnings.warn('deprecated', FutureWarning)\n"
      "            self.warned = True\n"
      "        return torch.zeros(1)\n"
      "    def other(self, x):\n"
      "        print('other', x.shape)\n"
      "        return x\n";
  const std::string head = "import warnings\nimport torch\nfrom torch import optim\n";
  MendOptions every_function;
  every_function.trace_all = true;
  auto reasons = [](const MendResult& r) {
    std::vector<std::string> out;
    for (const MendDiagnostic& d : r.diagnostics) out.push_back(d.fixed ? "fixed" : d.reason_id);
    return out;
  };
  for (const char* base : {"torch.optim.Optimizer", "optim.AdamW", "Base"}) {
    std::string source =
        head + "class Base(torch.optim.SGD):\n    pass\n" + "class Opt(" + base + "):\n" + body;
    MendResult result = mend(source, every_function);
    EXPECT_EQ(reasons(result), (std::vector<std::string>{"optimizer-state", "fixed"})) << base;
  }
  MendResult plain = mend(head + "class Plain:\n" + body, every_function);
  EXPECT_EQ(reasons(plain), (std::vector<std::string>{"fixed", "fixed"}));
  MendResult scheduler =
      mend(head + "class Sched(optim.lr_scheduler.LRScheduler):\n" + body, every_function);
  EXPECT_EQ(reasons(scheduler), (std::vector<std::string>{"fixed", "fixed"}));
}

// An assert on the truth of a scalar read: the read is held too (runtime.item_later), so it
// does not stay a break ahead of the in-graph assert.
TEST(Mend, AssertsOnAScalarReadHoldTheRead) {
  MendResult result = mend(
      "import torch\n"
      "@torch.compile\n"
      "def f(x: torch.Tensor):\n"
      "    assert (x > 0).all().item(), \"positive\"\n"
      "    assert bool(x.any())\n"
      "    return x\n");
  EXPECT_NE(result.source.find("    assert __graphmend_rt__.check_assert(__graphmend_rt__.item_"
                               "later((x > 0).all()), \"positive\"), \"positive\"\n"),
            std::string::npos)
      << result.source;
  EXPECT_NE(result.source.find("    assert __graphmend_rt__.check_assert(__graphmend_rt__.item_"
                               "later(x.any(), \"bool\"))\n"),
            std::string::npos)
      << result.source;
}

// `torch.arange(...).tolist()` read as the range: only with a step that is a nonzero int
// literal, whatever its radix; a zero step, written any way, keeps the original read.
TEST(Mend, RangeListsTakeOnlyNonzeroLiteralSteps) {
  for (const char* step : {"2", "0x10", "0b1", "1_0"}) {
    MendResult result = mend(std::string("import torch\n@torch.compile\ndef f(x: torch.Tensor):\n"
                                         "    return torch.arange(0, 4, ") +
                             step + ").tolist()\n");
    EXPECT_NE(result.source.find("list(range(0, 4, " + std::string(step) + "))"), std::string::npos)
        << step << "\n"
        << result.source;
  }
  for (const char* step : {"0", "0x0", "0o0", "0b0", "00", "n"}) {
    MendResult result = mend(std::string("import torch\n@torch.compile\ndef f(x: torch.Tensor, "
                                         "n: int):\n    return torch.arange(0, 4, ") +
                             step + ").tolist()\n");
    EXPECT_EQ(result.source.find("list(range("), std::string::npos) << step << "\n"
                                                                    << result.source;
  }
}

// The arange is recognised by what the name resolves to, however torch is imported.
TEST(Mend, RangeListsFollowTheImportOfArange) {
  MendResult result = mend(
      "import torch\nimport torch as th\nfrom torch import arange\n@torch.compile\n"
      "def f(x: torch.Tensor):\n    return arange(1, 3).tolist(), th.arange(2).tolist()\n");
  EXPECT_NE(result.source.find("list(range(1, 3))"), std::string::npos) << result.source;
  EXPECT_NE(result.source.find("list(range(2))"), std::string::npos) << result.source;
}

// A routed expert loop whose header iterates the experts hit inline: the header becomes
// experts_hit over the submodule the rows go through; a loop whose rows are reduced over the
// routed tokens keeps every call as written.
TEST(Mend, RoutedLoopsIterateTheExpertsHitInline) {
  const std::string loop =
      "import torch\nclass M(torch.nn.Module):\n"
      "    def forward(self, x: torch.Tensor, mask: torch.Tensor):\n"
      "        out = torch.zeros_like(x)\n"
      "        for e in (mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist():\n"
      "            k, t = torch.where(mask[e])\n"
      "            rows = self.experts[e](x[t])\n";
  MendResult routed = mend(loop + "            out.index_add_(0, t, rows)\n        return out\n");
  EXPECT_NE(routed.source.find("for e in __graphmend_rt__.experts_hit(mask.sum(dim=(-1, -2)) > 0, "
                               "mask, self.experts):"),
            std::string::npos)
      << routed.source;
  EXPECT_NE(routed.source.find("__graphmend_rt__.routed_index_add_(out, 0, t, rows)"),
            std::string::npos)
      << routed.source;
  MendResult mixed =
      mend(loop + "            out.index_add_(0, t, rows - rows.mean(0))\n        return out\n");
  EXPECT_EQ(mixed.source.find("routed_"), std::string::npos) << mixed.source;
  EXPECT_EQ(mixed.source.find("experts_hit"), std::string::npos) << mixed.source;
}

// A store through a mask of selections by it is written densely, indented as the statement
// (tabs kept); the selections of another mask keep the store as written.
TEST(Mend, MaskedStoresOfElementwiseSelectionsAreWrittenDensely) {
  const std::string head =
      "import torch\nclass M(torch.nn.Module):\n"
      "\tdef forward(self, x: torch.Tensor, s: torch.Tensor, k: float):\n"
      "\t\tm = s > 0\n\t\tn = s > 1\n";
  MendResult dense = mend(head + "\t\tx[m] = (x[m] - 1) * k\n\t\treturn x\n");
  EXPECT_NE(dense.source.find("\t\tif __graphmend_rt__.masked_assign_ok(m, x, x, numbers=(k, )):\n"
                              "\t\t\t__graphmend_rt__.masked_assign_(x, m, (x - 1) * k)\n"
                              "\t\telse:\n\t\t\tx[m] = (x[m] - 1) * k\n"),
            std::string::npos)
      << dense.source;
  MendResult other = mend(head + "\t\tx[m] = x[n] * 2\n\t\treturn x\n");
  EXPECT_EQ(other.source.find("masked_assign"), std::string::npos) << other.source;
}

// Element-wise in-place updates of a tensor the function created run on a copy, kept under
// the condition; of an argument they keep their break.
TEST(Mend, InPlaceUpdatesOfFreshTensorsAreKeptUnderTheCondition) {
  const std::string head =
      "import torch\nclass M(torch.nn.Module):\n"
      "    def forward(self, x: torch.Tensor):\n"
      "        out = torch.zeros(4)\n";
  MendResult fresh =
      mend(head +
           "        if x.sum() > 0:\n            out.add_(x)\n            out.mul_(2)\n"
           "        return out\n");
  EXPECT_NE(
      fresh.source.find("        if __graphmend_rt__.update_where_ok(__gm_c0 := (x.sum() > 0), "
                        "(out, x,), (out, 2,)):\n"
                        "            out.copy_(torch.where(__gm_c0, out.clone().add_(x), out))\n"
                        "            out.copy_(torch.where(__gm_c0, out.clone().mul_(2), out))\n"
                        "        elif x.sum() > 0:\n"),
      std::string::npos)
      << fresh.source;
  MendResult argument =
      mend(head + "        if x.sum() > 0:\n            x.mul_(2)\n        return x\n");
  EXPECT_EQ(argument.source.find("update_where_ok"), std::string::npos) << argument.source;
}

// A logger held as an attribute is a logger where the class only ever sets it to one.
TEST(Mend, LoggersHeldAsAttributesAreDeferredWhereOnlyLoggersAreSet) {
  const std::string module =
      "import logging\nimport torch\nclass M(torch.nn.Module):\n"
      "    def __init__(self, quiet):\n"
      "        super().__init__()\n"
      "        self.log = logging.getLogger(__name__)\n";
  const std::string forward =
      "    def forward(self, x: torch.Tensor):\n"
      "        self.log.info('x %s', x)\n"
      "        return x\n";
  MendResult held = mend(module + forward);
  EXPECT_NE(held.source.find("__graphmend_rt__.defer("), std::string::npos) << held.source;
  MendResult mixed = mend(module + "        if quiet:\n            self.log = None\n" + forward);
  EXPECT_EQ(mixed.source.find("__graphmend_rt__.defer("), std::string::npos) << mixed.source;
}

TEST(Mend, DisabledRewritesAreReportedAndNothingChanges) {
  MendOptions options;
  options.rewrites =
      RewriteSet::all().with(RewriteKind::Defer, false).with(RewriteKind::Trap, false);
  MendResult result = mend(kModel, options);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(result.source, kModel);
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_FALSE(result.diagnostics[0].fixed);
  EXPECT_NE(result.diagnostics[0].message.find("the [defer] rewrite is disabled"),
            std::string::npos);
  EXPECT_NE(result.diagnostics[1].message.find("the [trap] rewrite is disabled"),
            std::string::npos);
}

TEST(Mend, SyntaxErrorReturnsTheInput) {
  MendResult result = mend("x = = 1\n");
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.error->code, "GM001");
  EXPECT_EQ(result.source, "x = = 1\n");
  EXPECT_FALSE(result.changed);
}

TEST(Mend, ImportGoesBeforeDecoratorsWithoutDocstring) {
  MendResult result =
      mend("# comment\n@torch.compile\ndef f(x: torch.Tensor):\n    print(x)\nimport torch\n");
  EXPECT_EQ(result.source.substr(0, 57),
            "# comment\nimport graphmend.runtime as __graphmend_rt__\n@t");
}

TEST(Mend, CrLfFilesKeepTheirLineBreaks) {
  MendResult result = mend(
      "try:\r\n    import torch\r\nexcept ImportError:\r\n    torch = None\r\n"
      "@torch.compile\r\ndef f(x: torch.Tensor):\r\n    print(x)\r\n");
  EXPECT_NE(result.source.find("import graphmend.runtime as __graphmend_rt__\r\n"),
            std::string::npos);
  EXPECT_EQ(result.source.find("\n\n"), std::string::npos);
}

TEST(Mend, RuntimeImportSharesTheFirstSimpleStatementsLine) {
  MendResult result = mend("import torch\n@torch.compile\ndef f(x: torch.Tensor):\n    print(x)\n");
  EXPECT_EQ(result.source.rfind("import graphmend.runtime as __graphmend_rt__; import torch\n", 0),
            0u);
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5};
  EXPECT_EQ(result.line_map, identity);
}

TEST(Mend, NoTracedCodeNoChange) {
  MendResult result = mend("def helper(x):\n    print(x)\n");
  EXPECT_EQ(result.source, "def helper(x):\n    print(x)\n");
}

const Definition* find_definition(const MendResult& result, const std::string& qualname) {
  for (const Definition& d : result.definitions) {
    if (d.qualname == qualname) return &d;
  }
  return nullptr;
}

TEST(Mend, DefinitionsNameEveryFunctionAndClassWithBothSpans) {
  MendOptions options;
  options.trace_all = true;
  options.definitions = true;
  MendResult result = mend(
      "@staticmethod\n"                            // 1: the runtime import goes before it
      "def first(a, /, b, *c, d, **e):\n"          // 2
      "    return a\n"                             // 3
      "import torch\n"                             // 4
      "class Block(torch.nn.Module):\n"            // 5
      "    def forward(self, x: torch.Tensor):\n"  // 6
      "        if x.sum() > 0:\n"                  // 7
      "            y = x * 2\n"                    // 8
      "        else:\n"                            // 9
      "            y = x - 1\n"                    // 10
      "        return y\n"                         // 11
      "    def keep(self, x):\n"                   // 12
      "        def inner(z):\n"                    // 13
      "            return z\n"                     // 14
      "        return inner(x)\n",                 // 15
      options);
  ASSERT_TRUE(result.changed);
  ASSERT_EQ(result.definitions.size(), 5u);
  const Definition* first = find_definition(result, "first");
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(first->touched);
  EXPECT_FALSE(first->is_class);
  EXPECT_EQ(first->first_line, 1u);
  EXPECT_EQ(first->last_line, 3u);
  EXPECT_EQ(first->params, (std::vector<std::string>{"a", "b", "d"}));
  const Definition* block = find_definition(result, "Block");
  ASSERT_NE(block, nullptr);
  EXPECT_TRUE(block->is_class);
  EXPECT_TRUE(block->touched);
  EXPECT_EQ(block->class_name, "");
  const Definition* forward = find_definition(result, "Block.forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_TRUE(forward->touched);
  EXPECT_EQ(forward->class_name, "Block");
  EXPECT_EQ(forward->first_line, 6u);
  EXPECT_EQ(forward->last_line, 11u);
  const Definition* keep = find_definition(result, "Block.keep");
  ASSERT_NE(keep, nullptr);
  EXPECT_FALSE(keep->touched);
  const Definition* inner = find_definition(result, "Block.keep.<locals>.inner");
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->class_name, "Block");
  EXPECT_EQ(inner->first_line, 13u);
  // The mended spans hold the same text where nothing was touched, and the rewritten text
  // where something was.
  auto mended_lines = [&](const Definition& d) {
    std::vector<std::string> lines;
    size_t at = 0;
    for (uint32_t line = 1; at <= result.source.size(); ++line) {
      size_t next = result.source.find('\n', at);
      if (next == std::string::npos) next = result.source.size();
      if (line >= d.mended_first_line && line <= d.mended_last_line) {
        lines.push_back(result.source.substr(at, next - at));
      }
      at = next + 1;
    }
    return lines;
  };
  EXPECT_EQ(mended_lines(*keep).front(), "    def keep(self, x):");
  EXPECT_EQ(mended_lines(*keep).back(), "        return inner(x)");
  EXPECT_EQ(mended_lines(*keep).size(), 4u);
  EXPECT_EQ(mended_lines(*first).front(), "@staticmethod");
  EXPECT_EQ(mended_lines(*forward).front(), "    def forward(self, x: torch.Tensor):");
  EXPECT_EQ(mended_lines(*forward).back(), "        return y");
  EXPECT_NE(result.source.find("torch.where"), std::string::npos);
}

TEST(Mend, DefinitionsOnlyWhenAskedFor) {
  MendResult result = mend(kModel);
  EXPECT_TRUE(result.definitions.empty());
}

}  // namespace
}  // namespace graphmend
