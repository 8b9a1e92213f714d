// TorchAir's generated module (output_code.py / py_code): the forward with TorchAir's splices, the
// compile_configs, the AclGraphCacheInfo literal and main()'s example inputs.
#include "engine/core/file_io.h"
#include "engine/readers/torchair_module.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/load.h"
#include "fx_test_util.h"

#include <gtest/gtest.h>

namespace {

using namespace fxtest;

const std::string kDir = std::string(ACLGI_TEST_DATA_DIR) + "/torchair/";

TorchairModule readModule(const std::string& file, const Graph* annotated = nullptr)
{
    auto r = readTorchairModuleFile(kDir + file, annotated);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : TorchairModule();
}

std::vector<std::string> diagnostics(const TorchairModule& m)
{
    std::vector<std::string> out;
    for (const auto& d : m.diagnostics)
        out.push_back(d.toString());
    return out;
}

std::string settingText(const TorchairModule& m, const std::string& name)
{
    for (const auto& [k, v] : m.settings)
        if (k == name)
            return v.repr();
    return "(absent)";
}

bool hasDiagnostic(const TorchairModule& m, const std::string& part)
{
    for (const auto& d : m.diagnostics)
        if (d.message.find(part) != std::string::npos)
            return true;
    return false;
}

TEST(TorchairModule, StaticGraphInputsClassifiedFromCacheInfo)
{
    TorchairModule m = readModule("output_code_static.py");
    const Graph& g = m.graph;
    EXPECT_EQ(g.id, "graph_1");
    EXPECT_EQ(m.backend, config::Backend::TorchAir);
    ASSERT_EQ(g.placeholders().size(), 4u);
    EXPECT_EQ(node(g, "arg0_1").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "arg1_1").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "arg2_1").inputKind, InputKind::UserInput);
    EXPECT_EQ(node(g, "arg3_1").inputKind, InputKind::UserInput);
    // main()'s rand_strided gives shape, stride, device and dtype.
    EXPECT_EQ(outputsText(node(g, "arg0_1")), "f16[8, 16][16, 1]npu:0");
    EXPECT_EQ(outputsText(node(g, "arg1_1")), "f16[8][1]npu:0");
    EXPECT_EQ(node(g, "mm").target, "aten.mm.default");
    EXPECT_EQ(argsText(node(g, "mm")), "%arg2_1, %permute");
    EXPECT_EQ(freed(g, "mm"), (std::vector<std::string> { "arg2_1", "permute" }));
    EXPECT_NE(node(g, "permute").provenance.find("model.py:12"), std::string::npos);
    // TorchAir's own mutated_user_inputs are kept and win over the graph's own derivation.
    ASSERT_TRUE(g.recordedMutatedInputs.has_value());
    EXPECT_EQ(g.mutatedInputs(), (std::vector<std::string> { "arg3_1" }));
    EXPECT_EQ(m.cacheInfo.fxGraphName, "graph_1");
    EXPECT_EQ(
        m.cacheInfo.userInputsMapping, (std::vector<std::pair<std::string, int>> { { "arg2_1", 2 }, { "arg3_1", 3 } }));
    EXPECT_EQ(m.cacheInfo.parameterUserInputs, (std::vector<int> { 0, 1 }));
    EXPECT_EQ(m.cacheInfo.fields.size(), 15u);
    EXPECT_FALSE(m.cacheInfo.pool.has_value());
    // The forward prints no annotations: the four call nodes have no metadata, and a warning says so.
    EXPECT_EQ(m.nodesWithoutMeta, 4);
    EXPECT_TRUE(hasDiagnostic(m, "4 node(s) of the forward have no tensor metadata"));
}

