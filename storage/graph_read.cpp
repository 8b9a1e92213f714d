// readGraph: a graph rebuilt from its rows (graph_store.cpp writes them). Everything a hand-edited or
// damaged project could get wrong is checked and reported naming the graph and the node row: the
// texts that must parse (ops, kinds, values, sizes, JSON lists), the numbering of rows, and what
// finalize() derives again (references, users).
#include "engine/core/py_value.h"
#include "storage/graph_store.h"
#include "storage/store_util.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace storage {

using namespace detail;
using engine::Arg;
using engine::Graph;
using engine::Node;
using engine::NodeOp;
using engine::SymExpr;
using nlohmann::json;

namespace {

constexpr int kMaxListNesting = 256;

bool parseInt(const std::string& text, int64_t& out)
{
    const char* end = text.data() + text.size();
    auto r = std::from_chars(text.data(), end, out);
    return r.ec == std::errc() && r.ptr == end && !text.empty();
}

// The inverse of graph_store.cpp's appendArgJson; false when `j` is not such a value.
bool argFromJson(const json& j, Arg& out, int depth)
{
    if (depth > kMaxListNesting)
        return false;
    if (j.is_null()) {
        out.kind = Arg::Kind::None;
    } else if (j.is_boolean()) {
        out.kind = Arg::Kind::Bool;
        out.b = j.get<bool>();
    } else if (j.is_number_integer()) {
        if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))
            return false;
        out.kind = Arg::Kind::Int;
        out.i = j.get<int64_t>();
    } else if (j.is_number_float()) {
        out.kind = Arg::Kind::Float;
        out.f = j.get<double>();
    } else if (j.is_string()) {
        out.kind = Arg::Kind::Str;
        out.s = j.get<std::string>();
    } else if (j.is_array()) {
        out.kind = Arg::Kind::List;
        out.items.resize(j.size());
        for (size_t i = 0; i < j.size(); ++i)
            if (!argFromJson(j[i], out.items[i], depth + 1))
                return false;
    } else if (j.is_object() && j.size() == 1 && j.contains("float") && j["float"].is_string()) {
        out.kind = Arg::Kind::Float;
        return engine::parsePyFloat(j["float"].get<std::string>(), out.f);
    } else if (j.is_object() && j.size() == 2 && j.contains("ref") && j["ref"].is_string() && j.contains("idx")
        && j["idx"].is_number_integer()) {
        out = Arg::ref(j["ref"].get<std::string>());
    } else {
        return false;
    }
    return true;
}

class GraphReader {
public:
    GraphReader(Database& db, int64_t graphId)
        : m_db(db)
        , m_id(graphId)
        , m_where("graph " + std::to_string(graphId))
    {
    }

    Result<Graph> read()
    {
        if (auto r = readHeader(); !r)
            return r.error();
        if (auto r = readNodes(); !r)
            return r.error();
        if (m_graph.nodes.empty())
            return std::move(m_graph); // an error-only graph: nothing to finalize
        if (auto r = readArgs(); !r)
            return r.error();
        if (auto r = readTensors(); !r)
            return r.error();
        if (auto r = m_graph.finalize(); !r)
            return bad(r.error().message);
        if (auto r = checkDerived(); !r)
            return r.error();
        return std::move(m_graph);
    }

private:
    Error bad(const std::string& message) const { return badRow(m_db, m_where + ": " + message); }
    Error badNode(int64_t idx, const std::string& message) const
    {
        std::string where = ", node row " + std::to_string(idx);
        if (idx >= 0 && size_t(idx) < m_graph.nodes.size())
            where += " ('" + m_graph.nodes[size_t(idx)].name + "')";
        return bad(where.substr(2) + ": " + message);
    }
    Result<Statement> query(const std::string& sql)
    {
        auto s = m_db.prepare(sql);
        if (s)
            s->bind(1, m_id);
        return s;
    }
    Result<SymExpr> sym(int64_t idx, const std::string& text, const char* what) const
    {
        auto e = SymExpr::parse(text);
        if (!e)
            return badNode(idx, std::string(what) + " '" + text + "' is no size expression: " + e.error().message);
        return e;
    }

    Result<void> readHeader()
    {
        auto s = query("SELECT name, dynamic, comment, recorded_mutated_inputs, node_count, metadata_missing FROM graphs WHERE id = ?");
        if (!s)
            return s.error();
        auto row = s->step();
        if (!row)
            return row.error();
        if (!*row)
            return Error { engine::ErrorCode::NotFound, "no " + m_where, m_db.path() };
        m_graph.id = s->columnText(0);
        m_where += " ('" + m_graph.id + "')";
        m_graph.dynamic = s->columnInt(1) != 0;
        m_graph.comment = s->columnText(2);
        m_graph.metadataMissing = s->columnText(5);
        if (auto text = optionalText(*s, 3)) {
            m_graph.recordedMutatedInputs = parseStringArray(*text);
            if (!m_graph.recordedMutatedInputs)
                return bad("recorded_mutated_inputs is not a JSON array of strings");
        }
        m_nodeCount = s->columnInt(4);
        return {};
    }

