// Unicode character classes (generated tables), strict UTF-8 and the binding hooks.
#include "base/unicode.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace graphmend::unicode {
namespace {

struct ClassCase {
  char32_t c;
  bool start;      // chr(c).isidentifier()
  bool cont;       // ("a" + chr(c)).isidentifier()
  bool printable;  // chr(c).isprintable()
};

// Values printed by python3.11 (and equal on 3.12) for code points whose classes are stable
// across Unicode versions.
constexpr ClassCase kClassCases[] = {
    {0x41, true, true, true},      {0x5F, true, true, true},      {0x30, false, true, true},
    {0x24, false, false, true},    {0xAA, true, true, true},      {0xB5, true, true, true},
    {0xB7, false, true, true},     {0xC0, true, true, true},      {0xD7, false, false, true},
    {0x660, false, true, true},    {0x200C, false, false, false}, {0x200D, false, false, false},
    {0x2118, true, true, true},    {0x212E, true, true, true},    {0x309B, false, false, true},
    {0x1885, true, true, true},    {0x2160, true, true, true},    {0x3000, false, false, false},
    {0x4E00, true, true, true},    {0xAC00, true, true, true},    {0x1F600, false, false, true},
    {0xFF10, false, true, true},   {0xFF21, true, true, true},    {0x10FFFF, false, false, false},
    {0xD800, false, false, false}, {0xE000, false, false, false}, {0x345, false, true, true},
    {0xA0, false, false, false},   {0xAD, false, false, false},   {0x2028, false, false, false},
    {0x378, false, false, false},  {0x1D400, true, true, true},   {0x20000, true, true, true},
    {0xE0100, false, true, true},  {0xFDD0, false, false, false},
};

TEST(UnicodeClasses, MatchPythonStrMethods) {
  for (const ClassCase& c : kClassCases) {
    EXPECT_EQ(is_xid_start(c.c), c.start) << std::hex << static_cast<uint32_t>(c.c);
    EXPECT_EQ(is_xid_continue(c.c), c.cont) << std::hex << static_cast<uint32_t>(c.c);
    EXPECT_EQ(is_printable(c.c), c.printable) << std::hex << static_cast<uint32_t>(c.c);
  }
}

TEST(UnicodeClasses, Ascii) {
  for (char32_t c = 0; c < 0x80; ++c) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    EXPECT_EQ(is_xid_start(c), letter) << static_cast<int>(c);
    EXPECT_EQ(is_xid_continue(c), letter || digit) << static_cast<int>(c);
    EXPECT_EQ(is_printable(c), c >= 0x20 && c < 0x7F) << static_cast<int>(c);
  }
  EXPECT_FALSE(is_xid_start(0x110000));
  EXPECT_FALSE(is_printable(0xFFFFFFFF));
}

// Decodes `bytes` as one sequence; returns the code point or -1, and checks *pos moves past
// it only on success.
long decode_one(std::string_view bytes, bool allow_surrogates = false) {
  size_t pos = 0;
  char32_t c = 0;
  if (!decode_utf8(bytes, &pos, &c, allow_surrogates)) {
    EXPECT_EQ(pos, 0u);
    return -1;
  }
  EXPECT_EQ(pos, bytes.size());
  return static_cast<long>(c);
}

TEST(Utf8, DecodesValidSequences) {
  EXPECT_EQ(decode_one("A"), 0x41);
  EXPECT_EQ(decode_one(std::string_view("\0", 1)), 0);
  EXPECT_EQ(decode_one("\xc2\x80"), 0x80);
  EXPECT_EQ(decode_one("\xdf\xbf"), 0x7FF);
  EXPECT_EQ(decode_one("\xe0\xa0\x80"), 0x800);
  EXPECT_EQ(decode_one("\xed\x9f\xbf"), 0xD7FF);
  EXPECT_EQ(decode_one("\xee\x80\x80"), 0xE000);
  EXPECT_EQ(decode_one("\xef\xbf\xbf"), 0xFFFF);
  EXPECT_EQ(decode_one("\xf0\x90\x80\x80"), 0x10000);
  EXPECT_EQ(decode_one("\xf4\x8f\xbf\xbf"), 0x10FFFF);
}

