#pragma once
/// Internal to the simulator: `torchair.inference.cache_compile` (and npugraph_ex's) around the run
/// (torchair-behavior.md §5; T/inference/_cache_compiler.py): the cache file's path as
/// `CompiledModel.get_cache_bin` builds it, the lazy load at the first call (`LazyCompiledModel.compile`:
/// hit, or `Clear broken cache ... as ...` and a fresh compile), the save after the call that compiled
/// (`ModelCacheWatcher` -> `ModelCacheSaver.save_compiled_fn` -> `CompiledModel.save`), and the
/// `Skip cache as ... recompiled` warning with the folder's removal when Dynamo compiles the method again.
#include "engine/config/options.h"
#include "engine/graph/graph.h"
#include "engine/runtime/events.h"
#include "engine/runtime/simulator.h"
#include "engine/scenario/scenario.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace engine::runtime::detail {

class CacheCompileModel {
public:
    /// Logs one line (level, text, warning category or "").
    using LogFn = std::function<void(LogLevel, const std::string&, const std::string&)>;

    CacheCompileModel(const scenario::Scenario& scenario, const config::Options& options, Simulation& sim);

    /// Whether calls of this graph go through the cached method.
    bool covers(const std::string& graphId) const;
    /// Before call `c` of a covered graph: the lazy load or compile at the first call, and Dynamo's
    /// codegen of a graph it has not compiled yet. Returns TorchAir's exception text when the call
    /// raises (a loaded cache's first-call size check), else "".
    std::string beforeCall(int c, const Graph& graph, const SymbolValues& symbols, const LogFn& log);
    /// After call `c` of a covered graph returned: the watcher saves, or skips the cache as recompiled.
    void afterCall(int c, const Graph& graph, const LogFn& log);
    /// Whether the static kernel's run packages go to the cache folder (use_cache_compile="1"), so
    /// compile_static_kernel does not warn.
    bool cachesStaticKernel() const { return m_options.staticKernel; }

    const std::string& cacheBin() const { return m_bin; }
    const std::string& metaName() const { return m_name; }

private:
    std::string metaRepr(const std::string& date, const std::string& version) const;
    void removeFolder(int c, const std::string& why);
    std::string firstCallSizeCheck(const Graph& cached, const Graph& called, const SymbolValues& symbols) const;

    const scenario::Scenario& m_scenario;
    const scenario::CacheCompileSpec& m_spec;
    const config::Options& m_options;
    Simulation& m_sim;
    std::string m_version; ///< the loader's VERSION
    std::string m_bin; ///< the compiled_module path
    std::string m_funcDir; ///< its folder, which TorchAir removes
    std::string m_name; ///< meta.name: "<qualname><signature>"
    std::string m_funcRepr; ///< repr of the bound method
    bool m_started = false;
    bool m_loaded = false;
    std::string m_cachedGraph; ///< the graph the loaded or saved cache holds
    std::set<std::string> m_compiled; ///< graphs Dynamo compiled in this run (saving path)
    std::set<std::string> m_noGuardNoted;
    bool m_saved = false;
    int m_file = -1; ///< index in Simulation::files of the cache file
};

} // namespace engine::runtime::detail
