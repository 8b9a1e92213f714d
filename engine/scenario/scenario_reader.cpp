// Reads a scenario file (docs/scenario-format.md): JSON syntax, the top level, config, device and
// calls. Graphs are read by scenario_graph_reader.cpp.
#include "engine/core/file_io.h"
#include "engine/scenario/scenario.h"
#include "engine/scenario/scenario_json.h"
#include "engine/scenario/trace_scenario.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace engine::scenario {

using detail::Failure;
using detail::Json;
using detail::JsonReader;

namespace {

constexpr const char* kFormatName = "aclgraph-inspector-scenario";
constexpr uint64_t kMaxFileBytes = 256ull << 20;
// nlohmann's parser is iterative, but the reader recurses into argument lists and config values.
constexpr int kMaxNesting = 512;
// `repeat` multiplies calls; a bound keeps a typo ("repeat": 1000000000) from exhausting memory.
constexpr size_t kMaxCalls = 100000;

// 1-based line and column of byte `offset` (0-based) of `text`.
std::string position(const std::string& path, const std::string& text, size_t offset)
{
    offset = std::min(offset, text.size());
    size_t line = 1 + size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
    size_t lineStart = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
    size_t column = offset - (lineStart == std::string::npos ? 0 : lineStart + 1) + 1;
    return path + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// A cheap pre-scan, so that nothing downstream ever sees a pathologically deep document.
Result<void> checkNesting(const std::string& text, const std::string& path)
{
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxNesting)
                return makeError(ErrorCode::ParseError,
                    "JSON nested deeper than " + std::to_string(kMaxNesting) + " levels", position(path, text, i));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return {};
}

// nlohmann keeps the last of two equal keys; a scenario with "inputs" twice is almost certainly
// a mistake, so the parse callback tracks the JSON path and refuses duplicates.
class DuplicateKeyCheck {
public:
    explicit DuplicateKeyCheck(const JsonReader& r)
        : m_r(r)
    {
    }

    bool operator()(int, Json::parse_event_t event, Json& parsed)
    {
        switch (event) {
        case Json::parse_event_t::object_start:
        case Json::parse_event_t::array_start:
            m_frames.push_back({ event == Json::parse_event_t::object_start, {}, {}, 0 });
            break;
        case Json::parse_event_t::object_end:
        case Json::parse_event_t::array_end:
            if (!m_frames.empty())
                m_frames.pop_back();
            if (!m_frames.empty())
                ++m_frames.back().index;
            break;
        case Json::parse_event_t::key: {
            if (m_frames.empty())
                break;
            Frame& top = m_frames.back();
            top.key = parsed.get<std::string>();
            if (!top.keys.insert(top.key).second)
                m_r.fail(ErrorCode::ParseError, path(), "duplicate key '" + top.key + "'");
            break;
        }
        case Json::parse_event_t::value:
            if (!m_frames.empty())
                ++m_frames.back().index;
            break;
        }
        return true;
    }

private:
    struct Frame {
        bool object;
        std::set<std::string> keys;
        std::string key;
        size_t index;
    };

    std::string path() const
    {
        std::string p = "$";
        for (const Frame& f : m_frames)
            p = f.object ? JsonReader::key(p, f.key) : JsonReader::index(p, f.index);
        return p;
    }

    const JsonReader& m_r;
    std::vector<Frame> m_frames;
};

Result<Json> parseJson(const std::string& text, const std::string& path)
{
    auto nesting = checkNesting(text, path);
    if (!nesting)
        return nesting.error();
    try {
        JsonReader r(path);
        return Json::parse(text, DuplicateKeyCheck(r));
    } catch (const Json::parse_error& e) {
        // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1,
        // column 5: "; the position goes into the context instead.
        std::string what = e.what();
        size_t at = what.find("parse error");
        size_t colon = at == std::string::npos ? std::string::npos : what.find(": ", at);
        std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
        size_t offset = e.byte == 0 ? 0 : e.byte - 1;
        return makeError(ErrorCode::ParseError, "invalid JSON: " + detail, position(path, text, offset));
    } catch (const Json::out_of_range& e) {
        // "number overflow parsing '1e400'" comes without a position; the literal's first occurrence
        // is a good guess.
        std::string what = e.what();
        size_t close = what.rfind('\'');
        size_t open = close == std::string::npos || close == 0 ? std::string::npos : what.rfind('\'', close - 1);
        size_t at = open == std::string::npos ? std::string::npos : text.find(what.substr(open + 1, close - open - 1));
        size_t bracket = what.find("] ");
        return makeError(ErrorCode::ParseError,
            "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)),
            at == std::string::npos ? path : position(path, text, at));
    }
}

PyValue configValue(const JsonReader& r, const Json& v, const std::string& path, bool tuple)
{
    switch (v.type()) {
    case Json::value_t::null:
        return PyValue::none();
    case Json::value_t::boolean:
        return PyValue::boolean(v.get<bool>());
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
        return PyValue::integer(r.integer(v, path));
    case Json::value_t::number_float:
        return PyValue::real(v.get<double>());
    case Json::value_t::string:
        return PyValue::str(v.get<std::string>());
    case Json::value_t::array: {
        std::vector<PyValue> items;
        for (size_t i = 0; i < v.size(); ++i)
            items.push_back(configValue(r, v[i], JsonReader::index(path, i), false));
        return tuple ? PyValue::tuple(std::move(items)) : PyValue::list(std::move(items));
    }
    default:
        r.wrongType(v, path, "true, false, a number, a string, null or an array");
    }
}

// Pool options are tuples in Python (`use_custom_pool=(0, 1)`); TorchAir's messages show them so.
bool isPoolOption(const std::string& name)
{
    std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
    return last == "use_custom_pool" || last == "use_graph_pool";
}

class ScenarioReader {
public:
    explicit ScenarioReader(const std::string& path)
        : m_r(path)
    {
    }

