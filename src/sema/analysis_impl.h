// Private to src/sema: the concrete Analysis, its scope table and the per-function flow
// graphs (CFG, reaching definitions, liveness).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ast/ast.h"
#include "base/source.h"
#include "sema/ids.h"
#include "sema/sema.h"

namespace graphmend::sema {

// What a value is, as far as tensor-ness goes.
enum class ValueKind : uint8_t {
  Other,        // not shown to be a tensor
  Tensor,       // a torch.Tensor
  BoolTensor,   // a torch.Tensor of dtype bool (a comparison, a mask)
  TensorTuple,  // a tuple of tensors (chunk, split, max(dim=...))
  DataScalar,   // a Python value computed from tensor data (item(), bool(t), torch.equal)
};

// A display or literal: its value is built here, never a tensor from elsewhere.
inline bool is_literal(const ast::expr* e) {
  switch (e->kind) {
    case ast::Kind::Constant:
    case ast::Kind::List:
    case ast::Kind::Tuple:
    case ast::Kind::Dict:
    case ast::Kind::Set:
    case ast::Kind::JoinedStr:
    case ast::Kind::ListComp:
    case ast::Kind::SetComp:
    case ast::Kind::DictComp:
    case ast::Kind::GeneratorExp:
      return true;
    default:
      return false;
  }
}

inline bool is_tensor_kind(ValueKind k) {
  return k == ValueKind::Tensor || k == ValueKind::BoolTensor;
}
inline bool is_data_kind(ValueKind k) { return is_tensor_kind(k) || k == ValueKind::DataScalar; }

// What a value is where it may be either.
inline ValueKind join_kind(ValueKind a, ValueKind b) {
  if (a == b) return a;
  if (is_tensor_kind(a) && is_tensor_kind(b)) return ValueKind::Tensor;
  if (is_data_kind(a) && is_data_kind(b)) return ValueKind::DataScalar;
  return ValueKind::Other;
}

// How a name is bound in one scope (merged over every binding of it there).
enum class BindKind : uint8_t {
  Import,    // `import a.b as c`, `from a import b`: path holds the dotted module path
  Function,  // def
  Class,     // class
  Param,     // a parameter
  Value,     // an assignment; classified after the walk (logger, instance, ...)
  Logger,    // logger = logging.getLogger(...) / logging.get_logger(...)
  Instance,  // x = LocalClass(...)
  Other,
};

struct Binding {
  BindKind kind = BindKind::Other;
  std::string path;                       // Import: "torch.nn.functional"
  const ast::Node* definition = nullptr;  // Function / Class
  ClassId class_index;                    // Class / Instance
  std::vector<const ast::expr*> values;   // Value: every assigned value
  bool conflicting = false;               // bound in different ways
};

struct Scope {
  const ast::Node* node = nullptr;  // Module or FunctionDef / AsyncFunctionDef
  ScopeId parent;                   // enclosing function scope (classes skipped); none: module
  std::unordered_map<std::string_view, Binding> bindings;
  std::unordered_set<std::string_view> globals;
  std::unordered_set<std::string_view> nonlocals;
};

struct ClassInfo {
  const ast::ClassDef* node = nullptr;
  ScopeId scope = kModuleScope;  // the scope the class statement runs in
  std::unordered_map<std::string_view, const ast::Node*> methods;
  std::vector<ClassId> local_bases;  // classes of this module
  bool torch_module_base = false;
  bool is_module = false;
  bool torch_optimizer_base = false;
  bool is_optimizer = false;  // derives from torch.optim.Optimizer
  // self.<attr> = LocalClass(...) in any method: attr -> its class
  std::unordered_map<std::string_view, ClassId> attr_classes;
  std::vector<std::pair<std::string_view, const ast::expr*>> pending_attrs;
  // The parameters and buffers it registers in any method (`self.register_buffer("n", ...)`,
  // `register_parameter`, `self.n = nn.Parameter(...)`): nn.Module keeps each one a tensor
  // or None.
  std::vector<std::string_view> registered_tensors;
};

struct CallSite {
  const ast::Call* call;
  ScopeId scope;  // the scope the call is evaluated in
};

// A definition of a local variable at one flow node.
struct Def {
  enum class Source : uint8_t {
    Unbound,    // pseudo-definition at entry / after del: the name is not bound
    Param,      // a parameter (arg holds the ast::arg)
    Value,      // target = value
    Unpack,     // (a, b) = value: element `index` of value
    AugAssign,  // target op= value (node holds the AugAssign)
    ForTarget,  // for target in iter (value holds iter)
    Other,      // import, def, with, except, match, ...
  };
  uint32_t var = 0;
  uint32_t node = 0;
  Source source = Source::Other;
  int index = 0;
  const ast::expr* value = nullptr;
  const ast::Node* origin = nullptr;
};

struct FlowNode {
  std::vector<uint32_t> succ;
  int exc = -1;                // index into Flow::exc_lists: where an exception raised here goes
  std::vector<uint32_t> uses;  // variable ids read
  std::vector<uint32_t> defs;  // definition ids
};

struct Region {
  uint32_t begin;
  uint32_t end;
  uint32_t node;
};

// The control-flow graph of one function (or of the module's top level) with its
// reaching definitions and liveness.
struct Flow {
  ScopeId scope = kModuleScope;
  std::unordered_map<std::string_view, uint32_t> var_ids;
  std::vector<std::string_view> var_names;
  std::vector<FlowNode> nodes;
  std::vector<std::vector<uint32_t>> exc_lists;
  uint32_t entry = 0;
  uint32_t exit = 0;
  std::vector<Def> defs;
  std::vector<std::vector<uint32_t>> defs_of_var;
  std::vector<Region> regions;                              // sorted by begin, disjoint
  std::unordered_map<const ast::Node*, uint32_t> after;     // statement -> continuation node
  std::unordered_map<const ast::Node*, uint32_t> entry_of;  // statement -> its first node
  std::vector<bool> captured;                               // per var: read by a nested scope
  bool all_live = false;  // locals()/vars()/exec/eval, or the module's top level

