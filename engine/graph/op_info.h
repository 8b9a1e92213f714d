#pragma once
/// What the simulator needs to know about an op target to model memory: does it allocate a new
/// storage, alias one of its inputs (views), or write into its first argument (in-place)?
#include <string>
#include <vector>

namespace engine {

struct OpInfo {
    enum class Effect {
        Allocates, ///< ordinary op: each tensor result gets a new storage
        View, ///< results alias args[0]'s storage (view, reshape of contiguous, slice, t, expand, ...)
        InPlace, ///< writes args[0] and returns it (op name ends with `_`, or an `out=` variant)
        GetItem, ///< operator.getitem: picks one result of a multi-output producer
        NoTensor, ///< sym_size, scalar ops: nothing on the device
    };
    Effect effect = Effect::Allocates;
    std::string packet; ///< overload packet: "aten.copy_.default" -> "copy_"
    std::string ns; ///< "aten", "npu", "atb", "air", "" for operator/python builtins
    /// Overload name: "aten.add.Tensor" -> "Tensor"; empty when the target has none. An InPlace op
    /// whose overload is "out" or "*_out" writes its `out` kwarg rather than args[0].
    std::string overload;
};

/// Classifies a target string as written in FX ("aten.view.default", "torch.ops.aten.view.default",
/// "operator.getitem", "npu.npu_fused_infer_attention_score.default", a method name "view").
OpInfo classifyOp(const std::string& target);

/// The target without a leading "torch.ops." and with ".default" added to a two-part
/// aten/prims/npu/air name (FX prints the packet for its default overload): the one spelling the
/// passes' schema table and the graph diff compare by. "torch.ops.aten.mm" -> "aten.mm.default".
std::string canonicalTarget(const std::string& target);

/// Is `target` an OpOverload (`[torch.ops.]<ns>.<op>.<overload>`, a two-part aten/npu name counting
/// as its default overload), rather than operator.getitem, a Python builtin, a math or torch function
/// or a higher-order op?
bool isOpOverloadTarget(const std::string& target);

/// The dot-separated parts of a target ("aten.add.Tensor" -> {"aten", "add", "Tensor"}).
std::vector<std::string> splitDots(const std::string& target);

} // namespace engine