    Scenario read(const Json& root)
    {
        Scenario s;
        const Json& obj = m_r.object(root, "$");
        std::string format = m_r.string(m_r.required(obj, "$", "format"), "$.format");
        if (format != kFormatName)
            m_r.fail(ErrorCode::InvalidArgument, "$.format",
                std::string("expected \"") + kFormatName + "\", got \"" + format + "\"");
        int64_t version = m_r.integer(m_r.required(obj, "$", "version"), "$.version");
        // Checked before unknown keys: a newer file may well have keys this build does not know.
        if (version > kFormatVersion)
            m_r.fail(ErrorCode::InvalidArgument, "$.version",
                "scenario format version " + std::to_string(version)
                    + " was written by a newer version of aclgraph-inspector; this build reads version "
                    + std::to_string(kFormatVersion));
        if (version < 1)
            m_r.fail(ErrorCode::InvalidArgument, "$.version",
                "unsupported version " + std::to_string(version) + " (versions start at 1)");
        s.version = int(version);
        m_r.checkKeys(obj, "$",
            { "format", "version", "name", "runtime", "backend", "config", "device", "operators", "cache_compile",
                "frames", "graphs", "calls", "log" });
        if (const Json* v = JsonReader::find(obj, "name"))
            s.name = m_r.string(*v, "$.name");
        if (const Json* v = JsonReader::find(obj, "comment"))
            s.comment = m_r.string(*v, "$.comment");
        if (const Json* v = JsonReader::find(obj, "backend")) {
            std::string b = m_r.string(*v, "$.backend");
            if (b == "torchair")
                s.backend = config::Backend::TorchAir;
            else if (b == "npugraph_ex")
                s.backend = config::Backend::NpugraphEx;
            else
                m_r.fail(ErrorCode::InvalidArgument, "$.backend",
                    "unknown backend '" + b + "' (expected \"torchair\" or \"npugraph_ex\")");
        }
        if (const Json* v = JsonReader::find(obj, "runtime")) {
            const std::string r = m_r.string(*v, "$.runtime");
            std::optional<config::Backend> implied;
            if (r == "cuda_graph_trees")
                s.runtime = Runtime::CudaGraphTrees;
            else if (r == "torchair")
                implied = config::Backend::TorchAir;
            else if (r == "npugraph_ex")
                implied = config::Backend::NpugraphEx;
            else
                m_r.fail(ErrorCode::InvalidArgument, "$.runtime",
                    "unknown runtime '" + r + "' (expected \"torchair\", \"npugraph_ex\" or \"cuda_graph_trees\")");
            if (s.backend && (s.runtime == Runtime::CudaGraphTrees || s.backend != implied))
                m_r.fail(ErrorCode::InvalidArgument, "$.runtime",
                    "runtime '" + r + "' contradicts \"backend\": \"" + config::backendName(*s.backend)
                        + "\" (give one of the two)");
            if (implied)
                s.backend = implied;
        }
        if (const Json* v = JsonReader::find(obj, "config")) {
            for (const auto& [k, value] : m_r.object(*v, "$.config").items())
                s.config.emplace_back(k, configValue(m_r, value, JsonReader::key("$.config", k), isPoolOption(k)));
        }
        if (s.runtime == Runtime::CudaGraphTrees) {
            s.device.profile = memory::Profile::Cuda; // the runtime's device unless `device` says otherwise
            s.device.capacityBytes = 80ull << 30; // an H100's 80 GB, as a default
        }
        if (const Json* v = JsonReader::find(obj, "device"))
            s.device = readDevice(*v, "$.device", s.device);
        if (s.runtime == Runtime::CudaGraphTrees && s.device.profile != memory::Profile::Cuda)
            m_r.fail(ErrorCode::InvalidArgument, "$.device.profile",
                "the cuda_graph_trees runtime runs on a CUDA device; profile must be \"cuda\"");
        if (const Json* v = JsonReader::find(obj, "operators"))
            s.operators = readOperators(*v, "$.operators", s.diagnostics);
        if (const Json* v = JsonReader::find(obj, "log")) {
            s.log = readLogSource(*v, "$.log");
            for (const char* key : { "graphs", "calls", "frames", "cache_compile" })
                if (JsonReader::find(obj, key))
                    m_r.fail(ErrorCode::InvalidArgument, std::string("$.") + key,
                        std::string("a scenario of a log takes its graphs, calls and frames from the log and its "
                                    "\"graphs\" source; give \"")
                            + key + "\" or \"log\", not both");
            return s;
        }
        s.graphs
            = detail::readGraphs(m_r, m_r.array(m_r.required(obj, "$", "graphs"), "$.graphs"), "$.graphs", s.diagnostics);
        if (const Json* v = JsonReader::find(obj, "calls")) {
            const Json& calls = m_r.array(*v, "$.calls");
            for (size_t i = 0; i < calls.size(); ++i)
                readCall(s, calls[i], JsonReader::index("$.calls", i));
        }
        if (const Json* v = JsonReader::find(obj, "cache_compile")) {
            if (s.runtime == Runtime::CudaGraphTrees)
                m_r.fail(ErrorCode::InvalidArgument, "$.cache_compile",
                    "cache_compile is TorchAir's; the cuda_graph_trees runtime has none");
            s.cacheCompile = readCacheCompile(s, *v, "$.cache_compile");
        }
        if (const Json* v = JsonReader::find(obj, "frames")) {
            if (s.runtime != Runtime::CudaGraphTrees)
                m_r.fail(ErrorCode::InvalidArgument, "$.frames", "frames apply to the cuda_graph_trees runtime only");
            for (const auto& [frame, list] : m_r.object(*v, "$.frames").items()) {
                const std::string path = JsonReader::key("$.frames", frame);
                const Json& ids = m_r.array(list, path);
                for (size_t i = 0; i < ids.size(); ++i) {
                    const std::string idPath = JsonReader::index(path, i);
                    const std::string id = m_r.string(ids[i], idPath);
                    if (!s.graph(id))
                        m_r.fail(ErrorCode::InvalidArgument, idPath, "unknown graph '" + id + "'");
                    if (!s.frames.emplace(id, frame).second)
                        m_r.fail(ErrorCode::InvalidArgument, idPath, "graph '" + id + "' is in two frames");
                }
            }
        }
        for (size_t i = 0; i < s.calls.size(); ++i) {
            const Call& c = s.calls[i];
            if (s.runtime != Runtime::CudaGraphTrees && (c.markStepBegin || !c.reads.empty()))
                m_r.fail(ErrorCode::InvalidArgument, c.sourcePath,
                    std::string(c.markStepBegin ? "mark_step_begin" : "reads")
                        + " applies to the cuda_graph_trees runtime only");
        }
        return s;
    }

private:
    // `log`: {"file": "job.log", "graphs": "debug/", "run": "rank 1"}; paths relative to the scenario's folder.
    LogSource readLogSource(const Json& v, const std::string& path)
    {
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path, { "file", "graphs", "run" });
        auto resolved = [&](const char* key) {
            std::string file = m_r.nonEmptyString(m_r.required(obj, path, key), JsonReader::key(path, key));
            const auto slash = m_r.file().rfind('/');
            if (file[0] != '/' && slash != std::string::npos)
                file = m_r.file().substr(0, slash + 1) + file;
            return file;
        };
        LogSource out;
        out.file = resolved("file");
        out.graphs = resolved("graphs");
        if (const Json* run = JsonReader::find(obj, "run"))
            out.run = m_r.string(*run, JsonReader::key(path, "run"));
        return out;
    }

