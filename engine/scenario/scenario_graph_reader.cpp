// Reads the `graphs` section of a scenario: placeholders, nodes, outputs, tensor metadata.
#include "engine/readers/fx_reader.h"
#include "engine/scenario/scenario_json.h"

#include <map>
#include <set>

namespace engine::scenario::detail {

namespace {

const char* const kDTypeHint = "f32, f16, bf16, f64, i64, i32, i16, i8, u8, b8, c64, c128, f8e4m3fn, f8e5m2 "
                               "or a torch name such as torch.float32";

struct KindName {
    const char* name;
    InputKind kind;
};
const KindName kInputKinds[] = {
    { "parameter", InputKind::Parameter },
    { "buffer", InputKind::Buffer },
    { "static_address", InputKind::StaticAddress },
    { "user_input", InputKind::UserInput },
    { "symint", InputKind::SymInt },
};

class GraphReader {
public:
    GraphReader(const JsonReader& r, const std::string& path)
        : m_r(r)
        , m_path(path)
    {
    }

    Graph read(const Json& v, std::vector<std::string>& diagnostics)
    {
        const Json& obj = m_r.object(v, m_path);
        if (JsonReader::find(obj, "file"))
            return readFile(obj, diagnostics);
        m_r.checkKeys(obj, m_path, { "id", "dynamic", "inputs", "nodes", "outputs" });
        m_graph.id = m_r.nonEmptyString(m_r.required(obj, m_path, "id"), JsonReader::key(m_path, "id"));
        if (const Json* c = JsonReader::find(obj, "comment"))
            m_graph.comment = m_r.string(*c, JsonReader::key(m_path, "comment"));
        if (const Json* d = JsonReader::find(obj, "dynamic"))
            m_graph.dynamic = m_r.boolean(*d, JsonReader::key(m_path, "dynamic"));

        const Json* inputs = JsonReader::find(obj, "inputs");
        const Json* nodes = JsonReader::find(obj, "nodes");
        std::string inputsPath = JsonReader::key(m_path, "inputs");
        std::string nodesPath = JsonReader::key(m_path, "nodes");
        if (inputs)
            m_r.array(*inputs, inputsPath);
        if (nodes)
            m_r.array(*nodes, nodesPath);
        collectLaterNames(nodes);

        if (inputs) {
            for (size_t i = 0; i < inputs->size(); ++i)
                readInput((*inputs)[i], JsonReader::index(inputsPath, i));
        }
        if (nodes) {
            for (size_t i = 0; i < nodes->size(); ++i)
                readNode((*nodes)[i], JsonReader::index(nodesPath, i));
        }
        readOutputs(m_r.required(obj, m_path, "outputs"), JsonReader::key(m_path, "outputs"));

        auto done = m_graph.finalize();
        if (!done)
            m_r.fail(done.error().code, m_path, done.error().message);
        return std::move(m_graph);
    }

private:
    // Names of nodes (by position), so that a reference to a later node gets a precise message.
    void collectLaterNames(const Json* nodes)
    {
        if (!nodes)
            return;
        for (const auto& n : *nodes) {
            if (n.is_object()) {
                auto it = n.find("name");
                if (it != n.end() && it->is_string())
                    m_later.insert(it->get<std::string>());
            }
        }
    }

    void define(const std::string& name, const std::string& path)
    {
        if (name == "output")
            m_r.fail(ErrorCode::InvalidArgument, path, "the name 'output' is reserved for the graph's output node");
        auto it = m_paths.find(name);
        if (it != m_paths.end())
            m_r.fail(ErrorCode::InvalidArgument, path, "name '" + name + "' is already used at " + it->second);
        m_paths.emplace(name, path);
    }

    TensorMeta readTensor(const Json& obj, const std::string& path)
    {
        TensorMeta meta;
        std::string shapePath = JsonReader::key(path, "shape");
        const Json& shape = m_r.array(m_r.required(obj, path, "shape"), shapePath);
        for (size_t i = 0; i < shape.size(); ++i)
            meta.shape.push_back(m_r.size(shape[i], JsonReader::index(shapePath, i), m_graph.dynamic));
        if (const Json* stride = JsonReader::find(obj, "stride")) {
            std::string stridePath = JsonReader::key(path, "stride");
            m_r.array(*stride, stridePath);
            if (stride->size() != shape.size())
                m_r.fail(ErrorCode::InvalidArgument, stridePath,
                    "stride has " + std::to_string(stride->size()) + " entries but shape has "
                        + std::to_string(shape.size()));
            for (size_t i = 0; i < stride->size(); ++i)
                meta.stride.push_back(m_r.size((*stride)[i], JsonReader::index(stridePath, i), m_graph.dynamic));
        }
        std::string dtypePath = JsonReader::key(path, "dtype");
        std::string dtype = m_r.string(m_r.required(obj, path, "dtype"), dtypePath);
        meta.dtype = parseDType(dtype);
        if (meta.dtype == DType::Unknown)
            m_r.fail(ErrorCode::ParseError, dtypePath, "unknown dtype '" + dtype + "' (expected " + kDTypeHint + ")");
        if (const Json* d = JsonReader::find(obj, "device"))
            meta.device = m_r.nonEmptyString(*d, JsonReader::key(path, "device"));
        if (const Json* o = JsonReader::find(obj, "storage_offset"))
            meta.storageOffset = m_r.integerAtLeast(*o, JsonReader::key(path, "storage_offset"), 0);
        // Symbolic layouts are checked for each call's symbol values; constant ones once, here.
        if (!meta.isSymbolic()) {
            if (auto bytes = meta.storageBytes({}); !bytes)
                m_r.fail(ErrorCode::InvalidArgument, path, bytes.error().message);
        }
        return meta;
    }

