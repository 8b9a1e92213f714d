// engine/ingest: which kind of input a path is (with its evidence), folders of several kinds, and
// TORCH_TRACE compile ids as groups of stages whose inputs get their kinds from the trace. The real
// files are under tests/data/real (README there); expected values were read off the files by hand
// (the Dynamo graphs' placeholder names, fw_metadata's static_input_indices).
#include "engine/ingest/source.h"
#include "engine/ingest/trace_groups.h"
#include "engine/readers/inductor_code.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/load.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace engine;
using namespace engine::ingest;
namespace fs = std::filesystem;

namespace {

const std::string kData = ACLGI_TEST_DATA_DIR;
const std::string kReal = kData + "/real";

class IngestTmp : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path()
            / ("aclgi_ingest_" + std::to_string(::getpid()) + "_"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string write(const std::string& rel, const std::string& bytes)
    {
        const fs::path p = m_dir / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << bytes;
        return p.string();
    }
    fs::path m_dir;
};

SourceKind kindOf(const std::string& path)
{
    auto d = detectSource(path);
    EXPECT_TRUE(d.ok()) << path << ": " << (d.ok() ? "" : d.error().toString());
    EXPECT_TRUE(!d.ok() || !d->evidence.empty()) << path << ": no evidence given";
    return d.ok() ? d->kind : SourceKind::Folder;
}

} // namespace

TEST(IngestDetect, KindsOfTheFilesUsersBring)
{
    EXPECT_EQ(kindOf(kData + "/fx/print_readable_simple.py"), SourceKind::FxGraph);
    EXPECT_EQ(kindOf(kData + "/fx/print_graph_dump.txt"), SourceKind::FxGraph);
    EXPECT_EQ(kindOf(kData + "/scenarios/decode_basic.json"), SourceKind::Scenario);
    EXPECT_EQ(kindOf(kData + "/torchair/output_code_static.py"), SourceKind::TorchairModule);
    EXPECT_EQ(kindOf(kData + "/debug_dir/torch_compile_debug"), SourceKind::DebugDir);
    EXPECT_EQ(kindOf(kData + "/cache/torchair_cache"), SourceKind::CacheDir);
    EXPECT_EQ(kindOf(kReal + "/snapshots/a_default.pickle"), SourceKind::MemorySnapshot);
    EXPECT_EQ(kindOf(kReal + "/compile/c_trace.log"), SourceKind::TorchTrace);
    EXPECT_EQ(kindOf(kReal + "/trace/two_functions.log"), SourceKind::TorchTrace);
    // A folder of rank logs (and their README) is one trace source.
    EXPECT_EQ(kindOf(kReal + "/trace/ranks"), SourceKind::TorchTrace);
    EXPECT_EQ(kindOf(kReal + "/trace"), SourceKind::TorchTrace);
}

TEST(IngestDetect, InductorOutputCodeIsToldFromTorchairsModule)
{
    EXPECT_TRUE(readers::inductor::looksLikeInductorOutputCode("# AOT ID: ['0_inference']\nfrom ctypes import c_void_p\n"
                                            "from torch._inductor.hooks import run_intermediate_hooks\n"));
    EXPECT_FALSE(readers::inductor::looksLikeInductorOutputCode("import torch\nclass GraphModule(torch.nn.Module):\n"));
    std::ifstream in(kData + "/torchair/output_code_static.py");
    std::string torchair((std::istreambuf_iterator<char>(in)), {});
    EXPECT_FALSE(readers::inductor::looksLikeInductorOutputCode(torchair));
}

TEST_F(IngestTmp, BadInputsNameThePathAndThePlace)
{
    auto missing = detectSource((m_dir / "nope.py").string());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().context, (m_dir / "nope.py").string());
    auto empty = detectSource(write("empty.py", ""));
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
    auto binary = detectSource(write("blob.bin", std::string("PK\x03\x04\0\0", 6)));
    ASSERT_FALSE(binary.ok());
    EXPECT_NE(binary.error().message.find("offset 4"), std::string::npos) << binary.error().message;
    // A FIFO is refused without being opened (opening it would block).
    const std::string fifo = (m_dir / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto f = detectSource(fifo);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().message, "a FIFO (named pipe) is not read; aclgraph-inspector reads regular files and folders");
    EXPECT_EQ(f.error().context, fifo);
    write("only/notes.md", "# notes\n");
    EXPECT_FALSE(detectSource((m_dir / "only").string()).ok());
}

