// The recursive-descent parser behind parse_module. Private to src/parse/.
//
// It follows CPython's PEG grammar (Grammar/python.gram) rule by rule, with backtracking
// where the grammar needs it (mark()/reset()). Parse functions return nullptr on failure;
// the first error recorded wins (see fail()). Node spans run from the first token the
// rule consumed to the end of the last one (span_from), which is how CPython's EXTRA
// positions work; parentheses around an expression are not part of its span, except
// for the tuples, generator expressions and calls that own them.
//
// Files: parser.cpp (cursor, errors, entry point), parse_stmt.cpp (statements, blocks,
// parameters, type parameters), parse_pattern.cpp (match patterns), parse_expr.cpp
// (expressions, targets, call arguments), parse_string.cpp (string concatenation and
// f-strings).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parse/parser.h"

namespace graphmend {

class Parser {
 public:
  Parser(const SourceText& source, Arena& arena, const ParseOptions& options,
         std::vector<Token> tokens);

  ast::Module* parse_file();
  std::optional<Diagnostic>& error() { return error_; }

  // ---------------------------------------------------------------- token cursor
  // tokens_ holds the significant tokens only (no Comment, no NL), ending in EndMarker
  // or Error.
  const Token& peek(size_t ahead = 0) const {  // inline: the parser's hottest call
    size_t index = pos_ + ahead;
    return index < tokens_.size() ? tokens_[index] : tokens_.back();
  }
  bool at(TokenKind kind, size_t ahead = 0) const { return peek(ahead).kind == kind; }
  // A NAME token spelled `word` (soft keywords: match, case, type, _).
  bool at_soft_keyword(std::string_view word, size_t ahead = 0) const;
  bool accept(TokenKind kind);
  // Consumes a `kind` token or records "expected <what>" and returns false.
  bool expect(TokenKind kind, const char* what);
  const Token& advance();
  size_t mark() const { return pos_; }
  void reset(size_t position) { pos_ = position; }
  std::string_view text(const Token& token) const;
  // From the start of tokens_[start_token] to the end of the last consumed token.
  Span span_from(size_t start_token) const;
  Span token_span(size_t index) const { return tokens_[index].span(); }

  // ---------------------------------------------------------------- errors
  // Records a syntax error unless one is already recorded; returns nullptr so callers
  // can `return fail(...)`.
  std::nullptr_t fail(Span where, std::string message, const char* code = codes::kSyntaxError);
  std::nullptr_t fail_here(std::string message);  // at the current token
  bool failed() const { return error_.has_value(); }
  // Speculation: try(), then on failure restore() throws away the error and position.
  struct Checkpoint {
    size_t pos;
    bool had_error;
  };
  Checkpoint checkpoint() const { return {pos_, error_.has_value()}; }
  void restore(const Checkpoint& cp);

  template <class T>
  T* make(Span span) {
    return ast::make_node<T>(arena_, span);
  }
  template <class T, class Container>
  ast::Seq<T> seq(const Container& items) {
    return ast::make_seq<T>(arena_, items);
  }
  // A statement that has an async twin with the same fields (def, for, with): builds the
  // one `is_async` asks for and lets `fill(node)` set the fields.
  template <class Sync, class Async, class Fill>
  ast::stmt* make_twin(bool is_async, size_t start, Fill&& fill) {
    if (is_async) {
      auto* node = make<Async>(span_from(start));
      fill(node);
      return node;
    }
    auto* node = make<Sync>(span_from(start));
    fill(node);
    return node;
  }
  std::string_view identifier(const Token& name_token);  // NFKC-normalised when non-ASCII

