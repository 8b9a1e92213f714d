// `aclgraph-inspector cache ls|show|readable|key`: TorchAir compile caches, read without running them.
#include "engine/cache/cache_checks.h"
#include "engine/cache/cache_key.h"
#include "engine/cache/cache_scan.h"
#include "engine/core/file_io.h"
#include "engine/report/cache_report.h"
#include "gui/cli/cli_util.h"
#include "gui/cli/commands.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sys/stat.h>

namespace gui::cli {

namespace {

const char* kCacheUsage
    = "usage: aclgraph-inspector cache ls PATH [--backend torchair|npugraph_ex] [--json] [-o FILE]\n"
      "       aclgraph-inspector cache show FILE [--backend B] [--python 3.X] [--json] [-o FILE]\n"
      "       aclgraph-inspector cache readable FILE [--python 3.X] [--force] [-o OUT]\n"
      "       aclgraph-inspector cache key [--backend B] [--set NAME=VALUE ...] [--config JSON] [--repr FILE] "
      "[--against PATH] [--json]\n";

struct Args {
    std::vector<std::string> positional;
    std::string out;
    bool json = false;
    bool force = false;
    std::optional<engine::config::Backend> backend;
    std::optional<engine::marshal::PyVersion> python;
    std::vector<std::pair<std::string, engine::PyValue>> settings;
    std::string config;
    /// Settings read from --config and not given by --set: their place in the file, for errors
    /// ("config.json: $.config.capture_limit").
    std::map<std::string, std::string> configPlace;
    std::string configRoot; ///< "config.json: $.config" (or "$"): where --config's settings are
    std::set<std::string> setNames; ///< settings given by --set
    std::string repr;
    std::string against;
};

/// The line of a failed TorchAir check: the file, the check (the place TorchAir's text comes from),
/// TorchAir's exception and text verbatim, then what we add in parentheses: "FILE: check
/// permissions: PermissionError: Permissions must be 600 (the file has mode 644; ...)".
std::string checkLine(const std::string& path, const engine::cache::CacheCheck& c, const std::string& note)
{
    std::string line = path + ": check " + c.name + ": " + c.exception + ": " + c.message;
    std::string added = c.detail;
    if (!note.empty())
        added += (added.empty() ? "" : "; ") + note;
    return added.empty() ? line : line + " (" + added + ")";
}

/// Parses the options every cache subcommand shares; false (with a message) on bad usage.
bool parseArgs(const std::vector<std::string>& args, size_t first, Args& a, std::ostream& err)
{
    for (size_t i = first; i < args.size(); ++i) {
        const std::string& s = args[i];
        auto next = [&](const char* what) -> const std::string* {
            if (i + 1 >= args.size()) {
                err << "cache: " << s << " needs " << what << "\n";
                return nullptr;
            }
            return &args[++i];
        };
        const std::string* v = nullptr;
        if (s == "--json") {
            a.json = true;
        } else if (s == "--force") {
            a.force = true;
        } else if (s == "-o" || s == "--output") {
            if (!(v = next("a file name")))
                return false;
            a.out = *v;
        } else if (s == "--backend") {
            if (!(v = next("torchair or npugraph_ex")))
                return false;
            if (*v == "torchair")
                a.backend = engine::config::Backend::TorchAir;
            else if (*v == "npugraph_ex")
                a.backend = engine::config::Backend::NpugraphEx;
            else {
                err << "cache: --backend takes torchair or npugraph_ex, not '" << *v << "'\n";
                return false;
            }
        } else if (s == "--python") {
            if (!(v = next("a Python version (3.8 to 3.13)")))
                return false;
            engine::marshal::PyVersion version;
            if (!engine::marshal::parseVersion(*v, version)) {
                err << "cache: --python takes a version from 3.8 to 3.13, not '" << *v << "'\n";
                return false;
            }
            a.python = version;
        } else if (s == "--set") {
            if (!(v = next("NAME=VALUE")) || !parseSetting(*v, a.settings, err, "cache"))
                return false;
        } else if (s == "--config" || s == "--repr" || s == "--against") {
            if (!(v = next("a file")))
                return false;
            (s == "--config" ? a.config : s == "--repr" ? a.repr : a.against) = *v;
        } else if (!s.empty() && s[0] == '-') {
            err << "cache: unknown option " << s << "\n" << kCacheUsage;
            return false;
        } else {
            a.positional.push_back(s);
        }
    }
    return true;
}

engine::cache::CheckOptions checkOptions(const Args& a, engine::cache::Purpose purpose)
{
    engine::cache::CheckOptions o;
    o.loader = a.backend;
    o.purpose = purpose;
    return o;
}

/// A FIFO, socket or device is refused by name before anything stats its "mode" or opens it
/// (engine/core/file_io.h); a missing path is left to each command's own message.
bool refusedInput(const std::string& path, std::ostream& err)
{
    const engine::PathKind kind = engine::pathKindOf(path);
    if (kind == engine::PathKind::Missing || kind == engine::PathKind::Regular || kind == engine::PathKind::Directory)
        return false;
    err << "error: " << engine::notReadError(path, kind).toString() << "\n";
    return true;
}

int lsCommand(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 1) {
        err << kCacheUsage;
        return 2;
    }
    if (refusedInput(a.positional[0], err))
        return 1;
    engine::cache::ScanOptions options;
    options.check = checkOptions(a, engine::cache::Purpose::Load);
    auto scan = engine::cache::scanCache(a.positional[0], options);
    if (!scan) {
        err << "error: " << scan.error().toString() << "\n";
        return 1;
    }
    const std::string text
        = a.json ? engine::report::cacheScanJson(scan.value()) + "\n" : engine::report::cacheScanText(scan.value());
    return writeResult(text, a.out, out, err);
}

int showCommand(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 1) {
        err << kCacheUsage;
        return 2;
    }
    if (refusedInput(a.positional[0], err))
        return 1;
    const auto report = engine::cache::checkCacheFile(a.positional[0], checkOptions(a, engine::cache::Purpose::Load));
    if (!report.file.exists && !report.file.isSymlink) {
        err << "error: " << a.positional[0] << ": no such file\n";
        return 1;
    }
    std::string text = a.json ? engine::report::cacheFileJson(report) + "\n" : engine::report::cacheFileText(report);
    if (!a.json && report.artifact && a.python)
        text += "\nDisassembled as Python " + a.python->text() + ":\n"
            + engine::cache::readableText(*report.artifact, a.python);
    return writeResult(text, a.out, out, err);
}

