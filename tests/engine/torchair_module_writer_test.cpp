// The module TorchAir generates, written by us (writeTorchairModule) and read back with the reader of
// the real thing (readTorchairModule): the same graph and options must come back, and the texts must
// be in TorchAir's form (fx2acl_converter.py).
#include "engine/passes/pipeline.h"
#include "engine/readers/torchair_module.h"
#include "engine/readers/torchair_module_writer.h"
#include "fx_test_util.h"

#include <gtest/gtest.h>

namespace {

using namespace fxtest;
using config::Backend;

const std::string kRealFx = std::string(ACLGI_TEST_DATA_DIR) + "/real/fx/";

using Settings = std::vector<std::pair<std::string, PyValue>>;

Graph readGraph(const std::string& path)
{
    auto r = readFxFile(path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() && !r->graphs.empty() ? std::move(r->graphs.front()) : Graph();
}

Graph afterPasses(const Graph& g, Backend backend, const Settings& settings)
{
    auto options = config::parseOptions(backend, settings);
    EXPECT_TRUE(options.ok()) << (options.ok() ? std::string() : options.error().toString());
    auto result = passes::runReduceOverheadPasses(g, options.value());
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error().toString());
    return result.ok() ? result->stages.back() : g;
}

std::string write(const Graph& g, Backend backend, const Settings& settings, ModuleSpec spec = {})
{
    spec.backend = backend;
    spec.settings = settings;
    auto w = writeTorchairModule(g, spec);
    EXPECT_TRUE(w.ok()) << (w.ok() ? std::string() : w.error().toString());
    return w.ok() ? w->text : std::string();
}

TorchairModule readBack(const std::string& text, const Graph* annotated)
{
    auto r = readTorchairModule(text, "written_module.py", annotated);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString()) << "\n" << text;
    return r.ok() ? std::move(r.value()) : TorchairModule();
}

InputKind asWritten(InputKind k)
{
    // parameter_user_inputs holds parameters, buffers and static addresses alike; the reader calls
    // them parameters unless Dynamo's input name says buffer.
    return k == InputKind::Buffer || k == InputKind::StaticAddress ? InputKind::Parameter : k;
}

/// The graph that comes back: same nodes, targets, args, input kinds and input metadata; the
/// intermediate metadata through the annotated graph.
void expectSameGraph(const Graph& a, const Graph& b)
{
    ASSERT_EQ(names(a), names(b));
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const Node& x = a.nodes[i];
        const Node& y = b.nodes[i];
        SCOPED_TRACE("node " + x.name);
        EXPECT_EQ(int(x.op), int(y.op));
        EXPECT_EQ(x.target, y.target);
        EXPECT_EQ(argsText(x), argsText(y));
        ASSERT_EQ(x.outputs.size(), y.outputs.size());
        for (size_t k = 0; k < x.outputs.size(); ++k)
            EXPECT_TRUE(detail::equivalentMeta(x.outputs[k], y.outputs[k]))
                << metaText(x.outputs[k]) << " vs " << metaText(y.outputs[k]);
        if (x.op == NodeOp::Placeholder) {
            EXPECT_STREQ(inputKindName(asWritten(x.inputKind)), inputKindName(y.inputKind));
            if (x.inputKind == InputKind::SymInt) {
                EXPECT_EQ(x.symbol.text(), y.symbol.text());
            }
        }
    }
}

struct OptionsView {
    bool frozen, reuse, cloneIn, cloneOut, eager, recapture, noop, fusion;
    int64_t limit;
    std::string errorMode;
    std::optional<std::pair<uint64_t, uint64_t>> pool;
    bool operator==(const OptionsView& o) const
    {
        return std::tie(frozen, reuse, cloneIn, cloneOut, eager, recapture, noop, fusion, limit, errorMode, pool)
            == std::tie(o.frozen, o.reuse, o.cloneIn, o.cloneOut, o.eager, o.recapture, o.noop, o.fusion, o.limit,
                o.errorMode, o.pool);
    }
};

OptionsView view(Backend backend, const Settings& settings)
{
    auto o = config::parseOptions(backend, settings);
    EXPECT_TRUE(o.ok()) << (o.ok() ? std::string() : o.error().toString());
    if (!o.ok())
        return {};
    return { o->frozenParameter, o->reuseInSameFx, o->cloneInput, o->cloneOutput, o->forceEager, o->forceRecapture,
        o->removeNoopOps, o->patternFusionPass, o->captureLimit, o->captureErrorMode, o->customPool };
}

/// Writes `g` after the passes, reads it back, and checks graph and options.
TorchairModule roundTrip(const Graph& input, Backend backend, const Settings& settings)
{
    const Graph g = afterPasses(input, backend, settings);
    const std::string text = write(g, backend, settings);
    TorchairModule m = readBack(text, &g);
    EXPECT_EQ(m.backend, backend);
    expectSameGraph(g, m.graph);
    EXPECT_EQ(m.nodesWithoutMeta, 0);
    EXPECT_TRUE(view(backend, settings) == view(m.backend, m.settings)) << text;
    return m;
}

