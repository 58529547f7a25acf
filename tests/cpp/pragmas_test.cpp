// Suppression comments (rewrite/pragmas.h) and decline reason ids (diag/reasons.h) through
// the mend pipeline: a suppressed site is left exactly as written.
#include "rewrite/pragmas.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "diag/reasons.h"
#include "lex/lexer.h"
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

std::vector<Pragma> pragmas_of(const SourceText& source) {
  return rewrite::find_pragmas(source, lex(source).tokens);
}

std::string_view written(const SourceText& source, Span span) {
  return source.text().substr(span.begin, span.end - span.begin);
}

std::vector<std::string_view> written_codes(const SourceText& source, const Pragma& pragma) {
  std::vector<std::string_view> out;
  for (Span span : pragma.code_spans) out.push_back(written(source, span));
  return out;
}

TEST(Pragmas, RangesOfTheCommentTheSuppressionAndEachCode) {
  SourceText source(
      "x = 1  # graphmend: ignore[GM101, E501]\n"
      "y = 2  # type: ignore  #\tgraphmend: ignore -file\n"
      "s = \"\xc3\xa9\"  # noqa: E402, GM105,GM101  # why\n"
      "# TODO graphmend:ignore\n"
      "z = 3  # noqa:GM102\n");
  std::vector<Pragma> pragmas = pragmas_of(source);
  ASSERT_EQ(pragmas.size(), 5u);

  const Pragma& bracketed = pragmas[0];
  EXPECT_EQ(bracketed.line, 1u);
  EXPECT_FALSE(bracketed.noqa);
  EXPECT_EQ(written(source, bracketed.comment), "# graphmend: ignore[GM101, E501]");
  EXPECT_EQ(written(source, bracketed.text), "# graphmend: ignore[GM101, E501]");
  EXPECT_EQ(written_codes(source, bracketed), std::vector<std::string_view>{"GM101"});

  const Pragma& behind = pragmas[1];  // after another tool's comment; blanks before -file
  EXPECT_TRUE(behind.file_level);
  EXPECT_EQ(written(source, behind.comment), "# type: ignore  #\tgraphmend: ignore -file");
  EXPECT_EQ(written(source, behind.text), "#\tgraphmend: ignore -file");
  EXPECT_TRUE(behind.code_spans.empty());

  const Pragma& noqa = pragmas[2];  // after a two-byte character
  EXPECT_EQ(noqa.line, 3u);
  EXPECT_TRUE(noqa.noqa);
  EXPECT_EQ(written(source, noqa.comment), "# noqa: E402, GM105,GM101  # why");
  EXPECT_EQ(written(source, noqa.text), "# noqa: E402, GM105,GM101  ");
  EXPECT_EQ(written(source, noqa.list), " E402, GM105,GM101  ");
  EXPECT_EQ(noqa.codes, (std::vector<std::string>{"GM105", "GM101"}));
  EXPECT_EQ(written_codes(source, noqa), (std::vector<std::string_view>{"GM105", "GM101"}));

  const Pragma& inside = pragmas[3];  // not opened by its own `#`
  EXPECT_EQ(written(source, inside.text), "graphmend:ignore");
  EXPECT_EQ(inside.text.end, inside.comment.end);

  const Pragma& tight = pragmas[4];
  EXPECT_EQ(written(source, tight.text), "# noqa:GM102");
  EXPECT_EQ(written(source, tight.list), "GM102");
  EXPECT_EQ(written_codes(source, tight), std::vector<std::string_view>{"GM102"});
}

TEST(Reasons, EachReasonHasItsIdAndAQuotingDeclineTheEarlierRow) {
  EXPECT_STREQ(reasons::id(reasons::Reason::MutatesState), "mutates-state");
  EXPECT_STREQ(reasons::id(reasons::Reason::Other), "other");
  // a decline quoting another's words is reported as the reason whose row comes first
  reasons::Problem tail =
      reasons::quoting(reasons::Reason::TailDuplication,
                       "tail duplication: ", {reasons::Reason::UsesItem, "the tail uses .item()"});
  EXPECT_EQ(tail.reason, reasons::Reason::UsesItem);
  EXPECT_EQ(tail.detail, "tail duplication: the tail uses .item()");
  EXPECT_EQ(reasons::quoting(reasons::Reason::TailDuplication, "tail duplication: ",
                             {reasons::Reason::Other, "the tail returns inside an if"})
                .reason,
            reasons::Reason::TailDuplication);
  MendResult declined = mend(
      "import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n"
      "    if x.sum() < 0:\n        raise ValueError(f\"bad {x}\")\n    else:\n        x = x + 1\n"
      "    return x\n");
  ASSERT_EQ(declined.diagnostics.size(), 1u);
  // [Where]'s reason, after [Trap]'s, names the id
  EXPECT_EQ(declined.diagnostics[0].reason_id, "branch-raises");
  EXPECT_EQ(declined.diagnostics[0].reason,
            "the if statement has an else branch, which [Where] declines: a branch raises, and "
            "its raise has no guard form: the exception message is neither a string literal nor "
            "formatted from values other than tensors");
}

}  // namespace
}  // namespace graphmend
