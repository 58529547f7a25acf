// [Cond] emission: see cond.h.
#include "rewrite/cond/cond.h"

namespace graphmend::rewrite {

using where_detail::Plan;
using where_detail::Tree;

void emit_cond(const Plan& plan, const Context& context, const std::string& true_name,
               const std::string& false_name, Emitter& out, const std::string& condition) {
  std::string params;
  for (size_t i = 0; i < plan.operands.size(); ++i) {
    if (i > 0) params += ", ";
    params += plan.operands[i];
  }
  auto emit_def = [&](const std::string& name, const Tree& leaf) {
    out.line(0, "def " + name + "(" + params + "):");
    for (const auto& statement : leaf.cond_body) out.line(1, statement);
    if (plan.returns) {
      out.line(1, "return " + leaf.cond_returns[0]);
    } else if (leaf.cond_returns.size() == 1) {
      out.line(1, "return " + leaf.cond_returns[0]);
    } else {
      std::string tuple;
      for (size_t i = 0; i < leaf.cond_returns.size(); ++i) {
        if (i > 0) tuple += ", ";
        tuple += leaf.cond_returns[i];
      }
      out.line(1, "return (" + tuple + ")");
    }
  };
  emit_def(true_name, *plan.root->on_true);
  emit_def(false_name, *plan.root->on_false);
  std::string cond = condition.empty() ? plan.root->cond_tensor : condition;
  if (cond.find('\n') != std::string::npos) cond = "(" + cond + ")";
  std::string operands = "(" + params + (plan.operands.size() == 1 ? ",)" : ")");
  std::string call = context.runtime + ".cond(" + cond + ", " + true_name + ", " + false_name +
                     ", " + operands + ")";
  if (plan.returns) {
    out.line(0, "return " + call);
    return;
  }
  std::string targets;
  for (size_t i = 0; i < plan.merge.size(); ++i) {
    if (i > 0) targets += ", ";
    targets += plan.merge[i];
  }
  if (plan.merge.size() > 1) targets = "(" + targets + ")";
  out.line(0, targets + " = " + call);
}

}  // namespace graphmend::rewrite
