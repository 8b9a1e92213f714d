// The report document's sections beyond the simulation (report_doc_view.h): per FX graph the pass
// reports (the JSON `passes --json` writes) and the drawing, and the compile-cache entries with
// their checks and key explanation (`cache ls --json`, `cache key --json`); their Markdown and
// HTML; and a report without runs.
#include "engine/passes/pipeline.h"
#include "engine/report/cache_report.h"
#include "engine/report/passes_report.h"
#include "engine/report/report_doc.h"
#include "engine/report/report_html.h"
#include "engine/scenario/load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using engine::report::ReportInput;
using nlohmann::ordered_json;
using testing::HasSubstr;
using testing::Not;

namespace {

size_t count(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

/// Sample 07 simulated, with its graph's passes run as `passes SAMPLE` runs them.
struct PassedSample {
    engine::scenario::Scenario scenario;
    engine::runtime::Simulation sim;
    engine::passes::PipelineResult passes;

    PassedSample()
    {
        auto sc = engine::scenario::loadScenarioOrGraph(
            std::string(ACLGI_SAMPLES_DIR) + "/07_held_outputs_overwritten.json");
        EXPECT_TRUE(sc.ok());
        scenario = std::move(sc.value());
        auto s = engine::runtime::simulate(scenario);
        EXPECT_TRUE(s.ok());
        sim = std::move(s.value());
        const engine::Graph& g = *scenario.graph(sim.graphs.front().id);
        auto r = engine::passes::runReduceOverheadPasses(g, sim.options, scenario.calls.front().symbols);
        EXPECT_TRUE(r.ok());
        passes = std::move(r.value());
    }
};

const char* kSvg
    = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"40\" viewBox=\"0 0 100 40\">"
      "<g data-kind=\"node\" data-item=\"0\"><rect width=\"10\" height=\"10\" fill=\"#fafafa\"/></g></svg>";

engine::cache::CacheScan scanBroken()
{
    auto scan = engine::cache::scanCache(std::string(ACLGI_TEST_DATA_DIR) + "/cache/broken");
    EXPECT_TRUE(scan.ok());
    return std::move(scan.value());
}

} // namespace

TEST(ReportSections, PassesAreThePassesCommandsJson)
{
    PassedSample s;
    const engine::Graph& g = *s.scenario.graph(s.sim.graphs.front().id);
    // The passes command and the report share one implementation.
    const auto command = ordered_json::parse(engine::report::passesJson(g, s.passes));
    EXPECT_EQ(command.at("passes"), ordered_json::parse(engine::report::passReportsJson(s.passes.passes)));

    ReportInput in;
    in.title = "passes";
    in.runs.emplace_back();
    in.runs.back().sim = &s.sim;
    in.runs.back().label = "sample 07";
    const std::string name = s.sim.graphs.front().name;
    in.runs[0].passes[name] = s.passes.passes;
    in.runs[0].drawings[name] = { int(g.nodes.size()), 1, false, kSvg };
    const auto j = ordered_json::parse(engine::report::reportJson(in));
    const auto& fx = j.at("runs").at(0).at("fx_graphs");
    ASSERT_EQ(fx.size(), s.sim.graphs.size());
    EXPECT_EQ(fx.at(0).at("name"), name);
    EXPECT_EQ(fx.at(0).at("id"), s.sim.graphs.front().id);
    EXPECT_EQ(fx.at(0).at("passes"), command.at("passes"));
    EXPECT_EQ(fx.at(0).at("drawing").at("nodes"), int(g.nodes.size()));
    EXPECT_EQ(fx.at(0).at("drawing").at("svg"), kSvg);
    EXPECT_FALSE(fx.at(0).contains("note"));
    EXPECT_TRUE(j.at("caches").empty());

    auto md = engine::report::reportMarkdown(j.dump());
    ASSERT_TRUE(md.ok()) << md.error().toString();
    EXPECT_THAT(md.value(), HasSubstr("### " + name + " (" + s.sim.graphs.front().id + "): passes and drawing"));
    EXPECT_THAT(md.value(),
        HasSubstr("Drawing: " + std::to_string(g.nodes.size()) + " nodes drawn as 1 items; see the HTML report."));
    for (const auto& p : s.passes.passes)
        EXPECT_THAT(md.value(), HasSubstr("| `" + p.name + "` |"));

    auto html = engine::report::reportHtml(j.dump());
    ASSERT_TRUE(html.ok()) << html.error().toString();
    const std::string& t = html.value();
    EXPECT_THAT(t, HasSubstr("<div class=\"drawing\">\n" + std::string(kSvg)));
    for (const auto& p : s.passes.passes)
        EXPECT_THAT(t, HasSubstr("<td><code>" + p.name + "</code><br>"));
    int withLog = 0;
    for (const auto& p : s.passes.passes)
        withLog += p.enabled && !p.log.empty();
    EXPECT_GE(count(t, "<details>"), size_t(withLog));
    for (const auto& p : s.passes.passes)
        for (const auto& l : p.log)
            EXPECT_THAT(t, HasSubstr(engine::report::htmlEscape(l)));
    EXPECT_THAT(t, Not(HasSubstr("<script")));
}

TEST(ReportSections, AHandEditedDrawingWithScriptIsLeftOut)
{
    PassedSample s;
    ReportInput in;
    in.runs.emplace_back();
    in.runs.back().sim = &s.sim;
    in.runs.back().label = "sample 07";
    in.runs[0].drawings[s.sim.graphs.front().name]
        = { 3, 3, false, "<svg width=\"1\" height=\"1\" onload=\"alert(1)\"><script>alert(2)</script></svg>" };
    auto html = engine::report::reportHtml(engine::report::reportJson(in));
    ASSERT_TRUE(html.ok());
    EXPECT_THAT(html.value(), Not(HasSubstr("<script")));
    EXPECT_THAT(html.value(), Not(HasSubstr("onload")));
    EXPECT_THAT(html.value(), HasSubstr("The drawing is left out"));
}

TEST(ReportSections, CacheEntriesCarryTheirChecksAndKey)
{
    const engine::cache::CacheScan scan = scanBroken();
    ASSERT_FALSE(scan.entries.empty());
    ReportInput in;
    in.title = "caches only";
    in.caches.push_back({ "tests/data/cache/broken", false, &scan, {} });
    const std::string doc = engine::report::reportJson(in);
    const auto j = ordered_json::parse(doc);
    EXPECT_TRUE(j.at("runs").empty());
    const auto& caches = j.at("caches");
    ASSERT_EQ(caches.size(), scan.entries.size());
    const auto ls = ordered_json::parse(engine::report::cacheScanJson(scan));
    bool anyFailed = false;
    for (size_t i = 0; i < caches.size(); ++i) {
        const auto& c = caches.at(i);
        EXPECT_EQ(c.at("source"), "tests/data/cache/broken");
        EXPECT_FALSE(c.at("from_project").get<bool>());
        // The entry is `cache ls --json`'s, checks in TorchAir's order.
        EXPECT_EQ(c.at("report"), ls.at("entries").at(i).at("report"));
        EXPECT_EQ(c.at("relative_path"), ls.at("entries").at(i).at("relative_path"));
        ASSERT_EQ(c.at("key").at("entries").size(), 1u);
        EXPECT_EQ(c.at("key").at("entries").at(0).at("path"), scan.entries[i].relativePath);
        EXPECT_FALSE(c.at("key").at("entries").at(0).at("explanation").get<std::string>().empty());
        anyFailed |= !scan.entries[i].report.loads;
    }
    EXPECT_TRUE(anyFailed);
    EXPECT_EQ(j.at("cache_notes").size(), scan.notes.size() + (scan.cacheDirOwner.empty() ? 0 : 1));

    auto md = engine::report::reportMarkdown(doc);
    ASSERT_TRUE(md.ok()) << md.error().toString();
    EXPECT_THAT(md.value(), HasSubstr("## Compile caches"));
    EXPECT_THAT(md.value(), HasSubstr("| **"));
    auto html = engine::report::reportHtml(doc);
    ASSERT_TRUE(html.ok()) << html.error().toString();
    const std::string& t = html.value();
    EXPECT_THAT(t, HasSubstr("<h2>Compile caches</h2>"));
    size_t failedChecks = 0;
    for (const auto& e : scan.entries)
        for (const auto& c : e.report.checks)
            failedChecks += c.status == engine::cache::CacheCheck::Status::Failed;
    EXPECT_EQ(count(t, "<tr class=\"failed\">"), failedChecks);
    EXPECT_THAT(t, HasSubstr("class=\"verdict-"));
    EXPECT_THAT(t, Not(HasSubstr("http")));
}

TEST(ReportSections, StoredEntriesUseTheirStoredKeyOptions)
{
    engine::cache::CacheScan scan;
    scan.root = "p.aclgi";
    scan.rootKind = "project";
    engine::cache::CacheEntry e;
    e.path = e.relativePath = "/x/Model_static_aclgraphcache_0123/forward/compiled_module";
    e.report.loader = engine::config::Backend::NpugraphEx;
    scan.entries.push_back(e);
    ReportInput in;
    in.caches.push_back({ "p.aclgi", true, &scan, { { "clone_input=True" } } });
    const auto j = ordered_json::parse(engine::report::reportJson(in));
    const auto& c = j.at("caches").at(0);
    EXPECT_TRUE(c.at("from_project").get<bool>());
    EXPECT_EQ(c.at("root_kind"), "project");
    EXPECT_EQ(c.at("key").at("backend"), "npugraph_ex");
    EXPECT_NE(c.at("key").at("entries").at(0).at("verdict"), "unknown"); // the options are known
    EXPECT_TRUE(engine::report::reportHtml(j.dump()).ok());
    EXPECT_TRUE(engine::report::reportMarkdown(j.dump()).ok());
}
