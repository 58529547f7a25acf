// Stubs the bodies of the functions a mend left alone (see skeleton.h).
#include "rewrite/skeleton.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "rewrite/edits.h"

namespace graphmend::rewrite {
namespace {

// A body shorter than this costs CPython less to compile than the splice costs.
constexpr uint32_t kMinStubBytes = 64;

class Stubber {
 public:
  Stubber(const SourceText& source, const std::vector<TextEdit>& edits)
      : text_(source.text()), source_(source), edits_(edits) {}

  // Statements in module or class scope: functions (and untouched classes) are stubbed,
  // never entered.
  void visit(const ast::Seq<ast::stmt*>& body) {
    for (const ast::stmt* statement : body) visit(statement);
  }

  std::vector<TextEdit> stubs;
  std::vector<uint32_t> lines;

 private:
  void visit(const ast::stmt* statement) {
    if (const auto* f = ast::as<ast::FunctionDef>(statement)) {
      consider(statement, f->body, f->type_params.empty());
    } else if (const auto* f = ast::as<ast::AsyncFunctionDef>(statement)) {
      consider(statement, f->body, f->type_params.empty());
    } else if (const auto* c = ast::as<ast::ClassDef>(statement)) {
      // A class no edit touches is stubbed whole (its body's code, methods and all, comes
      // from the original); otherwise its methods are looked at one by one.
      if (c->type_params.empty() && !consider(statement, c->body, true)) visit(c->body);
    } else {
      ast::for_each_block(statement, [this](const ast::Seq<ast::stmt*>& inner) { visit(inner); });
    }
  }

  // Stubs the body of a function or class (`definition`) when it can be; whether it did.
  bool consider(const ast::stmt* definition, const ast::Seq<ast::stmt*>& body,
                bool no_type_params) {
    if (body.empty() || !no_type_params) return false;
    std::optional<uint32_t> first = text_start(body[0]);
    if (!first) return false;
    uint32_t begin = *first;
    uint32_t end = body[body.size - 1]->end;
    if (end <= begin || end - begin < kMinStubBytes || end > text_.size()) return false;
    if (touches_any(edits_, statement_start(definition), definition->end)) return false;
    Reach found;
    for (const ast::stmt* statement : body) reach(statement, found);
    if (found.global) return false;
    // A class body owns the `__class__` cell of its methods, so its stub needs none.
    bool class_cell = found.class_cell && !ast::is<ast::ClassDef>(definition);
    std::optional<std::string> stub =
        stub_for(text_.substr(begin, end - begin), class_cell ? "(__class__" : "(",
                 source_.line_col(begin).column, source_.line_col(end).column);
    if (!stub) return false;
    stubs.push_back(TextEdit{begin, end, std::move(*stub)});
    lines.push_back(source_.line_col(statement_start(definition)).line);
    return true;
  }

  // Where a statement's text starts: the `@` of its first decorator, if any.
  std::optional<uint32_t> text_start(const ast::stmt* statement) const {
    uint32_t start = statement_start(statement);
    if (start == statement->begin) return start;
    while (start > 0 && (text_[start - 1] == ' ' || text_[start - 1] == '\t')) --start;
    if (start == 0 || text_[start - 1] != '@') return std::nullopt;
    return start - 1;
  }

  // What of a function's body the compiler lets reach the enclosing code.
  struct Reach {
    // Names `super` or `__class__`: CPython gives the method a `__class__` free variable
    // (and its class body the cell), which the stub must keep.
    bool class_cell = false;
    // Declares a name `global`: the module's own code then stores it with STORE_GLOBAL.
    bool global = false;
  };

  static void reach(const ast::Node* node, Reach& found) {
    if (const auto* name = ast::as<ast::Name>(node)) {
      found.class_cell = found.class_cell || name->id == "super" || name->id == "__class__";
    }
    found.global = found.global || node->kind == ast::Kind::Global;
    if (const auto* nested = ast::as<ast::ClassDef>(node)) {
      // `super` in a nested class's methods is that class's own `__class__` cell, and a
      // `global` there reaches the module anyway (so it is still looked for).
      Reach inside;
      for (const ast::stmt* statement : nested->body) reach(statement, inside);
      found.global = found.global || inside.global;
      for (const ast::expr* e : nested->bases) reach(e, found);
      for (const ast::keyword* k : nested->keywords) reach(k, found);
      for (const ast::expr* e : nested->decorator_list) reach(e, found);
      return;
    }
    ast::for_each_child(const_cast<ast::Node*>(node),
                        [&found](ast::Node* child) { reach(child, found); });
  }

  // A parenthesized expression spread over the body's lines, its `)` ending where the body
  // ended: the enclosing code records a `def`'s position up to the end of its body, so the
  // stub must end at the same line and column. Inside the parentheses indentation does not
  // count. `open` is "(" or, to keep the method's `__class__` free variable, "(__class__".
  static std::optional<std::string> stub_for(std::string_view body, std::string_view open,
                                             uint32_t begin_column, uint32_t end_column) {
    size_t breaks = std::count(body.begin(), body.end(), '\n');
    size_t crlf = 0;
    for (size_t at = body.find("\r\n"); at != std::string_view::npos;
         at = body.find("\r\n", at + 2)) {
      ++crlf;
    }
    size_t returns = std::count(body.begin(), body.end(), '\r');
    if (returns != crlf || (crlf != 0 && crlf != breaks)) return std::nullopt;  // odd breaks
    // Where the last line's text starts: after `open`, or at column 0.
    uint32_t last_line_start = breaks == 0 ? begin_column + static_cast<uint32_t>(open.size()) : 0;
    if (end_column < last_line_start + 1) return std::nullopt;
    std::string stub(open);
    for (size_t i = 0; i < breaks; ++i) stub += crlf != 0 ? "\r\n" : "\n";
    stub.append(end_column - last_line_start - 1, ' ');
    stub += ')';
    return stub;
  }

  std::string_view text_;
  const SourceText& source_;
  const std::vector<TextEdit>& edits_;
};

}  // namespace

uint32_t statement_start(const ast::stmt* statement) {
  uint32_t start = statement->begin;
  auto earliest = [&start](const ast::Seq<ast::expr*>& decorators) {
    for (const ast::expr* decorator : decorators) start = std::min(start, decorator->begin);
  };
  if (const auto* f = ast::as<ast::FunctionDef>(statement)) earliest(f->decorator_list);
  if (const auto* f = ast::as<ast::AsyncFunctionDef>(statement)) earliest(f->decorator_list);
  if (const auto* c = ast::as<ast::ClassDef>(statement)) earliest(c->decorator_list);
  return start;
}

Skeleton build_skeleton(const SourceText& source, const ast::Module& module,
                        const std::vector<TextEdit>& edits) {
  Stubber stubber(source, edits);
  stubber.visit(module.body);
  std::vector<TextEdit> all = edits;
  all.insert(all.end(), stubber.stubs.begin(), stubber.stubs.end());
  Skeleton skeleton;
  std::string error;
  if (!normalize_edits(all, source.size(), &error)) return skeleton;  // not reached: disjoint
  skeleton.text = apply_edits(source.text(), all);
  skeleton.stubbed_lines = std::move(stubber.lines);
  std::sort(skeleton.stubbed_lines.begin(), skeleton.stubbed_lines.end());
  return skeleton;
}

}  // namespace graphmend::rewrite
