// [MaskedReduce]'s "masked_assign" form (see masked_assign.h).
#include "rewrite/masked_assign/masked_assign.h"

#include <algorithm>

#include "ast/walk.h"
#include "sema/torch_facts.h"

namespace graphmend::rewrite {
namespace {

using ast::Kind;

// A name or an attribute chain of one (`x`, `self.scale`): evaluating it again has no effect.
bool is_plain_reference(const ast::expr& e) {
  if (ast::is<ast::Name>(&e)) return true;
  const auto* attribute = ast::as<ast::Attribute>(&e);
  return attribute != nullptr && is_plain_reference(*attribute->value);
}

bool is_number(const ast::expr& e) {
  if (const auto* unary = ast::as<ast::UnaryOp>(&e))
    return (unary->op == ast::UnaryOpKind::USub || unary->op == ast::UnaryOpKind::UAdd) &&
           is_number(*unary->operand);
  const auto* constant = ast::as<ast::Constant>(&e);
  using Type = ast::ConstantValue::Type;
  return constant != nullptr &&
         (constant->value.type == Type::Int || constant->value.type == Type::Float);
}

bool is_arithmetic(ast::OperatorKind op) {
  using Op = ast::OperatorKind;
  return op == Op::Add || op == Op::Sub || op == Op::Mult || op == Op::Div || op == Op::Pow ||
         op == Op::FloorDiv || op == Op::Mod;
}

// Walks a value, collecting the selections by `mask_`; false at the first part that is not
// element-wise (named in `why_`).
class DenseWalk {
 public:
  DenseWalk(const Context& context, std::string_view mask, std::string& why)
      : context_(context), mask_(mask), why_(why) {}

  bool value(const ast::expr& e) {
    if (is_number(e)) return true;
    if (is_plain_reference(e)) {  // a Python number, checked at run time
      numbers.push_back(&e);
      return true;
    }
    switch (e.kind) {
      case Kind::Subscript:
        return selection(*ast::as<ast::Subscript>(&e));
      case Kind::UnaryOp: {
        const auto* unary = ast::as<ast::UnaryOp>(&e);
        if (unary->op != ast::UnaryOpKind::USub && unary->op != ast::UnaryOpKind::UAdd) break;
        return value(*unary->operand);
      }
      case Kind::BinOp: {
        const auto* binary = ast::as<ast::BinOp>(&e);
        if (!is_arithmetic(binary->op)) break;
        return value(*binary->left) && value(*binary->right);
      }
      case Kind::Call:
        return elementwise_call(*ast::as<ast::Call>(&e));
      default:
        break;
    }
    return fail(e);
  }

  std::vector<const ast::Subscript*> reads;
  std::vector<const ast::expr*> numbers;

 private:
  bool selection(const ast::Subscript& read) {
    const auto* index = ast::as<ast::Name>(read.slice);
    if (index == nullptr || index->id != mask_ || !is_plain_reference(*read.value))
      return fail(read);
    reads.push_back(&read);
    return true;
  }

  // `<value>.<f>(numbers)` or `torch.<f>(<value>, numbers)` for an element-wise f.
  bool elementwise_call(const ast::Call& call) {
    for (const ast::keyword* keyword : call.keywords)
      if (keyword->arg.empty() || !is_number(*keyword->value)) return fail(call);
    const auto* method = ast::as<ast::Attribute>(call.func);
    if (method == nullptr) return fail(call);
    // torch.<f>(value, ...); else value.<f>(...), a tensor where value holds a selection
    bool function =
        context_.analysis.resolve_call(call).qualified_name == "torch." + std::string(method->attr);
    const ast::expr* operand =
        function ? (call.args.size >= 1 ? call.args[0] : nullptr) : method->value;
    size_t numbers_from = function ? 1 : 0;
    if (operand == nullptr || !sema::has_fact(sema::TorchFact::Elementwise, method->attr))
      return fail(call);
    for (size_t i = numbers_from; i < call.args.size; ++i)
      if (!is_number(*call.args[i])) return fail(call);
    return value(*operand);
  }

  bool fail(const ast::Node& part) {
    if (why_.empty()) why_ = "`" + std::string(node_text(context_, part)) + "`";
    return false;
  }

