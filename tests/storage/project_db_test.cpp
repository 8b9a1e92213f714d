// The project database's foundation: the RAII wrappers, opening, migrations from every past schema
// version, and refusing what is not ours or is newer.
#include "storage/project_db.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;

class ProjectDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path()
            / ("aclgi-storage-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string file(const char* name) const { return (m_dir / name).string(); }
    fs::path m_dir;
};

TEST_F(ProjectDb, NewProjectGetsTheCurrentSchema)
{
    for (const std::string& path : { std::string(":memory:"), file("new.aclgi") }) {
        SCOPED_TRACE(path);
        auto db = openProject(path);
        ASSERT_TRUE(db.ok()) << db.error().toString();
        EXPECT_EQ(*db->userVersion(), kSchemaVersion);
        auto s = db->prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'sources'");
        ASSERT_TRUE(s.ok());
        ASSERT_TRUE(*s->step());
        EXPECT_EQ(s->columnInt(0), 1);
        EXPECT_EQ(*db->quickCheck(), "");
    }
    // WAL on a file; reopening migrates nothing and keeps the data.
    {
        auto db = openProject(file("new.aclgi"));
        ASSERT_TRUE(db.ok());
        auto s = db->prepare("PRAGMA journal_mode");
        ASSERT_TRUE(*s->step());
        EXPECT_EQ(s->columnText(0), "wal");
        auto ins
            = db->prepare("INSERT INTO sources(path, kind, size, content_hash, imported_at) VALUES (?, ?, ?, ?, ?)");
        ASSERT_TRUE(ins.ok());
        ASSERT_TRUE(ins->bind(1, "a.py").bind(2, "fx").bind(3, int64_t(12)).bind(4, "h").bind(5, "t").run().ok());
        EXPECT_EQ(db->lastInsertRowId(), 1);
    }
    auto again = openProject(file("new.aclgi"));
    ASSERT_TRUE(again.ok());
    auto s = again->prepare("SELECT path, size FROM sources");
    ASSERT_TRUE(*s->step());
    EXPECT_EQ(s->columnText(0), "a.py");
    EXPECT_EQ(s->columnInt(1), 12);
}

TEST_F(ProjectDb, MigratesFromEveryPastVersion)
{
    ASSERT_EQ(int(migrations().size()), kSchemaVersion);
    for (size_t i = 0; i < migrations().size(); ++i)
        EXPECT_EQ(migrations()[i].version, int(i) + 1);
    for (int from = 0; from < kSchemaVersion; ++from) {
        SCOPED_TRACE(from);
        const std::string path = file(("v" + std::to_string(from) + ".aclgi").c_str());
        {
            auto old = openProject(path, {}, from);
            ASSERT_TRUE(old.ok()) << old.error().toString();
            EXPECT_EQ(*old->userVersion(), from);
        }
        auto db = openProject(path);
        ASSERT_TRUE(db.ok()) << db.error().toString();
        EXPECT_EQ(*db->userVersion(), kSchemaVersion);
        EXPECT_EQ(*db->quickCheck(), "");
    }
}

TEST_F(ProjectDb, RefusesNewerProjects)
{
    {
        auto db = openProject(file("future.aclgi"));
        ASSERT_TRUE(db.ok());
        ASSERT_TRUE(db->setUserVersion(kSchemaVersion + 5).ok());
    }
    auto db = openProject(file("future.aclgi"));
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.error().context, file("future.aclgi"));
    EXPECT_NE(db.error().message.find("newer aclgraph-inspector"), std::string::npos) << db.error().message;
    EXPECT_NE(db.error().message.find(std::to_string(kSchemaVersion + 5)), std::string::npos);
}

