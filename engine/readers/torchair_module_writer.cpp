// writeTorchairModule: the module AclConcreteGraph.codegen() writes, section by section in the
// order of python/torchair/_acl_concrete_graph/fx2acl_converter.py:154-204 (TA below; npugraph_ex's
// copy, npugraph_ex/npugraph_ex/_acl_concrete_graph/fx2acl_converter.py, differs only where said).
#include "engine/readers/torchair_module_writer.h"

#include "engine/cache/cache_key.h"
#include "engine/passes/pass_util.h"
#include "engine/readers/fx_code_writer.h"
#include "engine/readers/fx_python.h"
#include "engine/readers/fx_reader_internal.h"
#include "engine/runtime/graph_analysis.h"

#include <algorithm>
#include <sstream>

namespace engine::readers {

namespace {

using config::Backend;

/// The ops whose parameters TorchAir updates at replay, keyed by `out_operator`, the target
/// get_updated_ops_rulers_param matches exactly (TA/acl_graph.py:98-140 `_REPLACE_FUNC_MAP`,
/// :435-480). runtime/graph_analysis.cpp's table answers another question (which users keep a
/// SymInt out of the key) and matches by op packet.
struct ReplaceFunc {
    const char* outOperator;
    std::vector<std::string> paramKeys;
    std::vector<int> paramIndices;
};

const std::vector<ReplaceFunc>& replaceFuncs()
{
    static const std::vector<ReplaceFunc> table = {
        { "npu.npu_fused_infer_attention_score.out",
            { "actual_seq_lengths", "actual_seq_lengths_kv", "actual_shared_prefix_len" }, {} },
        { "npu.npu_fused_infer_attention_score_v2.out", { "actual_seq_qlen", "actual_seq_kvlen" }, {} },
        { "atb._npu_paged_attention.default", {}, { 7 } },
        { "atb._npu_paged_attention_splitfuse.default", {}, { 4, 6 } },
    };
    return table;
}

std::string pyList(const std::vector<std::string>& items)
{
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + items[i];
    return s + "]";
}

std::string pyStrList(const std::vector<std::string>& names)
{
    std::vector<std::string> quoted;
    for (const auto& n : names)
        quoted.push_back(detail::pyQuote(n, '\''));
    return pyList(quoted);
}

/// Python's repr of a tuple of dims: `(s0, 16)`, `(4,)`, `()`.
std::string pyTuple(const std::vector<SymExpr>& dims)
{
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + dims[i].text();
    return s + (dims.size() == 1 ? ",)" : ")");
}

/// One updatable node: its ops_update_rulers entry and the two updated_ops_param entries.
struct UpdatedNode {
    std::string name;
    std::string rulers; ///< `{'actual_seq_lengths_kv': [('index', 4)], 7: [('index', 3)]}`
    std::vector<std::string> kwargParams; ///< quoted names
    std::vector<std::string> argIndexParams; ///< arg indices
};

/// get_update_ruler (TA/acl_graph.py:351-392) for one node.
Result<std::optional<UpdatedNode>> updateRuler(const Graph& g, const Node& n, const ReplaceFunc& f)
{
    const std::vector<int> ph = g.placeholders();
    auto position = [&](const Arg& a) -> int {
        if (a.kind != Arg::Kind::NodeRef)
            return -1;
        for (size_t i = 0; i < ph.size(); ++i)
            if (g.nodes[size_t(ph[i])].name == a.s)
                return int(i);
        return -1;
    };
    UpdatedNode u;
    u.name = n.name;
    std::vector<std::string> entries;
    for (const auto& [name, value] : n.kwargs) {
        if (std::find(f.paramKeys.begin(), f.paramKeys.end(), name) == f.paramKeys.end())
            continue;
        if (value.kind != Arg::Kind::List)
            return makeError(ErrorCode::InvalidArgument,
                "For updated param type only list is supported, but get [" + fxArgText(value) + "].", n.name);
        std::vector<std::string> ruler;
        bool hasSym = false;
        for (const Arg& item : value.items) {
            if (const int pos = position(item); pos >= 0) {
                ruler.push_back("('index', " + std::to_string(pos) + ")");
                hasSym = true;
            } else if (item.kind == Arg::Kind::NodeRef || item.kind == Arg::Kind::List) {
                return makeError(ErrorCode::InvalidArgument,
                    "For updated param value only sym and constant is supported, but get [" + fxArgText(item) + "].",
                    n.name);
            } else {
                ruler.push_back("('fixed', " + fxArgText(item) + ")");
            }
        }
        if (hasSym) {
            entries.push_back(detail::pyQuote(name, '\'') + ": " + pyList(ruler));
            u.kwargParams.push_back(detail::pyQuote(name, '\''));
        }
    }
    for (int index : f.paramIndices) {
        if (index >= int(n.args.size()))
            continue;
        if (const int pos = position(n.args[size_t(index)]); pos >= 0) {
            entries.push_back(std::to_string(index) + ": [('index', " + std::to_string(pos) + ")]");
            u.argIndexParams.push_back(std::to_string(index));
        }
    }
    if (entries.empty())
        return std::optional<UpdatedNode>();
    u.rulers = "{" + [&] {
        std::string s;
        for (size_t i = 0; i < entries.size(); ++i)
            s += (i ? ", " : "") + entries[i];
        return s;
    }() + "}";
    return std::optional<UpdatedNode>(std::move(u));
}

class ModuleWriter {
public:
    ModuleWriter(
        const Graph& g, const ModuleSpec& spec, const config::Options& options, const runtime::GraphAnalysis& analysis)
        : m_g(g)
        , m_spec(spec)
        , m_options(options)
        , m_a(analysis)
        , m_pkg(spec.backend == Backend::NpugraphEx ? "npugraph_ex" : "torchair")
    {
        for (int idx : m_a.placeholders)
            m_inputNames.push_back(m_g.nodes[size_t(idx)].name);
    }

