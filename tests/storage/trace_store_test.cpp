// A TORCH_TRACE's compiles and spans in the project (storage/trace_store.h): imported from the real
// logs in tests/data/real/trace, read back, tied to their graphs, and a schema-3 project migrated.
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/trace_store.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;

const std::string kTrace = std::string(ACLGI_TEST_DATA_DIR) + "/real/trace/";

Database openMemory()
{
    auto db = openProject(":memory:");
    EXPECT_TRUE(db.ok()) << db.error().toString();
    return std::move(db.value());
}

int64_t importOk(Database& db, const std::string& path)
{
    ImportOptions options;
    options.runPasses = false;
    SourceResult r = importSource(db, path, options);
    EXPECT_EQ(r.status, SourceResult::Status::Imported) << r.message;
    return r.sourceId;
}

const StoredTraceCompile* find(const std::vector<StoredTraceCompile>& cs, const std::string& id)
{
    for (const auto& c : cs)
        if (c.compileId == id)
            return &c;
    return nullptr;
}

TEST(TraceStore, TwoFunctionsCompilesRoundTrip)
{
    Database db = openMemory();
    const int64_t source = importOk(db, kTrace + "two_functions.log");
    auto compiles = readTraceCompiles(db, source);
    ASSERT_TRUE(compiles.ok()) << compiles.error().toString();
    ASSERT_EQ(compiles->size(), 2u);
    EXPECT_EQ((*compiles)[0].compileId, "0/0");
    EXPECT_EQ((*compiles)[1].compileId, "0/1");
    const StoredTraceCompile& c0 = (*compiles)[0];
    const StoredTraceCompile& c1 = (*compiles)[1];
    EXPECT_EQ(c0.sourceId, source);
    EXPECT_EQ(c0.frame, 0);
    EXPECT_EQ(c1.frameCompile, 1);
    EXPECT_EQ(c1.attempt, 0);
    EXPECT_FALSE(c0.rank.has_value());
    EXPECT_EQ(c0.phase, "inference");
    EXPECT_EQ(c0.group, "0/0/inference");
    EXPECT_EQ(c0.log, kTrace + "two_functions.log");
    EXPECT_TRUE(c0.recompileReasons.empty());
    EXPECT_EQ(c1.recompileReasons,
        (std::vector<std::string> { "0/0: tensor 'pos' size mismatch at index 0. expected 16, actual 1" }));
    ASSERT_TRUE(c0.compileSeconds && c1.compileSeconds);
    EXPECT_DOUBLE_EQ(*c0.compileSeconds, 8.296669);
    EXPECT_DOUBLE_EQ(*c1.compileSeconds, 0.486839);
    EXPECT_TRUE(c0.failType.empty());
    EXPECT_NE(c0.metricsJson.find("\"co_name\":\"forward\""), std::string::npos);
    EXPECT_EQ(c0.sources.size(), 27u);
    EXPECT_EQ(c0.stack.size(), 8u);
    EXPECT_EQ(c0.stack.back(), "/home/user/app/device/common.py:68 in forward");
    EXPECT_FALSE(c0.guards.empty());
    EXPECT_FALSE(c0.artifacts.empty());
    EXPECT_GT(c0.graphCount, 0);
    // Times: each compile's spans, 0/0 before 0/1.
    ASSERT_TRUE(c0.startUs && c0.endUs && c1.startUs && c1.endUs);
    EXPECT_LT(*c0.startUs, *c0.endUs);
    EXPECT_LE(*c0.endUs, *c1.startUs);
    // Cache: 0/0 missed the FX graph and AOT caches, 0/1 hit both (the log's README).
    EXPECT_EQ(c0.cache, "FX miss, AOT miss");
    EXPECT_EQ(c1.cache, "FX hit, AOT hit");

    // Spans: 63 + 26 of the compiles, 8 runtime ones.
    auto spans = readTraceSpans(db, source);
    ASSERT_TRUE(spans.ok()) << spans.error().toString();
    EXPECT_EQ(spans->size(), 63u + 26u + 8u);
    size_t runtime = 0;
    for (const auto& s : *spans)
        runtime += s.compileId.empty();
    EXPECT_EQ(runtime, 8u);
    for (size_t i = 1; i < spans->size(); ++i)
        EXPECT_LE((*spans)[i - 1].startUs, (*spans)[i].startUs);

    // A compile's graphs are the source's graphs of its group.
    auto graphs = listGraphs(db, source);
    ASSERT_TRUE(graphs.ok());
    std::set<std::string> groups;
    for (const auto& g : *graphs)
        groups.insert(g.group);
    EXPECT_TRUE(groups.count(c0.group));
    EXPECT_TRUE(groups.count(c1.group));
}

