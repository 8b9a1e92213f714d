// Simulated calls per second of the aclgraph runtime model (engine/runtime/simulator.h) on a synthetic
// 32-layer LLaMA-like decoder (engine/scenario/decoder_generator.h): one prompt call, then 10,000
// decode calls. Speed is reported, never asserted: scripts/bench.sh prints every benchmark's calls/s
// as a ratio against BM_Decode32_Eager_Baseline, measured in the same run. See bench/README.md.
#include "engine/runtime/simulator.h"
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kDecodeCalls = 10000;
constexpr int kIterations = 3; // each iteration is a whole 10,001-call simulation

const char* const kFrozenConfig = R"({"experimental_config.frozen_parameter": true})";
const char* const kEagerConfig = R"({"experimental_config.frozen_parameter": true, "debug.run_eagerly": true})";

engine::scenario::DecoderSpec decoder32(bool cuda = false)
{
    engine::scenario::DecoderSpec spec;
    spec.layers = 32;
    spec.hidden = 4096;
    spec.intermediate = 11008;
    spec.vocab = 32000;
    spec.maxBatch = 8;
    spec.maxSeq = 2048;
    spec.promptLen = 128;
    spec.cuda = cuda; // the same model as Inductor sees it on CUDA (runtime cuda_graph_trees)
    return spec;
}

/// Generates and parses the scenario (not timed). A scenario that does not parse is a broken
/// benchmark, not a slow one: abort with the parser's message.
engine::scenario::Scenario makeScenario(const std::string& config, const std::vector<int>& batches, bool cuda = false)
{
    const std::string text = engine::scenario::decoderScenarioJson(decoder32(cuda), config, batches, kDecodeCalls,
        "bench-decoder32", "aclgi_bench: 32-layer decoder, 1 prompt + 10,000 decode calls");
    auto parsed = engine::scenario::parseScenario(text, "<bench-decoder32>");
    if (!parsed) {
        std::fprintf(stderr, "simulator_bench: generated scenario does not parse: %s\n",
            parsed.error().toString().c_str());
        std::abort();
    }
    return std::move(parsed).value();
}

void runSimulation(benchmark::State& state, const engine::scenario::Scenario& scenario, bool recordEvents)
{
    engine::runtime::SimulationOptions options;
    options.recordEvents = recordEvents;
    options.recordMemory = false;

    int calls = 0;
    size_t events = 0;
    size_t logLines = 0;
    uint64_t peakReserved = 0;
    int64_t totalCalls = 0;
    for (auto _ : state) {
        auto sim = engine::runtime::simulate(scenario, options);
        if (!sim) {
            state.SkipWithError(sim.error().toString().c_str());
            return;
        }
        if (sim->outOfMemory) {
            std::string message = "out of memory";
            for (const auto& h : sim->hazards)
                if (h.kind == engine::runtime::HazardKind::OutOfMemory) {
                    message = h.message;
                    break;
                }
            state.SkipWithError(message.c_str());
            return;
        }
        calls = sim->callsSimulated;
        events = sim->events.size();
        logLines = sim->log.size();
        peakReserved = sim->peakDeviceReserved;
        totalCalls += calls;
        // Destroying the Simulation is part of a run's cost; keep it inside the timed region.
    }
    state.SetItemsProcessed(totalCalls); // items_per_second = simulated calls per second
    // From the last iteration's Simulation (they are identical from one iteration to the next).
    state.counters["sim_calls"] = benchmark::Counter(double(calls));
    state.counters["events"] = benchmark::Counter(double(events));
    state.counters["log_lines"] = benchmark::Counter(double(logLines));
    state.counters["peak_reserved_bytes"] =
        benchmark::Counter(double(peakReserved), benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
}

/// Batch 4 only: one graph key, captured once, then replayed. Events recorded, as the CLI does.
void BM_Decode32_OneBatch(benchmark::State& state)
{
    const auto scenario = makeScenario(kFrozenConfig, { 4 });
    runSimulation(state, scenario, true);
}

/// Same calls with recordEvents=false: the runtime model alone.
void BM_Decode32_OneBatch_NoEvents(benchmark::State& state)
{
    const auto scenario = makeScenario(kFrozenConfig, { 4 });
    runSimulation(state, scenario, false);
}

/// Batches cycling 1,2,4,8: four keys of one FX graph, so every call switches key (pool rollback
/// and output rebuild on every call). Events recorded.
void BM_Decode32_FourBatches(benchmark::State& state)
{
    const auto scenario = makeScenario(kFrozenConfig, { 1, 2, 4, 8 });
    runSimulation(state, scenario, true);
}

/// The baseline: same calls as OneBatch with debug.run_eagerly, so every call simulates every op and
/// allocation in the default pool. Events recorded.
void BM_Decode32_Eager_Baseline(benchmark::State& state)
{
    const auto scenario = makeScenario(kEagerConfig, { 4 });
    runSimulation(state, scenario, true);
}

/// The CUDA Graph Trees runtime (engine/runtime/cgt) on the same model and calls as OneBatch: the
/// prompt warms up, decode warms up, records, then 9,998 replays. Events recorded.
void BM_Decode32_Cuda_OneBatch(benchmark::State& state)
{
    const auto scenario = makeScenario("{}", { 4 }, true);
    runSimulation(state, scenario, true);
}

/// The CUDA Graph Trees runtime on FourBatches' calls: four sizes of one dynamic graph, so four
/// function ids recorded once each, then every call a replay of another recording. Events recorded.
void BM_Decode32_Cuda_FourBatches(benchmark::State& state)
{
    const auto scenario = makeScenario("{}", { 1, 2, 4, 8 }, true);
    runSimulation(state, scenario, true);
}

} // namespace

BENCHMARK(BM_Decode32_OneBatch)->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_Decode32_OneBatch_NoEvents)->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_Decode32_FourBatches)->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_Decode32_Eager_Baseline)->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_Decode32_Cuda_OneBatch)->Unit(benchmark::kMillisecond)->Iterations(kIterations);
BENCHMARK(BM_Decode32_Cuda_FourBatches)->Unit(benchmark::kMillisecond)->Iterations(kIterations);