    // `operators`: {"schemas": ["ns::op.overload(...) -> ...", ...], "inplaceable": [{"functional": name,
    // "inplace": name, "mutated_args": [i, ...]}]}, the names as register_inplaceable_npu_op takes them
    // (ops of torch.ops.npu; "npu.x.default" is accepted too).
    std::shared_ptr<const UserOps> readOperators(
        const Json& v, const std::string& path, std::vector<std::string>& notes)
    {
        auto ops = std::make_shared<UserOps>();
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path, { "schemas", "inplaceable" });
        if (const Json* list = JsonReader::find(obj, "schemas")) {
            const std::string listPath = JsonReader::key(path, "schemas");
            const Json& schemas = m_r.array(*list, listPath);
            for (size_t i = 0; i < schemas.size(); ++i) {
                const std::string itemPath = JsonReader::index(listPath, i);
                std::string error;
                if (!ops->addSchema(m_r.nonEmptyString(schemas[i], itemPath), error))
                    m_r.fail(ErrorCode::InvalidArgument, itemPath, error);
            }
        }
        ops->finish(); // the in-place ops named below may be among these schemas
        if (const Json* list = JsonReader::find(obj, "inplaceable")) {
            const std::string listPath = JsonReader::key(path, "inplaceable");
            const Json& items = m_r.array(*list, listPath);
            for (size_t i = 0; i < items.size(); ++i) {
                const std::string itemPath = JsonReader::index(listPath, i);
                const Json& item = m_r.object(items[i], itemPath);
                m_r.checkKeys(item, itemPath, { "functional", "inplace", "mutated_args" });
                UserOps::Inplaceable op;
                auto npuName = [&](const char* key) {
                    std::string name
                        = m_r.nonEmptyString(m_r.required(item, itemPath, key), JsonReader::key(itemPath, key));
                    return name.find('.') == std::string::npos && name.find("::") == std::string::npos ? "npu." + name
                                                                                                       : name;
                };
                op.functional = npuName("functional");
                op.inplace = npuName("inplace");
                const std::string argsPath = JsonReader::key(itemPath, "mutated_args");
                const Json& args = m_r.array(m_r.required(item, itemPath, "mutated_args"), argsPath);
                if (args.empty())
                    m_r.fail(ErrorCode::InvalidArgument, argsPath, "expected at least one argument index");
                for (size_t k = 0; k < args.size(); ++k)
                    op.mutatedArgs.push_back(int(
                        std::min<int64_t>(m_r.integerAtLeast(args[k], JsonReader::index(argsPath, k), 0), 1 << 20)));
                // register_inplaceable_npu_op registers nothing, and says nothing, when either op does not
                // exist in torch.ops.npu (graph_pass.py): here, when neither the table nor `schemas` has it.
                const UserOpsScope scope(ops.get());
                const bool known = findOpSchema(op.functional) && findOpSchema(op.inplace);
                if (!known) {
                    notes.push_back(m_r.context(itemPath)
                        + ": warning: register_inplaceable_npu_op registers nothing when an op does not exist: "
                        + (findOpSchema(op.functional) ? op.inplace : op.functional)
                        + " is neither in the operator table nor in $.operators.schemas, so TorchAir would skip "
                          "this registration; declare its schema to use it");
                    continue;
                }
                ops->addInplaceable(std::move(op));
            }
        }
        return ops;
    }

    // `cache_compile`: {module, method, signature, module_repr, dynamic, cache_dir, cwd, world_size,
    // global_rank, tp_rank, pp_rank, graphs, existing: {version, owned, mode, unpickle_error, graph, date}}
    // (docs/scenario-format.md). Graph ids are checked against $.graphs.
    CacheCompileSpec readCacheCompile(const Scenario& s, const Json& v, const std::string& path)
    {
        CacheCompileSpec c;
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path,
            { "module", "method", "signature", "module_repr", "dynamic", "cache_dir", "cwd", "world_size",
                "global_rank", "tp_rank", "pp_rank", "graphs", "existing" });
        auto str = [&](const Json& o, const std::string& p, const char* key) -> std::optional<std::string> {
            const Json* x = JsonReader::find(o, key);
            if (!x)
                return std::nullopt;
            return m_r.nonEmptyString(*x, JsonReader::key(p, key));
        };
        auto rank = [&](const char* key) -> std::optional<int> {
            const Json* x = JsonReader::find(obj, key);
            if (!x)
                return std::nullopt;
            return int(std::min<int64_t>(m_r.integerAtLeast(*x, JsonReader::key(path, key), 0), 1 << 20));
        };
        auto graphId = [&](const Json& x, const std::string& p) {
            std::string id = m_r.nonEmptyString(x, p);
            if (!s.graph(id))
                m_r.fail(ErrorCode::InvalidArgument, p, "no graph with id '" + id + "' in $.graphs");
            return id;
        };
        if (auto x = str(obj, path, "module"))
            c.module = *x;
        if (auto x = str(obj, path, "method"))
            c.method = *x;
        c.signature = str(obj, path, "signature");
        if (c.signature && (c.signature->front() != '(' || c.signature->back() != ')'))
            m_r.fail(ErrorCode::InvalidArgument, JsonReader::key(path, "signature"),
                "expected the method's signature as inspect.signature prints it, e.g. \"(x, kv)\"");
        if (const Json* x = JsonReader::find(obj, "module_repr"))
            c.moduleRepr = m_r.string(*x, JsonReader::key(path, "module_repr"));
        if (const Json* x = JsonReader::find(obj, "dynamic"))
            c.dynamic = m_r.boolean(*x, JsonReader::key(path, "dynamic"));
        c.cacheDir = str(obj, path, "cache_dir");
        c.cwd = str(obj, path, "cwd");
        if (const Json* x = JsonReader::find(obj, "world_size"))
            c.worldSize
                = int(std::min<int64_t>(m_r.integerAtLeast(*x, JsonReader::key(path, "world_size"), 1), 1 << 20));
        c.globalRank = rank("global_rank");
        c.tpRank = rank("tp_rank");
        c.ppRank = rank("pp_rank");
        if (const Json* x = JsonReader::find(obj, "graphs")) {
            const std::string p = JsonReader::key(path, "graphs");
            const Json& list = m_r.array(*x, p);
            for (size_t i = 0; i < list.size(); ++i)
                c.graphs.push_back(graphId(list[i], JsonReader::index(p, i)));
        }
        if (const Json* x = JsonReader::find(obj, "existing")) {
            const std::string p = JsonReader::key(path, "existing");
            const Json& e = m_r.object(*x, p);
            m_r.checkKeys(e, p, { "version", "owned", "mode", "unpickle_error", "graph", "date" });
            CacheCompileSpec::Existing ex;
            if (auto y = str(e, p, "version"))
                ex.version = *y;
            if (const Json* y = JsonReader::find(e, "owned"))
                ex.owned = m_r.boolean(*y, JsonReader::key(p, "owned"));
            if (const Json* y = JsonReader::find(e, "mode")) {
                // "600" / "0o644" as ls and Python print it, or the number.
                const std::string mp = JsonReader::key(p, "mode");
                std::string text = y->is_string() ? y->get<std::string>() : std::string();
                if (text.rfind("0o", 0) == 0)
                    text = text.substr(2);
                if (!y->is_string())
                    ex.mode = int(m_r.integerAtLeast(*y, mp, 0)) & 0777;
                else if (text.empty() || text.size() > 4 || text.find_first_not_of("01234567") != std::string::npos)
                    m_r.fail(ErrorCode::InvalidArgument, mp, "expected an octal mode such as \"600\" or \"0o644\"");
                else
                    ex.mode = int(std::stoi(text, nullptr, 8)) & 0777;
            }
            if (auto y = str(e, p, "unpickle_error"))
                ex.unpickleError = *y;
            if (const Json* y = JsonReader::find(e, "graph"))
                ex.graph = graphId(*y, JsonReader::key(p, "graph"));
            if (auto y = str(e, p, "date"))
                ex.date = *y;
            c.existing = ex;
        }
        return c;
    }

    DeviceSpec readDevice(const Json& v, const std::string& path, DeviceSpec d)
    {
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path,
            { "profile", "capacity_bytes", "capacity", "l2_bytes", "l2", "cube_cores", "vector_cores", "copy_gbps",
                "per_device" });
        if (const Json* p = JsonReader::find(obj, "profile")) {
            std::string profile = m_r.string(*p, JsonReader::key(path, "profile"));
            if (profile == "npu")
                d.profile = memory::Profile::Npu;
            else if (profile == "cuda")
                d.profile = memory::Profile::Cuda;
            else
                m_r.fail(ErrorCode::InvalidArgument, JsonReader::key(path, "profile"),
                    "unknown profile '" + profile + "' (expected \"npu\" or \"cuda\")");
        }
        d.capacityBytes = readBytes(obj, path, "capacity_bytes", "capacity", d.capacityBytes);
        d.l2Bytes = readBytes(obj, path, "l2_bytes", "l2", d.l2Bytes);
        if (const Json* c = JsonReader::find(obj, "cube_cores"))
            d.cubeCores
                = int(std::min<int64_t>(m_r.integerAtLeast(*c, JsonReader::key(path, "cube_cores"), 1), 1 << 20));
        if (const Json* c = JsonReader::find(obj, "vector_cores"))
            d.vectorCores
                = int(std::min<int64_t>(m_r.integerAtLeast(*c, JsonReader::key(path, "vector_cores"), 1), 1 << 20));
        if (const Json* c = JsonReader::find(obj, "copy_gbps")) {
            std::string copyPath = JsonReader::key(path, "copy_gbps");
            double gbps = m_r.number(*c, copyPath);
            if (!(gbps > 0) || !std::isfinite(gbps))
                m_r.fail(ErrorCode::InvalidArgument, copyPath, "expected a positive number of GB/s");
            d.copyBytesPerSecond = gbps * 1e9;
        }
        if (const Json* p = JsonReader::find(obj, "per_device")) {
            const std::string perPath = JsonReader::key(path, "per_device");
            for (const auto& [index, spec] : m_r.object(*p, perPath).items()) {
                if (index.rfind('_', 0) == 0 || index == "comment" || index == "note")
                    continue;
                const std::string itemPath = JsonReader::key(perPath, index);
                const bool digits = !index.empty() && index.size() <= 4
                    && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })
                    && (index == "0" || index[0] != '0');
                if (!digits)
                    m_r.fail(ErrorCode::InvalidArgument, itemPath,
                        "expected a device index such as \"1\" (for npu:1), got \"" + index + "\"");
                const Json& item = m_r.object(spec, itemPath);
                m_r.checkKeys(item, itemPath, { "capacity_bytes", "capacity" });
                d.capacityOverride[std::stoi(index)]
                    = readBytes(item, itemPath, "capacity_bytes", "capacity", d.capacityBytes);
            }
        }
        return d;
    }

    uint64_t readBytes(
        const Json& obj, const std::string& path, const char* bytesKey, const char* textKey, uint64_t dflt)
    {
        const Json* bytes = JsonReader::find(obj, bytesKey);
        const Json* text = JsonReader::find(obj, textKey);
        if (bytes && text)
            m_r.fail(ErrorCode::InvalidArgument, JsonReader::key(path, textKey),
                std::string("give either '") + bytesKey + "' or '" + textKey + "', not both");
        if (bytes)
            return uint64_t(m_r.integerAtLeast(*bytes, JsonReader::key(path, bytesKey), 1));
        if (text)
            return detail::byteSize(m_r, *text, JsonReader::key(path, textKey));
        return dflt;
    }

    Binding readBinding(const Scenario& s, const Json& v, const std::string& path, size_t firstIndex)
    {
        Binding b;
        if (v.is_string()) {
            std::string text = v.get<std::string>();
            if (text.empty())
                m_r.fail(ErrorCode::InvalidArgument, path, "expected \"new\", \"default\" or a storage name, got \"\"");
            if (text == "new")
                b.kind = Binding::Kind::New;
            else if (text != "default") {
                b.kind = Binding::Kind::Named;
                b.name = text;
            }
            return b;
        }
        if (!v.is_object())
            m_r.wrongType(v, path, "\"new\", a storage name or {\"output_of\": <call>, \"index\": <output>}");
        m_r.checkKeys(v, path, { "output_of", "index" });
        std::string callPath = JsonReader::key(path, "output_of");
        std::string indexPath = JsonReader::key(path, "index");
        int64_t call = m_r.integerAtLeast(m_r.required(v, path, "output_of"), callPath, 0);
        if (size_t(call) >= firstIndex)
            m_r.fail(ErrorCode::InvalidArgument, callPath,
                "call " + std::to_string(call) + " is not earlier than this call (call " + std::to_string(firstIndex)
                    + ", counting from 0 after repeats are expanded)");
        int64_t index = 0;
        if (const Json* i = JsonReader::find(v, "index"))
            index = m_r.integerAtLeast(*i, indexPath, 0);
        const Call& source = s.calls[size_t(call)];
        const Graph* g = s.graph(source.graph);
        const Node& out = g->nodes[size_t(g->outputNode())];
        const std::vector<Arg>& results = out.args[0].items;
        std::string which = "call " + std::to_string(call) + " (graph '" + source.graph + "')";
        if (size_t(index) >= results.size())
            m_r.fail(ErrorCode::InvalidArgument, JsonReader::find(v, "index") ? indexPath : path,
                which + " returns " + std::to_string(results.size()) + " outputs; there is no output "
                    + std::to_string(index));
        const Arg& result = results[size_t(index)];
        if (result.kind != Arg::Kind::NodeRef || g->nodes[size_t(result.node)].outputs.empty())
            m_r.fail(ErrorCode::InvalidArgument, JsonReader::find(v, "index") ? indexPath : path,
                "output " + std::to_string(index) + " of " + which + " is not a tensor");
        b.kind = Binding::Kind::OutputOf;
        b.call = int(call);
        b.index = int(index);
        return b;
    }

    // What the calls of one graph are checked against, computed once per graph: a scenario may
    // have thousands of calls of a graph with thousands of nodes, most sharing a few shapes.
    struct GraphChecks {
        std::vector<std::string> symbols; ///< sorted
        /// One node per distinct symbolic tensor layout / workspace / SymInt expression.
        std::vector<std::pair<const Node*, const TensorMeta*>> metas;
        std::vector<std::pair<const Node*, const SymExpr*>> exprs;
    };

    const GraphChecks& checksFor(const Graph& g)
    {
        auto it = m_checks.find(g.id);
        if (it != m_checks.end())
            return it->second;
        GraphChecks& c = m_checks[g.id];
        c.symbols = detail::graphSymbols(g);
        std::set<std::string> seen;
        auto exprKey = [](const SymExpr& e) { return e.text() + ","; };
        for (const Node& n : g.nodes) {
            for (const TensorMeta& t : n.outputs) {
                std::string key = "t" + dtypeShortName(t.dtype) + std::to_string(t.storageOffset) + "[";
                for (const SymExpr& e : t.shape)
                    key += exprKey(e);
                key += "][";
                for (const SymExpr& e : t.stride)
                    key += exprKey(e);
                if (t.isSymbolic() ? seen.insert(key).second : false)
                    c.metas.emplace_back(&n, &t);
            }
            for (const SymExpr* e : { &n.workspaceBytes, &n.symbol }) {
                if (!e->constantValue() && seen.insert("e" + e->text()).second)
                    c.exprs.emplace_back(&n, e);
            }
        }
        return c;
    }

    // Symbol values must make every size of the graph computable, so the simulator never meets
    // an evaluation error halfway through a run. Constant sizes were checked when the graph was read.
    void checkSymbols(const Graph& g, const GraphChecks& checks, const Call& c, const std::string& path)
    {
        auto fail = [&](const Node& n, const Error& e) {
            m_r.fail(ErrorCode::InvalidArgument, path, "'" + n.name + "' in graph '" + g.id + "': " + e.message);
        };
        for (const auto& [node, meta] : checks.metas) {
            if (auto bytes = meta->storageBytes(c.symbols); !bytes)
                fail(*node, bytes.error());
        }
        for (const auto& [node, expr] : checks.exprs) {
            if (auto v = expr->eval(c.symbols); !v)
                fail(*node, v.error());
            else if (v.value() < 0 && expr == &node->workspaceBytes)
                fail(*node, makeError(ErrorCode::InvalidArgument, "workspace_bytes is negative"));
        }
    }

