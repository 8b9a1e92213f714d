#pragma once
/// Compile-cache entries in the project database (tables cache_entries, cache_checks,
/// cache_options, cache_notes; docs/database.md): a scanned `.torchair_cache` tree or one
/// compiled_module, with its path parts, meta, checks, the signature and generated code, and the
/// graph read from py_code (written through graph_store, role "cache").
#include "engine/cache/cache_scan.h"
#include "storage/write_context.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storage {

/// Writes every entry of the scan (each with its graph when py_code was read) and the scan's notes
/// under `sourceId` (cache_notes in scan order, then the cache dir owner message, when the scan has
/// one, as a note on scan.root). Returns the cache_entries ids in scan order.
Result<std::vector<int64_t>> writeCacheScan(WriteContext& ctx, int64_t sourceId, const engine::cache::CacheScan& scan);
/// One entry (the scanner's CacheEntry; a lone file gets the parts its path gives).
Result<int64_t> writeCacheEntry(WriteContext& ctx, int64_t sourceId, const engine::cache::CacheEntry& entry);

/// An entry as stored, for the browser and `runs`-like listings.
struct StoredCacheEntry {
    int64_t id = 0;
    int64_t sourceId = 0;
    std::string path, relativePath;
    bool layoutKnown = false;
    engine::cache::ModelFolder model;
    engine::cache::DistFolder dist;
    std::string func;
    std::string backend; ///< "torchair" / "npugraph_ex"
    bool loads = false;
    std::optional<std::string> firstFailure; ///< the failed check's name
    std::string metaName, metaDate, version, python;
    std::string signature, pyCode;
    std::optional<std::string> readError;
    std::vector<std::string> log;
    std::vector<engine::cache::CacheCheck> checks;
    std::vector<std::pair<std::string, std::string>> options; ///< the signature's key options, in order
    std::optional<int64_t> graphId;
};
Result<std::vector<StoredCacheEntry>> listCacheEntries(Database& db, std::optional<int64_t> sourceId = {});
Result<StoredCacheEntry> readCacheEntry(Database& db, int64_t entryId);

} // namespace storage
