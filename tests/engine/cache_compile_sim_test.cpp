// cache_compile around a simulated run (torchair-behavior.md §5, T/inference/_cache_compiler.py): the path,
// the save after the compiling call, the recompile skip, the lazy load and every way it breaks.
#include "simulator_test_util.h"

#include <gmock/gmock.h>
#include <regex>

using engine::runtime::Simulation;
using simtest::call;
using simtest::logText;
using simtest::ordered_json;
using simtest::run;
using simtest::scenario;
using simtest::tinyGraph;
using testing::HasSubstr;
using testing::Not;

namespace {

ordered_json cached(ordered_json cacheCompile, ordered_json calls = { call(4), call(4) },
    ordered_json config = ordered_json::object(), ordered_json graphs = { tinyGraph() })
{
    ordered_json j = scenario(std::move(config), std::move(graphs), std::move(calls));
    j["cache_compile"] = std::move(cacheCompile);
    return j;
}

const ordered_json kBase = { { "module", "Model" }, { "method", "prompt" }, { "signature", "(x, kv)" },
    { "cwd", "/job" }, { "module_repr", "Model()" } };

ordered_json with(ordered_json j, const std::string& key, ordered_json value)
{
    j[key] = std::move(value);
    return j;
}

ordered_json staticCall(const std::string& g)
{
    return { { "graph", g } };
}

size_t at(const std::string& log, const std::string& text)
{
    const size_t p = log.find(text);
    EXPECT_NE(p, std::string::npos) << "missing: " << text << "\n" << log;
    return p;
}

} // namespace

TEST(CacheCompileSim, FirstRunCompilesThenSavesAfterTheCall)
{
    Simulation sim = run(cached(kBase));
    const std::string log = logText(sim);
    const std::regex path("/job/\\.torchair_cache/Model_dynamic_aclgraphcache_[0-9a-f]{32}/prompt/compiled_module");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(log, m, path)) << log;
    const std::string bin = m.str();
    const size_t compiling = at(log, "Compiling cache for <bound method Model.prompt of Model()> to " + bin);
    const size_t codegen = at(log, "Model.prompt(x, kv) codegen took ? [s]");
    const size_t captured = at(log, "Success to capture fx_graph graph_1");
    const size_t saving = at(log, "Saving cache for Model.prompt(x, kv) to " + bin);
    const size_t saved
        = at(log, "Cache ModelCacheMeta(name='Model.prompt(x, kv)', date='?', version='1.0.5') saved to " + bin);
    EXPECT_LT(compiling, codegen);
    EXPECT_LT(codegen, captured);
    EXPECT_LT(captured, saving); // the watcher saves when the call returns
    EXPECT_LT(saving, saved);
    EXPECT_EQ(log.find("Saving cache", saved), std::string::npos); // once, not per call
    ASSERT_EQ(sim.files.size(), 1u);
    EXPECT_EQ(sim.files[0].path, bin);
    EXPECT_EQ(sim.files[0].writtenAtCall, 0);
    EXPECT_EQ(sim.files[0].removedAtCall, -1);
    EXPECT_TRUE(sim.assumptions.empty());
    EXPECT_EQ(sim.calls.size(), 2u);
}

TEST(CacheCompileSim, NothingWithoutCacheCompile)
{
    Simulation sim = run(scenario(ordered_json::object(), { tinyGraph() }, { call(4), call(4) }));
    EXPECT_THAT(logText(sim), Not(HasSubstr("cache")));
    EXPECT_TRUE(sim.files.empty());
    EXPECT_TRUE(sim.failure.empty());
}

TEST(CacheCompileSim, DynamoRecompilingTheMethodSkipsAndRemovesTheCache)
{
    ordered_json graphs = { tinyGraph("a"), tinyGraph("b", true, 8) };
    Simulation sim = run(cached(
        kBase, { call(4, {}, 0, "a"), call(4, {}, 0, "b"), call(4, {}, 0, "b") }, ordered_json::object(), graphs));
    const std::string w
        = "Skip cache as Model.prompt(x, kv) recompiled, set torch._logging.set_logs(recompiles=True) for details";
    EXPECT_EQ(std::count(sim.warnings.begin(), sim.warnings.end(), w), 1); // warnings.filterwarnings("once")
    ASSERT_EQ(sim.files.size(), 1u);
    EXPECT_EQ(sim.files[0].writtenAtCall, 0);
    EXPECT_EQ(sim.files[0].removedAtCall, 1);
    EXPECT_THAT(sim.files[0].why, HasSubstr("graph 'b' after 'a'"));
    // Graphs outside the cached method do not count.
    Simulation other = run(cached(
        with(kBase, "graphs", { "a" }), { call(4, {}, 0, "a"), call(4, {}, 0, "b") }, ordered_json::object(), graphs));
    EXPECT_THAT(logText(other), Not(HasSubstr("recompiled")));
    ASSERT_EQ(other.files.size(), 1u);
    EXPECT_EQ(other.files[0].removedAtCall, -1);
}

