// The log reader (engine/ingest/run_log.h): every line form, and the round trip: every sample and test
// scenario simulated, its log written the ways a job writes it (the simulator's own output, TorchAir's
// logger form, INFO only, ranks interleaved, foreign lines between, cut), read back, gives the calls,
// actions, causes and memory states of the simulation that wrote it.
#include "engine/ingest/run_log.h"
#include "engine/report/simulation_report.h"
#include "engine/scenario/load.h"
#include "engine/scenario/log_scenario.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

namespace {

using engine::ingest::LogEntry;
using engine::ingest::LogFormat;
using engine::ingest::parseLogLine;
using engine::ingest::readRunLogText;
using engine::runtime::CallAction;
using engine::runtime::LogLevel;
using engine::runtime::Simulation;

TEST(LogLine, TorchairLoggerForm)
{
    const LogEntry e = parseLogLine("[INFO] TORCHAIR(4242,python3):2026-11-27 10:00:01.002.003 [acl_graph.py:402]4243 "
                                    "Find captured AclGraph{id: 1} of fx_graph graph_1 with graph key {[8]}.",
        7);
    EXPECT_EQ(e.format, LogFormat::Torchair);
    EXPECT_EQ(e.line, 7);
    EXPECT_EQ(e.level, LogLevel::Info);
    EXPECT_EQ(e.logger, "TORCHAIR");
    EXPECT_EQ(e.pid, 4242);
    EXPECT_EQ(e.source, "acl_graph.py:402");
    EXPECT_EQ(e.timeUs % 1000000, 2003);
    EXPECT_EQ(e.message, "Find captured AclGraph{id: 1} of fx_graph graph_1 with graph key {[8]}.");

    const LogEntry n = parseLogLine("[DEBUG] NPUGRAPH_EX(7,python):2026-01-02 03:04:05.006.007 [utils.py:9]7 x y", 1);
    EXPECT_EQ(n.format, LogFormat::Torchair);
    EXPECT_EQ(n.logger, "NPUGRAPH_EX");
    EXPECT_EQ(n.level, LogLevel::Debug);
    EXPECT_EQ(n.message, "x y");
}

TEST(LogLine, ShortSimulatorWarningAndGlogForms)
{
    const LogEntry s = parseLogLine("[INFO] TORCHAIR 2024-04-30 14:48:18 Cache ModelCacheMeta(...) saved to /p", 1);
    EXPECT_EQ(s.format, LogFormat::TorchairShort);
    EXPECT_EQ(s.message, "Cache ModelCacheMeta(...) saved to /p");

    const LogEntry sim = parseLogLine("[WARNING] TORCHAIR call 12: The capture_limit reached ...", 2);
    EXPECT_EQ(sim.format, LogFormat::Simulator);
    EXPECT_EQ(sim.call, 12);
    EXPECT_EQ(sim.level, LogLevel::Warning);

    const LogEntry cat = parseLogLine("UserWarning: Because acl graph fixes memory addresses, ...", 3);
    EXPECT_EQ(cat.format, LogFormat::Simulator);
    EXPECT_EQ(cat.category, "UserWarning");

    const LogEntry py
        = parseLogLine("/venv/torchair/acl_graph.py:812: UserWarning: The static_capture_size_limit x", 4);
    EXPECT_EQ(py.format, LogFormat::PythonWarning);
    EXPECT_EQ(py.source, "/venv/torchair/acl_graph.py:812");
    EXPECT_EQ(py.message, "The static_capture_size_limit x");

    const LogEntry g = parseLogLine("[rank1]:V1126 09:41:35.622000 438 torch/_inductor/scheduler.py:6545] [0/0] "
                                    "[__cudagraphs] Created 1 graph partitions\r",
        5);
    EXPECT_EQ(g.format, LogFormat::PyTorch);
    EXPECT_EQ(g.rank, "1");
    EXPECT_EQ(g.pid, 438);
    EXPECT_EQ(g.compileId, "0/0");
    EXPECT_EQ(g.artifact, "cudagraphs");
    EXPECT_EQ(g.message, "Created 1 graph partitions");

    EXPECT_EQ(parseLogLine("[default3]:[INFO] TORCHAIR call 0: x", 6).rank, "3");
    EXPECT_EQ(parseLogLine("[1,2]<stderr>:[INFO] TORCHAIR call 0: x", 6).rank, "2");
    for (const char* foreign : { "", "[   0.30s] env {\"a\": 1}", "Traceback (most recent call last):", "[INFO]",
             "[INFO] TORCHAIR(", "[INFO] TORCHAIR(12,py):2026-13-01 00:00:00 [a:1]1 x", "V1126 bad",
             "I1126 09:41:35.622000 438 nocolon] x" })
        EXPECT_EQ(parseLogLine(foreign, 1).format, LogFormat::Foreign) << foreign;
}

TEST(LogLine, RunLogDetection)
{
    std::string why;
    EXPECT_TRUE(engine::ingest::looksLikeRunLog("hello\n[INFO] TORCHAIR call 0: x\n", &why));
    EXPECT_NE(why.find("line 2"), std::string::npos) << why;
    EXPECT_TRUE(engine::ingest::looksLikeRunLog(
        "V1126 09:38:38.986000 437 torch/_dynamo/guards.py:4760] [0/1] [__recompiles] Recompiling function", &why));
    EXPECT_FALSE(engine::ingest::looksLikeRunLog("just text\nmore text\n", &why));
    EXPECT_FALSE(engine::ingest::looksLikeRunLog("V1126 09:38:38.986000 437 torch/_x.py:1] [__other] y\n", &why));
}

// ---- the round trip ------------------------------------------------------------------------------

struct Written {
    std::string name;
    Simulation sim;
    engine::scenario::Scenario scenario; ///< what was simulated
};

std::vector<Written> allRuns(bool cuda);

std::vector<Written> torchairRuns()
{
    return allRuns(false);
}

std::vector<Written> allRuns(bool cuda)
{
    std::vector<std::string> files;
    for (const char* dir : { "/resources/samples", "/tests/data/scenarios" })
        for (const auto& f : std::filesystem::directory_iterator(std::string(ACLGI_SOURCE_DIR) + dir))
            if (f.path().extension() == ".json")
                files.push_back(f.path().string());
    std::sort(files.begin(), files.end());
    std::vector<Written> out;
    for (const std::string& f : files) {
        auto scenario = engine::scenario::loadScenarioOrGraph(f);
        if (!scenario)
            continue; // a scenario that is wrong on purpose (truncated.json)
        auto sim = engine::runtime::simulate(*scenario);
        EXPECT_TRUE(sim.ok()) << f;
        if (!sim || bool(sim->cuda) != cuda)
            continue;
        out.push_back({ std::filesystem::path(f).filename().string(), std::move(sim.value()), std::move(*scenario) });
    }
    EXPECT_GE(out.size(), cuda ? 4u : 11u);
    return out;
}

/// The calls a log shows: those whose steps printed a line (an eager call after a fallback prints none).
std::vector<const engine::runtime::CallRecord*> loggedCalls(const Simulation& sim)
{
    std::vector<const engine::runtime::CallRecord*> out;
    for (const auto& c : sim.calls) {
        bool said = false;
        for (int i = c.firstEvent; i < c.firstEvent + c.eventCount; ++i)
            said = said || !sim.events[size_t(i)].log.empty();
        if (said)
            out.push_back(&c);
    }
    return out;
}

/// TorchAir's logger form of a simulated line, as a job with pid `pid` prints it.
std::string loggerLine(const engine::runtime::LogLine& l, int pid, int n, const std::string& tag)
{
    if (!l.category.empty())
        return "/usr/lib/python3/site-packages/torchair/acl_graph.py:812: " + l.category + ": " + l.text
            + "\n  warnings.warn(";
    char time[64];
    std::snprintf(
        time, sizeof time, "2026-11-27 10:%02d:%02d.%03d.%03d", (n / 60000) % 60, (n / 1000) % 60, n % 1000, n % 997);
    return "[" + std::string(engine::runtime::logLevelName(l.level)) + "] " + tag + "(" + std::to_string(pid)
        + ",python3):" + time + " [acl_graph.py:100]" + std::to_string(pid) + " " + l.text;
}

std::string loggerText(const Simulation& sim, LogLevel min, int pid = 4242, const std::string& prefix = "")
{
    const std::string tag = engine::report::logTag(sim);
    std::string out;
    int n = 0;
    for (const auto& l : sim.log)
        if (int(l.level) >= int(min) || !l.category.empty()) {
            std::string line = loggerLine(l, pid, n++, tag);
            if (!prefix.empty()) // a launcher's prefix goes on every physical line
                for (size_t at = 0; at != std::string::npos; at = line.find('\n', at + 1))
                    line.insert(at == 0 ? 0 : at + 1, prefix);
            out += line + "\n";
        }
    return out;
}

/// Checks that `read` shows the calls of `sim` that its log shows: graph, key, action, cause (when the
/// log says it) and pools (when it has memory states).
void expectSameCalls(const Simulation& sim, const Simulation& read, bool causes, bool memory, const std::string& what,
    int* statesCompared = nullptr)
{
    int ignored = 0;
    if (!statesCompared)
        statesCompared = &ignored;
    const auto calls = loggedCalls(sim);
    // A call that ran out of memory (or raised) has no record in the simulation; its log shows a capture
    // that started and never succeeded: the reader keeps it as raised.
    const bool raised = sim.outOfMemory || !sim.failure.empty();
    ASSERT_EQ(read.calls.size(), calls.size() + (raised && read.calls.size() > calls.size())) << what;
    if (read.calls.size() > calls.size()) {
        EXPECT_STREQ(callActionName(read.calls.back().action), "raised") << what;
    }
    for (size_t i = 0; i < calls.size(); ++i) {
        const auto& a = *calls[i];
        const auto& b = read.calls[i];
        const std::string at = what + " call " + std::to_string(a.index);
        EXPECT_EQ(b.graph, a.graph) << at;
        EXPECT_EQ(b.key, a.key) << at;
        EXPECT_STREQ(callActionName(b.action), callActionName(a.action)) << at;
        if (causes) {
            EXPECT_EQ(b.recaptureCause, a.recaptureCause) << at;
        }
        if (!memory || b.pools.empty())
            continue;
        // A call whose last memory state is logged after its outputs were rebuilt (its last step) ends in
        // that state: the pools read from the log are the simulation's after the call, segment by segment.
        std::string last;
        for (int e = b.firstEvent; e < b.firstEvent + b.eventCount; ++e)
            for (const auto& l : read.events[size_t(e)].log)
                if (l.text.find("memory state is {") != std::string::npos)
                    last = l.text;
        if (last.rfind("After reconstructing", 0) != 0)
            continue;
        ++*statesCompared;
        ASSERT_EQ(b.pools.size(), a.pools.size()) << at;
        for (size_t p = 0; p < a.pools.size(); ++p) {
            EXPECT_EQ(b.pools[p].pool, a.pools[p].pool) << at;
            EXPECT_EQ(b.pools[p].totalSize, a.pools[p].totalSize) << at;
            EXPECT_EQ(b.pools[p].allocatedSize, a.pools[p].allocatedSize) << at;
            EXPECT_EQ(b.pools[p].blockNum, a.pools[p].blockNum) << at;
            EXPECT_EQ(b.pools[p].activateNum, a.pools[p].activateNum) << at;
            ASSERT_EQ(b.pools[p].segments.size(), a.pools[p].segments.size()) << at;
            for (size_t g = 0; g < a.pools[p].segments.size(); ++g) {
                const auto &x = b.pools[p].segments[g], &y = a.pools[p].segments[g];
                EXPECT_EQ(x.stream, y.stream) << at << " segment " << g;
                EXPECT_EQ(x.blockNum, y.blockNum) << at << " segment " << g;
                EXPECT_EQ(x.activateNum, y.activateNum) << at << " segment " << g;
                EXPECT_EQ(x.totalSize, y.totalSize) << at << " segment " << g;
                EXPECT_EQ(x.allocatedSize, y.allocatedSize) << at << " segment " << g;
            }
        }
    }
    for (const auto& g : read.graphs) {
        if (raised && g.name == read.calls.back().graph && read.calls.size() > calls.size())
            continue; // its last capture raised: the log tells the attempt, not what it counted
        auto it = std::find_if(sim.graphs.begin(), sim.graphs.end(), [&](const auto& s) { return s.name == g.name; });
        ASSERT_NE(it, sim.graphs.end()) << what << " " << g.name;
        EXPECT_EQ(g.captures, it->captures) << what << " " << g.name;
        EXPECT_EQ(g.fallbackToEager, it->fallbackToEager) << what << " " << g.name;
        if (causes && !raised) { // the counters of a capture that raised are not logged
            EXPECT_EQ(g.recapturesMutatedInput, it->recapturesMutatedInput) << what << " " << g.name;
            EXPECT_EQ(g.recapturesCoreLimit, it->recapturesCoreLimit) << what << " " << g.name;
            EXPECT_EQ(g.counters, it->counters) << what << " " << g.name;
        }
    }
}

TEST(RunLogRoundTrip, TheSimulatorsOwnOutputReadsBackAsItsRun)
{
    int states = 0;
    for (const Written& w : torchairRuns()) {
        const std::string text = engine::report::simulationText(w.sim, LogLevel::Debug);
        auto log = readRunLogText(text, w.name + ".log");
        ASSERT_TRUE(log.ok()) << w.name << ": " << log.error().toString();
        ASSERT_EQ(log->runs.size(), 1u) << w.name;
        const Simulation& read = log->runs[0].sim;
        EXPECT_EQ(read.origin.kind, engine::runtime::RunOriginKind::Recorded);
        expectSameCalls(w.sim, read, true, true, w.name + " (simulator form)", &states);
        EXPECT_EQ(read.hazards.empty(), std::none_of(w.sim.hazards.begin(), w.sim.hazards.end(), [](const auto& h) {
            return h.kind == engine::runtime::HazardKind::Fallback
                || h.kind == engine::runtime::HazardKind::RecaptureStorm;
        })) << w.name;
    }
    EXPECT_GE(states, 5) << "calls whose pools were compared segment by segment";
}

TEST(RunLogRoundTrip, TorchairsLoggerFormWithoutCallNumbers)
{
    for (const Written& w : torchairRuns()) {
        auto log = readRunLogText(loggerText(w.sim, LogLevel::Debug), w.name + ".log");
        ASSERT_TRUE(log.ok()) << w.name << ": " << log.error().toString();
        ASSERT_EQ(log->runs.size(), 1u) << w.name;
        expectSameCalls(w.sim, log->runs[0].sim, true, true, w.name + " (logger form)");
        // Every line of the run keeps the line it came from.
        for (const auto& l : log->runs[0].sim.log)
            EXPECT_GT(l.sourceLine, 0) << w.name;
    }
}

TEST(RunLogRoundTrip, InfoOnlyLogsKeepActionsAndLeaveCausesUnknown)
{
    for (const Written& w : torchairRuns()) {
        auto log = readRunLogText(loggerText(w.sim, LogLevel::Info), w.name + ".log");
        if (!log) // a run that prints nothing at INFO
            continue;
        ASSERT_EQ(log->runs.size(), 1u) << w.name;
        expectSameCalls(w.sim, log->runs[0].sim, false, false, w.name + " (INFO)");
        // At INFO only the reset on a fallback prints a memory state.
        bool states = false;
        for (const auto& c : log->runs[0].sim.calls)
            states = states || !c.pools.empty();
        EXPECT_EQ(log->runs[0].sim.sizesUnknown.empty(), states) << w.name;
    }
}

TEST(RunLogRoundTrip, RanksInterleavedWithForeignLinesBetween)
{
    const auto runs = torchairRuns();
    ASSERT_GE(runs.size(), 2u);
    const Written& a = runs[0];
    const Written& b = runs[3];
    auto split = [](const std::string& text) {
        std::vector<std::string> lines;
        for (size_t pos = 0; pos < text.size();) {
            size_t end = text.find('\n', pos);
            lines.push_back(text.substr(pos, end - pos));
            pos = end + 1;
        }
        return lines;
    };
    const auto la = split(loggerText(a.sim, LogLevel::Debug, 100, "[rank0]:"));
    const auto lb = split(loggerText(b.sim, LogLevel::Debug, 200, "[rank1]:"));
    std::string text = "launching 2 ranks\n";
    for (size_t i = 0, j = 0; i < la.size() || j < lb.size();) {
        // Interleave whole messages: a memory state's continuation lines stay with their first line.
        auto take = [&](const std::vector<std::string>& l, size_t& k) {
            text += l[k++] + "\n";
            while (k < l.size() && l[k].find("]:(") != std::string::npos)
                text += l[k++] + "\n";
        };
        if (i < la.size())
            take(la, i);
        if (j < lb.size())
            take(lb, j);
        if ((i + j) % 7 == 0)
            text += "step " + std::to_string(i) + " loss 0.25\n";
    }
    auto log = readRunLogText(text, "ranks.log");
    ASSERT_TRUE(log.ok()) << log.error().toString();
    ASSERT_EQ(log->runs.size(), 2u);
    EXPECT_EQ(log->runs[0].label, "rank 0");
    EXPECT_EQ(log->runs[1].label, "rank 1");
    EXPECT_GT(log->foreign, 0);
    expectSameCalls(a.sim, log->runs[0].sim, true, true, a.name + " (rank 0)");
    expectSameCalls(b.sim, log->runs[1].sim, true, true, b.name + " (rank 1)");
}

TEST(RunLogRoundTrip, ALogCutAtEitherEndSaysSo)
{
    int cutReplays = 0;
    for (const Written& w : torchairRuns()) {
        const std::string text = loggerText(w.sim, LogLevel::Debug);
        const size_t third = text.find('\n', text.size() / 3);
        const size_t twoThirds = text.find('\n', 2 * text.size() / 3);
        if (third == std::string::npos || twoThirds == std::string::npos)
            continue;
        // Cut in the middle of a line at both ends: the piece of a line it starts with is foreign.
        auto log = readRunLogText(std::string_view(text).substr(third - 10, twoThirds + 25 - (third - 10)), "cut.log");
        if (!log)
            continue; // nothing of TorchAir's left
        EXPECT_GE(log->foreign, 1) << w.name;
        for (const auto& run : log->runs) {
            // A key replayed whose capture was cut off is said so, and its call stays a replay.
            std::set<std::string> captured;
            for (const auto& c : run.sim.calls) {
                if (c.action == CallAction::Capture || c.action == CallAction::Recapture)
                    captured.insert(c.graph + " " + c.key);
                if (c.action != CallAction::Replay || c.key.empty() || captured.count(c.graph + " " + c.key))
                    continue;
                const std::string said = "key {" + c.key + "}: replayed at line";
                EXPECT_TRUE(std::any_of(run.sim.assumptions.begin(), run.sim.assumptions.end(),
                    [&](const std::string& a) { return a.find(said) != std::string::npos; }))
                    << w.name << ": " << c.graph << " {" << c.key << "}";
                captured.insert(c.graph + " " + c.key);
                ++cutReplays;
            }
        }
    }
    EXPECT_GE(cutReplays, 3) << "cut logs whose first calls replay a key captured before the cut";
}

/// PyTorch's glog form of a simulated CUDA Graph Trees line: every physical line of a message prefixed,
/// as torch._logging prints it.
std::string glogText(const Simulation& sim)
{
    std::string out;
    for (const auto& l : sim.log) {
        const char level = l.level == LogLevel::Debug ? 'V' : l.level == LogLevel::Info ? 'I' : 'W';
        std::string text = l.text;
        for (size_t pos = 0;;) {
            const size_t end = text.find('\n', pos);
            out += std::string(1, level) + "1127 10:00:00.000000 4242 torch/_inductor/cudagraph_trees.py:2380] "
                + "[__cudagraphs] " + text.substr(pos, end == std::string::npos ? std::string::npos : end - pos) + "\n";
            if (end == std::string::npos)
                break;
            pos = end + 1;
        }
    }
    return out;
}

TEST(RunLogRoundTrip, CudaGraphTreesLogsReadBackAsTheirRun)
{
    for (const Written& w : allRuns(true)) {
        for (const bool glog : { false, true }) {
            const std::string text = glog ? glogText(w.sim) : engine::report::simulationText(w.sim, LogLevel::Debug);
            auto log = readRunLogText(text, w.name + ".log");
            ASSERT_TRUE(log.ok()) << w.name << ": " << log.error().toString();
            ASSERT_EQ(log->runs.size(), 1u) << w.name;
            const Simulation& read = log->runs[0].sim;
            EXPECT_EQ(read.profile, engine::memory::Profile::Cuda) << w.name;
            EXPECT_TRUE(read.origin.log) << w.name;
            expectSameCalls(w.sim, read, true, false, w.name + (glog ? " (glog form)" : " (simulator form)"));
        }
    }
}

/// The real stderr logs of the CUDA Graph Trees cases recorded with TORCH_LOGS=+cudagraphs (their
/// truth.json was derived from the trace, snapshot and log together, not by this product): the
/// warm-ups and recordings read from the log alone, in order, with their compile ids, are truth's.
TEST(RunLogReal, CudaGraphTreesCasesWarmUpAndRecordAsTheirTruthSays)
{
    const std::string dir = std::string(ACLGI_TEST_DATA_DIR) + "/real/cudagraph_cases_f/";
    std::ifstream in(dir + "truth.json");
    ASSERT_TRUE(in.good());
    const nlohmann::json truth = nlohmann::json::parse(in);
    int checked = 0;
    for (const auto& c : truth["cases"]) {
        const std::string id = c["id"];
        // f_trees_off: cudagraph_trees=False logs nothing of its recording (the old cudagraphify);
        // f_training: a backward graph warms up and records under the forward's compile id, which the
        // log does not tell apart (training is not modelled).
        if (id == "f_trees_off" || id == "f_training")
            continue;
        std::vector<std::string> expected, got;
        for (const auto& call : c["calls"]) {
            const std::string action = call["action"];
            if (action == "warmup" || action == "record") {
                std::string by = call.value("served_by", "");
                expected.push_back(action + " " + by.substr(0, by.find(' ')));
            }
        }
        auto log = engine::ingest::readRunLog(dir + id + ".log");
        ASSERT_TRUE(log.ok()) << id << ": " << log.error().toString();
        ASSERT_EQ(log->runs.size(), 1u) << id;
        for (const auto& call : log->runs[0].sim.calls)
            if (call.action == CallAction::Warmup)
                got.push_back("warmup " + call.graph);
            else if (call.action == CallAction::Capture || call.action == CallAction::Recapture)
                got.push_back("record " + call.graph);
        EXPECT_EQ(got, expected) << id;
        ++checked;
    }
    EXPECT_EQ(checked, 10);
}

TEST(RunLogReal, HazardsFromTheLogAlone)
{
    const std::string dir = std::string(ACLGI_TEST_DATA_DIR) + "/real/cudagraph_cases_f/";
    auto kinds = [&](const std::string& id) {
        auto log = engine::ingest::readRunLog(dir + id + ".log");
        std::vector<std::string> out;
        if (log)
            for (const auto& h : log->runs[0].sim.hazards)
                out.push_back(engine::runtime::hazardKindName(h.kind));
        return out;
    };
    // truth.md: d_recompile_limit hits torch._dynamo.config.recompile_limit (3) at 0/3..0/8;
    // f_kv_not_static skips cudagraphs ("mutated inputs (4 instances)"); d_rerecord_limit re-records
    // 6 times.
    // ... and recompiles forward 8 times (0/1..0/8), a size mismatch of 'pos' each time.
    EXPECT_EQ(kinds("d_recompile_limit"), (std::vector<std::string> { "recompile_per_call", "recompile_limit" }));
    EXPECT_EQ(kinds("f_kv_not_static"), std::vector<std::string> { "cudagraphs_skipped" });
    EXPECT_EQ(kinds("d_rerecord_limit"), std::vector<std::string> { "recapture_storm" });
    auto log = engine::ingest::readRunLog(dir + "d_recompile_limit.log");
    ASSERT_TRUE(log.ok());
    EXPECT_NE(log->runs[0].sim.hazards[1].message.find("6 calls"), std::string::npos)
        << log->runs[0].sim.hazards[1].message;
    const std::string& recompiles = log->runs[0].sim.hazards[0].message;
    EXPECT_NE(recompiles.find("forward in /work/main/rec/common.py:68 8 times (compile ids 0/1, 0/2, 0/3, 0/4, 0/5, "
                              "0/6, 0/7, 0/8)"),
        std::string::npos)
        << recompiles;
    EXPECT_NE(
        recompiles.find("the latest guard failure: 0/2: tensor 'pos' size mismatch at index 0."), std::string::npos)
        << recompiles;
}

/// The three logs recorded with every cudagraphs artifact (../shared/real/logs, run_4.sh): the calls
/// the log shows, as ../shared/real/cudagraph_cases/truth.md lists those runs (checked by hand once:
/// replays show only where re-record checks failed first).
TEST(RunLogReal, SharedLogsShowTheirCalls)
{
    const std::string dir = std::string(ACLGI_TEST_DATA_DIR) + "/real/logs/";
    auto actions = [&](const std::string& name) {
        auto log = engine::ingest::readRunLog(dir + name);
        std::string out;
        if (!log)
            return log.error().toString();
        for (const auto& c : log->runs[0].sim.calls)
            out += std::string(out.empty() ? "" : " ") + callActionName(c.action) + ":" + c.graph
                + (c.key.empty() ? "" : "@" + c.key);
        return out;
    };
    EXPECT_EQ(actions("d_two_functions.log"), "warmup:0/0 warmup:0/1 capture:0/1 capture:0/0");
    EXPECT_EQ(actions("c_ind_static.log"),
        "warmup:0/0 warmup:0/1 capture:0/1 warmup:0/2 capture:0/2 recapture:0/1 replay:0/1 replay:0/1 "
        "recapture:0/1 replay:0/1 replay:0/1 recapture:0/1 replay:0/1 replay:0/1 replay:0/1 replay:0/1 replay:0/1");
    EXPECT_EQ(actions("d_dynamic_warn.log"),
        "warmup:0/0 capture:0/0 warmup:0/1@2 capture:0/1@2 warmup:0/1@3 capture:0/1@3 warmup:0/1@4 capture:0/1@4 "
        "warmup:0/1@5 capture:0/1@5 warmup:0/1@6 capture:0/1@6 warmup:0/1@7 capture:0/1@7");
}

TEST(RunLog, NoTorchairLineIsAnErrorNamingTheFile)
{
    auto log = readRunLogText("hello\nworld\n", "x.log");
    ASSERT_FALSE(log.ok());
    EXPECT_EQ(log.error().context, "x.log");
    EXPECT_NE(log.error().message.find("2 lines"), std::string::npos) << log.error().message;
}

// ---- the run a log tells, as a scenario ----------------------------------------------------------

/// The calls a log shows, one line each: graph, key (a parameter-address hash numbered per graph in
/// order of first sight, since the simulation's addresses differ), action, cause.
std::vector<std::string> shownCalls(const Simulation& sim)
{
    std::map<std::string, std::vector<std::string>> hashes;
    std::vector<std::string> out;
    for (const auto* c : loggedCalls(sim)) {
        std::string key = c->key;
        const size_t end = key.rfind("no_updated_input", 0) == 0 ? 16 : key.rfind(']') + 1;
        if (end > 0 && end < key.size()) {
            auto& seen = hashes[c->graph];
            const std::string hash = key.substr(end);
            auto it = std::find(seen.begin(), seen.end(), hash);
            if (it == seen.end())
                it = seen.insert(seen.end(), hash);
            key = key.substr(0, end) + "#" + std::to_string(it - seen.begin());
        }
        out.push_back(c->graph + " {" + key + "} " + callActionName(c->action)
            + (c->recaptureCause.empty() ? "" : " (" + c->recaptureCause + ")"));
    }
    return out;
}

std::vector<std::string> hazardKinds(const Simulation& sim)
{
    std::vector<std::string> out;
    for (const auto& h : sim.hazards)
        if (h.kind == engine::runtime::HazardKind::Fallback || h.kind == engine::runtime::HazardKind::RecaptureStorm)
            out.push_back(std::string(engine::runtime::hazardKindName(h.kind)) + " at call " + std::to_string(h.call));
    return out;
}

/// The options a log tells, taken out of a scenario so that the log has to tell them.
void dropLoggedOptions(engine::scenario::Scenario& s)
{
    const std::set<std::string> told { "debug.aclgraph.static_capture_size_limit", "static_capture_size_limit",
        "capture_limit", "experimental_config.frozen_parameter", "frozen_parameter",
        "debug.aclgraph.disable_mempool_reuse_in_same_fx", "disable_mempool_reuse_in_same_fx",
        "reuse_graph_pool_in_same_fx", "force_recapture" };
    s.config.erase(
        std::remove_if(s.config.begin(), s.config.end(), [&](const auto& kv) { return told.count(kv.first); }),
        s.config.end());
}

/// Every sample and test scenario: its log (TorchAir's logger form, DEBUG), with its graphs and none of its
/// calls, bindings or the options a log tells, makes a scenario whose simulation shows the same calls.
TEST(LogScenario, EveryScenariosOwnLogSimulatesBackToTheSameCalls)
{
    int checked = 0, moved = 0;
    for (const Written& w : torchairRuns()) {
        if (w.scenario.cacheCompile)
            continue; // its calls go through cache_compile, whose log this reader does not take apart
        auto log = readRunLogText(loggerText(w.sim, LogLevel::Debug), w.name + ".log");
        ASSERT_TRUE(log.ok()) << w.name;
        engine::scenario::Scenario s = w.scenario;
        dropLoggedOptions(s);
        for (auto& c : s.calls) { // the calls are the log's: only their first symbols may serve as defaults
            c.inputs.clear();
            c.keepOutputs = 0;
            c.coreLimit.reset();
        }
        auto made = engine::scenario::makeLogRunScenario(s, log->runs[0], w.name + ".log");
        ASSERT_TRUE(made.ok()) << w.name << ": " << made.error().toString();
        auto again = engine::runtime::simulate(s);
        ASSERT_TRUE(again.ok()) << w.name << ": " << again.error().toString();
        std::string notes;
        for (const auto& d : s.diagnostics)
            notes += "\n  " + d;
        EXPECT_EQ(shownCalls(*again), shownCalls(w.sim)) << w.name << notes;
        EXPECT_EQ(hazardKinds(*again), hazardKinds(w.sim)) << w.name << notes;
        for (const auto& c : s.calls)
            for (const auto& [name, b] : c.inputs)
                moved += b.name.find("@move") != std::string::npos;
        if (w.name == "04_kv_cache_moves.json") { // three recaptures: one note, the repeats counted
            std::vector<std::string> said;
            for (const auto& d : s.diagnostics)
                if (d.find("recaptured for a moved mutated input") != std::string::npos)
                    said.push_back(d);
            ASSERT_EQ(said.size(), 1u) << notes;
            EXPECT_NE(said[0].find("(and at 2 more calls)"), std::string::npos) << said[0];
        }
        ++checked;
    }
    EXPECT_GE(checked, 10);
    EXPECT_GT(moved, 0) << "a scenario whose log recaptures for a moved mutated input";
}

/// An INFO-only log tells keys and actions, not causes: the scenario takes a recapture as a moved mutated
/// input (said so), and simulating it shows the same calls and actions.
TEST(LogScenario, AnInfoOnlyLogGivesTheSameActions)
{
    int checked = 0, assumedCause = 0;
    for (const Written& w : torchairRuns()) {
        if (w.scenario.cacheCompile)
            continue;
        auto log = readRunLogText(loggerText(w.sim, LogLevel::Info), w.name + ".log");
        ASSERT_TRUE(log.ok()) << w.name;
        engine::scenario::Scenario s = w.scenario;
        dropLoggedOptions(s);
        for (auto& c : s.calls)
            c.inputs.clear();
        ASSERT_TRUE(engine::scenario::makeLogRunScenario(s, log->runs[0], w.name + ".log").ok()) << w.name;
        for (const auto& d : s.diagnostics)
            assumedCause += d.find("a recapture whose cause the log does not tell") != std::string::npos;
        auto again = engine::runtime::simulate(s);
        ASSERT_TRUE(again.ok()) << w.name;
        auto actions = [](const Simulation& sim) {
            std::vector<std::string> out;
            for (const std::string& line : shownCalls(sim))
                out.push_back(line.substr(0, line.find(" (")));
            return out;
        };
        std::string notes;
        for (const auto& d : s.diagnostics)
            notes += "\n  " + d;
        // The capture limit is told only by the fallback's WARNING, which an INFO log keeps.
        EXPECT_EQ(actions(*again), actions(w.sim)) << w.name << notes;
        ++checked;
    }
    EXPECT_GE(checked, 10);
    EXPECT_GT(assumedCause, 0);
}

/// A key entry that is a tensor's whole shape (`[[4, 7]]`: a tensor input whose symbolic dim has no SymInt
/// input of its own) gives the symbol of each dim; the calls simulate back to the same keys.
TEST(LogScenario, ATensorShapeInTheKeyGivesItsDimsSymbols)
{
    auto scenario = engine::scenario::parseScenario(R"({"format": "aclgraph-inspector-scenario", "version": 1,
        "graphs": [{"id": "g", "dynamic": true,
          "inputs": [{"name": "x", "kind": "user_input", "shape": ["s0", 7], "dtype": "f32"}],
          "nodes": [{"name": "r", "target": "aten.relu.default", "args": ["x"], "meta": {"shape": ["s0", 7], "dtype": "f32"}}],
          "outputs": ["r"]}],
        "calls": [{"graph": "g", "symbols": {"s0": 4}}, {"graph": "g", "symbols": {"s0": 9}},
                  {"graph": "g", "symbols": {"s0": 4}}]})",
        "shape.json");
    ASSERT_TRUE(scenario.ok()) << scenario.error().toString();
    auto sim = engine::runtime::simulate(*scenario);
    ASSERT_TRUE(sim.ok());
    ASSERT_EQ(sim->calls.size(), 3u);
    EXPECT_EQ(sim->calls[1].key, "[[9, 7]]");
    auto log = readRunLogText(loggerText(*sim, LogLevel::Debug), "shape.log");
    ASSERT_TRUE(log.ok());
    engine::scenario::Scenario s = *scenario;
    for (auto& c : s.calls)
        c.symbols["s0"] = 1; // the log, not the source's calls, must give the sizes
    ASSERT_TRUE(engine::scenario::makeLogRunScenario(s, log->runs[0], "shape.log").ok());
    ASSERT_EQ(s.calls.size(), 3u);
    EXPECT_EQ(s.calls[1].symbols.at("s0"), 9);
    auto again = engine::runtime::simulate(s);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(shownCalls(*again), shownCalls(*sim));
}

