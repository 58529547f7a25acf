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

// The name `s` changes in place when it is `name.method_(...)` (an in-place tensor method
// called as a statement); null otherwise.
const ast::Name* in_place_receiver(const ast::stmt& s);

// Whether `name`, which `statement` (an if) changes in place in its branches
// (`out.index_add_(0, idx, x)`), holds there a tensor no other name or object holds, so
// that changing a copy instead, bound to the name, is unseen: the function binds it before
// the if's end only by `name = <value>` to arithmetic or a new tensor (sole_holder's
// values), reads it there only as an operand of such a value or as the receiver of an
// in-place call in the if, and no nested scope reads it. In a loop, "before the if's end"
// runs to the end of the loop: a view taken after the if would see the next run's change.
bool is_fresh_in_place_target(const Analysis& analysis, const ast::Module& module,
                              const ast::stmt& statement, std::string_view name);

}  // namespace graphmend::sema