    Result<void> readNodes()
    {
        static const NodeOp ops[] = { NodeOp::Placeholder, NodeOp::CallFunction, NodeOp::CallMethod, NodeOp::GetAttr,
            NodeOp::Output, NodeOp::CallModule };
        static const engine::InputKind kinds[] = { engine::InputKind::Parameter, engine::InputKind::Buffer,
            engine::InputKind::StaticAddress, engine::InputKind::UserInput, engine::InputKind::SymInt };
        // A long target is whole in `texts` (schema 6), cut in the row.
        auto s = query("SELECT n.idx, n.name, n.op, COALESCE(t.text, n.target), n.input_kind, n.symbol, n.workspace, "
                       "n.provenance, n.storage, n.freed_after, n.input_kind_from FROM nodes n "
                       "LEFT JOIN texts t ON t.id = n.target_text WHERE n.graph_id = ? ORDER BY n.idx");
        if (!s)
            return s.error();
        auto rows = forEachRow(*s, [&]() -> Result<void> {
            const int64_t idx = s->columnInt(0);
            if (idx != int64_t(m_graph.nodes.size()))
                return badNode(idx,
                    "node rows are not numbered 0, 1, 2, ... (expected " + std::to_string(m_graph.nodes.size()) + ")");
            Node& n = m_graph.nodes.emplace_back();
            n.name = s->columnText(1);
            if (!parseName(s->columnText(2), ops, engine::nodeOpName, n.op))
                return badNode(idx, "unknown op '" + s->columnText(2) + "'");
            n.target = s->columnText(3);
            if (auto kind = optionalText(*s, 4); kind && !parseName(*kind, kinds, engine::inputKindName, n.inputKind))
                return badNode(idx, "unknown input kind '" + *kind + "'");
            if (auto text = optionalText(*s, 5)) {
                auto e = sym(idx, *text, "symbol");
                if (!e)
                    return e.error();
                n.symbol = std::move(*e);
            }
            if (auto text = optionalText(*s, 6)) {
                auto e = sym(idx, *text, "workspace");
                if (!e)
                    return e.error();
                n.workspaceBytes = std::move(*e);
            }
            n.provenance = s->columnText(7);
            n.storage = s->columnText(8);
            if (auto text = optionalText(*s, 9)) {
                auto names = parseStringArray(*text);
                if (!names)
                    return badNode(idx, "freed_after is not a JSON array of strings");
                n.freedAfter = std::move(*names);
            }
            n.inputKindFrom = s->columnText(10);
            return {};
        });
        if (!rows)
            return rows.error();
        if (m_nodeCount != int64_t(m_graph.nodes.size()))
            return bad("node_count says " + std::to_string(m_nodeCount) + " nodes, there are "
                + std::to_string(m_graph.nodes.size()) + " node rows");
        return {};
    }

    /// Runs `sql` (graph_id = ?; node_idx first) and calls f(statement, node_idx, node) at each row
    /// whose node exists; a row of `rowKind` naming no node is an error.
    template <typename F> Result<void> eachNodeRow(const char* sql, const char* rowKind, F&& f)
    {
        auto s = query(sql);
        if (!s)
            return s.error();
        return forEachRow(*s, [&]() -> Result<void> {
            const int64_t idx = s->columnInt(0);
            if (idx < 0 || size_t(idx) >= m_graph.nodes.size())
                return badNode(idx, std::string(rowKind) + " row names a node that does not exist");
            return f(&*s, idx, m_graph.nodes[size_t(idx)]);
        });
    }

    Result<void> readArgs()
    {
        const char* sql = "SELECT a.node_idx, a.pos, a.keyword, a.kind, a.ref_idx, COALESCE(t.text, a.value) "
                          "FROM node_args a LEFT JOIN texts t ON t.id = a.value_text WHERE a.graph_id = ? "
                          "ORDER BY a.node_idx, a.pos";
        return eachNodeRow(sql, "an argument", [&](const Statement* s, int64_t idx, Node& n) -> Result<void> {
            const int64_t pos = s->columnInt(1);
            if (pos != int64_t(n.args.size() + n.kwargs.size()))
                return badNode(idx, "argument rows are not numbered 0, 1, 2, ... (got " + std::to_string(pos) + ")");
            const auto keyword = optionalText(*s, 2);
            if (!keyword && !n.kwargs.empty())
                return badNode(idx, "positional argument " + std::to_string(pos) + " comes after keyword arguments");
            auto arg = readArg(idx, pos, *s);
            if (!arg)
                return arg.error();
            if (keyword)
                n.kwargs.emplace_back(*keyword, std::move(*arg));
            else
                n.args.push_back(std::move(*arg));
            return {};
        });
    }

