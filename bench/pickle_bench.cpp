// Reading a large pickle with the safe static reader (engine/pickle/pickle_reader.h): a ~100 MiB
// file shaped like a PyTorch memory snapshot, written by `scripts/bench_pickle.py make`. Speed is
// reported, never asserted: scripts/bench.sh compares BM_ReadPickle_Snapshot100MB with Python's
// pickletools.genops and pickle.loads over the same file, timed in the same run. See bench/README.md.
//
// Environment: ACLGI_BENCH_PICKLE=FILE names the pickle; without it the benchmark is skipped.
// Counters: doc_mib (the bytes the value tree holds), input_mib, peak_rss_mib (the process's high-water
// mark, the file's bytes included).
#include "engine/core/file_io.h"
#include "engine/pickle/pickle_reader.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <string>
#include <sys/resource.h>

namespace {

void BM_ReadPickle_Snapshot100MB(benchmark::State& state)
{
    const char* path = std::getenv("ACLGI_BENCH_PICKLE");
    if (!path || !*path) {
        state.SkipWithError("ACLGI_BENCH_PICKLE is not set (scripts/bench.sh sets it)");
        return;
    }
    auto bytes = engine::readTextFile(path, uint64_t(1) << 32, "pickles");
    if (!bytes) {
        state.SkipWithError(bytes.error().toString().c_str());
        return;
    }
    double docBytes = 0;
    for (auto _ : state) {
        auto doc = engine::pickle::readPickle(bytes.value(), path);
        if (!doc) {
            state.SkipWithError(doc.error().toString().c_str());
            return;
        }
        // What the tree holds (capacity reserved but never touched costs address space, not memory).
        docBytes = double(doc->values.size() * sizeof(engine::pickle::Value) + doc->children.size() * sizeof(uint32_t)
            + doc->text.size());
        benchmark::DoNotOptimize(doc->root);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double mib = double(1 << 20);
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes->size()));
    state.counters["input_mib"] = double(bytes->size()) / mib;
    state.counters["doc_mib"] = docBytes / mib;
    state.counters["peak_rss_mib"] = double(usage.ru_maxrss) * 1024 / mib;
}
BENCHMARK(BM_ReadPickle_Snapshot100MB)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace
