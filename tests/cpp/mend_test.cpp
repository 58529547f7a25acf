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

}  // namespace
}  // namespace graphmend