/// TorchAir's own files as the graphs of a log: a TORCH_COMPILE_DEBUG folder (two graphs, matched by their
/// keys and capture lines) and generated modules (output_code.py, static and npugraph_ex with a SymInt),
/// each simulated, its log read back and made a scenario with the same files as its graphs.
TEST(LogScenario, TorchairsOwnFilesServeAsTheGraphsOfTheirLog)
{
    const std::string data = ACLGI_TEST_DATA_DIR;
    const std::vector<std::pair<std::string, engine::SymbolValues>> sources {
        { data + "/debug_dir/torch_compile_debug", {} },
        { data + "/torchair/output_code_static.py", {} },
        { data + "/torchair/output_code_dynamic_npugraph_ex.py", { { "s0", 4 } } },
    };
    for (const auto& [path, symbols] : sources) {
        auto scenario = engine::scenario::loadScenarioOrGraph(path, symbols, 3);
        ASSERT_TRUE(scenario.ok()) << path << ": " << scenario.error().toString();
        auto sim = engine::runtime::simulate(*scenario);
        ASSERT_TRUE(sim.ok()) << path;
        const std::string logPath = path + ".log";
        auto log = readRunLogText(loggerText(*sim, LogLevel::Debug), logPath);
        ASSERT_TRUE(log.ok()) << path;
        auto graphs = engine::scenario::loadScenarioOrGraph(path, {}, 1, false);
        ASSERT_TRUE(graphs.ok()) << path;
        ASSERT_TRUE(engine::scenario::makeLogRunScenario(*graphs, log->runs[0], logPath).ok()) << path;
        auto again = engine::runtime::simulate(*graphs);
        ASSERT_TRUE(again.ok()) << path;
        EXPECT_EQ(shownCalls(*again), shownCalls(*sim)) << path;
        EXPECT_EQ(again->calls.size(), sim->calls.size()) << path;
    }
}

