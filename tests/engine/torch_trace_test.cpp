// readTorchTrace (engine/readers/torch_trace.h) on real TORCH_TRACE logs recorded with PyTorch 2.11
// (tests/data/real/trace/, see its README.md: every expected value here was counted from the files by
// a separate Python one-off, not from the reader) and on hostile inputs made in a temporary folder.
#include "engine/core/md5.h"
#include "engine/readers/torch_trace.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace engine;
using namespace engine::readers::trace;
namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(ACLGI_TEST_DATA_DIR) + "/real/trace";
const std::string kTwoFunctions = kDir + "/two_functions.log";
const std::string kDynamicWarn = kDir + "/dynamic_warn.log";
const std::string kRanks = kDir + "/ranks";

TorchTrace readOk(const std::string& path, const TraceReadOptions& options = {})
{
    auto r = readTorchTrace(path, options);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : TorchTrace();
}

CompileId cid(int frame, int frameCompile, int attempt = 0)
{
    CompileId id;
    id.frame = frame;
    id.frameCompile = frameCompile;
    id.attempt = attempt;
    return id;
}

std::vector<std::string> compileIds(const TorchTrace& t)
{
    std::vector<std::string> out;
    for (const TraceCompile& c : t.compiles)
        out.push_back(c.id.text());
    return out;
}

std::vector<std::string> graphNames(const TraceCompile& c)
{
    std::vector<std::string> out;
    for (const TracePayload& p : c.graphs)
        out.push_back(p.name);
    return out;
}

const TracePayload* artifact(const TraceCompile& c, const std::string& name)
{
    for (const TracePayload& p : c.artifacts)
        if (p.name == name)
            return &p;
    return nullptr;
}

// Every kept payload matches its md5.
void expectAllMd5Ok(const TorchTrace& t)
{
    for (const TraceCompile& c : t.compiles) {
        for (const TracePayload& p : c.graphs)
            EXPECT_TRUE(p.md5Ok) << c.id.text() << " " << p.name;
        for (const TracePayload& p : c.artifacts)
            EXPECT_TRUE(p.md5Ok) << c.id.text() << " " << p.name;
        if (c.outputCode) {
            EXPECT_TRUE(c.outputCode->md5Ok) << c.id.text();
        }
    }
}

std::vector<int> range(int from, int to) // [from, to]
{
    std::vector<int> v;
    for (int i = from; i <= to; ++i)
        v.push_back(i);
    return v;
}

bool hasDiagnostic(const TorchTrace& t, const std::string& part)
{
    for (const TraceDiagnostic& d : t.diagnostics)
        if (d.message.find(part) != std::string::npos)
            return true;
    return false;
}