public:
    /// A call list beside graphs that came from elsewhere (scenario/trace_scenario.h): `$` is an
    /// array of calls or an object with "calls"; inputs may be named by an alias of their graph.
    void readCallList(
        Scenario& s, const Json& root, const std::map<std::string, std::map<std::string, std::string>>& aliases)
    {
        const Json* list = &root;
        std::string at = "$";
        if (root.is_object()) {
            m_r.checkKeys(root, "$", { "calls" });
            list = &m_r.required(root, "$", "calls");
            at = "$.calls";
        }
        const Json& calls = m_r.array(*list, at);
        if (calls.empty())
            m_r.fail(ErrorCode::InvalidArgument, at, "the call list is empty");
        s.calls.clear();
        for (size_t i = 0; i < calls.size(); ++i) {
            const std::string path = JsonReader::index(at, i);
            Json call = calls[i];
            const Json* graph = call.is_object() ? JsonReader::find(call, "graph") : nullptr;
            auto known = graph && graph->is_string() ? aliases.find(graph->get<std::string>()) : aliases.end();
            if (known != aliases.end() && call.contains("inputs") && call["inputs"].is_object()) {
                Json renamed = Json::object();
                for (const auto& [name, value] : call["inputs"].items()) {
                    auto alias = known->second.find(name);
                    const std::string to = alias == known->second.end() ? name : alias->second;
                    if (renamed.contains(to))
                        m_r.fail(ErrorCode::InvalidArgument, JsonReader::key(JsonReader::key(path, "inputs"), name),
                            "input '" + to + "' is bound twice (by its name and by an alias)");
                    renamed[to] = value;
                }
                call["inputs"] = std::move(renamed);
            }
            readCall(s, call, path);
        }
    }