  // ---------------------------------------------------------------- statements (parse_stmt.cpp)
  ast::Seq<ast::stmt*> parse_statements_until(TokenKind end);  // `statements`
  ast::Seq<ast::stmt*> parse_block();                          // `block`
  bool parse_statement(std::vector<ast::stmt*>& out);          // one `statement`
  // `params` of a def (lambda = false) or `lambda_params` (lambda = true), up to but not
  // including the closing ')' or ':'. Never null; check failed().
  ast::arguments* parse_parameters(bool lambda, TokenKind closer);
  // PEP 695 `[T, *Ts, **P]` after a def/class name or `type X`; empty when absent.
  ast::Seq<ast::type_param*> parse_type_params_opt();

  // ---------------------------------------------------------------- patterns (parse_pattern.cpp)
  ast::pattern* parse_patterns();  // `patterns` of a case clause

  // ---------------------------------------------------------------- expressions (parse_expr.cpp)
  ast::expr* parse_expression();        // `expression`: ternary, lambda
  ast::expr* parse_named_expression();  // `named_expression`: allows :=
  ast::expr* parse_star_expressions();  // `star_expressions`: a, *b, c (Tuple when commas)
  ast::expr* parse_star_named_expressions_in_brackets();  // list/set displays' contents helper
  ast::expr* parse_yield_expr();                          // `yield_expr`
  ast::expr* parse_disjunction();                         // `disjunction`
  ast::expr* parse_bitwise_or();                          // `bitwise_or`
  ast::expr* parse_star_targets();                        // `star_targets` (ctx Store)
  ast::expr* parse_single_target();  // `single_target` for augmented / annotated assignment
  ast::expr* parse_del_targets();    // `del_targets` (ctx Del), Tuple when commas
  ast::expr* parse_slices();         // the inside of [...] of a subscript
  ast::expr* parse_atom();           // `atom`
  // Call arguments after '(' up to (not including) ')'.
  bool parse_call_arguments(std::vector<ast::expr*>& args, std::vector<ast::keyword*>& keywords);
  // Rewrites an expression parsed as a value into an assignment/deletion target: sets ctx
  // on Name/Attribute/Subscript/Starred/List/Tuple recursively. Records CPython's error
  // ("cannot assign to literal", ...) and returns false when `e` cannot be a target.
  bool set_context(ast::expr* e, ast::ExprContext ctx);
  ast::expr* parse_strings();  // one or more adjacent String/FString tokens (parse_string.cpp)

