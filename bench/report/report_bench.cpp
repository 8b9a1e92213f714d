// Writing the report of the 80-layer decoder project (issue 7): the project is made once (the
// generated 80-layer decoder scenario imported with its passes and simulated: 1 prompt call and 99
// decode calls over four batch sizes), then each benchmark writes a report of it, as File > Export
// Report and `aclgraph-inspector report PROJECT -o FILE` do: the runs, each FX graph's stored pass
// reports and its folded drawing (Graphviz in process), the memory chart.
//
// The baseline, in the same run, is reading the project's runs (storage::listRuns + readRun), the
// least any report of them does; the ratios are printed by scripts/bench_report.py.
#include "engine/scenario/decoder_generator.h"
#include "gui/report/report_builder.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/run_store.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

constexpr int kDecodeCalls = 99; // + 1 prompt call

fs::path workDir()
{
    static const fs::path dir = [] {
        const char* env = std::getenv("ACLGI_BENCH_REPORT_DIR");
        fs::path d = env && *env ? fs::path(env)
                                 : fs::temp_directory_path() / ("aclgi-report-bench-" + std::to_string(getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

/// The project, made on first use.
const std::string& project()
{
    static const std::string path = [] {
        engine::scenario::DecoderSpec spec;
        spec.layers = 80;
        const std::string text = engine::scenario::decoderScenarioJson(spec,
            R"({"experimental_config.frozen_parameter": true})", { 1, 2, 4, 8 }, kDecodeCalls, "bench-decoder80",
            "aclgi_report_bench: 80-layer decoder, 1 prompt + 99 decode calls over four batch sizes");
        const fs::path scenario = workDir() / "decoder80.json";
        std::ofstream(scenario) << text;
        const std::string db = (workDir() / "decoder80.aclgi").string();
        for (const char* suffix : { "", "-wal", "-shm" })
            fs::remove(db + suffix);
        storage::ImportOptions options;
        options.simulateScenarios = true;
        auto imported = storage::importPaths(db, { scenario.string() }, options);
        using Status = storage::SourceResult::Status;
        if (!imported || imported->empty() || imported->front().status != Status::Imported) {
            std::fprintf(stderr, "report_bench: cannot make the project: %s\n",
                !imported               ? imported.error().toString().c_str()
                    : imported->empty() ? "nothing imported"
                                        : imported->front().message.c_str());
            std::abort();
        }
        return db;
    }();
    return path;
}

void BM_Report_Decoder80_ReadRuns_Baseline(benchmark::State& state)
{
    const std::string& path = project();
    for (auto _ : state) {
        storage::Database::OpenOptions readOnly;
        readOnly.readOnly = true;
        readOnly.create = false;
        auto db = storage::openProject(path, readOnly);
        auto list = db ? storage::listRuns(*db) : engine::Result<std::vector<storage::RunRow>>(db.error());
        if (!list) {
            state.SkipWithError(list.error().toString().c_str());
            return;
        }
        for (const storage::RunRow& row : *list) {
            auto run = storage::readRun(*db, row.id);
            if (!run) {
                state.SkipWithError(run.error().toString().c_str());
                return;
            }
            benchmark::DoNotOptimize(run->sim.calls.size());
        }
    }
}

/// The document built and written as `extension` (".json", ".html", ...).
void writeReportAs(benchmark::State& state, const std::string& extension)
{
    gui::report::ReportRequest request;
    request.inputs = { project() };
    const std::string out = (workDir() / ("decoder80-report" + extension)).string();
    for (auto _ : state) {
        auto json = gui::report::buildReportJson(request);
        auto written = json ? gui::report::writeReport(*json, out) : engine::Result<void>(json.error());
        if (!written) {
            state.SkipWithError(written.error().toString().c_str());
            return;
        }
    }
    std::error_code ec;
    state.counters["file_kib"] = double(fs::file_size(out, ec)) / 1024.0;
}

void BM_Report_Decoder80_Json(benchmark::State& state)
{
    writeReportAs(state, ".json");
}
void BM_Report_Decoder80_Html(benchmark::State& state)
{
    writeReportAs(state, ".html");
}
/// With no Qt application running, as the CLI: reportPdf starts an offscreen one per call.
void BM_Report_Decoder80_Pdf(benchmark::State& state)
{
    writeReportAs(state, ".pdf");
}

} // namespace

BENCHMARK(BM_Report_Decoder80_ReadRuns_Baseline)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Report_Decoder80_Json)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Report_Decoder80_Html)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Report_Decoder80_Pdf)->Unit(benchmark::kMillisecond)->MinTime(1.0);
