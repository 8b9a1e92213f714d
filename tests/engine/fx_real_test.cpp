// The FX readers against real files PyTorch 2.11 wrote (tests/data/real/fx/, README.md there says
// where each comes from). The expected node counts, placeholders and op counts come from the
// recording's own index.jsonl (what the recording script read from the GraphModule in Python), never
// from the reader. Set ACLGI_REAL_FX_DIR to a folder of the same layout (shared/real/fx) to check
// every file there as well.
#include "fx_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

using namespace engine;
using namespace engine::readers;
using namespace fxtest;

namespace {

const std::string kRealDir = std::string(ACLGI_TEST_DATA_DIR) + "/real/fx/";

struct Expected {
    size_t nodes = 0;
    std::vector<std::string> placeholders;
    std::map<std::string, int> ops; ///< comparable op names (opKey) -> count
};

// An op as index.jsonl names it (str(node.target)) made comparable with the IR's target:
// "aten.mul.Tensor" stays; "<built-in function add>", "<function silu at 0x...>" and
// "<built-in method rsqrt of type object at 0x...>" become their function's name.
std::string indexOpKey(const std::string& key)
{
    if (key.empty() || key[0] != '<')
        return key;
    std::string s = key.substr(1);
    for (const char* prefix : { "built-in function ", "built-in method ", "function " })
        if (s.rfind(prefix, 0) == 0) {
            s = s.substr(std::string(prefix).size());
            break;
        }
    size_t end = s.find(" at 0x");
    s = s.substr(0, end == std::string::npos ? s.find_first_of(" >") : end);
    end = s.find(' ');
    s = s.substr(0, end);
    // torch.nn.functional.max_pool2d is a boolean_dispatch wrapper whose str() does not name it.
    if (s == "boolean_dispatch.<locals>.fn")
        return "max_pool2d";
    return s;
}

// The IR's call_function target made comparable: ATen/prims overloads stay, a Python function
// ("torch.nn.functional.embedding", "operator.getitem", "torch._C._nn.linear") by its last name.
std::string irOpKey(const std::string& target)
{
    if (target.rfind("aten.", 0) == 0 || target.rfind("prims.", 0) == 0)
        return target;
    size_t dot = target.rfind('.');
    return dot == std::string::npos ? target : target.substr(dot + 1);
}

std::map<std::string, Expected> loadIndex(const std::string& dir)
{
    std::map<std::string, Expected> out;
    std::ifstream in(dir + "index.jsonl");
    std::string line;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || j.value("step", "") != "graph")
            continue;
        Expected e;
        e.nodes = j.at("nodes").get<size_t>();
        e.placeholders = j.at("placeholders").get<std::vector<std::string>>();
        for (const auto& [k, v] : j.at("ops").items())
            e.ops[indexOpKey(k)] += v.get<int>();
        out[j.at("prefix").get<std::string>() + "__" + j.at("stage").get<std::string>()] = std::move(e);
    }
    return out;
}

// Checks one file against index.jsonl; returns how many files it checked (0 or 1).
int checkFile(const std::string& dir, const std::string& file, const std::map<std::string, Expected>& index)
{
    const size_t sep = file.find('.');
    if (sep == std::string::npos)
        return 0;
    auto it = index.find(file.substr(0, sep));
    if (it == index.end())
        return 0;
    const Expected& e = it->second;
    SCOPED_TRACE(file);
    auto r = readFxFile(dir + file);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    if (!r.ok())
        return 1;
    EXPECT_TRUE(r->diagnostics.empty()) << r->diagnostics.front().toString();
    EXPECT_EQ(r->graphs.size(), 1u);
    if (r->graphs.empty())
        return 1;
    const Graph& g = r->graphs[0];
    EXPECT_EQ(g.nodes.size(), e.nodes);
    std::vector<std::string> placeholders;
    for (int i : g.placeholders())
        placeholders.push_back(g.nodes[size_t(i)].name);
    EXPECT_EQ(placeholders, e.placeholders);
    std::map<std::string, int> ops;
    for (const Node& n : g.nodes)
        if (n.op == NodeOp::CallFunction)
            ++ops[irOpKey(n.target)];
    EXPECT_EQ(ops, e.ops);
    // Which forms print metadata: not print(gm.graph), nor code without annotations (PyTorch < 2.0).
    const bool none = file.find(".graph.txt") != std::string::npos || file.find(".unannotated") != std::string::npos;
    EXPECT_EQ(g.metadataMissing.empty(), !none) << g.metadataMissing;
    EXPECT_EQ(g.inputsWithoutMetadata().empty(), !none);
    return 1;
}

