#include "engine/graph/graph.h"

#include "engine/graph/op_info.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace engine {

uint64_t dtypeSize(DType t)
{
    switch (t) {
    case DType::F64:
    case DType::I64:
    case DType::C64:
        return 8;
    case DType::C128:
        return 16;
    case DType::F32:
    case DType::I32:
        return 4;
    case DType::F16:
    case DType::BF16:
    case DType::I16:
        return 2;
    case DType::I8:
    case DType::U8:
    case DType::Bool:
    case DType::F8E4M3:
    case DType::F8E5M2:
        return 1;
    case DType::Unknown:
        return 0;
    }
    return 0;
}

DType parseDType(const std::string& text)
{
    static const std::pair<const char*, DType> names[] = {
        { "float32", DType::F32 },
        { "float", DType::F32 },
        { "f32", DType::F32 },
        { "fp32", DType::F32 },
        { "float16", DType::F16 },
        { "half", DType::F16 },
        { "f16", DType::F16 },
        { "fp16", DType::F16 },
        { "bfloat16", DType::BF16 },
        { "bf16", DType::BF16 },
        { "float64", DType::F64 },
        { "double", DType::F64 },
        { "f64", DType::F64 },
        { "fp64", DType::F64 },
        { "int64", DType::I64 },
        { "long", DType::I64 },
        { "i64", DType::I64 },
        { "int32", DType::I32 },
        { "int", DType::I32 },
        { "i32", DType::I32 },
        { "int16", DType::I16 },
        { "short", DType::I16 },
        { "i16", DType::I16 },
        { "int8", DType::I8 },
        { "i8", DType::I8 },
        { "uint8", DType::U8 },
        { "u8", DType::U8 },
        { "bool", DType::Bool },
        { "b8", DType::Bool },
        { "complex64", DType::C64 },
        { "cfloat", DType::C64 },
        { "c64", DType::C64 },
        { "complex128", DType::C128 },
        { "cdouble", DType::C128 },
        { "c128", DType::C128 },
        { "float8_e4m3fn", DType::F8E4M3 },
        { "f8e4m3fn", DType::F8E4M3 },
        { "float8_e5m2", DType::F8E5M2 },
        { "f8e5m2", DType::F8E5M2 },
    };
    std::string s;
    for (char c : text) {
        if (!std::isspace(static_cast<unsigned char>(c)))
            s += char(std::tolower(static_cast<unsigned char>(c)));
    }
    if (s.rfind("torch.", 0) == 0)
        s = s.substr(6);
    for (const auto& [name, dtype] : names) {
        if (s == name)
            return dtype;
    }
    return DType::Unknown;
}

std::string dtypeShortName(DType t)
{
    switch (t) {
    case DType::F32:
        return "f32";
    case DType::F16:
        return "f16";
    case DType::BF16:
        return "bf16";
    case DType::F64:
        return "f64";
    case DType::I64:
        return "i64";
    case DType::I32:
        return "i32";
    case DType::I16:
        return "i16";
    case DType::I8:
        return "i8";
    case DType::U8:
        return "u8";
    case DType::Bool:
        return "b8";
    case DType::C64:
        return "c64";
    case DType::C128:
        return "c128";
    case DType::F8E4M3:
        return "f8e4m3fn";
    case DType::F8E5M2:
        return "f8e5m2";
    case DType::Unknown:
        return "unknown";
    }
    return "unknown";
}

const char* nodeOpName(NodeOp op)
{
    switch (op) {
    case NodeOp::Placeholder:
        return "placeholder";
    case NodeOp::CallFunction:
        return "call_function";
    case NodeOp::CallMethod:
        return "call_method";
    case NodeOp::GetAttr:
        return "get_attr";
    case NodeOp::Output:
        return "output";
    case NodeOp::CallModule:
        return "call_module";
    }
    return "call_module";
}

const char* inputKindName(InputKind k)
{
    switch (k) {
    case InputKind::Parameter:
        return "parameter";
    case InputKind::Buffer:
        return "buffer";
    case InputKind::StaticAddress:
        return "static_address";
    case InputKind::UserInput:
        return "user_input";
    case InputKind::SymInt:
        return "symint";
    }
    return "user_input";
}

bool TensorMeta::isSymbolic() const
{
    auto symbolic = [](const SymExpr& e) { return !e.constantValue().has_value(); };
    return std::any_of(shape.begin(), shape.end(), symbolic) || std::any_of(stride.begin(), stride.end(), symbolic);
}

Result<std::vector<int64_t>> TensorMeta::concreteShape(const SymbolValues& syms) const
{
    std::vector<int64_t> sizes;
    sizes.reserve(shape.size());
    for (const auto& e : shape) {
        auto v = e.eval(syms);
        if (!v)
            return v.error();
        if (v.value() < 0)
            return makeError(
                ErrorCode::InvalidArgument, "size '" + e.text() + "' is negative (" + std::to_string(v.value()) + ")");
        sizes.push_back(v.value());
    }
    return sizes;
}

