// Shared helpers of the rewrites: source text of nodes, tensor conditions, indentation,
// fresh temporaries.
#include <string>
#include <utility>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite {
namespace {

bool is_identifier_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Whether `name` occurs in `text` as a whole identifier.
bool mentions_identifier(std::string_view text, std::string_view name) {
  size_t at = text.find(name);
  while (at != std::string_view::npos) {
    bool starts = at == 0 || !is_identifier_byte(text[at - 1]);
    size_t after = at + name.size();
    bool ends = after >= text.size() || !is_identifier_byte(text[after]);
    if (starts && ends) return true;
    at = text.find(name, at + 1);
  }
  return false;
}

// Whether `e` needs parentheses to stand as an argument of a call (only bare tuples and
// yields do; a lambda or conditional expression is a complete argument).
bool needs_parentheses_as_argument(const ast::expr& e) {
  return ast::is<ast::Tuple>(&e) || ast::is<ast::Yield>(&e) || ast::is<ast::YieldFrom>(&e) ||
         ast::is<ast::NamedExpr>(&e) || ast::is<ast::Starred>(&e);
}

std::optional<std::string> condition_operand(const Context& context, const ast::expr& e,
                                             bool must_be_pure);

const char* comparison_text(ast::CmpOpKind op, bool reversed) {
  switch (op) {
    case ast::CmpOpKind::Lt:
      return reversed ? ">" : "<";
    case ast::CmpOpKind::LtE:
      return reversed ? ">=" : "<=";
    case ast::CmpOpKind::Gt:
      return reversed ? "<" : ">";
    case ast::CmpOpKind::GtE:
      return reversed ? "<=" : ">=";
    case ast::CmpOpKind::Eq:
      return "==";
    case ast::CmpOpKind::NotEq:
      return "!=";
    default:
      return nullptr;
  }
}

// `X.item() < y` (or `y < X.item()`, `float(X) < y`, `int(X) < y`):
// `runtime.item_compare(X, "<", y[, "float"|"int"])`, a bool tensor while compiling where
// that comparison is exact, else the original comparison (runtime/scalar.py).
std::optional<std::string> item_comparison(const Context& context, const ast::expr& e) {
  const auto* compare = ast::as<ast::Compare>(&e);
  if (compare == nullptr || compare->ops.size != 1) return std::nullopt;
  const ast::expr* left = compare->left;
  const ast::expr* right = compare->comparators[0];
  sema::ScalarRead read = context.analysis.scalar_read(*left);
  const ast::expr* other = right;
  bool reversed = false;
  if (read.tensor == nullptr) {
    read = context.analysis.scalar_read(*right);
    other = left;
    reversed = true;
  }
  const ast::expr* value = read.read == "bool" ? nullptr : read.tensor;  // item_compare's reads
  const char* op = comparison_text(compare->ops[0], reversed);
  if (value == nullptr || op == nullptr || context.analysis.scalar_read(*other).tensor != nullptr)
    return std::nullopt;
  // `other` must not be a tensor: asked of the text alone, assuming nothing about it
  sema::Speculation* active = context.analysis.speculate(nullptr);
  bool other_tensor = context.analysis.is_tensor(*other);
  context.analysis.speculate(active);
  if (other_tensor || !context.analysis.is_tensor(*value) || !context.analysis.is_pure(*value) ||
      !context.analysis.is_pure(*other, sema::PurityFacts{})) {  // facts: numbers count
    return std::nullopt;
  }
  auto text = [&](const ast::expr& x) {
    std::string t(node_text(context, x));
    return needs_parentheses_as_argument(x) ? "(" + t + ")" : t;
  };
  std::string how = read.read == "item" ? "" : ", \"" + std::string(read.read) + "\"";
  return context.runtime + ".item_compare(" + text(*value) + ", \"" + op + "\", " + text(*other) +
         how + ")";
}

std::string torch_call(const Context& context, std::string_view function,
                       const std::vector<std::string>& arguments) {
  std::string out(context.analysis.torch_name());
  out += '.';
  out += function;
  out += '(';
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i) out += ", ";
    out += arguments[i];
  }
  out += ')';
  return out;
}

// `a < b <= c` with a tensor in every link: `torch.logical_and((a < b), (b <= c))`. Python's
// chain is `bool(a < b) and bool(b <= c)`, `b` evaluated once: the same truth for the
// one-element conditions the rewrites select on, provided every operand is pure (`b` is
// written twice, and every link is evaluated).
std::optional<std::string> chained_comparison(const Context& context, const ast::Compare& chain) {
  std::optional<std::string> acc;
  const ast::expr* left = chain.left;
  for (uint32_t i = 0; i < chain.ops.size; ++i) {
    const ast::expr* right = chain.comparators[i];
    const char* op = comparison_text(chain.ops[i], false);
    bool tensor_link = context.analysis.is_tensor(*left) || context.analysis.is_tensor(*right);
    if (op == nullptr || !tensor_link || !context.analysis.is_pure(*left) ||
        !context.analysis.is_pure(*right))
      return std::nullopt;
    auto text = [&](const ast::expr& x) {
      std::string t(node_text(context, x));
      return needs_parentheses_as_argument(x) ? "(" + t + ")" : t;
    };
    std::string link = "(" + text(*left) + " " + op + " " + text(*right) + ")";
    acc = acc ? torch_call(context, "logical_and", {*acc, link}) : link;
    left = right;
  }
  return acc;
}