class TempDir {
public:
    TempDir()
    {
        std::random_device rd;
        m_path = fs::temp_directory_path() / ("aclgi_torch_trace_" + std::to_string(rd()) + std::to_string(rd()));
        fs::create_directories(m_path);
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    const fs::path& path() const { return m_path; }
    std::string write(const std::string& name, const std::string& bytes) const
    {
        const fs::path p = m_path / name;
        std::ofstream(p, std::ios::binary) << bytes;
        return p.string();
    }

private:
    fs::path m_path;
};

std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One real record with a payload (a chromium_event of two_functions.log's first lines).
std::string firstRecords(size_t lines)
{
    std::ifstream in(kTwoFunctions, std::ios::binary);
    std::string out, line;
    for (size_t i = 0; i < lines && std::getline(in, line); ++i)
        out += line + "\n";
    return out;
}

} // namespace

TEST(TorchTraceCompileId, TextFollowsTlparse)
{
    EXPECT_EQ(cid(0, 0).text(), "0/0");
    EXPECT_EQ(cid(1, 0, 1).text(), "1/0_1");
    CompileId ca = cid(0, 1);
    ca.compiledAutograd = 2;
    EXPECT_EQ(ca.text(), "!2/0/1");
    EXPECT_EQ(CompileId().text(), "-");
    EXPECT_FALSE(CompileId().valid());
    EXPECT_TRUE(cid(0, 0) < cid(0, 1));
    EXPECT_TRUE(cid(0, 1) < cid(0, 1, 1));
    EXPECT_TRUE(cid(0, 0) == cid(0, 0));
}

TEST(TorchTraceReal, TwoFunctionsCompilesAndGraphs)
{
    const TorchTrace t = readOk(kTwoFunctions);
    EXPECT_EQ(t.records, 396u);
    EXPECT_EQ(t.bytes, 2004900u);
    EXPECT_FALSE(t.rank.has_value());
    EXPECT_TRUE(t.diagnostics.empty()) << t.diagnostics.front().message;
    EXPECT_EQ(compileIds(t), (std::vector<std::string> { "0/0", "0/1" }));
    expectAllMd5Ok(t);

    const TraceCompile* c0 = t.find(cid(0, 0));
    const TraceCompile* c1 = t.find(cid(0, 1));
    ASSERT_TRUE(c0 && c1);
    EXPECT_EQ(c0->records, 225u);
    EXPECT_EQ(c1->records, 150u);
    EXPECT_EQ(c0->first.line, 1u);
    EXPECT_EQ(c1->first.line, 8028u);
    EXPECT_EQ(graphNames(*c0),
        (std::vector<std::string> { "dynamo_output_graph", "before_pre_grad_graph", "after_pre_grad_graph",
            "aot_inference_graph", "before_joint_graph", "after_joint_graph", "before_post_grad_graph",
            "inductor_post_grad_graph" }));
    // The second compile hit the FX graph cache: no joint / post-grad passes ran, and Inductor's post-grad
    // graph is its own record kind there instead of an artifact.
    EXPECT_EQ(graphNames(*c1),
        (std::vector<std::string> { "dynamo_output_graph", "before_pre_grad_graph", "after_pre_grad_graph",
            "aot_inference_graph", "inductor_post_grad_graph" }));
    EXPECT_EQ(c1->graphs.back().kind, "inductor_post_grad_graph");
    EXPECT_EQ(c0->graphs.back().kind, "artifact");
    EXPECT_EQ(c0->graphs.front().place.line, 177u);
    EXPECT_EQ(c0->graphs.front().text.rfind("class GraphModule(torch.nn.Module):", 0), 0u);
    EXPECT_TRUE(artifact(*c1, "fx_graph_cache_hit"));
    EXPECT_TRUE(artifact(*c1, "aotautograd_cache_hit"));
    EXPECT_TRUE(artifact(*c0, "fx_graph_cache_miss"));
    EXPECT_TRUE(artifact(*c0, "fx_graph_runnable"));
    ASSERT_TRUE(c0->outputCode && c1->outputCode);
    EXPECT_NE(c0->outputCode->text.find("def call("), std::string::npos);
    EXPECT_EQ(c0->guards.find("TREE_GUARD_MANAGER:"), 1u); // the payload starts with an empty line
}

TEST(TorchTraceReal, TwoFunctionsSourcesReasonsMetrics)
{
    const TorchTrace t = readOk(kTwoFunctions);
    const TraceCompile* c0 = t.find(cid(0, 0));
    const TraceCompile* c1 = t.find(cid(0, 1));
    ASSERT_TRUE(c0 && c1);
    EXPECT_EQ(c0->sources.size(), 27u);
    EXPECT_EQ(c1->sources.size(), 27u);
    EXPECT_TRUE(c0->recompileReasons.empty());
    EXPECT_EQ(c1->recompileReasons,
        (std::vector<std::string> { "0/0: tensor 'pos' size mismatch at index 0. expected 16, actual 1" }));
    std::vector<int> expected = { 0 };
    for (int i : range(2, 6))
        expected.push_back(i);
    for (int i : range(8, 26))
        expected.push_back(i);
    EXPECT_EQ(c0->staticInputIndices, expected);
    EXPECT_EQ(c1->staticInputIndices, expected);
    EXPECT_DOUBLE_EQ(c0->compileSeconds, 8.296669);
    EXPECT_DOUBLE_EQ(c1->compileSeconds, 0.486839);
    EXPECT_TRUE(c0->failType.empty());
    EXPECT_NE(c0->metricsJson.find("\"co_name\":\"forward\""), std::string::npos);
    ASSERT_EQ(c0->stack.size(), 8u);
    EXPECT_EQ(c0->stack.back(), "/home/user/app/device/common.py:68 in forward");
    EXPECT_EQ(c1->stack.size(), 3u);
    // Spans: 63 begun in 0/0 (B and instant events), 26 in 0/1, 8 with no frame id (runtime).
    EXPECT_EQ(c0->spans.size(), 63u);
    EXPECT_EQ(c1->spans.size(), 26u);
    ASSERT_EQ(t.spans.size(), 8u);
    EXPECT_EQ(t.spans[0].name, "cudagraphify.get_container");
    EXPECT_TRUE(t.spans[0].ended);
    EXPECT_GT(t.spans[0].endUs, t.spans[0].startUs);
    EXPECT_EQ(t.spans[0].args.at("compile_id"), "0/0");
    EXPECT_EQ(t.spans[0].args.at("is_backward"), "false");
    for (const TraceCompile* c : { c0, c1 })
        for (const TraceSpan& s : c->spans)
            EXPECT_TRUE(s.ended) << s.name;
    EXPECT_EQ(c0->spans[0].name, "dynamo");
    EXPECT_EQ(c0->spans[0].category, "dynamo_timed");
    EXPECT_EQ(t.runtimeMetricsJson.size(), 4u);
}

TEST(TorchTraceReal, DynamicWarnSymbolsAndSources)
{
    const TorchTrace t = readOk(kDynamicWarn);
    EXPECT_EQ(t.records, 546u);
    EXPECT_TRUE(t.diagnostics.empty());
    EXPECT_EQ(compileIds(t), (std::vector<std::string> { "0/0", "0/1" }));
    expectAllMd5Ok(t);
    const TraceCompile* c0 = t.find(cid(0, 0));
    const TraceCompile* c1 = t.find(cid(0, 1));
    ASSERT_TRUE(c0 && c1);
    EXPECT_EQ(c0->records, 223u);
    EXPECT_EQ(c1->records, 238u);
    EXPECT_EQ(c1->first.line, 7883u);
    EXPECT_EQ(graphNames(*c0), graphNames(*c1));
    EXPECT_EQ(c0->graphs.size(), 8u);
    EXPECT_EQ(c1->recompileReasons,
        (std::vector<std::string> { "0/0: tensor 'kv[0]' size mismatch at index 0. expected 1, actual 2" }));
    ASSERT_EQ(c1->symbols.size(), 5u);
    EXPECT_TRUE(c0->symbols.empty());
    const char* expectedSymbols[][2] = { { "s52", "L['tokens'].size()[0]" }, { "s33", "L['kv'][0].size()[0]" },
        { "s41", "L['kv'][1].size()[0]" }, { "s4", "L['kv'][2].size()[0]" }, { "s84", "L['kv'][3].size()[0]" } };
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(c1->symbols[i].symbol, expectedSymbols[i][0]);
        EXPECT_EQ(c1->symbols[i].source, expectedSymbols[i][1]);
        EXPECT_EQ(c1->symbols[i].hint, std::optional<int64_t>(2)); // "val": "2"
    }
    std::vector<int> expected1 = { 0 };
    for (int i : range(3, 6))
        expected1.push_back(i);
    expected1.push_back(8);
    for (int i : range(10, 28))
        expected1.push_back(i);
    EXPECT_EQ(c1->staticInputIndices, expected1);

