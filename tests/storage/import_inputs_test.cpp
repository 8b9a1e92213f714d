// Inputs that are not regular files, an import that goes on past each bad source (a FIFO, a
// truncated file, an exception thrown mid-write, out of memory), and projects that are not projects
// (0 bytes, a snapshot, a FIFO) or are damaged (issue 19).
#include "engine/scenario/decoder_generator.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "tests/temp_dir_test.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <new>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;
using Status = SourceResult::Status;

const std::string kData = ACLGI_TEST_DATA_DIR;

class ImportInputs : public TempDirTest {
protected:
    ImportInputs()
        : TempDirTest("inputs")
    {
    }
    std::string fifo(const std::string& name) const
    {
        EXPECT_EQ(::mkfifo(file(name).c_str(), 0600), 0);
        return file(name);
    }
    std::string decoder(const std::string& name, int layers) const
    {
        engine::scenario::DecoderSpec spec;
        spec.layers = layers;
        return write(name, engine::scenario::decoderScenarioJson(spec, "{}", { 1, 2 }, 2, name));
    }
};

int64_t count(Database& db, const std::string& sql)
{
    auto s = db.prepare(sql);
    if (!s.ok())
        return -1;
    auto row = s->step();
    return row.ok() && *row ? s->columnInt(0) : -1;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(ImportInputs, OneBadSourceNeverStopsTheOthers)
{
    const std::string db = file("p.aclgi");
    const std::string good1 = kData + "/fx/print_readable_simple.py";
    const std::string pipe = fifo("input.py");
    const std::string snapshot = readAll(kData + "/snapshots/simple.pickle");
    ASSERT_GT(snapshot.size(), 64u);
    const std::string truncated = write("cut.pickle", snapshot.substr(0, snapshot.size() / 2));
    const std::string throws = decoder("throws.json", 8); // big enough to report rows mid-write
    const std::string oom = decoder("oom.json", 2);
    const std::string good2 = kData + "/torchair/output_code_static.py";

    ImportOptions options;
    bool threwMidWrite = false;
    options.progress = [&](const ImportProgress& p) {
        const std::string name = fs::path(p.path).filename().string();
        if (name == "throws.json" && p.phase == "writing" && p.rows > 0) {
            threwMidWrite = true; // inside the source's transaction
            throw std::runtime_error("a reader's bug");
        }
        if (name == "oom.json" && p.phase == "reading")
            throw std::bad_alloc();
        if (name == "oom.json" && p.phase == "writing")
            throw 42; // not a std::exception at all
    };
    auto results = importPaths(db, { good1, pipe, truncated, throws, oom, good2 }, options);
    ASSERT_TRUE(results.ok()) << results.error().toString();
    ASSERT_EQ(results->size(), 6u);
    const auto& r = *results;
    EXPECT_EQ(r[0].status, Status::Imported) << r[0].message;
    EXPECT_EQ(r[1].status, Status::Failed);
    EXPECT_NE(r[1].message.find("a FIFO (named pipe) is not read"), std::string::npos) << r[1].message;
    EXPECT_EQ(r[2].status, Status::Failed);
    EXPECT_NE(r[2].message.find("cut.pickle"), std::string::npos) << r[2].message;
    EXPECT_TRUE(threwMidWrite);
    EXPECT_EQ(r[3].status, Status::Failed);
    EXPECT_NE(r[3].message.find("a reader's bug"), std::string::npos) << r[3].message;
    EXPECT_NE(r[3].message.find("throws.json"), std::string::npos) << r[3].message;
    EXPECT_EQ(r[4].status, Status::Failed);
    EXPECT_NE(r[4].message.find("out of memory"), std::string::npos) << r[4].message;
    EXPECT_EQ(r[5].status, Status::Imported) << r[5].message;
    for (int i : { 1, 2, 3, 4 })
        EXPECT_EQ(r[i].sourceId, 0) << r[i].path;

    // Nothing of the failed sources stays: two sources, and only their graphs.
    auto project = openProject(db);
    ASSERT_TRUE(project.ok());
    EXPECT_EQ(count(*project, "SELECT count(*) FROM sources"), 2);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM graphs WHERE source_id NOT IN (SELECT id FROM sources)"), 0);
    EXPECT_EQ(count(*project, "SELECT count(*) FROM graphs WHERE name LIKE '%throws%' OR file LIKE '%throws%'"), 0);

    // The source that threw imports once the exception is gone.
    auto again = importPaths(db, { throws });
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)[0].status, Status::Imported) << (*again)[0].message;
}

TEST_F(ImportInputs, TheJobThreadSurvivesEveryException)
{
    ImportOptions options;
    options.progress = [](const ImportProgress&) { throw std::logic_error("thrown from the progress callback"); };
    ImportJob job(file("p.aclgi"), { kData + "/fx/print_readable_simple.py" }, options);
    auto results = job.wait();
    ASSERT_TRUE(results.ok());
    EXPECT_EQ((*results)[0].status, Status::Failed);
    EXPECT_NE((*results)[0].message.find("thrown from the progress callback"), std::string::npos);
}

Database::OpenOptions readOnly()
{
    Database::OpenOptions o;
    o.readOnly = true;
    o.create = false;
    return o;
}

TEST_F(ImportInputs, ProjectsThatAreNoProjectsSayWhatTheyAre)
{
    const std::string empty = write("empty.aclgi", "");
    auto e = openProject(empty, readOnly());
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message, "empty (0 bytes): not a project");
    EXPECT_EQ(e.error().context, empty);
    // Decided: a writer given a 0-byte file makes a new project in it.
    EXPECT_TRUE(openProject(empty).ok());
    EXPECT_TRUE(openProject(empty, readOnly()).ok());

    const std::string snapshot = write("snap.aclgi", readAll(kData + "/snapshots/simple.pickle"));
    for (const auto& options : { readOnly(), Database::OpenOptions {} }) {
        auto s = openProject(snapshot, options);
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.error().message.find("a memory snapshot (pickle), not a project: import it with `import "),
            std::string::npos)
            << s.error().message;
    }
    EXPECT_EQ(fs::file_size(snapshot), readAll(kData + "/snapshots/simple.pickle").size()); // untouched

    const std::string pipe = fifo("pipe.aclgi");
    for (const auto& options : { readOnly(), Database::OpenOptions {} }) {
        auto p = openProject(pipe, options); // would block in SQLite's open
        ASSERT_FALSE(p.ok());
        EXPECT_NE(p.error().message.find("a FIFO (named pipe) is not read"), std::string::npos) << p.error().message;
    }
    auto dev = openProject("/dev/zero", readOnly());
    ASSERT_FALSE(dev.ok());
    EXPECT_NE(dev.error().message.find("a character device"), std::string::npos) << dev.error().message;

    auto missing = openProject(file("missing.aclgi"), readOnly());
    ASSERT_FALSE(missing.ok());
    EXPECT_FALSE(fs::exists(file("missing.aclgi")));
}

TEST_F(ImportInputs, ADamagedProjectIsReadOnly)
{
    const std::string db = file("p.aclgi");
    auto made = importPaths(db, { decoder("a.json", 8), kData + "/fx/print_readable_simple.py" });
    ASSERT_TRUE(made.ok());
    {
        auto sound = openProject(db, readOnly());
        ASSERT_TRUE(sound.ok());
        EXPECT_TRUE(sound->quickChecked());
        EXPECT_EQ(sound->damage(), "");
    }
    // Garbage over the middle pages, the header kept.
    const uint64_t size = fs::file_size(db);
    ASSERT_GT(size, 40u * 4096);
    {
        std::fstream f(db, std::ios::binary | std::ios::in | std::ios::out);
        for (uint64_t page = size / 4096 / 3; page < size / 4096 / 3 + 24; page += 3) {
            f.seekp(std::streamoff(page * 4096 + 100));
            f << std::string(2000, '\x5a');
        }
    }
    auto writer = openProject(db);
    ASSERT_FALSE(writer.ok());
    EXPECT_NE(writer.error().message.find("the project is damaged, so nothing is written into it"), std::string::npos)
        << writer.error().message;
    EXPECT_EQ(writer.error().context, db);
    auto imported = importPaths(db, { kData + "/torchair/output_code_static.py" });
    EXPECT_FALSE(imported.ok());

    auto reader = openProject(db, readOnly());
    ASSERT_TRUE(reader.ok()) << reader.error().toString();
    EXPECT_NE(reader->damage(), "");

    // Past the size limit no check is made, and it is said.
    auto unchecked = readOnly();
    unchecked.quickCheckMaxBytes = 1;
    auto big = openProject(db, unchecked);
    ASSERT_TRUE(big.ok());
    EXPECT_FALSE(big->quickChecked());
    EXPECT_EQ(big->damage(), "");
}

} // namespace