// `and`/`or`/`not` become torch.logical_*; anything else must itself be a tensor.
// `v in t` (`v not in t`) on a tensor `t`: `runtime.contains(v, t)`, while compiling the bool
// tensor `(v == t).any()` that Tensor.__contains__ converts with `.item()` (a graph break),
// otherwise Python's `in` (then not a tensor, and the original statement runs).
std::optional<std::string> membership(const Context& context, const ast::expr& e) {
  const auto* compare = ast::as<ast::Compare>(&e);
  if (compare == nullptr || compare->ops.size != 1) return std::nullopt;
  ast::CmpOpKind op = compare->ops[0];
  if (op != ast::CmpOpKind::In && op != ast::CmpOpKind::NotIn) return std::nullopt;
  const ast::expr& container = *compare->comparators[0];
  if (!context.analysis.is_tensor(container) || !context.analysis.is_pure(e)) return std::nullopt;
  return context.runtime + (op == ast::CmpOpKind::In ? ".contains(" : ".not_contains(") +
         std::string(node_text(context, *compare->left)) + ", " +
         std::string(node_text(context, container)) + ")";
}

// `torch.allclose(a, b, ...)` (or `a.allclose(b, ...)`): `torch.isclose(a, b, ...).all()`,
// the bool tensor torch's allclose reads with `.item()` (a graph break), same arguments.
std::optional<std::string> closeness(const Context& context, const ast::expr& e) {
  const auto* call = ast::as<ast::Call>(&e);
  if (call == nullptr || (call->args.empty() && call->keywords.empty())) return std::nullopt;
  for (const ast::expr* arg : call->args)
    if (ast::is<ast::Starred>(arg)) return std::nullopt;
  for (const ast::keyword* keyword : call->keywords)
    if (keyword->arg.empty()) return std::nullopt;
  sema::Callee callee = context.analysis.resolve_call(*call);
  const auto* method = ast::as<ast::Attribute>(call->func);
  std::string head;
  const ast::expr* first = call->args.empty() ? nullptr : call->args[0];
  if (callee.kind == sema::CalleeKind::TorchFunction && callee.qualified_name == "torch.allclose") {
    head = std::string(context.analysis.torch_name()) + ".isclose(";
  } else if (callee.kind == sema::CalleeKind::TensorMethod && method != nullptr &&
             method->attr == "allclose") {
    first = method->value;
    std::string receiver(node_text(context, *first));
    head = (ast::is_primary(first) ? receiver : "(" + receiver + ")") + ".isclose(";
  } else {
    return std::nullopt;
  }
  if (first == nullptr || !context.analysis.is_tensor(*first) || !context.analysis.is_pure(e))
    return std::nullopt;
  const ast::Node* last = call->keywords.empty()
                              ? static_cast<const ast::Node*>(call->args[call->args.size - 1])
                              : call->keywords[call->keywords.size - 1];
  const ast::Node* from =
      call->args.empty() ? static_cast<const ast::Node*>(call->keywords[0]) : call->args[0];
  std::string_view all = context.source.text();
  return head + std::string(all.substr(from->begin, last->end - from->begin)) + ").all()";
}

// Operands that Python might not have evaluated (all but the first of an and/or) must be
// pure, since the logical form evaluates every one of them.
std::optional<std::string> condition_operand(const Context& context, const ast::expr& e,
                                             bool must_be_pure) {
  if (const auto* boolean = ast::as<ast::BoolOp>(&e)) {
    if (boolean->values.size < 2) return std::nullopt;
    const char* function = boolean->op == ast::BoolOpKind::And ? "logical_and" : "logical_or";
    std::optional<std::string> acc = condition_operand(context, *boolean->values[0], must_be_pure);
    if (!acc) return std::nullopt;
    for (uint32_t i = 1; i < boolean->values.size; ++i) {
      std::optional<std::string> next = condition_operand(context, *boolean->values[i], true);
      if (!next) return std::nullopt;
      acc = torch_call(context, function, {*acc, *next});
    }
    return acc;
  }
  if (const auto* unary = ast::as<ast::UnaryOp>(&e); unary && unary->op == ast::UnaryOpKind::Not) {
    std::optional<std::string> operand = condition_operand(context, *unary->operand, must_be_pure);
    if (!operand) return std::nullopt;
    return torch_call(context, "logical_not", {*operand});
  }
  if (const auto* chain = ast::as<ast::Compare>(&e); chain && chain->ops.size > 1)
    return chained_comparison(context, *chain);
  if (std::optional<std::string> lowered = membership(context, e)) return lowered;
  if (std::optional<std::string> lowered = closeness(context, e)) return lowered;
  // only where Python always evaluates it: `.item()` raises for more than one element
  if (!must_be_pure)
    if (std::optional<std::string> lowered = item_comparison(context, e)) return lowered;
  if (!context.analysis.is_tensor(e)) return std::nullopt;
  if (must_be_pure && !context.analysis.is_pure(e)) return std::nullopt;
  std::string text(node_text(context, e));
  if (needs_parentheses_as_argument(e)) text = "(" + text + ")";
  return text;
}

}  // namespace

