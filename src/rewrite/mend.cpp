// The mend facade: parse, analyse, tag, rewrite, apply, re-parse, check idempotence, map
// lines. Whatever goes wrong, the caller gets either the input unchanged or text that
// parses, never broken text.
#include "rewrite/mend.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ast/ast.h"
#include "base/arena.h"
#include "base/source.h"
#include "diag/reasons.h"
#include "parse/parser.h"
#include "rewrite/definitions.h"
#include "rewrite/edits.h"
#include "rewrite/pragmas.h"
#include "rewrite/rewrite.h"
#include "rewrite/runtime_import.h"
#include "rewrite/skeleton.h"
#include "sema/sema.h"
#include "sema/tags.h"

namespace graphmend {
namespace {

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
  std::vector<TextEdit> edits;             // when fixed
  std::vector<const ast::Node*> absorbed;  // other tags' sites the fix removes (Outcome)
  rewrite::Outcome::Absorbed absorbed_as = rewrite::Outcome::Absorbed::Deferred;
  std::vector<const ast::Node*> relies_on;    // functions the fix needs mended (Outcome)
  std::vector<const ast::Node*> pays_off_in;  // nodes other fixes must rewrite (Outcome)
  reasons::Problem unpaid;                    // the decline when they do not (Outcome)
  bool needs_runtime = false;
};

// Whether tags of `kind` run after every other tag (rewrites.def's AfterOthers).
bool tag_runs_after_others(sema::BreakKind kind) {
  std::optional<RewriteKind> owner = rewrite::owner_of(kind);
  return owner && graphmend::runs_after_others(*owner);
}

// How a site `fix` absorbed now runs, for its message: " (... at line <fix's line> ...)". A
// site of a tag that runs after the others is a scalar read a deferred call converts.
std::string absorbed_note(const TagResult& fix, bool site_runs_after_others) {
  std::string line = std::to_string(fix.diagnostic.line);
  if (fix.absorbed_as == rewrite::Outcome::Absorbed::RunOnFailure)
    return " (run eagerly, only when the guard at line " + line + " fails)";
  if (fix.absorbed_as == rewrite::Outcome::Absorbed::Rewritten)
    return " (rewritten with the fix of line " + line + ")";
  return site_runs_after_others ? " (converted when the call at line " + line + " replays)"
                                : " (deferred with the branch at line " + line + ")";
}

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

// Records a decline on `d`: the detail ends the message, the reason gives its id.
void add_decline(MendDiagnostic& d, reasons::Reason reason, std::string_view detail) {
  d.message += "; not rewritten: ";
  d.message += detail;
  d.reason = std::string(detail);
  d.reason_id = reasons::id(reason);
}

// `d` declined for `reason`, its message the tag's.
void decline(MendDiagnostic& d, const sema::BreakTag& tag, reasons::Reason reason,
             std::string_view detail) {
  d.message = tag.message.empty() ? sema::break_summary(tag.kind) : tag.message;
  add_decline(d, reason, detail);
}

// Whether the runtime-aware line filter (empty: none) selects the break at `d`.
bool selected_by_lines(const MendDiagnostic& d, const std::vector<uint32_t>& only_lines) {
  if (only_lines.empty()) return true;
  for (uint32_t line : only_lines) {
    if (d.line <= line && line <= std::max(d.line, d.end_line)) return true;
  }
  return false;
}

TagResult handle_tag(const sema::BreakTag& tag, rewrite::Context& context,
                     std::vector<Pragma>& pragmas) {
  const ast::Node* anchor = tag.site ? tag.site : static_cast<const ast::Node*>(tag.statement);
  TagResult result;
  if (anchor == nullptr) {
    result.diagnostic.code = sema::break_code(tag.kind);
    decline(result.diagnostic, tag, reasons::Reason::NoLocation,
            "the break has no source location");
    return result;
  }
  result.diagnostic = diagnostic_at(context.source, *anchor, sema::break_code(tag.kind));
  // A suppressed site is left as written: no rewrite runs, no edit is made.
  if (const Pragma* pragma =
          rewrite::suppressing(pragmas, result.diagnostic.line, result.diagnostic.code)) {
    decline(result.diagnostic, tag, reasons::Reason::Suppressed,
            "suppressed by a pragma on line " + std::to_string(pragma->line));
    result.diagnostic.suppressed_by = pragma->line;
    return result;
  }
  const std::vector<std::string>& ignored = context.options.suppressed_codes;
  if (std::find(ignored.begin(), ignored.end(), result.diagnostic.code) != ignored.end()) {
    decline(result.diagnostic, tag, reasons::Reason::Suppressed, "suppressed by the configuration");
    return result;
  }
  // Mended code mended again leaves GraphMend's own fallbacks as they are.
  if (tag.in_mended_fallback) {
    decline(result.diagnostic, tag, reasons::Reason::PredicatedFallback,
            "fallback branch of an already predicated if (GraphMend's own code: the original, "
            "run where the mended form's run-time check fails)");
    return result;
  }
  // torch 2.13's Dynamo drops attribute stores on an optimizer in compiled code: a fix that
  // lets it trace the rest of such a method would lose `self._warned = True` and the like.
  if (tag.function != nullptr && tag.function->stores_optimizer_state) {
    decline(result.diagnostic, tag, reasons::Reason::OptimizerState,
            "a method of a torch.optim.Optimizer that stores attributes on it: Dynamo drops "
            "those stores in compiled code, so the break that keeps them eager stays");
    return result;
  }
  std::optional<RewriteKind> owner = rewrite::owner_of(tag.kind);
  if (!owner) {
    decline(result.diagnostic, tag, reasons::Reason::OutOfScope,
            std::string("out of scope: no rewrite handles a ") + sema::break_summary(tag.kind));
    return result;
  }
  if (!selected_by_lines(result.diagnostic, context.options.only_lines)) {
    decline(result.diagnostic, tag, reasons::Reason::NotInProfile,
            "Dynamo did not break here in the profiling run");
    return result;
  }
  result.diagnostic.rewrite = rewrite_name(*owner);
  if (!context.options.rewrites.has(*owner)) {
    decline(result.diagnostic, tag, reasons::Reason::RewriteDisabled,
            "the [" + result.diagnostic.rewrite + "] rewrite is disabled");
    return result;
  }
  std::optional<rewrite::Outcome> outcome = rewrite::run_rewrite(*owner, tag, context);
  if (!outcome) {
    decline(result.diagnostic, tag, reasons::Reason::Other, "no rewrite applies to this break");
    return result;
  }
  if (outcome->form != nullptr) result.diagnostic.rewrite = outcome->form;
  if (!outcome->fixed) {
    std::string detail = outcome->reason.empty() ? "the rewrite declined" : outcome->reason;
    decline(result.diagnostic, tag, outcome->reason_id, detail);
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
  result.absorbed = std::move(outcome->absorbed);
  result.absorbed_as = outcome->absorbed_as;
  result.relies_on = std::move(outcome->relies_on);
  result.pays_off_in = std::move(outcome->pays_off_in);
  result.unpaid = std::move(outcome->unpaid);
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

// Whether each of `nodes` lies inside the text an accepted edit replaces.
bool covered_by(const std::vector<const ast::Node*>& nodes, const std::vector<TextEdit>& accepted) {
  return std::all_of(nodes.begin(), nodes.end(), [&](const ast::Node* node) {
    return std::any_of(accepted.begin(), accepted.end(), [&](const TextEdit& edit) {
      return edit.begin <= node->begin && node->end <= edit.end && edit.begin < edit.end;
    });
  });
}

// A tag that runs after the others (a `.item()`, GM106) and was not fixed is fixed with a fix
// that absorbed its site, or that rewrote a condition holding it and so compares it in the
// graph (runtime.item_compare).
void mark_lowered_scalars(const std::vector<sema::BreakTag>& tags,
                          std::vector<TagResult>& results) {
  for (size_t i = 0; i < tags.size(); ++i) {
    if (!tag_runs_after_others(tags[i].kind) || results[i].diagnostic.fixed ||
        tags[i].site == nullptr)
      continue;
    for (size_t j = 0; j < tags.size(); ++j) {
      const auto& absorbed = results[j].absorbed;
      if (results[j].diagnostic.fixed &&
          std::find(absorbed.begin(), absorbed.end(), tags[i].site) != absorbed.end()) {
        results[i].diagnostic.fixed = true;
        results[i].diagnostic.rewrite = results[j].diagnostic.rewrite;
        results[i].diagnostic.message = tags[i].message + absorbed_note(results[j], true);
        break;
      }
      const ast::Node* condition = tags[j].site;
      if (!sema::site_is_condition(tags[j].kind) || !results[j].diagnostic.fixed ||
          condition == nullptr || condition->begin > tags[i].site->begin ||
          tags[i].site->end > condition->end)
        continue;
      if (const auto* conditional = ast::as<ast::IfExp>(condition);
          conditional != nullptr && (tags[i].site->begin < conditional->test->begin ||
                                     tags[i].site->end > conditional->test->end))
        continue;
      results[i].diagnostic.fixed = true;
      results[i].diagnostic.rewrite = results[j].diagnostic.rewrite;
      results[i].diagnostic.message = tags[i].message +
                                      " (compared in the graph by the fix of line " +
                                      std::to_string(results[j].diagnostic.line) + ")";
      break;
    }
  }
}

// A tag whose site an accepted fix removed with its own (a call [Defer] records with the
// branch around it): fixed with that fix, which made its edits.
std::optional<TagResult> absorbed_by(const sema::BreakTag& tag, const SourceText& source,
                                     const std::vector<const TagResult*>& fixes) {
  if (tag.site == nullptr || tag_runs_after_others(tag.kind)) return std::nullopt;
  for (const TagResult* fix : fixes) {
    const auto& absorbed = fix->absorbed;
    if (std::find(absorbed.begin(), absorbed.end(), tag.site) == absorbed.end()) continue;
    TagResult result;
    result.diagnostic = diagnostic_at(source, *tag.site, sema::break_code(tag.kind));
    result.diagnostic.fixed = true;
    result.diagnostic.rewrite = fix->diagnostic.rewrite;
    result.diagnostic.message =
        (tag.message.empty() ? sema::break_summary(tag.kind) : tag.message) +
        absorbed_note(*fix, false);
    return result;
  }
  return std::nullopt;
}

// Every tag of the module through its rewrite. Fixes whose edits would overlap an
// earlier fix are declined (the outer statement, earlier in source order, wins).
// With `only_within`, only the functions meeting those ranges are tagged. The text's
// pragmas, marked used or not, go to `pragmas`.
std::vector<TagResult> run_rewrites(const Parsed& parsed, const MendOptions& options,
                                    std::vector<Pragma>& pragmas,
                                    const std::vector<sema::ByteRange>* only_within = nullptr) {
  std::vector<TagResult> results;
  pragmas = rewrite::find_pragmas(parsed.source, parsed.parse.tokens);
  sema::AnalysisOptions analysis_options;
  analysis_options.trace_all = options.trace_all;
  analysis_options.entry_points = options.entry_points;
  analysis_options.hold_scalars = holds_scalars(options.rewrites);
  std::unique_ptr<sema::Analysis> analysis =
      sema::Analysis::run(*parsed.parse.module, parsed.source, analysis_options);
  if (!analysis) return results;
  sema::TagOptions tag_options;
  tag_options.only_within = only_within;
  tag_options.observed_lines = &options.observed_lines;
  std::vector<sema::BreakTag> tags = sema::tag_breaks(*parsed.parse.module, *analysis, tag_options);
  rewrite::Context context{parsed.source, *parsed.parse.module, *analysis, options};
  std::vector<TextEdit> accepted;
  std::vector<const TagResult*> fixes;  // accepted fixes, for the sites they absorb
  // Keeps the result's edits where they are valid and meet no accepted fix's, else declines.
  auto accept = [&](TagResult& result, const sema::BreakTag& tag) {
    if (result.edits.empty()) return;
    std::string error;
    std::vector<TextEdit> own = result.edits;
    std::optional<reasons::Problem> problem;
    if (!rewrite::normalize_edits(own, parsed.source.size(), &error)) {
      problem = {reasons::Reason::Internal, "internal: invalid edits (" + error + ")"};
    } else if (overlaps_any(own, accepted)) {
      problem = {reasons::Reason::Overlap, "its fix overlaps the fix of another break"};
    } else if (!covered_by(result.pays_off_in, accepted)) {
      problem = result.unpaid;
    }
    if (!problem) {
      accepted.insert(accepted.end(), own.begin(), own.end());
      return;
    }
    if (result.diagnostic.fixed) decline(result.diagnostic, tag, problem->reason, problem->detail);
    result.diagnostic.fixed = false;
    result.edits.clear();
  };
  results.reserve(tags.size());
  std::vector<size_t> last;  // fixes that pay off only in other fixes' edits: after them
  for (size_t i = 0; i < tags.size(); ++i) {
    const sema::BreakTag& tag = tags[i];
    if (std::optional<TagResult> covered = absorbed_by(tag, context.source, fixes)) {
      results.push_back(std::move(*covered));
      continue;
    }
    if (tag_runs_after_others(tag.kind)) {
      results.emplace_back();
      last.push_back(i);
      continue;
    }
    results.push_back(handle_tag(tag, context, pragmas));
    accept(results.back(), tag);
    if (results.back().diagnostic.fixed && !results.back().absorbed.empty())
      fixes.push_back(&results.back());
  }
  for (size_t i : last) {
    results[i] = handle_tag(tags[i], context, pragmas);
    accept(results[i], tags[i]);
  }
  mark_lowered_scalars(tags, results);
  return results;
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
  if (needs_runtime && !rewrite::imports_runtime(*parsed.parse.module, runtime)) {
    edits.push_back(
        rewrite::runtime_import_edit(*parsed.parse.module, parsed.source, runtime, edits));
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
        add_decline(tag_result.diagnostic, reasons::Reason::Internal,
                    "internal: the rewritten text does not parse (" + own_error + ")");
      }
      tag_result.diagnostic.fixed = false;
      tag_result.edits.clear();
      internal.push_back(internal_diagnostic(codes::kMendedDoesNotParse,
                                             "internal: a fix produced text that does not parse (" +
                                                 own_error + "); the fix is not applied"));
      internal.back().line = internal.back().end_line = tag_result.diagnostic.line;
    }
  }
  mended = apply_and_check(parsed, collect_edits(parsed, results, runtime), options, &error);
  if (mended) return mended;
  for (TagResult& tag_result : results) {
    if (tag_result.diagnostic.fixed) {
      add_decline(tag_result.diagnostic, reasons::Reason::MendedDoesNotParse,
                  "the mended file does not parse");
    }
    tag_result.diagnostic.fixed = false;
    tag_result.edits.clear();
  }
  internal.push_back(internal_diagnostic(codes::kMendedDoesNotParse,
                                         "internal: the mended source does not parse (" + error +
                                             "); the input is returned unchanged"));
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

// The lines of the mended text that map to one of the original `lines`.
std::vector<uint32_t> mended_lines(const std::vector<uint32_t>& lines,
                                   const std::vector<uint32_t>& line_map) {
  std::vector<uint32_t> out;
  if (lines.empty()) return out;
  for (uint32_t i = 0; i < line_map.size(); ++i) {
    if (std::find(lines.begin(), lines.end(), line_map[i]) != lines.end()) out.push_back(i + 1);
  }
  return out;
}

// The original lines the mender would rewrite again in `mended` (empty: a fixed point).
// Only the functions the edits touched are looked at: the others are the original text,
// and no fix's edits lie in them, so a second rewrite there could decline nothing.
std::vector<std::pair<uint32_t, std::string>> rewritten_again(
    const Parsed& again, const MendOptions& options, uint32_t original_size,
    const std::vector<TextEdit>& edits, const std::vector<uint32_t>& line_map) {
  std::vector<std::pair<uint32_t, std::string>> lines;
  MendOptions second_options = options;
  // The filters name original lines; the second pass sees mended ones.
  second_options.only_lines = mended_lines(options.only_lines, line_map);
  second_options.observed_lines = mended_lines(options.observed_lines, line_map);
  if (!options.only_lines.empty() && second_options.only_lines.empty()) return lines;
  std::vector<sema::ByteRange> touched = mended_ranges(original_size, edits);
  std::vector<Pragma> pragmas;
  for (const TagResult& second : run_rewrites(again, second_options, pragmas, &touched)) {
    if (!second.diagnostic.fixed) continue;
    uint32_t line = second.diagnostic.line;
    if (line >= 1 && line <= line_map.size()) line = line_map[line - 1];
    lines.emplace_back(line, second.diagnostic.rewrite);
  }
  return lines;
}

// Runtime-aware mode mends only where Dynamo broke, but a fix may need a function mended in
// which Dynamo never broke (a deferring helper whose branch the profiling run did not take),
// or the comparisons a held scalar feeds:
// `options` with those functions' lines added to `only_lines`, or null when none is missing.
std::optional<MendOptions> with_relied_on_lines(const MendOptions& options,
                                                const SourceText& source,
                                                const std::vector<TagResult>& results) {
  if (options.only_lines.empty()) return std::nullopt;
  MendOptions wider = options;
  auto add_lines = [&](const ast::Node* node) {
    uint32_t first = source.line_col(node->begin).line;
    uint32_t last = source.line_col(node->end).line;
    for (uint32_t line = first; line <= last; ++line) {
      auto& lines = wider.only_lines;
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
  };
  for (const TagResult& result : results) {
    // A held scalar's comparisons, where Dynamo never broke before (it broke at the read).
    for (const ast::Node* comparison : result.pays_off_in) add_lines(comparison);
    if (!result.diagnostic.fixed) continue;
    for (const ast::Node* definition : result.relies_on) add_lines(definition);
  }
  if (wider.only_lines.size() == options.only_lines.size()) return std::nullopt;
  return wider;
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
  const std::string runtime = kRuntimeName;
  std::vector<TagResult> results = run_rewrites(parsed, options, result.pragmas);
  // A helper's sites are fixed with the fix that relies on them (helpers nest 3 deep at most).
  std::optional<MendOptions> widened;
  for (int round = 0; round < 4; ++round) {
    std::optional<MendOptions> wider =
        with_relied_on_lines(widened ? *widened : options, parsed.source, results);
    if (!wider) break;
    widened = std::move(wider);
    results = run_rewrites(parsed, *widened, result.pragmas);
  }
  const MendOptions& chosen = widened ? *widened : options;
  std::vector<MendDiagnostic> internal;
  std::unique_ptr<Parsed> mended = apply_results(parsed, results, chosen, runtime, internal);
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
    auto again = rewritten_again(*mended, chosen, parsed.source.size(), edits, line_map);
    if (again.empty()) break;
    bool declined_any = false;
    for (const auto& [line, rewrite_name] : again) {
      internal.push_back(internal_diagnostic(codes::kNotIdempotent,
                                             "internal: mending the mended source rewrites line " +
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
          add_decline(tag_result.diagnostic, reasons::Reason::Internal,
                      "internal: its output would be rewritten again");
        }
        tag_result.diagnostic.fixed = false;
        tag_result.edits.clear();
        declined_any = true;
      }
    }
    if (!declined_any) break;
    mended = apply_results(parsed, results, chosen, runtime, internal);
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
  if (options.definitions) {
    result.definitions = rewrite::list_definitions(parsed.source, *parsed.parse.module, edits,
                                                   mended ? mended->source : parsed.source);
  }
  result.edits = std::move(edits);
  result.line_map = std::move(line_map);
  return result;
}

}  // namespace graphmend
