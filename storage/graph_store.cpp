// Writing graphs (graphs, nodes, node_args, node_users, tensors) and listing them. This is the
// import's hot path: the statements are prepared once per graph and rebound per row, and the texts
// of a row are built in buffers reused from row to row. Reading back is graph_read.cpp.
#include "storage/graph_store.h"

#include "engine/core/md5.h"
#include "engine/core/py_value.h"
#include "engine/core/text_codec.h"
#include "storage/store_util.h"

#include <charconv>
#include <cmath>

namespace storage {

using namespace detail;
using engine::Arg;
using engine::Graph;
using engine::Node;
using engine::NodeOp;
using engine::TensorMeta;

namespace {

/// Texts longer than this (a node's target, an argument's value) are stored once in `texts`
/// (schema 6) and cut in their row: every pass's result graph repeats its graph's targets.
constexpr size_t kLongText = 4096;

/// The id in `texts` of `text`, inserted when it is new: one row per distinct long text, found by
/// its md5 and then compared byte for byte, so that two texts with one md5 are an error, never one
/// read back as the other.
Result<int64_t> storeLongText(Database& db, std::string_view text)
{
    const std::string hash = engine::md5Hex(text);
    auto find = db.prepare("SELECT id, text FROM texts WHERE hash = ?");
    if (!find)
        return find.error();
    find->bind(1, std::string_view(hash));
    auto row = find->step();
    if (!row)
        return row.error();
    if (*row) {
        if (find->columnText(1) != text)
            return badRow(db, "two different long texts have the md5 " + hash);
        return find->columnInt(0);
    }
    auto insert = db.prepare("INSERT INTO texts(hash, size, text) VALUES (?, ?, ?)");
    if (!insert)
        return insert.error();
    insert->bind(1, std::string_view(hash)).bind(2, int64_t(text.size())).bind(3, text);
    if (auto r = insert->run(); !r)
        return r.error();
    return db.lastInsertRowId();
}

/// Binds `text` at `column`, or, when it is long, its cut text there and its `texts` id at
/// `textColumn` (NULL otherwise).
Result<void> bindText(Database& db, Statement& s, int column, int textColumn, std::string_view text)
{
    if (text.size() <= kLongText) {
        s.bind(column, text).bindNull(textColumn);
        return {};
    }
    auto id = storeLongText(db, text);
    if (!id)
        return id.error();
    s.bind(column, std::string_view(engine::cutText(text))).bind(textColumn, *id);
    return {};
}

const char* argKindName(Arg::Kind k)
{
    switch (k) {
    case Arg::Kind::None:
        return "none";
    case Arg::Kind::NodeRef:
        return "ref";
    case Arg::Kind::Int:
        return "int";
    case Arg::Kind::Float:
        return "float";
    case Arg::Kind::Bool:
        return "bool";
    case Arg::Kind::Str:
        return "str";
    case Arg::Kind::List:
        return "list";
    }
    return "none";
}

void appendInt(std::string& out, int64_t v)
{
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// A list argument as JSON (graph_read.cpp parses it): null, true/false, integers, finite floats as
// numbers in Python's repr (always with '.' or an exponent, so they read back as floats), other
// floats as {"float": "inf"}, strings, node references as {"ref": name, "idx": node index}, lists.
void appendArgJson(std::string& out, const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::None:
        out += "null";
        return;
    case Arg::Kind::Bool:
        out += a.b ? "true" : "false";
        return;
    case Arg::Kind::Int:
        appendInt(out, a.i);
        return;
    case Arg::Kind::Float:
        if (std::isfinite(a.f)) {
            out += engine::pyFloatRepr(a.f);
        } else {
            out += "{\"float\":\"";
            out += engine::pyFloatRepr(a.f);
            out += "\"}";
        }
        return;
    case Arg::Kind::Str:
        appendJsonString(out, a.s);
        return;
    case Arg::Kind::NodeRef:
        out += "{\"ref\":";
        appendJsonString(out, a.s);
        out += ",\"idx\":";
        appendInt(out, a.node);
        out += '}';
        return;
    case Arg::Kind::List:
        out += '[';
        for (size_t i = 0; i < a.items.size(); ++i) {
            if (i)
                out += ',';
            appendArgJson(out, a.items[i]);
        }
        out += ']';
        return;
    }
}

void appendSymArray(std::string& out, const std::vector<engine::SymExpr>& dims)
{
    out += '[';
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i)
            out += ',';
        appendJsonString(out, dims[i].text());
    }
    out += ']';
}

bool isZero(const engine::SymExpr& e)
{
    const auto v = e.constantValue();
    return v && *v == 0;
}

/// The per-row statements of one writeGraph call and the buffers their texts are built in.
class GraphWriter {
public:
    GraphWriter(WriteContext& ctx, int64_t graphId, Statement node, Statement arg, Statement user, Statement tensor)
        : m_ctx(ctx)
        , m_graphId(graphId)
        , m_node(std::move(node))
        , m_arg(std::move(arg))
        , m_user(std::move(user))
        , m_tensor(std::move(tensor))
    {
    }