const ast::expr* item_receiver(const ast::expr* e) {
  const auto* call = ast::as<ast::Call>(e);
  if (call == nullptr || !call->args.empty() || !call->keywords.empty()) return nullptr;
  const auto* attr = ast::as<ast::Attribute>(call->func);
  return attr != nullptr && attr->attr == "item" ? attr->value : nullptr;
}

std::string_view node_text(const Context& context, const ast::Node& node) {
  std::string_view text = context.source.text();
  if (node.begin > node.end || node.end > text.size()) return {};
  return text.substr(node.begin, node.end - node.begin);
}

bool written_as_elif(const Context& context, const ast::stmt& statement) {
  return ast::is<ast::If>(&statement) && node_text(context, statement).substr(0, 4) == "elif";
}

std::optional<std::string> tensor_condition(const Context& context, const ast::expr& condition) {
  if (context.analysis.torch_name().empty()) return std::nullopt;
  return condition_operand(context, condition, false);
}

std::string held_read(const Context& context, const sema::ScalarRead& read) {
  std::string how = read.read == "item" ? "" : ", \"" + std::string(read.read) + "\"";
  return context.runtime + ".item_later(" + std::string(node_text(context, *read.tensor)) + how +
         ")";
}

std::string tensors_check(const Context& context, const sema::Speculation& speculation) {
  std::string values;
  for (const ast::expr* value : speculation.assumed)
    values += (values.empty() ? "" : ", ") + std::string(node_text(context, *value));
  return context.runtime + ".tensors(" + values + ")";
}

bool is_docstring(const ast::stmt* statement) {
  const auto* expression = ast::as<ast::Expr>(statement);
  if (expression == nullptr) return false;
  const auto* constant = ast::as<ast::Constant>(expression->value);
  return constant != nullptr && constant->value.type == ast::ConstantValue::Type::Str;
}

bool is_item_comparison(const Context& context, const ast::expr& e) {
  return item_comparison(context, e).has_value();
}

std::string indentation_of(const Context& context, const ast::stmt& statement) {
  LineCol position = context.source.line_col(statement.begin);
  std::string_view line = context.source.line_text(position.line);
  size_t length = 0;
  while (length < line.size() &&
         (line[length] == ' ' || line[length] == '\t' || line[length] == '\f')) {
    ++length;
  }
  return std::string(line.substr(0, length));
}

std::string Context::fresh_name(std::string_view stem) {
  for (;;) {
    std::string name = "__gm_" + std::string(stem) + std::to_string(next_temp++);
    if (!mentions_identifier(source.text(), name)) return name;
  }
}

std::optional<StaticSplit> split_static_prefix(const Context& context, const ast::expr& test) {
  const auto* conjunction = ast::as<ast::BoolOp>(&test);
  if (conjunction == nullptr || conjunction->op != ast::BoolOpKind::And) return std::nullopt;
  if (context.analysis.torch_name().empty()) return std::nullopt;
  uint32_t k = 0;
  while (k < conjunction->values.size &&
         !context.analysis.is_data_dependent(*conjunction->values[k])) {
    ++k;
  }
  if (k == 0 || k == conjunction->values.size) return std::nullopt;
  StaticSplit split;
  for (uint32_t i = 0; i < k; ++i) {
    std::string text(node_text(context, *conjunction->values[i]));
    if (k > 1) text = "(" + text + ")";
    split.prefix += (i ? " and " : "") + text;
  }
  for (uint32_t i = k; i < conjunction->values.size; ++i) {
    const ast::expr& operand = *conjunction->values[i];
    // Operands after the first tensor one may be skipped by Python: they must be pure.
    if (i > k && !context.analysis.is_pure(operand)) return std::nullopt;
    std::optional<std::string> text = tensor_condition(context, operand);
    if (!text) return std::nullopt;
    split.tensor_part = i == k ? *text
                               : std::string(context.analysis.torch_name()) + ".logical_and(" +
                                     split.tensor_part + ", " + *text + ")";
  }
  return split;
}

}  // namespace graphmend::rewrite