    Result<WrittenModule> write()
    {
        for (const Node& n : m_g.nodes)
            for (const ReplaceFunc& f : replaceFuncs())
                if (n.op == NodeOp::CallFunction && n.target == f.outOperator) {
                    auto u = updateRuler(m_g, n, f);
                    if (!u)
                        return u.error();
                    if (*u)
                        m_updated.push_back(std::move(**u));
                }
        collectStreamsAndEvents();
        std::string graphName = fxGraphName();
        auto configs = compileConfigs();
        if (!configs)
            return configs.error();

        std::string body = imports() + globalsDict() + tensorConstants() + "\n" + forward() + "\n";
        body += configs.value() + cacheInfo(graphName) + helpers() + "\n" + kernel() + mainFunction();

        WrittenModule out;
        out.placeholders = m_placeholders;
        out.text = headerComment() + body;
        return out;
    }

private:
    std::string headerComment() const
    {
        std::string s = "# The module TorchAir's AclConcreteGraph.codegen() writes for this FX graph after its passes\n"
                        "# (python/"
            + m_pkg + "/_acl_concrete_graph/fx2acl_converter.py), written by aclgraph-inspector.\n";
        if (m_placeholders.empty())
            return s + "# Every value below is known; no placeholders.\n";
        s += "# Placeholders (TorchAir's form, a value aclgraph-inspector does not know):\n";
        for (const auto& p : m_placeholders)
            s += "#   - " + p + "\n";
        return s;
    }

    std::string fxGraphName()
    {
        if (!m_spec.fxGraphName.empty())
            return m_spec.fxGraphName;
        const std::string& id = m_g.id;
        if (id.size() > 6 && id.rfind("graph_", 0) == 0 && id.find_first_not_of("0123456789", 6) == std::string::npos)
            return id;
        m_placeholders.push_back("fx_graph_name=\"graph_1\": TorchAir numbers compiled FX graphs per process "
                                 "(_GLOBAL_GRAPH_ID); the number is not known here");
        return "graph_1";
    }

