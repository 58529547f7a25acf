// graphmend._core: the thin Python binding of the C++ front end.
//
// Text goes in as str (or UTF-8 bytes) and text comes out (the AST dump, token tuples);
// no Python-object AST is ever built here. Syntax errors become Python's SyntaxError with
// CPython's location conventions (1-based line, 1-based column counted in characters).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "ast/dump.h"
#include "base/arena.h"
#include "base/source.h"
#include "base/unicode.h"
#include "diag/diagnostic.h"
#include "diag/reasons.h"
#include "lex/lexer.h"
#include "lex/token.h"
#include "parse/parser.h"
#include "rewrite/mend.h"
#include "rewrite/pragmas.h"
#include "rewrite/rewrite.h"

namespace nb = nanobind;

namespace graphmend {
namespace {

// ---------------------------------------------------------------------------------------------
// Arguments.

// The UTF-8 bytes of a str (raises UnicodeEncodeError for lone surrogates, as compile() does)
// or the bytes of a bytes object, taken as already decoded UTF-8 source.
std::string source_bytes(nb::handle source) {
  if (PyUnicode_Check(source.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(source.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
    return std::string(data, static_cast<size_t>(size));
  }
  if (PyBytes_Check(source.ptr())) {
    return std::string(PyBytes_AS_STRING(source.ptr()),
                       static_cast<size_t>(PyBytes_GET_SIZE(source.ptr())));
  }
  throw nb::type_error("source must be str or bytes");
}

// None -> the running interpreter's version; (3, 11) and (3, 12) are supported.
PythonVersion python_version(nb::handle version) {
  int major = 0;
  int minor = 0;
  if (version.is_none()) {
    major = PY_MAJOR_VERSION;
    minor = PY_MINOR_VERSION;
  } else {
    if (!PyTuple_Check(version.ptr()) || PyTuple_GET_SIZE(version.ptr()) < 2) {
      throw nb::value_error("version must be a tuple (major, minor), e.g. (3, 12)");
    }
    major = nb::cast<int>(version[0]);
    minor = nb::cast<int>(version[1]);
  }
  if (major != 3 || (minor != 11 && minor != 12)) {
    throw nb::value_error(("unsupported Python version " + std::to_string(major) + "." +
                           std::to_string(minor) + ": supported are 3.11 and 3.12")
                              .c_str());
  }
  return PythonVersion{major, minor};
}

// ---------------------------------------------------------------------------------------------
// SyntaxError.

bool is_utf8_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Characters in text[0, bytes): CPython decodes the byte prefix with errors="replace".
long count_characters(std::string_view text, size_t bytes) {
  bytes = std::min(bytes, text.size());
  long count = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (!is_utf8_continuation(static_cast<unsigned char>(text[i]))) ++count;
  }
  return count;
}

// The line as CPython shows it in SyntaxError.text: the line's text and a "\n" where the
// source has a line break (CPython reads "\r\n" and "\r" as "\n").
std::string error_line_text(const SourceText& source, uint32_t line) {
  if (line == 0 || line > source.line_count()) return std::string();
  std::string text(source.line_text(line));
  uint32_t next = line < source.line_count() ? source.line_start(line + 1) : source.size();
  uint32_t after = source.line_start(line) + static_cast<uint32_t>(text.size());
  if (after < next) text.push_back('\n');
  return text;
}

nb::handle syntax_error_type(const Diagnostic& error) {
  if (error.code == codes::kIndentationError) {
    if (error.message.rfind("inconsistent use of tabs", 0) == 0) return PyExc_TabError;
    return PyExc_IndentationError;
  }
  return PyExc_SyntaxError;
}

[[noreturn]] void raise_syntax_error(const SourceText& source, const Diagnostic& error,
                                     std::string_view filename) {
  nb::handle type = syntax_error_type(error);
  nb::str message(error.message.data(), error.message.size());
  // Errors about the input as a whole carry no location, as in CPython.
  if (error.code == codes::kEncodingError &&
      error.message.find("null bytes") != std::string::npos) {
    PyErr_SetObject(type.ptr(), nb::make_tuple(message).ptr());
    throw nb::python_error();
  }
  uint32_t begin = std::min(error.span.begin, source.size());
  uint32_t end = std::clamp(error.span.end, begin, source.size());
  LineCol start = source.line_col(begin);
  LineCol stop = source.line_col(end);
  std::string line = error_line_text(source, start.line);
  // CPython converts both columns against the error's first line (end included).
  long offset = count_characters(line, start.column) + 1;
  long end_offset = end > begin ? count_characters(line, stop.column) + 1 : offset;
  nb::object text =
      nb::steal(PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "replace"));
  if (!text.is_valid()) throw nb::python_error();
  nb::tuple location = nb::make_tuple(nb::str(filename.data(), filename.size()), start.line, offset,
                                      text, end > begin ? stop.line : start.line, end_offset);
  PyErr_SetObject(type.ptr(), nb::make_tuple(message, location).ptr());
  throw nb::python_error();
}

// ---------------------------------------------------------------------------------------------
// Entry points.

// Parses with the GIL released; the Unicode hooks re-acquire it when they are needed.
struct Parsed {
  SourceText source;
  Arena arena;
  ParseResult result;

