// cache_store (storage/cache_store.h) on the compile-cache fixtures of tests/data/cache: scanned,
// written and read back with their path parts, ranks, checks (the broken cases' failures included),
// options, graph links and notes. Git keeps neither mode 600 nor the owner, so the tree is copied to
// a temporary folder and chmod'ed first (as tests/engine/cache_files_test.cpp does).
#include "engine/cache/cache_key.h"
#include "engine/cache/cache_scan.h"
#include "storage/cache_store.h"
#include "storage/graph_store.h"
#include "store_test_util.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace engine;
using namespace engine::cache;
using namespace storage;
using nlohmann::json;

const std::string kSource = std::string(ACLGI_TEST_DATA_DIR) + "/cache";

class CacheStore : public storetest::StoreTest {
protected:
    static void SetUpTestSuite()
    {
        s_root = fs::temp_directory_path() / ("aclgi-cache-store-test-" + std::to_string(getpid()));
        fs::remove_all(s_root);
        fs::copy(kSource, s_root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        for (const auto& e : fs::recursive_directory_iterator(s_root))
            if (e.is_regular_file() && !e.is_symlink())
                fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
        std::ifstream in(kSource + "/manifest.json");
        s_manifest = json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    }
    static void TearDownTestSuite() { fs::remove_all(s_root); }
    static std::string path(const std::string& rel) { return (s_root / rel).string(); }
    static const json* manifest(const std::string& relPath)
    {
        for (const json& f : s_manifest["files"])
            if (f["path"].get<std::string>() == relPath)
                return &f;
        return nullptr;
    }

    /// Scans `rel`, writes the scan, returns it (the ids in `ids`).
    CacheScan scanAndWrite(const std::string& rel, std::vector<int64_t>& ids, const ScanOptions& options = {})
    {
        auto scan = scanCache(path(rel), options);
        EXPECT_TRUE(scan.ok()) << scan.error().toString();
        if (!scan.ok())
            return {};
        WriteContext ctx(db());
        auto written = writeCacheScan(ctx, m_source, *scan);
        EXPECT_TRUE(written.ok()) << written.error().toString();
        if (written.ok())
            ids = *written;
        EXPECT_EQ(ids.size(), scan->entries.size());
        return std::move(*scan);
    }

    static fs::path s_root;
    static json s_manifest;
};
fs::path CacheStore::s_root;
json CacheStore::s_manifest;

void expectSameChecks(const std::vector<CacheCheck>& a, const std::vector<CacheCheck>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        SCOPED_TRACE(a[i].name);
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_EQ(a[i].status, b[i].status);
        EXPECT_EQ(a[i].exception, b[i].exception);
        EXPECT_EQ(a[i].message, b[i].message);
        EXPECT_EQ(a[i].detail, b[i].detail);
    }
}

TEST_F(CacheStore, GoodEntriesRoundTripWithTheirGraphs)
{
    std::vector<int64_t> ids;
    const CacheScan scan = scanAndWrite("torchair_cache", ids);
    ASSERT_EQ(scan.entries.size(), 3u);
    auto stored = listCacheEntries(db(), m_source);
    ASSERT_TRUE(stored.ok()) << stored.error().toString();
    ASSERT_EQ(stored->size(), 3u);
    for (size_t i = 0; i < stored->size(); ++i) {
        const StoredCacheEntry& e = (*stored)[i];
        const CacheEntry& s = scan.entries[i];
        SCOPED_TRACE(s.relativePath);
        const json* m = manifest("torchair_cache/" + s.relativePath);
        ASSERT_NE(m, nullptr);
        EXPECT_EQ(e.id, ids[i]);
        EXPECT_EQ(e.sourceId, m_source);
        EXPECT_EQ(e.path, path("torchair_cache/" + s.relativePath));
        EXPECT_EQ(e.relativePath, s.relativePath);
        EXPECT_TRUE(e.layoutKnown);
        EXPECT_EQ(e.model.name, (*m)["model_dir"].get<std::string>());
        EXPECT_EQ(e.model.className, "Model");
        EXPECT_TRUE(e.model.dynamic);
        EXPECT_EQ(e.model.kind, "aclgraphcache");
        EXPECT_EQ(e.model.md5, (*m)["md5"].get<std::string>());
        EXPECT_EQ(e.dist.name, "");
        EXPECT_FALSE(e.dist.world || e.dist.globalRank || e.dist.tpRank || e.dist.ppRank);
        EXPECT_EQ(e.func, (*m)["func"].get<std::string>());
        EXPECT_EQ(e.backend, "torchair");
        EXPECT_TRUE(e.loads);
        EXPECT_FALSE(e.firstFailure);
        EXPECT_EQ(e.metaName, (*m)["meta"]["name"].get<std::string>());
        EXPECT_EQ(e.metaDate, (*m)["meta"]["date"].get<std::string>());
        EXPECT_EQ(e.version, "1.0.5");
        EXPECT_EQ(e.python, "3.11");
        EXPECT_EQ(e.signature, s.report.artifact->signatureText);
        EXPECT_EQ(e.signature.rfind("-----", 0), 0u);
        EXPECT_NE(e.pyCode.find("def forward("), std::string::npos);
        EXPECT_FALSE(e.readError);
        EXPECT_EQ(e.log, s.report.log);
        EXPECT_FALSE(e.log.empty());
        expectSameChecks(s.report.checks, e.checks);
        for (const CacheCheck& c : e.checks)
            EXPECT_NE(c.status, CacheCheck::Status::Failed) << c.name;
        // The options are the signature's, and the cache key's string names the same ones.
        EXPECT_EQ(e.options, splitOptionString((*m)["options"].get<std::string>()));
        EXPECT_GE(e.options.size(), 10u);
        EXPECT_EQ(query("SELECT file_mode || ' ' || file_size FROM cache_entries WHERE id = " + std::to_string(e.id)),
            "384 " + std::to_string(fs::file_size(e.path)));
        // The py_code graph, linked and readable.
        ASSERT_TRUE(e.graphId);
        auto g = readGraph(db(), *e.graphId);
        ASSERT_TRUE(g.ok()) << g.error().toString();
        storetest::expectSameGraph(s.report.artifact->module->graph, *g);
        EXPECT_EQ(
            query("SELECT role || ' ' || grp || ' ' || file FROM graphs WHERE id = " + std::to_string(*e.graphId)),
            "cache " + s.relativePath + " " + e.path);
        // One at a time gives the same.
        auto one = readCacheEntry(db(), e.id);
        ASSERT_TRUE(one.ok());
        EXPECT_EQ(one->relativePath, e.relativePath);
        EXPECT_EQ(one->graphId, e.graphId);
        EXPECT_EQ(one->options, e.options);
    }
    EXPECT_EQ(count("cache_notes"), 0);
    auto missing = readCacheEntry(db(), ids.back() + 1);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
}

