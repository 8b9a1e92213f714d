#include "engine/cache/cache_scan.h"

#include "engine/core/file_io.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace engine::cache {

namespace fs = std::filesystem;

namespace {

bool isLowerHex(const std::string& s)
{
    return std::all_of(s.begin(), s.end(),
        [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
}

/// Consumes `word` followed by at least one digit at `at`.
bool number(const std::string& s, size_t& at, const char* word, std::optional<int>& out)
{
    const std::string w(word);
    if (s.compare(at, w.size(), w) != 0)
        return false;
    size_t i = at + w.size();
    const size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 9)
        ++i;
    if (i == start)
        return false;
    out = std::stoi(s.substr(start, i - start));
    at = i;
    return true;
}

} // namespace

bool parseModelFolder(const std::string& name, ModelFolder& out)
{
    const size_t last = name.find_last_of('_');
    if (last == std::string::npos || name.size() - last - 1 != 32 || !isLowerHex(name.substr(last + 1)))
        return false;
    ModelFolder m;
    m.name = name;
    m.md5 = name.substr(last + 1);
    std::string rest = name.substr(0, last);
    for (const char* kind : { "_aclgraphcache", "_gecache" }) {
        const std::string k(kind);
        if (rest.size() > k.size() && rest.compare(rest.size() - k.size(), k.size(), k) == 0) {
            m.kind = k.substr(1);
            rest.resize(rest.size() - k.size());
            break;
        }
    }
    for (const char* trace : { "_dynamic", "_static" }) {
        const std::string t(trace);
        if (rest.size() > t.size() && rest.compare(rest.size() - t.size(), t.size(), t) == 0) {
            m.dynamic = t == "_dynamic";
            m.className = rest.substr(0, rest.size() - t.size());
            out = m;
            return true;
        }
    }
    return false;
}

bool parseDistFolder(const std::string& name, DistFolder& out)
{
    DistFolder d;
    d.name = name;
    size_t at = 0;
    bool any = false;
    if (number(name, at, "world", d.world)) {
        if (!number(name, at, "global_rank", d.globalRank))
            return false;
        any = true;
    }
    for (auto [word, slot] : { std::pair { "tp_rank", &d.tpRank }, std::pair { "pp_rank", &d.ppRank } }) {
        size_t probe = at;
        if (any) {
            if (probe >= name.size() || name[probe] != '_')
                continue;
            ++probe;
        }
        if (number(name, probe, word, *slot)) {
            at = probe;
            any = true;
        }
    }
    if (!any || at != name.size())
        return false;
    out = d;
    return true;
}

namespace {

/// The layout parts of `file` (a compiled_module) from its parent folders.
void parseLayout(const fs::path& file, CacheEntry& e)
{
    const fs::path func = file.parent_path();
    e.func = func.filename().string();
    const fs::path up = func.parent_path();
    if (parseModelFolder(up.filename().string(), e.model)) {
        e.layoutKnown = true;
        return;
    }
    if (parseDistFolder(up.filename().string(), e.dist)
        && parseModelFolder(up.parent_path().filename().string(), e.model))
        e.layoutKnown = true;
}

bool hasChild(const fs::path& dir, const char* name)
{
    std::error_code ec;
    return fs::symlink_status(dir / name, ec).type() != fs::file_type::not_found && !ec;
}

} // namespace

Result<CacheScan> scanCache(const std::string& path, const ScanOptions& options)
{
    CacheScan scan;
    scan.root = path;
    std::error_code ec;
    const fs::path root = fs::absolute(fs::path(path), ec).lexically_normal();
    const auto status = fs::symlink_status(root, ec);
    if (ec || status.type() == fs::file_type::not_found)
        return Error { ErrorCode::NotFound, "no such file or folder", path };

    std::vector<fs::path> files;
    // Folders with neither a subfolder nor a compiled_module, found from the one walk.
    std::vector<fs::path> dirs;
    std::set<fs::path> notLeaf;
    if (const PathKind kind = pathKindOf(path);
        kind != PathKind::Missing && kind != PathKind::Regular && kind != PathKind::Directory)
        return notReadError(path, kind); // a FIFO, socket or device: never opened (engine/core/file_io.h)
    if (status.type() != fs::file_type::directory) {
        scan.rootKind = "file";
        files.push_back(root);
    } else {
        ModelFolder m;
        DistFolder d;
        const std::string name = root.filename().string();
        if (hasChild(root, "compiled_module"))
            scan.rootKind = "func folder";
        else if (parseModelFolder(name, m))
            scan.rootKind = "model folder";
        else if (parseDistFolder(name, d) && parseModelFolder(root.parent_path().filename().string(), m))
            scan.rootKind = "rank folder";
        else
            scan.rootKind = "cache dir";
        if (scan.rootKind == "cache dir") {
            struct stat st;
            const uint32_t uid = options.check.uid.value_or(uint32_t(getuid()));
            if (lstat(root.c_str(), &st) == 0 && st.st_uid != uid)
                scan.cacheDirOwner = "Cache dir " + path + " must be owned by the current user ";
        }
        // Symlinked folders are not followed (a link could point anywhere, or at itself).
        fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
        if (ec)
            return Error { ErrorCode::Io, "cannot read the folder: " + ec.message(), path };
        for (; it != end; it.increment(ec)) {
            if (ec)
                return Error { ErrorCode::Io, "cannot read the folder: " + ec.message(), it->path().string() };
            const fs::path& p = it->path();
            const auto type = it->symlink_status(ec).type();
            const size_t depth = size_t(it.depth()) + 1;
            if (type == fs::file_type::directory) {
                if (depth >= options.maxDepth) {
                    it.disable_recursion_pending();
                    scan.notes.push_back(
                        { p.string(), "deeper than " + std::to_string(options.maxDepth) + " levels: not scanned" });
                    continue;
                }
                ModelFolder mf;
                if (depth == 1 && scan.rootKind == "cache dir" && !parseModelFolder(p.filename().string(), mf))
                    scan.notes.push_back({ p.string(),
                        "not a cache folder (<Class>_<dynamic|static>_aclgraphcache_<md5>): TorchAir never reads it" });
                dirs.push_back(p);
                notLeaf.insert(p.parent_path());
            } else if (p.filename() == "compiled_module") {
                notLeaf.insert(p.parent_path());
                files.push_back(p);
                if (files.size() > options.maxEntries)
                    return Error { ErrorCode::InvalidArgument,
                        "more than " + std::to_string(options.maxEntries) + " cache files: scan a smaller folder",
                        path };
            }
        }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& p : dirs)
        if (ModelFolder m; !notLeaf.count(p) && !parseModelFolder(p.filename().string(), m))
            scan.notes.push_back({ p.string(),
                "no compiled_module: TorchAir compiles into this folder on the next run. TorchAir creates the func "
                "folder "
                "before it saves, so an empty one means the save was skipped (WARNING 'Skip cache <name> as following "
                "errors: [...]', 'Skip cache as failed to serialize compiled fn', 'Skip cache as compiler <type> "
                "codegen "
                "return non-str <type>') or the process ended first; a recompiled function ('Skip cache as <name> "
                "recompiled') has its folder deleted instead" });
    std::sort(
        scan.notes.begin(), scan.notes.end(), [](const ScanNote& a, const ScanNote& b) { return a.path < b.path; });

    for (size_t i = 0; i < files.size(); ++i) {
        if (options.progress && !options.progress(i, files.size()))
            return Error { ErrorCode::InvalidArgument, "cancelled", path };
        CacheEntry e;
        e.path = files[i].string();
        e.relativePath
            = scan.rootKind == "file" ? files[i].filename().string() : files[i].lexically_relative(root).string();
        parseLayout(files[i], e);
        e.report = checkCacheFile(e.path, options.check);
        if (!e.layoutKnown)
            scan.notes.push_back({ e.path,
                "the folders above it are not <Class>_<dynamic|static>_aclgraphcache_<md5>[/<dist>]/<func>: "
                "TorchAir never computes this path" });
        scan.entries.push_back(std::move(e));
    }
    bool torchair = false, npugraphEx = false;
    for (const CacheEntry& e : scan.entries)
        if (e.report.artifact)
            (e.report.artifact->backend == config::Backend::NpugraphEx ? npugraphEx : torchair) = true;
    if (torchair && npugraphEx && !options.check.loader)
        scan.notes.push_back({ path,
            "the folder holds both torchair and npugraph_ex caches: each backend's strict unpickler "
            "refuses the other's files (check with --backend)" });
    return scan;
}

} // namespace engine::cache
