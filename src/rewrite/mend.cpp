// The mend facade: parse, analyse, tag, rewrite, apply, re-parse, check idempotence, map
// lines. Whatever goes wrong, the caller gets either the input unchanged or text that
// parses, never broken text.
#include "rewrite/mend.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ast/ast.h"
#include "base/arena.h"
#include "base/source.h"
#include "parse/parser.h"
#include "rewrite/edits.h"
#include "rewrite/rewrite.h"
#include "rewrite/skeleton.h"
#include "sema/sema.h"
#include "sema/tags.h"

namespace graphmend {
namespace {

// Codes of the mender itself (documented in docs/DIAGNOSTICS.md).
constexpr const char* kMendedDoesNotParse = "GM901";  // internal: a fix produced invalid text
constexpr const char* kNotIdempotent = "GM902";       // internal: mending the output edits again

constexpr std::string_view kRuntimeModule = "graphmend.runtime";

// A parsed text with everything that must outlive its AST.
struct Parsed {
  SourceText source;
  Arena arena;
  ParseResult parse;

  Parsed(std::string text, std::string filename, PythonVersion version)
      : source(std::move(text), std::move(filename)) {
    parse = parse_module(source, arena, ParseOptions{version});
  }
  bool ok() const { return parse.module != nullptr && !parse.error; }
};

// One tag and what the rewrites made of it.
struct TagResult {
  MendDiagnostic diagnostic;
  std::vector<TextEdit> edits;  // when fixed
  bool needs_runtime = false;
};

MendDiagnostic diagnostic_at(const SourceText& source, const ast::Node& node, std::string code) {
  MendDiagnostic d;
  d.code = std::move(code);
  LineCol begin = source.line_col(std::min(node.begin, source.size()));
  LineCol end = source.line_col(std::min(node.end, source.size()));
  d.line = begin.line;
  d.column = begin.column;
  d.end_line = end.line;
  d.end_column = end.column;
  return d;
}

const char* rewrite_name_for(sema::BreakKind kind) {
  switch (kind) {
    case sema::BreakKind::PrintCall:
    case sema::BreakKind::LoggingCall:
    case sema::BreakKind::WarningsCall:
      return "defer";
    case sema::BreakKind::ValidationGuard:
    case sema::BreakKind::TensorCheck:
    case sema::BreakKind::TensorAssert:
      return "trap";
    case sema::BreakKind::DataDependentBranch:
      return "where";
    default:
      return "";
  }
}

bool rewrite_enabled(sema::BreakKind kind, const MendOptions& options) {
  std::string_view name = rewrite_name_for(kind);
  if (name == "defer") return options.defer;
  if (name == "trap") return options.trap;
  if (name == "where") return options.where;
  return false;
}

// Runs the rewrite that handles `tag`; std::nullopt when none does.
std::optional<rewrite::Outcome> run_rewrite(const sema::BreakTag& tag, rewrite::Context& context) {
  std::string_view name = rewrite_name_for(tag.kind);
  if (name == "defer") return rewrite::rewrite_defer(tag, context);
  if (name == "trap") return rewrite::rewrite_trap(tag, context);
  if (name == "where") return rewrite::rewrite_where(tag, context);
  return std::nullopt;
}

std::string declined(const sema::BreakTag& tag, std::string_view reason) {
  std::string message = tag.message.empty() ? sema::break_summary(tag.kind) : tag.message;
  message += "; not rewritten: ";
  message += reason;
  return message;
}

// Whether the runtime-aware line filter (empty: none) selects the break at `d`.
bool selected_by_lines(const MendDiagnostic& d, const std::vector<uint32_t>& only_lines) {
  if (only_lines.empty()) return true;
  for (uint32_t line : only_lines) {
    if (d.line <= line && line <= std::max(d.line, d.end_line)) return true;
  }
  return false;
}

TagResult handle_tag(const sema::BreakTag& tag, rewrite::Context& context) {
  const ast::Node* anchor = tag.site ? tag.site : static_cast<const ast::Node*>(tag.statement);
  TagResult result;
  if (anchor == nullptr) {
    result.diagnostic.code = sema::break_code(tag.kind);
    result.diagnostic.message = declined(tag, "the break has no source location");
    return result;
  }
  result.diagnostic = diagnostic_at(context.source, *anchor, sema::break_code(tag.kind));
  result.diagnostic.rewrite = rewrite_name_for(tag.kind);
  std::string_view name = result.diagnostic.rewrite;
  if (name.empty()) {
    result.diagnostic.message = declined(
        tag, std::string("out of scope: no rewrite handles a ") + sema::break_summary(tag.kind));
    return result;
  }
  if (!selected_by_lines(result.diagnostic, context.options.only_lines)) {
    result.diagnostic.message = declined(tag, "Dynamo did not break here in the profiling run");
    return result;
  }
  if (!rewrite_enabled(tag.kind, context.options)) {
    result.diagnostic.message =
        declined(tag, "the [" + std::string(name) + "] rewrite is disabled");
    return result;
  }
  std::optional<rewrite::Outcome> outcome = run_rewrite(tag, context);
  if (!outcome) {
    result.diagnostic.message = declined(tag, "no rewrite applies to this break");
    return result;
  }
  if (!outcome->rewrite.empty()) result.diagnostic.rewrite = outcome->rewrite;
  if (!outcome->fixed) {
    result.diagnostic.message =
        declined(tag, outcome->reason.empty() ? "the rewrite declined" : outcome->reason);
    // A declined rewrite may still edit, to keep the order of side effects (defer.cpp).
    result.edits = std::move(outcome->edits);
    result.needs_runtime = outcome->needs_runtime;
    return result;
  }
  result.diagnostic.fixed = true;
  result.diagnostic.message = tag.message.empty() ? sema::break_summary(tag.kind) : tag.message;
  // A fix without edits of its own is part of an enclosing statement's fix (an inner if of
  // a predicated chain); the reason says which.
  if (outcome->edits.empty() && !outcome->reason.empty()) {
    result.diagnostic.message += " (" + outcome->reason + ")";
  }
  result.edits = std::move(outcome->edits);
  result.needs_runtime = outcome->needs_runtime;
  return result;
}

bool overlaps_any(const std::vector<TextEdit>& edits, const std::vector<TextEdit>& accepted) {
  for (const TextEdit& a : edits) {
    for (const TextEdit& b : accepted) {
      if (rewrite::edits_overlap(a, b) ||
          (a.begin != a.end && b.begin != b.end && a.begin < b.end && b.begin < a.end)) {
        return true;
      }
    }
  }
  return false;
}

// Every tag of the module through its rewrite. Fixes whose edits would overlap an
// earlier fix are declined (the outer statement, earlier in source order, wins).
// With `only_within`, only the functions meeting those ranges are tagged.
std::vector<TagResult> run_rewrites(const Parsed& parsed, const MendOptions& options,
                                    const std::vector<sema::ByteRange>* only_within = nullptr) {
  std::vector<TagResult> results;
  sema::AnalysisOptions analysis_options;
  analysis_options.trace_all = options.trace_all;
  std::unique_ptr<sema::Analysis> analysis =
      sema::Analysis::run(*parsed.parse.module, parsed.source, analysis_options);
  if (!analysis) return results;
  std::vector<sema::BreakTag> tags = sema::tag_breaks(*parsed.parse.module, *analysis, only_within);
  rewrite::Context context{parsed.source, *parsed.parse.module, *analysis, options};
  std::vector<TextEdit> accepted;
  for (const sema::BreakTag& tag : tags) {
    TagResult result = handle_tag(tag, context);
    if (!result.edits.empty()) {
      std::string error;
      std::vector<TextEdit> own = result.edits;
      if (!rewrite::normalize_edits(own, parsed.source.size(), &error)) {
        if (result.diagnostic.fixed) {
          result.diagnostic.message = declined(tag, "internal: invalid edits (" + error + ")");
        }
        result.diagnostic.fixed = false;
        result.edits.clear();
      } else if (overlaps_any(own, accepted)) {
        if (result.diagnostic.fixed) {
          result.diagnostic.message = declined(tag, "its fix overlaps the fix of another break");
        }
        result.diagnostic.fixed = false;
        result.edits.clear();
      } else {
        accepted.insert(accepted.end(), own.begin(), own.end());
      }
    }
    results.push_back(std::move(result));
  }
  return results;
}

bool is_docstring(const ast::stmt* statement) {
  const auto* expression = ast::as<ast::Expr>(statement);
  if (expression == nullptr) return false;
  const auto* constant = ast::as<ast::Constant>(expression->value);
  return constant != nullptr && constant->value.type == ast::ConstantValue::Type::Str;
}

bool is_future_import(const ast::stmt* statement) {
  const auto* import = ast::as<ast::ImportFrom>(statement);
  return import != nullptr && import->module == "__future__" && import->level == 0;
}

// Whether the module already has `import graphmend.runtime as <runtime>` at top level.
bool imports_runtime(const ast::Module& module, std::string_view runtime) {
  for (const ast::stmt* statement : module.body) {
    const auto* import = ast::as<ast::Import>(statement);
    if (import == nullptr) continue;
    for (const ast::alias* alias : import->names) {
      if (alias->name == kRuntimeModule && alias->asname == runtime) return true;
    }
  }
  return false;
}

// A statement that can share its line with `import ...; ` in front of it.
bool is_simple_statement(const ast::stmt* statement) {
  switch (statement->kind) {
    case ast::Kind::FunctionDef:
    case ast::Kind::AsyncFunctionDef:
    case ast::Kind::ClassDef:
    case ast::Kind::For:
    case ast::Kind::AsyncFor:
    case ast::Kind::While:
    case ast::Kind::If:
    case ast::Kind::With:
    case ast::Kind::AsyncWith:
    case ast::Kind::Match:
    case ast::Kind::Try:
    case ast::Kind::TryStar:
      return false;
    default:
      return true;
  }
}

// The edit inserting the runtime import after the docstring and `from __future__` imports.
// In front of the next statement on its own line (`import ...; import torch`) when that
// statement is simple and no other edit touches it, so no line moves and the mended module
// keeps the original's line numbers; otherwise on a line of its own.
TextEdit runtime_import_edit(const Parsed& parsed, std::string_view runtime,
                             const std::vector<TextEdit>& other_edits) {
  const ast::Module& module = *parsed.parse.module;
  const SourceText& source = parsed.source;
  std::string line = "import " + std::string(kRuntimeModule) + " as " + std::string(runtime);
  uint32_t skipped = 0;
  while (skipped < module.body.size && ((skipped == 0 && is_docstring(module.body[0])) ||
                                        is_future_import(module.body[skipped]))) {
    ++skipped;
  }
  if (skipped < module.body.size) {
    const ast::stmt* next = module.body[skipped];
    uint32_t begin = rewrite::statement_start(next);
    if (is_simple_statement(next) && source.line_start(source.line_col(begin).line) == begin &&
        !rewrite::touches_any(other_edits, begin, next->end)) {
      return TextEdit{begin, begin, line + "; "};
    }
  }
  uint32_t offset = 0;
  if (skipped > 0) {
    uint32_t last_line = source.line_col(module.body[skipped - 1]->end).line;
    offset = source.line_start(last_line + 1);
  } else if (module.body.size > 0) {
    offset = source.line_start(source.line_col(rewrite::statement_start(module.body[0])).line);
  } else {
    offset = source.line_start(1);
  }
  std::string_view text = source.text();
  // Use the file's own line break style.
  std::string newline = text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  TextEdit edit{offset, offset, line + newline};
  if (offset == source.size() && offset > 0 && text.back() != '\n' && text.back() != '\r') {
    edit.replacement = newline + edit.replacement;
  }
  return edit;
}

MendDiagnostic internal_diagnostic(const char* code, std::string message) {
  MendDiagnostic d;
  d.code = code;
  d.line = 1;
  d.end_line = 1;
  d.message = std::move(message);
  return d;
}

// The edits of the fixed results, plus the runtime import when a fix needs it.
std::vector<TextEdit> collect_edits(const Parsed& parsed, const std::vector<TagResult>& results,
                                    std::string_view runtime) {
  std::vector<TextEdit> edits;
  bool needs_runtime = false;
  for (const TagResult& result : results) {
    if (result.edits.empty()) continue;
    edits.insert(edits.end(), result.edits.begin(), result.edits.end());
    needs_runtime = needs_runtime || result.needs_runtime;
  }
  if (needs_runtime && !imports_runtime(*parsed.parse.module, runtime)) {
    edits.push_back(runtime_import_edit(parsed, runtime, edits));
  }
  rewrite::pad_to_original_lines(parsed.source.text(), parsed.parse.tokens, edits);
  return edits;
}

// Applies `edits` and re-parses; returns the parsed text when it parses.
std::unique_ptr<Parsed> apply_and_check(const Parsed& parsed, std::vector<TextEdit> edits,
                                        const MendOptions& options, std::string* error) {
  if (!rewrite::normalize_edits(edits, parsed.source.size(), error)) return nullptr;
  auto reparsed = std::make_unique<Parsed>(rewrite::apply_edits(parsed.source.text(), edits),
                                           parsed.source.filename(), options.version);
  if (!reparsed->ok()) {
    if (error && reparsed->parse.error) *error = reparsed->parse.error->message;
    return nullptr;
  }
  return reparsed;
}

// Applies the results' edits and re-parses: the mended text, parsed, or null when it is the
// input (no edits). A fix whose text does not parse is declined; when the whole still does
// not parse, every fix is declined and null comes back with a GM901 diagnostic.
std::unique_ptr<Parsed> apply_results(const Parsed& parsed, std::vector<TagResult>& results,
                                      const MendOptions& options, std::string_view runtime,
                                      std::vector<MendDiagnostic>& internal) {
  std::vector<TextEdit> edits = collect_edits(parsed, results, runtime);
  if (edits.empty()) return nullptr;
  std::string error;
  std::unique_ptr<Parsed> mended = apply_and_check(parsed, std::move(edits), options, &error);
  if (mended) return mended;
  for (TagResult& tag_result : results) {
    if (tag_result.edits.empty()) continue;
    std::vector<TagResult> alone;
    alone.push_back(tag_result);
    std::string own_error;
    if (!apply_and_check(parsed, collect_edits(parsed, alone, runtime), options, &own_error)) {
      if (tag_result.diagnostic.fixed) {
        tag_result.diagnostic.message +=
            "; not rewritten: internal: the rewritten text does not parse (" + own_error + ")";
      }
      tag_result.diagnostic.fixed = false;
      tag_result.edits.clear();
      internal.push_back(internal_diagnostic(
          kMendedDoesNotParse, "internal: a fix produced text that does not parse (" + own_error +
                                   "); the fix is not applied"));
      internal.back().line = internal.back().end_line = tag_result.diagnostic.line;
    }
  }
  mended = apply_and_check(parsed, collect_edits(parsed, results, runtime), options, &error);
  if (mended) return mended;
  for (TagResult& tag_result : results) {
    if (tag_result.diagnostic.fixed) {
      tag_result.diagnostic.message += "; not rewritten: the mended file does not parse";
    }
    tag_result.diagnostic.fixed = false;
    tag_result.edits.clear();
  }
  internal.push_back(
      internal_diagnostic(kMendedDoesNotParse, "internal: the mended source does not parse (" +
                                                   error + "); the input is returned unchanged"));
  return nullptr;
}

// Where `edits` (normalized) put their text in the mended source.
std::vector<sema::ByteRange> mended_ranges(uint32_t original_size,
                                           const std::vector<TextEdit>& edits) {
  std::vector<sema::ByteRange> ranges;
  for (const rewrite::Segment& segment : rewrite::segments_of(original_size, edits)) {
    if (segment.edit != nullptr) ranges.push_back({segment.mended_begin, segment.mended_end});
  }
  return ranges;
}

// The original lines the mender would rewrite again in `mended` (empty: a fixed point).
// Only the functions the edits touched are looked at: the others are the original text,
// and no fix's edits lie in them, so a second rewrite there could decline nothing.
std::vector<std::pair<uint32_t, std::string>> rewritten_again(
    const Parsed& again, const MendOptions& options, uint32_t original_size,
    const std::vector<TextEdit>& edits, const std::vector<uint32_t>& line_map) {
  std::vector<std::pair<uint32_t, std::string>> lines;
  MendOptions second_options = options;
  if (!options.only_lines.empty()) {
    // The filter names original lines; the second pass sees mended ones.
    second_options.only_lines.clear();
    for (uint32_t i = 0; i < line_map.size(); ++i) {
      if (std::find(options.only_lines.begin(), options.only_lines.end(), line_map[i]) !=
          options.only_lines.end()) {
        second_options.only_lines.push_back(i + 1);
      }
    }
    if (second_options.only_lines.empty()) return lines;
  }
  std::vector<sema::ByteRange> touched = mended_ranges(original_size, edits);
  for (const TagResult& second : run_rewrites(again, second_options, &touched)) {
    if (!second.diagnostic.fixed) continue;
    uint32_t line = second.diagnostic.line;
    if (line >= 1 && line <= line_map.size()) line = line_map[line - 1];
    lines.emplace_back(line, second.diagnostic.rewrite);
  }
  return lines;
}

}  // namespace

MendResult mend_source(std::string_view source, std::string filename, const MendOptions& options) {
  MendResult result;
  result.source = std::string(source);
  Parsed parsed(std::string(source), filename, options.version);
  if (!parsed.ok()) {
    result.error = parsed.parse.error.value_or(
        Diagnostic{codes::kSyntaxError, Severity::Error, {0, 0}, "invalid syntax"});
    return result;
  }
  const std::string runtime = "__graphmend_rt__";
  std::vector<TagResult> results = run_rewrites(parsed, options);
  std::vector<MendDiagnostic> internal;
  std::unique_ptr<Parsed> mended = apply_results(parsed, results, options, runtime, internal);
  std::vector<TextEdit> edits;
  std::vector<uint32_t> line_map;
  auto settle = [&] {
    edits = collect_edits(parsed, results, runtime);
    std::string error;
    rewrite::normalize_edits(edits, parsed.source.size(), &error);
    if (!mended || mended->source.text() == source) {
      mended.reset();
      edits.clear();
    }
    line_map = rewrite::build_line_map(source, mended ? mended->source.text() : source, edits);
  };
  settle();

  // Idempotence: the mended text must be a fixed point of the mender. A fix whose output
  // would be rewritten again is not applied (GM902).
  for (int round = 0; round < 3 && mended; ++round) {
    auto again = rewritten_again(*mended, options, parsed.source.size(), edits, line_map);
    if (again.empty()) break;
    bool declined_any = false;
    for (const auto& [line, rewrite_name] : again) {
      internal.push_back(
          internal_diagnostic(kNotIdempotent, "internal: mending the mended source rewrites line " +
                                                  std::to_string(line) + " again (" + rewrite_name +
                                                  "); the fix is not applied"));
      internal.back().line = internal.back().end_line = line;
      for (TagResult& tag_result : results) {
        bool covers = false;
        for (const TextEdit& edit : tag_result.edits) {
          covers = covers || (parsed.source.line_col(edit.begin).line <= line &&
                              line <= parsed.source.line_col(edit.end).line);
        }
        if (!covers) continue;
        if (tag_result.diagnostic.fixed) {
          tag_result.diagnostic.message +=
              "; not rewritten: internal: its output would be rewritten again";
        }
        tag_result.diagnostic.fixed = false;
        tag_result.edits.clear();
        declined_any = true;
      }
    }
    if (!declined_any) break;
    mended = apply_results(parsed, results, options, runtime, internal);
    settle();
  }

  for (TagResult& tag_result : results)
    result.diagnostics.push_back(std::move(tag_result.diagnostic));
  for (MendDiagnostic& d : internal) result.diagnostics.push_back(std::move(d));
  result.changed = mended != nullptr;
  if (mended) result.source = std::string(mended->source.text());
  if (options.skeleton && result.changed) {
    rewrite::Skeleton skeleton =
        rewrite::build_skeleton(parsed.source, *parsed.parse.module, edits);
    result.skeleton = std::move(skeleton.text);
    result.stubbed_lines = std::move(skeleton.stubbed_lines);
  }
  result.edits = std::move(edits);
  result.line_map = std::move(line_map);
  return result;
}

}  // namespace graphmend
