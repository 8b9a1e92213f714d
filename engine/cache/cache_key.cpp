#include "engine/cache/cache_key.h"

#include "engine/core/md5.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace engine::cache {

namespace {

using config::Backend;

const config::OptionSpec* specByName(const std::string& name)
{
    for (const config::OptionSpec& s : config::optionTable())
        if (s.torchairName == name || s.npugraphExName == name)
            return &s;
    return nullptr;
}

/// The last written value of a setting named `name` (any spelling of the same option counts).
const PyValue* written(const Settings& settings, const std::string& name)
{
    const config::OptionSpec* spec = specByName(name);
    const PyValue* found = nullptr;
    for (const auto& [k, v] : settings)
        if (k == name || (spec && (k == spec->torchairName || k == spec->npugraphExName)))
            found = &v;
    return found;
}

bool isPostGradPass(const std::string& name)
{
    return name == "post_grad_custom_pre_pass" || name == "post_grad_custom_post_pass";
}

bool isPoolSetting(const std::string& name)
{
    return name == "aclgraph_config.use_custom_pool" || name == "use_custom_pool" || name == "use_graph_pool";
}

std::string torchairBool(bool v)
{
    return v ? "1" : "0";
}

void add(CacheKey& key, std::string k, std::string value, const std::string& defaultValue)
{
    const bool isDefault = value == defaultValue;
    key.options.push_back(KeyOption { std::move(k), std::move(value), isDefault });
}

void torchairKey(CacheKey& key, const config::Options& o, const Settings& settings)
{
    // The global (GE) options come first, as as_dict() returns them; then the local ones.
    const PyValue* single = written(settings, "ge_config.enable_single_stream");
    add(key, "ge.enableSingleStream", single && single->truthy() ? "true" : "false", "false");
    const PyValue* oo = written(settings, "ge_config.oo_level");
    add(key, "ge.oo.level", oo ? oo->str() : "O3", "O3");
    const PyValue* stat = written(settings, "ge_config.export_compile_stat");
    add(key, "ge.exportCompileStat", stat ? stat->str() : "2", "2");
    add(key, "disable_mempool_reuse_in_same_fx", torchairBool(!o.reuseInSameFx), "0");
    add(key, "enable_output_clone", torchairBool(o.cloneOutput), "0");
    add(key, "static_capture_size_limit", std::to_string(o.captureLimit), "64");
    add(key, "clone_input", torchairBool(o.cloneInput), "1");
    add(key, "run_eagerly", torchairBool(o.forceEager), "0");
    add(key, "deadlock_check", torchairBool(o.deadlockCheck), "0");
    add(key, "remove_noop_ops", torchairBool(o.removeNoopOps), "1");
    add(key, "pattern_fusion_pass", torchairBool(o.patternFusionPass), "1");
    add(key, "frozen_parameter", torchairBool(o.frozenParameter), "0");
    // _AclGraphExperimentalConfig.as_dict (TC/experimental_config.py:69-107): after the experimental
    // options, the static shape kernel's four keys when it is on, then the super kernel's.
    const PyValue* kernel = written(settings, "experimental_config.aclgraph._aclnn_static_shape_kernel");
    if (kernel && kernel->truthy()) {
        add(key, "_aclnn_static_shape_kernel", "1", "");
        // StrOptionValue: None becomes "" here (ge::AscendString cannot take None).
        const PyValue* dir = written(settings, "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir");
        add(key, "_aclnn_static_shape_kernel_build_dir", dir && dir->kind != PyValue::Kind::None ? dir->str() : "", "");
        // IntListValue: the value as given (a list prints as Python prints it); None when never set, and
        // an explicit None is stored as [].
        const PyValue* range
            = written(settings, "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range");
        add(key, "_aclnn_static_shape_kernel_sym_value_range",
            !range                                   ? "None"
                : range->kind == PyValue::Kind::None ? "[]"
                                                     : range->str(),
            "None");
        const PyValue* index = written(settings, "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_index");
        add(key, "_aclnn_static_shape_kernel_sym_index", index ? index->str() : "0", "0");
    }
    const PyValue* super = written(settings, "experimental_config.aclgraph._super_kernel_optimize");
    if (super && super->truthy()) {
        add(key, "_super_kernel_optimize", "1", "");
        for (const char* name : { "_super_kernel_optimize_options", "_super_kernel_debug_options" }) {
            const PyValue* v = written(settings, std::string("experimental_config.aclgraph.") + name);
            if (v && v->kind != PyValue::Kind::None)
                add(key, name, v->str(), "");
        }
    }
    add(key, "mode", o.mode, "reduce-overhead");
}

void npugraphExKey(CacheKey& key, const Settings& settings)
{
    // npugraph_ex's OptionValue returns a bool as is, so True/False print as Python does, and an
    // integer 0 given for a bool option prints as 0: a different key from False.
    auto value = [&](const char* name) {
        const PyValue* v = written(settings, name);
        const config::OptionSpec* spec = specByName(name);
        const std::string def = spec ? spec->npugraphExDefault.str() : "None";
        add(key, name, v ? v->str() : def, def);
    };
    for (const char* name : { "force_eager", "reuse_graph_pool_in_same_fx", "clone_output", "capture_limit",
             "clone_input", "deadlock_check", "capture_error_mode", "force_recapture" })
        value(name);
    const PyValue* kernel = written(settings, "static_kernel_compile");
    if (kernel && kernel->truthy()) {
        value("static_kernel_compile");
        value("_vllm_aclnn_static_kernel_sym_range");
        value("_vllm_aclnn_static_kernel_sym_index");
    }
    const PyValue* noCache = written(settings, "disable_static_kernel_compile_cache");
    if (noCache && noCache->truthy()) {
        value("disable_static_kernel_compile_cache");
        key.notes.push_back("where disable_static_kernel_compile_cache=True sits in the string is assumed (after the "
                            "static kernel keys)");
    }
    for (const char* name : { "remove_noop_ops", "pattern_fusion_pass", "frozen_parameter" })
        value(name);
}

} // namespace