Result<uint64_t> TensorMeta::storageBytes(const SymbolValues& syms) const
{
    auto sizes = concreteShape(syms);
    if (!sizes)
        return sizes.error();
    if (!stride.empty() && stride.size() != shape.size())
        return makeError(ErrorCode::InvalidArgument,
            "stride has " + std::to_string(stride.size()) + " entries but shape has " + std::to_string(shape.size()));
    if (std::find(sizes->begin(), sizes->end(), 0) != sizes->end())
        return uint64_t(0);
    uint64_t item = dtypeSize(dtype);
    if (item == 0)
        return makeError(ErrorCode::InvalidArgument, "unknown dtype: its element size is not known");
    if (storageOffset < 0)
        return makeError(ErrorCode::InvalidArgument, "storage offset is negative");

    // 128-bit arithmetic, saturated well above 2^64, so that absurd sizes fail instead of wrapping.
    using U128 = unsigned __int128;
    const U128 cap = U128(1) << 100;
    auto mul = [cap](U128 a, U128 b) { return a != 0 && b > cap / a ? cap : std::min(a * b, cap); };
    std::vector<U128> strides(sizes->size());
    if (stride.empty()) {
        U128 running = 1;
        for (size_t i = sizes->size(); i-- > 0;) {
            strides[i] = running;
            running = mul(running, uint64_t((*sizes)[i]));
        }
    } else {
        for (size_t i = 0; i < stride.size(); ++i) {
            auto v = stride[i].eval(syms);
            if (!v)
                return v.error();
            if (v.value() < 0)
                return makeError(ErrorCode::InvalidArgument,
                    "stride '" + stride[i].text() + "' is negative (" + std::to_string(v.value()) + ")");
            strides[i] = uint64_t(v.value());
        }
    }
    U128 elements = uint64_t(storageOffset) + 1;
    for (size_t i = 0; i < sizes->size(); ++i)
        elements = std::min(elements + mul(uint64_t((*sizes)[i] - 1), strides[i]), cap);
    U128 bytes = elements * item;
    if (elements > UINT64_MAX || bytes > UINT64_MAX)
        return makeError(ErrorCode::InvalidArgument, "tensor storage size does not fit in 64 bits");
    return uint64_t(bytes);
}

Arg Arg::ref(std::string name)
{
    Arg a;
    a.kind = Kind::NodeRef;
    a.s = std::move(name);
    return a;
}

Arg Arg::integer(int64_t v)
{
    Arg a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
}

Arg Arg::list(std::vector<Arg> v)
{
    Arg a;
    a.kind = Kind::List;
    a.items = std::move(v);
    return a;
}

namespace {

Error nodeError(const Graph& g, const std::string& message)
{
    return makeError(ErrorCode::InvalidArgument, message, g.id.empty() ? std::string() : "graph '" + g.id + "'");
}

size_t nameHash(const std::string& name)
{
    return std::hash<std::string_view>()(name);
}

} // namespace

int Graph::indexed(const std::string& name, size_t hash) const
{
    if (m_index.empty())
        return -1;
    const size_t mask = m_index.size() - 1;
    for (size_t pos = hash & mask;; pos = (pos + 1) & mask) {
        const IndexSlot& slot = m_index[pos];
        if (slot.node < 0)
            return -1;
        if (slot.hash == hash && size_t(slot.node) < nodes.size() && nodes[size_t(slot.node)].name == name)
            return slot.node;
    }
}

// Resolves the references of node `self` in `a`; `uses` collects referenced indices in order.
Result<void> Graph::resolve(int self, Arg& a, std::vector<int>& uses)
{
    if (a.kind == Arg::Kind::List) {
        for (auto& item : a.items) {
            auto r = resolve(self, item, uses);
            if (!r)
                return r;
        }
        return {};
    }
    if (a.kind != Arg::Kind::NodeRef)
        return {};
    const int target = indexed(a.s, nameHash(a.s));
    const std::string& user = nodes[size_t(self)].name;
    if (target < 0)
        return nodeError(*this, "node '" + user + "' uses '" + a.s + "', which is not a node of the graph");
    if (target >= self)
        return nodeError(*this,
            "node '" + user + "' uses '" + a.s + "', which is defined "
                + (target == self ? "by the node itself" : "after it") + "; nodes may only use earlier nodes");
    a.node = target;
    uses.push_back(target); // duplicates are removed once per node, in finalize()
    return {};
}