TEST_F(ProjectDb, RefusesWhatIsNotAProject)
{
    // Not SQLite at all: an error, and the file is left as it was.
    const std::string text = file("notes.txt");
    std::ofstream(text) << std::string(4096, 'x');
    auto db = openProject(text);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.error().context, text);
    EXPECT_NE(db.error().message.find("not a project database"), std::string::npos) << db.error().message;
    EXPECT_EQ(fs::file_size(text), 4096u);

    // A truncated project: the header survives, the pages do not.
    {
        auto good = openProject(file("cut.aclgi"));
        ASSERT_TRUE(good.ok());
        ASSERT_TRUE(good->exec("CREATE TABLE filler(x); INSERT INTO filler VALUES (randomblob(100000));").ok());
        ASSERT_TRUE(good->exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
    }
    fs::resize_file(file("cut.aclgi"), 4096 + 100);
    auto cut = openProject(file("cut.aclgi"));
    if (cut.ok()) // SQLite may still read the schema page: then the check must say what is wrong
        EXPECT_NE(*cut->quickCheck(), "");
    else
        EXPECT_EQ(cut.error().context, file("cut.aclgi"));

    // Another application's SQLite database.
    {
        auto other = Database::open(file("other.db"));
        ASSERT_TRUE(other.ok());
        ASSERT_TRUE(other->exec("CREATE TABLE customers(id INTEGER)").ok());
    }
    auto foreign = openProject(file("other.db"));
    ASSERT_FALSE(foreign.ok());
    EXPECT_NE(foreign.error().message.find("another application"), std::string::npos) << foreign.error().message;

    // Missing and not to be created.
    Database::OpenOptions noCreate;
    noCreate.create = false;
    EXPECT_FALSE(openProject(file("absent.aclgi"), noCreate).ok());
    EXPECT_FALSE(fs::exists(file("absent.aclgi")));
}

TEST_F(ProjectDb, TransactionRollsBackUnlessCommitted)
{
    auto db = openProject(":memory:");
    ASSERT_TRUE(db.ok());
    auto count = [&] {
        auto s = db->prepare("SELECT count(*) FROM sources");
        EXPECT_TRUE(*s->step());
        return s->columnInt(0);
    };
    auto insert = [&](const char* hash) {
        auto s = db->prepare(
            "INSERT INTO sources(path, kind, size, content_hash, imported_at) VALUES ('p', 'fx', 1, ?, 't')");
        return s->bind(1, std::string_view(hash)).run();
    };
    {
        auto tx = Transaction::begin(*db);
        ASSERT_TRUE(tx.ok());
        ASSERT_TRUE(insert("a").ok());
        EXPECT_EQ(count(), 1);
    } // no commit: rolled back
    EXPECT_EQ(count(), 0);
    {
        auto tx = Transaction::begin(*db);
        ASSERT_TRUE(insert("a").ok());
        ASSERT_TRUE(tx->commit().ok());
        EXPECT_FALSE(tx->commit().ok());
    }
    EXPECT_EQ(count(), 1);
    // The same content twice is refused by the schema (recognised duplicates come with the importer).
    auto dup = insert("a");
    ASSERT_FALSE(dup.ok());
    EXPECT_NE(dup.error().message.find("UNIQUE"), std::string::npos) << dup.error().message;
    // A bad bind is reported by step(), naming the parameter.
    auto s = db->prepare("SELECT ?");
    auto r = s->bind(7, int64_t(1)).step();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("parameter 7"), std::string::npos) << r.error().message;
}

// Version 1 held only sources: a v1 project with rows keeps them through the migration to 2, gains
// every table of version 2, and they take rows that cascade from the old source.
TEST_F(ProjectDb, MigratesVersion1WithRows)
{
    const std::string path = file("v1.aclgi");
    {
        auto v1 = openProject(path, {}, 1);
        ASSERT_TRUE(v1.ok());
        ASSERT_TRUE(v1->exec("INSERT INTO sources(path, kind, size, content_hash, imported_at, diagnostics) "
                             "VALUES ('/m/a.py', 'fx_graph', 10, 'h1', '2026-01-01T00:00:00Z', '[]')")
                        .ok());
        auto graphs = v1->prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'graphs'");
        ASSERT_TRUE(*graphs->step());
        EXPECT_EQ(graphs->columnInt(0), 0);
    }
    auto db = openProject(path);
    ASSERT_TRUE(db.ok()) << db.error().toString();
    EXPECT_EQ(*db->userVersion(), kSchemaVersion);
    auto s = db->prepare("SELECT id, path, kind, content_hash FROM sources");
    ASSERT_TRUE(*s->step());
    EXPECT_EQ(s->columnText(1), "/m/a.py");
    EXPECT_EQ(s->columnText(3), "h1");
    const int64_t source = s->columnInt(0);
    for (const char* table :
        { "graphs", "nodes", "node_args", "node_users", "tensors", "cache_entries", "cache_checks", "cache_options",
            "cache_notes", "pass_reports", "pass_changes", "runs", "run_graphs", "run_pools", "run_calls", "run_events",
            "run_hazards", "run_owners", "run_segment_changes", "run_block_changes", "run_keyframes" }) {
        auto t = db->prepare(std::string("SELECT count(*) FROM ") + table);
        EXPECT_TRUE(t.ok()) << table;
    }
    ASSERT_TRUE(db->exec("INSERT INTO graphs(source_id, name) VALUES (" + std::to_string(source)
                      + ", 'g'); INSERT INTO nodes(graph_id, idx, name, op) VALUES (last_insert_rowid(), 0, 'x', "
                        "'placeholder');")
                    .ok());
    ASSERT_TRUE(db->exec("DELETE FROM sources").ok());
    auto left = db->prepare("SELECT (SELECT count(*) FROM graphs) + (SELECT count(*) FROM nodes)");
    ASSERT_TRUE(*left->step());
    EXPECT_EQ(left->columnInt(0), 0); // cascaded
    EXPECT_EQ(*db->quickCheck(), "");
}