    ASSERT_EQ(c0->sources.size(), 27u);
    ASSERT_EQ(c1->sources.size(), 27u);
    const TraceSource& w = c0->sources[0];
    EXPECT_EQ(w.source, "L['self']._modules['embed']._parameters['weight']");
    EXPECT_EQ(w.dtype, "torch.float32");
    EXPECT_EQ(w.device, "cuda:0");
    EXPECT_EQ(w.size, (std::vector<int64_t> { 1024, 256 }));
    EXPECT_EQ(w.sizeText, "[1024, 256]");
    EXPECT_EQ(w.stride, (std::vector<int64_t> { 256, 1 }));
    EXPECT_TRUE(w.isParameter);
    EXPECT_TRUE(w.requiresGrad);
    const TraceSource& tok = c1->sources[1];
    EXPECT_EQ(tok.source, "L['tokens']");
    EXPECT_EQ(tok.describerId, 5);
    EXPECT_EQ(tok.id, 1);
    EXPECT_EQ(tok.dtype, "torch.int64");
    EXPECT_EQ(tok.size, (std::vector<int64_t> { 2, 1 }));
    EXPECT_FALSE(tok.isParameter);
    EXPECT_FALSE(tok.requiresGrad);
    EXPECT_EQ(t.spans.size(), 20u);
    EXPECT_EQ(t.runtimeMetricsJson.size(), 15u);
}

