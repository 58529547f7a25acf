// Contract checks that hold for any input, whatever state the parser is in: the lexer's
// token vector ends with EndMarker or Error, and parse_module returns exactly one of a
// module or an error. Also proves that the core links into the test binary.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ast/dump.h"
#include "base/arena.h"
#include "base/source.h"
#include "lex/lexer.h"
#include "parse/parser.h"

namespace graphmend {
namespace {

const std::vector<std::string>& inputs() {
  static const std::vector<std::string> cases = {
      "",
      "\n",
      "x = 1\n",
      "def f(a, *b, c=1, **d):\n    return a\n",
      "if x:\n",
      "(",
      "'abc",
      "\xff\xfe",
      std::string("a\0b", 3),
      "\t\n  x\n",
      "f'{x!r:>{w}}'\n",
      "match x:\n    case [1, *r]: pass\n",
      "type X = int\n",
      "class C[T]: pass\n",
      "lambda: (yield)\n",
      "\\\n",
  };
  return cases;
}

TEST(BuildSmoke, LexerEndsWithEndMarkerOrError) {
  for (int minor : {11, 12}) {
    for (const std::string& text : inputs()) {
      SourceText source(text);
      LexResult lexed = lex(source, LexOptions{PythonVersion{3, minor}});
      ASSERT_FALSE(lexed.tokens.empty()) << text;
      TokenKind last = lexed.tokens.back().kind;
      EXPECT_TRUE(last == TokenKind::EndMarker || last == TokenKind::Error) << text;
      EXPECT_EQ(last == TokenKind::Error, lexed.error.has_value()) << text;
    }
  }
}

TEST(BuildSmoke, ParseReturnsModuleOrError) {
  for (int minor : {11, 12}) {
    for (const std::string& text : inputs()) {
      SourceText source(text);
      Arena arena;
      ParseResult result = parse_module(source, arena, ParseOptions{PythonVersion{3, minor}});
      EXPECT_NE(result.module == nullptr, !result.error.has_value()) << text;
      if (result.module != nullptr) {
        DumpOptions options{true, PythonVersion{3, minor}};
        EXPECT_FALSE(dump_ast(result.module, source, options).empty()) << text;
      }
    }
  }
}

}  // namespace
}  // namespace graphmend