    // TA:160-173 (npugraph_ex's own package in N).
    std::string imports() const
    {
        return "import threading\nfrom collections import OrderedDict\n\nimport torch\n"
               "from torch._dynamo.testing import rand_strided\n\nimport torch_npu\nfrom "
            + m_pkg + "._acl_concrete_graph.acl_graph import AclGraph, AclGraphCacheInfo\nfrom " + m_pkg
            + "._acl_concrete_graph.acl_graph_cache_utils import SerializableGraphModule\nfrom " + m_pkg
            + ".ops._tagged_event import _npu_create_tagged_event\n\n"
              "assert_size_stride = torch._C._dynamo.guards.assert_size_stride\n";
    }

    // TA:853-863: the closure vars of the torch version (> 2.5.1 assumed).
    std::string globalsDict()
    {
        m_placeholders.push_back("the closure-var globals are torch > 2.5.1's (_get_closure_vars); torch <= 2.5.1 "
                                 "writes CLOSURE_VARS");
        return "\nfrom torch._dynamo.guards import _get_closure_vars\nglobals().update(_get_closure_vars())\n"
               "globals().update({\"nan\": float(\"nan\")})\n";
    }

    // TA:495-517 and :650-653: get_attr nodes whose name holds "_constant".
    std::string tensorConstants()
    {
        for (const Node& n : m_g.nodes)
            if (n.op == NodeOp::GetAttr && n.name.find("_constant") != std::string::npos)
                m_constants.emplace_back(n.name, n.target);
        if (m_constants.empty())
            return {};
        m_placeholders.push_back("serialized_gm = b'': the pickled GraphModule TorchAir rebuilds its tensor "
                                 "constants from is not known");
        std::string s
            = "\nserialized_gm = b''\nrebuild_gm = SerializableGraphModule.rebuild_from_bytes(serialized_gm)\n"
              "fx_graph = rebuild_gm._artifact\n\ntensor_constants = {}\n"
              "with torch._C._DisableTorchDispatch():\n";
        for (const auto& [name, target] : m_constants)
            s += "    tensor_constants['" + name + "'] = getattr(fx_graph, '" + target + "')\n";
        return s + "\n";
    }

    void collectStreamsAndEvents()
    {
        // _GLOBAL_SCOPE_TAG_TO_EVENT is process-wide (TA:260-264): the tags this graph's tagged
        // events name are the ones known here.
        for (const Node& n : m_g.nodes) {
            if (n.op != NodeOp::CallFunction)
                continue;
            if (n.target.find("tagged_event") != std::string::npos && !n.args.empty()
                && n.args[0].kind == Arg::Kind::Str
                && std::find(m_taggedEvents.begin(), m_taggedEvents.end(), n.args[0].s) == m_taggedEvents.end())
                m_taggedEvents.push_back(n.args[0].s);
            if (n.target.find("scope_enter") != std::string::npos)
                m_hasScopes = true;
        }
        if (!m_taggedEvents.empty())
            m_placeholders.push_back("tagged_event_names: TorchAir lists every tag of the process "
                                     "(_GLOBAL_SCOPE_TAG_TO_EVENT); only this graph's are written");
        if (m_hasScopes)
            m_placeholders.push_back("user_stream_label=set(), user_stream_info={}: stream scopes are written "
                                     "without their `with torch.npu.stream(...)` blocks (apply_event_closure_"
                                     "with_multi_stream's scope dicts are not modelled)");
    }

    // TA:666-735: the forward with TorchAir's splices.
    std::string forward() const
    {
        std::string s = "def forward(*args, node_info=[], is_capturing: bool = False):\n";
        if (!m_inputNames.empty())
            s += "    " + inputUnpack() + " = args\n";
        if (!m_updated.empty())
            s += "    from " + m_pkg + "._acl_concrete_graph.utils import reconstruct_args_kwargs\n    from " + m_pkg
                + "._acl_concrete_graph.acl_graph import UpdatedNodeInfo\n";
        std::istringstream body(writeFxCodeBody(m_g));
        std::string line;
        while (std::getline(body, line)) {
            const size_t first = line.find_first_not_of(' ');
            line = first == std::string::npos ? std::string() : line.substr(first);
            s += line.empty() ? "\n" : spliced(line);
        }
        return s;
    }

