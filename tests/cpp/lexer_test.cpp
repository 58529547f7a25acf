// The lexer against CPython's tokenizer: token kinds, byte spans, and the errors (message,
// code, position) python3.11 / python3.12 report for the same input. Expected positions are
// SyntaxError.offset - 1 (0-based columns, bytes here since the inputs are ASCII unless noted).
#include "lex/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace graphmend {
namespace {

LexOptions version(int minor) {
  LexOptions options;
  options.version.minor = minor;
  return options;
}

// "Kind Kind ..." for the whole stream, trivia included.
std::string kinds(const std::string& text, int minor = 12) {
  SourceText source(text);
  LexResult result = lex(source, version(minor));
  std::string out;
  for (const Token& t : result.tokens) {
    if (!out.empty()) out += ' ';
    out += token_kind_name(t.kind);
  }
  return out;
}

// "Kind:text" for the tokens the parser sees (no Comment/NL/Indent/Dedent/Newline/EndMarker).
std::string texts(const std::string& text, int minor = 12) {
  SourceText source(text);
  LexResult result = lex(source, version(minor));
  std::string out;
  for (const Token& t : result.tokens) {
    switch (t.kind) {
      case TokenKind::Comment:
      case TokenKind::NL:
      case TokenKind::Newline:
      case TokenKind::Indent:
      case TokenKind::Dedent:
      case TokenKind::EndMarker:
        continue;
      default:
        break;
    }
    if (!out.empty()) out += ' ';
    out += token_kind_name(t.kind);
    out += ':';
    out += t.text(source.text());
  }
  return out;
}

// "message @line:col" (col 0-based, bytes) of the lexer's error, or "" when none.
std::string error(const std::string& text, int minor = 12, std::string* code = nullptr) {
  SourceText source(text);
  LexResult result = lex(source, version(minor));
  if (!result.error) {
    EXPECT_EQ(result.tokens.back().kind, TokenKind::EndMarker);
    return "";
  }
  EXPECT_EQ(result.tokens.back().kind, TokenKind::Error);
  if (code) *code = result.error->code;
  LineCol at = source.line_col(result.error->span.begin);
  return result.error->message + " @" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

// ------------------------------------------------------------------ ordinary code

TEST(Lexer, SimpleStatementAndEndOfInput) {
  EXPECT_EQ(kinds("x = 1\n"), "Name Equal Number Newline EndMarker");
  // A missing final newline still ends the logical line (zero-width Newline at the end).
  SourceText source("x");
  LexResult r = lex(source);
  ASSERT_EQ(r.tokens.size(), 3u);
  EXPECT_EQ(r.tokens[1].kind, TokenKind::Newline);
  EXPECT_EQ(r.tokens[1].begin, 1u);
  EXPECT_EQ(r.tokens[1].end, 1u);
  EXPECT_EQ(kinds(""), "EndMarker");
  EXPECT_EQ(kinds("\n\n"), "NL NL EndMarker");
}

TEST(Lexer, KeywordsAndSoftKeywords) {
  EXPECT_EQ(texts("if not x: pass"), "Kw_if:if Kw_not:not Name:x Colon:: Kw_pass:pass");
  EXPECT_EQ(texts("match case type _ print"), "Name:match Name:case Name:type Name:_ Name:print");
  EXPECT_EQ(texts("True False None async await lambda nonlocal yield"),
            "Kw_True:True Kw_False:False Kw_None:None Kw_async:async Kw_await:await "
            "Kw_lambda:lambda Kw_nonlocal:nonlocal Kw_yield:yield");
  EXPECT_EQ(texts("iff Ifx elsewhere _if"), "Name:iff Name:Ifx Name:elsewhere Name:_if");
}

TEST(Lexer, OperatorsLongestMatch) {
  EXPECT_EQ(texts("a**=b//=c>>=d<<=e"),
            "Name:a DoubleStarEqual:**= Name:b DoubleSlashEqual://= Name:c "
            "RightShiftEqual:>>= Name:d LeftShiftEqual:<<= Name:e");
  EXPECT_EQ(texts("-> := != <= >= == @= ... . ** // ~ ^ | & % @"),
            "RArrow:-> ColonEqual::= NotEqual:!= LessEqual:<= GreaterEqual:>= EqEqual:== "
            "AtEqual:@= Ellipsis:... Dot:. DoubleStar:** DoubleSlash:// Tilde:~ Circumflex:^ "
            "VBar:| Amper:& Percent:% At:@");
  EXPECT_EQ(texts("a..b"), "Name:a Dot:. Dot:. Name:b");
  EXPECT_EQ(texts("x.__class__"), "Name:x Dot:. Name:__class__");
  EXPECT_EQ(texts("1 <> 2"), "Number:1 NotEqual:<> Number:2");  // the parser rejects "<>"
}

TEST(Lexer, Numbers) {
  EXPECT_EQ(texts("0 00 0_0 7 1_000 0x_1F 0XaB 0o17 0O1_7 0b1_0 0B1"),
            "Number:0 Number:00 Number:0_0 Number:7 Number:1_000 Number:0x_1F Number:0XaB "
            "Number:0o17 Number:0O1_7 Number:0b1_0 Number:0B1");
  EXPECT_EQ(texts("1. .5 1.5 1e5 1E-5 1.e+5 .5e5 1_0.0_1e1_0 01.5 00e1"),
            "Number:1. Number:.5 Number:1.5 Number:1e5 Number:1E-5 Number:1.e+5 Number:.5e5 "
            "Number:1_0.0_1e1_0 Number:01.5 Number:00e1");
  EXPECT_EQ(texts("1j 1.5J .5j 1e5j 0j 09j"),
            "Number:1j Number:1.5J Number:.5j Number:1e5j Number:0j Number:09j");
  // A number glued to a keyword that may follow it (CPython warns, then splits).
  EXPECT_EQ(texts("1if x else y"), "Number:1 Kw_if:if Name:x Kw_else:else Name:y");
  EXPECT_EQ(texts("0x1for x in y"), "Number:0x1f Kw_or:or Name:x Kw_in:in Name:y");
  EXPECT_EQ(texts("1or 2and 3in 4is 5not in x"),
            "Number:1 Kw_or:or Number:2 Kw_and:and Number:3 Kw_in:in Number:4 Kw_is:is "
            "Number:5 Kw_not:not Kw_in:in Name:x");
  EXPECT_EQ(texts("1 .real"), "Number:1 Dot:. Name:real");
}

TEST(Lexer, NumberErrors) {
  EXPECT_EQ(error("x = 1_a"), "invalid decimal literal @1:5");
  EXPECT_EQ(error("x = 1__0"), "invalid decimal literal @1:5");
  EXPECT_EQ(error("x = 1_"), "invalid decimal literal @1:5");
  EXPECT_EQ(error("x = 1abc"), "invalid decimal literal @1:4");
  EXPECT_EQ(error("x = 1e"), "invalid decimal literal @1:4");
  EXPECT_EQ(error("x = 1e+"), "invalid decimal literal @1:6");
  EXPECT_EQ(error("x = 1.e"), "invalid decimal literal @1:5");
  EXPECT_EQ(error("x = 1.__class__"), "invalid decimal literal @1:5");
  EXPECT_EQ(error("x = 1.real"), "invalid decimal literal @1:5");
  EXPECT_EQ(error("x = 0x"), "invalid hexadecimal literal @1:5");
  EXPECT_EQ(error("x = 0xg"), "invalid hexadecimal literal @1:5");
  EXPECT_EQ(error("x = 0x1g"), "invalid hexadecimal literal @1:6");
  EXPECT_EQ(error("x = 0b2"), "invalid digit '2' in binary literal @1:6");
  EXPECT_EQ(error("x = 0b12"), "invalid digit '2' in binary literal @1:7");
  EXPECT_EQ(error("x = 0b"), "invalid binary literal @1:5");
  EXPECT_EQ(error("x = 0o8"), "invalid digit '8' in octal literal @1:6");
  EXPECT_EQ(error("x = 0o18"), "invalid digit '8' in octal literal @1:7");
  EXPECT_EQ(error("x = 0o"), "invalid octal literal @1:5");
  EXPECT_EQ(error("x = 1jx"), "invalid imaginary literal @1:5");
  EXPECT_EQ(error("x = 0_x"), "invalid decimal literal @1:5");
  std::string code;
  EXPECT_EQ(error("x = 012", 12, &code),
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
            "octal integers @1:4");
  EXPECT_EQ(code, codes::kTokenizeError);
  SourceText source("x = 0012 + 1");
  LexResult r = lex(source);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->span.begin, 4u);  // CPython underlines the zeros: (1,5)-(1,7)
  EXPECT_EQ(r.error->span.end, 6u);
}

TEST(Lexer, StringsAndPrefixes) {
  EXPECT_EQ(texts("'a' \"b\" r'\\d' u'x' b'y' br'z' rb'z' Rb'z' bR'z' BR'z' U'x' R'x'"),
            "String:'a' String:\"b\" String:r'\\d' String:u'x' String:b'y' String:br'z' "
            "String:rb'z' String:Rb'z' String:bR'z' String:BR'z' String:U'x' String:R'x'");
  // No ub / bu / ur / ru / fb: the letters form a name.
  EXPECT_EQ(texts("ub'x'"), "Name:ub String:'x'");
  EXPECT_EQ(texts("ur'x'"), "Name:ur String:'x'");
  EXPECT_EQ(texts("bu'x'"), "Name:bu String:'x'");
  EXPECT_EQ(texts("fb'x'"), "Name:fb String:'x'");
  EXPECT_EQ(texts("'' \"\" '''''' \"\"\"\"\"\""),
            "String:'' String:\"\" String:'''''' String:\"\"\"\"\"\"");
  EXPECT_EQ(texts("'a\\'b' \"a\\\"b\""), "String:'a\\'b' String:\"a\\\"b\"");
  EXPECT_EQ(texts("'''a\nb''' + 1"), "String:'''a\nb''' Plus:+ Number:1");
  EXPECT_EQ(texts("'a\\\nb'"), "String:'a\\\nb'");  // backslash-newline inside a string
  EXPECT_EQ(texts("'a\\\r\nb'"), "String:'a\\\r\nb'");
  EXPECT_EQ(texts("'''a''''"), "String:'''a''' Error:'");  // then unterminated
}

TEST(Lexer, StringErrors) {
  EXPECT_EQ(error("x = 'abc"), "unterminated string literal (detected at line 1) @1:4");
  EXPECT_EQ(error("x = b'abc"), "unterminated string literal (detected at line 1) @1:4");
  EXPECT_EQ(error("x = 1\ny = \"abc\nz = 3"),
            "unterminated string literal (detected at line 2) @2:4");
  EXPECT_EQ(error("x = 'ab\\\nc"), "unterminated string literal (detected at line 2) @1:4");
  EXPECT_EQ(error("x = '''abc"),
            "unterminated triple-quoted string literal (detected at line 1) @1:4");
  EXPECT_EQ(error("x = '''abc\nd"),
            "unterminated triple-quoted string literal (detected at line 2) @1:4");
  EXPECT_EQ(error("x = '''abc\nd\n"),
            "unterminated triple-quoted string literal (detected at line 2) @1:4");
  EXPECT_EQ(error("x = '''abc\nd\n\n"),
            "unterminated triple-quoted string literal (detected at line 3) @1:4");
}

TEST(Lexer, CommentsAndNewlines) {
  EXPECT_EQ(kinds("x = 1  # c\n"), "Name Equal Number Comment Newline EndMarker");
  EXPECT_EQ(kinds("# only\n\nx\n"), "Comment NL NL Name Newline EndMarker");
  EXPECT_EQ(kinds("x\n# c"), "Name Newline Comment NL EndMarker");
  // Inside brackets line breaks are NL and indentation does not count.
  EXPECT_EQ(kinds("f(a,\n      b)\n"), "Name LPar Name Comma NL Name RPar Newline EndMarker");
  EXPECT_EQ(kinds("[\n# c\n]\n"), "LSqb NL Comment NL RSqb Newline EndMarker");
  // Backslash continuation joins lines without any token.
  EXPECT_EQ(kinds("x = 1 + \\\n    2\n"), "Name Equal Number Plus Number Newline EndMarker");
  EXPECT_EQ(kinds("\\\nx = 1\n"), "Name Equal Number Newline EndMarker");
  // \r\n and lone \r are line breaks; the token covers the whole break.
  SourceText source("a\r\nb\rc");
  LexResult r = lex(source);
  ASSERT_GE(r.tokens.size(), 6u);
  EXPECT_EQ(r.tokens[1].kind, TokenKind::Newline);
  EXPECT_EQ(r.tokens[1].end - r.tokens[1].begin, 2u);
  EXPECT_EQ(r.tokens[3].kind, TokenKind::Newline);
  EXPECT_EQ(r.tokens[3].end - r.tokens[3].begin, 1u);
  EXPECT_EQ(source.line_col(r.tokens[4].begin).line, 3u);
}

TEST(Lexer, ContinuationErrors) {
  EXPECT_EQ(error("a = 1 \\ b"), "unexpected character after line continuation character @1:7");
  EXPECT_EQ(error("x = 1\na = 1 + \\"), "unexpected EOF while parsing @2:9");
  EXPECT_EQ(error("x = 1\na = 1 + \\\n"), "unexpected EOF while parsing @2:9");
  EXPECT_EQ(error("x = (1 + \\"), "'(' was never closed @1:4");
}

TEST(Lexer, Indentation) {
  EXPECT_EQ(kinds("if x:\n    y\n    z\nw\n"),
            "Kw_if Name Colon Newline Indent Name Newline Name Newline Dedent Name Newline "
            "EndMarker");
  EXPECT_EQ(kinds("if x:\n  if y:\n    z\n"),
            "Kw_if Name Colon Newline Indent Kw_if Name Colon Newline Indent Name Newline Dedent "
            "Dedent EndMarker");
  // Blank and comment-only lines never indent or dedent.
  EXPECT_EQ(kinds("if x:\n    y\n\n  # c\n        \n    z\n"),
            "Kw_if Name Colon Newline Indent Name Newline NL Comment NL NL Name Newline Dedent "
            "EndMarker");
  // Tabs go to the next multiple of 8; consistent use is fine.
  EXPECT_EQ(kinds("if x:\n\ty\n\tz\n"),
            "Kw_if Name Colon Newline Indent Name Newline Name Newline Dedent EndMarker");
  // A form feed resets the column.
  EXPECT_EQ(kinds("if x:\n    y\n\f\n\fz\n"),
            "Kw_if Name Colon Newline Indent Name Newline NL Dedent Name Newline EndMarker");
  // Indent spans the leading whitespace; Dedent is zero-width at the next token.
  SourceText source("if x:\n  y\nz\n");
  LexResult r = lex(source);
  ASSERT_EQ(r.tokens[4].kind, TokenKind::Indent);
  EXPECT_EQ(r.tokens[4].begin, 6u);
  EXPECT_EQ(r.tokens[4].end, 8u);
  ASSERT_EQ(r.tokens[7].kind, TokenKind::Dedent);
  EXPECT_EQ(r.tokens[7].begin, 10u);
  EXPECT_EQ(r.tokens[7].end, 10u);
}

TEST(Lexer, IndentationErrors) {
  std::string code;
  EXPECT_EQ(error("if x:\n        a\n\tb", 12, &code),
            "inconsistent use of tabs and spaces in indentation @3:0");
  EXPECT_EQ(code, codes::kIndentationError);
  EXPECT_EQ(error("x = 1\nif x:\n\ta\n        b"),
            "inconsistent use of tabs and spaces in indentation @4:0");
  EXPECT_EQ(error("if x:\n    a\n  bcd = 1\ny = 2", 12, &code),
            "unindent does not match any outer indentation level @3:9");
  EXPECT_EQ(code, codes::kIndentationError);
  // 100 levels are too many.
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += std::string(i, ' ') + "if x:\n";
  deep += std::string(100, ' ') + "pass\n";
  EXPECT_EQ(error(deep, 12, &code), "too many levels of indentation @101:0");
  EXPECT_EQ(code, codes::kIndentationError);
  std::string ok;
  for (int i = 0; i < 98; ++i) ok += std::string(i, ' ') + "if x:\n";
  ok += std::string(98, ' ') + "pass\n";
  EXPECT_EQ(error(ok), "");
}

TEST(Lexer, Brackets) {
  EXPECT_EQ(error("a = (1"), "'(' was never closed @1:4");
  EXPECT_EQ(error("a = (1,\n  2"), "'(' was never closed @1:4");
  EXPECT_EQ(error("a = [(1)"), "'[' was never closed @1:4");
  EXPECT_EQ(error("a = (1]"),
            "closing parenthesis ']' does not match opening parenthesis '(' @1:6");
  EXPECT_EQ(error("a = (1,\n 2]"),
            "closing parenthesis ']' does not match opening parenthesis '(' on line 1 @2:2");
  EXPECT_EQ(error("a = 1)"), "unmatched ')' @1:5");
  EXPECT_EQ(error("}"), "unmatched '}' @1:0");
  EXPECT_EQ(error(std::string(199, '(') + std::string(199, ')')), "");
  EXPECT_EQ(error(std::string(201, '(')), "too many nested parentheses @1:200");
}

TEST(Lexer, InvalidCharacters) {
  EXPECT_EQ(error("a\xE2\x82\xAC = 1"), "invalid character '\xE2\x82\xAC' (U+20AC) @1:1");
  EXPECT_EQ(error("\xE2\x82\xAC = 1"), "invalid character '\xE2\x82\xAC' (U+20AC) @1:0");
  EXPECT_EQ(error("x = (\n  1,\n  a\xE2\x82\xAC"
                  "b"),
            "invalid character '\xE2\x82\xAC' (U+20AC) @3:3");
  EXPECT_EQ(error("a\xC2\xA0= 1"), "invalid non-printable character U+00A0 @1:1");
  EXPECT_EQ(error("a = \x01"), "invalid non-printable character U+0001 @1:4");
  EXPECT_EQ(texts("\xC3\xA9t\xC3\xA9 = \xE5\x90\x8D"),
            "Name:\xC3\xA9t\xC3\xA9 Equal:= Name:\xE5\x90\x8D");
  std::string code;
  EXPECT_EQ(error("a = b $ c", 12, &code), "invalid syntax @1:6");
  EXPECT_EQ(code, codes::kSyntaxError);
}

TEST(Lexer, InputEncoding) {
  std::string code;
  EXPECT_EQ(error(std::string("x = 1\0", 6), 12, &code),
            "source code string cannot contain null bytes @1:5");
  EXPECT_EQ(code, codes::kEncodingError);
  EXPECT_EQ(error("x = '\xFF'", 12, &code),
            "(unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start "
            "byte @1:5");
  EXPECT_EQ(code, codes::kEncodingError);
  EXPECT_NE(error("x = '\xE2\x82'"), "");
  EXPECT_NE(error("x = '\xED\xA0\x80'"), "");  // a surrogate
  // The input is decoded text: a byte order mark is an invalid character, as in CPython's
  // ast.parse of a str starting with U+FEFF (file bytes are stripped of it when decoded).
  EXPECT_EQ(error("\xEF\xBB\xBFx = 1\n"), "invalid non-printable character U+FEFF @1:0");
}

// ------------------------------------------------------------------ f-strings

TEST(Lexer, FStringTokens) {
  EXPECT_EQ(texts("f'a{b!r:>{w}}c'"),
            "FStringStart:f' FStringMiddle:a LBrace:{ Name:b Exclamation:! Name:r Colon:: "
            "FStringMiddle:> LBrace:{ Name:w RBrace:} RBrace:} FStringMiddle:c FStringEnd:'");
  // Doubled braces: the FStringMiddle keeps one brace of each pair, the other is skipped.
  EXPECT_EQ(texts("f'{{x}}'"), "FStringStart:f' FStringMiddle:{ FStringMiddle:x} FStringEnd:'");
  EXPECT_EQ(texts("f'a{{b'"), "FStringStart:f' FStringMiddle:a{ FStringMiddle:b FStringEnd:'");
  EXPECT_EQ(texts("F''"), "FStringStart:F' FStringEnd:'");
  EXPECT_EQ(texts("rf'\\{x}' fR'a' Rf\"\" FR'''x'''"),
            "FStringStart:rf' FStringMiddle:\\ LBrace:{ Name:x RBrace:} FStringEnd:' "
            "FStringStart:fR' FStringMiddle:a FStringEnd:' FStringStart:Rf\" FStringEnd:\" "
            "FStringStart:FR''' FStringMiddle:x FStringEnd:'''");
  // Self-documenting expressions and conversions.
  EXPECT_EQ(texts("f'{x=}{y = !s:^5}'"),
            "FStringStart:f' LBrace:{ Name:x Equal:= RBrace:} LBrace:{ Name:y Equal:= "
            "Exclamation:! Name:s Colon:: FStringMiddle:^5 RBrace:} FStringEnd:'");
  // ':' at the top level of a field starts the spec even before '='; nested ones do not.
  EXPECT_EQ(texts("f'{x:=5}'"),
            "FStringStart:f' LBrace:{ Name:x Colon:: FStringMiddle:=5 RBrace:} FStringEnd:'");
  EXPECT_EQ(texts("f'{(x:=5)}{a[1:2]}{x!=y}'"),
            "FStringStart:f' LBrace:{ LPar:( Name:x ColonEqual::= Number:5 RPar:) RBrace:} "
            "LBrace:{ Name:a LSqb:[ Number:1 Colon:: Number:2 RSqb:] RBrace:} LBrace:{ Name:x "
            "NotEqual:!= Name:y RBrace:} FStringEnd:'");
  // A dict display inside a field, and an empty spec.
  EXPECT_EQ(texts("f'{ {1: 2}[1] }{x:}'"),
            "FStringStart:f' LBrace:{ LBrace:{ Number:1 Colon:: Number:2 RBrace:} LSqb:[ "
            "Number:1 RSqb:] RBrace:} LBrace:{ Name:x Colon:: RBrace:} FStringEnd:'");
  // \N{...} belongs to the literal text.
  EXPECT_EQ(texts("f'\\N{DASH}{x}'"),
            "FStringStart:f' FStringMiddle:\\N{DASH} LBrace:{ Name:x RBrace:} FStringEnd:'");
}

TEST(Lexer, FStringNestingAndLines) {
  // PEP 701: the same quotes inside a replacement field (3.12 mode).
  EXPECT_EQ(texts("f\"{f\"{x}\"}\""),
            "FStringStart:f\" LBrace:{ FStringStart:f\" LBrace:{ Name:x RBrace:} FStringEnd:\" "
            "RBrace:} FStringEnd:\"");
  EXPECT_EQ(texts("f'{a[\"k\"]}'"),
            "FStringStart:f' LBrace:{ Name:a LSqb:[ String:\"k\" RSqb:] RBrace:} FStringEnd:'");
  // Nested format specs two deep are fine; three are not.
  EXPECT_EQ(texts("f'{a:{b:{c}}}'"),
            "FStringStart:f' LBrace:{ Name:a Colon:: LBrace:{ Name:b Colon:: LBrace:{ Name:c "
            "RBrace:} RBrace:} RBrace:} FStringEnd:'");
  EXPECT_EQ(error("x = f'{a:{b:{c:{d}}}}'"), "f-string: expressions nested too deeply @1:14");
  // Triple-quoted f-strings span lines, in the text and inside fields.
  EXPECT_EQ(kinds("f'''a\n{x\n}b'''\n"),
            "FStringStart FStringMiddle LBrace Name NL RBrace FStringMiddle FStringEnd Newline "
            "EndMarker");
  EXPECT_EQ(kinds("x = f'{a\n}'\n"),
            "Name Equal FStringStart LBrace Name NL RBrace FStringEnd Newline EndMarker");
}

TEST(Lexer, FStringErrors312) {
  EXPECT_EQ(error("x = f'abc"), "unterminated f-string literal (detected at line 1) @1:4");
  EXPECT_EQ(error("x = f'''abc"),
            "unterminated triple-quoted f-string literal (detected at line 1) @1:4");
  EXPECT_EQ(error("x = f'{a}}'"), "f-string: single '}' is not allowed @1:9");
  EXPECT_EQ(error("x = f'}'"), "f-string: single '}' is not allowed @1:6");
  EXPECT_EQ(error("x = f\"{)}\""), "f-string: unmatched ')' @1:7");
  EXPECT_EQ(error("x = f\"{a)}\""), "f-string: unmatched ')' @1:8");
  EXPECT_EQ(error("x = f'{a'"), "f-string: expecting '}' @1:8");
  EXPECT_EQ(error("x = f'{a + (b}'"),
            "closing parenthesis '}' does not match opening parenthesis '(' @1:13");
  EXPECT_EQ(error("x = f'{a#}'"), "'{' was never closed @1:6");
  EXPECT_EQ(error("x = f'{\"abc}'"), "unterminated string literal (detected at line 1) @1:7");
  EXPECT_EQ(error("x = f'{a\\nb}'"), "unexpected character after line continuation character @1:9");
}

TEST(Lexer, FStringRules311) {
  // Valid in both.
  EXPECT_EQ(error("x = f'{a!r:{b}}' f\"{d['k']}\"", 11), "");
  EXPECT_EQ(error("x = f'''{a\n}'''", 11), "");
  EXPECT_EQ(error("x = f'{x:\\n}'", 11), "");
  EXPECT_EQ(error("x = f'\\{x}'", 11), "");
  EXPECT_EQ(texts("f'{x:=5}'", 11), texts("f'{x:=5}'", 12));
  // 3.11 errors point at the token after the string concatenation.
  EXPECT_EQ(error("x = f'{a\\nb}'", 11),
            "f-string expression part cannot include a backslash @1:13");
  EXPECT_EQ(error("x = f'{\"\\n\"}'", 11),
            "f-string expression part cannot include a backslash @1:13");
  EXPECT_EQ(error("x = f'{a\\n}' + 1", 11),
            "f-string expression part cannot include a backslash @1:13");
  EXPECT_EQ(error("x = f'{a#}'", 11), "f-string expression part cannot include '#' @1:11");
  EXPECT_EQ(error("x = (f'{a#}'\n     'b')", 11),
            "f-string expression part cannot include '#' @2:8");
  EXPECT_EQ(error("x = f'''{a\n# c\n}'''", 11), "f-string expression part cannot include '#' @3:4");
  EXPECT_EQ(error("x = f'{a:{b:{c}}}'", 11), "f-string: expressions nested too deeply @1:18");
  EXPECT_EQ(error("y = 1; x = f'a' f'{a:{b:{c}}}' 'c' # hi", 11),
            "f-string: expressions nested too deeply @1:35");
  // The enclosing quote ends the string, as 3.11 reads it.
  EXPECT_EQ(error("x = f'{a'", 11), "f-string: expecting '}' @1:9");
  EXPECT_EQ(error("x = f'{a' + 1", 11), "f-string: expecting '}' @1:10");
  EXPECT_EQ(error("x = f'{a}' f'{b'", 11), "f-string: expecting '}' @1:16");
  EXPECT_EQ(error("x = f'{a!r:'", 11), "f-string: expecting '}' @1:12");
  EXPECT_EQ(error("x = f'{a['b']}'", 11), "f-string: unmatched '[' @1:15");
  EXPECT_EQ(error("x = f'{\"abc}'", 11), "f-string: unterminated string @1:13");
  EXPECT_EQ(error("x = f'{a)}' + 1", 11), "f-string: unmatched ')' @1:12");
  EXPECT_EQ(error("x = f'{a + (b}'", 11),
            "f-string: closing parenthesis '}' does not match opening parenthesis '(' @1:15");
  EXPECT_EQ(error("x = f'{a:{b}}}'", 11), "f-string: single '}' is not allowed @1:15");
  // A newline in a one-line f-string ends it.
  EXPECT_EQ(error("x = f'{a\n}'", 11), "unterminated string literal (detected at line 1) @1:4");
  EXPECT_EQ(error("x = f'abc", 11), "unterminated string literal (detected at line 1) @1:4");
  // Errors inside nested f-strings gain a prefix per level.
  EXPECT_EQ(error("x = f'{f\"{a:{b:{c}}}\"}'", 11).substr(0, 49),
            "f-string: f-string: expressions nested too deeply");
  // A later unterminated string in the concatenation is reported first.
  EXPECT_EQ(error("x = f'{a}' f'{b' 'c\n", 11),
            "unterminated string literal (detected at line 1) @1:17");
}

TEST(Lexer, NeverCrashesOnOddInput) {
  const char* inputs[] = {"f'",
                          "f'{",
                          "f'{x",
                          "f'{x:",
                          "f'{x!",
                          "f'''{",
                          "\\",
                          "(\\",
                          "'\\",
                          "f'\\",
                          "f'{'",
                          "f'{\"",
                          "0x",
                          "1e",
                          "\xEF\xBB\xBF",
                          "\t\f ",
                          "if x:\n\ty\n  \tz",
                          "f'{x:{y:{z:{w}}}}'",
                          "rb'''",
                          "f'\\N{",
                          "{{{{"};
  for (int minor : {11, 12}) {
    for (const char* input : inputs) {
      SourceText source(input);
      LexResult r = lex(source, version(minor));
      ASSERT_FALSE(r.tokens.empty()) << input;
      TokenKind last = r.tokens.back().kind;
      EXPECT_TRUE(last == TokenKind::EndMarker || last == TokenKind::Error) << input;
      EXPECT_EQ(last == TokenKind::Error, r.error.has_value()) << input;
      for (const Token& t : r.tokens) {
        EXPECT_LE(t.begin, t.end) << input;
        EXPECT_LE(t.end, source.size()) << input;
      }
    }
  }
}

}  // namespace
}  // namespace graphmend
