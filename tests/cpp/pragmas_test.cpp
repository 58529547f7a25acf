// Suppression comments (rewrite/pragmas.h) and decline reason ids (diag/reasons.h) through
// the mend pipeline: a suppressed site is left exactly as written.
#include <gtest/gtest.h>

#include <string>

#include "diag/reasons.h"
#include "rewrite/mend.h"

namespace graphmend {
namespace {

const char* kGuarded =
    "import torch\n"
    "\n"
    "@torch.compile\n"
    "def f(x: torch.Tensor):\n"
    "    if x.sum() < 0:{comment}\n"
    "        raise ValueError(\"negative\")\n"
    "    return x\n";

std::string with_comment(const std::string& comment) {
  std::string text = kGuarded;
  text.replace(text.find("{comment}"), 9, comment);
  return text;
}

MendResult mend(const std::string& text, MendOptions options = {}) {
  return mend_source(text, "m.py", options);
}

TEST(Pragmas, LineLevelIgnoreLeavesTheSiteAsWritten) {
  for (const char* comment :
       {"  # graphmend: ignore[GM105]", "  # graphmend: ignore", "  # noqa: E501, GM105",
        "  # type: ignore  # graphmend: ignore[GM105]"}) {
    std::string text = with_comment(comment);
    MendResult result = mend(text);
    EXPECT_FALSE(result.changed) << comment;
    EXPECT_EQ(result.source, text);
    ASSERT_EQ(result.diagnostics.size(), 1u);
    EXPECT_FALSE(result.diagnostics[0].fixed);
    EXPECT_EQ(result.diagnostics[0].reason_id, "suppressed");
    EXPECT_EQ(result.diagnostics[0].suppressed_by, 5u);
    ASSERT_EQ(result.pragmas.size(), 1u);
    EXPECT_TRUE(result.pragmas[0].used);
  }
}

TEST(Pragmas, OtherCodesAndForeignCommentsDoNotSuppress) {
  for (const char* comment :
       {"  # graphmend: ignore[GM101]", "  # noqa", "  # noqa: E501", "  # graphmend: ignorex"}) {
    MendResult result = mend(with_comment(comment));
    EXPECT_TRUE(result.changed) << comment;
    ASSERT_EQ(result.diagnostics.size(), 1u);
    EXPECT_TRUE(result.diagnostics[0].fixed);
    EXPECT_EQ(result.diagnostics[0].reason_id, "");
  }
  MendResult unused = mend(with_comment("  # graphmend: ignore[GM101]"));
  ASSERT_EQ(unused.pragmas.size(), 1u);
  EXPECT_FALSE(unused.pragmas[0].used);
  EXPECT_EQ(unused.pragmas[0].codes, std::vector<std::string>{"GM101"});
}

TEST(Pragmas, FileLevelAndConfiguredSuppression) {
  std::string text = "# graphmend: ignore-file[GM105]\n" + with_comment("");
  MendResult file_level = mend(text);
  EXPECT_FALSE(file_level.changed);
  EXPECT_EQ(file_level.diagnostics[0].suppressed_by, 1u);
  EXPECT_TRUE(file_level.pragmas[0].file_level);

  MendOptions options;
  options.suppressed_codes = {"GM105"};
  MendResult configured = mend(with_comment(""), options);
  EXPECT_FALSE(configured.changed);
  EXPECT_EQ(configured.diagnostics[0].reason_id, "suppressed");
  EXPECT_EQ(configured.diagnostics[0].suppressed_by, 0u);
}

TEST(Reasons, IdsComeFromThePhrasesInOrder) {
  EXPECT_STREQ(reasons::id_of("a branch mutates state (attribute/subscript store)"),
               "mutates-state");
  EXPECT_STREQ(reasons::id_of("internal: the rewritten text does not parse (x)"), "internal");
  EXPECT_STREQ(reasons::id_of("something new"), "other");
  MendResult declined = mend(
      "import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n"
      "    if x.sum() < 0:\n        raise ValueError(f\"bad {x}\")\n    return x\n");
  ASSERT_EQ(declined.diagnostics.size(), 1u);
  EXPECT_EQ(declined.diagnostics[0].reason_id, "message-formats-tensor");
  EXPECT_EQ(declined.diagnostics[0].reason,
            "the exception message is neither a string literal nor formatted from values other "
            "than tensors");
}

}  // namespace
}  // namespace graphmend
