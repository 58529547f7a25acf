// Aliasing: whether a value may be a tensor some other name holds too, and whether a
// function changes such a tensor in place. The reverse question of Analysis::why_not_fresh
// (freshness.cpp), asked by rewrites that replace a value by a new tensor (torch.where,
// torch.cond): a change through one name would no longer reach the other.
#pragma once

#include <set>
#include <string_view>

#include "sema/sema.h"

namespace graphmend::sema {

// Whether `value` may be an existing tensor itself or a view of one, which the original
// shares with other names: a name, attribute or subscript, a method's result (`.to`,
// `.float()`, `.contiguous()` return the tensor itself when nothing changes; `.view`,
// `.transpose` views), a view function's (torch_facts' ViewFunction). Arithmetic and other
// torch functions make new ones.
bool may_alias(const Analysis& analysis, const ast::expr& value);

// Whether the function holding `statement` (the module when none does) changes in place a
// tensor one of `names` may hold: a subscript store or augmented assignment rooted at one
// (`y[..., -1] += 1e-6`; `y += 1` is in place on a tensor), an in-place method on one
// (`y.add_(1)`) or an `out=` argument.
bool changes_tensors_in_place(const Analysis& analysis, const ast::Module& module,
                              const ast::stmt& statement, std::set<std::string_view> names);

// Whether `name`, which `statement` (an if) stores in an attribute (`self.mean =
// batch_mean`), is the only holder of a tensor the function allocated, so that storing a
// copy instead is unseen: the function binds it once, by `name = <value>`, to arithmetic or
// a new tensor (torch_facts' FreshResult, not a view), reads it elsewhere only as an operand
// of such a value, no nested scope reads it, and nothing reads it after the if.
bool is_sole_holder(const Analysis& analysis, const ast::Module& module, const ast::stmt& statement,
                    const ast::Name& name);

}  // namespace graphmend::sema
