// Reading FX graph text (engine/readers/fx_reader.h) of a synthetic 80-layer LLaMA-like decoder
// (engine/scenario/decoder_generator.h, its dynamic decode graph), written the way PyTorch prints it.
// Speed is reported, never asserted: scripts/bench.sh compares BM_ReadFxCode_Decoder80 with Python's
// own ast.parse of the same file, timed in the same run (scripts/bench_fx_read.py). See bench/README.md.
//
// Environment: ACLGI_BENCH_FX_OUT=FILE writes the generated readable code there (once per process),
// so that the script can hand exactly the same text to Python.
#include "engine/readers/fx_code_writer.h"
#include "engine/readers/fx_reader.h"
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"

#include <benchmark/benchmark.h>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

[[noreturn]] void fail(const std::string& message)
{
    std::fprintf(stderr, "fx_reader_bench: %s\n", message.c_str());
    std::abort();
}

engine::scenario::DecoderSpec decoder80()
{
    // LLaMA-2-70B-like sizes; they only change the numbers in the annotations, not the text's shape.
    engine::scenario::DecoderSpec spec;
    spec.layers = 80;
    spec.hidden = 8192;
    spec.intermediate = 28672;
    spec.vocab = 32000;
    spec.maxBatch = 8;
    spec.maxSeq = 4096;
    spec.promptLen = 128;
    return spec;
}

/// The generator's decode graph (dynamic over the batch size; the largest of its two graphs: it also
/// carries the SymInt inputs).
const engine::Graph& decodeGraph()
{
    static const engine::Graph graph = [] {
        const std::string json = engine::scenario::decoderScenarioJson(decoder80(), "{}", { 4 }, 1, "bench-decoder80");
        auto scenario = engine::scenario::parseScenario(json, "<bench-decoder80>");
        if (!scenario)
            fail("generated scenario does not parse: " + scenario.error().toString());
        const engine::Graph* g = scenario->graph("decode");
        if (!g)
            fail("generated scenario has no \"decode\" graph");
        return *g;
    }();
    return graph;
}

// ---- print(gm.graph) form ----------------------------------------------------------------------
// The engine has no writer for the dump form; this is the small subset the decoder graph needs,
// printed as torch.fx.Node.format_node does: str() of every value, `%` before node references.

std::string dumpFloat(double v)
{
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, res.ptr);
    if (s.find_first_of(".eni") == std::string::npos)
        s += ".0";
    return s;
}

std::string dumpArg(const engine::Arg& a)
{
    using K = engine::Arg::Kind;
    switch (a.kind) {
    case K::None:
        return "None";
    case K::Bool:
        return a.b ? "True" : "False";
    case K::Int:
        return std::to_string(a.i);
    case K::Float:
        return dumpFloat(a.f);
    case K::Str:
        return a.s;
    case K::NodeRef:
        return "%" + a.s;
    case K::List: {
        std::string s = "[";
        for (size_t i = 0; i < a.items.size(); ++i)
            s += (i ? ", " : "") + dumpArg(a.items[i]);
        return s + "]";
    }
    }
    return "None";
}

std::string dumpTarget(const std::string& t)
{
    if (t.rfind("operator.", 0) == 0)
        return t; // FX prints operator.getitem
    size_t dots = 0;
    for (char c : t)
        dots += c == '.';
    return dots == 2 ? "torch.ops." + t : t;
}

std::string writeGraphDump(const engine::Graph& g)
{
    std::string out = "graph():\n";
    for (const engine::Node& n : g.nodes) {
        const std::string head = "    %" + n.name + " : [num_users=" + std::to_string(n.users.size()) + "] = ";
        switch (n.op) {
        case engine::NodeOp::Placeholder:
            out += head + "placeholder[target=" + n.name + "]\n";
            break;
        case engine::NodeOp::Output: {
            std::string r = "(";
            const engine::Arg& a = n.args.empty() ? engine::Arg() : n.args[0];
            for (size_t i = 0; i < a.items.size(); ++i)
                r += (i ? ", " : "") + a.items[i].s;
            out += "    return " + r + (a.items.size() == 1 ? ",)" : ")") + "\n";
            break;
        }
        case engine::NodeOp::CallFunction: {
            std::string args = "(";
            for (size_t i = 0; i < n.args.size(); ++i)
                args += (i ? ", " : "") + dumpArg(n.args[i]);
            args += n.args.size() == 1 ? ",)" : ")";
            std::string kwargs = "{";
            for (size_t i = 0; i < n.kwargs.size(); ++i)
                kwargs += (i ? ", " : "") + n.kwargs[i].first + ": " + dumpArg(n.kwargs[i].second);
            kwargs += "}";
            out += head + "call_function[target=" + dumpTarget(n.target) + "](args = " + args + ", kwargs = " + kwargs
                + ")\n";
            break;
        }
        default:
            fail("writeGraphDump: node " + n.name + " is not a placeholder, call_function or output");
        }
    }
    return out;
}