TEST_F(CacheStore, RanksAndBackendsAreStored)
{
    std::vector<int64_t> ids;
    const CacheScan ranks = scanAndWrite("multirank_cache", ids);
    ASSERT_EQ(ids.size(), 4u);
    for (size_t i = 0; i < ids.size(); ++i) {
        auto e = readCacheEntry(db(), ids[i]);
        ASSERT_TRUE(e.ok()) << e.error().toString();
        const json* m = manifest("multirank_cache/" + e->relativePath);
        ASSERT_NE(m, nullptr) << e->relativePath;
        EXPECT_EQ(e->model.className, "LlamaDecoder");
        EXPECT_EQ(e->dist.name, (*m)["dist_dir"].get<std::string>());
        EXPECT_EQ(e->dist.world, std::optional<int>((*m)["dist"]["world"].get<int>()));
        EXPECT_EQ(e->dist.globalRank, std::optional<int>((*m)["dist"]["global_rank"].get<int>()));
        EXPECT_EQ(e->dist.tpRank, std::optional<int>((*m)["dist"]["tp_rank"].get<int>()));
        EXPECT_EQ(e->dist.ppRank, std::optional<int>((*m)["dist"]["pp_rank"].get<int>()));
        EXPECT_EQ(e->func, "forward");
    }
    EXPECT_EQ(query("SELECT group_concat(global_rank) FROM cache_entries"), "0,1,2,3");

    const int64_t other = addSource("npugraph_ex");
    auto scan = scanCache(path("npugraph_ex_cache"));
    ASSERT_TRUE(scan.ok());
    WriteContext ctx(db());
    auto written = writeCacheScan(ctx, other, *scan);
    ASSERT_TRUE(written.ok()) << written.error().toString();
    auto stored = listCacheEntries(db(), other);
    ASSERT_TRUE(stored.ok());
    ASSERT_EQ(stored->size(), 2u);
    for (const StoredCacheEntry& e : *stored) {
        EXPECT_EQ(e.backend, "npugraph_ex");
        EXPECT_EQ(e.version, "1.0.6");
        EXPECT_FALSE(e.model.dynamic);
        EXPECT_TRUE(e.graphId);
    }
    auto all = listCacheEntries(db());
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->size(), 6u);
}

