// A recording's report (issue 18, "a recording is a recording"): a memory snapshot PyTorch 2.11 wrote
// (tests/data/real/snapshots/a_default.pickle) imported as a run says where it came from and what
// its allocator was set to, never a TorchAir backend, option table, custom pool or a capacity of 0.
#include "engine/report/report_doc.h"
#include "engine/report/report_html.h"
#include "engine/report/simulation_report.h"
#include "engine/snapshot/snapshot_run.h"

#include <algorithm>
#include <cctype>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

using testing::HasSubstr;
using testing::Not;

namespace {

/// a_default.pickle read into `snapshot`, and its device 0 as a run.
std::optional<engine::snapshot::SnapshotRun> realRecording(engine::snapshot::Snapshot& snapshot)
{
    auto read
        = engine::snapshot::readSnapshotFile(std::string(ACLGI_TEST_DATA_DIR) + "/real/snapshots/a_default.pickle");
    EXPECT_TRUE(read.ok()) << (read.ok() ? "" : read.error().toString());
    if (!read.ok())
        return std::nullopt;
    snapshot = std::move(read.value());
    auto run = engine::snapshot::snapshotAsRun(snapshot, 0);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().toString());
    if (!run.ok())
        return std::nullopt;
    return std::move(run.value());
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

/// What no view of a recording's report may say.
void expectNothingOfASimulation(const std::string& text)
{
    EXPECT_THAT(lower(text), Not(HasSubstr("torchair")));
    EXPECT_THAT(text, Not(HasSubstr("custom")));
    EXPECT_THAT(text, Not(HasSubstr("capacity 0.00")));
    EXPECT_THAT(text, Not(HasSubstr("backend:")));
}

} // namespace

TEST(ReportRecorded, RealSnapshotsReportIsARecordingsReport)
{
    engine::snapshot::Snapshot snapshot;
    const auto run = realRecording(snapshot);
    ASSERT_TRUE(run);
    ASSERT_FALSE(snapshot.allocatorSettings.empty());
    engine::report::ReportInput in;
    in.title = "a_default";
    engine::report::ReportRun recorded;
    recorded.sim = &run->sim;
    recorded.label = "recording";
    in.runs = { recorded };
    const std::string json = engine::report::reportJson(in);
    const auto j = nlohmann::json::parse(json);
    const auto& s = j["runs"][0]["simulation"];
    EXPECT_EQ(s["origin"]["kind"], "recorded");
    EXPECT_EQ(s["origin"]["recorded_as"], "memory snapshot (torch.cuda.memory._dump_snapshot)");
    EXPECT_EQ(s["origin"]["allocator_settings"].size(), snapshot.allocatorSettings.size());
    EXPECT_EQ(s["origin"]["capacity_known"], false);
    EXPECT_TRUE(s["backend"].is_null());
    EXPECT_TRUE(s["device"]["capacity_bytes"].is_null());
    EXPECT_TRUE(j["runs"][0]["options"].empty()) << "a recording has no TorchAir options";
    for (const auto& p : s["pools"])
        EXPECT_NE(p["kind"], "custom") << p["id"];

    auto md = engine::report::reportMarkdown(json);
    ASSERT_TRUE(md.ok()) << md.error().toString();
    auto html = engine::report::reportHtml(json);
    ASSERT_TRUE(html.ok()) << html.error().toString();
    const std::string text = engine::report::simulationText(run->sim, engine::runtime::LogLevel::Info);
    for (const std::string* view : std::vector<const std::string*> { &md.value(), &html.value(), &text })
        expectNothingOfASimulation(*view);
    EXPECT_THAT(md.value(), HasSubstr("- recorded: memory snapshot (torch.cuda.memory._dump_snapshot), from `"));
    EXPECT_THAT(md.value(), HasSubstr("capacity not recorded"));
    EXPECT_THAT(md.value(), HasSubstr("### Allocator settings"));
    EXPECT_THAT(html.value(), HasSubstr("<li>recorded: memory snapshot (torch.cuda.memory._dump_snapshot)"));
    EXPECT_THAT(text, HasSubstr("capacity not recorded"));
    for (const auto& [name, value] : snapshot.allocatorSettings) {
        EXPECT_THAT(md.value(), HasSubstr("| `" + name + "` | " + value + " |"));
        EXPECT_THAT(html.value(), HasSubstr("<code>" + engine::report::htmlEscape(name) + "</code>"));
    }
}

TEST(ReportRecorded, PoolsAreNamedByWhatTheyAre)
{
    engine::runtime::PoolRecord handle, own, shared, deflt;
    handle.pool = { 0, 1 };
    own.pool = { 1, 0 };
    shared.pool = { 0, 2 };
    shared.custom = true;
    using engine::runtime::RunOriginKind;
    EXPECT_EQ(engine::report::poolKindName(handle, RunOriginKind::Recorded), "graph pool");
    EXPECT_EQ(engine::report::poolKindName(own, RunOriginKind::Recorded), "private pool");
    EXPECT_EQ(engine::report::poolKindName(deflt, RunOriginKind::Recorded), "default");
    EXPECT_EQ(engine::report::poolKindName(handle, RunOriginKind::Simulated), "private");
    EXPECT_EQ(engine::report::poolKindName(shared, RunOriginKind::Simulated), "custom");
}