TEST(TorchairModule, CompileConfigsBecomeTorchairSettings)
{
    TorchairModule m = readModule("output_code_static.py");
    ASSERT_EQ(m.compileConfigs.size(), 9u);
    EXPECT_EQ(m.compileConfigs[2], (std::pair<std::string, std::string> { "static_capture_size_limit", "64" }));
    EXPECT_EQ(settingText(m, "experimental_config.frozen_parameter"), "True");
    EXPECT_EQ(settingText(m, "debug.aclgraph.static_capture_size_limit"), "64");
    EXPECT_EQ(settingText(m, "debug.aclgraph.disable_mempool_reuse_in_same_fx"), "False");
    EXPECT_EQ(settingText(m, "debug.run_eagerly"), "False");
    auto opts = config::parseOptions(m.backend, m.settings);
    ASSERT_TRUE(opts.ok()) << opts.error().toString();
    EXPECT_TRUE(opts->frozenParameter);
    EXPECT_TRUE(opts->cloneInput);
    EXPECT_EQ(opts->captureLimit, 64);
}

TEST(TorchairModule, AnnotatedGraphFillsIntermediateMetadata)
{
    auto annotated = readText(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f16[8, 16][16, 1]npu:0", arg1_1: "f16[8][1]npu:0", arg2_1: "f16[4, 16][16, 1]npu:0", arg3_1: "f16[4, 8][8, 1]npu:0"):
        permute: "f16[16, 8][1, 16]npu:0" = torch.ops.aten.permute.default(arg0_1, [1, 0]);  arg0_1 = None
        mm: "f16[4, 8][8, 1]npu:0" = torch.ops.aten.mm.default(arg2_1, permute);  arg2_1 = permute = None
        add: "f32[4, 8][8, 1]npu:0" = torch.ops.aten.add.Tensor(mm, arg1_1);  mm = arg1_1 = None
        copy_: "f16[4, 8][8, 1]npu:0" = torch.ops.aten.copy_.default(arg3_1, add);  arg3_1 = copy_ = None
        return (add,)
)");
    ASSERT_EQ(annotated.graphs.size(), 1u);
    // `add` is changed to another target in the annotated graph: its metadata must not be taken.
    annotated.graphs[0].nodes[size_t(annotated.graphs[0].find("add"))].target = "aten.sub.Tensor";
    TorchairModule m = readModule("output_code_static.py", &annotated.graphs[0]);
    EXPECT_EQ(outputsText(node(m.graph, "mm")), "f16[4, 8][8, 1]npu:0");
    EXPECT_EQ(outputsText(node(m.graph, "permute")), "f16[16, 8][1, 16]npu:0");
    EXPECT_EQ(outputsText(node(m.graph, "add")), "");
    EXPECT_EQ(m.nodesWithoutMeta, 1);
}