    std::string inputUnpack() const
    {
        std::string all;
        for (size_t i = 0; i < m_inputNames.size(); ++i)
            all += (i ? ", " : "") + m_inputNames[i];
        return m_inputNames.size() == 1 ? all + ", " : all;
    }

    std::string spliced(const std::string& line) const
    {
        const size_t eq = line.find(" = ");
        const std::string lhs = eq == std::string::npos ? std::string() : line.substr(0, eq);
        const int idx = lhs.empty() ? -1 : m_g.find(lhs);
        if (idx < 0)
            return "    " + line + "\n";
        const Node& n = m_g.nodes[size_t(idx)];
        for (const UpdatedNode& u : m_updated)
            if (u.name == n.name)
                return updatedBlock(n, u, line);
        for (const auto& c : m_constants)
            if (c.first == n.name)
                return "    " + n.name + " = tensor_constants['" + n.name + "']\n";
        if (n.target == "air.record.default")
            return "    event_" + n.name + " = torch.npu.Event()\n    event_" + n.name
                + ".record(torch.npu.current_stream())\n";
        if (n.target == "air.wait.default") {
            std::string s;
            if (!n.args.empty() && n.args[0].kind == Arg::Kind::List)
                for (const Arg& w : n.args[0].items)
                    if (w.kind == Arg::Kind::NodeRef)
                        s += "    event_" + w.s + ".wait(torch.npu.current_stream())\n";
            return s;
        }
        return "    " + line + "\n";
    }

    /// `{node.args}` / `{node.kwargs}` as Python prints them.
    static std::string argsRepr(const Node& n)
    {
        std::string s = "(";
        for (size_t i = 0; i < n.args.size(); ++i)
            s += (i ? ", " : "") + fxArgText(n.args[i]);
        return s + (n.args.size() == 1 ? ",)" : ")");
    }

    static std::string kwargsRepr(const Node& n)
    {
        std::string s = "{";
        for (size_t i = 0; i < n.kwargs.size(); ++i)
            s += (i ? ", " : "") + detail::pyQuote(n.kwargs[i].first, '\'') + ": " + fxArgText(n.kwargs[i].second);
        return s + "}";
    }

    // TA:737-778: the replay-update block, then the line's free list on its own line.
    static std::string updatedBlock(const Node& n, const UpdatedNode& u, const std::string& line)
    {
        const std::string& x = n.name;
        const std::string args = argsRepr(n), kwargs = kwargsRepr(n);
        std::string s = "\n    if is_capturing:\n";
        s += "        external_event_" + x + " = torch.npu.ExternalEvent()\n";
        s += "        capture_stream_" + x + " = torch.npu.current_stream()\n";
        s += "        external_event_" + x + ".wait(capture_stream_" + x + ")\n";
        s += "        external_event_" + x + ".reset(capture_stream_" + x + ")\n";
        s += "        torch.npu.graph_task_group_begin(capture_stream_" + x + ")\n\n";
        s += "    " + x + " = torch.ops." + n.target + "(*" + args + ", **" + kwargs + ")\n\n";
        s += "    if is_capturing:\n";
        s += "        handle_" + x + " = torch.npu.graph_task_group_end(capture_stream_" + x + ")\n";
        s += "        node_args, node_kwargs = reconstruct_args_kwargs(" + args + ", " + kwargs + ")\n";
        s += "        node_info.append(UpdatedNodeInfo(\n";
        s += "            node_name=\"" + x + "\",\n";
        s += "            updated_func=torch.ops." + n.target + ",\n";
        s += "            updated_param_name=" + pyList(u.kwargParams) + ",\n";
        s += "            updated_param_index=" + pyList(u.argIndexParams) + ",\n";
        s += "            args=node_args,\n            kwargs=node_kwargs,\n";
        s += "            handle=handle_" + x + ",\n            event=external_event_" + x + ",\n";
        s += "            core=torch.npu.get_stream_limit(torch.npu.current_stream()))\n        )\n";
        const size_t semi = line.find(';');
        std::string frees = semi == std::string::npos ? std::string() : line.substr(semi + 1);
        const size_t first = frees.find_first_not_of(' ');
        frees = first == std::string::npos ? std::string() : frees.substr(first);
        return s + (frees.empty() ? "\n" : "    " + frees + "\n");
    }

