// Edit application, the line map and line padding (rewrite/edits.h).
#include "rewrite/edits.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lex/lexer.h"
#include "parse/parser.h"
#include "rewrite/rewrite.h"

namespace graphmend {
namespace {

using rewrite::apply_edits;
using rewrite::build_line_map;
using rewrite::normalize_edits;

TEST(Edits, AppliesSortedEditsAndKeepsOtherBytes) {
  std::string text = "abc def ghi";
  std::vector<TextEdit> edits = {{8, 11, "GHI"}, {0, 3, "A"}, {4, 4, ">"}};
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, text.size(), &error)) << error;
  EXPECT_EQ(edits[0].begin, 0u);
  EXPECT_EQ(apply_edits(text, edits), "A >def GHI");
}

TEST(Edits, RejectsOverlapAndOutOfBounds) {
  std::string error;
  std::vector<TextEdit> overlapping = {{0, 5, "x"}, {3, 7, "y"}};
  EXPECT_FALSE(normalize_edits(overlapping, 10, &error));
  EXPECT_NE(error.find("overlapping"), std::string::npos);
  std::vector<TextEdit> inside = {{0, 5, "x"}, {2, 2, "y"}};
  EXPECT_FALSE(normalize_edits(inside, 10, &error));
  std::vector<TextEdit> out_of_bounds = {{4, 12, "x"}};
  EXPECT_FALSE(normalize_edits(out_of_bounds, 10, &error));
  std::vector<TextEdit> backwards = {{5, 4, "x"}};
  EXPECT_FALSE(normalize_edits(backwards, 10, &error));
}

TEST(Edits, AdjacentEditsAndInsertionsAtBoundaries) {
  std::string text = "0123456789";
  std::vector<TextEdit> edits = {{2, 4, "b"}, {4, 6, "c"}, {4, 4, "|"}, {0, 0, "<"}, {10, 10, ">"}};
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, text.size(), &error)) << error;
  EXPECT_EQ(apply_edits(text, edits), "<01b|c6789>");
}

TEST(Edits, TwoInsertionsAtOneOffsetKeepTheirOrder) {
  std::vector<TextEdit> edits = {{1, 1, "x"}, {1, 1, "y"}};
  std::string error;
  ASSERT_TRUE(normalize_edits(edits, 2, &error)) << error;
  EXPECT_EQ(apply_edits("ab", edits), "axyb");
}

TEST(LineMap, InsertedLineAndSameLineReplacement) {
  std::string original = "a\nb\nc\n";
  std::vector<TextEdit> edits = {{2, 2, "new\n"}, {4, 5, "C"}};
  std::string mended = apply_edits(original, edits);
  ASSERT_EQ(mended, "a\nnew\nb\nC\n");
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  ASSERT_GE(map.size(), 4u);
  EXPECT_EQ(map[0], 1u);
  EXPECT_EQ(map[1], 2u);  // the inserted line maps to where it was inserted
  EXPECT_EQ(map[2], 2u);
  EXPECT_EQ(map[3], 3u);
}

TEST(LineMap, MultiLineStatementCollapsedToOneLine) {
  std::string original = "x\nif c:\n    raise E\ny\n";
  // "if c:\n    raise E" (bytes 2..20) becomes one line.
  std::vector<TextEdit> edits = {{2, 19, "guard(c, E)"}};
  std::string mended = apply_edits(original, edits);
  ASSERT_EQ(mended, "x\nguard(c, E)\ny\n");
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  EXPECT_EQ(map[0], 1u);
  EXPECT_EQ(map[1], 2u);
  EXPECT_EQ(map[2], 4u);
}

// pad_to_original_lines with the original's tokens, as the mender calls it.
void pad(const std::string& original, std::vector<TextEdit>& edits) {
  SourceText source(original);
  rewrite::pad_to_original_lines(original, lex(source, LexOptions{}).tokens, edits);
}

TEST(PadLines, ACollapsedStatementKeepsTheLinesAfterIt) {
  std::string original = "x\nif c:\n    raise E  # why\ny\n";
  std::vector<TextEdit> edits = {{2, 19, "guard(c, E)"}};
  pad(original, edits);
  std::string mended = apply_edits(original, edits);
  EXPECT_EQ(mended, "x\nguard(c, E)\n# why\ny\n");
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5};  // 5: the empty line after the last break
  EXPECT_EQ(build_line_map(original, mended, edits), identity);
}

