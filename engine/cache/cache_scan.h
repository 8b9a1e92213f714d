#pragma once
/// A compile-cache folder as TorchAir lays it out (torchair-behavior.md §5.1):
///   <cache_dir>/<Class>_<dynamic|static>_aclgraphcache_<md5>/<dist>/<func>/compiled_module
/// where <dist> is "" or "_".join of `world{W}global_rank{R}`, `tp_rank{t}`, `pp_rank{p}`.
/// The scanner may be pointed at any level (the cache dir, a model folder, a rank folder, a func
/// folder or the file itself) and reports every entry with its path parts parsed and TorchAir's load
/// checks (cache_checks.h), plus what does not fit the layout.
#include "engine/cache/cache_checks.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace engine::cache {

/// `<Class>_<dynamic|static>_<aclgraphcache|gecache>_<md5>` (the kind part is absent for a
/// max-autotune cache without ge_cache).
struct ModelFolder {
    std::string name;
    std::string className;
    bool dynamic = true;
    std::string kind; ///< "aclgraphcache", "gecache" or ""
    std::string md5;
};
/// False when `name` does not have that form.
bool parseModelFolder(const std::string& name, ModelFolder& out);

struct DistFolder {
    std::string name; ///< "" when the func folder sits under the model folder
    std::optional<int> world, globalRank, tpRank, ppRank;
};
bool parseDistFolder(const std::string& name, DistFolder& out);

struct CacheEntry {
    std::string path; ///< the compiled_module
    std::string relativePath; ///< from the scanned root
    bool layoutKnown = false; ///< the model folder (and dist folder) parse
    ModelFolder model;
    DistFolder dist;
    std::string func; ///< the func folder's name (func.__name__)
    CacheFileReport report;
};

/// A func folder without a compiled_module (TorchAir compiles there on the next run), an unknown
/// folder or a stray file.
struct ScanNote {
    std::string path;
    std::string message;
};

struct ScanOptions {
    CheckOptions check;
    uint32_t maxEntries = 10000;
    uint32_t maxDepth = 6;
    /// Called per entry with (done, total); returning false stops the scan (an error "cancelled").
    std::function<bool(size_t done, size_t total)> progress;
};

struct CacheScan {
    std::string root; ///< as given
    std::string rootKind; ///< "cache dir", "model folder", "rank folder", "func folder", "file"
    std::vector<CacheEntry> entries; ///< sorted by path
    std::vector<ScanNote> notes;
    /// `Cache dir <d> must be owned by the current user ` (cache_compile's check, with TorchAir's
    /// trailing space) when the root is a cache dir not owned by us; else empty.
    std::string cacheDirOwner;
};

Result<CacheScan> scanCache(const std::string& path, const ScanOptions& options = {});

} // namespace engine::cache