TEST_F(CacheStore, BrokenEntriesKeepTheirFailuresAndNotes)
{
    // Loaded as the manifest says TorchAir loads them (torchair, also the npugraph_ex file in a torchair dir).
    ScanOptions torchair;
    torchair.check.loader = config::Backend::TorchAir;
    std::vector<int64_t> ids;
    const CacheScan scan = scanAndWrite("broken", ids, torchair);
    ASSERT_GE(scan.entries.size(), 8u);
    size_t failures = 0;
    for (size_t i = 0; i < scan.entries.size(); ++i) {
        const CacheEntry& s = scan.entries[i];
        SCOPED_TRACE(s.relativePath);
        auto e = readCacheEntry(db(), ids[i]);
        ASSERT_TRUE(e.ok()) << e.error().toString();
        const json* m = manifest("broken/" + s.relativePath);
        ASSERT_NE(m, nullptr);
        EXPECT_EQ(e->loads, (*m)["load"]["ok"].get<bool>());
        expectSameChecks(s.report.checks, e->checks);
        const CacheCheck* failed = s.report.firstFailure();
        EXPECT_EQ(e->firstFailure, failed ? std::optional<std::string>(failed->name) : std::nullopt);
        if (!failed)
            continue;
        ++failures;
        // TorchAir's exception, as the manifest records it, is the stored failed check's.
        const CacheCheck* stored = nullptr;
        for (const CacheCheck& c : e->checks)
            if (c.name == *e->firstFailure)
                stored = &c;
        ASSERT_NE(stored, nullptr);
        EXPECT_EQ(stored->status, CacheCheck::Status::Failed);
        if ((*m)["load"]["exception"].is_string()) {
            EXPECT_EQ(stored->exception, (*m)["load"]["exception"].get<std::string>());
        }
        EXPECT_EQ(e->readError, s.report.readError.empty() ? std::nullopt : std::optional(s.report.readError));
    }
    EXPECT_GE(failures, 6u);
    EXPECT_EQ(query("SELECT message FROM cache_checks c JOIN cache_entries e ON e.id = c.entry_id "
                    "WHERE e.relative_path LIKE 'foreign_class/%' AND c.status = 'FAILED'"),
        "Forbidden deserialize os.system");
    EXPECT_EQ(query("SELECT read_error IS NOT NULL FROM cache_entries WHERE relative_path LIKE 'not_a_pickle/%'"), "1");

    // The notes, in order: folders that are no cache folders, the empty func folder.
    ASSERT_EQ(count("cache_notes"), int64_t(scan.notes.size()));
    for (size_t i = 0; i < scan.notes.size(); ++i) {
        const std::string where = " FROM cache_notes WHERE pos = " + std::to_string(i);
        EXPECT_EQ(query("SELECT path" + where), scan.notes[i].path);
        EXPECT_EQ(query("SELECT message" + where), scan.notes[i].message);
    }
    EXPECT_EQ(query("SELECT count(*) FROM cache_notes WHERE path LIKE '%empty_func_folder%' AND message LIKE "
                    "'no compiled_module%'"),
        "1");
}

TEST_F(CacheStore, ANotOwnedCacheDirIsANoteAndEveryEntryFailsItsOwnerCheck)
{
    ScanOptions other;
    other.check.uid = getuid() + 4242;
    std::vector<int64_t> ids;
    const CacheScan scan = scanAndWrite("torchair_cache", ids, other);
    ASSERT_FALSE(scan.cacheDirOwner.empty());
    EXPECT_EQ(query("SELECT path || '|' || message FROM cache_notes ORDER BY pos DESC"),
        path("torchair_cache") + "|" + scan.cacheDirOwner);
    EXPECT_EQ(query("SELECT group_concat(DISTINCT first_failure) FROM cache_entries"), "owner");
    EXPECT_EQ(query("SELECT count(*) FROM cache_entries WHERE loads = 0"), "3");
}

TEST_F(CacheStore, ALoneFileAndACancelledWrite)
{
    const std::string file = "pyversions/py312/compiled_module";
    auto scan = scanCache(path(file));
    ASSERT_TRUE(scan.ok());
    ASSERT_EQ(scan->entries.size(), 1u);
    {
        auto tx = Transaction::begin(db());
        ASSERT_TRUE(tx.ok());
        WriteContext ctx(db());
        auto id = writeCacheEntry(ctx, m_source, scan->entries[0]);
        ASSERT_TRUE(id.ok()) << id.error().toString();
        auto e = readCacheEntry(db(), *id);
        ASSERT_TRUE(e.ok());
        EXPECT_EQ(e->relativePath, "compiled_module");
        EXPECT_FALSE(e->layoutKnown);
        EXPECT_EQ(e->python, "3.12");
        EXPECT_EQ(e->model.name, "");
        EXPECT_EQ(query("SELECT dynamic IS NULL FROM cache_entries"), "1");
    } // rolled back
    EXPECT_EQ(count("cache_entries"), 0);
    EXPECT_EQ(count("graphs"), 0);

    // A cancel during the entry's rows is returned at once.
    WriteContext ctx(db(), [](int64_t) { return false; });
    for (int64_t i = 1; i < WriteContext::kRowsPerTick; ++i)
        ASSERT_TRUE(ctx.row().ok());
    auto id = writeCacheEntry(ctx, m_source, scan->entries[0]);
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.error().code, ErrorCode::Cancelled);
}

} // namespace
