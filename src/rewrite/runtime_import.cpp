// The `import graphmend.runtime as __graphmend_rt__` that mended code needs: see
// runtime_import.h.
#include "rewrite/runtime_import.h"

#include "rewrite/edits.h"
#include "rewrite/rewrite.h"
#include "rewrite/skeleton.h"

namespace graphmend::rewrite {
namespace {

constexpr std::string_view kRuntimeModule = "graphmend.runtime";

bool is_future_import(const ast::stmt* statement) {
  const auto* import = ast::as<ast::ImportFrom>(statement);
  return import != nullptr && import->module == "__future__" && import->level == 0;
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

}  // namespace

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

TextEdit runtime_import_edit(const ast::Module& module, const SourceText& source,
                             std::string_view runtime, const std::vector<TextEdit>& other_edits) {
  std::string line = "import " + std::string(kRuntimeModule) + " as " + std::string(runtime);
  uint32_t skipped = 0;
  while (skipped < module.body.size && ((skipped == 0 && is_docstring(module.body[0])) ||
                                        is_future_import(module.body[skipped]))) {
    ++skipped;
  }
  if (skipped < module.body.size) {
    const ast::stmt* next = module.body[skipped];
    uint32_t begin = statement_start(next);
    if (is_simple_statement(next) && source.line_start(source.line_col(begin).line) == begin &&
        !touches_any(other_edits, begin, next->end)) {
      return TextEdit{begin, begin, line + "; "};
    }
  }
  uint32_t offset = 0;
  if (skipped > 0) {
    uint32_t last_line = source.line_col(module.body[skipped - 1]->end).line;
    offset = source.line_start(last_line + 1);
  } else if (module.body.size > 0) {
    offset = source.line_start(source.line_col(statement_start(module.body[0])).line);
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

}  // namespace graphmend::rewrite