std::string samplePath(const std::string& name)
{
    return std::string(ACLGI_SOURCE_DIR) + "/resources/samples/" + name;
}

/// The bundled log of sample 09 (written with static_capture_size_limit=2) with sample 09's graphs: the
/// limit comes from the fallback warning, and the what-if of a higher limit captures instead.
TEST(LogScenario, TheCaptureLimitComesFromTheLogAndTheWhatIfLiftsIt)
{
    auto s = engine::scenario::loadLogScenario(
        samplePath("logs/09_capture_limit_fallback.torchair.log"), samplePath("09_capture_limit_fallback.json"));
    ASSERT_TRUE(s.ok()) << s.error().toString();
    std::string limit;
    for (const auto& [k, v] : s->config)
        if (k == "debug.aclgraph.static_capture_size_limit" || k == "capture_limit")
            limit = k + "=" + v.repr();
    EXPECT_EQ(limit, "debug.aclgraph.static_capture_size_limit=2"); // "The current static_capture_size_limit is 2"
    auto ran = engine::runtime::simulate(*s);
    ASSERT_TRUE(ran.ok());
    auto log = engine::ingest::readRunLog(samplePath("logs/09_capture_limit_fallback.torchair.log"));
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(shownCalls(*ran), shownCalls(log->runs[0].sim));
    ASSERT_EQ(hazardKinds(*ran), hazardKinds(log->runs[0].sim));
    ASSERT_FALSE(hazardKinds(*ran).empty());

    engine::runtime::SimulationOptions whatIf;
    whatIf.overrides = { { "debug.aclgraph.static_capture_size_limit", engine::PyValue::integer(64) } };
    auto lifted = engine::runtime::simulate(*s, whatIf);
    ASSERT_TRUE(lifted.ok());
    EXPECT_TRUE(hazardKinds(*lifted).empty());
    int captures = 0;
    for (const auto& g : lifted->graphs)
        captures += g.captures;
    int logged = 0;
    for (const auto& g : ran->graphs)
        logged += g.captures;
    EXPECT_GT(captures, logged);
}

