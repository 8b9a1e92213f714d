// readDebugDir (engine/readers/debug_dir.h) on the hand-written TORCH_COMPILE_DEBUG tree in
// tests/data/debug_dir/ and on trees made in a temporary folder (ranks, limits, symlink loops).
#include "engine/graph/graph_diff.h"
#include "engine/readers/debug_dir.h"

#include <filesystem>
#ifndef _WIN32
#include <sys/stat.h>
#endif
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace engine;
using namespace engine::readers;
namespace fs = std::filesystem;

namespace {

const std::string kRun
    = std::string(ACLGI_TEST_DATA_DIR) + "/debug_dir/torch_compile_debug/run_2026_11_22_10_00_00_000000-pid_4242";
const std::string kTorchair = kRun + "/torchair";
const std::string kModel0 = kTorchair + "/model__0";
const std::string kForward0 = kModel0 + "/forward";

DebugDir readOk(const std::string& path)
{
    auto r = readDebugDir(path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : DebugDir();
}

const DebugGroup* group(const DebugDir& d, const std::string& label)
{
    for (const DebugGroup& g : d.groups)
        if (g.label() == label)
            return &g;
    ADD_FAILURE() << "no group " << label;
    return nullptr;
}

std::vector<std::string> stageList(const DebugGroup& g)
{
    std::vector<std::string> out;
    for (const DebugStage& s : g.stages)
        out.push_back((s.preAot ? std::string("pre") : std::to_string(s.number)) + " " + s.pass
            + (s.ourPass.empty() ? "" : " [" + s.ourPass + "]"));
    return out;
}

const std::vector<std::string> kModel0Stages = { "pre dynamo_out_graph", "0 aot_forward_graph",
    "2 optimize_noop_ops [remove_noop_ops]", "5 view_to_reshape [view_to_reshape]", "7 aot_forward_original_ge_graph",
    "11 reinplace_inplaceable_ops_pass [reinplace_inplaceable_ops_pass]" };

// A fresh folder under the system's temporary directory, removed at the end of the test.
class TempDir {
public:
    TempDir()
    {
        std::random_device rd;
        m_path = fs::temp_directory_path() / ("aclgi_debug_dir_" + std::to_string(rd()) + std::to_string(rd()));
        fs::create_directories(m_path);
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
};

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

const char* kTinyGraph = "class GraphModule(torch.nn.Module):\n"
                         "    def forward(self, arg0_1: \"f32[4][1]npu:0\"):\n"
                         "        relu: \"f32[4][1]npu:0\" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None\n"
                         "        return (relu,)\n";

TEST(DebugDir, StageFileNamesAndPassNames)
{
    EXPECT_TRUE(isStageFileName("000_aot_forward_graph.txt"));
    EXPECT_TRUE(isStageFileName("007_aot_forward_original_ge_graph.pbtxt"));
    EXPECT_FALSE(isStageFileName("output_code.py"));
    EXPECT_FALSE(isStageFileName("dynamo_out_graph.txt"));
    EXPECT_FALSE(isStageFileName("00_x.txt"));
    EXPECT_FALSE(isStageFileName("0000_x.txt"));
    EXPECT_FALSE(isStageFileName("000_.txt"));
    EXPECT_FALSE(isStageFileName("000_x.txt.bak"));
    EXPECT_EQ(stagePassName("000_aot_forward_graph.txt"), "aot_forward_graph");
    EXPECT_EQ(stagePassName("001_aot_forward_graph_after_post_grad_custom_pre_pass.txt"), "post_grad_custom_pre_pass");
    EXPECT_EQ(stagePassName("002_aot_forward_graph_after_optimize_noop_ops.txt"), "optimize_noop_ops");
    EXPECT_EQ(
        stagePassName("012_aot_backward_graph_after_reinplace_input_mutated_ops.txt"), "reinplace_input_mutated_ops");
    EXPECT_EQ(stagePassName("007_aot_forward_original_ge_graph.pbtxt"), "aot_forward_original_ge_graph");
}

TEST(DebugDir, RunFolderGivesEveryModelSortedWithGaps)
{
    const DebugDir d = readOk(kRun);
    ASSERT_EQ(d.groups.size(), 2u);
    EXPECT_EQ(d.groups[0].label(), "model__0/forward");
    EXPECT_EQ(d.groups[1].label(), "model__1/forward");
    const DebugGroup& g = d.groups[0];
    EXPECT_EQ(g.model, "model__0");
    EXPECT_EQ(g.phase, "forward");
    EXPECT_EQ(g.backend, "torchair");
    EXPECT_EQ(g.run, "run_2026_11_22_10_00_00_000000-pid_4242");
    EXPECT_FALSE(g.rank.has_value());
    EXPECT_EQ(stageList(g), kModel0Stages);
    // output_code.py is read with the last pass dump's annotations: every node gets metadata.
    EXPECT_EQ(g.outputCode, kForward0 + "/output_code.py");
    EXPECT_TRUE(g.diagnostics.empty());
    ASSERT_TRUE(g.module.has_value());
    EXPECT_EQ(g.module->graph.id, "graph_1");
    EXPECT_EQ(g.module->nodesWithoutMeta, 0);
    EXPECT_EQ(g.module->graph.nodes[size_t(g.module->graph.find("mm"))].outputs.size(), 1u);
    EXPECT_EQ(g.module->graph.nodes[size_t(g.module->graph.find("arg0_1"))].inputKind, InputKind::Parameter);
    EXPECT_TRUE(d.groups[1].outputCode.empty());

    // dynamo_out_graph.txt comes from the model folder, with Dynamo's names.
    const DebugStage& pre = g.stages[0];
    EXPECT_TRUE(pre.preAot);
    EXPECT_EQ(pre.path, kModel0 + "/dynamo_out_graph.txt");
    ASSERT_TRUE(pre.readable());
    EXPECT_GE(pre.graph->find("l_x_"), 0);

    for (size_t i : { 1, 2, 3, 5 }) {
        EXPECT_TRUE(g.stages[i].readable()) << g.stages[i].file;
        EXPECT_FALSE(g.stages[i].error.has_value()) << g.stages[i].file;
        EXPECT_EQ(g.stages[i].graph->nodes.size(), i == 1 ? 9u : 8u) << g.stages[i].file;
    }
    EXPECT_EQ(g.stages[3].file, "005_aot_forward_graph_after_view_to_reshape.txt");
    EXPECT_EQ(g.stages[3].path, kForward0 + "/005_aot_forward_graph_after_view_to_reshape.txt");
    EXPECT_EQ(g.previousReadable(5), 3); // 007 (GE) is skipped
    EXPECT_EQ(g.previousReadable(1), -1); // the pre-AOT graph is not a predecessor
}

TEST(DebugDir, GeGraphIsNotedNotRead)
{
    const DebugDir d = readOk(kForward0);
    ASSERT_EQ(d.groups.size(), 1u);
    const DebugStage& ge = d.groups[0].stages[4];
    EXPECT_EQ(ge.file, "007_aot_forward_original_ge_graph.pbtxt");
    EXPECT_EQ(ge.kind, DebugStage::Kind::GeGraph);
    EXPECT_FALSE(ge.readable());
    EXPECT_FALSE(ge.error.has_value());
    EXPECT_EQ(ge.note, "not read: GE graph (protobuf text)");
}

TEST(DebugDir, EveryEntryLevelFindsTheSameStages)
{
    for (const std::string& path : { kTorchair, kModel0, kForward0, kForward0 + "/" }) {
        SCOPED_TRACE(path);
        const DebugDir d = readOk(path);
        EXPECT_EQ(d.path, path);
        const DebugGroup* g = group(d, "model__0/forward");
        ASSERT_NE(g, nullptr);
        EXPECT_EQ(stageList(*g), kModel0Stages);
        EXPECT_EQ(g->backend, "torchair");
        EXPECT_EQ(d.groups.size(), path == kTorchair ? 2u : 1u);
    }
}

TEST(DebugDir, BrokenStageKeepsItsErrorAndTheOthers)
{
    const DebugDir d = readOk(kTorchair);
    const DebugGroup* g = group(d, "model__1/forward");
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(g->stages.size(), 2u); // no dynamo_out_graph.txt in model__1
    EXPECT_TRUE(g->stages[0].readable());
    const DebugStage& broken = g->stages[1];
    EXPECT_EQ(broken.number, 2);
    EXPECT_EQ(broken.ourPass, "remove_noop_ops");
    EXPECT_FALSE(broken.readable());
    ASSERT_TRUE(broken.error.has_value());
    EXPECT_EQ(broken.error->context, broken.path + ":5:9");
    EXPECT_NE(broken.error->message.find("ends without a return statement"), std::string::npos)
        << broken.error->message;
    EXPECT_EQ(g->previousReadable(2), 0);
}

TEST(DebugDir, FolderErrors)
{
    auto missing = readDebugDir(kRun + "/no_such_folder");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
    EXPECT_EQ(missing.error().context, kRun + "/no_such_folder");

    auto file = readDebugDir(kForward0 + "/000_aot_forward_graph.txt");
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(file.error().message.find("not a folder"), std::string::npos);

    TempDir tmp;
    writeFile(tmp.path() / "torchair" / "debug.log", "nothing here\n");
    writeFile(tmp.path() / "torchair" / "model__0" / "forward" / "output_code.py", "pass\n");
    auto empty = readDebugDir(tmp.path().string());
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.error().code, ErrorCode::NotFound);
    EXPECT_NE(empty.error().message.find("NNN_*.txt or NNN_*.pbtxt"), std::string::npos) << empty.error().message;
}

TEST(DebugDir, SymlinkLoopIsNotFollowed)
{
    TempDir tmp;
    const fs::path forward = tmp.path() / "npugraph_ex" / "model__0" / "forward";
    writeFile(forward / "000_aot_forward_graph.txt", kTinyGraph);
    std::error_code ec;
    fs::create_directory_symlink(tmp.path(), forward / "loop", ec); // back to the top: a cycle
    if (ec)
        GTEST_SKIP() << "cannot create a symlink here: " << ec.message();
    fs::create_symlink(forward / "000_aot_forward_graph.txt", forward / "001_aot_forward_graph_after_x.txt", ec);
    const DebugDir d = readOk(tmp.path().string());
    ASSERT_EQ(d.groups.size(), 1u);
    EXPECT_EQ(d.groups[0].backend, "npugraph_ex");
    // A link to a file is read like the file; the link to a directory is not entered.
    EXPECT_EQ(stageList(d.groups[0]), (std::vector<std::string> { "0 aot_forward_graph", "1 x" }));
    EXPECT_TRUE(d.diagnostics.empty());
}

TEST(DebugDir, RankBackendAndBackwardFromThePath)
{
    TempDir tmp;
    const fs::path model
        = tmp.path() / "torch_compile_debug" / "run_2026_01_01-pid_7-rank_3" / "npugraph_ex" / "model__2";
    writeFile(model / "dynamo_out_graph.txt", kTinyGraph);
    writeFile(model / "forward" / "000_aot_forward_graph.txt", kTinyGraph);
    writeFile(model / "backward" / "000_aot_backward_graph.txt", kTinyGraph);
    writeFile(model / "backward" / "010_aot_backward_graph_after_eliminate_dead_code.txt", kTinyGraph);
    const DebugDir d = readOk((tmp.path() / "torch_compile_debug").string());
    ASSERT_EQ(d.groups.size(), 2u);
    const DebugGroup* fw = group(d, "model__2/forward");
    const DebugGroup* bw = group(d, "model__2/backward");
    ASSERT_TRUE(fw && bw);
    EXPECT_EQ(fw->backend, "npugraph_ex");
    ASSERT_TRUE(fw->rank.has_value());
    EXPECT_EQ(*fw->rank, 3);
    EXPECT_EQ(fw->run, "run_2026_01_01-pid_7-rank_3");
    EXPECT_EQ(stageList(*fw), (std::vector<std::string> { "pre dynamo_out_graph", "0 aot_forward_graph" }));
    // The backward gets no pre-AOT stage: Dynamo's graph is what the forward starts from.
    EXPECT_EQ(stageList(*bw),
        (std::vector<std::string> { "0 aot_backward_graph", "10 eliminate_dead_code [eliminate_dead_code]" }));
}

TEST(DebugDir, DepthIsBounded)
{
    TempDir tmp;
    fs::path deep = tmp.path();
    for (int i = 0; i < kDebugDirMaxDepth + 1; ++i)
        deep /= "d" + std::to_string(i);
    writeFile(deep / "000_aot_forward_graph.txt", kTinyGraph);
    writeFile(tmp.path() / "d0" / "000_aot_forward_graph.txt", kTinyGraph);
    const DebugDir d = readOk(tmp.path().string());
    ASSERT_EQ(d.groups.size(), 1u);
    EXPECT_EQ(d.groups[0].phase, "d0");
    ASSERT_EQ(d.diagnostics.size(), 1u);
    EXPECT_NE(d.diagnostics[0].message.find("deeper than 8 levels"), std::string::npos) << d.diagnostics[0].message;
}

TEST(DebugDir, OutputCodeIsRecordedAndItsErrorKept)
{
    TempDir tmp;
    const fs::path forward = tmp.path() / "torchair" / "model__0" / "forward";
    writeFile(forward / "000_aot_forward_graph.txt", kTinyGraph);
    writeFile(forward / "output_code.py", "this is not TorchAir's generated module\n");
    const DebugDir d = readOk(forward.string());
    ASSERT_EQ(d.groups.size(), 1u);
    const DebugGroup& g = d.groups[0];
    EXPECT_EQ(g.outputCode, (forward / "output_code.py").string());
    EXPECT_FALSE(g.module.has_value());
    ASSERT_EQ(g.diagnostics.size(), 1u);
    EXPECT_EQ(g.diagnostics[0].severity, Diagnostic::Severity::Error);
    EXPECT_EQ(g.diagnostics[0].file, g.outputCode);
    EXPECT_TRUE(g.stages[0].readable()); // the stages are read all the same
}

TEST(DebugDir, ConsecutiveStagesDiffAsThePassesDid)
{
    const DebugDir d = readOk(kForward0);
    const DebugGroup& g = d.groups[0];
    auto diff = [&](size_t a, size_t b) { return diffGraphs(*g.stages[a].graph, *g.stages[b].graph); };
    const GraphDiff noop = diff(1, 2);
    EXPECT_EQ(noop.removed, (std::vector<std::string> { "view" }));
    ASSERT_EQ(noop.changed.size(), 1u);
    EXPECT_EQ(noop.changed[0].text(), "mm: args (view, arg0_1) -> (arg1_1, arg0_1)");
    const GraphDiff reshape = diff(2, 3);
    ASSERT_EQ(reshape.changed.size(), 1u);
    EXPECT_EQ(reshape.changed[0].text(), "view_1: target aten.view.default -> aten.reshape.default");
    const GraphDiff reinplace = diff(3, 5);
    ASSERT_EQ(reinplace.changed.size(), 2u);
    EXPECT_EQ(reinplace.changed[0].text(), "add: target aten.add.Tensor -> aten.add_.Tensor");
    EXPECT_EQ(reinplace.changed[1].text(), "view_1: args (add, [2, 16]) -> (mul, [2, 16])");
}

} // namespace

// PyTorch 2.x's own layout: the real run in tests/data/real/inductor/ (README.md there says where it
// came from and how the expected numbers were counted).
namespace {

const std::string kRealRun
    = std::string(ACLGI_TEST_DATA_DIR) + "/real/inductor/torch_compile_debug/run_2026_11_26_08_52_02_717226-pid_457";
const std::string kRealInductor = kRealRun + "/torchinductor";
const std::string kRealModel0 = kRealInductor + "/model__0_inference_0.0";

} // namespace

TEST(DebugDir, InductorFolderNames)
{
    int aot = -1, nth = -1, counter = -1;
    std::string graph;
    ASSERT_TRUE(parseInductorFolderName("model__0_inference_0.0", &aot, &graph, &nth, &counter));
    EXPECT_EQ(aot, 0);
    EXPECT_EQ(graph, "inference");
    EXPECT_EQ(nth, 0);
    EXPECT_EQ(counter, 0);
    ASSERT_TRUE(parseInductorFolderName("model__12_forward_30.7", &aot, &graph, &nth, &counter));
    EXPECT_EQ(aot, 12);
    EXPECT_EQ(graph, "forward");
    EXPECT_EQ(nth, 30);
    EXPECT_EQ(counter, 7);
    for (const char* bad : { "model__0", "model__0_inference_0", "model__x_inference_0.0", "model__0__0.0",
             "model__0_inference_0.", "forward", "model__0_inference_0.0a" })
        EXPECT_FALSE(parseInductorFolderName(bad)) << bad;
}

TEST(DebugDir, InductorRunFolderGivesThreeModels)
{
    for (const std::string& entry : { kRealRun, kRealInductor, kRealRun + "/" }) {
        const DebugDir d = readOk(entry);
        ASSERT_EQ(d.groups.size(), 3u) << entry;
        std::vector<std::string> labels;
        for (const DebugGroup& g : d.groups) {
            labels.push_back(g.label());
            EXPECT_EQ(g.layout, DebugLayout::Inductor);
            EXPECT_EQ(g.backend, "inductor");
            EXPECT_EQ(g.run, "run_2026_11_26_08_52_02_717226-pid_457");
            ASSERT_EQ(g.stages.size(), 2u);
            EXPECT_TRUE(g.stages[0].readable()) << (g.stages[0].error ? g.stages[0].error->toString() : "");
            EXPECT_TRUE(g.stages[1].readable()) << (g.stages[1].error ? g.stages[1].error->toString() : "");
            EXPECT_TRUE(g.inductorCode.has_value());
            EXPECT_FALSE(g.module.has_value());
            EXPECT_TRUE(g.runnable.has_value());
            EXPECT_TRUE(g.diagnostics.empty()) << g.diagnostics[0].toString();
        }
        EXPECT_EQ(
            labels, (std::vector<std::string> { "model__0/inference", "model__1/inference", "model__2/inference" }));
        EXPECT_EQ(d.groups[1].aotId, 1);
        EXPECT_EQ(d.groups[1].nthGraph, 1);
        EXPECT_EQ(d.groups[1].debugCounter, 1);
        if (entry != kRealInductor) {
            // torchdynamo/debug.log and the three (empty) aot_model___N_debug.log
            ASSERT_EQ(d.logs.size(), 4u);
            EXPECT_EQ(d.logs[0].name, "debug.log");
            EXPECT_EQ(d.logs[0].bytes, 21348u);
            EXPECT_EQ(d.logs[1].name, "aot_model___0_debug.log");
        }
    }
}

TEST(DebugDir, InductorModelFolderStagesAndRunnableMetadata)
{
    const DebugDir d = readOk(kRealModel0);
    ASSERT_EQ(d.groups.size(), 1u);
    const DebugGroup& g = d.groups[0];
    EXPECT_EQ(g.label(), "model__0/inference");
    EXPECT_EQ(stageList(g), (std::vector<std::string> { "0 fx_graph_readable", "1 fx_graph_transformed" }));
    ASSERT_TRUE(g.stages[0].readable() && g.stages[1].readable());
    // Node counts (python3 count: 27 parameters + assignment lines + output).
    EXPECT_EQ(g.stages[0].graph->nodes.size(), 209u);
    EXPECT_EQ(g.stages[1].graph->nodes.size(), 207u);
    EXPECT_EQ(g.previousReadable(1), 0);
    // fx_graph_readable.py prints "f32[1024, 256]": device and strides come from load_args.
    const Graph& readable = *g.stages[0].graph;
    const Node& arg1 = readable.nodes[readable.find("arg1_1")];
    ASSERT_EQ(arg1.outputs.size(), 1u);
    EXPECT_EQ(arg1.outputs[0].device, "cuda:0");
    EXPECT_EQ(arg1.outputs[0].dtype, DType::I64);
    ASSERT_EQ(arg1.outputs[0].stride.size(), 2u);
    EXPECT_EQ(arg1.outputs[0].stride[0].text(), "16");
    for (const Node& n : readable.nodes)
        for (const TensorMeta& m : n.outputs)
            EXPECT_EQ(m.device, "cuda:0") << n.name;
    EXPECT_NE(g.stages[0].note.find("27 inputs"), std::string::npos) << g.stages[0].note;
    // The diff between the two stages works (the post-grad passes removed two nodes).
    const GraphDiff diff = diffGraphs(*g.stages[0].graph, *g.stages[1].graph);
    EXPECT_EQ(diff.nodesBefore, 209);
    EXPECT_EQ(diff.nodesAfter, 207);
    EXPECT_FALSE(diff.identical());
    // The other files are texts, read on demand.
    std::vector<std::string> names;
    for (const DebugText& t : g.texts)
        names.push_back(t.name);
    EXPECT_EQ(names,
        (std::vector<std::string> {
            "inductor_provenance_tracking_node_mappings.json", "ir_post_fusion.txt", "ir_pre_fusion.txt" }));
    auto text = readDebugText(g.texts[1], 100);
    ASSERT_TRUE(text.ok()) << text.error().toString();
    EXPECT_EQ(text->text.size(), 100u);
    EXPECT_TRUE(text->truncated);
    auto whole = readDebugText(g.texts[1]);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->text.size(), 67288u);
    EXPECT_FALSE(whole->truncated);
    ASSERT_TRUE(g.inductorCode.has_value());
    EXPECT_EQ(g.inductorCode->summary.kernels, 9u);
}