TEST(TorchairModule, NpugraphExDynamicModuleWithTorchairSplices)
{
    TorchairModule m = readModule("output_code_dynamic_npugraph_ex.py");
    const Graph& g = m.graph;
    EXPECT_EQ(m.backend, config::Backend::NpugraphEx);
    EXPECT_EQ(g.id, "graph_3");
    // SymInt input from main(): `arg0_1 = 2` then `s0 = arg0_1`.
    EXPECT_EQ(node(g, "arg0_1").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(g, "arg0_1").symbol.text(), "s0");
    EXPECT_EQ(outputsText(node(g, "arg1_1")), "bf16[s0, 16][16, 1]npu:0");
    EXPECT_EQ(outputsText(node(g, "arg4_1")), "i64[s0][1]npu:0");
    EXPECT_EQ(node(g, "arg2_1").inputKind, InputKind::Parameter);
    EXPECT_EQ(node(g, "arg3_1").inputKind, InputKind::UserInput);
    // The replay-update node printed as f(*(args), **{kwargs}) is an ordinary call, its free list
    // (moved by TorchAir after the second `if is_capturing:` block) put back.
    const Node& fia = node(g, "npu_fused_infer_attention_score");
    EXPECT_EQ(fia.target, "npu.npu_fused_infer_attention_score.default");
    EXPECT_EQ(argsText(fia), "%view, %arg3_1, %arg3_1, num_heads=2, input_layout='BSH', actual_seq_lengths_kv=%arg4_1");
    EXPECT_EQ(freed(g, "npu_fused_infer_attention_score"), (std::vector<std::string> { "view", "arg3_1", "arg4_1" }));
    EXPECT_EQ(m.updatedNodes, (std::vector<std::string> { "npu_fused_infer_attention_score" }));
    // Nothing of the capture-only blocks became a node.
    EXPECT_EQ(g.find("external_event_npu_fused_infer_attention_score"), -1);
    EXPECT_EQ(g.find("node_args"), -1);
    // The event helper stands for the air.record node; the stream scope's body is read.
    EXPECT_EQ(node(g, "record").target, "air.record.default");
    EXPECT_EQ(node(g, "add").target, "aten.add.Tensor");
    // Tensor constants are FX get_attr nodes.
    EXPECT_EQ(node(g, "_tensor_constant0").op, NodeOp::GetAttr);
    EXPECT_EQ(m.tensorConstants, (std::vector<std::string> { "_tensor_constant0" }));
    EXPECT_TRUE(m.hasSerializedGraph);
    EXPECT_EQ(names(g).back(), "output");
    // The cache info literal, including a set and a dict of lists.
    ASSERT_TRUE(m.cacheInfo.pool.has_value());
    EXPECT_EQ(*m.cacheInfo.pool, (std::pair<uint64_t, uint64_t> { 0, 5 }));
    EXPECT_EQ(m.cacheInfo.userStreamLabel, (std::vector<std::string> { "side" }));
    EXPECT_EQ(m.cacheInfo.taggedEventNames, (std::vector<std::string> { "record" }));
    EXPECT_EQ(m.cacheInfo.unupdatedSymInputIndex, (std::vector<std::pair<int, bool>> { { 1, true } }));
    EXPECT_EQ(m.cacheInfo.userinputRefWithOutput, (std::map<int, std::vector<int>> { { 1, { 1 } } }));
    EXPECT_EQ(g.mutatedInputs(), std::vector<std::string> {});
    // npugraph_ex spellings, and the custom pool as use_graph_pool.
    EXPECT_EQ(settingText(m, "capture_limit"), "8");
    EXPECT_EQ(settingText(m, "clone_input"), "False");
    EXPECT_EQ(settingText(m, "use_graph_pool"), "(0, 5)");
    auto opts = config::parseOptions(m.backend, m.settings);
    ASSERT_TRUE(opts.ok()) << opts.error().toString();
    EXPECT_EQ(opts->captureLimit, 8);
    EXPECT_FALSE(opts->cloneInput);
    ASSERT_TRUE(opts->customPool.has_value());
    EXPECT_FALSE(opts->reuseInSameFx);
}

TEST(TorchairModule, DiagnosticsKeepTheFilesLineNumbers)
{
    std::string text = R"(from torchair._acl_concrete_graph.acl_graph import AclGraph, AclGraphCacheInfo

def forward(*args, node_info=[], is_capturing: bool = False):
    arg0_1, = args

    relu = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None
    this is not python
    return (relu,)


compile_configs = {}
compile_configs["clone_input"] = "1"
compile_configs["static_capture_size_limit"] = "many"
compile_configs["not_an_option"] = "1"

def main():
    arg0_1 = rand_strided((2, 2),(2, 1),device ='npu:0',dtype =torch.float32)
    return kernel(arg0_1)
)";
    auto r = readTorchairModule(text, "out.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    std::vector<std::string> d = diagnostics(*r);
    auto has = [&](const std::string& part) {
        for (const auto& s : d)
            if (s.find(part) != std::string::npos)
                return true;
        return false;
    };
    EXPECT_TRUE(has("out.py:7:")) << ::testing::PrintToString(d);
    EXPECT_TRUE(has("out.py:13:")) << ::testing::PrintToString(d);
    EXPECT_TRUE(has("\"many\" is not an int")) << ::testing::PrintToString(d);
    EXPECT_TRUE(has("out.py:14:")) << ::testing::PrintToString(d);
    EXPECT_TRUE(has("no AclGraphCacheInfo")) << ::testing::PrintToString(d);
    EXPECT_EQ(r->graph.id, "forward");
    EXPECT_EQ(outputsText(node(r->graph, "arg0_1")), "f32[2, 2][2, 1]npu:0");
    EXPECT_EQ(node(r->graph, "relu").target, "aten.relu.default");
}