    Result<void> write(const Graph& g)
    {
        for (size_t i = 0; i < g.nodes.size(); ++i)
            if (auto r = writeNode(int64_t(i), g.nodes[i]); !r)
                return r;
        return {};
    }

private:
    Result<void> writeNode(int64_t idx, const Node& n)
    {
        const bool placeholder = n.op == NodeOp::Placeholder;
        m_node.bind(1, m_graphId).bind(2, idx).bind(3, std::string_view(n.name));
        m_node.bind(4, std::string_view(engine::nodeOpName(n.op)));
        if (auto r = bindText(m_ctx.db(), m_node, 5, 13, n.target); !r)
            return r;
        if (placeholder)
            m_node.bind(6, std::string_view(engine::inputKindName(n.inputKind)));
        else
            m_node.bindNull(6);
        if ((placeholder && n.inputKind == engine::InputKind::SymInt) || !isZero(n.symbol))
            m_node.bind(7, std::string_view(n.symbol.text()));
        else
            m_node.bindNull(7);
        if (!isZero(n.workspaceBytes))
            m_node.bind(8, std::string_view(n.workspaceBytes.text()));
        else
            m_node.bindNull(8);
        m_node.bind(9, std::string_view(n.provenance)).bind(10, std::string_view(n.storage));
        m_node.bind(12, std::string_view(n.inputKindFrom));
        if (!n.freedAfter.empty()) {
            m_text.clear();
            m_text += '[';
            for (size_t i = 0; i < n.freedAfter.size(); ++i) {
                if (i)
                    m_text += ',';
                appendJsonString(m_text, n.freedAfter[i]);
            }
            m_text += ']';
            m_node.bind(11, std::string_view(m_text));
        } else {
            m_node.bindNull(11);
        }
        if (auto r = insertRow(m_ctx, m_node); !r)
            return r;

        int64_t pos = 0;
        for (const Arg& a : n.args)
            if (auto r = writeArg(idx, pos++, nullptr, a); !r)
                return r;
        for (const auto& [keyword, a] : n.kwargs)
            if (auto r = writeArg(idx, pos++, &keyword, a); !r)
                return r;
        for (int user : n.users) {
            m_user.bind(1, m_graphId).bind(2, idx).bind(3, int64_t(user));
            if (auto r = insertRow(m_ctx, m_user); !r)
                return r;
        }
        for (size_t k = 0; k < n.outputs.size(); ++k)
            if (auto r = writeTensor(idx, int64_t(k), n.outputs[k]); !r)
                return r;
        return {};
    }

    Result<void> writeArg(int64_t idx, int64_t pos, const std::string* keyword, const Arg& a)
    {
        m_arg.bind(1, m_graphId).bind(2, idx).bind(3, pos);
        if (keyword)
            m_arg.bind(4, std::string_view(*keyword));
        else
            m_arg.bindNull(4);
        m_arg.bind(5, std::string_view(argKindName(a.kind)));
        if (a.kind == Arg::Kind::NodeRef && a.node >= 0)
            m_arg.bind(6, int64_t(a.node));
        else
            m_arg.bindNull(6);
        m_text.clear();
        switch (a.kind) {
        case Arg::Kind::None:
            m_arg.bindNull(7).bindNull(8);
            return insertRow(m_ctx, m_arg);
        case Arg::Kind::NodeRef:
        case Arg::Kind::Str:
            if (auto r = bindText(m_ctx.db(), m_arg, 7, 8, a.s); !r)
                return r;
            return insertRow(m_ctx, m_arg);
        case Arg::Kind::Int:
            appendInt(m_text, a.i);
            break;
        case Arg::Kind::Float:
            m_text = engine::pyFloatRepr(a.f);
            break;
        case Arg::Kind::Bool:
            m_text = a.b ? "True" : "False";
            break;
        case Arg::Kind::List:
            appendArgJson(m_text, a);
            break;
        }
        if (auto r = bindText(m_ctx.db(), m_arg, 7, 8, m_text); !r)
            return r;
        return insertRow(m_ctx, m_arg);
    }

    Result<void> writeTensor(int64_t idx, int64_t out, const TensorMeta& t)
    {
        static const engine::SymbolValues none;
        m_tensor.bind(1, m_graphId)
            .bind(2, idx)
            .bind(3, out)
            .bind(4, std::string_view(engine::dtypeShortName(t.dtype)));
        m_text.clear();
        appendSymArray(m_text, t.shape);
        m_tensor.bind(5, std::string_view(m_text));
        if (!t.stride.empty()) {
            m_stride.clear();
            appendSymArray(m_stride, t.stride);
            m_tensor.bind(6, std::string_view(m_stride));
        } else {
            m_tensor.bindNull(6);
        }
        const bool symbolic = t.isSymbolic();
        m_tensor.bind(7, std::string_view(t.device)).bind(8, t.storageOffset).bind(9, int64_t(symbolic));
        std::optional<int64_t> bytes;
        if (!symbolic)
            if (auto b = t.storageBytes(none))
                bytes = int64_t(*b);
        bindOptional(m_tensor, 10, bytes);
        return insertRow(m_ctx, m_tensor);
    }

