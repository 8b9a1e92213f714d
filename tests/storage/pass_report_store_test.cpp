// writePassReports / readPassReports (storage/graph_store.h): the reports of TorchAir's passes run on
// graphs they change come back field by field, with their stage graphs linked and readable.
#include "engine/passes/pipeline.h"
#include "engine/readers/fx_code_writer.h"
#include "engine/scenario/scenario.h"
#include "storage/graph_store.h"
#include "store_test_util.h"

namespace {

using namespace engine;
using namespace storage;
using engine::passes::PassReport;
using storetest::expectSameGraph;

// x -> a = x * 2 -> b = a + 1 (reinplaced to add_) -> returned; `dead` is removed; the view becomes a
// reshape; cache.copy_(b) mutates an input (a placeholder TorchAir reinplaces around).
const char* const kGraph = R"({
  "format": "aclgraph-inspector-scenario", "version": 1, "name": "passes",
  "graphs": [{
    "id": "g", "dynamic": false,
    "inputs": [{"name": "x", "kind": "user_input", "shape": [128, 128], "dtype": "f32"},
               {"name": "cache", "kind": "user_input", "shape": [128, 128], "dtype": "f32"}],
    "nodes": [
      {"name": "a", "target": "aten.mul.Tensor", "args": ["x", 2], "meta": {"shape": [128, 128], "dtype": "f32"}},
      {"name": "b", "target": "aten.add.Tensor", "args": ["a", 1], "meta": {"shape": [128, 128], "dtype": "f32"}},
      {"name": "v", "target": "aten.view.default", "args": ["b", [16384]], "meta": {"shape": [16384], "dtype": "f32"}},
      {"name": "dead", "target": "aten.neg.default", "args": ["x"], "meta": {"shape": [128, 128], "dtype": "f32"}},
      {"name": "c", "target": "aten.copy_.default", "args": ["cache", "b"], "meta": {"shape": [128, 128], "dtype": "f32"}}
    ],
    "outputs": ["v"]
  }]
})";

class PassReportStore : public storetest::StoreTest {
protected:
    void SetUp() override
    {
        StoreTest::SetUp();
        auto s = scenario::parseScenario(kGraph, "passes.json");
        ASSERT_TRUE(s.ok()) << s.error().toString();
        m_graph = s->graphs.at(0);
        auto options = config::parseOptions(config::Backend::NpugraphEx, {});
        ASSERT_TRUE(options.ok());
        auto r = passes::runReduceOverheadPasses(m_graph, *options);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        m_result = std::move(*r);
        GraphPlace place;
        place.sourceId = m_source;
        place.group = "model__0/forward";
        place.file = "/tmp/g.json";
        WriteContext ctx(db());
        auto id = writeGraph(ctx, m_graph, place);
        ASSERT_TRUE(id.ok()) << id.error().toString();
        m_graphId = *id;
    }
    std::vector<int64_t> store(bool stages)
    {
        WriteContext ctx(db());
        auto ids = writePassReports(ctx, m_graphId, m_result, config::Backend::NpugraphEx, stages);
        EXPECT_TRUE(ids.ok()) << ids.error().toString();
        return ids.ok() ? *ids : std::vector<int64_t> {};
    }

    Graph m_graph;
    passes::PipelineResult m_result;
    int64_t m_graphId = 0;
};

void expectSameReport(const PassReport& a, const PassReport& b)
{
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.option, b.option);
    EXPECT_EQ(a.enabled, b.enabled);
    ASSERT_EQ(a.rewritten.size(), b.rewritten.size());
    for (size_t i = 0; i < a.rewritten.size(); ++i) {
        EXPECT_EQ(a.rewritten[i].node, b.rewritten[i].node);
        EXPECT_EQ(a.rewritten[i].before, b.rewritten[i].before);
        EXPECT_EQ(a.rewritten[i].after, b.rewritten[i].after);
    }
    ASSERT_EQ(a.skipped.size(), b.skipped.size());
    for (size_t i = 0; i < a.skipped.size(); ++i) {
        EXPECT_EQ(a.skipped[i].node, b.skipped[i].node);
        EXPECT_EQ(a.skipped[i].reason, b.skipped[i].reason);
    }
    EXPECT_EQ(a.removed, b.removed);
    EXPECT_EQ(a.added, b.added);
    EXPECT_EQ(a.log, b.log);
    EXPECT_EQ(a.nodesBefore, b.nodesBefore);
    EXPECT_EQ(a.nodesAfter, b.nodesAfter);
    EXPECT_EQ(a.peakBytesBefore, b.peakBytesBefore);
    EXPECT_EQ(a.peakBytesAfter, b.peakBytesAfter);
    EXPECT_EQ(a.trafficBytesBefore, b.trafficBytesBefore);
    EXPECT_EQ(a.trafficBytesAfter, b.trafficBytesAfter);
}

