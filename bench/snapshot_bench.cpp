// Loading a large memory snapshot with the streaming reader (engine/snapshot/memory_snapshot.h):
// a file written by `tests/data/snapshots/make_snapshot_fixtures.py --large FILE --mib N`.
// scripts/bench_snapshot.py runs this benchmark alone in its own process (so that the peak RSS is
// the reader's) and times Python's pickle.load of the same file in the same run. Speed is reported,
// never asserted. See bench/README.md.
//
// Environment: ACLGI_BENCH_SNAPSHOT=FILE names the snapshot; without it the benchmark is skipped.
// Counters: input_mib, peak_rss_mib (the process's high-water mark), rss_per_input (the ratio the
// issue bounds by 3), entries (trace entries read).
#include "engine/snapshot/memory_snapshot.h"
#include "engine/snapshot/snapshot_run.h"
#include "engine/snapshot/trace_walker.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>

namespace {

void BM_ReadSnapshotFile(benchmark::State& state)
{
    const char* path = std::getenv("ACLGI_BENCH_SNAPSHOT");
    if (!path || !*path) {
        state.SkipWithError("ACLGI_BENCH_SNAPSHOT is not set (scripts/bench_snapshot.py sets it)");
        return;
    }
    struct stat st;
    if (::stat(path, &st) != 0) {
        state.SkipWithError("ACLGI_BENCH_SNAPSHOT names no file");
        return;
    }
    double entries = 0;
    for (auto _ : state) {
        auto snap = engine::snapshot::readSnapshotFile(path);
        if (!snap) {
            state.SkipWithError(snap.error().toString().c_str());
            return;
        }
        entries = 0;
        for (const auto& trace : snap->deviceTraces)
            entries += double(trace.size());
        benchmark::DoNotOptimize(snap->segments.data());
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double mib = double(1 << 20);
    const double rss = double(usage.ru_maxrss) * 1024;
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(st.st_size));
    state.counters["input_mib"] = double(st.st_size) / mib;
    state.counters["peak_rss_mib"] = rss / mib;
    state.counters["rss_per_input"] = rss / double(st.st_size);
    state.counters["entries"] = entries;
}
BENCHMARK(BM_ReadSnapshotFile)->Unit(benchmark::kMillisecond)->Iterations(1);

/// The file read and its first memory view: device 0's memory as the snapshot was taken (every
/// segment and block of the file as the Memory view draws them), before any replay of the trace.
void BM_ReadAndFirstView(benchmark::State& state)
{
    const char* path = std::getenv("ACLGI_BENCH_SNAPSHOT");
    struct stat st;
    if (!path || !*path || ::stat(path, &st) != 0) {
        state.SkipWithError("ACLGI_BENCH_SNAPSHOT names no file (scripts/bench_snapshot.py sets it)");
        return;
    }
    double blocks = 0;
    for (auto _ : state) {
        auto snap = engine::snapshot::readSnapshotFile(path);
        if (!snap) {
            state.SkipWithError(snap.error().toString().c_str());
            return;
        }
        engine::snapshot::detail::TraceWalker walker(*snap, 0);
        const engine::runtime::MemoryState view = walker.state();
        blocks = double(view.blocks.size());
        benchmark::DoNotOptimize(view.segments.size());
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double rss = double(usage.ru_maxrss) * 1024;
    state.counters["peak_rss_mib"] = rss / double(1 << 20);
    state.counters["rss_per_input"] = rss / double(st.st_size);
    state.counters["blocks"] = blocks;
}
BENCHMARK(BM_ReadAndFirstView)->Unit(benchmark::kMillisecond)->Iterations(1);

/// Counts what a stream delivers, keeping nothing: the replay's own cost and memory.
class CountingSink : public engine::runtime::RunSink {
public:
    engine::Result<void> begin(const engine::runtime::Simulation&) override { return {}; }
    engine::Result<void> owner(engine::memory::OwnerId, const engine::runtime::OwnerInfo&) override
    {
        ++owners;
        return {};
    }
    engine::Result<void> step(const engine::runtime::Event&, const engine::runtime::MemoryDelta& delta,
        const engine::runtime::MemoryState* keyframe) override
    {
        ++steps;
        changes += double(delta.segments.size() + delta.blocks.size());
        if (keyframe)
            keyframeEntries += double(keyframe->segments.size() + keyframe->blocks.size());
        return {};
    }
    engine::Result<void> end(const engine::runtime::RunTotals&) override { return {}; }
    double owners = 0, steps = 0, changes = 0, keyframeEntries = 0;
};

/// The file read, then device 0 replayed into steps (streamSnapshotRun, as the import does before
/// writing): time and peak memory of both together, the bound the issue sets for a load.
void BM_ReadAndStreamSnapshot(benchmark::State& state)
{
    const char* path = std::getenv("ACLGI_BENCH_SNAPSHOT");
    struct stat st;
    if (!path || !*path || ::stat(path, &st) != 0) {
        state.SkipWithError("ACLGI_BENCH_SNAPSHOT names no file (scripts/bench_snapshot.py sets it)");
        return;
    }
    CountingSink sink;
    for (auto _ : state) {
        auto snap = engine::snapshot::readSnapshotFile(path);
        if (!snap) {
            state.SkipWithError(snap.error().toString().c_str());
            return;
        }
        sink = CountingSink();
        if (auto r = engine::snapshot::streamSnapshotRun(*snap, 0, sink); !r) {
            state.SkipWithError(r.error().toString().c_str());
            return;
        }
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double rss = double(usage.ru_maxrss) * 1024;
    state.counters["peak_rss_mib"] = rss / double(1 << 20);
    state.counters["rss_per_input"] = rss / double(st.st_size);
    state.counters["steps"] = sink.steps;
    state.counters["owners"] = sink.owners;
    state.counters["changes"] = sink.changes;
    state.counters["keyframe_entries"] = sink.keyframeEntries;
}
BENCHMARK(BM_ReadAndStreamSnapshot)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