    /// A graph given by an FX file (readable code or `print(gm.graph)`), resolved against the
    /// scenario's folder; "inputs" is then an object of per-input overrides {kind, storage}, since
    /// AOT graphs do not say which inputs are parameters.
    Graph readFile(const Json& obj, std::vector<std::string>& diagnostics)
    {
        m_r.checkKeys(obj, m_path, { "id", "file", "graph", "dynamic", "inputs" });
        const std::string filePath = JsonReader::key(m_path, "file");
        std::string file = m_r.nonEmptyString(*JsonReader::find(obj, "file"), filePath);
        const auto slash = m_r.file().rfind('/');
        if (file[0] != '/' && slash != std::string::npos)
            file = m_r.file().substr(0, slash + 1) + file;
        auto read = readers::readFxFile(file);
        if (!read)
            m_r.fail(read.error().code, filePath, read.error().toString());
        for (const auto& d : read->diagnostics)
            diagnostics.push_back(d.toString());
        size_t which = 0;
        if (const Json* sub = JsonReader::find(obj, "graph")) {
            const std::string subPath = JsonReader::key(m_path, "graph");
            const std::string wanted = m_r.nonEmptyString(*sub, subPath);
            which = read->graphs.size();
            for (size_t i = 0; i < read->graphs.size(); ++i)
                if (read->graphs[i].id == wanted)
                    which = i;
            if (which == read->graphs.size())
                m_r.fail(ErrorCode::NotFound, subPath, "'" + file + "' has no graph '" + wanted + "'");
        }
        if (read->graphs.empty())
            m_r.fail(ErrorCode::InvalidArgument, filePath, "'" + file + "' holds no graph");
        Graph g = std::move(read->graphs[which]);
        g.id = m_r.nonEmptyString(m_r.required(obj, m_path, "id"), JsonReader::key(m_path, "id"));
        if (const Json* d = JsonReader::find(obj, "dynamic"))
            g.dynamic = m_r.boolean(*d, JsonReader::key(m_path, "dynamic"));
        if (const Json* inputs = JsonReader::find(obj, "inputs")) {
            const std::string inputsPath = JsonReader::key(m_path, "inputs");
            for (const auto& [name, value] : m_r.object(*inputs, inputsPath).items()) {
                const std::string path = JsonReader::key(inputsPath, name);
                const int idx = g.find(name);
                if (idx < 0 || g.nodes[size_t(idx)].op != NodeOp::Placeholder)
                    m_r.fail(ErrorCode::NotFound, path, "'" + file + "' has no input '" + name + "'");
                Node& n = g.nodes[size_t(idx)];
                const Json& o = m_r.object(value, path);
                m_r.checkKeys(o, path, { "kind", "storage" });
                if (const Json* k = JsonReader::find(o, "kind")) {
                    const std::string kindPath = JsonReader::key(path, "kind");
                    const std::string kind = m_r.string(*k, kindPath);
                    const KindName* known = nullptr;
                    for (const auto& kn : kInputKinds)
                        if (kind == kn.name)
                            known = &kn;
                    if (!known || known->kind == InputKind::SymInt || n.inputKind == InputKind::SymInt)
                        m_r.fail(ErrorCode::InvalidArgument, kindPath,
                            "a tensor input's kind is parameter, buffer, static_address or user_input (got '" + kind
                                + "' for a " + inputKindName(n.inputKind) + " input)");
                    n.inputKind = known->kind;
                    n.inputKindFrom = "the scenario (" + kindPath + ")";
                }
                if (const Json* st = JsonReader::find(o, "storage"))
                    n.storage = m_r.nonEmptyString(*st, JsonReader::key(path, "storage"));
            }
        }
        return g;
    }