TEST(TraceStore, DynamicSymbolsAndAllSources)
{
    Database db = openMemory();
    const int64_t a = importOk(db, kTrace + "dynamic_warn.log");
    const int64_t b = importOk(db, kTrace + "two_functions.log");
    auto all = readTraceCompiles(db);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->size(), 4u);
    auto dyn = readTraceCompiles(db, a);
    ASSERT_TRUE(dyn.ok());
    const StoredTraceCompile* c1 = find(*dyn, "0/1");
    ASSERT_TRUE(c1);
    ASSERT_EQ(c1->symbols.size(), 5u);
    EXPECT_EQ(c1->symbols[0].symbol, "s52");
    EXPECT_EQ(c1->symbols[0].source, "L['tokens'].size()[0]");
    EXPECT_EQ(c1->symbols[0].hint, std::optional<int64_t>(2));
    ASSERT_GT(c1->sources.size(), 1u);
    EXPECT_EQ(c1->sources[1].source, "L['tokens']");
    EXPECT_EQ(c1->sources[1].dtype, "torch.int64");
    EXPECT_FALSE(c1->sources[1].isParameter);
    bool anyParameter = false;
    for (const auto& s : c1->sources)
        anyParameter |= s.isParameter;
    EXPECT_TRUE(anyParameter);
    auto spansA = readTraceSpans(db, a);
    auto spansB = readTraceSpans(db, b);
    ASSERT_TRUE(spansA.ok() && spansB.ok());
    for (const auto& s : *spansA)
        EXPECT_EQ(s.sourceId, a);
}

TEST(TraceStore, RanksGetRankPrefixedGroups)
{
    Database db = openMemory();
    const int64_t source = importOk(db, kTrace + "ranks");
    auto compiles = readTraceCompiles(db, source);
    ASSERT_TRUE(compiles.ok());
    ASSERT_EQ(compiles->size(), 2u);
    EXPECT_EQ((*compiles)[0].rank, std::optional<int>(0));
    EXPECT_EQ((*compiles)[1].rank, std::optional<int>(1));
    EXPECT_EQ((*compiles)[0].group.rfind("rank 0: 0/0", 0), 0u) << (*compiles)[0].group;
}

TEST(TraceStore, CacheSummary)
{
    EXPECT_EQ(traceCacheSummary(""), "");
    EXPECT_EQ(traceCacheSummary("not json"), "");
    EXPECT_EQ(
        traceCacheSummary("{\"inductor_fx_local_cache_hit_count\":0,\"inductor_fx_local_cache_miss_count\":0}"), "");
    EXPECT_EQ(traceCacheSummary("{\"inductor_fx_remote_cache_hit_count\":2,\"inductor_fx_local_cache_miss_count\":1}"),
        "FX hit+miss");
}

TEST(TraceStore, SchemaThreeProjectMigrates)
{
    const fs::path path = fs::temp_directory_path() / ("aclgi-trace-v3-" + std::to_string(getpid()) + ".aclgi");
    fs::remove(path);
    {
        auto old = openProject(path.string(), {}, 3);
        ASSERT_TRUE(old.ok()) << old.error().toString();
        EXPECT_EQ(*old->userVersion(), 3);
        EXPECT_FALSE(old->prepare("SELECT count(*) FROM trace_compiles").ok());
    }
    {
        auto db = openProject(path.string());
        ASSERT_TRUE(db.ok()) << db.error().toString();
        EXPECT_EQ(*db->userVersion(), kSchemaVersion);
        auto none = readTraceCompiles(*db);
        ASSERT_TRUE(none.ok()) << none.error().toString();
        EXPECT_TRUE(none->empty());
        importOk(*db, kTrace + "two_functions.log");
        auto compiles = readTraceCompiles(*db);
        ASSERT_TRUE(compiles.ok());
        EXPECT_EQ(compiles->size(), 2u);
    }
    fs::remove(path);
}

} // namespace