TEST(Utf8, RejectsMalformedSequences) {
  EXPECT_EQ(decode_one(""), -1);
  EXPECT_EQ(decode_one("\x80"), -1);              // lone continuation byte
  EXPECT_EQ(decode_one("\xc0\x80"), -1);          // overlong NUL
  EXPECT_EQ(decode_one("\xc1\xbf"), -1);          // overlong
  EXPECT_EQ(decode_one("\xe0\x9f\xbf"), -1);      // overlong 3-byte
  EXPECT_EQ(decode_one("\xf0\x8f\xbf\xbf"), -1);  // overlong 4-byte
  EXPECT_EQ(decode_one("\xf4\x90\x80\x80"), -1);  // > U+10FFFF
  EXPECT_EQ(decode_one("\xf5\x80\x80\x80"), -1);
  EXPECT_EQ(decode_one("\xff"), -1);
  EXPECT_EQ(decode_one("\xc3"), -1);  // truncated
  EXPECT_EQ(decode_one("\xe2\x82"), -1);
  EXPECT_EQ(decode_one("\xf0\x9f\x98"), -1);
  EXPECT_EQ(decode_one("\xe2\x28\xa1"), -1);  // bad continuation
}

TEST(Utf8, SurrogatesOnlyWhenAllowed) {
  EXPECT_EQ(decode_one("\xed\xa0\x80"), -1);
  EXPECT_EQ(decode_one("\xed\xbf\xbf"), -1);
  EXPECT_EQ(decode_one("\xed\xa0\x80", true), 0xD800);
  EXPECT_EQ(decode_one("\xed\xbf\xbf", true), 0xDFFF);
}

TEST(Utf8, AppendRoundTrips) {
  for (char32_t c = 0; c <= 0x10FFFF; c += (c < 0x11000 ? 1 : 97)) {
    std::string s;
    append_utf8(s, c);
    const bool surrogate = c >= 0xD800 && c <= 0xDFFF;
    EXPECT_EQ(decode_one(s, surrogate), static_cast<long>(c));
  }
  std::string s;
  append_utf8(s, 0xD800);
  EXPECT_EQ(s, "\xed\xa0\x80");
}

TEST(Utf8, FindInvalid) {
  EXPECT_EQ(find_invalid_utf8(""), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("abc \xc3\xa9 \xf0\x9f\x98\x80"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("ab\xc3"), 2u);
  EXPECT_EQ(find_invalid_utf8("ab\xed\xa0\x80"), 2u);
  EXPECT_EQ(find_invalid_utf8("\xc3\xa9\x80"), 2u);
}

bool fake_lookup(std::string_view name, char32_t* out) {
  if (name == "EM DASH") {
    *out = 0x2014;
    return true;
  }
  return false;
}

bool fake_normalize(std::string_view text, std::string* out) {
  *out = "normalized:" + std::string(text);
  return true;
}

TEST(Hooks, DefaultsAndInstalledHooks) {
  set_hooks(nullptr, nullptr);
  char32_t c = 0;
  EXPECT_TRUE(lookup_name("ANY NAME", &c));
  EXPECT_EQ(c, 0xFFFDu);
  EXPECT_EQ(nfkc("\xef\xac\x81"), "\xef\xac\x81");  // left as written without a hook

  set_hooks(fake_lookup, fake_normalize);
  EXPECT_TRUE(lookup_name("EM DASH", &c));
  EXPECT_EQ(c, 0x2014u);
  EXPECT_FALSE(lookup_name("NO SUCH NAME", &c));
  EXPECT_EQ(nfkc("abc"), "abc");  // ASCII never needs normalising
  EXPECT_EQ(nfkc("\xef\xac\x81"), "normalized:\xef\xac\x81");
  set_hooks(nullptr, nullptr);
}

}  // namespace
}  // namespace graphmend::unicode