std::vector<std::string> filesIn(const std::string& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.is_regular_file())
            out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(FxReal, EveryFormMatchesTheIndex)
{
    const auto index = loadIndex(kRealDir);
    ASSERT_EQ(index.size(), 11u); // tinydecoder 5 stages, decoder32 3, resnet18 3
    int checked = 0;
    for (const std::string& f : filesIn(kRealDir))
        checked += checkFile(kRealDir, f, index);
    // 5 tinydecoder stages x 3 forms, the unannotated copy of aten0, resnet18's aten0 dump and
    // dynamo0 readable code.
    EXPECT_EQ(checked, 18);
}

// Inductor's fx_graph_readable.py / fx_graph_transformed.py, TORCH_TRACE payloads (one with the
// multi-line signature and `# PlainAOTInput(idx=0)` comments) and an output_code.py graph fragment,
// against expected.json (make_expected.py counts them with regular expressions, not this reader).
TEST(FxReal, OtherFormsMatchTheirIndependentCounts)
{
    std::ifstream in(kRealDir + "expected.json");
    ASSERT_TRUE(in.good());
    const auto expected = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(expected.is_object());
    ASSERT_EQ(expected.size(), 8u);
    for (const auto& [file, value] : expected.items()) {
        SCOPED_TRACE(file);
        auto r = readFxFile(kRealDir + file);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        // Fragments: one graph per whole fragment; each other fragment is one warning.
        const bool fragments = value.contains("graphs");
        const auto graphs = fragments ? value.at("graphs") : nlohmann::json::array({ value });
        const size_t skipped = fragments ? value.at("skipped").size() : 0;
        ASSERT_EQ(r->diagnostics.size(), skipped) << r->diagnostics.front().toString();
        for (size_t k = 0; k < skipped; ++k)
            EXPECT_NE(r->diagnostics[k].message.find("graph fragment "
                          + std::to_string(value.at("skipped")[k].get<int>()) + " is not a whole graph"),
                std::string::npos)
                << r->diagnostics[k].toString();
        ASSERT_EQ(r->graphs.size(), graphs.size());
        for (size_t k = 0; k < graphs.size(); ++k) {
            const Graph& g = r->graphs[k];
            const auto& e = graphs[k];
            if (fragments) {
                EXPECT_EQ(g.id, "fragment_" + std::to_string(e.at("fragment").get<int>()));
            }
            EXPECT_EQ(g.nodes.size(), e.at("nodes").get<size_t>());
            std::vector<std::string> placeholders;
            for (int i : g.placeholders())
                placeholders.push_back(g.nodes[size_t(i)].name);
            EXPECT_EQ(placeholders, e.at("placeholders").get<std::vector<std::string>>());
            std::map<std::string, int> ops;
            for (const Node& n : g.nodes)
                if (n.op == NodeOp::CallFunction
                    && (n.target.rfind("aten.", 0) == 0 || n.target.rfind("prims.", 0) == 0
                        || n.target == "operator.getitem"))
                    ++ops[irOpKey(n.target)];
            EXPECT_EQ(ops, (e.at("ops").get<std::map<std::string, int>>()));
            // Every one of these prints tensor metadata on every input.
            EXPECT_TRUE(g.metadataMissing.empty()) << g.metadataMissing;
            EXPECT_TRUE(g.inputsWithoutMetadata().empty());
        }
    }
}