    // TA:343-377 normalize_config (N:332-353): the config's local options, the same list and order
    // as the cache key's option string without its global (ge.*) entries, `mode` and the user's pass
    // digests; `sym_input_index` when run eagerly. torchair writes every value as a string, npugraph_ex
    // keeps bools as bools (N:504-507).
    Result<std::string> compileConfigs()
    {
        auto key = cache::computeCacheKey(m_spec.backend, m_spec.settings);
        if (!key)
            return key.error();
        const bool npu = m_spec.backend == Backend::NpugraphEx;
        std::string s = "\ncompile_configs = {}\n";
        auto line = [&](const std::string& k, const std::string& v) {
            const bool isBool = npu && (v == "True" || v == "False");
            s += "compile_configs[\"" + k + "\"] = " + (isBool ? v : "\"" + v + "\"") + "\n";
        };
        for (const cache::KeyOption& o : key->options) {
            if (o.key.rfind("ge.", 0) == 0 || o.key == "mode" || o.key == "post_grad_custom_pre_pass"
                || o.key == "post_grad_custom_post_pass")
                continue;
            line(o.key, o.value);
        }
        if (m_options.forceEager) {
            std::vector<std::string> syms;
            for (const auto& e : m_a.keyEntries)
                if (e.isSym)
                    syms.push_back(std::to_string(e.index));
            line("sym_input_index", pyList(syms));
        }
        if (m_options.staticKernel)
            m_placeholders.push_back("the static kernel's extend_config entries and _update_static_kernel_cache_dir "
                                     "(written from the kernels compiled at run time) are not written");
        s += "\nacl_graph = AclGraph(fx_forward=forward, config=compile_configs)\n";
        return s;
    }

