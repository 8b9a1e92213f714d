// apply_pattern_passes: bmm + transpose -> npu_transpose_batchmatmul (TA/patterns/batch_matmul_transpose.py,
// registered only when mode != max-autotune on the torchair backend). Four explicit search patterns,
// registered pattern2, pattern3, pattern, pattern1 (lines 367-386):
//   pattern:  bmm(x1, x2) -> transpose                                       perm_x1=[0, 1, 2]
//   pattern1: bmm(x1, x2) -> view -> transpose                               perm_x1=[0, 1, 2]
//   pattern2: transpose(x1) -> expand -> view -> bmm -> view -> transpose    perm_x1=[1, 0, 2]
//   pattern3: transpose(x1) -> expand -> bmm -> transpose                    perm_x1=[1, 0, 2]
// with `_pattern_extra_check` (lines 14-173): the K*B (or K) range, bmm input dtypes and K/N
// alignment to 128, view/expand nodes that are no-ops (same_meta), transpose dims 0 or 1.
#include "engine/passes/pattern_common.h"

namespace engine::passes::pattern {

namespace {

using detail::refOf;

const char* const kTranspose = "aten.transpose.int";
const char* const kBmm = "aten.bmm.default";
const char* const kView = "aten.view.default";
const char* const kExpand = "aten.expand.default";
const char* const kFused = "npu.npu_transpose_batchmatmul.default";
constexpr int64_t kAlignment = 128;
constexpr int64_t kMaxKB = 65536;

int source(const Graph& g, int node)
{
    if (node < 0 || g.nodes[size_t(node)].args.empty())
        return -1;
    return refOf(g, g.nodes[size_t(node)].args[0]);
}

bool is(const Graph& g, int node, const char* target)
{
    return node >= 0 && detail::isCallFunction(g.nodes[size_t(node)])
        && detail::targetOf(g.nodes[size_t(node)]) == target;
}

struct BmmForm {
    bool inputTranspose; ///< pattern2/3: transpose(x1) -> expand [-> view] -> bmm
    bool view; ///< pattern1/2: a view between bmm and the last transpose (and, for pattern2, before bmm)
    const char* name;
};

std::string typeName(const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::Int:
        return "<class 'int'>";
    case Arg::Kind::Float:
        return "<class 'float'>";
    case Arg::Kind::Bool:
        return "<class 'bool'>";
    case Arg::Kind::Str:
        return "<class 'str'>";
    case Arg::Kind::NodeRef:
        return "<class 'torch.fx.node.Node'>";
    case Arg::Kind::List:
        return "<class 'list'>";
    case Arg::Kind::None:
        break;
    }
    return "<class 'NoneType'>";
}

/// `_pattern_extra_check`, in its order: `_check_kb_constraint`, then every node of the match.
bool bmmExtraCheck(const Graph& g, const Match& m, std::vector<std::string>& log, std::string& why)
{
    auto refuse = [&](const std::string& line) {
        log.push_back(line);
        why = line;
        return false;
    };
    auto unknown = [&](const std::string& what) {
        const std::string line = "aclgraph-inspector: " + what
            + " is symbolic; TorchAir decides on the symbols' hint values, which the graph does not give: the fusion "
              "is taken as refused";
        return refuse(line);
    };
    int transposes = 0, bmm = -1;
    for (int n : m.nodes) {
        transposes += is(g, n, kTranspose) ? 1 : 0;
        if (bmm < 0 && is(g, n, kBmm))
            bmm = n;
    }
    if (bmm < 0)
        return refuse("BMM node not found in pattern match for npu_transpose_batchmatmul. Fusion is not supported.");
    const TensorMeta* x1 = metaOf(g, g.nodes[size_t(bmm)].args[0]);
    if (!x1)
        return refuse("Invalid x1 input for BMM node in pattern match for npu_transpose_batchmatmul. x1_arg type: "
                      "<class 'NoneType'>. Fusion is not supported.");
    if (x1->shape.size() < 3)
        return refuse("aclgraph-inspector: x1 of " + g.nodes[size_t(bmm)].name
            + " has fewer than 3 dimensions: x1_arg.shape[2] raises IndexError in TorchAir");
    const auto b = x1->shape[0].constantValue();
    const auto k = x1->shape[2].constantValue();
    if (transposes >= 2) {
        if (!b || !k)
            return unknown("K*B (" + x1->shape[2].text() + "*" + x1->shape[0].text() + ")");
        const int64_t kb = *k * *b;
        if (kb < 1 || kb >= kMaxKB)
            return refuse("K*B constraint check failed for npu_transpose_batchmatmul. K=" + std::to_string(*k)
                + ", B=" + std::to_string(*b) + ", K*B=" + std::to_string(kb)
                + ". Fusion is not supported because K*B must be in range [1, 65536) when perm_x1=[1, 0, 2].");
    } else {
        if (!k)
            return unknown("K (" + x1->shape[2].text() + ")");
        if (*k >= kMaxKB)
            return refuse("K constraint check failed for npu_transpose_batchmatmul. K=" + std::to_string(*k)
                + ". Fusion is not supported because K must be less than 65536 when perm_x1=[0, 1, 2].");
    }
    for (int n : m.nodes) {
        const Node& node = g.nodes[size_t(n)];
        if (is(g, n, kBmm)) {
            for (size_t i = 0; i < node.args.size(); ++i) {
                const TensorMeta* t = metaOf(g, node.args[i]);
                if (!t) {
                    why = "aclgraph-inspector: input" + std::to_string(i) + " of " + node.name
                        + " has no tensor metadata (_check_input_tensor returns False without a log)";
                    return false;
                }
                if (t->dtype != DType::BF16 && t->dtype != DType::F16 && t->dtype != DType::F32)
                    return refuse("Input type check failed for npu_transpose_batchmatmul. input" + std::to_string(i)
                        + " dtype: " + torchDType(t->dtype)
                        + ". Fusion is not supported because data types not in [torch.bfloat16, torch.float16, "
                          "torch.float32].");
                if (t->shape.size() < 3)
                    return refuse("aclgraph-inspector: input" + std::to_string(i) + " of " + node.name
                        + " has fewer than 3 dimensions: shape[2] raises IndexError in TorchAir");
                const auto kn = t->shape[2].constantValue();
                if (!kn)
                    return unknown("the last dimension of input" + std::to_string(i) + " (" + t->shape[2].text() + ")");
                if (*kn % kAlignment != 0)
                    return refuse("K or N alignment check failed for npu_transpose_batchmatmul. input"
                        + std::to_string(i) + " size: " + torchSize(*t)
                        + ". Fusion is not supported because K or N must be divisible by 128.");
            }
        }
        if (is(g, n, kView) || is(g, n, kExpand)) {
            const TensorMeta* in = metaOf(g, node.args[0]);
            const TensorMeta* out = metaOf(g, n);
            if (!in || !out || !detail::sameMeta(*in, *out))
                return refuse(detail::targetOf(node)
                    + " node input/output meta mismatch for npu_transpose_batchmatmul. Fusion is not supported because "
                      "it must be a no-op.");
        }
        if (is(g, n, kTranspose)) {
            const Arg& d1 = node.args[1];
            const Arg& d2 = node.args[2];
            // isinstance(x, int) holds for a Python bool too.
            auto isInt = [](const Arg& a) { return a.kind == Arg::Kind::Int || a.kind == Arg::Kind::Bool; };
            auto value = [](const Arg& a) { return a.kind == Arg::Kind::Bool ? int64_t(a.b) : a.i; };
            if (!isInt(d1) || !isInt(d2))
                return refuse("Transpose args must be int for npu_transpose_batchmatmul. Got dim1=" + pyValue(d1)
                    + " (type=" + typeName(d1) + "), dim2=" + pyValue(d2) + " (type=" + typeName(d2) + ").");
            if (value(d1) > 1 || value(d2) > 1)
                return refuse("Transpose args only support 0 or 1 for npu_transpose_batchmatmul. Got dim1="
                    + pyValue(d1) + ", dim2=" + pyValue(d2) + ".");
        }
    }
    return true;
}

Entry bmmEntry(const BmmForm f)
{
    Entry e;
    e.name = std::string("batchmatmultranspose ") + f.name;
    e.rootTarget = kTranspose;
    e.fusedTarget = kFused;
    e.candidate = [](const Graph& g, int root) {
        const int in = source(g, root);
        return is(g, root, kTranspose) && (is(g, in, kBmm) || (is(g, in, kView) && is(g, source(g, in), kBmm)));
    };
    e.match = [f](const Graph& g, int root, Attempt& fail) -> std::optional<Match> {
        Matcher M(g);
        Match m;
        // transpose(<...>, Ignored(), Ignored()): any dims here, the extra check reads them.
        if (M.call(root, kTranspose, 3, -1, "the last transpose"))
            M.matched();
        int outView = -1, bmm = M.input(root, 0, "bmm");
        if (f.view && M.call(bmm, kView, 2, 1, "view(bmm, ...)")) {
            M.matched();
            outView = bmm;
            bmm = M.input(outView, 0, "bmm");
        }
        if (M.call(bmm, kBmm, 2, 1, "bmm"))
            M.matched();
        int inView = -1, expand = -1, transpose = -1;
        if (f.inputTranspose && M.ok()) {
            expand = M.input(bmm, 0, "the input of bmm");
            if (f.view && M.call(expand, kView, 2, 1, "view(expand, ...)")) {
                M.matched();
                inView = expand;
                expand = M.input(inView, 0, "expand");
            }
            if (M.call(expand, kExpand, 2, 1, "expand(transpose(x1), ...)"))
                M.matched();
            transpose = M.input(expand, 0, "transpose(x1)");
            if (M.call(transpose, kTranspose, 3, 1, "transpose(x1)"))
                M.matched();
        }
        if (!M.ok()) {
            fail = M.attempt();
            return std::nullopt;
        }
        m.kwargs["x1"] = f.inputTranspose ? g.nodes[size_t(transpose)].args[0] : g.nodes[size_t(bmm)].args[0];
        m.kwargs["x2"] = g.nodes[size_t(bmm)].args[1];
        for (int n : { transpose, expand, inView, bmm, outView, root })
            if (n >= 0)
                m.nodes.push_back(n);
        m.outputs = { root };
        return m;
    };
    e.extra = bmmExtraCheck;
    e.replacement = [f](const Graph& g, const Match& m, std::vector<std::string>&,
                        std::string&) -> std::optional<std::pair<std::vector<NewNode>, std::vector<int>>> {
        const Arg perm = f.inputTranspose ? Arg::list({ Arg::integer(1), Arg::integer(0), Arg::integer(2) })
                                          : Arg::list({ Arg::integer(0), Arg::integer(1), Arg::integer(2) });
        // npu_transpose_batchmatmul_meta with perm_y=[1, 0, 2]: a new (M, B, N) tensor, the shape the
        // last transpose had, contiguous.
        std::vector<TensorMeta> outputs = g.nodes[size_t(m.outputs[0])].outputs;
        for (TensorMeta& t : outputs) {
            t.stride.clear();
            t.storageOffset = 0;
        }
        std::vector<NewNode> nodes { { kFused, { m.kwargs.at("x1"), m.kwargs.at("x2") }, { { "perm_x1", perm } },
            outputs } };
        return std::make_pair(nodes, std::vector<int> { 0 });
    };
    return e;
}

} // namespace

std::vector<Entry> bmmTransposeEntries()
{
    return {
        bmmEntry({ true, true, "pattern2" }),
        bmmEntry({ true, false, "pattern3" }),
        bmmEntry({ false, false, "pattern" }),
        bmmEntry({ false, true, "pattern1" }),
    };
}

} // namespace engine::passes::pattern
