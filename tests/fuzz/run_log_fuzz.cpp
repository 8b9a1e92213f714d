// libFuzzer target for the run-log reader (engine/ingest/run_log.h; scripts/fuzz.sh run_log SECONDS).
// Any input must be read without a crash, leak, hang or sanitizer report; an error must name the file.
// What reads must be whole: the file read in chunks (readRunLog) gives the runs the text read at once
// (readRunLogText) gives; every call's steps lie inside the run's events and belong to it; every line
// kept names a line of the input; every run's lines lie inside the file.
#include "engine/ingest/run_log.h"
#include "tests/fuzz/error_form_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "run_log_fuzz: %s\n", what.c_str());
    std::abort();
}

struct TempFile {
    std::string path
        = (std::filesystem::temp_directory_path() / ("aclgi_run_log_fuzz_" + std::to_string(::getpid()) + ".log"))
              .string();
    ~TempFile()
    {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

void checkRun(const engine::ingest::RunLog& log, const engine::ingest::LogRun& run)
{
    const auto& sim = run.sim;
    if (run.firstLine < 1 || run.lastLine > log.lines || run.firstLine > run.lastLine)
        fail("a run's lines outside the file");
    if (sim.origin.kind != engine::runtime::RunOriginKind::Recorded || !sim.origin.log)
        fail("a log's run that is not a recorded log");
    if (sim.callsSimulated != int(sim.calls.size()))
        fail("callsSimulated differs from the calls");
    for (size_t i = 0; i < sim.calls.size(); ++i) {
        const auto& c = sim.calls[i];
        if (c.index != int(i))
            fail("a call out of order");
        if (c.firstEvent < 0 || c.eventCount < 0 || c.firstEvent + c.eventCount > int(sim.events.size()))
            fail("a call's steps outside the events");
        for (int e = c.firstEvent; e < c.firstEvent + c.eventCount; ++e)
            if (sim.events[size_t(e)].call != c.index)
                fail("a call's step names another call");
    }
    for (size_t i = 0; i < sim.events.size(); ++i) {
        if (sim.events[i].index != int(i))
            fail("an event out of order");
        for (const auto& l : sim.events[i].log)
            if (l.sourceLine < 1 || l.sourceLine > log.lines)
                fail("a line kept with a line number outside the file");
    }
    for (const auto& h : sim.hazards)
        if (h.call > int(sim.calls.size()))
            fail("a hazard at a call past the end");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static TempFile file;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    {
        std::ofstream out(file.path, std::ios::binary | std::ios::trunc);
        out.write(text.data(), std::streamsize(text.size()));
        if (!out)
            fail("cannot write " + file.path);
    }
    (void)engine::ingest::looksLikeRunLog(text);
    auto chunked = engine::ingest::readRunLog(file.path);
    auto whole = engine::ingest::readRunLogText(text, file.path);
    if (chunked.ok() != whole.ok())
        fail("the file read in chunks and the text read at once disagree on whether it is a log");
    if (!chunked.ok()) {
        checkErrorForm("run_log_fuzz", chunked.error(), file.path);
        checkErrorForm("run_log_fuzz", whole.error(), file.path);
        return 0;
    }
    if (chunked->runs.size() != whole->runs.size() || chunked->lines != whole->lines)
        fail("the file read in chunks and the text read at once give other runs");
    for (size_t i = 0; i < chunked->runs.size(); ++i) {
        if (chunked->runs[i].sim.calls.size() != whole->runs[i].sim.calls.size())
            fail("the file read in chunks and the text read at once give other calls");
        checkRun(*chunked, chunked->runs[i]);
    }
    return 0;
}
