// [MaskedReduce]'s "masked_assign" form: a store through a boolean mask of a value computed
// element by element from selections by the same mask,
//
//   T[M] = -Y[M] * 2     ->  if rt.masked_assign_ok(M, T, Y):
//                                rt.masked_assign_(T, M, -Y * 2)
//                            else:
//                                T[M] = -Y[M] * 2
//
// `Y[M]` has a data-dependent size, which breaks the graph. Computed densely (`-Y * 2` on
// every element) and stored with torch.where, only the elements under the mask change, to
// the values the selection gives them: each element of an element-wise value depends on
// the same element of its operands only. The run-time check (runtime/masked.py) asks, while
// compiling, for a bool mask fitting T's leading dimensions, a floating T, and every Y of
// T's shape, dtype and device (so the dense value has T's shape and dtype, as index_put_
// demands); eagerly, and where it fails, the original statement runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// A value computed element by element from selections `Y[M]` by one mask, written densely.
struct DenseValue {
  std::string text;                          // the value with each `Y[M]` written `Y`
  std::vector<std::string> sources;          // the text of each Y, once each
  std::vector<std::string> numbers;          // names read as Python numbers, once each
  std::vector<const ast::Subscript*> reads;  // each `Y[M]`
};

// The arguments of runtime.masked_assign_ok after the mask and target:
// `, Y1, Y2, numbers=(n, )`.
std::string check_arguments(const DenseValue& dense);

// `value` written densely over the mask named `mask`: number literals, names and attribute
// chains holding Python numbers (checked at run time), `+`/`-`, arithmetic operators, element-wise
// tensor methods and torch functions (torch_facts' Elementwise) with number arguments, and at least
// one selection `Y[mask]` of a name or attribute chain. Otherwise std::nullopt, with the part that
// is none of these in `why`.
std::optional<DenseValue> dense_value(const Context& context, const ast::expr& value,
                                      std::string_view mask, std::string& why);

// The fix of a `T[M] = <value>` statement holding the tag's selection (see above), or a
// decline saying which part of the value is not element-wise; std::nullopt when the site is
// not in the value of such a statement.
std::optional<Outcome> rewrite_masked_assign(const sema::BreakTag& tag, Context& context);

}  // namespace graphmend::rewrite
