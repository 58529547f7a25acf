// Shared by the sema tests: a parsed and analysed program, and node lookup by source text.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "parse/parser.h"
#include "sema/sema.h"

namespace graphmend::sema::test_support {

struct Program {
  explicit Program(const std::string& text, const AnalysisOptions& options = {})
      : source(text, "t.py") {
    ParseResult r = parse_module(source, arena);
    module = r.module;
    if (module != nullptr) analysis = Analysis::run(*module, source, options);
  }
  SourceText source;
  Arena arena;
  ast::Module* module = nullptr;
  std::unique_ptr<Analysis> analysis;

  std::string_view text(const ast::Node* n) const {
    return source.text().substr(n->begin, n->end - n->begin);
  }

  // The first node (pre-order) whose source text is exactly `want`, of the given category.
  template <class T = ast::expr>
  const T* find(std::string_view want, int nth = 0) const {
    std::vector<ast::Node*> stack{module};
    while (!stack.empty()) {
      ast::Node* n = stack.back();
      stack.pop_back();
      bool category = std::is_same_v<T, ast::stmt>
                          ? (n->kind >= ast::Kind::FunctionDef && n->kind <= ast::Kind::Continue)
                          : (n->kind >= ast::Kind::BoolOp && n->kind <= ast::Kind::Slice);
      if (n != module && category && text(n) == want) {
        if (nth-- == 0) return static_cast<const T*>(n);
      }
      std::vector<ast::Node*> children;
      ast::for_each_child(n, [&](ast::Node* c) { children.push_back(c); });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    ADD_FAILURE() << "no node with text: " << want;
    return nullptr;
  }

  // The first statement whose text starts with `prefix`.
  const ast::stmt* stmt(std::string_view prefix, int nth = 0) const {
    std::vector<ast::Node*> stack{module};
    while (!stack.empty()) {
      ast::Node* n = stack.back();
      stack.pop_back();
      if (n->kind >= ast::Kind::FunctionDef && n->kind <= ast::Kind::Continue &&
          text(n).substr(0, prefix.size()) == prefix) {
        if (nth-- == 0) return static_cast<const ast::stmt*>(n);
      }
      std::vector<ast::Node*> children;
      ast::for_each_child(n, [&](ast::Node* c) { children.push_back(c); });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    ADD_FAILURE() << "no statement starting with: " << prefix;
    return nullptr;
  }

  const FunctionInfo* function(std::string_view qualified) const {
    for (const FunctionInfo& f : analysis->functions()) {
      if (f.qualified_name == qualified) return &f;
    }
    ADD_FAILURE() << "no function " << qualified;
    return nullptr;
  }

  bool tensor(std::string_view e, int nth = 0) const { return analysis->is_tensor(*find(e, nth)); }
  bool dd(std::string_view e, int nth = 0) const {
    return analysis->is_data_dependent(*find(e, nth));
  }
  bool pure(std::string_view e, int nth = 0) const { return analysis->is_pure(*find(e, nth)); }
  std::string live(std::string_view stmt_prefix, int nth = 0) const {
    std::string out;
    for (std::string_view v : analysis->live_after(*stmt(stmt_prefix, nth))) {
      if (!out.empty()) out += ",";
      out += v;
    }
    return out;
  }
};

inline CalleeKind kind_of_call(const Program& p, std::string_view call, int nth = 0) {
  const auto* c = ast::as<ast::Call>(p.find(call, nth));
  if (c == nullptr) return CalleeKind::Unknown;
  return p.analysis->resolve_call(*c).kind;
}

}  // namespace graphmend::sema::test_support