// ---- texts, written and checked once -----------------------------------------------------------

/// Reads `text` once (not timed) and aborts unless the read gives back one graph with the generated
/// graph's node count and no diagnostic: the timed loop must never measure a failing read.
template <typename ReadFn> void checkRead(const char* what, const std::string& text, ReadFn read)
{
    auto result = read(text, std::string("<bench-decoder80>"));
    if (!result)
        fail(std::string(what) + " fails on the generated text: " + result.error().toString());
    if (result->graphs.size() != 1)
        fail(std::string(what) + " gives " + std::to_string(result->graphs.size()) + " graphs, expected 1");
    if (result->graphs[0].nodes.size() != decodeGraph().nodes.size())
        fail(std::string(what) + " gives " + std::to_string(result->graphs[0].nodes.size()) + " nodes, expected "
            + std::to_string(decodeGraph().nodes.size()));
    if (!result->diagnostics.empty())
        fail(std::string(what) + " reports " + std::to_string(result->diagnostics.size())
            + " diagnostics, the first: " + result->diagnostics[0].toString());
}

const std::string& fxCodeText()
{
    static const std::string text = [] {
        std::string t = engine::readers::writeFxCode(decodeGraph());
        checkRead("readFxCode", t,
            [](const std::string& s, const std::string& p) { return engine::readers::readFxCode(s, p); });
        if (const char* out = std::getenv("ACLGI_BENCH_FX_OUT"); out && *out) {
            std::ofstream f(out, std::ios::binary | std::ios::trunc);
            f << t;
            if (!f.flush())
                fail(std::string("cannot write ACLGI_BENCH_FX_OUT=") + out);
        }
        return t;
    }();
    return text;
}

const std::string& graphDumpText()
{
    static const std::string text = [] {
        std::string t = writeGraphDump(decodeGraph());
        checkRead("readFxGraphDump", t,
            [](const std::string& s, const std::string& p) { return engine::readers::readFxGraphDump(s, p); });
        return t;
    }();
    return text;
}

template <typename ReadFn> void runRead(benchmark::State& state, const std::string& text, ReadFn read)
{
    const std::string path = "<bench-decoder80>";
    size_t nodes = 0;
    for (auto _ : state) {
        auto result = read(text, path);
        if (!result) {
            state.SkipWithError(result.error().toString().c_str());
            return;
        }
        nodes = result->graphs[0].nodes.size();
        benchmark::DoNotOptimize(result);
        // Destroying the result (the graph IR) is part of a read's cost: it stays in the timed region.
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(nodes)); // items_per_second = nodes/s
    state.counters["nodes"] = benchmark::Counter(double(nodes));
    state.counters["file_bytes"]
        = benchmark::Counter(double(text.size()), benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
}

/// The readable code (print_readable / fx_graph_readable.py form): lexing, parsing, annotations,
/// symbolic sizes, `= None` tails, Graph::finalize.
void BM_ReadFxCode_Decoder80(benchmark::State& state)
{
    runRead(state, fxCodeText(),
        [](const std::string& s, const std::string& p) { return engine::readers::readFxCode(s, p); });
}

/// The print(gm.graph) form of the same graph (no tensor metadata in this form).
void BM_ReadFxGraphDump_Decoder80(benchmark::State& state)
{
    runRead(state, graphDumpText(),
        [](const std::string& s, const std::string& p) { return engine::readers::readFxGraphDump(s, p); });
}

} // namespace

BENCHMARK(BM_ReadFxCode_Decoder80)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadFxGraphDump_Decoder80)->Unit(benchmark::kMillisecond);