TEST(FxReal, InputKindsAndDevicesAsTheFilesTellThem)
{
    auto dynamo = readFxFile(kRealDir + "tinydecoder_static__dynamo0.readable_strides.py");
    ASSERT_TRUE(dynamo.ok());
    const Graph& d = dynamo->graphs[0];
    int parameters = 0;
    for (int i : d.placeholders()) {
        const Node& n = d.nodes[size_t(i)];
        SCOPED_TRACE(n.name);
        // Dynamo's names tell the module's parameters; the tokens, positions and K/V caches are
        // arguments of forward(): nothing tells their kind.
        const bool parameter = n.name.find("_parameters_") != std::string::npos;
        EXPECT_EQ(n.inputKind, parameter ? InputKind::Parameter : InputKind::UserInput);
        if (parameter) {
            ++parameters;
            EXPECT_EQ(n.inputKindFrom.rfind("Dynamo's input name L_self_modules_", 0), 0u) << n.inputKindFrom;
        } else {
            EXPECT_EQ(n.inputKindFrom, "");
        }
        EXPECT_EQ(n.outputs.at(0).device, "cuda:0");
    }
    EXPECT_EQ(parameters, 21);
    EXPECT_EQ(d.inputKindsUnknown(),
        (std::vector<std::string> { "l_tokens_", "l_kv_0_", "l_pos_", "l_kv_1_", "l_kv_2_", "l_kv_3_" }));

    // The same graph's print(gm.graph) prints the parameters' Python type.
    auto dump = readFxFile(kRealDir + "tinydecoder_static__dynamo0.graph.txt");
    ASSERT_TRUE(dump.ok());
    const Node& w = node(dump->graphs[0], "l_self_modules_embed_parameters_weight_");
    EXPECT_EQ(w.inputKind, InputKind::Parameter);
    EXPECT_EQ(w.inputKindFrom, "Dynamo's input name l_self_modules_embed_parameters_weight_ (an nn.Module parameter)");

    // AOT's graphs name their inputs argN_1; PlainAOTInput descriptors tell no kind: none is guessed.
    for (const char* file : { "trace_aot_inference_graph_0_0.txt", "tinydecoder_static__aten0.readable.py" }) {
        auto aot = readFxFile(kRealDir + file);
        ASSERT_TRUE(aot.ok());
        EXPECT_EQ(aot->graphs[0].inputKindsUnknown().size(), 27u) << file;
    }

    // A dynamic compile: the batch size is an input, told by its annotation.
    auto dyn = readFxFile(kRealDir + "trace_dynamic_aot_inference_graph_0_1.txt");
    ASSERT_TRUE(dyn.ok());
    const Graph& dg = dyn->graphs[0];
    EXPECT_TRUE(dg.dynamic);
    EXPECT_EQ(node(dg, "arg1_1").inputKind, InputKind::SymInt);
    EXPECT_EQ(node(dg, "arg1_1").inputKindFrom, "its annotation Sym(s33)");
    EXPECT_EQ(node(dg, "arg1_1").symbol.text(), "s33");
    EXPECT_EQ(outputsText(node(dg, "arg2_1")), "i64[s33, 1][1, 1]cuda:0");

    // Without include_device the file prints no device: it is unknown (empty), never assumed.
    auto plain = readFxFile(kRealDir + "tinydecoder_static__aten0.readable.py");
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(node(plain->graphs[0], "arg0_1").outputs.at(0).device, "");
    EXPECT_TRUE(node(plain->graphs[0], "arg0_1").outputs.at(0).stride.empty());
}

TEST(FxReal, SharedRecordingsWhenPresent)
{
    const char* dir = std::getenv("ACLGI_REAL_FX_DIR");
    if (!dir || !*dir)
        GTEST_SKIP() << "ACLGI_REAL_FX_DIR is not set";
    const std::string d = std::string(dir) + "/";
    const auto index = loadIndex(d);
    int checked = 0;
    for (const std::string& f : filesIn(d))
        checked += checkFile(d, f, index);
    EXPECT_GT(checked, 0);
}

// Every file of a folder reads without an error or a warning (ACLGI_FX_CLEAN_DIR: e.g. graph
// payloads extracted from TORCH_TRACE logs).
TEST(FxReal, FolderReadsCleanlyWhenGiven)
{
    const char* dir = std::getenv("ACLGI_FX_CLEAN_DIR");
    if (!dir || !*dir)
        GTEST_SKIP() << "ACLGI_FX_CLEAN_DIR is not set";
    const std::string d = std::string(dir) + "/";
    const auto files = filesIn(d);
    EXPECT_FALSE(files.empty());
    for (const std::string& f : files) {
        auto r = readFxFile(d + f);
        EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
        if (r.ok()) {
            EXPECT_TRUE(r->diagnostics.empty()) << r->diagnostics.front().toString();
        }
    }
}

} // namespace
