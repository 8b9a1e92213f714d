// The report document (engine/report/report_doc.h): its JSON facts and the Markdown view of them,
// on samples 07 (outputs overwritten) and 08 (the same with enable_output_clone), and a comparison.
#include "engine/report/report_doc.h"
#include "engine/report/report_html.h"
#include "engine/report/run_config.h"
#include "engine/report/simulation_report.h"
#include "engine/scenario/load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using engine::report::ReportInput;
using testing::HasSubstr;

namespace {
/// A run of a report, its other fields (passes, drawings, notes) empty.
engine::report::ReportRun run(const engine::runtime::Simulation* sim, const std::string& label, std::string config = {})
{
    engine::report::ReportRun r;
    r.sim = sim;
    r.label = label;
    r.configJson = std::move(config);
    return r;
}
} // namespace
using testing::Not;

namespace {

engine::runtime::Simulation simulateSample(const std::string& name)
{
    auto scenario = engine::scenario::loadScenarioOrGraph(std::string(ACLGI_SAMPLES_DIR) + "/" + name);
    EXPECT_TRUE(scenario.ok());
    auto sim = engine::runtime::simulate(scenario.value());
    EXPECT_TRUE(sim.ok());
    return std::move(sim.value());
}

struct Samples {
    engine::runtime::Simulation held = simulateSample("07_held_outputs_overwritten.json");
    engine::runtime::Simulation cloned = simulateSample("08_held_outputs_cloned.json");
};

} // namespace

TEST(ReportDoc, JsonHoldsTheRunsFacts)
{
    Samples s;
    ReportInput in;
    in.title = "two samples";
    in.generator = "test";
    in.runs = { run(&s.held, "sample 07"), run(&s.cloned, "sample 08") };
    const auto j = nlohmann::json::parse(engine::report::reportJson(in));
    EXPECT_EQ(j["format"], "aclgraph-inspector-report");
    EXPECT_EQ(j["version"], 1);
    ASSERT_EQ(j["runs"].size(), 2u);
    const auto& held = j["runs"][0];
    EXPECT_EQ(held["label"], "sample 07");
    EXPECT_EQ(held["simulation"]["hazards"].size(), 5u);
    EXPECT_EQ(j["runs"][1]["simulation"]["hazards"].size(), 0u);
    // The log is counted, not copied.
    EXPECT_FALSE(held["simulation"].contains("log"));
    EXPECT_GT(held["simulation"]["log_lines"].get<int>(), 10);
    // Non-default options: frozen_parameter in 07; enable_output_clone too in 08.
    auto nonDefault = [](const nlohmann::json& run) {
        std::vector<std::string> names;
        for (const auto& o : run["options"])
            if (o["non_default"].get<bool>())
                names.push_back(o["name"]);
        return names;
    };
    EXPECT_THAT(nonDefault(held), testing::Contains("experimental_config.frozen_parameter"));
    EXPECT_THAT(nonDefault(held), Not(testing::Contains("debug.aclgraph.enable_output_clone")));
    EXPECT_THAT(nonDefault(j["runs"][1]), testing::Contains("debug.aclgraph.enable_output_clone"));
    // Both spellings of each option.
    for (const auto& o : held["options"])
        if (o["name"] == "debug.aclgraph.clone_input") {
            EXPECT_EQ(o["npugraph_ex"], "clone_input");
        }
    EXPECT_FALSE(j.contains("comparison"));
}

TEST(ReportDoc, AStoredRunsConfigJsonWins)
{
    // A stored run's Simulation has default options: the config comes from the JSON passed with it.
    Samples s;
    engine::runtime::Simulation bare = s.held;
    bare.options = {};
    const std::string config = engine::report::simulationConfigJson(s.cloned.options);
    ReportInput in;
    in.runs = { run(&bare, "stored", config) };
    const auto j = nlohmann::json::parse(engine::report::reportJson(in));
    bool clone = false;
    for (const auto& o : j["runs"][0]["options"])
        if (o["name"] == "debug.aclgraph.enable_output_clone")
            clone = o["non_default"].get<bool>() && o["value"] == "True";
    EXPECT_TRUE(clone);
    EXPECT_EQ(j["runs"][0]["simulation"]["config"], nlohmann::json::parse(config));
}