    // TA:542-561.
    std::string cacheInfo(const std::string& graphName) const
    {
        std::string pool = "None";
        if (m_options.customPool)
            pool = "(" + std::to_string(m_options.customPool->first) + ", "
                + std::to_string(m_options.customPool->second) + ")";
        const std::string errorMode = m_spec.backend == Backend::NpugraphEx ? m_options.captureErrorMode : "global";
        std::string mapping;
        for (int pos : m_a.userInputs)
            mapping += std::string(mapping.empty() ? "" : ", ") + "(" + detail::pyQuote(m_inputNames[size_t(pos)], '\'')
                + ", " + std::to_string(pos) + ")";
        std::vector<std::string> key;
        for (const auto& e : m_a.keyEntries)
            key.push_back("(" + std::to_string(e.index) + ", " + (e.isSym ? "True" : "False") + ")");
        std::string param, rulers;
        for (const UpdatedNode& u : m_updated) {
            const std::string q = detail::pyQuote(u.name, '\'');
            param += std::string(param.empty() ? "" : ", ") + q + ": " + pyList(u.kwargParams) + ", "
                + detail::pyQuote("arg_index_" + u.name, '\'') + ": " + pyList(u.argIndexParams);
            rulers += std::string(rulers.empty() ? "" : ", ") + q + ": " + u.rulers;
        }
        const std::vector<std::string> mutated
            = m_spec.mutatedUserInputs ? *m_spec.mutatedUserInputs : m_g.mutatedInputs();
        std::vector<std::string> params;
        for (int pos : m_a.parameterInputs)
            params.push_back(std::to_string(pos));
        std::string alias;
        for (const auto& [in, outs] : m_a.aliasInputs) {
            std::vector<std::string> o;
            for (int i : outs)
                o.push_back(std::to_string(i));
            alias += std::string(alias.empty() ? "" : ", ") + std::to_string(in) + ": " + pyList(o);
        }
        std::string s = "\naclgraph_cache_info = AclGraphCacheInfo(\n";
        s += "    pool=" + pool + ",\n    stream=torch.npu.Stream(),\n";
        s += "    capture_error_mode=\"" + errorMode + "\",\n    num_warmup_iters=0,\n";
        s += "    fx_graph_name=\"" + graphName + "\",\n";
        s += "    user_inputs_mapping=" + (mapping.empty() ? "OrderedDict()" : "OrderedDict([" + mapping + "])")
            + ",\n";
        s += "    unupdated_sym_input_index=" + pyList(key) + ",\n";
        s += "    updated_ops_param={" + param + "},\n    ops_update_rulers={" + rulers + "},\n";
        s += "    mutated_user_inputs=" + pyStrList(mutated) + ",\n";
        s += "    tagged_event_names=" + pyStrList(m_taggedEvents) + ",\n";
        s += "    parameter_user_inputs=" + pyList(params) + ",\n";
        s += "    user_stream_label=set(),\n    user_stream_info={},\n";
        s += "    userinput_ref_with_output={" + alias + "}\n)\nacl_graph.load(aclgraph_cache_info)\n";
        return s;
    }

    // TA:587-598: the tagged-event helper (the user-stream one, TA:565-585, needs user_stream_label,
    // which is not modelled).
    std::string helpers() const
    {
        if (m_taggedEvents.empty())
            return {};
        return "\ndef _update_tagged_event_dict():\n    from " + m_pkg
            + "._acl_concrete_graph.graph_pass import _GLOBAL_SCOPE_TAG_TO_EVENT, _GLOBAL_EVENT_LOCK\n"
              "    with _GLOBAL_EVENT_LOCK:\n"
              "        for i, tag in enumerate(aclgraph_cache_info.tagged_event_names):\n"
              "            tagged_event = torch.npu.Event()\n"
              "            _GLOBAL_SCOPE_TAG_TO_EVENT[tag] = tagged_event\n";
    }

    /// `_all_sym_input_idx` (TA:430-431): SymInt placeholders by expression, later index winning,
    /// first insertion order kept (a dict).
    std::vector<std::pair<const SymExpr*, int>> symInputs() const
    {
        std::vector<std::pair<const SymExpr*, int>> out;
        for (size_t pos = 0; pos < m_a.placeholders.size(); ++pos) {
            const Node& n = m_g.nodes[size_t(m_a.placeholders[pos])];
            if (n.inputKind != InputKind::SymInt)
                continue;
            auto it = std::find_if(
                out.begin(), out.end(), [&](const auto& e) { return e.first->text() == n.symbol.text(); });
            if (it != out.end())
                it->second = int(pos);
            else
                out.emplace_back(&n.symbol, int(pos));
        }
        return out;
    }

    static bool isSymbol(const SymExpr& e) { return e.singleSymbol() && e.singleSymbol() == e.text(); }

    static const TensorMeta* tensorMeta(const Node& n)
    {
        return n.inputKind != InputKind::SymInt && !n.outputs.empty() ? &n.outputs[0] : nullptr;
    }

