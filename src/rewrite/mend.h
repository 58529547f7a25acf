// The mender: source text in, mended source text and diagnostics out.
//
// Pipeline: parse -> sema::Analysis -> tag graph breaks -> run each rewrite on its tags
// (each yields a fix, as text edits, or a decline with a reason) -> apply the edits (non
// overlapping; every other byte unchanged) -> re-parse the result -> line map.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "lex/lexer.h"
#include "rewrite/registry.h"

namespace graphmend {

struct MendOptions {
  PythonVersion version;
  RewriteSet rewrites = RewriteSet::all();  // the rewrites switched on (rewrites.def)
  // Library code (the import hook): every function counts as traced.
  bool trace_all = false;
  // Qualified names of functions that count as traced besides those the text shows
  // (sema::AnalysisOptions::entry_points).
  std::vector<std::string> entry_points;
  // Runtime-aware mode: when not empty, only breaks whose source range contains one of
  // these 1-based lines (where Dynamo broke in a profiling run) are rewritten; the others
  // are reported as declined.
  std::vector<uint32_t> only_lines;
  // Runtime-aware mode: 1-based lines where Dynamo broke on a data-dependent jump. A
  // condition there is a tensor condition even when the text does not show it (its unknown
  // operands are assumed tensors and checked at run time; sema::TagOptions).
  std::vector<uint32_t> observed_lines;
  // Codes whose sites are left as written and reported as suppressed, as if a pragma named
  // them (a linter's configured ignore list).
  std::vector<std::string> suppressed_codes;
  // Also return the skeleton of the mended text (rewrite/skeleton.h), for the import hook.
  bool skeleton = false;
  // Also return the table of functions and classes (rewrite/definitions.h), for the object
  // mender.
  bool definitions = false;
};

// One graph-break site and what became of it.
struct MendDiagnostic {
  std::string code;     // GM1xx: the break's tag; see docs/DIAGNOSTICS.md
  uint32_t line = 0;    // 1-based, in the original source
  uint32_t column = 0;  // 0-based byte column
  uint32_t end_line = 0;
  uint32_t end_column = 0;
  std::string message;  // what breaks and why; for a decline, which safety condition failed
  bool fixed = false;   // true: rewritten; false: declined (left as it was)
  std::string rewrite;  // the rewrite's name (rewrites.def) or form ("cond"); "" when none applies
  std::string reason;   // for a decline: the condition that failed (the end of `message`)
  std::string reason_id;       // its stable id (diag/reasons.def); "" when fixed
  uint32_t suppressed_by = 0;  // the line of the pragma that suppressed it (rewrite/pragmas.h)
};

// A suppression comment of the input (rewrite/pragmas.h).
struct Pragma {
  uint32_t line = 0;               // 1-based line of the comment
  bool file_level = false;         // ignore-file
  std::vector<std::string> codes;  // empty: every code
  bool used = false;               // it suppressed at least one site
  // Where it is written (byte ranges of the source, all on `line`), for a tool that takes it
  // out: the comment token; the suppression in it, from the `#` that opens it (when only
  // blanks come between) to the end of `ignore`, `ignore-file` or `]`, or of a `noqa:` list;
  // a `noqa:` list (after the colon, up to a further `#`); and each GM code of the list or
  // the brackets, in the order of `codes`.
  bool noqa = false;  // a `noqa:` comment (else `graphmend: ignore`)
  Span comment;
  Span text;
  Span list;  // noqa only
  std::vector<Span> code_spans;
};

struct TextEdit {
  uint32_t begin = 0;  // byte range of the original source to replace
  uint32_t end = 0;
  std::string replacement;
};

// A function or class of the module, for the object mender: enough to find the definition
// of a live function and to compile it again.
struct Definition {
  bool is_class = false;
  std::string qualname;    // as CPython computes __qualname__ (`f.<locals>.g`, `C.m`)
  std::string class_name;  // the innermost enclosing class ("" if none): name mangling, super()
  // 1-based lines in the original text: the first (decorators included, CPython's
  // co_firstlineno) and the last.
  uint32_t first_line = 0;
  uint32_t last_line = 0;
  // The same lines in the mended text.
  uint32_t mended_first_line = 0;
  uint32_t mended_last_line = 0;
  bool touched = false;             // an edit lies inside (the mended text differs there)
  std::vector<std::string> params;  // positional-only, positional and keyword-only names
};

struct MendResult {
  std::string source;  // the mended text (== input when nothing changed or on error)
  bool changed = false;
  std::vector<MendDiagnostic> diagnostics;
  std::vector<TextEdit> edits;  // applied, sorted, non-overlapping
  // line_map[i] = the original 1-based line of mended line i+1.
  std::vector<uint32_t> line_map;
  std::optional<Diagnostic> error;  // the input does not parse (source is the input)
  // With MendOptions::skeleton and a changed text: the mended text with the bodies of the
  // functions no edit touches stubbed, and the first lines of those functions.
  std::string skeleton;
  std::vector<uint32_t> stubbed_lines;
  // With MendOptions::definitions and an input that parses: every function and class.
  std::vector<Definition> definitions;
  // The input's suppression comments, each marked used when it suppressed a site.
  std::vector<Pragma> pragmas;
};

MendResult mend_source(std::string_view source, std::string filename, const MendOptions& options);

}  // namespace graphmend