/// A scenario file that names a log (what `simulate LOG --graphs SRC --db` writes) loads as the run.
TEST(LogScenario, AScenarioFileNamingTheLogLoadsAsItsRun)
{
    const auto dir = std::filesystem::temp_directory_path() / ("aclgi-logscn-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    engine::scenario::LogSource source { samplePath("logs/09_capture_limit_fallback.torchair.log"),
        samplePath("09_capture_limit_fallback.json"), "" };
    {
        // What simulate --save-scenario writes, with a config of the user's own on top.
        auto text = nlohmann::ordered_json::parse(engine::scenario::logScenarioFileText(source, "my run"));
        text["config"] = { { "debug.aclgraph.static_capture_size_limit", 3 } };
        std::ofstream f(dir / "run.json");
        f << text.dump(2);
    }
    auto s = engine::scenario::loadScenarioOrGraph((dir / "run.json").string());
    ASSERT_TRUE(s.ok()) << s.error().toString();
    EXPECT_EQ(s->name, "my run");
    ASSERT_TRUE(s->log.has_value());
    std::string limit;
    for (const auto& [k, v] : s->config)
        if (k == "debug.aclgraph.static_capture_size_limit")
            limit = v.repr();
    EXPECT_EQ(limit, "3") << "the file's own config wins over what the log tells";
    auto direct = engine::scenario::loadLogScenario(source.file, source.graphs);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(s->calls.size(), direct->calls.size());

    // Errors name the file: a run the log lacks, graphs that are not there, a file with both log and graphs.
    auto noRun = engine::scenario::loadLogScenario(source.file, source.graphs, "rank 7");
    ASSERT_FALSE(noRun.ok());
    EXPECT_EQ(noRun.error().context, source.file);
    auto noGraphs = engine::scenario::loadLogScenario(source.file, (dir / "missing").string());
    ASSERT_FALSE(noGraphs.ok());
    EXPECT_NE(noGraphs.error().toString().find("missing"), std::string::npos) << noGraphs.error().toString();
    {
        std::ofstream f(dir / "both.json");
        f << R"({"format": "aclgraph-inspector-scenario", "version": 1, "graphs": [], "log": {"file": "a.log", "graphs": "g"}})";
    }
    auto both = engine::scenario::loadScenarioOrGraph((dir / "both.json").string());
    ASSERT_FALSE(both.ok());
    EXPECT_NE(both.error().toString().find("$.graphs"), std::string::npos) << both.error().toString();
    std::filesystem::remove_all(dir);
}