TEST(DebugDir, InductorHostileFolders)
{
    TempDir tmp;
    const fs::path model = tmp.path() / "torchinductor" / "model__0_inference_0.0";
    writeFile(model / "fx_graph_readable.py", kTinyGraph);
#ifndef _WIN32
    // A FIFO named output_code.py would block a reader forever: only regular files are read.
    const std::string fifo = (model / "output_code.py").string();
    if (mkfifo(fifo.c_str(), 0600) != 0)
        GTEST_SKIP() << "cannot make a FIFO here";
    const fs::path lonely = tmp.path() / "torchinductor" / "model__1_inference_1.1";
    fs::create_directories(lonely);
    const std::string fifo2 = (lonely / "output_code.py").string();
    ASSERT_EQ(mkfifo(fifo2.c_str(), 0600), 0);
#endif
    writeFile(model / "fx_graph_runnable.py", "def load_args(reader):\n    garbage here\n");
    const DebugDir d = readOk(tmp.path().string());
    ASSERT_EQ(d.groups.size(), 1u); // the folder holding only a FIFO is no group
    const DebugGroup& g = d.groups[0];
    EXPECT_TRUE(g.outputCode.empty());
    EXPECT_FALSE(g.inductorCode.has_value());
    ASSERT_TRUE(g.runnable.has_value());
    EXPECT_FALSE(g.runnable->diagnostics.empty());
    EXPECT_EQ(stageList(g), (std::vector<std::string> { "0 fx_graph_readable" }));
    EXPECT_TRUE(g.stages[0].readable());
    for (const DebugText& t : g.texts)
        EXPECT_NE(t.name, "output_code.py");
    DebugText fifoText { "output_code.py", (model / "output_code.py").string(), 0 };
    EXPECT_FALSE(readDebugText(fifoText).ok());

    // Deep nesting: the Inductor folder below the depth limit is not looked at, and the error says
    // what was looked for in both layouts.
    TempDir deepTmp;
    fs::path deep = deepTmp.path();
    for (int i = 0; i < kDebugDirMaxDepth + 1; ++i)
        deep /= "d" + std::to_string(i);
    writeFile(deep / "model__0_inference_0.0" / "output_code.py", "# AOT ID: ['0_inference']\n");
    auto none = readDebugDir(deepTmp.path().string());
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message.find("fx_graph_readable.py"), std::string::npos) << none.error().message;
    EXPECT_NE(none.error().message.find("NNN_*.txt"), std::string::npos) << none.error().message;
}

TEST(DebugDir, OutputCodeIsToldByContent)
{
    // TorchAir's folder holding Inductor's module (same file name): read as Inductor's.
    TempDir tmp;
    const fs::path forward = tmp.path() / "torchair" / "model__0" / "forward";
    writeFile(forward / "000_aot_forward_graph.txt", kTinyGraph);
    writeFile(forward / "output_code.py",
        "# AOT ID: ['0_inference']\n"
        "def call(args):\n"
        "    arg0_1, = args\n"
        "    assert_size_stride(arg0_1, (4, ), (1, ))\n"
        "    buf0 = empty_strided_cpu((4, ), (1, ), torch.float32)\n"
        "    return (buf0, )\n");
    const DebugDir d = readOk(forward.string());
    ASSERT_EQ(d.groups.size(), 1u);
    const DebugGroup& g = d.groups[0];
    EXPECT_EQ(g.layout, DebugLayout::TorchAir);
    EXPECT_FALSE(g.module.has_value());
    ASSERT_TRUE(g.inductorCode.has_value());
    EXPECT_EQ(g.inductorCode->summary.allocatedBytes, 16u);
    EXPECT_TRUE(g.diagnostics.empty());
}