  Parsed(std::string text, std::string filename, PythonVersion version)
      : source(std::move(text), std::move(filename)) {
    nb::gil_scoped_release release;
    result = parse_module(source, arena, ParseOptions{version});
  }
};

// Raises the SyntaxError (IndentationError, TabError) CPython raises for a rejected text.
void raise_if_rejected(const Parsed& parsed, const std::string& filename) {
  if (!parsed.result.error && parsed.result.module != nullptr) return;
  Diagnostic error = parsed.result.error.value_or(
      Diagnostic{codes::kSyntaxError, Severity::Error, {0, 0}, "invalid syntax"});
  raise_syntax_error(parsed.source, error, filename);
}

std::string dump_ast_binding(nb::handle source, bool include_attributes, nb::handle version,
                             std::string filename) {
  PythonVersion target = python_version(version);
  Parsed parsed(source_bytes(source), filename, target);
  raise_if_rejected(parsed, filename);
  nb::gil_scoped_release release;
  return dump_ast(parsed.result.module, parsed.source, DumpOptions{include_attributes, target});
}

void parse_check_binding(nb::handle source, std::string filename, nb::handle version) {
  PythonVersion target = python_version(version);
  Parsed parsed(source_bytes(source), filename, target);
  raise_if_rejected(parsed, filename);
}

// Every import statement of a module, nested ones included, in source order.
void collect_imports(const ast::Seq<ast::stmt*>& body,
                     std::vector<std::pair<std::string, int>>& out) {
  for (const ast::stmt* statement : body) {
    if (const auto* i = ast::as<ast::Import>(statement)) {
      for (const ast::alias* a : i->names) out.emplace_back(std::string(a->name), 0);
    } else if (const auto* f = ast::as<ast::ImportFrom>(statement)) {
      out.emplace_back(std::string(f->module), static_cast<int>(f->level));
    }
    ast::for_each_body(statement,
                       [&out](const ast::Seq<ast::stmt*>& inner) { collect_imports(inner, out); });
  }
}

// (module, level) of each import: `import a.b, c` gives ("a.b", 0) and ("c", 0),
// `from ..x import y` ("x", 2), `from . import y` ("", 1). Raises SyntaxError.
std::vector<std::pair<std::string, int>> imports_binding(nb::handle source, std::string filename,
                                                         nb::handle version) {
  PythonVersion target = python_version(version);
  Parsed parsed(source_bytes(source), filename, target);
  raise_if_rejected(parsed, filename);
  std::vector<std::pair<std::string, int>> out;
  collect_imports(parsed.result.module->body, out);
  return out;
}

using Position = std::pair<uint32_t, uint32_t>;
using TokenTuple = std::tuple<std::string, Position, Position>;

// Every token the lexer produces (trivia included); columns are 0-based UTF-8 byte offsets.
std::vector<TokenTuple> tokenize_binding(nb::handle source, nb::handle version) {
  PythonVersion target = python_version(version);
  SourceText text(source_bytes(source));
  LexResult lexed;
  {
    nb::gil_scoped_release release;
    lexed = lex(text, LexOptions{target});
  }
  std::vector<TokenTuple> out;
  out.reserve(lexed.tokens.size());
  for (const Token& token : lexed.tokens) {
    LineCol start = text.line_col(token.begin);
    LineCol stop = text.line_col(token.end);
    out.emplace_back(token_kind_name(token.kind), Position{start.line, start.column},
                     Position{stop.line, stop.column});
  }
  if (lexed.error) raise_syntax_error(text, *lexed.error, "<unknown>");
  return out;
}

// The suppression comments of a source (rewrite/pragmas.h) and where each is written:
// (line, noqa, comment, text, list, codes), every range a (begin, end) pair of UTF-8 byte
// columns of its line: the comment token, the suppression in it, a noqa list (empty for
// `graphmend: ignore`) and each GM code.
nb::list pragmas_binding(nb::handle source, nb::handle version) {
  PythonVersion target = python_version(version);
  SourceText text(source_bytes(source));
  LexResult lexed;
  {
    nb::gil_scoped_release release;
    lexed = lex(text, LexOptions{target});
  }
  if (lexed.error) raise_syntax_error(text, *lexed.error, "<unknown>");
  nb::list out;
  for (const Pragma& p : rewrite::find_pragmas(text, lexed.tokens)) {
    uint32_t start = text.line_start(p.line);
    auto columns = [&](Span span) { return Position{span.begin - start, span.end - start}; };
    nb::list codes;
    for (Span span : p.code_spans) codes.append(columns(span));
    out.append(nb::make_tuple(p.line, p.noqa, columns(p.comment), columns(p.text), columns(p.list),
                              nb::tuple(codes)));
  }
  return out;
}

// Parses every source in C++ with the GIL released and builds no Python objects.
// Returns (sources parsed without error, seconds, largest arena of one parse in bytes).
std::tuple<size_t, double, size_t> parse_only_binding(const std::vector<nb::bytes>& sources,
                                                      nb::handle version) {
  PythonVersion target = python_version(version);
  std::vector<std::string_view> views;
  views.reserve(sources.size());
  for (const nb::bytes& item : sources) views.emplace_back(item.c_str(), item.size());

  size_t ok = 0;
  size_t peak_arena = 0;
  double seconds = 0;
  {
    nb::gil_scoped_release release;
    auto start = std::chrono::steady_clock::now();
    for (std::string_view view : views) {
      SourceText text{std::string(view)};
      Arena arena;
      ParseResult result = parse_module(text, arena, ParseOptions{target});
      if (result.module != nullptr && !result.error) ++ok;
      peak_arena = std::max(peak_arena, arena.bytes_reserved());
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return {ok, seconds, peak_arena};
}

// ---------------------------------------------------------------------------------------------
// The mender.

nb::dict mend_diagnostic_dict(const MendDiagnostic& d) {
  nb::dict out;
  out["code"] = d.code;
  out["line"] = d.line;
  out["column"] = d.column;
  out["end_line"] = d.end_line;
  out["end_column"] = d.end_column;
  out["message"] = d.message;
  out["fixed"] = d.fixed;
  out["rewrite"] = d.rewrite;
  out["reason"] = d.reason;
  out["reason_id"] = d.reason_id;
  out["suppressed_by"] = d.suppressed_by;
  return out;
}

// One suppression comment: (line, file_level, codes (empty: all), used).
nb::tuple pragma_tuple(const Pragma& p) {
  nb::list codes;
  for (const std::string& code : p.codes) codes.append(nb::str(code.data(), code.size()));
  return nb::make_tuple(p.line, p.file_level, nb::tuple(codes), p.used);
}

// The rewrites named in `names` (a subset of REWRITES); ValueError for an unknown name.
RewriteSet rewrite_set(nb::handle names) {
  if (names.is_none()) return RewriteSet::all();
  RewriteSet set = RewriteSet::none();
  for (nb::handle item : names) {
    std::string name = nb::cast<std::string>(item);
    std::optional<RewriteKind> kind = rewrite_named(name);
    if (!kind) throw nb::value_error(("unknown rewrite " + name).c_str());
    set = set.with(*kind, true);
  }
  return set;
}

// One function or class as a tuple (the object mender reads thousands: no dicts):
// (is_class, qualname, class_name, first_line, last_line, mended_first_line,
// mended_last_line, touched, params).
nb::tuple definition_tuple(const Definition& d) {
  nb::list params;
  for (const std::string& name : d.params) params.append(nb::str(name.data(), name.size()));
  return nb::make_tuple(d.is_class, nb::str(d.qualname.data(), d.qualname.size()),
                        nb::str(d.class_name.data(), d.class_name.size()), d.first_line,
                        d.last_line, d.mended_first_line, d.mended_last_line, d.touched,
                        nb::tuple(params));
}

// Mends source (GIL released) and returns a dict: source, changed, diagnostics (dicts),
// line_map, edits ((begin, end, replacement) byte ranges of the input), error (a dict like
// a diagnostic when the input does not parse, else None), skeleton and stubbed_lines
// (rewrite/skeleton.h), definitions (rewrite/definitions.h; empty unless asked for) and
// pragmas (rewrite/pragmas.h, as tuples).
nb::dict mend_source_binding(nb::handle source, nb::handle filename, nb::handle version,
                             nb::handle rewrites, bool trace_all, std::vector<uint32_t> only_lines,
                             std::vector<uint32_t> observed_lines,
                             std::vector<std::string> entry_points,
                             std::vector<std::string> suppressed_codes, bool skeleton,
                             bool definitions) {
  MendOptions options;
  options.skeleton = skeleton;
  options.definitions = definitions;
  options.trace_all = trace_all;
  options.only_lines = std::move(only_lines);
  options.observed_lines = std::move(observed_lines);
  options.entry_points = std::move(entry_points);
  options.suppressed_codes = std::move(suppressed_codes);
  options.version = python_version(version);
  options.rewrites = rewrite_set(rewrites);
  std::string name =
      filename.is_none() ? std::string("<unknown>") : nb::cast<std::string>(filename);
  std::string text = source_bytes(source);
  MendResult result;
  {
    nb::gil_scoped_release release;
    result = mend_source(text, name, options);
  }
  nb::dict out;
  out["source"] = nb::str(result.source.data(), result.source.size());
  out["changed"] = result.changed;
  nb::list diagnostics;
  if (result.error) {
    SourceText input(text);
    MendDiagnostic error;
    error.code = result.error->code;
    LineCol begin = input.line_col(std::min(result.error->span.begin, input.size()));
    LineCol end = input.line_col(std::min(result.error->span.end, input.size()));
    error.line = begin.line;
    error.column = begin.column;
    error.end_line = end.line;
    error.end_column = end.column;
    error.message = result.error->message;
    out["error"] = mend_diagnostic_dict(error);
    diagnostics.append(mend_diagnostic_dict(error));
  } else {
    out["error"] = nb::none();
  }
  for (const MendDiagnostic& d : result.diagnostics) diagnostics.append(mend_diagnostic_dict(d));
  out["diagnostics"] = diagnostics;
  nb::list line_map;
  for (uint32_t line : result.line_map) line_map.append(line);
  out["line_map"] = line_map;
  nb::list edits;
  for (const TextEdit& edit : result.edits) {
    edits.append(nb::make_tuple(edit.begin, edit.end,
                                nb::str(edit.replacement.data(), edit.replacement.size())));
  }
  out["edits"] = edits;
  if (result.skeleton.empty()) {
    out["skeleton"] = nb::none();
  } else {
    out["skeleton"] = nb::str(result.skeleton.data(), result.skeleton.size());
  }
  nb::list stubbed_lines;
  for (uint32_t line : result.stubbed_lines) stubbed_lines.append(line);
  out["stubbed_lines"] = stubbed_lines;
  nb::list table;
  for (const Definition& d : result.definitions) table.append(definition_tuple(d));
  out["definitions"] = table;
  nb::list pragmas;
  for (const Pragma& p : result.pragmas) pragmas.append(pragma_tuple(p));
  out["pragmas"] = pragmas;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Unicode hooks: "\N{...}" names and NFKC normalisation come from Python's unicodedata.

bool lookup_name_hook(std::string_view name, char32_t* out) {
  nb::gil_scoped_acquire acquire;
  try {
    nb::object unicodedata = nb::module_::import_("unicodedata");
    nb::object result = unicodedata.attr("lookup")(nb::str(name.data(), name.size()));
    nb::str text = nb::borrow<nb::str>(result);
    if (PyUnicode_GET_LENGTH(text.ptr()) != 1) return false;
    *out = static_cast<char32_t>(PyUnicode_READ_CHAR(text.ptr(), 0));
    return true;
  } catch (const nb::python_error&) {
    return false;  // unknown name (KeyError): the caller reports it
  }
}

bool nfkc_hook(std::string_view text, std::string* out) {
  nb::gil_scoped_acquire acquire;
  try {
    nb::object decoded = nb::steal(
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "strict"));
    if (!decoded.is_valid()) throw nb::python_error();
    nb::object unicodedata = nb::module_::import_("unicodedata");
    nb::object normalized = unicodedata.attr("normalize")("NFKC", decoded);
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(normalized.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
    out->assign(data, static_cast<size_t>(size));
    return true;
  } catch (const nb::python_error&) {
    return false;
  }
}

}  // namespace
}  // namespace graphmend

NB_MODULE(_core, m) {
  using namespace graphmend;
  m.doc() = "GraphMend's C++ front end (lexer, parser, AST dump).";
  unicode::set_hooks(&lookup_name_hook, &nfkc_hook);

  m.def("dump_ast", &dump_ast_binding, nb::arg("source"), nb::arg("include_attributes") = false,
        nb::kw_only(), nb::arg("version").none() = nb::none(), nb::arg("filename") = "<unknown>",
        "Parses source and returns the text ast.dump() gives for it; raises SyntaxError.");
  m.def("parse_check", &parse_check_binding, nb::arg("source"), nb::arg("filename") = "<unknown>",
        nb::kw_only(), nb::arg("version").none() = nb::none(),
        "Parses source; raises SyntaxError (or IndentationError/TabError) as CPython would.");
  m.def("tokenize", &tokenize_binding, nb::arg("source"), nb::kw_only(),
        nb::arg("version").none() = nb::none(),
        "Returns [(kind, (line, col), (end_line, end_col))], columns in UTF-8 bytes.");
  m.def("pragmas", &pragmas_binding, nb::arg("source"), nb::kw_only(),
        nb::arg("version").none() = nb::none(),
        "Returns the suppression comments as [(line, noqa, comment, text, list, codes)]: where "
        "each is written, as (begin, end) UTF-8 byte columns of its line (the comment, the "
        "suppression in it, a noqa: list, each GM code); raises SyntaxError.");
  m.def("imports", &imports_binding, nb::arg("source"), nb::arg("filename") = "<unknown>",
        nb::kw_only(), nb::arg("version").none() = nb::none(),
        "Returns (module, level) of every import statement, nested ones included, in source "
        "order; raises SyntaxError.");
  m.def("_parse_only", &parse_only_binding, nb::arg("sources"),
        nb::arg("version").none() = nb::none(),
        "Parses each bytes source in C++ (GIL released, no Python objects); returns "
        "(ok_count, seconds, peak_arena_bytes).");
  m.def("mend_source", &mend_source_binding, nb::arg("source"),
        nb::arg("filename").none() = nb::none(), nb::kw_only(),
        nb::arg("version").none() = nb::none(), nb::arg("rewrites").none() = nb::none(),
        nb::arg("trace_all") = false, nb::arg("only_lines") = std::vector<uint32_t>{},
        nb::arg("observed_lines") = std::vector<uint32_t>{},
        nb::arg("entry_points") = std::vector<std::string>{},
        nb::arg("suppressed_codes") = std::vector<std::string>{}, nb::arg("skeleton") = false,
        nb::arg("definitions") = false,
        "Mends graph breaks in source with the rewrites named in `rewrites` (default: all of "
        "REWRITES); returns a dict with source, changed, diagnostics, "
        "line_map, edits, error (None unless the input does not parse), skeleton (None "
        "unless asked for and the text changed), stubbed_lines and definitions (tuples "
        "(is_class, qualname, class_name, first_line, last_line, mended_first_line, "
        "mended_last_line, touched, params); empty unless asked for) and pragmas (tuples "
        "(line, file_level, codes, used)).");
  nb::list rewrite_names;
  for (int i = 0; i < kRewriteCount; ++i) {
    rewrite_names.append(rewrite_name(static_cast<RewriteKind>(i)));
  }
  m.attr("REWRITES") = nb::tuple(rewrite_names);
  nb::list codes;
  for (const codes::CodeInfo& info : codes::kAll)
    codes.append(nb::make_tuple(info.code, info.summary));
  m.attr("CODES") = nb::tuple(codes);
  // The rewrite that handles each break code (codes.def's Owner); "" for one only reported.
  nb::dict fixed_by;
#define BREAK(kind, code, summary, owner)                                            \
  if (std::optional<RewriteKind> rewrite = rewrite::owner_of(sema::BreakKind::kind)) \
    fixed_by[code] = rewrite_name(*rewrite);                                         \
  else                                                                               \
    fixed_by[code] = "";
#include "diag/codes.def"
  m.attr("FIXED_BY") = fixed_by;
  // Every decline reason as (id, owner, hint); owner: the rewrite's name, "" for the mender.
  nb::list reasons_table;
  nb::list reason_ids;
  for (size_t i = 0; i < reasons::kReasonCount; ++i) {
    auto reason = static_cast<reasons::Reason>(i);
    std::optional<RewriteKind> owner = rewrite::reason_owner(reason);
    reasons_table.append(nb::make_tuple(reasons::id(reason), owner ? rewrite_name(*owner) : "",
                                        reasons::hint(reason)));
    reason_ids.append(reasons::id(reason));
  }
  m.attr("REASONS") = nb::tuple(reasons_table);
  m.attr("REASON_IDS") = nb::tuple(reason_ids);
  m.attr("RUNTIME_NAME") = kRuntimeName;
  m.attr("SUPPORTED_VERSIONS") = nb::make_tuple(nb::make_tuple(3, 11), nb::make_tuple(3, 12));
}
