// Two late passes of TorchAir's reduce-overhead pipeline (torchair-behavior.md §4.6):
//  * replace_dynamic_workspace_ops (TA/acl_graph.py:98-119, 580-728): the fused-infer-attention ops,
//    whose parameter lists TorchAir patches at replay, are re-issued as their `.out` overloads with a
//    workspace sized once for the largest parameters and outputs allocated by torch.empty, so that a
//    replay with other sequence lengths finds every buffer where the capture put it.
//  * replace_core_limit_nodes (TA/graph_pass.py:709-787): limit_core_num scopes become
//    torch.npu stream-limit calls; with the static kernel on and CANN < 9.0.0 the static kernel is
//    switched off, with TorchAir's UserWarning.
#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace engine::passes {

namespace {

// ---- replace_dynamic_workspace_ops ----

/// One entry of _REPLACE_FUNC_MAP with output keys (the only ones the pass replaces).
struct StaticWorkspaceOp {
    const char* target;
    const char* getWorkspace;
    const char* outOperator;
};

const std::vector<StaticWorkspaceOp>& replaceFuncMap()
{
    static const std::vector<StaticWorkspaceOp> ops = {
        { "npu.npu_fused_infer_attention_score.default",
            "npu._npu_fused_infer_attention_score_get_max_workspace.default",
            "npu.npu_fused_infer_attention_score.out" },
        { "npu.npu_fused_infer_attention_score_v2.default",
            "npu._npu_fused_infer_attention_score_v2_get_max_workspace.default",
            "npu.npu_fused_infer_attention_score_v2.out" },
    };
    return ops;
}

// repr(OpOverload): "<OpOverload(op='npu.npu_fused_infer_attention_score', overload='default')>".
std::string opOverloadRepr(const std::string& target)
{
    const std::vector<std::string> parts = splitDots(target);
    return "<OpOverload(op='" + parts[0] + "." + parts[1] + "', overload='" + parts[2] + "')>";
}

std::string sizeText(const std::vector<SymExpr>& shape)
{
    std::string s = "torch.Size([";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + shape[i].text();
    return s + "])";
}

/// construct_fx_node_shape for one output: the empty's size list, or why it cannot be built here.
struct ShapeArgs {
    std::vector<Arg> dims;
    std::string text; ///< Python's repr of the list: "[arg2_1, 8, 128]"
    std::string problem; ///< set when TorchAir raises or when the rule is not modelled
};

ShapeArgs shapeArgs(const Graph& g, const TensorMeta& t, const std::map<std::string, std::string>& symInputs)
{
    ShapeArgs out;
    for (const SymExpr& dim : t.shape) {
        if (auto v = dim.constantValue()) {
            out.dims.push_back(Arg::integer(*v));
        } else if (auto sym = dim.singleSymbol()) {
            auto it = symInputs.find(*sym);
            if (it == symInputs.end()) {
                std::string dict = "{";
                for (const auto& [s, node] : symInputs)
                    dict += (dict.size() > 1 ? ", " : "") + s + ": " + node;
                out.problem = "RuntimeError: Unexpected sym output shape " + dim.text() + " which is not in all sym "
                    + "inputs dict " + dict + "} of graph[" + g.id + "].";
                return out;
            }
            out.dims.push_back(Arg::ref(it->second));
        } else {
            out.problem = "aclgraph-inspector: the output size " + dim.text()
                + " is an expression; TorchAir builds operator nodes for it from SymInt placeholders (Proxy "
                  "arithmetic in construct_fx_node_shape), which is not modelled, so the node is left as it was";
            return out;
        }
    }
    out.text = "[";
    for (size_t i = 0; i < out.dims.size(); ++i)
        out.text += (i ? ", " : "") + argText(out.dims[i]);
    out.text += "]";
    return out;
}

Result<std::string> insertBefore(Graph& g, const std::string& anchor, Node n)
{
    std::string name = n.name;
    if (auto r = detail::insertNode(g, g.find(anchor), std::move(n)); !r)
        return r.error();
    return name;
}

// A call of a Python function (torch.empty, torch.npu.current_stream, operator.getitem): FX names it
// after the function's own name.
Node pyCall(const Graph& g, const std::string& target, std::vector<Arg> args,
    std::vector<std::pair<std::string, Arg>> kwargs = {}, std::vector<TensorMeta> outputs = {})
{
    Node n = detail::callNode(g, target, std::move(args), std::move(kwargs), std::move(outputs));
    n.name = detail::freshName(g, splitDots(target).back());
    return n;
}

// Rewrites one map op `name` into workspace + empty outputs + .out; false when it was left alone.
Result<bool> replaceOne(Graph& g, const std::string& name, const StaticWorkspaceOp& op,
    const std::map<std::string, std::string>& symInputs, PassReport& report)
{
    const Node orig = g.nodes[size_t(g.find(name))];
    if (orig.outputs.empty()) {
        report.skipped.push_back({ name,
            "aclgraph-inspector: no tensor metadata (meta['val']); TorchAir skips such a node, but its graphs always "
            "have it: give the node's metadata" });
        return false;
    }
    if (orig.outputs.size() != 2)
        return makeError(ErrorCode::InvalidArgument,
            "RuntimeError: The lengths of the meta output " + std::to_string(orig.outputs.size())
                + " and the register output keys 2 do not match.",
            name);
    std::vector<ShapeArgs> shapes;
    for (const TensorMeta& t : orig.outputs) {
        shapes.push_back(shapeArgs(g, t, symInputs));
        if (!shapes.back().problem.empty()) {
            report.skipped.push_back({ name, shapes.back().problem });
            report.log.push_back(shapes.back().problem);
            return false;
        }
    }

    // The workspace: get_workspace(*args, **kwargs). Its size is what the op's own workspace is
    // known to be (workspaceBytes); get_max_workspace sizes it for the largest parameters.
    Node ws = detail::callNode(g, op.getWorkspace, orig.args, orig.kwargs);
    const auto knownWs = orig.workspaceBytes.constantValue();
    if (!knownWs || *knownWs > 0) {
        TensorMeta t;
        t.shape = { orig.workspaceBytes };
        t.dtype = DType::U8;
        t.device = orig.outputs[0].device;
        ws.outputs = { t };
        report.log.push_back("aclgraph-inspector: the static workspace " + ws.name + " is taken to hold "
            + orig.workspaceBytes.text() + " bytes, the workspace of " + name
            + "; _npu_fused_infer_attention_score_get_max_workspace sizes it for the largest parameters, which may "
              "need more");
    } else {
        report.log.push_back("aclgraph-inspector: the size of the static workspace " + ws.name
            + " is unknown (the graph gives " + name
            + " no workspace_bytes), so the simulation counts no memory for it");
    }
    auto wsName = insertBefore(g, name, std::move(ws));
    if (!wsName)
        return wsName.error();

    std::vector<Arg> outs;
    for (size_t i = 0; i < shapes.size(); ++i) {
        const TensorMeta& t = orig.outputs[i];
        report.log.push_back(
            "Construct fx node shape " + shapes[i].text + " from original meta shape " + sizeText(t.shape) + " .");
        report.log.push_back("Construct empty out sym shape " + shapes[i].text + " for fx node[name: " + name
            + "][type: " + orig.target + "].");
        Node empty = pyCall(g, "torch.empty", { Arg::list(shapes[i].dims) },
            { { "dtype", detail::strArg(detail::torchDType(t.dtype)) },
                { "device", t.device.empty() ? Arg() : detail::strArg(t.device) } },
            { t });
        auto emptyName = insertBefore(g, name, std::move(empty));
        if (!emptyName)
            return emptyName.error();
        outs.push_back(Arg::ref(*emptyName));
    }

    std::vector<std::pair<std::string, Arg>> kwargs = orig.kwargs;
    auto setKw = [&kwargs](const std::string& key, Arg value) {
        for (auto& kw : kwargs)
            if (kw.first == key) {
                kw.second = std::move(value);
                return;
            }
        kwargs.emplace_back(key, std::move(value));
    };
    setKw("workspace", Arg::ref(*wsName));
    setKw("out", Arg::list(outs));
    Node run = detail::callNode(g, op.outOperator, orig.args, kwargs, orig.outputs);
    run.provenance = orig.provenance;
    auto runName = insertBefore(g, name, std::move(run));
    if (!runName)
        return runName.error();
    report.log.push_back("Original fx node[name: " + name + "][type: " + orig.target
        + "] is replaced by workspace_node[name: " + *wsName + "][type: " + op.getWorkspace
        + "] and run_node[name: " + *runName + "][type: " + op.outOperator + "] in graph[" + g.id + "].");
    report.rewritten.push_back({ name, orig.target, op.outOperator });
    if (auto ok = detail::replaceUses(g, name, *runName); !ok)
        return ok.error();
    return true;
}

// ---- replace_core_limit_nodes ----

bool hasKeys(const Node& n, std::initializer_list<const char*> keys)
{
    if (n.args.empty() || n.args[0].kind != Arg::Kind::List)
        return false;
    for (const char* k : keys)
        if (std::none_of(n.args[0].items.begin(), n.args[0].items.end(),
                [&](const Arg& a) { return a.kind == Arg::Kind::Str && a.s == k; }))
            return false;
    return true;
}

bool isScope(const Node& n, const std::string& op, const config::Options& options)
{
    if (!detail::isCallFunction(n))
        return false;
    const std::string t = detail::targetOf(n);
    return t == "air." + op + ".default"
        || (options.backend == config::Backend::NpugraphEx && t == "npugraph_ex." + op + ".default");
}

// int(x) of a limit_core_num value (limit_core_num writes str(int)).
Result<Arg> coreNum(const Arg& a, const std::string& scope)
{
    if (a.kind == Arg::Kind::Int)
        return a;
    if (a.kind == Arg::Kind::Str) {
        static const std::regex digits(R"(\s*[+-]?[0-9]+\s*)");
        if (std::regex_match(a.s, digits))
            return Arg::integer(std::stoll(a.s));
    }
    return makeError(ErrorCode::InvalidArgument,
        "ValueError: invalid literal for int() with base 10: " + argText(a) + " (core limit of " + scope + ")");
}

struct CoreLimit {
    std::string stream, cube, vector; ///< current_stream node and the getitems of its saved limits
    Arg aicore, vectorcore; ///< the limit in force inside the scope
};

} // namespace

