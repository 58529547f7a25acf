// String, bytes and number literal decoding, checked against CPython 3.11 (ast.parse of the
// literal shown in each comment; messages are CPython's SyntaxError text).
#include "parse/literals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "base/unicode.h"

namespace graphmend {
namespace {

using ast::ConstantValue;
using Type = ConstantValue::Type;

// Decodes a literal body; returns the value, or "ERROR: <message>".
std::string decode(std::string_view prefix, std::string_view body) {
  std::string out;
  auto error = decode_string_body(body, 0, parse_string_prefix(prefix), out);
  if (error) return "ERROR: " + error->message;
  return out;
}

bool test_lookup(std::string_view name, char32_t* out) {
  if (name == "LATIN SMALL LETTER A" || name == "latin small letter a") {
    *out = 'a';
    return true;
  }
  if (name == "EM DASH") {
    *out = 0x2014;
    return true;
  }
  return false;
}

class Literals : public ::testing::Test {
 protected:
  void SetUp() override { unicode::set_hooks(test_lookup, nullptr); }
  void TearDown() override { unicode::set_hooks(nullptr, nullptr); }
};

TEST(StringPrefix, Letters) {
  StringPrefix p = parse_string_prefix("");
  EXPECT_FALSE(p.raw || p.bytes || p.unicode || p.format);
  p = parse_string_prefix("Rb");
  EXPECT_TRUE(p.raw && p.bytes && !p.unicode && !p.format);
  p = parse_string_prefix("u");
  EXPECT_TRUE(p.unicode && !p.raw);
  p = parse_string_prefix("fR");
  EXPECT_TRUE(p.format && p.raw && !p.bytes);
}

TEST_F(Literals, SimpleEscapes) {
  EXPECT_EQ(decode("", R"(\\\'\"\a\b\f\n\r\t\v)"), "\\'\"\a\b\f\n\r\t\v");
  EXPECT_EQ(decode("", "plain text"), "plain text");
}

TEST_F(Literals, OctalEscapes) {
  EXPECT_EQ(decode("", R"(\0)"), std::string(1, '\0'));  // '\0'
  EXPECT_EQ(decode("", R"(\12a)"), "\na");               // '\12a'
  EXPECT_EQ(decode("", R"(\1234)"), "S4");               // at most three digits
  EXPECT_EQ(decode("", R"(\777)"), "\xc7\xbf");          // '\777' == 'ǿ' (U+01FF)
  EXPECT_EQ(decode("b", R"(\777)"), "\xff");             // b'\777' == b'\xff'
  EXPECT_EQ(decode("b", R"(\400)"), std::string(1, '\0'));
}

TEST_F(Literals, HexAndUnicodeEscapes) {
  EXPECT_EQ(decode("", R"(\x41\u00e9\U0001F600)"), "A\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(decode("", R"(\U0010FFFF)"), "\xf4\x8f\xbf\xbf");
  EXPECT_EQ(decode("", R"(\ud800)"), "\xed\xa0\x80");  // lone surrogate, 3 bytes
  EXPECT_EQ(decode("b", R"(\x41\xff)"), "A\xff");
}

TEST_F(Literals, TruncatedEscapesAreErrors) {
  EXPECT_EQ(decode("", R"(\x4)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: "
            "truncated \\xXX escape");
  EXPECT_EQ(decode("", R"(\x)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: "
            "truncated \\xXX escape");
  EXPECT_EQ(decode("", R"(ab\xZZ)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 2-3: "
            "truncated \\xXX escape");
  EXPECT_EQ(decode("", R"(\u12)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-3: "
            "truncated \\uXXXX escape");
  EXPECT_EQ(decode("", R"(\U0011000)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: "
            "truncated \\UXXXXXXXX escape");
  EXPECT_EQ(decode("", R"(\U00110000)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: "
            "illegal Unicode character");
  // 'é\x4': CPython counts each non-ASCII character as the 10 bytes of "\U000000e9"
  EXPECT_EQ(decode("", "\xc3\xa9\\x4"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 10-12: "
            "truncated \\xXX escape");
  EXPECT_EQ(decode("b", R"(\x4)"), "ERROR: (value error) invalid \\x escape at position 0");
  EXPECT_EQ(decode("b", R"(ab\x)"), "ERROR: (value error) invalid \\x escape at position 2");
}

TEST_F(Literals, NamedEscapes) {
  EXPECT_EQ(decode("", R"(\N{LATIN SMALL LETTER A}\N{EM DASH})"), "a\xe2\x80\x94");
  EXPECT_EQ(decode("", R"(\N{FOO})"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: "
            "unknown Unicode character name");
  EXPECT_EQ(decode("", R"(\N)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: "
            "malformed \\N character escape");
  EXPECT_EQ(decode("", R"(\N{)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: "
            "malformed \\N character escape");
  EXPECT_EQ(decode("", R"(\N{})"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: "
            "malformed \\N character escape");
  EXPECT_EQ(decode("", R"(\N{DASH)"),
            "ERROR: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: "
            "malformed \\N character escape");
  // \u, \U and \N are not escapes in bytes
  EXPECT_EQ(decode("b", R"(\u1234\N{DASH})"), R"(\u1234\N{DASH})");
}

TEST_F(Literals, UnknownEscapesAreKept) {
  EXPECT_EQ(decode("", R"(\8\q\{)"), R"(\8\q\{)");
  EXPECT_EQ(decode("", "\\\xc3\xa9"), "\\\xc3\xa9");  // '\é'
  EXPECT_EQ(decode("b", R"(\q)"), R"(\q)");
}

TEST_F(Literals, LineBreaks) {
  EXPECT_EQ(decode("", "a\\\nb"), "ab");  // backslash-newline is removed
  EXPECT_EQ(decode("", "a\\\r\nb"), "ab");
  EXPECT_EQ(decode("", "a\\\rb"), "ab");
  EXPECT_EQ(decode("", "a\r\nb\rc\n"), "a\nb\nc\n");  // raw line breaks become \n
  EXPECT_EQ(decode("r", "a\r\nb\\\r\n"), "a\nb\\\n");
  EXPECT_EQ(decode("b", "a\\\nb\r\n"), "ab\n");
  EXPECT_EQ(decode("rb", "a\\\r\nb"), "a\\\nb");
}

TEST_F(Literals, RawStringsKeepEverything) {
  EXPECT_EQ(decode("r", R"(\n\x\N{FOO}\)"), R"(\n\x\N{FOO}\)");
  EXPECT_EQ(decode("rb", R"(\x\777)"), R"(\x\777)");
  EXPECT_EQ(decode("R", "\xc3\xa9\\"), "\xc3\xa9\\");
}

TEST_F(Literals, BytesMustBeAscii) {
  EXPECT_EQ(decode("b", "\xc3\xa9"), "ERROR: bytes can only contain ASCII literal characters");
  EXPECT_EQ(decode("rb", "a\xc3\xa9"), "ERROR: bytes can only contain ASCII literal characters");
}

TEST_F(Literals, ErrorOffsetPointsAtTheEscape) {
  std::string out;
  auto error = decode_string_body(R"(ab\x4)", 100, parse_string_prefix(""), out);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->offset, 102u);
}

TEST_F(Literals, NeverCrashesOnArbitraryBytes) {
  std::mt19937 rng(12345);
  const char* prefixes[] = {"", "r", "b", "rb", "f", "u"};
  const char pieces[] = "\\\\xuUN{}0789aAfF\r\n'\"\x80\xc3\xa9\xed\xa0\xf0\xff";
  for (int round = 0; round < 20000; ++round) {
    std::string body;
    const int length = static_cast<int>(rng() % 12);
    for (int i = 0; i < length; ++i) body.push_back(pieces[rng() % (sizeof pieces - 1)]);
    std::string out;
    (void)decode_string_body(body, 0, parse_string_prefix(prefixes[round % 6]), out);
  }
}

ConstantValue number(std::string_view text, std::string* error = nullptr) {
  static Arena arena;
  ConstantValue value;
  auto result = parse_number(text, 0, arena, value);
  if (result && error) *error = result->message;
  if (result) value.type = Type::None;
  return value;
}

TEST(Numbers, IntsKeepTheirTextWithoutUnderscores) {
  EXPECT_EQ(number("123").type, Type::Int);
  EXPECT_EQ(number("1_000").text, "1000");
  EXPECT_EQ(number("0x_1F").text, "0x1F");
  EXPECT_EQ(number("0o17").text, "0o17");
  EXPECT_EQ(number("0B1_0").text, "0B10");
  EXPECT_EQ(number("00").text, "00");
}

TEST(Numbers, Floats) {
  EXPECT_EQ(number("1.5").type, Type::Float);
  EXPECT_EQ(number("1.5").number, 1.5);
  EXPECT_EQ(number("1_2.3_4e-1_0").number, 12.34e-10);
  EXPECT_EQ(number("1.").number, 1.0);
  EXPECT_EQ(number(".5").number, 0.5);
  EXPECT_EQ(number("0e0").number, 0.0);
  EXPECT_EQ(number("1e-320").number, 1e-320);  // subnormal
  EXPECT_EQ(number("4.9e-324").number, 5e-324);
  EXPECT_TRUE(std::isinf(number("1e999").number));  // overflows to inf, as in CPython
  EXPECT_EQ(number("1e-999").number, 0.0);
  EXPECT_EQ(number("1.7976931348623159e308").number, HUGE_VAL);
  EXPECT_EQ(number("0.00001e310").number, 1e305);
  EXPECT_TRUE(std::isinf(number("0.1e310").number));
  EXPECT_EQ(number("100000e-330").number, 0.0);  // below the smallest subnormal
  EXPECT_EQ(number("0.0000000000000000000000000000000001e-300").number, 0.0);
}

TEST(Numbers, Imaginary) {
  EXPECT_EQ(number("3j").type, Type::Complex);
  EXPECT_EQ(number("3j").number, 3.0);
  EXPECT_EQ(number("1.5e3J").number, 1500.0);
  EXPECT_EQ(number("1_0j").number, 10.0);
  EXPECT_TRUE(std::isinf(number("1e999j").number));
}

TEST(Numbers, DecimalDigitLimit) {
  EXPECT_EQ(number(std::string(4300, '1')).type, Type::Int);
  std::string error;
  EXPECT_EQ(number(std::string(4301, '1'), &error).type, Type::None);
  EXPECT_EQ(error,
            "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 "
            "digits; use sys.set_int_max_str_digits() to increase the limit - Consider "
            "hexadecimal for huge integer literals to avoid decimal conversion limits.");
  EXPECT_EQ(number("0x" + std::string(5000, 'f')).type, Type::Int);  // no limit for hex
  EXPECT_EQ(number(std::string(5000, '0')).type, Type::Int);
}

}  // namespace
}  // namespace graphmend