const char* kSmall = R"(class GraphModule(torch.nn.Module):
    def forward(
        self,
        arg0_1: "f16[8, 16][16, 1]npu:0",  # ParamAOTInput(target='linear.weight')
        arg1_1: "f16[4, 16][16, 1]npu:0",  # PlainAOTInput(idx=0)
        arg2_1: "f16[4, 8][8, 1]npu:0",  # PlainAOTInput(idx=1)
    ):
        # File: /home/user/model.py:12 in forward, code: y = self.linear(x)
        permute: "f16[16, 8][1, 16]npu:0" = torch.ops.aten.permute.default(arg0_1, [1, 0]);  arg0_1 = None
        mm: "f16[4, 8][8, 1]npu:0" = torch.ops.aten.mm.default(arg1_1, permute);  arg1_1 = permute = None
        copy_: "f16[4, 8][8, 1]npu:0" = torch.ops.aten.copy_.default(arg2_1, mm);  arg2_1 = None
        return (mm, copy_)
)";

Graph smallGraph(const std::string& id = "graph_2")
{
    auto r = readText(kSmall);
    Graph g = r.graphs.empty() ? Graph() : r.graphs[0];
    g.id = id;
    return g;
}

TEST(TorchairModuleWriter, SmallGraphRoundTripsInBothBackends)
{
    for (Backend b : { Backend::TorchAir, Backend::NpugraphEx }) {
        SCOPED_TRACE(config::backendName(b));
        TorchairModule m = roundTrip(smallGraph(), b, {});
        EXPECT_EQ(m.graph.id, "graph_2");
        EXPECT_EQ(m.cacheInfo.parameterUserInputs, (std::vector<int> { 0 }));
        EXPECT_EQ(m.cacheInfo.userInputsMapping,
            (std::vector<std::pair<std::string, int>> { { "arg1_1", 1 }, { "arg2_1", 2 } }));
        EXPECT_EQ(m.cacheInfo.mutatedUserInputs, (std::vector<std::string> { "arg2_1" }));
        // copy_ returns its first argument: output 1 aliases input 2.
        EXPECT_EQ(m.cacheInfo.userinputRefWithOutput, (std::map<int, std::vector<int>> { { 2, { 1 } } }));
        EXPECT_EQ(m.cacheInfo.fields.size(), 15u);
        EXPECT_EQ(node(m.graph, "permute").provenance,
            "# File: /home/user/model.py:12 in forward, code: y = "
            "self.linear(x)");
        EXPECT_EQ(freed(m.graph, "mm"), (std::vector<std::string> { "arg1_1", "permute" }));
    }
}