TEST(ReportDoc, MarkdownShowsTheSameFacts)
{
    Samples s;
    const auto comparison = engine::report::compareRuns(s.held, s.cloned, "sample 07", "sample 08",
        engine::report::runConfigPairs(s.held.options), engine::report::runConfigPairs(s.cloned.options));
    ReportInput in;
    in.title = "held outputs";
    in.runs = { run(&s.held, "sample 07") };
    in.comparison = &comparison;
    auto md = engine::report::reportMarkdown(engine::report::reportJson(in));
    ASSERT_TRUE(md.ok()) << md.error().toString();
    const std::string& t = md.value();
    EXPECT_THAT(t, HasSubstr("# held outputs\n"));
    EXPECT_THAT(t, HasSubstr("## sample 07\n"));
    EXPECT_THAT(t, HasSubstr("- calls: 7, captures 2, recaptures 0, replays 7, hazards 5\n"));
    EXPECT_THAT(t, HasSubstr("| **`experimental_config.frozen_parameter`** | **True** | False |"));
    EXPECT_THAT(t, HasSubstr("| `debug.aclgraph.clone_input` | True | True |"));
    EXPECT_THAT(t, HasSubstr("| graph_2 (decode) | (0, 4) | `{no_updated_input}` | 1 | 0 / 0 / 0 | 6 | 0 | no |"));
    EXPECT_THAT(
        t, HasSubstr("- call 2, output_overwritten in graph_2 key `{no_updated_input}`: output 0 (logits_f32)"));
    EXPECT_THAT(t, HasSubstr("## Comparison\n"));
    EXPECT_THAT(t, HasSubstr("| hazards | **output_overwritten** | **5** | **0** |"));
}

TEST(ReportDoc, MarkdownRefusesWhatIsNotAReport)
{
    EXPECT_FALSE(engine::report::reportMarkdown("{}").ok());
    EXPECT_FALSE(engine::report::reportMarkdown("not json").ok());
    // The right format with a run missing its facts: an error, not an exception.
    auto r = engine::report::reportMarkdown(
        R"({"format": "aclgraph-inspector-report", "title": "t", "generator": "", "runs": [{"label": "x"}]})");
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.error().toString(), HasSubstr("malformed"));
}

TEST(ReportDoc, HtmlIsOneSelfContainedPageOfTheSameFacts)
{
    Samples s;
    const auto comparison = engine::report::compareRuns(s.held, s.cloned, "sample 07", "sample <08>",
        engine::report::runConfigPairs(s.held.options), engine::report::runConfigPairs(s.cloned.options));
    ReportInput in;
    in.title = "held & cloned";
    in.runs = { run(&s.held, "sample 07") };
    in.comparison = &comparison;
    auto html = engine::report::reportHtml(engine::report::reportJson(in));
    ASSERT_TRUE(html.ok()) << html.error().toString();
    const std::string& t = html.value();
    EXPECT_EQ(t.rfind("<!DOCTYPE html>", 0), 0u);
    // Nothing from elsewhere: no script, no link, no URL at all.
    EXPECT_THAT(t, Not(HasSubstr("<script")));
    EXPECT_THAT(t, Not(HasSubstr("<link")));
    EXPECT_THAT(t, Not(HasSubstr("http")));
    EXPECT_THAT(t, HasSubstr("<title>held &amp; cloned</title>"));
    EXPECT_THAT(t, HasSubstr("<li>B: sample &lt;08&gt;</li>"));
    // The non-default option's row is highlighted, a default one is not.
    EXPECT_THAT(t, HasSubstr("<tr class=\"nondefault\"><td><code>experimental_config.frozen_parameter</code>"));
    EXPECT_THAT(t, HasSubstr("<tr><td><code>debug.aclgraph.clone_input</code></td><td><code>clone_input</code>"));
    // The memory chart: one polyline per series (device reserved, allocated, two pools), the peak.
    EXPECT_THAT(t, HasSubstr("<svg "));
    size_t lines = 0;
    for (size_t at = t.find("<polyline"); at != std::string::npos; at = t.find("<polyline", at + 1))
        ++lines;
    EXPECT_EQ(lines, 4u);
    EXPECT_THAT(t, HasSubstr("peak 378.00 MiB at call 1"));
    // Every hazard message is there, as in the Markdown.
    auto md = engine::report::reportMarkdown(engine::report::reportJson(in));
    ASSERT_TRUE(md.ok());
    for (const auto& h : s.held.hazards) {
        EXPECT_THAT(md.value(), HasSubstr(h.message));
        EXPECT_THAT(t, HasSubstr(engine::report::htmlEscape(h.message)));
    }
    EXPECT_THAT(t, HasSubstr("<tr class=\"differs\"><td>hazards</td><td>output_overwritten</td><td>5</td><td>0</td>"));
    EXPECT_FALSE(engine::report::reportHtml("[]").ok());
}