TEST(PadLines, ATrailingCommentKeepsItsLineAndTheStatementsIndentation) {
  std::string original = "def f():\n    if c:\n        raise E  # why\n    y\n";
  std::vector<TextEdit> edits = {{13, 34, "guard(c, E)"}};
  pad(original, edits);
  std::string mended = apply_edits(original, edits);
  EXPECT_EQ(mended, "def f():\n    guard(c, E)\n    # why\n    y\n");
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5};
  EXPECT_EQ(build_line_map(original, mended, edits), identity);
}

TEST(PadLines, UsesTheFilesLineBreaks) {
  std::string original = "if c:\r\n    raise E\r\ny\r\n";
  std::vector<TextEdit> edits = {{0, 18, "guard(c, E)"}};
  pad(original, edits);
  EXPECT_EQ(apply_edits(original, edits), "guard(c, E)\r\n\r\ny\r\n");
}

TEST(PadLines, LeavesEditsThatDoNotEndTheirLine) {
  // More code follows the replaced range on its line: a line break there would split it.
  std::string original = "f(a,\n  b) + 1\n";
  std::vector<TextEdit> edits = {{0, 10, "g(a, b)"}, {10, 10, ""}};
  pad(original, edits);
  EXPECT_EQ(edits[0].replacement, "g(a, b)");
  EXPECT_EQ(edits[1].replacement, "");  // an insertion replaces no lines
}

TEST(PadLines, InsideBracketsALineBreakGoesBeforeTheCodeThatFollows) {
  // A two-line message argument becomes one line; inside the call's parentheses a line
  // break is whitespace, so the lines after it keep their numbers.
  std::string original = "warn(\n    'a'\n    'b',\n    W,\n)\ny\n";
  std::vector<TextEdit> edits = {{10, 21, "(m,)"}};
  pad(original, edits);
  std::string mended = apply_edits(original, edits);
  EXPECT_EQ(mended, "warn(\n    (m,)\n,\n    W,\n)\ny\n");
  std::vector<uint32_t> identity = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(build_line_map(original, mended, edits), identity);
  SourceText source(mended);
  Arena arena;
  EXPECT_FALSE(parse_module(source, arena).error.has_value());
}

TEST(PadLines, LeavesEditsInsideAnFStringsReplacementField) {
  // In a replacement field a line break is not always whitespace (a single-quoted
  // f-string before 3.12): left alone.
  std::string original = "x = f'''{g(a,\n b)}''' + 1\n";
  std::vector<TextEdit> edits = {{9, 17, "h()"}};
  pad(original, edits);
  EXPECT_EQ(edits[0].replacement, "h()");
}

TEST(PadLines, LeavesReplacementsWithAsManyLinesOrMore) {
  std::string original = "a\nb\nc\n";
  std::vector<TextEdit> edits = {{0, 3, "x\ny\nz"}};
  pad(original, edits);
  EXPECT_EQ(edits[0].replacement, "x\ny\nz");
}

TEST(LineMap, ReplacementWithMoreLinesThanTheRange) {
  std::string original = "a\nb\nc";
  std::vector<TextEdit> edits = {{2, 3, "b1\nb2\nb3"}};
  std::string mended = apply_edits(original, edits);
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  ASSERT_EQ(map.size(), 5u);
  EXPECT_EQ(map[1], 2u);
  EXPECT_EQ(map[2], 2u);  // clamped to the replaced range's last line
  EXPECT_EQ(map[3], 2u);
  EXPECT_EQ(map[4], 3u);
}

TEST(LineMap, CrLfLineBreaks) {
  std::string original = "a\r\nb\r\n";
  std::vector<TextEdit> edits = {{3, 3, "i\r\n"}};
  std::string mended = apply_edits(original, edits);
  std::vector<uint32_t> map = build_line_map(original, mended, edits);
  EXPECT_EQ(map[0], 1u);
  EXPECT_EQ(map[1], 2u);
  EXPECT_EQ(map[2], 2u);
}

}  // namespace
}  // namespace graphmend