TEST(TorchTraceReal, RanksFolder)
{
    auto r = readTorchTraceDir(kRanks);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
        const TorchTrace& t = (*r)[size_t(rank)];
        EXPECT_EQ(t.rank, std::optional<int>(rank));
        EXPECT_NE(t.path.find("rank_" + std::to_string(rank) + "_"), std::string::npos);
        EXPECT_EQ(t.records, 94u);
        EXPECT_EQ(compileIds(t), (std::vector<std::string> { "0/0" }));
        EXPECT_EQ(t.compiles[0].records, 89u);
        EXPECT_EQ(t.compiles[0].sources.size(), 27u);
        EXPECT_TRUE(t.compiles[0].graphs.empty());
        // The logs were cut before compile 0/0 ended: 5 spans begun, 2 ended, and only that is said.
        ASSERT_EQ(t.compiles[0].spans.size(), 5u);
        size_t ended = 0;
        for (const TraceSpan& s : t.compiles[0].spans)
            ended += s.ended ? 1 : 0;
        EXPECT_EQ(ended, 2u);
        EXPECT_FALSE(t.diagnostics.empty());
        for (const TraceDiagnostic& d : t.diagnostics)
            EXPECT_NE(d.message.find("never ended"), std::string::npos) << d.message;
    }
    // A single file is read as a folder of one.
    auto one = readTorchTraceDir(kTwoFunctions);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->size(), 1u);
}

TEST(TorchTraceReal, LooksLikeTorchTrace)
{
    const std::string bytes = fileBytes(kTwoFunctions);
    EXPECT_TRUE(looksLikeTorchTrace(bytes.substr(0, 4096)));
    EXPECT_TRUE(looksLikeTorchTrace(bytes.substr(0, 100))); // cut inside the first envelope
    EXPECT_FALSE(looksLikeTorchTrace("hello\n"));
    EXPECT_FALSE(looksLikeTorchTrace("I1126 08:52:02.716000 457 x.py:1] plain log line\n"));
    EXPECT_FALSE(looksLikeTorchTrace(""));
}

TEST(TorchTraceHostile, TruncatedMidPayload)
{
    TempDir dir;
    const std::string bytes = fileBytes(kTwoFunctions);
    // Cut inside the first dynamo_output_graph's payload (its header is line 177).
    const size_t header = bytes.find("{\"dynamo_output_graph\"");
    ASSERT_NE(header, std::string::npos);
    const size_t cutAt = bytes.find("\n\t", bytes.find("\n\t", header) + 10) + 5;
    const std::string path = dir.write("cut.log", bytes.substr(0, cutAt));
    const TorchTrace t = readOk(path);
    ASSERT_EQ(compileIds(t), (std::vector<std::string> { "0/0" }));
    ASSERT_EQ(t.compiles[0].graphs.size(), 1u);
    EXPECT_FALSE(t.compiles[0].graphs[0].md5Ok);
    EXPECT_TRUE(hasDiagnostic(t, "does not match its md5"));
    EXPECT_TRUE(hasDiagnostic(t, "never ended"));
    for (const TraceSpan& s : t.compiles[0].spans) {
        if (!s.ended) {
            EXPECT_EQ(s.endUs, s.startUs);
        }
    }
}