TEST(CacheCompileSim, FolderNameFollowsOptionsAndRanks)
{
    ordered_json spec
        = with(with(with(with(kBase, "dynamic", false), "world_size", 2), "global_rank", 1), "tp_rank", 0);
    Simulation sim = run(cached(spec));
    ASSERT_EQ(sim.files.size(), 1u);
    EXPECT_THAT(sim.files[0].path,
        testing::MatchesRegex("/job/\\.torchair_cache/Model_static_aclgraphcache_[0-9a-f]{32}/"
                              "world2global_rank1_tp_rank0/prompt/compiled_module"));
    // Another option value, another md5 (the options are hashed with str(module)).
    Simulation other = run(cached(spec, { call(4) }, { { "debug.aclgraph.clone_input", false } }));
    ASSERT_EQ(other.files.size(), 1u);
    EXPECT_NE(other.files[0].path, sim.files[0].path);
    // cache_dir wins over cwd.
    Simulation dir = run(cached(with(kBase, "cache_dir", "/data/c")));
    ASSERT_EQ(dir.files.size(), 1u);
    EXPECT_EQ(dir.files[0].path.rfind("/data/c/Model_dynamic_aclgraphcache_", 0), 0u);
}

TEST(CacheCompileSim, UnknownsAreShownAndListed)
{
    Simulation sim = run(cached({ { "module", "Model" } }));
    ASSERT_EQ(sim.files.size(), 1u);
    EXPECT_EQ(sim.files[0].path, "<cwd>/.torchair_cache/Model_dynamic_aclgraphcache_<md5>/forward/compiled_module");
    EXPECT_THAT(logText(sim), HasSubstr("Saving cache for Model.forward(...) to"));
    EXPECT_EQ(sim.assumptions.size(), 3u); // cwd, str(module), signature
}

TEST(CacheCompileSim, NpugraphExWritesItsOwnVersion)
{
    Simulation sim = run(cached(kBase, { call(4) }, { { "mode", "npugraph_ex" }, { "capture_limit", 64 } }));
    EXPECT_THAT(logText(sim), HasSubstr("version='1.0.6') saved to"));
}

TEST(CacheCompileSim, ValidCacheLoadsWithoutCompiling)
{
    Simulation sim = run(cached(with(kBase, "existing", { { "date", "2026-11-20 10:00:00.000000+00:00" } })));
    const std::string log = logText(sim);
    const size_t loading = at(log, "Loading cache from /job/.torchair_cache/");
    const size_t took = at(log, "\nload cache from /job/");
    const size_t loaded = at(log,
        "Cache ModelCacheMeta(name='Model.prompt(x, kv)', date='2026-11-20 10:00:00.000000+00:00', version='1.0.5') "
        "loaded from /job/");
    EXPECT_LT(loading, took);
    EXPECT_LT(took, loaded);
    EXPECT_THAT(log, Not(HasSubstr("Compiling cache")));
    EXPECT_THAT(log, Not(HasSubstr("codegen took")));
    EXPECT_THAT(log, Not(HasSubstr("Saving cache")));
    ASSERT_EQ(sim.files.size(), 1u);
    EXPECT_EQ(sim.files[0].writtenAtCall, -1);
    EXPECT_EQ(sim.files[0].removedAtCall, -1);
    EXPECT_EQ(sim.calls.size(), 2u);
}

TEST(CacheCompileSim, BrokenCachesAreClearedAndCompiledAgain)
{
    struct Case {
        ordered_json existing;
        std::string error;
        bool timed; ///< the unpickle finished, so timer() logged
    };
    const std::vector<Case> cases = {
        { { { "mode", "644" } }, "Permissions must be 600", false },
        { { { "owned", false } }, "File must be owned by the current user", false },
        { { { "unpickle_error", "invalid load key, 'x'." } }, "invalid load key, 'x'.", false },
        { { { "version", "1.0.4" } }, "Version mismatch: 1.0.4 != 1.0.5", true },
    };
    for (const Case& c : cases) {
        Simulation sim = run(cached(with(kBase, "existing", c.existing)));
        const std::string log = logText(sim);
        SCOPED_TRACE(c.error);
        const size_t cleared = at(log, " as " + c.error);
        EXPECT_THAT(log.substr(0, cleared), HasSubstr("Clear broken cache /job/.torchair_cache/"));
        EXPECT_EQ(log.find("\nload cache from /job/") != std::string::npos, c.timed);
        EXPECT_LT(cleared, at(log, "Compiling cache for"));
        EXPECT_LT(cleared, at(log, "Saving cache for"));
        ASSERT_EQ(sim.files.size(), 2u);
        EXPECT_EQ(sim.files[0].writtenAtCall, -1);
        EXPECT_EQ(sim.files[0].removedAtCall, 0);
        EXPECT_THAT(sim.files[0].why, HasSubstr(c.error));
        EXPECT_EQ(sim.files[1].writtenAtCall, 0);
        EXPECT_EQ(std::count_if(sim.warnings.begin(), sim.warnings.end(),
                      [](const std::string& w) { return w.rfind("Clear broken cache", 0) == 0; }),
            1);
    }
}

TEST(CacheCompileSim, LoadedCacheOfOtherShapesFailsItsFirstCallSizeCheck)
{
    ordered_json graphs = { tinyGraph("small", false, 4), tinyGraph("wide", false, 8) };
    Simulation sim = run(cached(with(kBase, "existing", { { "graph", "small" } }),
        { staticCall("wide"), staticCall("wide") }, ordered_json::object(), graphs));
    EXPECT_THAT(sim.failure, HasSubstr("AssertionError: expected size 2==2, stride 8==4 at dim=0 (input 2, x:"));
    EXPECT_EQ(sim.callsSimulated, 1);
    EXPECT_TRUE(sim.calls.empty());
    // The same graph passes, and a graph with the same shapes runs unchecked, which the run says.
    Simulation same = run(cached(with(kBase, "existing", { { "graph", "small" } }),
        { staticCall("small"), staticCall("small") }, ordered_json::object(), graphs));
    EXPECT_TRUE(same.failure.empty());
    EXPECT_EQ(same.calls.size(), 2u);
    ordered_json twin = { tinyGraph("small", false, 4), tinyGraph("twin", false, 4) };
    Simulation unchecked = run(cached(
        with(kBase, "existing", { { "graph", "small" } }), { staticCall("twin") }, ordered_json::object(), twin));
    EXPECT_TRUE(unchecked.failure.empty());
    ASSERT_EQ(unchecked.assumptions.size(), 1u);
    EXPECT_THAT(unchecked.assumptions[0], HasSubstr("a loaded cache has no guards"));
}

TEST(CacheCompileSim, StaticKernelRunPackagesGoToTheCacheInsteadOfTheWarning)
{
    const ordered_json config = { { "experimental_config.aclgraph._aclnn_static_shape_kernel", true } };
    const std::string warning = "now supports caching run packages from static kernel";
    Simulation plain = run(scenario(config, { tinyGraph() }, { call(4) }));
    EXPECT_THAT(logText(plain), HasSubstr(warning));
    Simulation withCache = run(cached(kBase, { call(4) }, config));
    EXPECT_THAT(logText(withCache), Not(HasSubstr(warning)));
}

TEST(CacheCompileSim, ReaderNamesThePlace)
{
    auto bad = [](ordered_json spec) {
        auto s = engine::scenario::parseScenario(cached(std::move(spec)).dump(), "s.json");
        EXPECT_FALSE(s.ok());
        return s.ok() ? std::string() : s.error().toString();
    };
    EXPECT_THAT(bad(with(kBase, "colour", 1)), HasSubstr("$.cache_compile.colour"));
    EXPECT_THAT(bad(with(kBase, "signature", "x, kv")), HasSubstr("$.cache_compile.signature"));
    EXPECT_THAT(bad(with(kBase, "graphs", { "nope" })), HasSubstr("$.cache_compile.graphs[0]"));
    EXPECT_THAT(bad(with(kBase, "existing", { { "mode", "rw-" } })), HasSubstr("$.cache_compile.existing.mode"));
    EXPECT_THAT(bad(with(kBase, "existing", { { "graph", "nope" } })), HasSubstr("no graph with id 'nope'"));
    EXPECT_THAT(bad(with(kBase, "world_size", 0)), HasSubstr("$.cache_compile.world_size"));
}

TEST(RunFiles, GraphDumpWritesTwoFilesPerFxGraph)
{
    ordered_json graphs = { tinyGraph("a"), tinyGraph("b", true, 8) };
    ordered_json calls = { call(4, {}, 0, "a"), call(4, {}, 0, "b"), call(4, {}, 0, "a") };
    Simulation sim
        = run(scenario({ { "debug.graph_dump.type", "py" }, { "debug.graph_dump.path", "/tmp/d" } }, graphs, calls));
    ASSERT_EQ(sim.files.size(), 4u);
    EXPECT_EQ(sim.files[0].path, "/tmp/d/dynamo_original_graph_1_rank_0_pid_<pid>_ts_<timestamp>.py");
    EXPECT_EQ(sim.files[1].path, "/tmp/d/dynamo_optimized_graph_1_rank_0_pid_<pid>_ts_<timestamp>.py");
    EXPECT_EQ(sim.files[3].path, "/tmp/d/dynamo_optimized_graph_2_rank_0_pid_<pid>_ts_<timestamp>.py");
    EXPECT_EQ(sim.files[2].writtenAtCall, 1);
    // Without a path, the working directory; without the option, nothing.
    Simulation here = run(scenario({ { "debug.graph_dump.type", "py" } }, { tinyGraph() }, { call(4) }));
    ASSERT_EQ(here.files.size(), 2u);
    EXPECT_EQ(here.files[0].path.rfind("./dynamo_original_graph_1_rank_0_", 0), 0u);
    EXPECT_TRUE(run(scenario(ordered_json::object(), { tinyGraph() }, { call(4) })).files.empty());
}
