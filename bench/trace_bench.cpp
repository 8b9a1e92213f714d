// Reading a large TORCH_TRACE log with engine::readers::trace::readTorchTrace (streamed, md5 checked,
// grouped by compile id; engine/readers/torch_trace.h): a file written by
// `scripts/bench_trace.py make FILE --mib N` (the real records of tests/data/real/compile/c_trace.log
// repeated with renumbered frame ids). scripts/bench.sh makes the file once, runs this benchmark and
// then times the Python baseline (json.loads + hashlib.md5 + a dict of lists) on the same file with
// `scripts/bench_trace.py compare`. Speed is reported, never asserted. See bench/README.md.
//
// Environment: ACLGI_BENCH_TRACE=FILE names the log; without it the benchmark is skipped.
// Counters: bytes_per_second, input_mib, compiles, records, md5_mismatches, text_mib and
// text_capacity_mib (payload text the result holds: size and allocated capacity), peak_rss_mib (VmHWM of
// the process: run the benchmark alone, --benchmark_filter=BM_ReadTorchTrace, for it to be the
// reader's), rss_per_input.
#include "engine/readers/torch_trace.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace {

/// The process's peak resident set (VmHWM in /proc/self/status), in bytes; 0 when unknown.
double peakRssBytes()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) * 1024; // "VmHWM:   123456 kB"
    }
    return 0;
}

void BM_ReadTorchTrace(benchmark::State& state)
{
    const char* path = std::getenv("ACLGI_BENCH_TRACE");
    if (!path || !*path) {
        state.SkipWithError("ACLGI_BENCH_TRACE is not set (scripts/bench.sh sets it)");
        return;
    }
    struct stat st;
    if (::stat(path, &st) != 0) {
        state.SkipWithError("ACLGI_BENCH_TRACE names no file");
        return;
    }
    double compiles = 0, records = 0, mismatches = 0, held = 0, capacity = 0;
    for (auto _ : state) {
        auto trace = engine::readers::trace::readTorchTrace(path);
        if (!trace) {
            state.SkipWithError(trace.error().toString().c_str());
            return;
        }
        compiles = double(trace->compiles.size());
        records = double(trace->records);
        mismatches = held = capacity = 0;
        auto text = [&](const std::string& t) {
            held += double(t.size());
            capacity += double(t.capacity());
        };
        for (const auto& c : trace->compiles) {
            for (const auto* list : { &c.graphs, &c.artifacts })
                for (const auto& p : *list) {
                    mismatches += p.md5Ok ? 0 : 1;
                    text(p.text);
                }
            if (c.outputCode) {
                mismatches += c.outputCode->md5Ok ? 0 : 1;
                text(c.outputCode->text);
            }
            text(c.guards);
            text(c.metricsJson);
        }
        benchmark::DoNotOptimize(trace->compiles.data());
    }
    const double mib = double(1 << 20);
    const double rss = peakRssBytes();
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(st.st_size));
    state.counters["input_mib"] = double(st.st_size) / mib;
    state.counters["compiles"] = compiles;
    state.counters["records"] = records;
    state.counters["md5_mismatches"] = mismatches;
    state.counters["text_mib"] = held / mib;
    state.counters["text_capacity_mib"] = capacity / mib;
    state.counters["peak_rss_mib"] = rss / mib;
    state.counters["rss_per_input"] = rss / double(st.st_size);
}
BENCHMARK(BM_ReadTorchTrace)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