TEST(TorchTraceHostile, Md5MismatchIsADiagnostic)
{
    TempDir dir;
    std::string text = firstRecords(12); // one chromium_event B record of 0/0
    const size_t at = text.find("\"dynamo\"");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 8, "\"dynamX\"");
    const TorchTrace t = readOk(dir.write("edited.log", text));
    EXPECT_EQ(t.records, 1u);
    EXPECT_TRUE(hasDiagnostic(t, "does not match its md5"));
    ASSERT_EQ(t.compiles.size(), 1u);
    ASSERT_EQ(t.compiles[0].spans.size(), 1u);
    EXPECT_EQ(t.compiles[0].spans[0].name, "dynamX");
}

TEST(TorchTraceHostile, BinaryGarbageIsAnErrorNamingTheFile)
{
    TempDir dir;
    std::mt19937 rng(7);
    std::string bytes(100000, '\0');
    for (char& c : bytes)
        c = char(rng());
    const std::string path = dir.write("garbage.log", bytes);
    auto r = readTorchTrace(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::ParseError);
    EXPECT_EQ(r.error().toString().rfind(path + ":1: ", 0), 0u) << r.error().toString();
}

TEST(TorchTraceHostile, EmptyFileAndFolders)
{
    TempDir dir;
    const TorchTrace t = readOk(dir.write("empty.log", ""));
    EXPECT_EQ(t.records, 0u);
    EXPECT_TRUE(t.compiles.empty());

    auto folder = readTorchTrace(dir.path().string());
    ASSERT_FALSE(folder.ok());
    EXPECT_EQ(folder.error().code, ErrorCode::Io);
    EXPECT_NE(folder.error().toString().find(dir.path().string()), std::string::npos);

    auto missing = readTorchTrace((dir.path() / "nope.log").string());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::Io);

    TempDir emptyDir;
    auto none = readTorchTraceDir(emptyDir.path().string());
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, ErrorCode::NotFound);
}

TEST(TorchTraceHostile, FifoIsRefusedWithoutBlocking)
{
    TempDir dir;
    const fs::path fifo = dir.path() / "fifo.log";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto r = readTorchTrace(fifo.string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::Io);
}

TEST(TorchTraceHostile, HugeLineWithoutNewline)
{
    TempDir dir;
    const auto start = std::chrono::steady_clock::now();
    auto r = readTorchTrace(dir.write("huge.log", std::string(10u << 20, 'x')));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::ParseError);

    // After a good record, a huge line is skipped with a diagnostic; a huge payload line is kept up to
    // maxPayloadBytes but hashed whole.
    std::string text = firstRecords(12) + std::string(10u << 20, 'y') + "\n" + firstRecords(12);
    const TorchTrace t = readOk(dir.write("huge2.log", text));
    EXPECT_EQ(t.records, 2u);
    EXPECT_TRUE(hasDiagnostic(t, "too long"));

    const std::string payload(10u << 20, 'z');
    const std::string record = "V1126 08:52:02.716000 457 torch/_dynamo/utils.py:1] {\"artifact\": {\"name\": \"big\", "
                               "\"encoding\": \"string\"}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, "
                               "\"has_payload\": \""
        + md5Hex(payload) + "\"}\n\t" + payload;
    TraceReadOptions options;
    options.maxPayloadBytes = 1u << 20;
    const TorchTrace big = readOk(dir.write("big.log", record), options);
    ASSERT_EQ(big.compiles.size(), 1u);
    ASSERT_EQ(big.compiles[0].artifacts.size(), 1u);
    EXPECT_EQ(big.compiles[0].artifacts[0].text.size(), size_t(1u << 20));
    EXPECT_TRUE(big.compiles[0].artifacts[0].md5Ok);
    EXPECT_TRUE(hasDiagnostic(big, "cut to"));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST(TorchTraceHostile, UnknownKindsAndStrayLines)
{
    TempDir dir;
    const std::string text = "V1126 08:52:02.716000 457 x.py:1] {\"brand_new_kind\": {\"a\": 1}, \"frame_id\": 3, "
                             "\"frame_compile_id\": 0, \"attempt\": 2}\n"
                             "not a header\n"
                             "\tstray payload line\n"
                             "[rank3]:V1126 08:52:02.716000 457 x.py:1] {\"link\": {\"name\": \"x\"}, \"frame_id\": 3, "
                             "\"frame_compile_id\": 0, \"attempt\": 2, \"compiled_autograd_id\": 1}\n";
    const TorchTrace t = readOk(dir.write("unknown.log", text));
    EXPECT_EQ(t.records, 2u);
    EXPECT_EQ(compileIds(t), (std::vector<std::string> { "3/0_2", "!1/3/0_2" }));
    ASSERT_EQ(t.compiles[0].artifacts.size(), 1u);
    EXPECT_EQ(t.compiles[0].artifacts[0].name, "brand_new_kind");
    EXPECT_EQ(t.compiles[0].artifacts[0].text, "{\"a\":1}");
    EXPECT_TRUE(hasDiagnostic(t, "not a record header"));
    EXPECT_TRUE(hasDiagnostic(t, "payload line of no record"));
}

TEST(TorchTraceHostile, CancelViaProgress)
{
    TraceReadOptions options;
    uint64_t calls = 0, lastDone = 0, total = 0;
    options.progress = [&](uint64_t done, uint64_t all) {
        EXPECT_GE(done, lastDone);
        lastDone = done;
        total = all;
        return ++calls < 2;
    };
    auto r = readTorchTrace(kTwoFunctions, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::Cancelled);
    EXPECT_EQ(calls, 2u);
    EXPECT_EQ(total, 2004900u);
    EXPECT_LT(lastDone, total);

    TraceReadOptions counting;
    uint64_t n = 0, end = 0;
    counting.progress = [&](uint64_t done, uint64_t) {
        ++n;
        end = done;
        return true;
    };
    readOk(kTwoFunctions, counting);
    EXPECT_GE(n, 3u);
    EXPECT_EQ(end, 2004900u);
}

TEST(TorchTraceHostile, TruncatedMidHeaderAndPlaces)
{
    TempDir dir;
    const std::string bytes = fileBytes(kTwoFunctions);
    // Cut inside the header of the first dynamo_output_graph record (line 177): the records before it
    // are read, the cut line is a diagnostic.
    const size_t header = bytes.find("{\"dynamo_output_graph\"");
    ASSERT_NE(header, std::string::npos);
    const TorchTrace t = readOk(dir.write("cut_header.log", bytes.substr(0, header + 40)));
    EXPECT_TRUE(t.compiles.size() == 1 && t.compiles[0].graphs.empty());
    ASSERT_FALSE(t.diagnostics.empty());
    EXPECT_TRUE(hasDiagnostic(t, "not a record header"));
    bool at177 = false;
    for (const TraceDiagnostic& d : t.diagnostics)
        at177 = at177 || (d.line == 177 && d.message.find("not a record header") != std::string::npos);
    EXPECT_TRUE(at177);

    // A record's place is its header's line and byte offset in the file.
    const TorchTrace whole = readOk(kTwoFunctions);
    ASSERT_FALSE(whole.compiles.empty());
    const TracePlace& p = whole.compiles[0].graphs.at(0).place;
    const size_t lineStart = bytes.rfind('\n', header) + 1;
    EXPECT_EQ(p.offset, lineStart);
    EXPECT_EQ(bytes.compare(p.offset, 5, "V1126"), 0);
}