    void readInput(const Json& v, const std::string& path)
    {
        const Json& obj = m_r.object(v, path);
        Node n;
        n.op = NodeOp::Placeholder;
        n.name = m_r.nonEmptyString(m_r.required(obj, path, "name"), JsonReader::key(path, "name"));
        std::string kindPath = JsonReader::key(path, "kind");
        std::string kind = m_r.string(m_r.required(obj, path, "kind"), kindPath);
        bool known = false;
        for (const auto& k : kInputKinds) {
            if (kind == k.name) {
                n.inputKind = k.kind;
                n.inputKindFrom = "the scenario (" + kindPath + ")";
                known = true;
            }
        }
        if (!known)
            m_r.fail(ErrorCode::InvalidArgument, kindPath,
                "unknown input kind '" + kind + "' (expected parameter, buffer, static_address, user_input or symint)");
        if (n.inputKind == InputKind::SymInt) {
            m_r.checkKeys(obj, path, { "name", "kind", "symbol", "provenance" });
            std::string symbolPath = JsonReader::key(path, "symbol");
            const Json& symbol = m_r.required(obj, path, "symbol");
            if (!symbol.is_string())
                m_r.wrongType(symbol, symbolPath, "a string (a symbol such as \"s0\")");
            n.symbol = m_r.size(symbol, symbolPath, true);
        } else {
            m_r.checkKeys(obj, path,
                { "name", "kind", "shape", "stride", "dtype", "device", "storage_offset", "storage", "provenance" });
            n.outputs.push_back(readTensor(obj, path));
            if (const Json* st = JsonReader::find(obj, "storage"))
                n.storage = m_r.nonEmptyString(*st, JsonReader::key(path, "storage"));
        }
        if (const Json* p = JsonReader::find(obj, "provenance"))
            n.provenance = m_r.string(*p, JsonReader::key(path, "provenance"));
        define(n.name, path);
        m_defined.insert(n.name);
        m_graph.nodes.push_back(std::move(n));
    }

    Arg readArg(const Json& v, const std::string& path)
    {
        Arg a;
        switch (v.type()) {
        case Json::value_t::null:
            return a;
        case Json::value_t::boolean:
            a.kind = Arg::Kind::Bool;
            a.b = v.get<bool>();
            return a;
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
            return Arg::integer(m_r.integer(v, path));
        case Json::value_t::number_float:
            a.kind = Arg::Kind::Float;
            a.f = v.get<double>();
            return a;
        case Json::value_t::string:
            checkReference(v.get<std::string>(), path);
            return Arg::ref(v.get<std::string>());
        case Json::value_t::array: {
            std::vector<Arg> items;
            for (size_t i = 0; i < v.size(); ++i)
                items.push_back(readArg(v[i], JsonReader::index(path, i)));
            return Arg::list(std::move(items));
        }
        case Json::value_t::object: {
            auto it = v.find("str");
            if (v.size() != 1 || it == v.end())
                m_r.fail(ErrorCode::ParseError, path,
                    "expected {\"str\": \"...\"} (a string constant), got an object with other keys");
            a.kind = Arg::Kind::Str;
            a.s = m_r.string(*it, JsonReader::key(path, "str"));
            return a;
        }
        default:
            m_r.wrongType(v, path, "an argument");
        }
    }

    void checkReference(const std::string& name, const std::string& path)
    {
        if (m_defined.count(name))
            return;
        if (name == m_current)
            m_r.fail(ErrorCode::InvalidArgument, path, "node '" + m_current + "' refers to itself");
        if (m_later.count(name))
            m_r.fail(ErrorCode::InvalidArgument, path,
                "'" + name + "' is defined after node '" + m_current
                    + "'; arguments may only refer to inputs and earlier nodes");
        m_r.fail(ErrorCode::InvalidArgument, path,
            "unknown node or input '" + name + "' (a string argument names a node; write {\"str\": \"" + name
                + "\"} for a string constant)");
    }