int readableCommand(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 1) {
        err << kCacheUsage;
        return 2;
    }
    if (refusedInput(a.positional[0], err))
        return 1;
    const auto report
        = engine::cache::checkCacheFile(a.positional[0], checkOptions(a, engine::cache::Purpose::Readable));
    if (const engine::cache::CacheCheck* f = report.firstFailure()) {
        if (!a.force || !report.artifact) {
            err << "error: "
                << checkLine(a.positional[0], *f,
                       report.artifact ? "TorchAir's readable_cache raises this; --force prints the listing anyway"
                                       : "TorchAir's readable_cache raises this")
                << "\n";
            return 1;
        }
        err << "warning: " << checkLine(a.positional[0], *f, "TorchAir's readable_cache would raise this") << "\n";
    }
    const auto& artifact = *report.artifact;
    if (!a.python && artifact.compiledFn.versions.candidates.size() > 1) {
        err << "note: compiled_fn disassembled as Python " << artifact.compiledFn.versions.candidates.front().text()
            << " (marshal data does not say; it fits";
        for (const auto& v : artifact.compiledFn.versions.candidates)
            err << " " << v.text();
        err << "; --python picks one)\n";
    }
    if (a.out.empty()) {
        out << engine::cache::readableText(artifact, a.python) << "\n"; // print() adds the newline
        return 0;
    }
    if (std::string refused = engine::cache::checkReadableOutput(a.out); !refused.empty()) {
        err << "error: " << a.out << ": " << (refused.rfind("Output", 0) == 0 ? "ValueError: " : "PermissionError: ")
            << refused << " (the output file as a whole; TorchAir's readable_cache raises this)\n";
        return 1;
    }
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::absolute(a.out, ec).parent_path();
    std::filesystem::create_directories(parent, ec);
    {
        std::ofstream f(a.out, std::ios::binary | std::ios::trunc);
        if (!(f << engine::cache::readableFileText(artifact, a.python))) {
            err << "error: " << a.out << ": cannot write\n";
            return 1;
        }
    }
    chmod(a.out.c_str(), 0600);
    out << engine::cache::readableText(artifact, a.python) << "\n";
    return 0;
}

engine::PyValue toPy(const nlohmann::json& v)
{
    if (v.is_boolean())
        return engine::PyValue::boolean(v.get<bool>());
    if (v.is_number_integer())
        return engine::PyValue::integer(v.get<int64_t>());
    if (v.is_number())
        return engine::PyValue::real(v.get<double>());
    if (v.is_string())
        return engine::PyValue::str(v.get<std::string>());
    if (v.is_array()) {
        std::vector<engine::PyValue> items;
        for (const auto& x : v)
            items.push_back(toPy(x));
        return engine::PyValue::list(std::move(items));
    }
    return engine::PyValue::none();
}