private:
    void readCall(Scenario& s, const Json& v, const std::string& path)
    {
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path,
            { "graph", "symbols", "inputs", "keep_outputs", "core_limit", "repeat", "mark_step_begin", "reads" });
        Call c;
        c.sourcePath = path;
        std::string graphPath = JsonReader::key(path, "graph");
        c.graph = m_r.string(m_r.required(obj, path, "graph"), graphPath);
        const Graph* g = s.graph(c.graph);
        if (!g) {
            std::string ids;
            for (const Graph& known : s.graphs)
                ids += (ids.empty() ? "" : ", ") + known.id;
            m_r.fail(ErrorCode::InvalidArgument, graphPath,
                "unknown graph '" + c.graph + "' (" + (ids.empty() ? "the scenario has no graphs" : "graphs: " + ids)
                    + ")");
        }

        const GraphChecks& checks = checksFor(*g);
        const std::vector<std::string>& needed = checks.symbols;
        std::string symbolsPath = JsonReader::key(path, "symbols");
        const Json* symbols = JsonReader::find(obj, "symbols");
        if (symbols) {
            for (const auto& [name, value] : m_r.object(*symbols, symbolsPath).items()) {
                std::string symPath = JsonReader::key(symbolsPath, name);
                if (!std::binary_search(needed.begin(), needed.end(), name)) {
                    std::string list;
                    for (const auto& n : needed)
                        list += (list.empty() ? "" : ", ") + n;
                    m_r.fail(ErrorCode::InvalidArgument, symPath,
                        "graph '" + c.graph + "' has no symbol '" + name + "' ("
                            + (list.empty() ? "it is static" : "its symbols: " + list) + ")");
                }
                c.symbols[name] = m_r.integerAtLeast(value, symPath, 0);
            }
        }
        for (const auto& name : needed) {
            if (!c.symbols.count(name))
                m_r.fail(ErrorCode::InvalidArgument, symbols ? symbolsPath : path,
                    "no value for symbol '" + name + "', which graph '" + c.graph + "' uses");
        }
        checkSymbols(*g, checks, c, symbols ? symbolsPath : path);

        size_t firstIndex = s.calls.size();
        if (const Json* inputs = JsonReader::find(obj, "inputs")) {
            std::string inputsPath = JsonReader::key(path, "inputs");
            for (const auto& [name, value] : m_r.object(*inputs, inputsPath).items()) {
                std::string inputPath = JsonReader::key(inputsPath, name);
                int idx = g->find(name);
                if (idx < 0 || g->nodes[size_t(idx)].op != NodeOp::Placeholder)
                    m_r.fail(
                        ErrorCode::InvalidArgument, inputPath, "graph '" + c.graph + "' has no input '" + name + "'");
                if (g->nodes[size_t(idx)].inputKind == InputKind::SymInt)
                    m_r.fail(ErrorCode::InvalidArgument, inputPath,
                        "'" + name + "' is a symint input; give its symbol's value in \"symbols\"");
                c.inputs[name] = readBinding(s, value, inputPath, firstIndex);
            }
        }
        if (const Json* keep = JsonReader::find(obj, "keep_outputs")) {
            std::string keepPath = JsonReader::key(path, "keep_outputs");
            if (keep->is_string() && keep->get<std::string>() == "all")
                c.keepOutputs = -1;
            else if (keep->is_number_integer())
                c.keepOutputs = int(std::min<int64_t>(m_r.integerAtLeast(*keep, keepPath, 0), INT32_MAX));
            else
                m_r.wrongType(*keep, keepPath, "an integer >= 0 or \"all\"");
        }
        if (const Json* mark = JsonReader::find(obj, "mark_step_begin"))
            c.markStepBegin = m_r.boolean(*mark, JsonReader::key(path, "mark_step_begin"));
        if (const Json* reads = JsonReader::find(obj, "reads")) {
            const std::string readsPath = JsonReader::key(path, "reads");
            const Json& list = m_r.array(*reads, readsPath);
            for (size_t i = 0; i < list.size(); ++i) {
                const std::string at = JsonReader::index(readsPath, i);
                const int64_t call = m_r.integerAtLeast(list[i], at, 0);
                if (uint64_t(call) > firstIndex)
                    m_r.fail(ErrorCode::InvalidArgument, at,
                        "call " + std::to_string(call) + " has not run yet (this is call " + std::to_string(firstIndex)
                            + "; a call reads its own or earlier outputs)");
                c.reads.push_back(int(call));
            }
        }
        if (const Json* limit = JsonReader::find(obj, "core_limit"))
            c.coreLimit = readCoreLimit(s.device, *limit, JsonReader::key(path, "core_limit"));
        int64_t repeat = 1;
        std::string repeatPath = JsonReader::key(path, "repeat");
        const Json* r = JsonReader::find(obj, "repeat");
        if (r)
            repeat = m_r.integerAtLeast(*r, repeatPath, 1);
        if (uint64_t(repeat) > kMaxCalls - s.calls.size())
            m_r.fail(ErrorCode::InvalidArgument, r ? repeatPath : path,
                "too many calls: a scenario may expand to at most " + std::to_string(kMaxCalls) + " calls");
        if (const Json* note = JsonReader::find(obj, "note"))
            c.note = m_r.string(*note, JsonReader::key(path, "note"));
        for (int64_t k = 1; k < repeat; ++k)
            s.calls.push_back(c);
        s.calls.push_back(std::move(c));
    }

    CoreLimit readCoreLimit(const DeviceSpec& device, const Json& v, const std::string& path)
    {
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path, { "cube", "vector" });
        CoreLimit limit;
        std::string cubePath = JsonReader::key(path, "cube");
        std::string vectorPath = JsonReader::key(path, "vector");
        int64_t cube = m_r.integerAtLeast(m_r.required(obj, path, "cube"), cubePath, 0);
        int64_t vector = m_r.integerAtLeast(m_r.required(obj, path, "vector"), vectorPath, 0);
        if (cube > device.cubeCores)
            m_r.fail(ErrorCode::InvalidArgument, cubePath,
                "the device has " + std::to_string(device.cubeCores) + " cube cores, got " + std::to_string(cube));
        if (vector > device.vectorCores)
            m_r.fail(ErrorCode::InvalidArgument, vectorPath,
                "the device has " + std::to_string(device.vectorCores) + " vector cores, got "
                    + std::to_string(vector));
        limit.cube = int(cube);
        limit.vector = int(vector);
        return limit;
    }

    JsonReader m_r;
    std::map<std::string, GraphChecks> m_checks; ///< by graph id
};

} // namespace