Result<void> Graph::finalize()
{
    size_t slots = 8;
    while (slots * 3 < nodes.size() * 4) // at most three quarters full
        slots *= 2;
    m_index.assign(slots, IndexSlot());
    m_indexed = 0;
    const size_t mask = slots - 1;
    bool seenOther = false;
    int output = -1;
    for (size_t i = 0; i < nodes.size(); ++i) {
        Node& n = nodes[i];
        n.users.clear();
        if (n.name.empty())
            return nodeError(*this, "node " + std::to_string(i) + " has no name");
        const size_t hash = nameHash(n.name);
        size_t pos = hash & mask;
        for (; m_index[pos].node >= 0; pos = (pos + 1) & mask) {
            const IndexSlot& slot = m_index[pos];
            if (slot.hash == hash && nodes[size_t(slot.node)].name == n.name)
                return nodeError(*this,
                    "node name '" + n.name + "' is used twice (nodes " + std::to_string(slot.node) + " and "
                        + std::to_string(i) + ")");
        }
        m_index[pos] = { hash, int(i) };
        ++m_indexed;
        if (n.op == NodeOp::Placeholder) {
            if (seenOther)
                return nodeError(*this, "placeholder '" + n.name + "' comes after non-placeholder nodes");
        } else {
            seenOther = true;
        }
        if (n.op == NodeOp::Output) {
            if (output >= 0)
                return nodeError(
                    *this, "graph has two output nodes ('" + nodes[size_t(output)].name + "' and '" + n.name + "')");
            output = int(i);
        }
    }
    if (output < 0)
        return nodeError(*this, "graph has no output node");
    if (output != int(nodes.size()) - 1)
        return nodeError(*this, "output node '" + nodes[size_t(output)].name + "' is not the last node");

    std::vector<int> uses;
    for (size_t i = 0; i < nodes.size(); ++i) {
        uses.clear();
        for (auto& a : nodes[i].args) {
            auto r = resolve(int(i), a, uses);
            if (!r)
                return r;
        }
        for (auto& kw : nodes[i].kwargs) {
            auto r = resolve(int(i), kw.second, uses);
            if (!r)
                return r;
        }
        // Sorting rather than searching on every reference keeps a node with many arguments linear-ish.
        // `i` grows, so each users list stays in node order and a node is added at most once.
        std::sort(uses.begin(), uses.end());
        uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
        for (int u : uses)
            nodes[size_t(u)].users.push_back(int(i));
    }
    return {};
}

int Graph::find(const std::string& name) const
{
    // The index is only trusted while it still matches the node list (nodes may be edited after finalize).
    if (m_indexed == nodes.size()) {
        const int i = indexed(name, nameHash(name));
        if (i >= 0)
            return i;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].name == name)
            return int(i);
    }
    return -1;
}

std::vector<int> Graph::placeholders() const
{
    std::vector<int> out;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].op == NodeOp::Placeholder)
            out.push_back(int(i));
    }
    return out;
}

int Graph::outputNode() const
{
    for (size_t i = nodes.size(); i-- > 0;) {
        if (nodes[i].op == NodeOp::Output)
            return int(i);
    }
    return -1;
}

std::vector<std::string> Graph::mutatedInputs() const
{
    // TorchAir's _find_mutated_user_inputs looks at args[0] itself, not through views: a copy_ into
    // a view of an input does not make the input "mutated" (§2.1 step 3).
    if (recordedMutatedInputs)
        return *recordedMutatedInputs;
    std::set<int> mutated;
    for (const Node& n : nodes) {
        if ((n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod) || n.args.empty())
            continue;
        if (n.args[0].kind != Arg::Kind::NodeRef)
            continue;
        std::string packet = classifyOp(n.target).packet;
        if (packet.empty() || packet.back() != '_')
            continue;
        int idx = n.args[0].node >= 0 && size_t(n.args[0].node) < nodes.size()
                && nodes[size_t(n.args[0].node)].name == n.args[0].s
            ? n.args[0].node
            : find(n.args[0].s);
        if (idx >= 0 && nodes[size_t(idx)].op == NodeOp::Placeholder)
            mutated.insert(idx);
    }
    std::vector<std::string> out;
    for (int idx : mutated)
        out.push_back(nodes[size_t(idx)].name);
    return out;
}

} // namespace engine

namespace engine {

std::vector<std::string> Graph::inputsWithoutMetadata() const
{
    std::vector<std::string> out;
    for (const Node& n : nodes)
        if (n.op == NodeOp::Placeholder && n.inputKind != InputKind::SymInt && n.outputs.empty())
            out.push_back(n.name);
    return out;
}

std::vector<std::string> Graph::inputKindsUnknown() const
{
    std::vector<std::string> out;
    for (const Node& n : nodes)
        if (n.op == NodeOp::Placeholder && n.inputKind == InputKind::UserInput && n.inputKindFrom.empty())
            out.push_back(n.name);
    return out;
}

std::string torchDTypeName(DType d)
{
    switch (d) {
    case DType::F32:
        return "torch.float32";
    case DType::F16:
        return "torch.float16";
    case DType::BF16:
        return "torch.bfloat16";
    case DType::F64:
        return "torch.float64";
    case DType::I64:
        return "torch.int64";
    case DType::I32:
        return "torch.int32";
    case DType::I16:
        return "torch.int16";
    case DType::I8:
        return "torch.int8";
    case DType::U8:
        return "torch.uint8";
    case DType::Bool:
        return "torch.bool";
    case DType::C64:
        return "torch.complex64";
    case DType::C128:
        return "torch.complex128";
    case DType::F8E4M3:
        return "torch.float8_e4m3fn";
    case DType::F8E5M2:
        return "torch.float8_e5m2";
    case DType::Unknown:
        break;
    }
    return "None";
}

} // namespace engine