Result<PassReport> replaceDynamicWorkspaceOps(Graph& graph, const config::Options&)
{
    return detail::runPass(
        graph, "replace_dynamic_workspace_ops", {}, true, [](Graph& g, PassReport& report) -> Result<void> {
            std::string keys;
            for (const auto& op : replaceFuncMap())
                keys += (keys.empty() ? "" : ", ") + opOverloadRepr(op.target);
            report.log.push_back("Start to replace dynamic workspace ops to static workspace for ops[dict_keys([" + keys
                + "])] in graph[" + g.id + "].");
            report.log.push_back(
                "aclgraph-inspector: the map holds the ops this torch_npu has: both fused-infer-attention ops are "
                "assumed; with ATB, atb._npu_paged_attention and atb._npu_paged_attention_splitfuse are keys too, "
                "but they have no output keys and are never replaced");
            // sym_inputs_2_node: the SymInt placeholder that carries each symbol.
            std::map<std::string, std::string> symInputs;
            for (int p : g.placeholders()) {
                const Node& n = g.nodes[size_t(p)];
                if (n.inputKind == InputKind::SymInt)
                    if (auto s = n.symbol.singleSymbol())
                        symInputs.emplace(*s, n.name);
            }
            std::vector<std::pair<std::string, const StaticWorkspaceOp*>> targets;
            for (const Node& n : g.nodes)
                for (const auto& op : replaceFuncMap())
                    if (detail::isCallFunction(n) && detail::targetOf(n) == op.target)
                        targets.emplace_back(n.name, &op);
            std::set<std::string> erase;
            for (const auto& [name, op] : targets) {
                auto done = replaceOne(g, name, *op, symInputs, report);
                if (!done)
                    return done.error();
                if (*done)
                    erase.insert(name);
            }
            if (auto ok = detail::eraseNodes(g, erase); !ok)
                return ok.error();
            report.log.push_back("End to replace dynamic workspace ops in graph[" + g.id + "].");
            return {};
        });
}