/// A TorchAir log of two ranks needs --run; a CUDA (PyTorch) log is refused with the way that works.
TEST(LogScenario, SeveralRunsNeedARunAndACudaLogTakesItsTrace)
{
    const std::string graphs = samplePath("09_capture_limit_fallback.json");
    auto sample = engine::scenario::loadScenarioOrGraph(graphs);
    ASSERT_TRUE(sample.ok());
    auto sim = engine::runtime::simulate(*sample);
    ASSERT_TRUE(sim.ok());
    const auto path = std::filesystem::temp_directory_path() / ("aclgi-two-" + std::to_string(::getpid()) + ".log");
    {
        std::ofstream f(path);
        f << loggerText(*sim, LogLevel::Debug, 11, "[rank0]:") + loggerText(*sim, LogLevel::Debug, 12, "[rank1]:");
    }
    auto unsaid = engine::scenario::loadLogScenario(path.string(), graphs);
    ASSERT_FALSE(unsaid.ok());
    EXPECT_EQ(unsaid.error().context, path.string());
    EXPECT_NE(
        unsaid.error().message.find("the log holds 2 runs (rank 0, rank 1): say which with --run"), std::string::npos)
        << unsaid.error().message;
    auto second = engine::scenario::loadLogScenario(path.string(), graphs, "1"); // "1" names "rank 1"
    std::filesystem::remove(path);
    ASSERT_TRUE(second.ok()) << second.error().toString();
    EXPECT_NE(second->comment.find("(rank 1)"), std::string::npos) << second->comment;
    EXPECT_EQ(second->calls.size(), loggedCalls(*sim).size()); // the eager calls after the fallback print nothing

    auto cuda = engine::ingest::readRunLog(std::string(ACLGI_TEST_DATA_DIR) + "/real/logs/d_two_functions.log");
    ASSERT_TRUE(cuda.ok());
    engine::scenario::Scenario c = *sample;
    auto refused = engine::scenario::makeLogRunScenario(c, cuda->runs[0], "d.log");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("TORCH_TRACE"), std::string::npos) << refused.error().message;
}