  size_t var_words = 0;
  size_t def_words = 0;
  std::vector<uint64_t> live_in;   // nodes x var_words
  std::vector<uint64_t> reach_in;  // nodes x def_words

  // Tensor-ness of each definition (a greatest fixpoint, computed on first use).
  enum class KindState : uint8_t { NotStarted, Computing, Done };
  KindState kind_state = KindState::NotStarted;
  std::vector<ValueKind> def_kinds;
  std::vector<bool> def_kind_known;  // false: optimistic (not yet evaluated)

  // The flow node whose evaluated expressions contain byte `offset`, or -1.
  int node_at(uint32_t offset) const;
  // Whether definition `def` reaches the entry of `node`. Functions too large for the bit
  // matrices (see kMaxFlowWords) answer yes for every definition: a conservative answer.
  bool reaches(uint32_t def, uint32_t node) const {
    if (reach_in.empty()) return true;
    return ((reach_in[node * def_words + (def >> 6)] >> (def & 63)) & 1) != 0;
  }
};

class AnalysisImpl final : public Analysis {
 public:
  AnalysisImpl(const ast::Module& module, const SourceText& source, const AnalysisOptions& options);

  const std::vector<FunctionInfo>& functions() const override { return functions_; }
  const FunctionInfo* function_of(const ast::Node* node) const override;
  bool is_traced(const FunctionInfo& function) const override;
  std::string_view torch_name() const override { return torch_name_; }
  Callee resolve_call(const ast::Call& call) const override;
  bool is_tensor(const ast::expr& e) const override;
  bool is_data_dependent(const ast::expr& condition) const override;
  bool is_pure(const ast::expr& e) const override;
  bool is_pure(const ast::expr& e, const PurityFacts& facts) const override;
  bool is_number(const ast::expr& e, const PurityFacts& facts) const override;
  void add_floating_dtypes(const ast::expr& condition, PurityFacts& facts) const override;
  std::vector<std::string_view> live_after(const ast::stmt& statement) const override;
  std::vector<std::string_view> assigned_names(const ast::Seq<ast::stmt*>& body) const override;
  bool mutates_state(const ast::Seq<ast::stmt*>& body) const override;
  bool is_bool_tensor(const ast::expr& e) const override;
  bool is_definitely_bound_before(const ast::stmt& statement, std::string_view name) const override;
  bool is_tensor_before(const ast::stmt& statement, std::string_view name) const override;
  std::vector<std::string_view> live_before(const ast::stmt& statement) const override;
  Speculation* speculate(Speculation* speculation) const override;
  std::string why_not_fresh(const ast::expr& e) const override;       // freshness.cpp
  ScalarRead scalar_read(const ast::expr& e) const override;          // held_scalars.cpp
  HeldScalar held_scalar(const ast::stmt& statement) const override;  // held_scalars.cpp

