#pragma once
/// TorchAir's compile-cache key (torchair-behavior.md §5.1): the option string `_get_str_options`
/// builds from a config, the md5 of `str(module) + options` that names the cache folder, and why a
/// cache entry would or would not be hit. Options outside the string (the reinplace switches,
/// remove_cat_ops, the custom pool, ...) are listed: changing them silently reuses a cache built
/// with other values.
#include "engine/config/options.h"
#include "engine/core/py_value.h"
#include "engine/core/result.h"

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace engine::cache {

using Settings = std::vector<std::pair<std::string, PyValue>>;

struct KeyOption {
    std::string key; ///< as it appears in the string ("clone_input", "ge.oo.level")
    std::string value; ///< as TorchAir prints it ("1", "True", "global")
    bool isDefault = true;
};

struct CacheKey {
    config::Backend backend = config::Backend::TorchAir;
    std::vector<KeyOption> options; ///< in TorchAir's order
    std::string optionString; ///< "k=v,k=v,..."
    std::optional<std::string> md5; ///< md5(module repr + optionString), when the repr is known
    /// Settings the user gave that are not part of the key (in the spelling given).
    std::vector<std::string> settingsOutsideKey;
    std::vector<std::string> notes; ///< assumptions and TorchAir quirks that apply
};

/// The key of a reduce-overhead (torchair) or npugraph_ex config given as settings in either
/// spelling. Invalid settings fail with TorchAir's own message. `moduleRepr`: `str(module)` of the
/// nn.Module whose method is cached, when known.
Result<CacheKey> computeCacheKey(
    config::Backend backend, const Settings& settings, const std::optional<std::string>& moduleRepr = {});

/// The options of `backend` (in its spelling) that are not part of the key.
std::vector<std::string> optionsNotInKey(config::Backend backend);

/// Splits an option string or the signature's option lines into (key, value) pairs.
std::vector<std::pair<std::string, std::string>> splitOptions(const std::vector<std::string>& items);
std::vector<std::pair<std::string, std::string>> splitOptionString(const std::string& text);

/// Would a cache entry be hit by `key`?
struct KeyMatch {
    enum class Verdict {
        Hit, ///< same folder md5 (the repr was given), or same options and the repr is taken as unchanged
        Miss, ///< a different md5: the options differ, or (with the repr) the module does
        Unknown, ///< the entry's options are unknown (no signature) and no repr was given
    };
    Verdict verdict = Verdict::Unknown;
    /// (key, value in the cache entry, value in the config); an absent side is "<absent>".
    std::vector<std::tuple<std::string, std::string, std::string>> differences;
    bool optionsKnown = false; ///< the entry's signature gave its options
    std::optional<bool> md5Matches; ///< key.md5 == the folder's md5
    /// md5(repr + the entry's own options) == the folder's md5: the given repr is the one the entry
    /// was built with (so a miss is only the options' doing).
    std::optional<bool> reprMatchesEntry;
    std::string explanation; ///< a few sentences for people
};
const char* verdictName(KeyMatch::Verdict v); ///< "hit", "miss", "unknown"

/// `entryOptions`: the option lines of the entry's signature (empty when unknown); `folderMd5`: the
/// md5 of its folder name (empty when unknown); `moduleRepr` as for computeCacheKey.
KeyMatch matchCacheEntry(const CacheKey& key, const std::vector<std::string>& entryOptions,
    const std::string& folderMd5, const std::optional<std::string>& moduleRepr = {});

} // namespace engine::cache