  // ---------------------------------------------------------------- helpers of each file
  // Each file adds the private helpers it needs below its own marker; edit only yours.
  // --- parse_stmt.cpp helpers
  ast::stmt* parse_compound_stmt(bool* handled);
  bool parse_simple_stmts(std::vector<ast::stmt*>& out);
  ast::stmt* parse_simple_stmt();
  ast::stmt* parse_expression_stmt();
  ast::stmt* finish_ann_assign(size_t start, ast::expr* target, int simple);
  void report_legacy_call(ast::expr* first);
  void report_assign_here(size_t start, ast::expr* target, const Checkpoint& cp);
  ast::expr* parse_annotated_rhs();
  ast::stmt* parse_del_stmt();
  ast::stmt* parse_global_or_nonlocal();
  bool parse_dotted_name(std::string_view* out);
  ast::alias* parse_alias(bool dotted);
  ast::stmt* parse_import_name();
  ast::stmt* parse_import_from();
  ast::stmt* parse_type_alias();
  // `block` after a compound statement header; `what` names the header in the
  // "expected an indented block after ..." error (null: the generic message).
  ast::Seq<ast::stmt*> parse_block_after(const char* what, size_t keyword_token);
  bool expect_header_colon(bool forced);
  ast::stmt* parse_decorated();
  ast::stmt* parse_function_def(size_t start, ast::Seq<ast::expr*> decorators);
  ast::stmt* parse_class_def(size_t start, ast::Seq<ast::expr*> decorators);
  ast::stmt* parse_if_stmt();
  ast::Seq<ast::stmt*> parse_else_block_opt();
  ast::stmt* parse_while_stmt();
  ast::stmt* parse_for_stmt();
  ast::stmt* parse_with_stmt();
  bool parse_with_items(bool parenthesized, std::vector<ast::withitem*>& items);
  ast::withitem* parse_with_item();
  ast::expr* parse_with_target();
  ast::stmt* parse_try_stmt();
  ast::excepthandler* parse_except_block(bool star);
  ast::stmt* parse_match_stmt(bool* handled);
  ast::expr* parse_match_subject();
  ast::match_case* parse_case_block();
  ast::arg* parse_param(bool lambda, bool star_annotation);
  ast::expr* parse_star_named_expression_no_walrus();
  void report_parenthesized_params(bool lambda);
  ast::type_param* parse_type_param();
  bool has_top_level_comma(size_t from, size_t to) const;
  // --- parse_pattern.cpp helpers
  ast::pattern* parse_pattern();
  ast::pattern* parse_maybe_star_pattern();
  ast::pattern* parse_or_pattern();
  ast::pattern* parse_closed_pattern();
  ast::pattern* parse_sequence_or_group_pattern();
  ast::pattern* parse_mapping_pattern();
  ast::pattern* parse_class_pattern(size_t start, ast::expr* cls);
  ast::expr* parse_number_literal();
  ast::expr* parse_name_or_attr();
  ast::Constant* make_singleton_constant(ast::ConstantValue::Type type);
  bool at_capture_target() const;
  // --- parse_expr.cpp helpers
  ast::expr* parse_star_expression();        // `star_expression`
  ast::expr* parse_star_named_expression();  // `star_named_expression`
  ast::expr* parse_conjunction();
  ast::expr* parse_inversion();
  ast::expr* parse_comparison();
  ast::expr* parse_bitwise_xor();
  ast::expr* parse_bitwise_and();
  ast::expr* parse_shift_expr();
  ast::expr* parse_sum();
  ast::expr* parse_term();
  ast::expr* parse_factor();
  ast::expr* parse_power();
  ast::expr* parse_primary();
  // Attribute / call / subscript trailers after `e`, which started at token `start`.
  // With `target`, stops before the last '.'/'[' trailer that no t_lookahead follows.
  ast::expr* parse_trailers(ast::expr* e, size_t start);
  ast::expr* parse_call(ast::expr* func, size_t start);
  ast::expr* parse_lambda();
  ast::expr* parse_paren_atom();  // tuple | group | genexp
  ast::expr* parse_list_atom();   // list | listcomp
  ast::expr* parse_brace_atom();  // dict | set | dictcomp | setcomp
  ast::expr* parse_dict_rest(size_t start, ast::expr* first_key, size_t first_start);
  // After the first element of a list or set: a comprehension (Comp) or the rest of the
  // display (Display), up to `closer`.
  template <class Comp, class Display>
  ast::expr* parse_display_tail(size_t start, ast::expr* first, TokenKind closer,
                                const char* closer_text);
  ast::expr* parse_slice();
  ast::expr* parse_number_atom();
  ast::expr* parse_name_atom();
  // `for_if_clauses`; false (error recorded) on failure.
  bool parse_for_if_clauses(ast::Seq<ast::comprehension*>& out);
  bool parse_call_arguments_into(size_t open_paren, size_t expr_base, size_t keyword_base,
                                 ast::expr** genexp);
  ast::expr* parse_star_target();
  ast::expr* parse_target_with_star_atom();
  ast::expr* parse_star_atom();
  // A t_primary chain ending in '.' NAME or '[' slices ']' (ctx set to `ctx`), or a NAME;
  // nullptr (error recorded) otherwise.
  ast::expr* parse_simple_target(ast::ExprContext ctx);
  ast::expr* parse_del_target();
  // `del_targets` as a list (what Delete.targets holds); false (error recorded) on failure.
  bool parse_del_target_list(std::vector<ast::expr*>& out);
  // CPython's _PyPegen_get_expr_name: "function call", "literal", ...
  static const char* expr_name(const ast::expr* e);
  // The first sub-expression of `e` that cannot be an assignment/deletion target
  // (_PyPegen_get_invalid_target), or nullptr when `e` is a valid target.
  static ast::expr* find_invalid_target(ast::expr* e, bool for_targets);
  // Records the error CPython gives for `e = ...` where e cannot be assigned to, in a
  // named_expression context (`if f() = 1:`).
  std::nullptr_t fail_assign_in_expression(ast::expr* e);
  bool starts_expression(TokenKind kind) const;
  // invalid_expression: `a b` inside brackets -> "Perhaps you forgot a comma?"; returns
  // `body` unchanged when the rule does not apply.
  ast::expr* check_forgot_comma(ast::expr* body, size_t start);
  bool inside_brackets() const;  // whether the current token is inside (), [] or {}
  bool enter_nesting();          // false (error recorded) when expressions nest too deeply
  // `(...)`, `[...]` or `{...}`, remembering where it failed: backtracking parses the same
  // brackets again (as a target, then as an expression for the error message), and
  // nested comprehensions made that exponential. A bracket atom that failed at a token
  // fails the same way from there again, given the same comma-probe state and enough
  // nesting room, so the second attempt replays the failure instead of parsing.
  ast::expr* parse_bracket_atom();
  struct FailedAtom {
    size_t end;  // where the cursor stopped
    Diagnostic error;
    int depth_used;  // nesting levels it entered below its start
    bool in_comma_probe;
  };
  std::unordered_map<size_t, FailedAtom> failed_atoms_;
  int peak_nesting_ = 0;
  int nesting_limit_hits_ = 0;
  // Whether the bracket atom opening at token `open` could begin a t_primary: it has a
  // matching closer and a trailer ('.', '[', '(') follows. When not, a target starting
  // with it can only be a star_atom, and trying the t_primary first parses it twice.
  bool bracket_has_trailer(size_t open) const;
  template <class T>
  ast::Seq<T> seq_from(std::vector<T>& scratch, size_t base) {
    ast::Seq<T> out;
    out.size = static_cast<uint32_t>(scratch.size() - base);
    out.data = arena_.make_array<T>(out.size);
    for (uint32_t i = 0; i < out.size; ++i) out.data[i] = scratch[base + i];
    scratch.resize(base);
    return out;
  }
  int nesting_ = 0;
  // Inside the forgot-comma probe: its expression is CPython's expression_without_invalid,
  // so no nested probe (nested probes made the parse exponential in bracket depth).
  bool in_comma_probe_ = false;
  std::vector<ast::expr*> expr_scratch_;
  std::vector<ast::keyword*> keyword_scratch_;
  std::vector<ast::comprehension*> comp_scratch_;
  std::vector<ast::CmpOpKind> cmpop_scratch_;
  // --- parse_string.cpp helpers
  ast::expr* parse_string_tokens();
  void relocate_string_error_311(size_t first_token);
  std::string debug_text_without_comments(Span range) const;
  struct StringPart;
  // Decodes a literal body (str, or bytes with `bytes`); records the error on failure.
  bool decode_literal(std::string_view body, uint32_t body_offset, bool raw, bool bytes,
                      std::string& out);
  bool parse_fstring(std::vector<StringPart>& parts);
  bool parse_replacement_field(bool raw, ast::FormattedValue** field, StringPart* debug,
                               bool* has_debug);
  // 3.11: format specs of the concatenation being parsed, whose parts span all of it.
  std::vector<ast::JoinedStr*> pending_specs_;
  std::string string_buf_;

  const SourceText& source_;
  Arena& arena_;
  ParseOptions options_;
  std::vector<Token> tokens_;
  // For each opening bracket token, the index of its matching closer (kNoCloser if none).
  static constexpr uint32_t kNoCloser = UINT32_MAX;
  std::vector<uint32_t> closer_of_;
  size_t pos_ = 0;
  std::optional<Diagnostic> error_;
};

}  // namespace graphmend