namespace {

/// Parses `text` as JSON and hands it to `read`, turning the reader's failures (and anything else
/// thrown) into an error that names `path` and says what was being read.
template <class T, class Read>
Result<T> readJson(const std::string& text, const std::string& path, const char* what, Read read)
{
    try {
        auto json = parseJson(text, path);
        if (!json)
            return json.error();
        return read(json.value());
    } catch (const Failure& f) {
        return f.error;
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::Internal, std::string("out of memory while reading the ") + what, path);
    } catch (const std::exception& e) {
        return makeError(
            ErrorCode::Internal, std::string("unexpected error while reading the ") + what + ": " + e.what(), path);
    }
}

} // namespace

Result<Scenario> parseScenario(const std::string& text, const std::string& path)
{
    return readJson<Scenario>(text, path, "scenario", [&](const Json& json) -> Result<Scenario> {
        Scenario s = ScenarioReader(path).read(json);
        s.path = path;
        return s;
    });
}

Result<void> readCallList(
    Scenario& s, const std::string& path, const std::map<std::string, std::map<std::string, std::string>>& aliases)
{
    auto text = readTextFile(path, kMaxFileBytes, "call lists");
    if (!text)
        return text.error();
    return readJson<void>(*text, path, "call list", [&](const Json& json) -> Result<void> {
        ScenarioReader(path).readCallList(s, json, aliases);
        return {};
    });
}