TEST(TorchTraceHostile, FailedCompileMetrics)
{
    TempDir dir;
    const std::string text
        = "V1126 08:52:02.716000 457 torch/_dynamo/utils.py:1796] {\"compilation_metrics\": {\"compile_id\": \"1/0\", "
          "\"entire_frame_compile_time_s\": 1.5, \"fail_type\": \"InternalTorchDynamoError\", \"fail_reason\": "
          "\"boom\"}, \"frame_id\": 1, \"frame_compile_id\": 0, \"attempt\": 1}\n";
    const TorchTrace t = readOk(dir.write("failed.log", text));
    ASSERT_EQ(t.compiles.size(), 1u);
    const TraceCompile& c = t.compiles[0];
    EXPECT_EQ(c.id.text(), "1/0_1");
    EXPECT_DOUBLE_EQ(c.compileSeconds, 1.5);
    EXPECT_EQ(c.failType, "InternalTorchDynamoError");
    EXPECT_EQ(c.failReason, "boom");
    EXPECT_NE(c.metricsJson.find("\"fail_reason\":\"boom\""), std::string::npos);
}

TEST(TorchTraceReal, MaxPayloadBytesHoldsForEveryKeptText)
{
    // Found by running the fuzz target on dynamic_warn.log: a guard_added_fast record has no payload,
    // and the JSON of its metadata (kept as the artifact's text) was not held to the limit.
    TraceReadOptions options;
    options.maxPayloadBytes = 4096;
    const TorchTrace t = readOk(kDynamicWarn, options);
    ASSERT_EQ(t.compiles.size(), 2u);
    for (const TraceCompile& c : t.compiles) {
        for (const auto* list : { &c.graphs, &c.artifacts })
            for (const TracePayload& p : *list) {
                EXPECT_LE(p.text.size(), 4096u) << c.id.text() << " " << p.name;
                EXPECT_TRUE(p.md5Ok) << c.id.text() << " " << p.name; // hashed whole, kept cut
            }
        ASSERT_TRUE(c.outputCode);
        EXPECT_EQ(c.outputCode->text.size(), 4096u);
    }
    EXPECT_TRUE(hasDiagnostic(t, "cut to 4096"));
    EXPECT_TRUE(hasDiagnostic(t, "metadata of 'guard_added_fast'"));
}

TEST(TorchTraceReal, LongSpanArgsAreCut)
{
    // The cache events' "components" args are hundreds of KB (and repeat their artifacts): cut to
    // maxSpanArgBytes + "...", the rest of every arg whole. Found by bench/trace_bench.cpp (peak RSS).
    TraceReadOptions whole;
    whole.maxSpanArgBytes = uint64_t(1) << 30;
    const TorchTrace full = readOk(kTwoFunctions, whole);
    const TorchTrace cut = readOk(kTwoFunctions);
    ASSERT_EQ(full.compiles.size(), cut.compiles.size());
    size_t longArgs = 0, longLists = 0;
    for (size_t i = 0; i < full.compiles.size(); ++i) {
        const auto& a = full.compiles[i].spans;
        const auto& b = cut.compiles[i].spans;
        ASSERT_EQ(a.size(), b.size());
        for (size_t s = 0; s < a.size(); ++s) {
            ASSERT_EQ(a[s].args.size(), b[s].args.size()) << a[s].name;
            for (const auto& [key, value] : a[s].args) {
                const std::string& kept = b[s].args.at(key);
                if (value.size() <= 4096) {
                    EXPECT_EQ(kept, value) << a[s].name << "." << key;
                    continue;
                }
                ++longArgs;
                // "components" is a JSON list in the log (other long args, like dynamo_config, are strings):
                // written member by member, the whole value is still exactly the list's compact dump.
                if (key == "components") {
                    ++longLists;
                    EXPECT_EQ(nlohmann::json::parse(value).dump(), value) << a[s].name;
                }
                EXPECT_EQ(kept, value.substr(0, 4096) + "...") << a[s].name << "." << key;
                EXPECT_LE(kept.capacity(), 2 * kept.size()); // the long text is not held behind it
            }
        }
    }
    EXPECT_GT(longArgs, 0u); // two_functions.log has cache events with long components
    EXPECT_GT(longLists, 0u);
}
