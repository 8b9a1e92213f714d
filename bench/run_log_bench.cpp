// Importing a large run log (engine/ingest/run_log.h streamed into a project by storage's importer):
// a file written by `scripts/bench_runlog.py make FILE --mib N` (real PyTorch 2.11 stderr lines and a
// TorchAir-form log, repeated). scripts/bench_runlog.py runs these benchmarks alone in their own
// process (so the peak RSS is the import's) and times `grep -c` of the same file in the same run.
// Speed is reported, never asserted (bench/README.md).
//
// Environment: ACLGI_BENCH_RUNLOG=FILE names the log; without it the benchmarks are skipped.
// Counters: input_mib, peak_rss_mib (the process's high-water mark), rss_per_input, progress_reports,
// calls and events (every run's, as stored); the cancel benchmark: cancelled_at (the fraction of the
// file read when the import stopped) and runs_left (0: the source rolled back whole).
#include "engine/ingest/run_log.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

const char* logPath(benchmark::State& state, struct stat& st)
{
    const char* path = std::getenv("ACLGI_BENCH_RUNLOG");
    if (!path || !*path || ::stat(path, &st) != 0) {
        state.SkipWithError("ACLGI_BENCH_RUNLOG names no file (scripts/bench_runlog.py sets it)");
        return nullptr;
    }
    return path;
}

std::string projectPath()
{
    return (std::filesystem::temp_directory_path() / ("aclgi_bench_runlog_" + std::to_string(::getpid()) + ".aclgi"))
        .string();
}

double peakRss()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) * 1024;
}

void BM_ImportRunLog(benchmark::State& state)
{
    struct stat st;
    const char* path = logPath(state, st);
    if (!path)
        return;
    const std::string db = projectPath();
    double reports = 0, calls = 0, events = 0;
    for (auto _ : state) {
        std::filesystem::remove(db);
        storage::ImportOptions options;
        options.runPasses = false;
        options.progress
            = [&](const storage::ImportProgress& p) { reports += p.unit == "bytes" && p.phase == "reading the log"; };
        auto r = storage::importPaths(db, { path }, options);
        if (!r || r->empty() || r->front().status != storage::SourceResult::Status::Imported) {
            state.SkipWithError(r ? r->front().message.c_str() : r.error().toString().c_str());
            return;
        }
    }
    auto project = storage::openProject(db);
    if (project)
        if (auto runs = storage::listRuns(*project))
            for (const auto& row : *runs) {
                calls += double(row.calls);
                events += double(row.events);
            }
    std::filesystem::remove(db);
    const double mib = double(1 << 20), rss = peakRss();
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(st.st_size));
    state.counters["input_mib"] = double(st.st_size) / mib;
    state.counters["peak_rss_mib"] = rss / mib;
    state.counters["rss_per_input"] = rss / double(st.st_size);
    state.counters["progress_reports"] = reports / double(state.iterations());
    state.counters["calls"] = calls;
    state.counters["events"] = events;
}
BENCHMARK(BM_ImportRunLog)->Unit(benchmark::kMillisecond)->Iterations(1);

/// The reader alone (the same file, its runs streamed into a sink that only counts): how much of the
/// import's time is reading.
class CountingSink : public engine::ingest::LogRunSink {
public:
    explicit CountingSink(double& steps)
        : m_steps(steps)
    {
    }
    engine::Result<void> begin(const engine::runtime::Simulation&) override { return {}; }
    engine::Result<void> step(const engine::runtime::Event&) override
    {
        ++m_steps;
        return {};
    }
    engine::Result<void> call(const engine::runtime::CallRecord&) override { return {}; }
    engine::Result<void> end(const engine::ingest::LogRun&, int) override { return {}; }

private:
    double& m_steps;
};

void BM_ReadRunLog(benchmark::State& state)
{
    struct stat st;
    const char* path = logPath(state, st);
    if (!path)
        return;
    double steps = 0, calls = 0;
    for (auto _ : state) {
        steps = calls = 0;
        engine::ingest::RunLogOptions options;
        options.sinks = [&steps] { return std::make_unique<CountingSink>(steps); };
        auto log = engine::ingest::readRunLog(path, options);
        if (!log) {
            state.SkipWithError(log.error().toString().c_str());
            return;
        }
        for (const auto& run : log->runs)
            calls += run.sim.callsSimulated;
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(st.st_size));
    state.counters["calls"] = calls;
    state.counters["events"] = steps;
    state.counters["peak_rss_mib"] = peakRss() / double(1 << 20);
}
BENCHMARK(BM_ReadRunLog)->Unit(benchmark::kMillisecond)->Iterations(1);

/// The same import cancelled once half the file is read: how soon it stops, and that nothing of
/// the source stays.
void BM_ImportRunLog_CancelHalfway(benchmark::State& state)
{
    struct stat st;
    const char* path = logPath(state, st);
    if (!path)
        return;
    const std::string db = projectPath();
    double at = 0, left = -1;
    for (auto _ : state) {
        std::filesystem::remove(db);
        uint64_t done = 0, total = 1;
        storage::ImportOptions options;
        options.runPasses = false;
        options.progress = [&](const storage::ImportProgress& p) {
            if (p.unit == "bytes" && p.phase == "reading the log") { // not the content hash before it
                done = p.done;
                total = std::max<uint64_t>(1, p.total);
            }
        };
        options.cancelled = [&] { return done * 2 >= total; };
        auto r = storage::importPaths(db, { path }, options);
        if (!r || r->empty() || r->front().status != storage::SourceResult::Status::Cancelled) {
            state.SkipWithError("the import was not cancelled");
            return;
        }
        at = double(done) / double(total);
    }
    if (auto project = storage::openProject(db))
        if (auto runs = storage::listRuns(*project))
            left = double(runs->size());
    std::filesystem::remove(db);
    state.counters["cancelled_at"] = at;
    state.counters["runs_left"] = left;
    state.counters["peak_rss_mib"] = peakRss() / double(1 << 20);
}
BENCHMARK(BM_ImportRunLog_CancelHalfway)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
