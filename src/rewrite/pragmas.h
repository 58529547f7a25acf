// Suppression comments: `# graphmend: ignore[GM101, GM105]` (or a bare `# graphmend: ignore`)
// on a break's first line, `# graphmend: ignore-file[GM102]` (or bare) anywhere in the file,
// and `# noqa: GM101` (only its GM codes; a bare `# noqa` is meant for other linters). The
// mender leaves a suppressed site exactly as written, so every entry point (fix, the import
// hook, graphmend.mend, graphmend.compile) honours the same comments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/source.h"
#include "lex/token.h"
#include "rewrite/mend.h"

namespace graphmend::rewrite {

// The pragmas of the comment tokens, in source order, with where each is written.
std::vector<Pragma> find_pragmas(const SourceText& source, const std::vector<Token>& tokens);

// The pragma that suppresses `code` on `line` (line-level first, then file-level), marked
// used; null when none does.
const Pragma* suppressing(std::vector<Pragma>& pragmas, uint32_t line, std::string_view code);

}  // namespace graphmend::rewrite