// A project whose pages were overwritten with garbage: opening or reading it gives errors naming the
// file, never a crash (the sanitizer build runs this too).
TEST_F(ProjectDb, CorruptPagesGiveErrors)
{
    const std::string path = file("corrupt.aclgi");
    {
        auto db = openProject(path);
        ASSERT_TRUE(db.ok());
        ASSERT_TRUE(db->exec("INSERT INTO sources(path, kind, size, content_hash, imported_at) VALUES ('p', 'k', 1, "
                             "'h', 't'); INSERT INTO graphs(source_id, name) VALUES (1, 'g');")
                        .ok());
        ASSERT_TRUE(db->exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
    }
    const auto size = fs::file_size(path);
    ASSERT_GT(size, 8192u);
    for (uint64_t offset : { uint64_t(100), uint64_t(4096), size / 2, size - 4096 }) {
        SCOPED_TRACE(offset);
        const std::string copy = file(("c" + std::to_string(offset) + ".aclgi").c_str());
        fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
        {
            std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(std::streamoff(offset));
            const std::string junk(512, '\xA5');
            f.write(junk.data(), std::streamsize(junk.size()));
        }
        auto db = openProject(copy);
        if (!db.ok()) {
            EXPECT_EQ(db.error().context, copy);
            continue;
        }
        // Readable header: every query either answers or fails with SQLite's message.
        auto q = db->prepare("SELECT count(*) FROM graphs g JOIN sources s ON s.id = g.source_id");
        if (q.ok())
            (void)q->step();
        (void)db->quickCheck();
    }
}

} // namespace

// Version 3 adds what told an input's kind, why a graph has no metadata, and whether a pass report
// was measured: a v2 project's rows keep their values and read as told by nothing, with metadata,
// and measured (v2 stored only measured figures or zeros it logged as not measured).
TEST_F(ProjectDb, MigratesVersion2WithRows)
{
    const std::string path = file("v2.aclgi");
    {
        auto v2 = openProject(path, {}, 2);
        ASSERT_TRUE(v2.ok()) << v2.error().toString();
        ASSERT_TRUE(v2->exec("INSERT INTO sources(id, path, kind, size, content_hash, imported_at) "
                             "VALUES (1, '/m/a.py', 'fx_graph', 10, 'h1', '2026-01-01T00:00:00Z');"
                             "INSERT INTO graphs(id, source_id, name) VALUES (1, 1, 'g');"
                             "INSERT INTO nodes(graph_id, idx, name, op, input_kind) VALUES (1, 0, 'x', 'placeholder', 'user_input');"
                             "INSERT INTO pass_reports(graph_id, pos, name, enabled, peak_bytes_before) VALUES (1, 0, 'p', 1, 512);")
                        .ok());
    }
    auto db = openProject(path);
    ASSERT_TRUE(db.ok()) << db.error().toString();
    EXPECT_EQ(*db->userVersion(), kSchemaVersion);
    auto n = db->prepare("SELECT input_kind, input_kind_from FROM nodes");
    ASSERT_TRUE(n.ok() && *n->step());
    EXPECT_EQ(n->columnText(0), "user_input");
    EXPECT_EQ(n->columnText(1), "");
    auto g = db->prepare("SELECT metadata_missing FROM graphs");
    ASSERT_TRUE(g.ok() && *g->step());
    EXPECT_EQ(g->columnText(0), "");
    auto p = db->prepare("SELECT peak_bytes_before, measured, unmeasured_why FROM pass_reports");
    ASSERT_TRUE(p.ok() && *p->step());
    EXPECT_EQ(p->columnInt(0), 512);
    EXPECT_EQ(p->columnInt(1), 1);
    EXPECT_EQ(p->columnText(2), "");
}
