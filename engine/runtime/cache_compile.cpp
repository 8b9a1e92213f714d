#include "engine/runtime/cache_compile.h"

#include "engine/cache/cache_key.h"

#include <algorithm>
#include <cstdio>

// Every rule below is read in Ascend/torchair fced8842, python/torchair/inference/_cache_compiler.py
// ("T/...") and npugraph_ex/npugraph_ex/inference/_cache_compiler.py ("N/...").

namespace engine::runtime::detail {

namespace {

std::string joinPath(const std::string& a, const std::string& b)
{
    if (b.empty())
        return a;
    if (a.empty())
        return b;
    return a.back() == '/' ? a + b : a + "/" + b;
}

/// Tensor placeholders of a graph, in order.
std::vector<const Node*> tensorInputs(const Graph& g)
{
    std::vector<const Node*> out;
    for (const Node& n : g.nodes)
        if (n.op == NodeOp::Placeholder && n.inputKind != InputKind::SymInt && !n.outputs.empty())
            out.push_back(&n);
    return out;
}

std::vector<int64_t> concreteStride(const TensorMeta& m, const std::vector<int64_t>& shape, const SymbolValues& syms)
{
    std::vector<int64_t> stride(shape.size(), 1);
    if (m.stride.size() == shape.size()) {
        for (size_t d = 0; d < shape.size(); ++d) {
            auto v = m.stride[d].eval(syms);
            stride[d] = v ? v.value() : -1;
        }
        return stride;
    }
    for (size_t d = shape.size(); d-- > 1;)
        stride[d - 1] = stride[d] * shape[d];
    return stride;
}

} // namespace

CacheCompileModel::CacheCompileModel(
    const scenario::Scenario& scenario, const config::Options& options, Simulation& sim)
    : m_scenario(scenario)
    , m_spec(*scenario.cacheCompile)
    , m_options(options)
    , m_sim(sim)
{
    const bool ex = options.backend == config::Backend::NpugraphEx;
    m_version = ex ? "1.0.6" : "1.0.5"; // CompiledModel.VERSION (T:127, N:119)
    const std::string where = "$.cache_compile";

    // CompiledModel.get_cache_bin (T:190-221):
    // <cache_dir>/<cls>_<dynamic|static>_aclgraphcache_<md5>/<dist>/<func>/compiled_module.
    std::string dir;
    if (m_spec.cacheDir) {
        dir = *m_spec.cacheDir;
    } else if (m_spec.cwd) {
        dir = joinPath(*m_spec.cwd, ".torchair_cache");
    } else {
        dir = "<cwd>/.torchair_cache";
        sim.assumptions.push_back(where
            + ": no cache_dir and no cwd given: the cache goes to $TORCHAIR_CACHE_HOME when that is set, else to "
              ".torchair_cache in the process's working directory; paths show <cwd> (give cache_compile.cwd or "
              "cache_dir)");
    }
    std::vector<std::pair<std::string, PyValue>> settings = scenario.config;
    auto key = cache::computeCacheKey(options.backend, settings, m_spec.moduleRepr);
    std::string md5 = "<md5>";
    if (key && key.value().md5)
        md5 = *key.value().md5;
    else
        sim.assumptions.push_back(where
            + ": str(module) not given (cache_compile.module_repr): the folder's md5 of str(module) + options is "
              "unknown and shows as <md5>");
    // torchair adds "aclgraphcache" for reduce-overhead (and "gecache" only for max-autotune with ge_cache);
    // npugraph_ex always adds it (N:207).
    std::string modelInfo = m_spec.module + (m_spec.dynamic ? "_dynamic" : "_static") + "_aclgraphcache_" + md5;
    std::string dist;
    auto add = [&](const std::string& part) { dist += (dist.empty() ? "" : "_") + part; };
    if (m_spec.worldSize > 1)
        add("world" + std::to_string(m_spec.worldSize) + "global_rank"
            + (m_spec.globalRank ? std::to_string(*m_spec.globalRank) : std::string("<rank>")));
    if (m_spec.worldSize > 1 && !m_spec.globalRank)
        sim.assumptions.push_back(
            where + ": world_size > 1 without global_rank: the folder names dist.get_rank(), shown as <rank>");
    if (m_spec.tpRank)
        add("tp_rank" + std::to_string(*m_spec.tpRank));
    if (m_spec.ppRank)
        add("pp_rank" + std::to_string(*m_spec.ppRank));
    m_funcDir = joinPath(joinPath(joinPath(dir, modelInfo), dist), m_spec.method);
    m_bin = joinPath(m_funcDir, "compiled_module");

    // CompiledModel.__init__ (T:130-133): meta.name = f"{func.__qualname__}{inspect.signature(func)}".
    std::string signature = m_spec.signature.value_or("(...)");
    if (!m_spec.signature)
        sim.assumptions.push_back(where
            + ": the method's signature is not given (cache_compile.signature): the cache's name shows it as (...)");
    m_name = m_spec.module + "." + m_spec.method + signature;
    m_funcRepr = "<bound method " + m_spec.module + "." + m_spec.method + " of "
        + m_spec.moduleRepr.value_or(m_spec.module + "(...)") + ">";
}

bool CacheCompileModel::covers(const std::string& graphId) const
{
    return m_spec.graphs.empty()
        || std::find(m_spec.graphs.begin(), m_spec.graphs.end(), graphId) != m_spec.graphs.end();
}

std::string CacheCompileModel::metaRepr(const std::string& date, const std::string& version) const
{
    // ModelCacheMeta is a dataclass: its repr names every field with repr() of the value.
    return "ModelCacheMeta(name='" + m_name + "', date='" + (date.empty() ? "?" : date) + "', version='" + version
        + "')";
}

void CacheCompileModel::removeFolder(int c, const std::string& why)
{
    if (m_file >= 0 && m_sim.files[size_t(m_file)].removedAtCall < 0) {
        m_sim.files[size_t(m_file)].removedAtCall = c;
        m_sim.files[size_t(m_file)].why = why;
    }
}

std::string CacheCompileModel::beforeCall(int c, const Graph& graph, const SymbolValues& symbols, const LogFn& log)
{
    if (!m_started) {
        m_started = true;
        // LazyCompiledModel.compile (T:574-593), at the first call.
        if (m_spec.existing) {
            const auto& ex = *m_spec.existing;
            m_sim.files.push_back({ m_bin, "cache_compile's compiled_module", -1, -1, {} });
            m_file = int(m_sim.files.size()) - 1;
            log(LogLevel::Info, "Loading cache from " + m_bin, {});
            // CompiledModel.load (T:169-187): owner and mode, the strict unpickle under its timer, the version.
            std::string error;
            const std::string version = ex.version.empty() ? m_version : ex.version;
            if (!ex.owned)
                error = "File must be owned by the current user";
            else if (ex.mode != 0600)
                error = "Permissions must be 600";
            else if (!ex.unpickleError.empty())
                error = ex.unpickleError; // raised inside timer(): its "took" line is not printed
            if (error.empty()) {
                log(LogLevel::Info, "load cache from " + m_bin + " took ? [s]", {});
                if (version != m_version)
                    error = "Version mismatch: " + version + " != " + m_version;
            }
            if (error.empty()) {
                log(LogLevel::Info, "Cache " + metaRepr(ex.date, version) + " loaded from " + m_bin, {});
                m_loaded = true;
                m_cachedGraph = ex.graph.empty() ? graph.id : ex.graph;
            } else {
                log(LogLevel::Warning, "Clear broken cache " + m_bin + " as " + error, {});
                removeFolder(
                    c, "Clear broken cache: " + error + " (LazyCompiledModel.compile removes " + m_funcDir + ")");
            }
        }
        if (!m_loaded)
            log(LogLevel::Info, "Compiling cache for " + m_funcRepr + " to " + m_bin, {});
    }
    if (m_loaded) {
        // No Dynamo and no guards after a load: the cached kernel runs whatever the call passes; only its
        // first call's assert_size_stride looks at the inputs (torchair-behavior.md §5.3).
        if (graph.id != m_cachedGraph) {
            if (c == 0 || !m_compiled.count(m_cachedGraph)) {
                if (const Graph* cached = m_scenario.graph(m_cachedGraph)) {
                    std::string failure = firstCallSizeCheck(*cached, graph, symbols);
                    if (!failure.empty())
                        return failure;
                }
            }
            if (m_noGuardNoted.insert(graph.id).second)
                m_sim.assumptions.push_back("call " + std::to_string(c) + ": graph '" + graph.id
                    + "' is not the graph the loaded cache holds ('" + m_cachedGraph
                    + "'): a loaded cache has no guards, so TorchAir runs the cached kernel with these inputs, where "
                      "Dynamo would have compiled again; the simulation follows the scenario's graph");
        }
        m_compiled.insert(m_cachedGraph);
        return {};
    }
    if (m_compiled.insert(graph.id).second) {
        // CacheBackend.fw_compiler (T:402-421): codegen and the module's compile, each under timer().
        log(LogLevel::Info, m_name + " codegen took ? [s]", {});
        log(LogLevel::Info, m_name + " compile graph took ? [s]", {});
    }
    return {};
}

void CacheCompileModel::afterCall(int c, const Graph& graph, const LogFn& log)
{
    if (m_loaded)
        return;
    // ModelCacheWatcher.__exit__ -> ModelCacheSaver.save_compiled_fn (T:503-520) for each code object Dynamo
    // made of the method: the first is saved; another one means Dynamo recompiled it.
    if (!m_saved) {
        m_saved = true;
        m_cachedGraph = graph.id;
        log(LogLevel::Info, "Saving cache for " + m_name + " to " + m_bin, {});
        log(LogLevel::Info, "Cache " + metaRepr({}, m_version) + " saved to " + m_bin, {});
        m_sim.files.push_back({ m_bin, "cache_compile's compiled_module (mode 600)", c, -1, {} });
        m_file = int(m_sim.files.size()) - 1;
        return;
    }
    if (graph.id == m_cachedGraph)
        return;
    log(LogLevel::Warning,
        "Skip cache as " + m_name + " recompiled, set torch._logging.set_logs(recompiles=True) for details",
        "UserWarning");
    removeFolder(c,
        "Dynamo compiled " + m_name + " again (graph '" + graph.id + "' after '" + m_cachedGraph
            + "'): ModelCacheSaver.remove_cache deletes " + m_funcDir);
}

std::string CacheCompileModel::firstCallSizeCheck(
    const Graph& cached, const Graph& called, const SymbolValues& symbols) const
{
    // The generated kernel's first call checks every input with assert_size_stride; torch's message is
    // "expected size <actual>==<expected>, stride <actual>==<expected> at dim=<d>".
    const auto want = tensorInputs(cached);
    const auto have = tensorInputs(called);
    for (size_t i = 0; i < want.size() && i < have.size(); ++i) {
        const TensorMeta& w = want[i]->outputs[0];
        const TensorMeta& h = have[i]->outputs[0];
        auto ws = w.concreteShape(symbols);
        auto hs = h.concreteShape(symbols);
        if (!ws || !hs || w.isSymbolic())
            continue;
        const auto wst = concreteStride(w, ws.value(), symbols);
        const auto hst = concreteStride(h, hs.value(), symbols);
        if (ws.value().size() != hs.value().size())
            return "AssertionError (assert_size_stride of input " + std::to_string(i) + ", " + want[i]->name + ": "
                + std::to_string(hs.value().size()) + " dimensions where the loaded cache's graph '" + cached.id
                + "' has " + std::to_string(ws.value().size()) + "; torch's exact text for this case is not modelled)";
        for (size_t d = 0; d < ws.value().size(); ++d)
            if (ws.value()[d] != hs.value()[d] || wst[d] != hst[d])
                return "AssertionError: expected size " + std::to_string(hs.value()[d])
                    + "==" + std::to_string(ws.value()[d]) + ", stride " + std::to_string(hst[d])
                    + "==" + std::to_string(wst[d]) + " at dim=" + std::to_string(d) + " (input " + std::to_string(i)
                    + ", " + want[i]->name + ": the loaded cache was saved from graph '" + cached.id
                    + "'; its kernel checks sizes and strides on its first call, and no guard runs after a load)";
    }
    return {};
}

} // namespace engine::runtime::detail