  // Internal queries shared by the tagger and the flow builder.
  ValueKind kind_of(const ast::expr& e) const;
  bool known_non_tensor(const ast::expr* e, ScopeId scope, int depth = 0) const;
  bool defs_non_tensor(const std::vector<const Def*>& defs, ScopeId scope, int depth) const;
  bool known_non_tensor_before(const ast::stmt& statement, std::string_view name) const;
  bool is_shape_read(const ast::expr* e) const;
  ScopeId scope_of(const ast::Node* node) const;
  const Binding* lookup(ScopeId scope, std::string_view name) const;
  std::string qualify(const ast::expr* e, ScopeId scope) const;  // "torch.nn.functional.relu"
  bool is_builtin_print(const ast::Name& name) const;
  bool is_logger_expr(const ast::expr* e, ScopeId scope) const;
  bool is_logger_attribute(const ast::Attribute& a, ScopeId scope) const;
  struct LoggerSets {  // `self.<attr> = value` in a class: loggers, anything else
    int loggers = 0;
    int others = 0;
  };
  void count_logger_sets(ClassId klass, std::string_view attr, int depth, LoggerSets& sets) const;
  const SourceText& source() const { return source_; }
  const ast::Module& module() const { return module_; }
  Flow* flow_for_scope(ScopeId scope) const;
  // The definitions of the local `name` that reach this read of it (the unbound
  // pseudo-definition included), in the flow of `scope`; none where that flow does not know
  // the name there (flow.cpp).
  std::vector<const Def*> reaching_defs(const ast::Name& name, ScopeId scope) const;
  // The definitions of `name` reaching the start of `statement`.
  std::vector<const Def*> defs_before(const ast::stmt& statement, std::string_view name) const;
  const std::vector<Scope>& scopes() const { return scopes_; }
  // The tagger's evidence where the text shows no tensor (speculation.cpp): whether
  // `condition`, read at `site`, depends on tensor data once the attributes a class registers
  // as parameters or buffers, or sets only to tensors, count as tensors; those read are
  // added to `read`.
  bool is_data_dependent_by_class(const ast::expr& condition, const ast::stmt& site,
                                  std::vector<const ast::expr*>& read) const;
  // The same for a conditional expression whose two values are tensors (by the text or that
  // evidence), where a plain parameter counts as a tensor too (Speculation::plain_parameters).
  bool selects_tensors_by_parameter(const ast::IfExp& e, const ast::stmt& site,
                                    std::vector<const ast::expr*>& read) const;
  // Whether `index`, read at `site`, is a bool tensor under that same evidence (`valid`
  // of `valid = target >= 0` with `target` a plain parameter): asked where Dynamo broke on
  // an operator of data-dependent output shape.
  bool is_bool_tensor_by_parameter(const ast::expr& index, const ast::stmt& site) const;

 private:
  friend class ScopeWalker;
  friend class FlowBuilder;
  friend class PurityCheck;

  // analysis.cpp
  void finalize();
  void classify_values();

  // entries.cpp
  void resolve_classes();
  void find_entries();
  void build_call_graph();
  ClassId constructor_class(const ast::expr* e, ScopeId scope) const;
  ClassId class_of_binding(const ast::expr* e, ScopeId scope) const;
  const ast::Node* find_method(ClassId class_index, std::string_view name, int depth = 0) const;
  const ast::Node* module_forward(ClassId class_index) const;

  // calls.cpp
  ClassId self_class_of_scope(ScopeId scope, std::string_view receiver) const;