/// `--config FILE`: a JSON object of settings, or a scenario (its "config" and "backend").
bool readConfig(const std::string& path, Args& a, std::ostream& err)
{
    auto text = engine::readTextFile(path, 16 << 20, "config files");
    if (!text) {
        err << "error: " << text.error().toString() << "\n";
        return false;
    }
    const nlohmann::json j = nlohmann::json::parse(text.value(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        err << "error: " << path << ": not a JSON object of settings\n";
        return false;
    }
    const nlohmann::json& settings = j.contains("config") && j["config"].is_object() ? j["config"] : j;
    if (j.contains("backend") && j["backend"].is_string() && !a.backend)
        a.backend
            = j["backend"] == "npugraph_ex" ? engine::config::Backend::NpugraphEx : engine::config::Backend::TorchAir;
    std::vector<std::pair<std::string, engine::PyValue>> read;
    std::set<std::string> given; // by --set, which wins
    for (const auto& [name, value] : a.settings)
        given.insert(name);
    a.configRoot = path + ": $" + (&settings != &j ? ".config" : "");
    for (auto it = settings.begin(); it != settings.end(); ++it)
        if (&settings != &j || (it.key() != "backend")) {
            read.emplace_back(it.key(), toPy(it.value()));
            if (!given.count(it.key()))
                a.configPlace[it.key()] = path + ": $." + (&settings != &j ? "config." : "") + it.key();
        }
    a.settings.insert(a.settings.begin(), read.begin(), read.end()); // --set wins over the file
    return true;
}

int keyCommand(Args& a, std::ostream& out, std::ostream& err)
{
    if (!a.positional.empty()) {
        err << kCacheUsage;
        return 2;
    }
    for (const auto& [name, value] : a.settings)
        a.setNames.insert(name);
    if (!a.config.empty() && !readConfig(a.config, a, err))
        return 1;
    std::optional<std::string> repr;
    if (!a.repr.empty()) {
        auto text = engine::readTextFile(a.repr, 64 << 20, "repr files");
        if (!text) {
            err << "error: " << text.error().toString() << "\n";
            return 1;
        }
        std::string r = std::move(text.value());
        if (!r.empty() && r.back() == '\n') // a file saved from print(module) ends with a newline str() has not
            r.pop_back();
        repr = std::move(r);
    }
    const engine::config::Backend backend = a.backend.value_or(engine::config::guessBackend(a.settings));
    auto key = engine::cache::computeCacheKey(backend, a.settings, repr);
    if (!key) {
        // The error's context is the setting's name: a setting of --config is named at its place in
        // the file, one of --set by the option.
        const engine::Error& e = key.error();
        const auto place = a.configPlace.find(e.context);
        if (place != a.configPlace.end())
            err << "error: " << place->second << ": " << e.message << "\n";
        else if (!e.context.empty() && a.setNames.count(e.context))
            err << "error: --set " << e.context << ": " << e.message << "\n";
        else if (!a.configRoot.empty())
            err << "error: " << a.configRoot << ": " << e.toString() << "\n";
        else
            err << "error: " << e.toString() << "\n";
        return 1;
    }
    std::vector<engine::report::KeyAgainst> against;
    if (!a.against.empty()) {
        engine::cache::ScanOptions options;
        options.check.loader = backend;
        options.check.read.readModule = false;
        auto scan = engine::cache::scanCache(a.against, options);
        if (!scan) {
            err << "error: " << scan.error().toString() << "\n";
            return 1;
        }
        for (const auto& e : scan->entries) {
            std::vector<std::string> entryOptions;
            if (e.report.artifact)
                entryOptions = e.report.artifact->signature.options;
            const std::string md5 = e.layoutKnown ? e.model.md5 : "";
            against.push_back(
                { e.relativePath, md5, engine::cache::matchCacheEntry(key.value(), entryOptions, md5, repr) });
        }
        if (scan->entries.empty())
            err << "note: " << a.against << " holds no compiled_module\n";
    }
    const std::string text = a.json ? engine::report::cacheKeyJson(key.value(), against) + "\n"
                                    : engine::report::cacheKeyText(key.value(), against);
    return writeResult(text, a.out, out, err);
}

} // namespace

int cacheCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        (args.empty() ? err : out) << kCacheUsage;
        return args.empty() ? 2 : 0;
    }
    Args a;
    if (!parseArgs(args, 1, a, err))
        return 2;
    const std::string& sub = args[0];
    if (sub == "ls")
        return lsCommand(a, out, err);
    if (sub == "show")
        return showCommand(a, out, err);
    if (sub == "readable")
        return readableCommand(a, out, err);
    if (sub == "key")
        return keyCommand(a, out, err);
    err << "cache: unknown subcommand '" << sub << "'\n" << kCacheUsage;
    return 2;
}

} // namespace gui::cli
