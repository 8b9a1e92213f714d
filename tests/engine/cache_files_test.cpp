// Compile-cache files and folders (engine/cache/) against tests/data/cache/, written by
// tests/data/make_cache_fixtures.py with TorchAir's exact layout: its manifest.json says what
// TorchAir's loader and readable_cache do with each file (checked there by a Python unpickler with
// TorchAir's strict rules), and pyversions/py3X/readable_cache.txt is what readable_cache prints
// under that Python. Git keeps neither mode 600 nor the owner, so the tree is copied to a temporary
// folder and chmod'ed first; owner and mode failures are made there on purpose.
#include "engine/cache/cache_checks.h"
#include "engine/cache/cache_key.h"
#include "engine/cache/cache_scan.h"
#include "engine/core/md5.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace engine;
using namespace engine::cache;
using config::Backend;
using nlohmann::json;

const std::string kSource = std::string(ACLGI_TEST_DATA_DIR) + "/cache";

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    return text;
}

class CacheFiles : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_root = fs::temp_directory_path() / ("aclgi-cache-test-" + std::to_string(getpid()));
        fs::remove_all(s_root);
        fs::copy(kSource, s_root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        for (const auto& e : fs::recursive_directory_iterator(s_root))
            if (e.is_regular_file() && !e.is_symlink())
                fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
        s_manifest = json::parse(slurp(kSource + "/manifest.json"));
    }
    static void TearDownTestSuite() { fs::remove_all(s_root); }

    static std::string path(const std::string& rel) { return (s_root / rel).string(); }
    static const json& entry(const std::string& name)
    {
        for (const json& f : s_manifest["files"])
            if (f["case"] == name)
                return f;
        static const json none;
        ADD_FAILURE() << "no manifest case " << name;
        return none;
    }
    static Backend backendOf(const json& name)
    {
        return name == "npugraph_ex" ? Backend::NpugraphEx : Backend::TorchAir;
    }

    static fs::path s_root;
    static json s_manifest;
};
fs::path CacheFiles::s_root;
json CacheFiles::s_manifest;

std::string failureText(const CacheFileReport& r)
{
    const CacheCheck* f = r.firstFailure();
    return f ? f->name + ": " + f->exception + ": " + f->message : "(none)";
}

TEST_F(CacheFiles, EveryManifestCaseLoadsOrFailsAsTorchAirDoes)
{
    int checked = 0;
    for (const json& e : s_manifest["files"]) {
        const std::string file = path(e["path"]);
        SCOPED_TRACE(e["case"].get<std::string>());
        CheckOptions options;
        options.loader = backendOf(e["loader"]);
        const CacheFileReport r = checkCacheFile(file, options);
        const json& load = e["load"];
        const std::string real = statFile(file).realPath;
        if (load["ok"].get<bool>()) {
            EXPECT_TRUE(r.loads) << failureText(r);
        } else if (load["stage"] == "exists") {
            ASSERT_FALSE(r.loads);
            EXPECT_EQ(r.firstFailure()->name, "exists");
            EXPECT_EQ(r.firstFailure()->exception, ""); // no file: TorchAir compiles, no error
        } else {
            ASSERT_NE(r.firstFailure(), nullptr);
            EXPECT_EQ(r.firstFailure()->exception, load["exception"].get<std::string>()) << failureText(r);
            EXPECT_EQ(r.firstFailure()->message, replaced(load["message"], "{path}", real)) << failureText(r);
            // and TorchAir's warning with exactly that text
            EXPECT_EQ(r.log.size() >= 2 ? r.log[r.log.size() - 2] : "",
                std::string("[WARNING] ") + (options.loader == Backend::NpugraphEx ? "NPUGRAPH_EX" : "TORCHAIR")
                    + " Clear broken cache " + real + " as " + r.firstFailure()->message);
        }

        CheckOptions readable = options;
        readable.purpose = Purpose::Readable;
        const CacheFileReport rr = checkCacheFile(file, readable);
        const json expect = e.value("readable_cache", load);
        if (expect["ok"].get<bool>()) {
            EXPECT_EQ(rr.firstFailure(), nullptr) << failureText(rr);
        } else if (expect.contains("exception") && !expect["exception"].is_null()) {
            ASSERT_NE(rr.firstFailure(), nullptr);
            EXPECT_EQ(rr.firstFailure()->exception, expect["exception"].get<std::string>()) << failureText(rr);
            EXPECT_EQ(rr.firstFailure()->message, replaced(expect["message"], "{path}", file)) << failureText(rr);
        }
        ++checked;
    }
    EXPECT_GE(checked, 25);
}

TEST_F(CacheFiles, GoodFilesReadInFull)
{
    for (const json& e : s_manifest["files"]) {
        if (e["kind"] == "broken")
            continue;
        SCOPED_TRACE(e["case"].get<std::string>());
        const CacheFileReport r = checkCacheFile(path(e["path"]));
        ASSERT_TRUE(r.artifact) << r.readError;
        const CacheArtifact& a = *r.artifact;
        EXPECT_EQ(a.backend, backendOf(e["writer_backend"]));
        EXPECT_EQ(r.loader, a.backend); // checked as its own backend loads it
        EXPECT_EQ(a.pickleProtocol, e["pickle_protocol"].get<int>());
        EXPECT_EQ(a.meta.name, e["meta"]["name"].get<std::string>());
        EXPECT_EQ(a.meta.date, e["meta"]["date"].get<std::string>());
        EXPECT_EQ(a.meta.version, e["meta"]["version"].get<std::string>());
        EXPECT_EQ(a.meta.repr(), e["meta_repr"].get<std::string>());
        ASSERT_EQ(a.inputParameters.size(), e["input_parameters"].size());
        for (size_t i = 0; i < a.inputParameters.size(); ++i) {
            EXPECT_EQ(a.inputParameters[i].first, e["input_parameters"][i][0].get<std::string>());
            EXPECT_EQ(a.inputParameters[i].second, e["input_parameters"][i][1].get<bool>());
        }
        EXPECT_EQ(
            a.signatureText.rfind(prettyTitle("graph module") + "\nclass GraphModule(torch.nn.Module):\n", 0), 0u);
        EXPECT_TRUE(a.signature.wellFormed);
        std::string options;
        for (size_t i = 0; i < a.signature.options.size(); ++i)
            options += (i ? "," : "") + a.signature.options[i];
        EXPECT_EQ(options, e["options"].get<std::string>());
        ASSERT_TRUE(a.module) << a.moduleError;
        EXPECT_EQ(a.module->graph.id, e["fx_graph_name"].get<std::string>());
        EXPECT_EQ(a.module->backend, a.backend);
        EXPECT_EQ(a.module->nodesWithoutMeta, 0) << "the signature's graph annotates every node of py_code";
        // The signature's placeholder lines agree with the generated module's classification.
        int params = 0;
        for (const SignatureInput& in : a.signature.inputs)
            params += in.kind != "UserInput";
        EXPECT_EQ(size_t(params), a.inputParameters.size());
        // compiled_fn: the code object the manifest describes
        const json& fn = e["compiled_fn"];
        ASSERT_TRUE(a.compiledFn.decoded) << a.compiledFn.error;
        const marshal::Code* code = a.compiledFn.code.rootCode();
        EXPECT_EQ(code->name, fn["co_name"].get<std::string>());
        EXPECT_EQ(code->filename, fn["co_filename"].get<std::string>());
        EXPECT_EQ(code->firstLineNo, fn["co_firstlineno"].get<int>());
        EXPECT_EQ(code->names, fn["co_names"].get<std::vector<std::string>>());
        EXPECT_EQ(code->varNames, fn["co_varnames"].get<std::vector<std::string>>());
        EXPECT_EQ(a.compiledFn.compiledFnNames.size(), 1u);
        // TorchAir's INFO lines of a successful load, in order, then the DEBUG prefetch lines.
        const std::string tag = a.backend == Backend::NpugraphEx ? " NPUGRAPH_EX " : " TORCHAIR ";
        const std::string real = statFile(path(e["path"])).realPath;
        ASSERT_GE(r.log.size(), 4u + a.inputParameters.size());
        EXPECT_EQ(r.log[0], "[INFO]" + tag + "Loading cache from " + real);
        EXPECT_EQ(r.log[1].rfind("[INFO]" + tag + "load cache from " + real + " took ", 0), 0u) << r.log[1];
        EXPECT_EQ(r.log[1].substr(r.log[1].size() - 4), " [s]");
        EXPECT_EQ(r.log[2], "[INFO]" + tag + "Cache " + a.meta.repr() + " loaded from " + real);
        EXPECT_EQ(r.log[3].rfind("[INFO]" + tag + a.meta.name + " compile graph took ", 0), 0u) << r.log[3];
        for (size_t i = 0; i < a.inputParameters.size(); ++i)
            EXPECT_EQ(r.log[4 + i],
                "[DEBUG]" + tag + "Prefetch input " + std::to_string(i) + " from "
                    + (a.inputParameters[i].second ? "parameter " : "buffer ") + a.inputParameters[i].first);
        if (fn.contains("python")) {
            marshal::PyVersion v;
            ASSERT_TRUE(marshal::parseVersion(fn["python"].get<std::string>(), v));
            const auto& c = a.compiledFn.versions.candidates;
            EXPECT_NE(std::find(c.begin(), c.end(), v), c.end()) << "guess: " << a.compiledFn.versions.reason;
        }
    }
}

TEST_F(CacheFiles, ReadableTextIsTorchAirsUnderEveryPython)
{
    int compared = 0;
    for (const auto& dir : fs::directory_iterator(s_root / "pyversions")) {
        SCOPED_TRACE(dir.path().filename().string());
        const std::string golden = slurp((dir.path() / "readable_cache.txt").string());
        ASSERT_FALSE(golden.empty());
        marshal::PyVersion v;
        ASSERT_TRUE(marshal::parseVersion(dir.path().filename().string().substr(2), v));
        const CacheFileReport r = checkCacheFile((dir.path() / "compiled_module").string());
        ASSERT_TRUE(r.artifact);
        EXPECT_EQ(readableText(*r.artifact, v), golden);
        ++compared;
    }
    EXPECT_EQ(compared, 6);
}

TEST_F(CacheFiles, ReadableFileTextIsCommentedTextThenPyCode)
{
    const CacheFileReport r = checkCacheFile(path(entry("torchair_default_prompt")["path"]));
    ASSERT_TRUE(r.artifact);
    const std::string text = readableText(*r.artifact);
    const std::string file = readableFileText(*r.artifact);
    EXPECT_EQ(file.substr(0, 102), "# " + std::string(100, '='));
    EXPECT_EQ(text.substr(0, 101), std::string(100, '=') + "\n");
    EXPECT_EQ(text.substr(101, r.artifact->meta.repr().size()), r.artifact->meta.repr());
    EXPECT_NE(text.find(prettyTitle("caller frame")), std::string::npos);
    // every line of the text commented, then a newline, then py_code as is
    EXPECT_EQ(file.substr(file.size() - r.artifact->pyCode.size()), r.artifact->pyCode);
    const std::string comments = file.substr(0, file.size() - r.artifact->pyCode.size() - 1);
    size_t lines = 0;
    for (size_t at = 0; at < comments.size(); at = comments.find('\n', at) + 1) {
        EXPECT_EQ(comments.substr(at, 2), "# ") << at;
        ++lines;
        if (comments.find('\n', at) == std::string::npos)
            break;
    }
    EXPECT_EQ(lines, size_t(std::count(text.begin(), text.end(), '\n') + 1));
}

TEST_F(CacheFiles, OwnerAndModeAsTorchAirChecksThem)
{
    const std::string file = path(entry("torchair_default_decode")["path"]);
    CheckOptions other;
    other.uid = getuid() + 4242; // TorchAir running as another user
    CacheFileReport r = checkCacheFile(file, other);
    ASSERT_NE(r.firstFailure(), nullptr);
    EXPECT_EQ(r.firstFailure()->name, "owner");
    EXPECT_EQ(r.firstFailure()->exception, "PermissionError");
    EXPECT_EQ(r.firstFailure()->message, "File must be owned by the current user");
    EXPECT_TRUE(r.artifact) << "still read, to show what is inside";

    ASSERT_EQ(chmod(file.c_str(), 0644), 0);
    r = checkCacheFile(file);
    ASSERT_NE(r.firstFailure(), nullptr);
    EXPECT_EQ(r.firstFailure()->name, "permissions");
    EXPECT_EQ(r.firstFailure()->message, "Permissions must be 600");
    EXPECT_EQ(r.firstFailure()->detail, "the file has mode 644");
    ASSERT_EQ(chmod(file.c_str(), 0600), 0);
    EXPECT_TRUE(checkCacheFile(file).loads) << failureText(checkCacheFile(file));

    // readable_cache's output file: a symlink, a file not ours or not 600 is refused.
    const std::string out = path("readable_out.py");
    EXPECT_EQ(checkReadableOutput(out), "");
    std::ofstream(out) << "x";
    ASSERT_EQ(chmod(out.c_str(), 0644), 0);
    EXPECT_EQ(checkReadableOutput(out), "Permissions must be 600");
    ASSERT_EQ(chmod(out.c_str(), 0600), 0);
    EXPECT_EQ(checkReadableOutput(out), "");
    EXPECT_EQ(checkReadableOutput(out, getuid() + 1), "File must be owned by the current user");
    fs::create_symlink(out, path("readable_link.py"));
    EXPECT_EQ(checkReadableOutput(path("readable_link.py")),
        "Output file " + path("readable_link.py") + " can not be a symlink");
}

TEST_F(CacheFiles, ParametersOnlyAClosureCanResolveAreAWarning)
{
    // _get_used_params looks a source up in the live module, then `L['self'].a.b` through the module,
    // then `L['x'].a` through a closure of the cached function, else raises "<kind> <name> not
    // supported now". Made by renaming linear1.weight in a real file (same length: the pickle stays valid).
    std::string bytes = slurp(path(entry("torchair_default_prompt")["path"]));
    const std::string from = "linear1.weight", to = "L['kv'].weight";
    ASSERT_EQ(from.size(), to.size());
    bytes = replaced(bytes, from, to);
    const std::string file = path("closure_param_compiled_module");
    std::ofstream(file, std::ios::binary) << bytes;
    ASSERT_EQ(chmod(file.c_str(), 0600), 0);
    const CacheFileReport r = checkCacheFile(file);
    EXPECT_TRUE(r.loads) << failureText(r);
    ASSERT_FALSE(r.checks.empty());
    const CacheCheck& last = r.checks.back();
    EXPECT_EQ(last.name, "parameters");
    EXPECT_EQ(last.status, CacheCheck::Status::Warning);
    EXPECT_NE(last.message.find("ValueError(\"parameter L['kv'].weight not supported now\")"), std::string::npos)
        << last.message;
    EXPECT_EQ(checkCacheFile(path(entry("torchair_default_prompt")["path"])).checks.back().status,
        CacheCheck::Status::Passed);
}

TEST_F(CacheFiles, ReadingDoesNotDependOnTheLoader)
{
    // A npugraph_ex file checked as torchair loads it: refused by torchair's strict unpickler,
    // but its content is read all the same.
    const std::string file = path(entry("npugraph_ex_default_forward")["path"]);
    CheckOptions asTorchair;
    asTorchair.loader = Backend::TorchAir;
    const CacheFileReport r = checkCacheFile(file, asTorchair);
    ASSERT_NE(r.firstFailure(), nullptr);
    EXPECT_EQ(
        r.firstFailure()->message, "Forbidden deserialize npugraph_ex.inference._cache_compiler.ModelCacheArtifact");
    EXPECT_NE(r.firstFailure()->detail.find("ModelCacheMeta"), std::string::npos) << r.firstFailure()->detail;
    ASSERT_TRUE(r.artifact);
    EXPECT_EQ(r.artifact->backend, Backend::NpugraphEx);
    EXPECT_TRUE(checkCacheFile(file).loads);
}

TEST_F(CacheFiles, FolderNamesAreTheKeyOfTheirOptions)
{
    // md5(module repr + options) names every folder, and computeCacheKey rebuilds the options from
    // the config the generator used.
    for (const json& e : s_manifest["files"]) {
        SCOPED_TRACE(e["case"].get<std::string>());
        EXPECT_EQ(
            md5Hex(e["module_repr"].get<std::string>() + e["options"].get<std::string>()), e["md5"].get<std::string>());
        ModelFolder m;
        if (e["kind"] != "pyversion") {
            ASSERT_TRUE(parseModelFolder(e["model_dir"], m));
            EXPECT_EQ(m.md5, e["md5"].get<std::string>());
        }
    }
    const Settings torchairChanged = { { "debug.aclgraph.static_capture_size_limit", PyValue::integer(8) },
        { "debug.aclgraph.clone_input", PyValue::boolean(false) },
        { "experimental_config.frozen_parameter", PyValue::boolean(true) } };
    const Settings exChanged = { { "capture_limit", PyValue::integer(8) }, { "clone_input", PyValue::boolean(false) },
        { "frozen_parameter", PyValue::boolean(true) } };
    const std::vector<std::tuple<const char*, Backend, Settings>> cases
        = { { "torchair_default_prompt", Backend::TorchAir, {} },
              { "torchair_nondefault_prompt", Backend::TorchAir, torchairChanged },
              { "npugraph_ex_default_forward", Backend::NpugraphEx, {} },
              { "npugraph_ex_nondefault_forward", Backend::NpugraphEx, exChanged },
              { "multirank_rank0", Backend::TorchAir, {} } };
    for (const auto& [name, backend, settings] : cases) {
        SCOPED_TRACE(name);
        const json& e = entry(name);
        auto key = computeCacheKey(backend, settings, e["module_repr"].get<std::string>());
        ASSERT_TRUE(key.ok()) << key.error().toString();
        EXPECT_EQ(key->optionString, e["options"].get<std::string>());
        EXPECT_EQ(*key->md5, e["md5"].get<std::string>());
    }
}

TEST_F(CacheFiles, KeyAgainstEntries)
{
    // The default config hits the default entry and misses the changed one, naming the three options.
    const json& good = entry("torchair_default_prompt");
    const json& changed = entry("torchair_nondefault_prompt");
    const std::string repr = good["module_repr"];
    auto key = computeCacheKey(Backend::TorchAir, {}, repr);
    ASSERT_TRUE(key.ok());
    const auto g = checkCacheFile(path(good["path"]));
    const auto c = checkCacheFile(path(changed["path"]));
    ASSERT_TRUE(g.artifact && c.artifact);
    auto m = matchCacheEntry(key.value(), g.artifact->signature.options, good["md5"], repr);
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Hit);
    m = matchCacheEntry(key.value(), c.artifact->signature.options, changed["md5"], repr);
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Miss);
    std::vector<std::string> keys;
    for (const auto& d : m.differences)
        keys.push_back(std::get<0>(d));
    EXPECT_EQ(keys, (std::vector<std::string> { "static_capture_size_limit", "clone_input", "frozen_parameter" }));
    EXPECT_TRUE(m.reprMatchesEntry && *m.reprMatchesEntry);
}

TEST_F(CacheFiles, ScanParsesTheLayout)
{
    auto scan = scanCache(path("multirank_cache"));
    ASSERT_TRUE(scan.ok()) << scan.error().toString();
    EXPECT_EQ(scan->rootKind, "cache dir");
    ASSERT_EQ(scan->entries.size(), 4u);
    for (const CacheEntry& e : scan->entries) {
        SCOPED_TRACE(e.relativePath);
        const json* m = nullptr;
        for (const json& f : s_manifest["files"])
            if ("multirank_cache/" + e.relativePath == f["path"].get<std::string>())
                m = &f;
        ASSERT_NE(m, nullptr);
        EXPECT_TRUE(e.layoutKnown);
        EXPECT_EQ(e.model.className, (*m)["model_class"].get<std::string>());
        EXPECT_EQ(e.model.dynamic, (*m)["trace"] == "dynamic");
        EXPECT_EQ(e.model.md5, (*m)["md5"].get<std::string>());
        EXPECT_EQ(e.dist.name, (*m)["dist_dir"].get<std::string>());
        EXPECT_EQ(*e.dist.world, (*m)["dist"]["world"].get<int>());
        EXPECT_EQ(*e.dist.globalRank, (*m)["dist"]["global_rank"].get<int>());
        EXPECT_EQ(*e.dist.tpRank, (*m)["dist"]["tp_rank"].get<int>());
        EXPECT_EQ(*e.dist.ppRank, (*m)["dist"]["pp_rank"].get<int>());
        EXPECT_EQ(e.func, (*m)["func"].get<std::string>());
        EXPECT_TRUE(e.report.loads) << failureText(e.report);
    }

    // Any level of the tree: a model folder, a rank folder, a func folder, the file.
    const json& r2 = entry("multirank_rank2");
    const fs::path file = s_root / r2["path"].get<std::string>();
    const std::vector<std::pair<fs::path, const char*>> levels = { { file.parent_path().parent_path().parent_path(),
                                                                       "model folder" },
        { file.parent_path().parent_path(), "rank folder" }, { file.parent_path(), "func folder" }, { file, "file" } };
    for (const auto& [p, kind] : levels) {
        auto s = scanCache(p.string());
        ASSERT_TRUE(s.ok());
        EXPECT_EQ(s->rootKind, kind);
        const CacheEntry* found = nullptr;
        for (const CacheEntry& x : s->entries)
            if (fs::path(x.path) == file)
                found = &x;
        ASSERT_NE(found, nullptr) << kind;
        const CacheEntry& e = *found;
        EXPECT_TRUE(e.layoutKnown) << kind;
        EXPECT_EQ(e.dist.globalRank.value_or(-1), 2) << kind;
    }

    // torchair_cache: three entries in two model folders, plain (no dist) layout.
    scan = scanCache(path("torchair_cache"));
    ASSERT_TRUE(scan.ok());
    ASSERT_EQ(scan->entries.size(), 3u);
    for (const CacheEntry& e : scan->entries) {
        EXPECT_TRUE(e.layoutKnown);
        EXPECT_EQ(e.dist.name, "");
        EXPECT_FALSE(e.dist.world);
    }
    EXPECT_TRUE(scan->notes.empty());
}

TEST_F(CacheFiles, ScanReportsWhatDoesNotFit)
{
    auto scan = scanCache(path("broken"));
    ASSERT_TRUE(scan.ok());
    EXPECT_EQ(scan->rootKind, "cache dir");
    bool emptyFunc = false, notCache = false;
    for (const ScanNote& n : scan->notes) {
        emptyFunc |= n.path.find("empty_func_folder") != std::string::npos && n.message.find("no compiled_module") == 0;
        notCache |= n.message.find("not a cache folder") == 0;
    }
    EXPECT_TRUE(emptyFunc);
    EXPECT_TRUE(notCache) << "broken/<case> folders are no <Class>_..._<md5> names";
    // the symlinked compiled_module is an entry, followed as TorchAir follows it
    bool symlink = false;
    for (const CacheEntry& e : scan->entries)
        if (e.report.file.isSymlink) {
            symlink = true;
            EXPECT_TRUE(e.report.loads) << failureText(e.report);
        }
    EXPECT_TRUE(symlink);
    // cache_compile refuses a cache dir that is not ours
    ScanOptions other;
    other.check.uid = getuid() + 4242;
    auto mine = scanCache(path("torchair_cache"), other);
    ASSERT_TRUE(mine.ok());
    EXPECT_EQ(mine->cacheDirOwner, "Cache dir " + path("torchair_cache") + " must be owned by the current user ");
    // cancel
    ScanOptions cancel;
    cancel.progress = [](size_t done, size_t) { return done < 1; };
    auto cancelled = scanCache(path("torchair_cache"), cancel);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().message, "cancelled");
    EXPECT_FALSE(scanCache(path("no_such_dir")).ok());
}

TEST(CacheArtifactBytes, EveryTruncationIsAnErrorOrAFinding)
{
    // Every prefix of a real cache file reads to an error naming the file, never a crash.
    const std::string bytes = slurp(kSource
        + "/torchair_cache/Model_dynamic_aclgraphcache_a007f6e6dc2040589dddfbe1c0a1a354/decode/compiled_module");
    ASSERT_GT(bytes.size(), 1000u);
    for (size_t n = 0; n < bytes.size(); n += 7) {
        auto r = readCacheArtifact(std::string_view(bytes).substr(0, n), "compiled_module");
        ASSERT_FALSE(r.ok()) << n;
        EXPECT_EQ(r.error().context.rfind("compiled_module", 0), 0u) << r.error().toString();
    }
    EXPECT_TRUE(readCacheArtifact(bytes, "compiled_module").ok());
}

} // namespace
