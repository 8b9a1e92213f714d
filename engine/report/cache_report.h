#pragma once
/// Text and JSON for compile caches, shared by `aclgraph-inspector cache ...`, the window and the
/// reports: one cache file with its checks (cacheFileText / cacheFileJson), a scanned folder
/// (cacheScanText / cacheScanJson) and a cache-key explanation (cacheKeyText / cacheKeyJson).
/// The JSON is documented in docs/cache.md.
#include "engine/cache/cache_key.h"
#include "engine/cache/cache_scan.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engine::report {

std::string cacheFileText(const cache::CacheFileReport& report);
std::string cacheFileJson(const cache::CacheFileReport& report, int indent = 2);

std::string cacheScanText(const cache::CacheScan& scan);
std::string cacheScanJson(const cache::CacheScan& scan, int indent = 2);

/// One entry a key was matched against.
struct KeyAgainst {
    std::string path;
    std::string folderMd5;
    cache::KeyMatch match;
};
std::string cacheKeyText(const cache::CacheKey& key, const std::vector<KeyAgainst>& against);
std::string cacheKeyJson(const cache::CacheKey& key, const std::vector<KeyAgainst>& against, int indent = 2);

} // namespace engine::report
