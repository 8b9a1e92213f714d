// Writing to the project database (storage/): the graphs of a generated 80-layer decoder (graphs,
// nodes, node arguments, users, tensors) and a 10,000-call simulation run of it (calls, events,
// hazards, owners, memory changes and keyframes), each into a fresh project file in one transaction,
// as the importer and `simulate --db` do. Speed is reported, never asserted: scripts/bench.sh hands
// the last iteration's project files to scripts/bench_storage.py, which exports the same rows as CSV
// and times the sqlite3 command-line tool's `.import` of them into the same schema, in the same run.
// See bench/README.md.
//
// Environment: ACLGI_BENCH_STORE_DIR names the folder for the project files (default: a temporary
// folder, removed afterwards). Counters: rows (rows written per iteration), rows_per_second, db_mib.
#include "engine/runtime/memory_timeline.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/decoder_generator.h"
#include "engine/scenario/scenario.h"
#include "storage/graph_store.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

constexpr int kDecodeCalls = 9999; // + 1 prompt call = 10,000 calls

/// 80 layers at the generator's small default sizes: the rows a graph makes depend on its nodes, not
/// on its tensor sizes, and a 10,000-call run of it fits the default 64 GiB device.
engine::scenario::DecoderSpec decoder80()
{
    engine::scenario::DecoderSpec spec;
    spec.layers = 80;
    return spec;
}

const engine::scenario::Scenario& scenario()
{
    static const engine::scenario::Scenario s = [] {
        const std::string text = engine::scenario::decoderScenarioJson(decoder80(),
            R"({"experimental_config.frozen_parameter": true})", { 1, 2, 4, 8 }, kDecodeCalls, "bench-decoder80",
            "aclgi_bench: 80-layer decoder, 1 prompt + 9,999 decode calls over four batch sizes");
        auto parsed = engine::scenario::parseScenario(text, "<bench-decoder80>");
        if (!parsed) {
            std::fprintf(
                stderr, "storage_bench: generated scenario does not parse: %s\n", parsed.error().toString().c_str());
            std::abort();
        }
        return std::move(parsed).value();
    }();
    return s;
}

std::string storeDir()
{
    const char* dir = std::getenv("ACLGI_BENCH_STORE_DIR");
    if (dir && *dir) {
        fs::create_directories(dir);
        return dir;
    }
    static const std::string tmp = (fs::temp_directory_path() / ("aclgi-bench-" + std::to_string(getpid()))).string();
    fs::create_directories(tmp);
    return tmp;
}

void removeProject(const std::string& path)
{
    for (const char* suffix : { "", "-wal", "-shm" })
        fs::remove(path + suffix);
}

/// Times `write` into a fresh project file per iteration (opening and removing the file not timed).
template <typename Write> void measure(benchmark::State& state, const std::string& name, Write write)
{
    const std::string path = storeDir() + "/" + name;
    int64_t rows = 0;
    double seconds = 0;
    for (auto _ : state) {
        state.PauseTiming();
        removeProject(path);
        auto db = storage::openProject(path);
        if (!db) {
            state.SkipWithError(db.error().toString().c_str());
            return;
        }
        state.ResumeTiming();
        const auto t0 = std::chrono::steady_clock::now();
        auto tx = storage::Transaction::begin(*db);
        storage::WriteContext ctx(*db);
        auto r = write(ctx);
        if (r.ok() && tx.ok())
            r = tx->commit();
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!tx || !r) {
            state.SkipWithError((!tx ? tx.error() : r.error()).toString().c_str());
            return;
        }
        rows = ctx.rows();
    }
    state.counters["rows"] = double(rows);
    state.counters["rows_per_second"] = seconds > 0 ? double(rows) * double(state.iterations()) / seconds : 0;
    std::error_code ec;
    state.counters["db_mib"] = double(fs::file_size(path, ec) + fs::file_size(path + "-wal", ec)) / double(1 << 20);
}

void BM_Store_Decoder80Graphs(benchmark::State& state)
{
    const auto& s = scenario();
    measure(state, "decoder80-graphs.aclgi", [&](storage::WriteContext& ctx) -> engine::Result<void> {
        // The graphs need a source to belong to.
        auto src = ctx.db().exec("INSERT INTO sources(path, kind, size, content_hash, imported_at) "
                                 "VALUES ('<bench-decoder80>', 'scenario', 0, 'bench', '2026-01-01T00:00:00Z')");
        if (!src)
            return src.error();
        storage::GraphPlace place;
        place.sourceId = ctx.db().lastInsertRowId();
        place.group = place.file = "<bench-decoder80>";
        for (const engine::Graph& g : s.graphs)
            if (auto id = storage::writeGraph(ctx, g, place); !id)
                return id.error();
        return {};
    });
}
BENCHMARK(BM_Store_Decoder80Graphs)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Store_Run10000Calls(benchmark::State& state)
{
    // Simulated once, outside the timing, with the memory timeline the store writes.
    static engine::runtime::MemoryTimeline timeline(256);
    static const engine::runtime::Simulation sim = [] {
        engine::runtime::SimulationOptions options;
        options.observeMemory = [](const engine::runtime::Event& e, const engine::memory::DeviceAllocators& a) {
            timeline.observe(e.index, a);
        };
        auto r = engine::runtime::simulate(scenario(), options);
        if (!r) {
            std::fprintf(stderr, "storage_bench: simulation failed: %s\n", r.error().toString().c_str());
            std::abort();
        }
        return std::move(r).value();
    }();
    if (sim.outOfMemory) {
        state.SkipWithError("the simulated device ran out of memory");
        return;
    }
    storage::RunPlace place;
    place.backend = "torchair";
    measure(state, "decoder80-run10000.aclgi", [&](storage::WriteContext& ctx) -> engine::Result<void> {
        auto id = storage::writeRun(ctx, sim, place, &timeline);
        if (!id)
            return id.error();
        return {};
    });
    state.counters["calls"] = double(sim.callsSimulated);
    state.counters["events"] = double(sim.events.size());
}
BENCHMARK(BM_Store_Run10000Calls)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace
