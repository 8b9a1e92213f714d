// The project outline: sections, sources, stage groups, pass results under their graph, cache
// entries by model folder and rank, runs newest first.
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"
#include "storage/importer.h"
#include "storage/project_db.h"
#include "storage/project_outline.h"
#include "storage/run_store.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace storage;

const std::string kData = ACLGI_TEST_DATA_DIR;

const OutlineNode* find(const OutlineNode& n, const std::string& kind, const std::string& label)
{
    if (n.kind == kind && n.label == label)
        return &n;
    for (const OutlineNode& c : n.children)
        if (const OutlineNode* f = find(c, kind, label))
            return f;
    return nullptr;
}

int countKind(const OutlineNode& n, const std::string& kind)
{
    int k = n.kind == kind;
    for (const OutlineNode& c : n.children)
        k += countKind(c, kind);
    return k;
}

TEST(ProjectOutline, EmptyProjectHasTheFourSections)
{
    auto db = openProject(":memory:");
    ASSERT_TRUE(db.ok());
    auto outline = readOutline(*db);
    ASSERT_TRUE(outline.ok()) << outline.error().toString();
    ASSERT_EQ(outline->children.size(), 4u);
    EXPECT_EQ(outline->children[0].label, "Sources");
    EXPECT_EQ(outline->children[3].label, "Simulation runs");
    for (const OutlineNode& s : outline->children) {
        EXPECT_EQ(s.kind, "section");
        EXPECT_TRUE(s.children.empty());
        EXPECT_EQ(s.detail, "0");
    }
}

TEST(ProjectOutline, ImportedSourcesAndRuns)
{
    const fs::path dir = fs::temp_directory_path() / ("aclgi-outline-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string path = (dir / "p.aclgi").string();
    auto results = importPaths(path,
        { kData + "/fx/print_readable_simple.py", kData + "/debug_dir/torch_compile_debug",
            kData + "/cache/multirank_cache", kData + "/scenarios/decode_basic.json" });
    ASSERT_TRUE(results.ok());
    for (const auto& r : *results)
        ASSERT_EQ(r.status, SourceResult::Status::Imported) << r.message;
    auto db = openProject(path);
    ASSERT_TRUE(db.ok());
    // Two runs of the scenario: the newest is listed first.
    auto scenario = engine::scenario::readScenarioFile(kData + "/scenarios/decode_basic.json");
    ASSERT_TRUE(scenario.ok());
    auto sim = engine::runtime::simulate(*scenario);
    ASSERT_TRUE(sim.ok());
    for (int i = 0; i < 2; ++i) {
        auto tx = Transaction::begin(*db);
        WriteContext ctx(*db);
        RunPlace place;
        place.backend = "torchair";
        if (i == 1) // a run of the Config view: its settings are part of its label
            place.overrides = { "debug.aclgraph.clone_input=False", "debug.run_eagerly=True" };
        ASSERT_TRUE(writeRun(ctx, *sim, place, nullptr).ok());
        ASSERT_TRUE(tx->commit().ok());
    }

    auto outline = readOutline(*db);
    ASSERT_TRUE(outline.ok()) << outline.error().toString();
    const OutlineNode& sources = outline->children[0];
    const OutlineNode& graphs = outline->children[1];
    const OutlineNode& caches = outline->children[2];
    const OutlineNode& runs = outline->children[3];
    EXPECT_EQ(sources.children.size(), 4u);
    EXPECT_EQ(sources.children[0].label, "print_readable_simple.py");
    EXPECT_EQ(sources.children[0].detail.rfind("fx_graph, ", 0), 0u) << sources.children[0].detail;

    // The FX file's graph sits directly under its source, with our passes' stages under it.
    const OutlineNode* fx = find(graphs, "source", "print_readable_simple.py");
    ASSERT_NE(fx, nullptr);
    ASSERT_EQ(fx->children.size(), 1u);
    EXPECT_EQ(fx->children[0].kind, "graph");
    EXPECT_GT(fx->children[0].children.size(), 0u);
    for (const OutlineNode& r : fx->children[0].children)
        EXPECT_EQ(r.kind, "pass_result");
    // The debug folder's stages are grouped by model and phase, in dump order.
    const OutlineNode* debug = find(graphs, "source", "torch_compile_debug");
    ASSERT_NE(debug, nullptr);
    const OutlineNode* group = find(*debug, "group", "model__0/forward");
    ASSERT_NE(group, nullptr);
    ASSERT_GT(group->children.size(), 1u);
    EXPECT_EQ(group->children[0].label.rfind("0 ", 0), 0u) << group->children[0].label;
    // Cache entries by model folder and rank; cache graphs are not listed under Graphs.
    const OutlineNode* multirank = find(caches, "source", "multirank_cache");
    ASSERT_NE(multirank, nullptr);
    EXPECT_GE(countKind(*multirank, "cache_rank"), 2);
    EXPECT_GE(countKind(*multirank, "cache_entry"), 2);
    EXPECT_EQ(find(graphs, "source", "multirank_cache"), nullptr);
    // The same file name from another folder is a source of its own, not merged into the first.
    const fs::path other = dir / "other";
    fs::create_directories(other);
    std::ofstream(other / "print_readable_simple.py") << "class GraphModule(torch.nn.Module):\n"
                                                         "    def forward(self, x: \"f32[4]\"):\n"
                                                         "        y: \"f32[4]\" = torch.ops.aten.sin.default(x)\n"
                                                         "        return (y,)\n";
    auto more = importPaths(path, { (other / "print_readable_simple.py").string() });
    ASSERT_TRUE(more.ok());
    ASSERT_EQ((*more)[0].status, SourceResult::Status::Imported) << (*more)[0].message;
    auto again = readOutline(*db);
    ASSERT_TRUE(again.ok());
    int sameName = 0;
    for (const OutlineNode& c : again->children[1].children)
        sameName += c.kind == "source" && c.label == "print_readable_simple.py";
    EXPECT_EQ(sameName, 2);
    // Runs, newest first.
    ASSERT_EQ(runs.children.size(), 2u);
    EXPECT_GT(runs.children[0].id, runs.children[1].id);
    const std::string name = runs.children[1].label.substr(runs.children[1].label.find(' ') + 1);
    EXPECT_EQ(runs.children[0].label,
        "#" + std::to_string(runs.children[0].id) + " " + name
            + " [debug.aclgraph.clone_input=False, debug.run_eagerly=True]");
    EXPECT_NE(runs.children[0].detail.find("calls"), std::string::npos);
    EXPECT_EQ(runs.detail, "2");
    fs::remove_all(dir);
}

} // namespace