  const Context& context_;
  std::string_view mask_;
  std::string& why_;
};

// Whether `statement` has its lines to itself (no `;` neighbour, no compound header before it).
bool alone_on_its_lines(const Context& context, const ast::stmt& statement) {
  std::string_view text = context.source.text();
  for (uint32_t i = statement.begin; i > 0 && text[i - 1] != '\n'; --i)
    if (text[i - 1] != ' ' && text[i - 1] != '\t') return false;
  for (uint32_t i = statement.end; i < text.size() && text[i] != '\n' && text[i] != '\r'; ++i) {
    if (text[i] == '#') return true;
    if (text[i] != ' ' && text[i] != '\t') return false;
  }
  return true;
}

}  // namespace

std::string check_arguments(const DenseValue& dense) {
  std::string arguments;
  for (const std::string& source : dense.sources) arguments += ", " + source;
  if (dense.numbers.empty()) return arguments;
  arguments += ", numbers=(";
  for (const std::string& number : dense.numbers) arguments += number + ", ";
  return arguments + ")";
}

std::optional<DenseValue> dense_value(const Context& context, const ast::expr& value,
                                      std::string_view mask, std::string& why) {
  DenseWalk walk(context, mask, why);
  if (!walk.value(value)) return std::nullopt;
  if (walk.reads.empty()) {
    why = "`" + std::string(node_text(context, value)) + "` selects nothing by the mask";
    return std::nullopt;
  }
  std::sort(walk.reads.begin(), walk.reads.end(),
            [](const ast::Subscript* a, const ast::Subscript* b) { return a->begin < b->begin; });
  DenseValue dense;
  std::string_view text = context.source.text();
  uint32_t at = value.begin;
  for (const ast::Subscript* read : walk.reads) {
    std::string source(node_text(context, *read->value));
    dense.text += std::string(text.substr(at, read->begin - at)) + source;
    at = read->end;
    if (std::find(dense.sources.begin(), dense.sources.end(), source) == dense.sources.end())
      dense.sources.push_back(std::move(source));
  }
  dense.text += std::string(text.substr(at, value.end - at));
  for (const ast::expr* number : walk.numbers) {
    std::string name(node_text(context, *number));
    if (std::find(dense.numbers.begin(), dense.numbers.end(), name) == dense.numbers.end())
      dense.numbers.push_back(std::move(name));
  }
  dense.reads = std::move(walk.reads);
  return dense;
}

std::optional<Outcome> rewrite_masked_assign(const sema::BreakTag& tag, Context& context) {
  const auto* assign = ast::as<ast::Assign>(tag.statement);
  const ast::Subscript* store = assign != nullptr && assign->targets.size == 1
                                    ? ast::as<ast::Subscript>(assign->targets[0])
                                    : nullptr;
  const auto* mask = store != nullptr ? ast::as<ast::Name>(store->slice) : nullptr;
  if (mask == nullptr || !is_plain_reference(*store->value) ||
      !ast::contains(assign->value, [&](const ast::Node* n) { return n == tag.site; }))
    return std::nullopt;
  auto declined = [](std::string why) {
    return Outcome::declined(reasons::Reason::MaskedAssignForm,
                             "the store through the mask is kept as written: " + why);
  };
  std::string why;
  std::optional<DenseValue> dense = dense_value(context, *assign->value, mask->id, why);
  if (!dense)
    return declined(why + " is not an element-wise use of selections by `" + std::string(mask->id) +
                    "`");
  if (!alone_on_its_lines(context, *assign))
    return declined("the statement shares its line with another");

  const std::string& rt = context.runtime;
  std::string indent = indentation_of(context, *assign);
  std::string step = indent.find('\t') != std::string::npos ? "\t" : "    ";
  std::string sources = check_arguments(*dense);
  std::string m(mask->id), t(node_text(context, *store->value));
  Outcome outcome;
  outcome.fixed = true;
  outcome.form = "masked_assign";
  outcome.needs_runtime = true;
  outcome.edits.push_back({assign->begin, assign->end,
                           "if " + rt + ".masked_assign_ok(" + m + ", " + t + sources + "):\n" +
                               indent + step + rt + ".masked_assign_(" + t + ", " + m + ", " +
                               dense->text + ")\n" + indent + "else:\n" + indent + step +
                               std::string(node_text(context, *assign))});
  for (const ast::Subscript* read : dense->reads)
    if (read != tag.site) outcome.absorbed.push_back(read);
  outcome.absorbed_as = Outcome::Absorbed::Rewritten;
  return outcome;
}

}  // namespace graphmend::rewrite