    WriteContext& m_ctx;
    int64_t m_graphId;
    Statement m_node, m_arg, m_user, m_tensor;
    std::string m_text, m_stride; ///< reused for every row's texts
};

/// graphs.static_bytes: the bytes of every output with a constant size on the device; none when no
/// output has one.
std::optional<int64_t> staticBytes(const Graph& g)
{
    static const engine::SymbolValues none;
    std::optional<int64_t> sum;
    for (const Node& n : g.nodes)
        for (const TensorMeta& t : n.outputs)
            if (t.onDevice() && !t.isSymbolic())
                if (auto b = t.storageBytes(none))
                    sum = sum.value_or(0) + int64_t(*b);
    return sum;
}

} // namespace

Result<int64_t> writeGraph(WriteContext& ctx, const Graph& graph, const GraphPlace& place)
{
    Database& db = ctx.db();
    auto insert
        = db.prepare("INSERT INTO graphs(source_id, name, grp, stage, pass, file, role, dynamic, comment, "
                     "node_count, placeholder_count, static_bytes, recorded_mutated_inputs, error, diagnostics, "
                     "metadata_missing) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert)
        return insert.error();
    int64_t placeholders = 0;
    for (const Node& n : graph.nodes)
        placeholders += n.op == NodeOp::Placeholder;
    Statement& s = *insert;
    s.bind(1, place.sourceId).bind(2, std::string_view(graph.id)).bind(3, std::string_view(place.group));
    s.bind(4, int64_t(place.stage)).bind(5, std::string_view(place.pass)).bind(6, std::string_view(place.file));
    s.bind(7, std::string_view(place.role)).bind(8, int64_t(graph.dynamic)).bind(9, std::string_view(graph.comment));
    s.bind(10, int64_t(graph.nodes.size())).bind(11, placeholders);
    bindOptional(s, 12, staticBytes(graph));
    bindOptional(s, 13,
        graph.recordedMutatedInputs ? std::optional<std::string>(jsonStringArray(*graph.recordedMutatedInputs))
                                    : std::nullopt);
    bindOptional(s, 14, place.error);
    s.bind(15, std::string_view(jsonStringArray(place.diagnostics)));
    s.bind(16, std::string_view(graph.metadataMissing));
    if (auto r = insertRow(ctx, s); !r)
        return r.error();
    const int64_t graphId = db.lastInsertRowId();
    if (graph.nodes.empty())
        return graphId;

    auto node = db.prepare("INSERT INTO nodes(graph_id, idx, name, op, target, input_kind, symbol, workspace, "
                           "provenance, storage, freed_after, input_kind_from, target_text) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    auto arg = db.prepare("INSERT INTO node_args(graph_id, node_idx, pos, keyword, kind, ref_idx, value, value_text) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    auto user = db.prepare("INSERT INTO node_users(graph_id, node_idx, user_idx) VALUES (?, ?, ?)");
    auto tensor = db.prepare("INSERT INTO tensors(graph_id, node_idx, out_idx, dtype, shape, stride, device, "
                             "storage_offset, symbolic, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!node || !arg || !user || !tensor)
        return !node ? node.error() : !arg ? arg.error() : !user ? user.error() : tensor.error();
    GraphWriter writer(ctx, graphId, std::move(*node), std::move(*arg), std::move(*user), std::move(*tensor));
    if (auto r = writer.write(graph); !r)
        return r.error();
    return graphId;
}

Result<std::vector<GraphRow>> listGraphs(Database& db, std::optional<int64_t> sourceId)
{
    auto s = db.prepare(std::string("SELECT id, source_id, name, grp, pass, file, role, stage, node_count, "
                                    "placeholder_count, static_bytes, error FROM graphs")
        + (sourceId ? " WHERE source_id = ?" : "") + " ORDER BY id");
    if (!s)
        return s.error();
    if (sourceId)
        s->bind(1, *sourceId);
    std::vector<GraphRow> rows;
    auto walked = forEachRow(*s, [&]() -> Result<void> {
        GraphRow g;
        g.id = s->columnInt(0);
        g.sourceId = s->columnInt(1);
        g.name = s->columnText(2);
        g.group = s->columnText(3);
        g.pass = s->columnText(4);
        g.file = s->columnText(5);
        g.role = s->columnText(6);
        g.stage = int(s->columnInt(7));
        g.nodeCount = int(s->columnInt(8));
        g.placeholderCount = int(s->columnInt(9));
        g.staticBytes = optionalInt(*s, 10);
        g.error = optionalText(*s, 11);
        rows.push_back(std::move(g));
        return {};
    });
    if (!walked)
        return walked.error();
    return rows;
}

} // namespace storage