TEST(TorchairModuleWriter, TorchairTextsInTorchairsForm)
{
    const std::string text = write(
        smallGraph(), Backend::TorchAir, { { "experimental_config.frozen_parameter", PyValue::boolean(true) } });
    // normalize_config (fx2acl_converter.py:343-377): the nine local options, all strings, in order.
    EXPECT_NE(text.find("compile_configs = {}\n"
                        "compile_configs[\"disable_mempool_reuse_in_same_fx\"] = \"0\"\n"
                        "compile_configs[\"enable_output_clone\"] = \"0\"\n"
                        "compile_configs[\"static_capture_size_limit\"] = \"64\"\n"
                        "compile_configs[\"clone_input\"] = \"1\"\n"
                        "compile_configs[\"run_eagerly\"] = \"0\"\n"
                        "compile_configs[\"deadlock_check\"] = \"0\"\n"
                        "compile_configs[\"remove_noop_ops\"] = \"1\"\n"
                        "compile_configs[\"pattern_fusion_pass\"] = \"1\"\n"
                        "compile_configs[\"frozen_parameter\"] = \"1\"\n\n"
                        "acl_graph = AclGraph(fx_forward=forward, config=compile_configs)\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("def forward(*args, node_info=[], is_capturing: bool = False):\n"
                        "    arg0_1, arg1_1, arg2_1 = args\n"),
        std::string::npos);
    EXPECT_NE(text.find("    mm = torch.ops.aten.mm.default(arg1_1, permute);  arg1_1 = permute = None\n"),
        std::string::npos);
    EXPECT_NE(text.find("aclgraph_cache_info = AclGraphCacheInfo(\n    pool=None,\n    stream=torch.npu.Stream(),\n"
                        "    capture_error_mode=\"global\",\n    num_warmup_iters=0,\n"
                        "    fx_graph_name=\"graph_2\",\n"
                        "    user_inputs_mapping=OrderedDict([('arg1_1', 1), ('arg2_1', 2)]),\n"
                        "    unupdated_sym_input_index=[],\n    updated_ops_param={},\n    ops_update_rulers={},\n"
                        "    mutated_user_inputs=['arg2_1'],\n    tagged_event_names=[],\n"
                        "    parameter_user_inputs=[0],\n    user_stream_label=set(),\n    user_stream_info={},\n"
                        "    userinput_ref_with_output={2: [1]}\n)\nacl_graph.load(aclgraph_cache_info)\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("_is_first_run = True\ndef kernel(*args, **kwargs):\n\n    global _is_first_run\n"
                        "    if _is_first_run:\n        _is_first_run = False\n\n"
                        "        assert_size_stride(args[0], (8, 16), (16, 1))\n"
                        "        assert_size_stride(args[1], (4, 16), (16, 1))\n"
                        "        assert_size_stride(args[2], (4, 8), (8, 1))\n"
                        "    return acl_graph(*args, **kwargs)\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("    arg0_1 = rand_strided((8, 16),(16, 1),device ='npu:0',dtype =torch.float16)\n"),
        std::string::npos);
    EXPECT_NE(text.find("from torchair._acl_concrete_graph.acl_graph import AclGraph, AclGraphCacheInfo\n"),
        std::string::npos);
}

TEST(TorchairModuleWriter, NpugraphExKeepsBoolsAndItsPackage)
{
    const std::string text = write(smallGraph(), Backend::NpugraphEx,
        { { "capture_limit", PyValue::integer(8) }, { "capture_error_mode", PyValue::str("relaxed") } });
    EXPECT_NE(text.find("compile_configs[\"force_eager\"] = False\n"), std::string::npos) << text;
    EXPECT_NE(text.find("compile_configs[\"capture_limit\"] = \"8\"\n"), std::string::npos);
    EXPECT_NE(text.find("compile_configs[\"capture_error_mode\"] = \"relaxed\"\n"), std::string::npos);
    EXPECT_NE(text.find("    capture_error_mode=\"relaxed\",\n"), std::string::npos);
    EXPECT_NE(text.find("from npugraph_ex._acl_concrete_graph.acl_graph import AclGraph"), std::string::npos);
    EXPECT_EQ(text.find("torchair"), std::string::npos);
}

TEST(TorchairModuleWriter, PoolEagerAndPlaceholdersAreSaid)
{
    const Settings settings
        = { { "aclgraph_config.use_custom_pool", PyValue::tuple({ PyValue::integer(0), PyValue::integer(7) }) },
              { "debug.run_eagerly", PyValue::boolean(true) } };
    ModuleSpec spec;
    spec.backend = Backend::TorchAir;
    spec.settings = settings;
    auto w = writeTorchairModule(smallGraph("decode"), spec);
    ASSERT_TRUE(w.ok()) << w.error().toString();
    EXPECT_NE(w->text.find("    pool=(0, 7),\n"), std::string::npos);
    EXPECT_NE(w->text.find("compile_configs[\"sym_input_index\"] = \"[]\"\n"), std::string::npos) << w->text;
    // The id is not TorchAir's graph_<N>: the name is a placeholder, and the header says so.
    EXPECT_NE(w->text.find("fx_graph_name=\"graph_1\""), std::string::npos);
    ASSERT_FALSE(w->placeholders.empty());
    EXPECT_NE(w->text.find("# Placeholders"), std::string::npos);
    EXPECT_NE(w->text.find("#   - fx_graph_name=\"graph_1\""), std::string::npos);
    TorchairModule m = readBack(w->text, nullptr);
    EXPECT_TRUE(view(Backend::TorchAir, settings) == view(m.backend, m.settings));
    // Invalid settings are refused with TorchAir's message.
    spec.settings = { { "debug.aclgraph.static_capture_size_limit", PyValue::str("x") } };
    EXPECT_FALSE(writeTorchairModule(smallGraph(), spec).ok());
}

TEST(TorchairModuleWriter, ReplayUpdatedNodeWrittenWithItsCaptureBlocks)
{
    auto r = readText(R"PY(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "Sym(s0)", arg1_1: "bf16[s0, 2, 8][16, 8, 1]npu:0", arg2_1: "bf16[s0, 2, 8][16, 8, 1]npu:0"):
        empty: "bf16[s0, 2, 8][16, 8, 1]npu:0" = torch.ops.aten.empty.memory_format([arg0_1, 2, 8], dtype = torch.bfloat16, device = device(type='npu', index=0))
        out = torch.ops.npu.npu_fused_infer_attention_score.out(arg1_1, arg2_1, arg2_1, num_heads = 2, input_layout = 'BSH', actual_seq_lengths_kv = [arg0_1, 4], out = [empty]);  arg1_1 = None
        return (empty,)
)PY");
    ASSERT_EQ(r.graphs.size(), 1u);
    Graph g = r.graphs[0];
    g.id = "graph_3";
    const std::string text = write(g, Backend::NpugraphEx, {});
    EXPECT_NE(
        text.find("    if is_capturing:\n        external_event_out = torch.npu.ExternalEvent()\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("    out = torch.ops.npu.npu_fused_infer_attention_score.out(*(arg1_1, arg2_1, arg2_1), "
                        "**{'num_heads': 2, 'input_layout': 'BSH', 'actual_seq_lengths_kv': [arg0_1, 4], "
                        "'out': [empty]})\n"),
        std::string::npos);
    EXPECT_NE(text.find("    updated_ops_param={'out': ['actual_seq_lengths_kv'], 'arg_index_out': []},\n"
                        "    ops_update_rulers={'out': {'actual_seq_lengths_kv': [('index', 0), ('fixed', 4)]}},\n"),
        std::string::npos);
    EXPECT_NE(text.find("        arg0_1, arg1_1, arg2_1 = args\n        s0 = arg0_1\n"
                        "        assert_size_stride(args[1], (s0, 2, 8), (16, 8, 1))\n"),
        std::string::npos);
    EXPECT_NE(text.find("def main():\n    arg0_1 = 2\n    s0 = arg0_1\n"), std::string::npos);
    TorchairModule m = readBack(text, &g);
    expectSameGraph(g, m.graph);
    EXPECT_EQ(m.updatedNodes, (std::vector<std::string> { "out" }));
    // FX's own free list of the line (delete_unused_values), moved after the second block and put back.
    EXPECT_EQ(freed(m.graph, "out"), (std::vector<std::string> { "arg1_1", "arg2_1", "arg0_1", "out" }));
}

TEST(TorchairModuleWriter, RealStaticDecoderRoundTrips)
{
    const Graph g = readGraph(kRealFx + "tinydecoder_static__aten0.readable_strides.py");
    ASSERT_FALSE(g.nodes.empty());
    roundTrip(g, Backend::TorchAir, { { "experimental_config.frozen_parameter", PyValue::boolean(true) } });
    roundTrip(g, Backend::NpugraphEx, { { "clone_input", PyValue::boolean(false) } });
}

TEST(TorchairModuleWriter, RealReinplacedDecoderRoundTrips)
{
    const Graph g = readGraph(kRealFx + "tinydecoder_static__aten_reinplaced.readable_strides.py");
    ASSERT_FALSE(g.nodes.empty());
    roundTrip(g, Backend::TorchAir, {});
    roundTrip(g, Backend::NpugraphEx, { { "capture_limit", PyValue::integer(4) } });
}

TEST(TorchairModuleWriter, RealDynamicGraphKeepsOnePlaceholderPerSymbol)
{
    // Two inputs carry s33 (arg1_1, arg7_1): TorchAir's _all_sym_input_idx is a dict keyed by the
    // symbol, so kernel and main bind s33 from the later one only, and the earlier one has no
    // example in the module TorchAir writes: it comes back without a kind of its own.
    const Graph input = readGraph(kRealFx + "trace_dynamic_aot_inference_graph_0_1.txt");
    ASSERT_GE(input.find("arg7_1"), 0);
    for (Backend b : { Backend::TorchAir, Backend::NpugraphEx }) {
        SCOPED_TRACE(config::backendName(b));
        const Graph g = afterPasses(input, b, {});
        const std::string text = write(g, b, {});
        EXPECT_NE(text.find("        s33 = arg7_1\n"), std::string::npos) << text;
        EXPECT_EQ(text.find("s33 = arg1_1"), std::string::npos);
        EXPECT_NE(text.find("    arg7_1 = 9\n    s33 = arg7_1\n"), std::string::npos);
        TorchairModule m = readBack(text, &g);
        ASSERT_EQ(names(g), names(m.graph));
        EXPECT_EQ(node(m.graph, "arg7_1").inputKind, InputKind::SymInt);
        EXPECT_EQ(node(m.graph, "arg7_1").symbol.text(), "s33");
        EXPECT_NE(node(m.graph, "arg1_1").inputKind, InputKind::SymInt);
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            const Node& x = g.nodes[i];
            const Node& y = m.graph.nodes[i];
            if (x.name == "arg1_1")
                continue;
            SCOPED_TRACE(x.name);
            EXPECT_EQ(x.target, y.target);
            EXPECT_EQ(argsText(x), argsText(y));
            if (x.op == NodeOp::Placeholder && x.inputKind != InputKind::SymInt) {
                ASSERT_EQ(y.outputs.size(), 1u);
                EXPECT_TRUE(detail::equivalentMeta(x.outputs[0], y.outputs[0]));
            }
        }
    }
}

} // namespace
