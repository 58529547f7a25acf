// Text edits: validation, application and the line map of the result.
//
// Edits replace byte ranges of the original text; every byte outside them is copied
// unchanged. Edits must not overlap (two insertions at the same offset are applied in the
// order given); an insertion (begin == end) may touch a replacement's boundary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lex/token.h"
#include "rewrite/mend.h"

namespace graphmend::rewrite {

// Sorts `edits` by position (stable) and checks that they are in bounds and do not
// overlap. Returns false and sets *error when they are not applicable.
bool normalize_edits(std::vector<TextEdit>& edits, uint32_t text_size, std::string* error);

// Whether edit ranges `a` and `b` overlap (sharing only a boundary is not an overlap,
// except two identical insertion points, which are ordered by their caller).
bool edits_overlap(const TextEdit& a, const TextEdit& b);

// Whether an edit touches the byte range [begin, end], its ends included.
bool touches_any(const std::vector<TextEdit>& edits, uint32_t begin, uint32_t end);

// Appends line breaks to each replacement that has fewer of them than the text it replaces,
// so that the lines after it keep their numbers: a mended module then compiles with the
// original's line numbers and needs no renumbering. Only where a line break is legal: the
// replaced text ends its line (only blanks or a comment follow), or it lies inside
// (), [] or {} (`tokens`, the original's), where a line break is whitespace.
void pad_to_original_lines(std::string_view text, const std::vector<Token>& tokens,
                           std::vector<TextEdit>& edits);

// One piece of the mended text: copied from the original (edit == null), or an edit's
// replacement; where it lies in the mended text and where it starts in the original.
struct Segment {
  uint32_t mended_begin = 0;
  uint32_t mended_end = 0;
  uint32_t original_begin = 0;
  const TextEdit* edit = nullptr;
};

// The mended text that normalized `edits` make of an original of `original_size` bytes,
// as consecutive segments (edits that insert nothing give empty ones).
std::vector<Segment> segments_of(uint32_t original_size, const std::vector<TextEdit>& edits);

// Applies normalized edits to `text`.
std::string apply_edits(std::string_view text, const std::vector<TextEdit>& edits);

// line_map[i] = the 1-based line of `original` that mended line i+1 comes from. Lines in
// unchanged text map to themselves (shifted); the k-th line of a replacement maps to the
// k-th line of the range it replaced (the range's last line when the replacement has more
// lines); an inserted line maps to the original line where it was inserted.
std::vector<uint32_t> build_line_map(std::string_view original, std::string_view mended,
                                     const std::vector<TextEdit>& edits);

}  // namespace graphmend::rewrite
