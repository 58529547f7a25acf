// Public entry point of the parser: source text in, an AST (or the first syntax error) out.
#pragma once

#include <optional>
#include <vector>

#include "ast/ast.h"
#include "base/arena.h"
#include "base/source.h"
#include "diag/diagnostic.h"
#include "lex/lexer.h"
#include "lex/token.h"

namespace graphmend {

struct ParseOptions {
  // The grammar and the AST shape to follow: 3.11 rejects PEP 695/701 syntax and gives
  // f-string parts CPython 3.11's positions; 3.12 accepts them.
  PythonVersion version;
};

struct ParseResult {
  ast::Module* module = nullptr;    // null when error is set
  std::optional<Diagnostic> error;  // the first syntax error, as CPython would report it
  std::vector<Token> tokens;        // every token, trivia included
};

// Parses a whole file (CPython's `file` rule). Never throws, never reads out of bounds,
// for any byte string. All nodes are allocated in `arena`.
ParseResult parse_module(const SourceText& source, Arena& arena, const ParseOptions& options = {});

}  // namespace graphmend