TEST_F(IngestTmp, AFolderOfSeveralKindsListsEachMember)
{
    std::ifstream fx(kData + "/fx/print_readable_simple.py");
    write("graphs/model.py", std::string((std::istreambuf_iterator<char>(fx)), {}));
    fs::copy_file(kData + "/scenarios/decode_basic.json", m_dir / "decode.json");
    fs::copy(kReal + "/trace/ranks", m_dir / "trace_ranks", fs::copy_options::recursive);
    write("notes.md", "# what I ran\n");
    auto c = examineFolder(m_dir.string());
    ASSERT_TRUE(c.ok()) << c.error().toString();
    EXPECT_EQ(c->detected.kind, SourceKind::Folder);
    ASSERT_EQ(c->members.size(), 3u);
    EXPECT_EQ(c->members[0].detected.kind, SourceKind::Scenario); // decode.json
    EXPECT_EQ(c->members[1].detected.kind, SourceKind::FxGraph); // graphs/model.py
    EXPECT_EQ(c->members[2].detected.kind, SourceKind::TorchTrace); // trace_ranks/ as one source
    ASSERT_EQ(c->skipped.size(), 1u);
    EXPECT_NE(c->skipped[0].find("notes.md"), std::string::npos);
}

TEST(IngestTrace, CompileIdsBecomeGroupsWithTheirStages)
{
    auto traces = readers::trace::readTorchTraceDir(kReal + "/compile/c_trace.log");
    ASSERT_TRUE(traces.ok()) << traces.error().toString();
    const readers::DebugDir dir = traceGraphGroups(*traces);
    ASSERT_EQ(dir.groups.size(), 3u);
    const char* labels[] = { "0/0/inference", "0/1/inference", "0/2/inference" };
    for (size_t i = 0; i < 3; ++i) {
        const readers::DebugGroup& g = dir.groups[i];
        EXPECT_EQ(g.label(), labels[i]);
        ASSERT_EQ(g.stages.size(), 3u) << g.label();
        EXPECT_EQ(g.stages[0].pass, "dynamo_output_graph");
        EXPECT_TRUE(g.stages[0].preAot);
        EXPECT_EQ(g.stages[1].pass, "aot_inference_graph");
        EXPECT_EQ(g.stages[2].pass, "inductor_post_grad_graph");
        for (const auto& s : g.stages)
            EXPECT_TRUE(s.readable()) << g.label() << " " << s.pass << ": "
                                      << (s.error ? s.error->toString() : s.note);
        // Dynamo's graph of the 2-layer decoder has 27 inputs (21 weights, tokens, pos, 4 K/V
        // caches), as the trace lists them (27 describe_source records per compile).
        EXPECT_EQ(g.stages[0].graph->placeholders().size(), 27u);
    }
}