Result<PassReport> replaceCoreLimitNodes(Graph& graph, const config::Options& options, const PassEnvironment& env)
{
    return detail::runPass(
        graph, "replace_core_limit_nodes", {}, true, [&](Graph& g, PassReport& report) -> Result<void> {
            std::vector<std::string> scopeStack; // "core_limit", "stream_switch", "other"
            std::vector<CoreLimit> limits;
            bool enableCoreLimit = false;
            std::vector<std::string> order;
            for (const Node& n : g.nodes)
                order.push_back(n.name);
            for (const std::string& name : order) {
                const int idx = g.find(name);
                if (idx < 0)
                    continue;
                const Node node = g.nodes[size_t(idx)];
                if (isScope(node, "scope_enter", options)) {
                    if (hasKeys(node, { "_op_aicore_num", "_op_vectorcore_num" })) {
                        // aicore_num, vectorcore_num = node.args[1]
                        if (node.args.size() < 2 || node.args[1].kind != Arg::Kind::List
                            || node.args[1].items.size() != 2)
                            return makeError(ErrorCode::InvalidArgument,
                                "ValueError: expected 2 values to unpack (the core limits of " + name + ")");
                        auto aicore = coreNum(node.args[1].items[0], name);
                        auto vectorcore = coreNum(node.args[1].items[1], name);
                        if (!aicore)
                            return aicore.error();
                        if (!vectorcore)
                            return vectorcore.error();
                        auto stream = insertBefore(g, name, pyCall(g, "torch.npu.current_stream", {}));
                        if (!stream)
                            return stream.error();
                        auto get
                            = insertBefore(g, name, pyCall(g, "torch.npu.get_stream_limit", { Arg::ref(*stream) }));
                        if (!get)
                            return get.error();
                        auto cube = insertBefore(g, name,
                            pyCall(g, "operator.getitem", { Arg::ref(*get), detail::strArg("cube_core_num") }));
                        if (!cube)
                            return cube.error();
                        auto vector = insertBefore(g, name,
                            pyCall(g, "operator.getitem", { Arg::ref(*get), detail::strArg("vector_core_num") }));
                        if (!vector)
                            return vector.error();
                        auto set = insertBefore(g, name,
                            pyCall(g, "torch.npu.set_stream_limit", { Arg::ref(*stream), *aicore, *vectorcore }));
                        if (!set)
                            return set.error();
                        if (auto ok = detail::replaceUses(g, name, *set); !ok)
                            return ok.error();
                        if (auto ok = detail::eraseNodes(g, { name }); !ok)
                            return ok.error();
                        report.rewritten.push_back({ name, node.target, "torch.npu.set_stream_limit" });
                        limits.push_back({ *stream, *cube, *vector, *aicore, *vectorcore });
                        scopeStack.push_back("core_limit");
                    } else if (hasKeys(node, { "_user_stream_label", "_user_stream_priority" })) {
                        if (limits.empty()) {
                            scopeStack.push_back("other");
                            continue;
                        }
                        const CoreLimit last = limits.back();
                        // inserting_after puts each new node right after its anchor: the three made
                        // after get_stream_limit end up as getitem(cube), getitem(vector), set.
                        auto after = [&](const std::string& anchor, Node n) -> Result<std::string> {
                            std::string made = n.name;
                            if (auto r = detail::insertNode(g, g.find(anchor) + 1, std::move(n)); !r)
                                return r.error();
                            return made;
                        };
                        auto stream = after(name, pyCall(g, "torch.npu.current_stream", {}));
                        if (!stream)
                            return stream.error();
                        auto get = after(*stream, pyCall(g, "torch.npu.get_stream_limit", { Arg::ref(*stream) }));
                        if (!get)
                            return get.error();
                        auto set = after(*get,
                            pyCall(
                                g, "torch.npu.set_stream_limit", { Arg::ref(*stream), last.aicore, last.vectorcore }));
                        if (!set)
                            return set.error();
                        auto vector = after(
                            *get, pyCall(g, "operator.getitem", { Arg::ref(*get), detail::strArg("vector_core_num") }));
                        if (!vector)
                            return vector.error();
                        auto cube = after(
                            *get, pyCall(g, "operator.getitem", { Arg::ref(*get), detail::strArg("cube_core_num") }));
                        if (!cube)
                            return cube.error();
                        limits.push_back({ *stream, *cube, *vector, last.aicore, last.vectorcore });
                        scopeStack.push_back("stream_switch");
                    } else {
                        scopeStack.push_back("other");
                    }
                } else if (isScope(node, "scope_exit", options)) {
                    if (scopeStack.empty())
                        return makeError(ErrorCode::InvalidArgument,
                            "IndexError: pop from empty list (" + name + " closes no scope_enter)");
                    const std::string kind = scopeStack.back();
                    scopeStack.pop_back();
                    if (kind != "other") {
                        const CoreLimit saved = limits.back();
                        limits.pop_back();
                        Node set = pyCall(g, "torch.npu.set_stream_limit",
                            { Arg::ref(saved.stream), Arg::ref(saved.cube), Arg::ref(saved.vector) });
                        const std::string setName = set.name;
                        if (auto r = detail::insertNode(g, g.find(name) + 1, std::move(set)); !r)
                            return r.error();
                        if (kind == "core_limit") {
                            if (auto ok = detail::replaceUses(g, name, setName); !ok)
                                return ok.error();
                            if (auto ok = detail::eraseNodes(g, { name }); !ok)
                                return ok.error();
                            report.rewritten.push_back({ name, node.target, "torch.npu.set_stream_limit" });
                        }
                    }
                }
                enableCoreLimit = enableCoreLimit || !limits.empty();
            }

            if (!enableCoreLimit || !options.staticKernel)
                return {};
            const std::string option = options.optionName("static_kernel_compile");
            if (env.cann.empty()) {
                report.log.push_back("aclgraph-inspector: the graph has a limit_core_num scope and " + option
                    + " is on; TorchAir keeps the static kernel only on CANN >= 9.0.0 (_is_gte_cann_version) and "
                      "otherwise switches it off with a UserWarning. The CANN version is unknown (tell it with "
                      "--cann), so no warning is given and the static kernel is taken to stay on");
                return {};
            }
            bool valid = true;
            detail::cannVersionNumber(env.cann, &valid);
            if (!valid)
                report.log.push_back("aclgraph-inspector: torch_npu's CannVersionToNum reads no version from '"
                    + env.cann + "' (it counts below every version), so CANN is taken to be older than 9.0.0");
            if (detail::cannAtLeast(env.cann, "9.0.0")) {
                report.log.push_back("aclgraph-inspector: CANN " + env.cann
                    + " >= 9.0.0 supports the static kernel with core limits: " + option + " stays on");
                return {};
            }
            report.log.push_back("UserWarning: When both static shape kernel and core limit are enabled, only core "
                                 "limit will take effect, static shape kernel will be disabled. CANN 9.0.0 or later "
                                 "supports enabling both features.");
            report.log.push_back("aclgraph-inspector: TorchAir sets " + option + " = False for this graph (CANN "
                + env.cann + " < 9.0.0): its static shape kernels are not compiled");
            return {};
        });
}

} // namespace engine::passes