    void readNode(const Json& v, const std::string& path)
    {
        const Json& obj = m_r.object(v, path);
        m_r.checkKeys(obj, path, { "name", "target", "op", "args", "kwargs", "meta", "workspace_bytes", "provenance" });
        Node n;
        n.name = m_r.nonEmptyString(m_r.required(obj, path, "name"), JsonReader::key(path, "name"));
        m_current = n.name;
        if (const Json* op = JsonReader::find(obj, "op")) {
            std::string opPath = JsonReader::key(path, "op");
            std::string text = m_r.string(*op, opPath);
            if (text == "call_function")
                n.op = NodeOp::CallFunction;
            else if (text == "call_method")
                n.op = NodeOp::CallMethod;
            else if (text == "get_attr")
                n.op = NodeOp::GetAttr;
            else if (text == "placeholder")
                m_r.fail(ErrorCode::InvalidArgument, opPath, "placeholders are listed in the graph's \"inputs\"");
            else if (text == "output")
                m_r.fail(ErrorCode::InvalidArgument, opPath, "the output node is built from the graph's \"outputs\"");
            else
                m_r.fail(ErrorCode::InvalidArgument, opPath,
                    "unknown op '" + text + "' (expected call_function, call_method or get_attr)");
        }
        n.target = m_r.nonEmptyString(m_r.required(obj, path, "target"), JsonReader::key(path, "target"));
        if (const Json* args = JsonReader::find(obj, "args")) {
            std::string argsPath = JsonReader::key(path, "args");
            m_r.array(*args, argsPath);
            for (size_t i = 0; i < args->size(); ++i)
                n.args.push_back(readArg((*args)[i], JsonReader::index(argsPath, i)));
        }
        if (const Json* kwargs = JsonReader::find(obj, "kwargs")) {
            std::string kwPath = JsonReader::key(path, "kwargs");
            for (const auto& [k, value] : m_r.object(*kwargs, kwPath).items())
                n.kwargs.emplace_back(k, readArg(value, JsonReader::key(kwPath, k)));
        }
        if (const Json* meta = JsonReader::find(obj, "meta"); meta && !meta->is_null()) {
            std::string metaPath = JsonReader::key(path, "meta");
            if (meta->is_array()) {
                for (size_t i = 0; i < meta->size(); ++i) {
                    std::string itemPath = JsonReader::index(metaPath, i);
                    const Json& item = m_r.object((*meta)[i], itemPath);
                    m_r.checkKeys(item, itemPath, { "shape", "stride", "dtype", "device", "storage_offset" });
                    n.outputs.push_back(readTensor(item, itemPath));
                }
            } else if (meta->is_object()) {
                m_r.checkKeys(*meta, metaPath, { "shape", "stride", "dtype", "device", "storage_offset" });
                n.outputs.push_back(readTensor(*meta, metaPath));
            } else {
                m_r.wrongType(*meta, metaPath, "an object, a list of objects or null");
            }
        }
        if (const Json* ws = JsonReader::find(obj, "workspace_bytes"))
            n.workspaceBytes = m_r.size(*ws, JsonReader::key(path, "workspace_bytes"), true);
        if (const Json* p = JsonReader::find(obj, "provenance"))
            n.provenance = m_r.string(*p, JsonReader::key(path, "provenance"));
        define(n.name, path);
        m_defined.insert(n.name);
        m_graph.nodes.push_back(std::move(n));
    }

    void readOutputs(const Json& v, const std::string& path)
    {
        m_r.array(v, path);
        m_current = "output";
        std::vector<Arg> items;
        for (size_t i = 0; i < v.size(); ++i) {
            std::string itemPath = JsonReader::index(path, i);
            if (v[i].is_null()) {
                items.emplace_back();
                continue;
            }
            std::string name = m_r.string(v[i], itemPath);
            checkReference(name, itemPath);
            items.push_back(Arg::ref(name));
        }
        Node out;
        out.op = NodeOp::Output;
        out.name = "output";
        out.args.push_back(Arg::list(std::move(items)));
        m_graph.nodes.push_back(std::move(out));
    }

    const JsonReader& m_r;
    std::string m_path;
    Graph m_graph;
    std::map<std::string, std::string> m_paths; ///< name -> JSON path where it is defined
    std::set<std::string> m_defined;
    std::set<std::string> m_later;
    std::string m_current;
};

} // namespace

std::vector<Graph> readGraphs(
    const JsonReader& r, const Json& graphs, const std::string& path, std::vector<std::string>& diagnostics)
{
    std::vector<Graph> out;
    std::map<std::string, std::string> ids;
    for (size_t i = 0; i < graphs.size(); ++i) {
        std::string graphPath = JsonReader::index(path, i);
        GraphReader reader(r, graphPath);
        Graph g = reader.read(graphs[i], diagnostics);
        auto [it, fresh] = ids.emplace(g.id, graphPath);
        if (!fresh)
            r.fail(ErrorCode::InvalidArgument, JsonReader::key(graphPath, "id"),
                "graph id '" + g.id + "' is already used by " + it->second);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<std::string> graphSymbols(const Graph& g)
{
    std::set<std::string> all;
    auto add = [&all](const SymExpr& e) {
        for (auto& s : e.symbols())
            all.insert(s);
    };
    for (const Node& n : g.nodes) {
        for (const TensorMeta& t : n.outputs) {
            for (const SymExpr& e : t.shape)
                add(e);
            for (const SymExpr& e : t.stride)
                add(e);
        }
        add(n.symbol);
        add(n.workspaceBytes);
    }
    return { all.begin(), all.end() };
}

} // namespace engine::scenario::detail