Result<CacheKey> computeCacheKey(
    Backend backend, const Settings& settings, const std::optional<std::string>& moduleRepr)
{
    Settings checked;
    Settings passes;
    bool pool = false;
    for (const auto& s : settings) {
        if (isPostGradPass(s.first))
            passes.push_back(s);
        else if (isPoolSetting(s.first) && s.second.kind != PyValue::Kind::None)
            pool = true;
        else
            checked.push_back(s);
    }
    // Validate everything (pool included) with TorchAir's messages; the key itself is computed
    // before the custom pool turns same-FX reuse off (get_cache_bin runs before the compile).
    Settings all = checked;
    for (const auto& s : settings)
        if (isPoolSetting(s.first))
            all.push_back(s);
    auto validated = config::parseOptions(backend, all);
    if (!validated)
        return validated.error();
    auto options = config::parseOptions(backend, checked);
    if (!options)
        return options.error();
    const std::vector<std::string> optionNotes = validated->notes;

    CacheKey key;
    key.backend = backend;
    if (backend == Backend::TorchAir)
        torchairKey(key, options.value(), checked);
    else
        npugraphExKey(key, checked);
    for (const auto& [name, value] : passes) {
        std::string digest = value.str();
        const bool isDigest = digest.size() == 32 && std::all_of(digest.begin(), digest.end(), [](char c) {
            return std::isxdigit(static_cast<unsigned char>(c));
        });
        key.options.push_back(KeyOption { name, digest, false });
        if (!isDigest)
            key.notes.push_back(name
                + ": TorchAir puts the md5 of the function's dis.dis() text here; give that digest "
                  "(32 hex digits) for a matching key");
    }
    for (size_t i = 0; i < key.options.size(); ++i)
        key.optionString += (i ? "," : "") + key.options[i].key + "=" + key.options[i].value;
    if (moduleRepr)
        key.md5 = md5Hex(*moduleRepr + key.optionString);

    for (const auto& [name, value] : settings) {
        const config::OptionSpec* spec = specByName(name);
        if ((spec && !spec->inCacheKey) || isPoolSetting(name))
            if (std::find(key.settingsOutsideKey.begin(), key.settingsOutsideKey.end(), name)
                == key.settingsOutsideKey.end())
                key.settingsOutsideKey.push_back(name);
    }
    key.notes.insert(key.notes.end(), optionNotes.begin(), optionNotes.end());
    if (pool)
        key.notes.push_back(std::string("a custom pool makes TorchAir set ")
            + (backend == Backend::TorchAir ? "debug.aclgraph.disable_mempool_reuse_in_same_fx = True"
                                            : "reuse_graph_pool_in_same_fx = False")
            + " on the config object at compile time; a later cache_compile with the same object gets another key");
    return key;
}