    Result<Arg> readArg(int64_t idx, int64_t pos, const Statement& s)
    {
        const std::string kind = s.columnText(3);
        const auto value = optionalText(s, 5);
        const std::string at = "argument " + std::to_string(pos) + " (" + kind + ")";
        if (kind == "none")
            return Arg();
        if (!value)
            return badNode(idx, at + " has no value");
        Arg a;
        if (kind == "ref") {
            a = Arg::ref(*value);
            if (auto ref = optionalInt(s, 4))
                m_refs.push_back({ idx, pos, *ref });
        } else if (kind == "str") {
            a.kind = Arg::Kind::Str;
            a.s = *value;
        } else if (kind == "int") {
            a.kind = Arg::Kind::Int;
            if (!parseInt(*value, a.i))
                return badNode(idx, at + ": '" + *value + "' is no integer");
        } else if (kind == "float") {
            a.kind = Arg::Kind::Float;
            if (!engine::parsePyFloat(*value, a.f))
                return badNode(idx, at + ": '" + *value + "' is no float");
        } else if (kind == "bool") {
            a.kind = Arg::Kind::Bool;
            if (*value != "True" && *value != "False")
                return badNode(idx, at + ": '" + *value + "' is neither True nor False");
            a.b = *value == "True";
        } else if (kind == "list") {
            const json j = json::parse(*value, nullptr, false);
            if (!j.is_array() || !argFromJson(j, a, 0))
                return badNode(idx, at + ": not a JSON list of arguments");
        } else {
            return badNode(idx, "argument " + std::to_string(pos) + " has unknown kind '" + kind + "'");
        }
        return a;
    }

    Result<void> readTensors()
    {
        const char* sql = "SELECT node_idx, out_idx, dtype, shape, stride, device, storage_offset FROM tensors "
                          "WHERE graph_id = ? ORDER BY node_idx, out_idx";
        return eachNodeRow(sql, "a tensor", [&](const Statement* s, int64_t idx, Node& n) -> Result<void> {
            const int64_t out = s->columnInt(1);
            if (out != int64_t(n.outputs.size()))
                return badNode(idx, "tensor rows are not numbered 0, 1, 2, ... (got " + std::to_string(out) + ")");
            engine::TensorMeta t;
            const std::string dtype = s->columnText(2);
            t.dtype = engine::parseDType(dtype);
            if (t.dtype == engine::DType::Unknown && dtype != engine::dtypeShortName(engine::DType::Unknown))
                return badNode(idx, "output " + std::to_string(out) + " has unknown dtype '" + dtype + "'");
            if (auto r = dims(idx, s->columnText(3), "shape", t.shape); !r)
                return r;
            if (auto stride = optionalText(*s, 4))
                if (auto r = dims(idx, *stride, "stride", t.stride); !r)
                    return r;
            t.device = s->columnText(5);
            t.storageOffset = s->columnInt(6);
            n.outputs.push_back(std::move(t));
            return {};
        });
    }

    Result<void> dims(int64_t idx, const std::string& text, const char* what, std::vector<SymExpr>& out)
    {
        auto items = parseStringArray(text);
        if (!items)
            return badNode(idx, std::string(what) + " is not a JSON array of size texts: " + text);
        out.reserve(items->size());
        for (const std::string& item : *items) {
            auto e = sym(idx, item, what);
            if (!e)
                return e.error();
            out.push_back(std::move(*e));
        }
        return {};
    }

    // What finalize() computed again must match what was stored: reference indices and users.
    Result<void> checkDerived()
    {
        for (const Ref& r : m_refs) {
            const Node& n = m_graph.nodes[size_t(r.node)];
            const size_t pos = size_t(r.pos);
            const Arg& a = pos < n.args.size() ? n.args[pos] : n.kwargs[pos - n.args.size()].second;
            if (a.node != r.stored)
                return badNode(r.node,
                    "argument " + std::to_string(r.pos) + " refers to '" + a.s + "' as node " + std::to_string(r.stored)
                        + ", which is node " + std::to_string(a.node));
        }
        std::vector<std::vector<int>> users(m_graph.nodes.size());
        auto rows
            = eachNodeRow("SELECT node_idx, user_idx FROM node_users WHERE graph_id = ? ORDER BY node_idx, user_idx",
                "a user", [&](const Statement* s, int64_t idx, Node&) -> Result<void> {
                    users[size_t(idx)].push_back(int(s->columnInt(1)));
                    return {};
                });
        if (!rows)
            return rows.error();
        for (size_t i = 0; i < users.size(); ++i)
            if (users[i] != m_graph.nodes[i].users)
                return badNode(int64_t(i), "its stored users are not the nodes whose arguments refer to it");
        return {};
    }

    struct Ref {
        int64_t node, pos, stored;
    };
    Database& m_db;
    int64_t m_id;
    std::string m_where; ///< "graph 3 ('decode')", for errors
    Graph m_graph;
    int64_t m_nodeCount = 0;
    std::vector<Ref> m_refs; ///< ref arguments with their stored ref_idx, checked after finalize()
};

} // namespace

Result<Graph> readGraph(Database& db, int64_t graphId)
{
    return GraphReader(db, graphId).read();
}

} // namespace storage