TEST(TorchairModule, KernelAssertsGiveSizesWhenMainIsAbsent)
{
    std::string text = R"(def forward(*args, node_info=[], is_capturing: bool = False):
    arg0_1, arg1_1 = args
    mul = torch.ops.aten.mul.Tensor(arg1_1, arg0_1);  arg1_1 = arg0_1 = None
    return (mul,)

compile_configs = {}
acl_graph = AclGraph(fx_forward=forward, config=compile_configs)

_is_first_run = True
def kernel(*args, **kwargs):
    global _is_first_run
    if _is_first_run:
        _is_first_run = False
        arg0_1, arg1_1 = args
        s1 = arg0_1
        assert_size_stride(args[1], (s1, 4), (4, 1))
    return acl_graph(*args, **kwargs)
)";
    auto r = readTorchairModule(text, "k.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(node(r->graph, "arg0_1").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(r->graph, "arg0_1").symbol.text(), "s1");
    EXPECT_EQ(outputsText(node(r->graph, "arg1_1")), "unknown[s1, 4][4, 1]npu:0");
    bool warned = false;
    for (const auto& d : r->diagnostics)
        warned = warned || d.message.find("no main() gives the dtype") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(TorchairModule, NotAModuleIsAnError)
{
    auto r = readTorchairModule("import torch\nx = 1\n", "x.py");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("x.py:1:1"), std::string::npos) << r.error().toString();
    EXPECT_FALSE(looksLikeTorchairModule("class GraphModule(torch.nn.Module):\n    def forward(self, x):\n"));
    EXPECT_TRUE(looksLikeTorchairModule(
        "def forward(*args, node_info=[], is_capturing: bool = False):\n    pass\ncompile_configs = {}\n"));
}

TEST(TorchairModule, TruncatedModulesNeverCrash)
{
    auto text = readTextFile(kDir + "output_code_dynamic_npugraph_ex.py", 1 << 20, "t");
    ASSERT_TRUE(text.ok());
    // Every prefix: an error or a graph, never a crash (ASan/UBSan build checks the rest).
    for (size_t n = 0; n < text->size(); n += 7)
        (void)readTorchairModule(std::string_view(*text).substr(0, n), "t.py");
}

TEST(TorchairModule, ReadFxFileSniffsTheModuleAndSimulateRunsIt)
{
    auto r = readFxFile(kDir + "output_code_static.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->graphs.size(), 1u);
    EXPECT_EQ(r->graphs[0].id, "graph_1");

    auto s = scenario::loadScenarioOrGraph(kDir + "output_code_dynamic_npugraph_ex.py", { { "s0", 4 } }, 3);
    ASSERT_TRUE(s.ok()) << s.error().toString();
    ASSERT_TRUE(s->backend.has_value());
    EXPECT_EQ(*s->backend, config::Backend::NpugraphEx);
    auto sim = runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    EXPECT_EQ(sim->options.captureLimit, 8);
    ASSERT_TRUE(sim->options.customPool.has_value());
    ASSERT_EQ(sim->calls.size(), 3u);
    EXPECT_EQ(sim->calls[0].action, runtime::CallAction::Capture);
    EXPECT_EQ(sim->calls[1].action, runtime::CallAction::Replay);
}

} // namespace