    // TA:600-645.
    std::string kernel()
    {
        std::string s = "\n_is_first_run = True\ndef kernel(*args, **kwargs):\n\n    global _is_first_run\n"
                        "    if _is_first_run:\n        _is_first_run = False\n\n";
        if (!m_taggedEvents.empty())
            s += "        _update_tagged_event_dict()\n\n";
        const auto syms = symInputs();
        if (!syms.empty()) {
            s += "        " + inputUnpack() + " = args\n";
            for (const auto& [expr, pos] : syms)
                if (isSymbol(*expr))
                    s += "        " + expr->text() + " = " + m_inputNames[size_t(pos)] + "\n";
        }
        for (size_t pos = 0; pos < m_a.placeholders.size(); ++pos) {
            const Node& n = m_g.nodes[size_t(m_a.placeholders[pos])];
            const TensorMeta* t = tensorMeta(n);
            if (!t) {
                if (n.inputKind != InputKind::SymInt)
                    m_missingMeta.push_back(n.name);
                continue;
            }
            bool empty = false;
            for (const SymExpr& d : t->shape)
                empty = empty || d.constantValue() == int64_t(0);
            if (empty)
                continue; // numel() == 0
            const auto stride = t->stride.empty() ? detail::contiguousStrides(t->shape) : t->stride;
            s += "        assert_size_stride(args[" + std::to_string(pos) + "], " + pyTuple(t->shape) + ", "
                + pyTuple(stride) + ")\n";
        }
        for (int idx : m_a.placeholders) {
            const TensorMeta* t = tensorMeta(m_g.nodes[size_t(idx)]);
            if (t && t->device.empty()) {
                m_placeholders.push_back("device ='npu:0' in main(): the graph does not say the inputs' device");
                break;
            }
        }
        if (!m_missingMeta.empty())
            m_placeholders.push_back(
                "no assert_size_stride / rand_strided for input(s) without metadata: " + pyList(m_missingMeta));
        return s + "    return acl_graph(*args, **kwargs)\n";
    }

    // TA:820-851: SymInt inputs get 2 + their index, tensors rand_strided(shape, stride, ...).
    std::string mainFunction() const
    {
        std::string s = "\ndef main():\n";
        for (const auto& [expr, pos] : symInputs()) {
            const std::string& name = m_inputNames[size_t(pos)];
            if (isSymbol(*expr))
                s += "    " + name + " = " + std::to_string(2 + pos) + "\n    " + expr->text() + " = " + name + "\n";
            else
                s += "    " + name + " = " + expr->text() + "\n";
        }
        for (size_t pos = 0; pos < m_a.placeholders.size(); ++pos) {
            const TensorMeta* t = tensorMeta(m_g.nodes[size_t(m_a.placeholders[pos])]);
            if (!t)
                continue;
            const auto stride = t->stride.empty() ? detail::contiguousStrides(t->shape) : t->stride;
            s += "    " + m_inputNames[pos] + " = rand_strided(" + pyTuple(t->shape) + "," + pyTuple(stride)
                + ",device ='" + (t->device.empty() ? "npu:0" : t->device)
                + "',dtype =" + passes::detail::torchDType(t->dtype) + ")\n";
        }
        std::string all;
        for (size_t i = 0; i < m_inputNames.size(); ++i)
            all += (i ? ", " : "") + m_inputNames[i];
        return s + "    return kernel(" + all + ")\n";
    }

    const Graph& m_g;
    const ModuleSpec& m_spec;
    const config::Options& m_options;
    const runtime::GraphAnalysis& m_a;
    std::string m_pkg;
    std::vector<std::string> m_inputNames;
    std::vector<UpdatedNode> m_updated;
    std::vector<std::pair<std::string, std::string>> m_constants; ///< (node name, get_attr target)
    std::vector<std::string> m_taggedEvents;
    bool m_hasScopes = false;
    std::vector<std::string> m_missingMeta;
    std::vector<std::string> m_placeholders;
};

} // namespace

Result<WrittenModule> writeTorchairModule(const Graph& graph, const ModuleSpec& spec)
{
    auto options = config::parseOptions(spec.backend, spec.settings);
    if (!options)
        return options.error();
    auto analysis = runtime::analyzeGraph(graph);
    if (!analysis)
        return analysis.error();
    return ModuleWriter(graph, spec, options.value(), analysis.value()).write();
}

} // namespace engine::readers
