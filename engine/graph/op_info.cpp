#include "engine/graph/op_info.h"

#include <set>
#include <vector>

namespace engine {

namespace {

bool startsWith(const std::string& s, const char* prefix)
{
    return s.rfind(prefix, 0) == 0;
}

bool endsWith(const std::string& s, char c)
{
    return !s.empty() && s.back() == c;
}

// Ops whose results share args[0]'s storage. reshape may copy in eager mode, but on the
// contiguous tensors an FX graph feeds it the result is a view, which is what TorchAir sees.
const std::set<std::string>& viewOps()
{
    static const std::set<std::string> ops = {
        "view",
        "_unsafe_view",
        "reshape",
        "_reshape_alias",
        "alias",
        "as_strided",
        "slice",
        "select",
        "narrow",
        "expand",
        "expand_as",
        "t",
        "transpose",
        "swapaxes",
        "swapdims",
        "permute",
        "movedim",
        "moveaxis",
        "unsqueeze",
        "squeeze",
        "flatten",
        "unflatten",
        "split",
        "split_with_sizes",
        "tensor_split",
        "chunk",
        "unbind",
        "unsafe_split",
        "unsafe_split_with_sizes",
        "unsafe_chunk",
        "diagonal",
        "unfold",
        "view_as",
        "reshape_as",
        "detach",
        "lift_fresh",
        "view_as_real",
        "view_as_complex",
        "real",
        "imag",
        "_neg_view",
        "_conj",
        "numpy_T",
        "mT",
        "mH",
        "adjoint",
    };
    return ops;
}

// Python-level helpers that only compute host values (sizes, asserts, shape arithmetic).
const std::set<std::string>& noTensorOps()
{
    static const std::set<std::string> ops = {
        "sym_size",
        "sym_stride",
        "sym_numel",
        "sym_storage_offset",
        "sym_max",
        "sym_min",
        "sym_int",
        "sym_float",
        "sym_sum",
        "sym_not",
        "sym_ite",
        "sym_constrain_range",
        "sym_constrain_range_for_size",
        "_local_scalar_dense",
        "size",
        "stride",
        "dim",
        "numel",
        "item",
        "storage_offset",
        "is_contiguous",
        "element_size",
        "getattr",
    };
    return ops;
}

// Modules whose functions FX records with their Python module path: none of them touches a
// device tensor except operator.getitem (tuple element) and operator.setitem (x[i] = y).
bool isPythonModule(const std::string& ns)
{
    return ns == "operator" || ns == "_operator" || ns == "builtins" || ns == "math";
}

OpInfo::Effect classifyPacket(const std::string& packet)
{
    using Effect = OpInfo::Effect;
    if (packet == "getitem" || packet == "__getitem__")
        return Effect::GetItem;
    if (noTensorOps().count(packet) || startsWith(packet, "_assert") || startsWith(packet, "sym_"))
        return Effect::NoTensor;
    if (viewOps().count(packet))
        return Effect::View;
    if (startsWith(packet, "__") && endsWith(packet, '_')) {
        // Dunder methods: __iadd__ and friends write self, __add__ allocates.
        if (packet == "__setitem__" || (packet.size() > 3 && packet[2] == 'i' && packet != "__invert__"))
            return Effect::InPlace;
        return Effect::Allocates;
    }
    // "copy_", "index_put_", "_foreach_add_"; a lone "_" is not an op name.
    if (packet.size() > 1 && endsWith(packet, '_'))
        return Effect::InPlace;
    return Effect::Allocates;
}

} // namespace

OpInfo classifyOp(const std::string& target)
{
    OpInfo info;
    std::string name = target;
    if (startsWith(name, "torch.ops."))
        name = name.substr(10);
    std::vector<std::string> parts = splitDots(name);

    if (parts.size() == 1) {
        // A method call ("view", "add_") or a bare builtin ("getitem").
        info.packet = parts[0];
        info.effect = classifyPacket(info.packet);
        return info;
    }
    if (isPythonModule(parts[0])) {
        info.packet = parts.back();
        if (info.packet == "getitem")
            info.effect = OpInfo::Effect::GetItem;
        else if (info.packet == "setitem")
            info.effect = OpInfo::Effect::InPlace;
        else
            info.effect = OpInfo::Effect::NoTensor; // operator.add/mul/floordiv on SymInts
        return info;
    }
    if (parts[0] == "torch") {
        // A Python-level torch function or method ("torch.nn.functional.gelu", "torch.Tensor.add_",
        // "torch._check"): its name is the last component.
        info.ns = "torch";
        info.packet = parts.back();
        info.effect = startsWith(info.packet, "_check") ? OpInfo::Effect::NoTensor : classifyPacket(info.packet);
        return info;
    }
    // "ns.op.overload" or "ns.op".
    info.ns = parts[0];
    info.packet = parts[1];
    if (parts.size() >= 3)
        info.overload = parts[2];
    info.effect = classifyPacket(info.packet);
    // An out= overload writes its `out` argument instead of allocating (remove_cat_ops emits cat.out).
    bool outVariant = info.overload == "out"
        || (info.overload.size() > 4 && info.overload.rfind("_out") == info.overload.size() - 4);
    if (info.effect == OpInfo::Effect::Allocates && outVariant)
        info.effect = OpInfo::Effect::InPlace;
    return info;
}

std::string canonicalTarget(const std::string& target)
{
    std::string t = target.rfind("torch.ops.", 0) == 0 ? target.substr(10) : target;
    const size_t first = t.find('.');
    if (first != std::string::npos && t.find('.', first + 1) == std::string::npos) {
        const std::string ns = t.substr(0, first);
        if (ns == "aten" || ns == "prims" || ns == "npu" || ns == "air")
            t += ".default";
    }
    return t;
}

std::vector<std::string> splitDots(const std::string& s)
{
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        size_t dot = s.find('.', start);
        parts.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos)
            return parts;
        start = dot + 1;
    }
}

bool isOpOverloadTarget(const std::string& target)
{
    const std::vector<std::string> parts = splitDots(canonicalTarget(target));
    if (parts.size() < 3)
        return false;
    const std::string& ns = parts[0];
    return !(ns == "operator" || ns == "_operator" || ns == "builtins" || ns == "math" || ns == "torch"
        || ns == "higher_order");
}

} // namespace engine