std::vector<std::string> optionsNotInKey(Backend backend)
{
    std::vector<std::string> names;
    for (const config::OptionSpec& s : config::optionTable()) {
        const std::string& name = backend == Backend::TorchAir ? s.torchairName : s.npugraphExName;
        if (!name.empty() && !s.inCacheKey)
            names.push_back(name);
    }
    return names;
}

std::vector<std::pair<std::string, std::string>> splitOptions(const std::vector<std::string>& items)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& item : items) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos)
            out.emplace_back(item, "");
        else
            out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> splitOptionString(const std::string& text)
{
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= text.size() && !text.empty()) {
        const size_t comma = text.find(',', start);
        items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return splitOptions(items);
}

const char* verdictName(KeyMatch::Verdict v)
{
    switch (v) {
    case KeyMatch::Verdict::Hit:
        return "hit";
    case KeyMatch::Verdict::Miss:
        return "miss";
    case KeyMatch::Verdict::Unknown:
        return "unknown";
    }
    return "?";
}

KeyMatch matchCacheEntry(const CacheKey& key, const std::vector<std::string>& entryOptions,
    const std::string& folderMd5, const std::optional<std::string>& moduleRepr)
{
    KeyMatch m;
    m.optionsKnown = !entryOptions.empty();
    if (m.optionsKnown) {
        const auto cached = splitOptions(entryOptions);
        std::map<std::string, std::string> cachedMap(cached.begin(), cached.end());
        std::map<std::string, std::string> mine;
        for (const KeyOption& o : key.options)
            mine[o.key] = o.value;
        for (const KeyOption& o : key.options) {
            auto it = cachedMap.find(o.key);
            if (it == cachedMap.end())
                m.differences.emplace_back(o.key, "<absent>", o.value);
            else if (it->second != o.value)
                m.differences.emplace_back(o.key, it->second, o.value);
        }
        for (const auto& [k, v] : cached)
            if (!mine.count(k))
                m.differences.emplace_back(k, v, "<absent>");
        // The same pairs in another order make another string, hence another md5.
        std::string cachedString;
        for (size_t i = 0; i < entryOptions.size(); ++i)
            cachedString += (i ? "," : "") + entryOptions[i];
        if (m.differences.empty() && cachedString != key.optionString)
            m.differences.emplace_back("(order)", cachedString, key.optionString);
        if (moduleRepr && !folderMd5.empty())
            m.reprMatchesEntry = md5Hex(*moduleRepr + cachedString) == folderMd5;
    }
    if (key.md5 && !folderMd5.empty())
        m.md5Matches = *key.md5 == folderMd5;

    std::string why;
    if (m.md5Matches) {
        m.verdict = *m.md5Matches ? KeyMatch::Verdict::Hit : KeyMatch::Verdict::Miss;
    } else if (m.optionsKnown) {
        m.verdict = m.differences.empty() ? KeyMatch::Verdict::Hit : KeyMatch::Verdict::Miss;
    }
    switch (m.verdict) {
    case KeyMatch::Verdict::Hit:
        why = m.md5Matches
            ? "The folder's md5 is the md5 of this module repr and these options: TorchAir loads this entry."
            : "The entry was built with exactly these options: TorchAir loads it if the module's repr is "
              "unchanged (give --repr to check).";
        if (!key.settingsOutsideKey.empty()) {
            why += " Careful: the key ignores what you set for ";
            for (size_t i = 0; i < key.settingsOutsideKey.size(); ++i)
                why += (i ? ", " : "") + key.settingsOutsideKey[i];
            why += "; the entry was compiled with whatever values they had then, and TorchAir uses it anyway.";
        }
        break;
    case KeyMatch::Verdict::Miss:
        if (!m.differences.empty()) {
            why = "The options differ in ";
            for (size_t i = 0; i < m.differences.size(); ++i)
                why += (i ? ", " : "") + std::get<0>(m.differences[i]) + " (cache " + std::get<1>(m.differences[i])
                    + ", config " + std::get<2>(m.differences[i]) + ")";
            why += ": TorchAir computes another md5, misses this entry and compiles into a new folder.";
        } else {
            why = "The options are the same, so the module repr differs from the one the entry was built with: "
                  "TorchAir misses it and compiles into a new folder.";
        }
        if (m.reprMatchesEntry && !*m.reprMatchesEntry && !m.differences.empty())
            why += " The module repr differs too.";
        break;
    case KeyMatch::Verdict::Unknown:
        why = "The entry's options are unknown (no signature) and no module repr was given: nothing to compare.";
        break;
    }
    m.explanation = why;
    return m;
}

} // namespace engine::cache