TEST_F(PassReportStore, ReportsAndStagesRoundTrip)
{
    // The passes did change the graph: otherwise this test would prove little.
    size_t rewritten = 0, removed = 0, skipped = 0;
    for (const PassReport& p : m_result.passes) {
        rewritten += p.rewritten.size();
        removed += p.removed.size();
        skipped += p.skipped.size();
    }
    ASSERT_GE(rewritten, 2u); // view -> reshape, add -> add_
    ASSERT_GE(removed, 1u); // dead
    ASSERT_GT(m_result.passes.at(0).peakBytesBefore, 0u);

    const std::vector<int64_t> ids = store(true);
    ASSERT_EQ(ids.size(), m_result.passes.size());
    auto back = readPassReports(db(), m_graphId);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    ASSERT_EQ(back->size(), m_result.passes.size());
    for (size_t i = 0; i < back->size(); ++i) {
        const StoredPassReport& r = (*back)[i];
        const PassReport& p = m_result.passes[i];
        expectSameReport(p, r.report);
        EXPECT_EQ(r.id, ids[i]);
        EXPECT_EQ(r.backend, "npugraph_ex");
        EXPECT_EQ(r.report.stage, p.stage);
        ASSERT_EQ(r.resultGraphId.has_value(), p.stage >= 0);
        if (!r.resultGraphId)
            continue;
        // The stage graph is stored as the pass left it, in the input's source and group.
        auto stage = readGraph(db(), *r.resultGraphId);
        ASSERT_TRUE(stage.ok()) << stage.error().toString();
        expectSameGraph(m_result.stages[size_t(p.stage)], *stage);
        EXPECT_EQ(readers::writeFxCode(m_result.stages[size_t(p.stage)]), readers::writeFxCode(*stage));
    }
    auto graphs = listGraphs(db(), m_source);
    ASSERT_TRUE(graphs.ok());
    ASSERT_EQ(graphs->size(), m_result.stages.size()); // the input and one stage per pass that ran
    ASSERT_GT(graphs->size(), 7u);
    for (size_t i = 1; i < graphs->size(); ++i) {
        const GraphRow& g = (*graphs)[i];
        EXPECT_EQ(g.role, "pass_result");
        EXPECT_EQ(g.group, "model__0/forward");
        EXPECT_EQ(g.file, "/tmp/g.json");
        EXPECT_EQ(g.stage, int(i));
        EXPECT_EQ(g.pass, m_result.passes[i - 1].name);
    }
    // The changes are rows of their own, SQL-readable.
    EXPECT_EQ(query("SELECT before || ' -> ' || after FROM pass_changes WHERE change = 'rewritten' AND node = 'v'"),
        "aten.view.default -> aten.reshape.default");
    EXPECT_EQ(query("SELECT p.name FROM pass_changes c JOIN pass_reports p ON p.id = c.report_id "
                    "WHERE c.change = 'removed' AND c.node = 'dead'"),
        "eliminate_dead_code");
    EXPECT_EQ(count("pass_changes"), int64_t(rewritten + removed + skipped));
}

TEST_F(PassReportStore, WithoutStagesNoResultGraphs)
{
    store(false);
    auto back = readPassReports(db(), m_graphId);
    ASSERT_TRUE(back.ok()) << back.error().toString();
    ASSERT_EQ(back->size(), m_result.passes.size());
    for (size_t i = 0; i < back->size(); ++i) {
        EXPECT_FALSE((*back)[i].resultGraphId);
        EXPECT_EQ((*back)[i].report.stage, -1);
        expectSameReport(m_result.passes[i], (*back)[i].report);
    }
    EXPECT_EQ(count("graphs"), 1);
    // Reports of another graph are not these.
    auto none = readPassReports(db(), m_graphId + 1);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
}

TEST_F(PassReportStore, ErrorsNameWhatIsWrong)
{
    WriteContext ctx(db());
    auto missing = writePassReports(ctx, m_graphId + 5, m_result, config::Backend::TorchAir);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);

    store(false);
    exec("UPDATE pass_changes SET change = 'moved' WHERE node = 'dead'");
    auto bad = readPassReports(db(), m_graphId);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("unknown change 'moved'"), std::string::npos) << bad.error().toString();
}

} // namespace
