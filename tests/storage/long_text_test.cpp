// One long string in an input (issue 19): a scenario whose first node's target is 1 MiB. The passes
// run on the graph and every pass's result graph holds the target again, and every pass's log quotes
// the targets in its statistics table. Before schema 6 and engine::cutText, one 8 MiB target made a
// 1.8 GB project (the table pads every row to its widest name) and 2.8 GB of memory; now the target
// is stored once (the `texts` table) and logs quote it cut.
#include "engine/core/file_io.h"
#include "storage/graph_store.h"
#include "storage/importer.h"
#include "storage/project_db.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;

constexpr size_t kLong = size_t(1) << 20;

class LongText : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path() / ("aclgi-long-text-" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    fs::path m_dir;
};

TEST_F(LongText, IsStoredOnceAndQuotedCut)
{
    auto text
        = engine::readTextFile(std::string(ACLGI_TEST_DATA_DIR) + "/scenarios/decode_basic.json", 1 << 20, "scenario");
    ASSERT_TRUE(text.ok()) << text.error().toString();
    nlohmann::json scenario = nlohmann::json::parse(*text);
    const std::string target(kLong, 'x');
    scenario["graphs"][0]["nodes"][0]["target"] = target;
    const std::string input = (m_dir / "long.json").string();
    std::ofstream(input) << scenario.dump();
    const auto inputBytes = fs::file_size(input);

    const std::string project = (m_dir / "p.aclgi").string();
    auto results = importPaths(project, { input });
    ASSERT_TRUE(results.ok()) << results.error().toString();
    ASSERT_EQ(results->size(), 1u);
    const SourceResult& r = (*results)[0];
    ASSERT_TRUE(r.message.empty()) << r.message;
    ASSERT_GT(r.passReports, 1);

    auto db = openProject(project);
    ASSERT_TRUE(db.ok()) << db.error().toString();
    ASSERT_TRUE(db->exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
    // The bound: the input once (in `texts`) and the small rest of a project. The graph and each of
    // the pass results name the target: stored per row, that is one copy per graph (7 here), and the
    // logs' padded tables many more.
    EXPECT_LT(fs::file_size(project), 3 * inputBytes) << "project " << fs::file_size(project) << " bytes";
    auto one = db->prepare("SELECT COUNT(*), SUM(size) FROM texts");
    ASSERT_TRUE(one.ok());
    ASSERT_TRUE(one->step().ok());
    EXPECT_EQ(one->columnInt(0), 1);
    EXPECT_EQ(one->columnInt(1), int64_t(kLong));

    // The IR keeps the target whole: every graph of the source reads it back.
    auto graphs = listGraphs(*db, r.sourceId);
    ASSERT_TRUE(graphs.ok());
    int holding = 0;
    for (const GraphRow& row : *graphs) {
        auto g = readGraph(*db, row.id);
        ASSERT_TRUE(g.ok()) << g.error().toString();
        for (const engine::Node& n : g->nodes)
            holding += n.target == target;
    }
    EXPECT_GT(holding, 1);

    // The logs quote it cut: "xxx… (1048576 chars)", nowhere whole.
    bool quoted = false;
    for (const GraphRow& row : *graphs) {
        auto reports = readPassReports(*db, row.id);
        ASSERT_TRUE(reports.ok()) << reports.error().toString();
        for (const StoredPassReport& p : *reports)
            for (const std::string& line : p.report.log) {
                EXPECT_LT(line.size(), size_t(64) << 10) << p.report.name;
                quoted = quoted || line.find("\u2026 (1048576 chars)") != std::string::npos;
            }
    }
    EXPECT_TRUE(quoted);
}

} // namespace