TEST(IngestTrace, AtenInputsGetTheirKindsFromTheTrace)
{
    auto traces = readers::trace::readTorchTraceDir(kReal + "/compile/c_trace.log");
    ASSERT_TRUE(traces.ok());
    const readers::DebugDir dir = traceGraphGroups(*traces);
    ASSERT_FALSE(dir.groups.empty());
    const Graph& aot = *dir.groups[0].stages[1].graph;
    auto kind = [&](const std::string& name) {
        const int i = aot.find(name);
        EXPECT_GE(i, 0) << name;
        return i < 0 ? InputKind::SymInt : aot.nodes[size_t(i)].inputKind;
    };
    auto from = [&](const std::string& name) {
        const int i = aot.find(name);
        return i < 0 ? std::string() : aot.nodes[size_t(i)].inputKindFrom;
    };
    // arg0_1 is Dynamo's l_self_modules_embed_parameters_weight_; arg1_1 its l_tokens_; arg6_1 and
    // arg8_1 the K/V caches the script marks with mark_static_address (static_input_indices lists
    // 6 and 8, and they are no parameters); arg7_1 the positions.
    EXPECT_EQ(kind("arg0_1"), InputKind::Parameter);
    EXPECT_NE(from("arg0_1").find("l_self_modules_embed_parameters_weight_"), std::string::npos) << from("arg0_1");
    EXPECT_EQ(kind("arg1_1"), InputKind::UserInput);
    EXPECT_NE(from("arg1_1").find("static_input_indices"), std::string::npos);
    EXPECT_EQ(kind("arg6_1"), InputKind::StaticAddress);
    EXPECT_EQ(kind("arg8_1"), InputKind::StaticAddress);
    EXPECT_EQ(kind("arg7_1"), InputKind::UserInput);
    EXPECT_TRUE(aot.inputKindsUnknown().empty());
    // The post-grad graph has the same inputs and gets the same kinds.
    const Graph& post = *dir.groups[0].stages[2].graph;
    const int kv = post.find("arg6_1");
    ASSERT_GE(kv, 0);
    EXPECT_EQ(post.nodes[size_t(kv)].inputKind, InputKind::StaticAddress);
}

TEST(IngestTrace, ASimulatedTraceNeedsNoAssumptions)
{
    // Every input's kind and size comes from the trace itself: nothing is assumed.
    auto s = scenario::loadScenarioOrGraph(kReal + "/compile/c_trace.log", {}, 2);
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto sim = runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    EXPECT_TRUE(sim->sizesUnknown.empty());
    EXPECT_TRUE(sim->assumptions.empty()) << sim->assumptions.front();
    ASSERT_FALSE(sim->calls.empty());
    EXPECT_EQ(sim->calls[0].graphId, "0/0"); // a CUDA run's graphs are named by compile id
}

TEST(IngestUnknown, AGraphWithoutMetadataSimulatesWithUnknownSizes)
{
    // print(gm.graph) prints no tensor metadata: the run completes, says so, and names the
    // inputs whose kind nothing told.
    auto s = scenario::loadScenarioOrGraph(kData + "/fx/print_graph_dump.txt", {}, 2);
    ASSERT_TRUE(s.ok()) << s.error().toString();
    auto sim = runtime::simulate(*s);
    ASSERT_TRUE(sim.ok()) << sim.error().toString();
    EXPECT_EQ(sim->callsSimulated, 2);
    EXPECT_FALSE(sim->sizesUnknown.empty());
    EXPECT_NE(runtime::unknownSizesText(*sim).find("unknown ("), std::string::npos);
}

TEST(IngestKinds, InputKindOptionSetsKindsWithItsSource)
{
    auto s = scenario::loadScenarioOrGraph(kData + "/fx/print_readable_simple.py", {}, 1);
    ASSERT_TRUE(s.ok()) << s.error().toString();
    Graph& g = s->graphs.front();
    const std::vector<int> inputs = g.placeholders();
    ASSERT_FALSE(inputs.empty());
    const std::string first = g.nodes[size_t(inputs[0])].name;
    ASSERT_TRUE(scenario::applyInputKinds(*s, { first + "=parameter" }).ok());
    EXPECT_EQ(g.nodes[size_t(inputs[0])].inputKind, InputKind::Parameter);
    EXPECT_EQ(g.nodes[size_t(inputs[0])].inputKindFrom, "--input-kind " + first + "=parameter");
    ASSERT_TRUE(scenario::applyInputKinds(*s, { "#0-0=buffer" }).ok());
    EXPECT_EQ(g.nodes[size_t(inputs[0])].inputKind, InputKind::Buffer);
    auto bad = scenario::applyInputKinds(*s, { "x=weights" });
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("unknown input kind 'weights'"), std::string::npos);
    auto noSuch = scenario::applyInputKinds(*s, { "no_such_input=parameter" });
    ASSERT_FALSE(noSuch.ok());
    EXPECT_EQ(noSuch.error().context, "--input-kind no_such_input=parameter");
    EXPECT_FALSE(scenario::applyInputKinds(*s, { "#5-2=parameter" }).ok());
    EXPECT_FALSE(scenario::applyInputKinds(*s, { "=parameter" }).ok());
}