Result<Scenario> readScenarioFile(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        return makeError(ErrorCode::Io,
            "cannot open scenario file: " + (ec ? ec.message() : std::string(std::strerror(ENOENT))), path);
    if (fs::is_directory(st))
        return makeError(ErrorCode::Io, "cannot read scenario file: it is a directory", path);
    if (!fs::is_regular_file(st))
        return notReadError(path, pathKindOf(path)); // a FIFO, socket or device, by name
    uint64_t size = fs::file_size(path, ec);
    if (ec)
        return makeError(ErrorCode::Io, "cannot read scenario file: " + ec.message(), path);
    if (size > kMaxFileBytes)
        return makeError(ErrorCode::InvalidArgument,
            "scenario file is " + std::to_string(size >> 20) + " MiB; the limit is "
                + std::to_string(kMaxFileBytes >> 20) + " MiB",
            path);
    auto in = InputFile::open(path); // never blocks: a path swapped for a FIFO is refused (engine/core/file_io.h)
    if (!in)
        return in.error();
    std::string text;
    try {
        text.resize(size_t(size));
    } catch (const std::exception&) {
        return makeError(ErrorCode::Io, "cannot read scenario file: out of memory", path);
    }
    const long long got = in->read(text.data(), text.size());
    if (got < 0)
        return makeError(ErrorCode::Io, "cannot read scenario file: read error", path);
    text.resize(size_t(got));
    return parseScenario(text, path);
}

} // namespace engine::scenario
