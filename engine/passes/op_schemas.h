#pragma once
/// What the passes ask PyTorch's operator registry, answered from the operator table
/// (engine/graph/op_table.h: every schema PyTorch 2.11 registers, and the torch_npu / TorchAir ones):
/// which functional op has an in-place twin (`torch.fx.passes.reinplace._maybe_get_inplace_op`),
/// which has an `.out` overload with the same arguments (remove_cat_ops' `_get_out_variant`),
/// argument names and defaults (to read `slice(x, 0, 0, 2)` or `cat(xs, dim=1)`), which ops are
/// views, and which ops have side effects (FX's `is_impure`).
///
/// An op the table does not hold (a custom op, an NPU op not listed) is treated conservatively by
/// every pass: never rewritten, never removed, and the report says so.
#include "engine/graph/op_info.h"
#include "engine/graph/op_table.h"

#include <optional>
#include <string>
#include <vector>

namespace engine::passes {

using engine::OpSchema;
using engine::SchemaArg;

/// The table is keyed by engine::canonicalTarget (graph/op_info.h).
using engine::canonicalTarget;
/// The schema of a canonical target, or nullptr when the table does not know it.
const OpSchema* findSchema(const std::string& target);

/// `_maybe_get_inplace_op`: the in-place overload (`<packet>_` in the same namespace) whose argument
/// types match the functional one's; none for views and for ops without one.
struct InplaceLookup {
    bool known = false; ///< the op is in the table (else nothing can be said)
    std::string inplace; ///< empty when there is none
};
InplaceLookup inplaceVariant(const std::string& target);

/// cat_optimization `_get_out_variant`: an overload of the same packet with an `out` argument whose
/// other arguments match the op's own by name and type ("aten.sum.dim_IntList" -> "aten.sum.IntList_out").
struct OutLookup {
    bool known = false;
    std::string out;
};
OutLookup outVariant(const std::string& target);

/// The multi-output NPU ops TorchAir registers as in-placeable (`inplaceable_npu_ops`, §4.1):
/// functional target, in-place target, mutated argument indices.
using MultiInplaceOp = engine::UserOps::Inplaceable;
/// TorchAir's own registrations (graph_pass.py register_inplaceable_npu_op calls).
const std::vector<MultiInplaceOp>& multiInplaceOps();
/// Matches either spelling of the functional target; nullptr when it is not one of them. The active
/// UserOps' registrations (a scenario's `register_inplaceable_npu_op`) come first: TorchAir keeps
/// them in a dict, so a later registration of the same op replaces TorchAir's.
const MultiInplaceOp* findMultiInplace(const std::string& target);

/// `_VIEW_INVERSE_MAP`: "aten.slice_scatter.default" -> "aten.slice.Tensor", etc.; empty otherwise.
std::string viewInverseOf(const std::string& target);

/// FX `is_impure` for a call: it writes an argument (mutable schema, or a name ending in `_`), draws
/// random numbers, asserts, or is a TorchAir air.* scope/event op. `reason` says which.
/// Unknown ops outside aten/prims/python builtins are impure here (their schema may mark them mutable).
bool isImpure(const std::string& target, std::string* reason);

} // namespace engine::passes