  // tensor_kind.cpp: kind_rec dispatches on the node kind, call_kind on the callee's form.
  ValueKind kind_rec(const ast::expr* e, ScopeId scope, int depth) const;
  ValueKind kind_of_name(const ast::Name& name, ScopeId scope) const;
  // speculation.cpp: the kind of a Name or Attribute leaf under the active Speculation.
  ValueKind speculated_kind(const ast::expr* e, ScopeId scope, int depth) const;
  bool may_assume_name(const ast::Name& name, ScopeId scope) const;
  bool bound_to_boolean_operator_over_tensor(const ast::Name& name, ScopeId scope) const;
  bool may_assume_self_attribute(const ast::Attribute& a, ScopeId scope) const;
  bool class_sets_tensor(const ast::Attribute& a, ScopeId scope) const;
  bool may_assume_number_setting(const ast::Attribute& a, ScopeId scope) const;
  bool class_registers(ClassId klass, std::string_view attr, int depth) const;
  struct AttributeSets {  // `self.<attr> = value` in a class, by what the value is
    int tensors = 0;
    int constants = 0;  // literals: numbers, bools, strings
    int others = 0;
  };
  void count_attribute_sets(ClassId klass, std::string_view attr, int depth,
                            AttributeSets& sets) const;
  AttributeSets attribute_sets(ClassId klass, std::string_view attr) const;
  ClassId self_attribute_class(const ast::Attribute& a, ScopeId scope) const;
  bool class_sets_setting(const ast::Attribute& a, ScopeId scope) const;
  ValueKind class_evidence_kind(const ast::expr* e, ScopeId scope, int depth) const;
  void assume(const ast::expr* e) const;
  ValueKind attribute_kind(const ast::Attribute& a, ScopeId scope, int depth) const;
  ValueKind subscript_kind(const ast::Subscript& s, ScopeId scope, int depth) const;
  ValueKind binop_kind(const ast::BinOp& b, ScopeId scope, int depth) const;
  ValueKind unaryop_kind(const ast::UnaryOp& u, ScopeId scope, int depth) const;
  ValueKind compare_kind(const ast::Compare& c, ScopeId scope, int depth) const;
  ValueKind boolop_kind(const ast::BoolOp& b, ScopeId scope, int depth) const;
  ValueKind boolop_kind_shown(const ast::BoolOp& b, ScopeId scope, int depth) const;
  std::pair<ValueKind, ValueKind> operand_kinds(const ast::expr* left, const ast::expr* right,
                                                ScopeId scope, int depth) const;
  ValueKind tuple_kind(const ast::Tuple& t, ScopeId scope, int depth) const;
  ValueKind call_kind(const ast::Call& call, ScopeId scope, int depth) const;
  bool first_arg_tensor(const ast::Call& call, ScopeId scope, int depth) const;
  ValueKind name_call_kind(const ast::Call& call, const ast::Name& name, ScopeId scope,
                           int depth) const;
  ValueKind subscript_call_kind(const ast::Call& call, const ast::Subscript& sub, ScopeId scope,
                                int depth) const;
  std::optional<ValueKind> self_call_kind(const ast::Call& call, const ast::Attribute& attr,
                                          ScopeId scope, int depth) const;
  ValueKind method_call_kind(const ast::Call& call, const ast::Attribute& attr, ScopeId scope,
                             int depth) const;
  ValueKind tensor_method_kind(const ast::Call& call, std::string_view m, ValueKind rk,
                               ScopeId scope, int depth) const;
  void compute_def_kinds(Flow& flow) const;
  ValueKind def_kind(const Flow& flow, uint32_t def) const;
  ValueKind join_defs(const Flow& flow, uint32_t var, uint32_t node, bool* any_def) const;

  // purity.cpp (with PurityCheck)
  bool pure_in_scope(const ast::expr& e, ScopeId scope, int depth) const;
  bool is_dtype_like(const ast::expr* arg, ScopeId scope) const;
  bool number_rec(const ast::expr* e, ScopeId scope, int depth, const PurityFacts& facts) const;
  bool is_floating_dtype(const ast::expr* e, ScopeId scope, const PurityFacts* facts) const;
  bool number_checked(const ast::expr* e, ScopeId scope, int depth, const PurityFacts& facts) const;
  bool may_assume_number(const ast::Name& name, ScopeId scope) const;
  bool is_number_parameter(const ast::Name& name, ScopeId scope, bool or_bool) const;
  bool holds_number_parameter(const ast::Name& name, ScopeId scope) const;
  bool annotates_tensor(const ast::Node* parameter, ScopeId scope) const;
  bool is_plain_parameter(const ast::Node* parameter, ScopeId scope) const;
  bool names_tensor_type(const ast::expr* annotation, ScopeId scope, int depth) const;
  std::optional<bool> assigned_self_attribute(const ast::Name& name, ScopeId scope) const;
  bool rebound_to_numbers(const ast::Name& name, ScopeId scope) const;
  bool is_int_parameter(const ast::Name& name, ScopeId scope) const;
  const ast::Name* declared_type(const ast::expr* annotation, ScopeId scope) const;
  bool is_flag_parameter(const ast::Name& name, ScopeId scope) const;
  bool shape_int(const ast::expr* e, ScopeId scope, int depth) const;
  struct ShapeRead {  // see shape_read
    const ast::expr* object = nullptr;
    const ast::Constant* index = nullptr;
  };
  ShapeRead shape_read(const ast::expr* e, ScopeId scope) const;