/// A recompile per call in a TorchAir log: new FX graphs after an earlier graph came back. New graphs
/// before that (graph breaks of one call) are no hazard.
TEST(RunLog, NewFxGraphsAfterTheFirstCameBackAreARecompilePerCall)
{
    auto capture = [](int n, int id, const std::string& key) {
        return "[INFO] TORCHAIR call " + std::to_string(n) + ": Success to capture fx_graph graph_" + std::to_string(id)
            + " for graph key{" + key + "}. Start to run AclGraph{id: " + std::to_string(id)
            + "} with the updated node num {0}.\n";
    };
    auto found = [](int n, int id) {
        return "[INFO] TORCHAIR call " + std::to_string(n) + ": Find captured AclGraph{id: " + std::to_string(id)
            + "} of fx_graph graph_" + std::to_string(id) + " with graph key {no_updated_input}.\n";
    };
    const std::string breaks = capture(0, 1, "no_updated_input") + capture(1, 2, "no_updated_input")
        + capture(2, 3, "no_updated_input") + found(3, 1) + found(4, 2) + found(5, 3);
    auto quiet = readRunLogText(breaks, "breaks.log");
    ASSERT_TRUE(quiet.ok());
    EXPECT_TRUE(quiet->runs[0].sim.hazards.empty());
    const std::string recompiles = breaks + capture(6, 4, "no_updated_input") + capture(7, 5, "no_updated_input")
        + capture(8, 6, "no_updated_input");
    auto loud = readRunLogText(recompiles, "recompiles.log");
    ASSERT_TRUE(loud.ok());
    ASSERT_EQ(loud->runs[0].sim.hazards.size(), 1u);
    const auto& h = loud->runs[0].sim.hazards[0];
    EXPECT_STREQ(engine::runtime::hazardKindName(h.kind), "recompile_per_call");
    EXPECT_EQ(h.call, 8);
    EXPECT_NE(h.message.find("graph_4 at call 6, graph_5 at call 7, graph_6 at call 8"), std::string::npos)
        << h.message;

    // The same job with TORCH_LOGS=recompiles: Dynamo's lines tell it, and it is still one hazard.
    auto recompile = [](int id, int size) {
        const std::string at
            = "V1127 02:05:55.327000 553 torch/_dynamo/guards.py:4760] [0/" + std::to_string(id) + "] [__recompiles] ";
        return at + "Recompiling function forward in /app/model.py:12\n" + at
            + "    triggered by the following guard failure(s):\n" + at + "    - 0/" + std::to_string(id - 1)
            + ": tensor 'x' size mismatch at index 0. expected " + std::to_string(size - 1) + ", actual "
            + std::to_string(size) + "\n";
    };
    // TorchAir's logger form, so both loggers' lines name the one process (pid 553).
    auto logger = [](const std::string& simulatorForm) {
        std::string out;
        for (size_t at = 0; at < simulatorForm.size();) {
            const size_t end = simulatorForm.find('\n', at);
            const std::string line = simulatorForm.substr(at, end - at);
            out += "[INFO] TORCHAIR(553,python3):2026-11-27 10:00:00.000.000 [acl_graph.py:100]553 "
                + line.substr(line.find(": ") + 2) + "\n";
            at = end + 1;
        }
        return out;
    };
    const std::string told = logger(breaks) + recompile(1, 2) + logger(capture(6, 4, "no_updated_input"))
        + recompile(2, 3) + logger(capture(7, 5, "no_updated_input")) + recompile(3, 4)
        + logger(capture(8, 6, "no_updated_input"));
    auto dynamo = readRunLogText(told, "told.log");
    ASSERT_TRUE(dynamo.ok());
    ASSERT_EQ(dynamo->runs.size(), 1u);
    ASSERT_EQ(dynamo->runs[0].sim.hazards.size(), 1u);
    const auto& d = dynamo->runs[0].sim.hazards[0];
    EXPECT_STREQ(engine::runtime::hazardKindName(d.kind), "recompile_per_call");
    EXPECT_NE(d.message.find("Dynamo recompiled function forward in /app/model.py:12 3 times (compile ids 0/1, 0/2, "
                             "0/3), from call 6 to call 8: each recompile is a new graph that captures again"),
        std::string::npos)
        << d.message;
    EXPECT_NE(d.message.find("expected 3, actual 4"), std::string::npos) << d.message;
}

} // namespace