  // held_scalars.cpp
  HeldScalar held_scalar_of(const ast::Name& target, const ast::expr& value, ScopeId scope) const;
  bool holds_scalar(const ast::Name& name, ScopeId scope) const;
  bool int_by_form(const ast::expr* e, ScopeId scope, int depth) const;

  // helper_calls.cpp: a module helper's call, asked about in the frame of the call.
  struct HelperFrame {
    ScopeId scope;  // the helper's
    const HelperFrame* outer = nullptr;
    std::unordered_map<std::string_view, ValueKind> kinds;  // parameters and locals so far
    // parameter -> the text of its argument in the speculated statement's words
    std::unordered_map<std::string_view, std::string> texts;
    std::vector<std::string> numbers;      // names holding Python numbers (literals, ...)
    std::vector<std::string_view> dtypes;  // names holding dtypes (`x.dtype`, torch.int8)
  };
  // what a helper's name holds from now on, where the frame can tell
  void note_frame_value(HelperFrame& frame, std::string_view name, const ast::expr& value,
                        ScopeId scope) const;
  const ast::FunctionDef* module_helper(const ast::Call& call, ScopeId scope) const;
  const ast::FunctionDef* self_method(const ast::Call& call, ScopeId scope) const;
  const ast::FunctionDef* method_helper(const ast::Call& call, ScopeId scope,
                                        SameMethod& method) const;
  std::optional<HelperFrame> bind_call(const ast::Call& call, const ast::FunctionDef& def,
                                       size_t bound) const;
  bool helper_call_pure(const ast::Call& call, ScopeId scope, int depth) const;
  ValueKind helper_call_kind(const ast::Call& call, ScopeId scope, int depth) const;
  bool returned_kind(const ast::Seq<ast::stmt*>& body, HelperFrame& frame, int depth,
                     std::optional<ValueKind>& returned) const;
  int helper_nesting() const;
  bool bind_names(HelperFrame& frame, const ast::expr& target, const ast::expr& value,
                  int depth) const;
  bool helper_block(const ast::Seq<ast::stmt*>& body, HelperFrame& frame, int depth,
                    bool& ended) const;
  bool helper_guard(const ast::If& guard, HelperFrame& frame, int depth) const;
  bool add_precondition(const ast::expr& test, bool holds, HelperFrame& frame, int depth) const;
  bool helper_static_if(const ast::If& branch, HelperFrame& frame, int depth, bool& ended) const;
  bool reads_parameters_only(const ast::expr& test, const HelperFrame& frame) const;
  bool reads_speculated_local(const ast::expr& e) const;
  std::string caller_text(const ast::expr& e, const HelperFrame* frame) const;
  std::string operand_text(const ast::expr& e, const HelperFrame* frame) const;

  const ast::Module& module_;
  const SourceText& source_;
  AnalysisOptions options_;
  std::vector<FunctionInfo> functions_;
  std::vector<Scope> scopes_;  // [0] module, [i+1] functions_[i]
  std::vector<ClassInfo> classes_;
  std::unordered_map<const ast::Node*, int> function_index_;
  std::unordered_map<const ast::Node*, ClassId> class_index_;
  std::vector<int> function_parent_;                      // enclosing function index or -1
  std::vector<ClassId> function_class_;                   // owner class or none
  std::vector<uint32_t> function_order_;                  // function indices sorted by begin
  std::vector<std::vector<CallSite>> calls_by_function_;  // [scope]
  std::vector<CallSite> all_calls_;
  std::string torch_name_;
  mutable std::vector<std::unique_ptr<Flow>> flows_;  // [scope], built on demand
  mutable bool pending_seen_ = false;           // join_defs met only not-yet-known definitions
  mutable Speculation* speculation_ = nullptr;  // see Speculation
  mutable const HelperFrame* frame_ = nullptr;  // the helper call being asked about, if any
  mutable int non_tensor_budget_ = 0;           // definitions known_non_tensor may still read
  mutable bool in_class_sets_setting_ = false;  // class_sets_setting is asking
  mutable int evidence_budget_ = 0;             // definitions class_evidence_kind may still read
};

// Walks the module once, filling the scope table, classes, functions and call sites
// (scopes.cpp).
void build_scopes(AnalysisImpl& analysis, const ast::Module& module);

// Builds the flow graph and dataflow facts of one scope (flow.cpp).
std::unique_ptr<Flow> build_flow(const AnalysisImpl& analysis, ScopeId scope);

// The source text of a node with line breaks folded, cut to `limit` bytes.
std::string quote_source(const SourceText& source, const ast::Node& node, size_t limit = 80);

}  // namespace graphmend::sema
