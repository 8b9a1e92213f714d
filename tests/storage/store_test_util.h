#pragma once
// What the store tests share: a fresh in-memory project with a source row, single-value queries, and
// a field-by-field comparison of graphs (floats compared by their bits, so -0.0 and 0.0 differ).
#include "engine/graph/graph.h"
#include "storage/project_db.h"
#include "storage/write_context.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <string>

namespace storetest {

class StoreTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto db = storage::openProject(":memory:");
        ASSERT_TRUE(db.ok()) << db.error().toString();
        m_db.emplace(std::move(*db));
        m_source = addSource("source-1");
    }
    storage::Database& db() { return *m_db; }

    int64_t addSource(const std::string& path)
    {
        auto s = db().prepare(
            "INSERT INTO sources(path, kind, size, content_hash, imported_at) VALUES (?, 'test', 0, ?, 'now')");
        EXPECT_TRUE(s.ok());
        EXPECT_TRUE(s->bind(1, path).bind(2, path).run().ok());
        return db().lastInsertRowId();
    }
    /// The first column of the first row of `sql` as text ("NULL" for null, "<none>" without a row).
    std::string query(const std::string& sql)
    {
        auto s = db().prepare(sql);
        EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().toString());
        if (!s.ok())
            return "<error>";
        auto row = s->step();
        EXPECT_TRUE(row.ok());
        if (!row.ok() || !*row)
            return "<none>";
        return s->columnIsNull(0) ? "NULL" : s->columnText(0);
    }
    int64_t count(const std::string& table) { return std::stoll(query("SELECT count(*) FROM " + table)); }
    void exec(const std::string& sql)
    {
        auto r = db().exec(sql);
        ASSERT_TRUE(r.ok()) << r.error().toString();
    }

    std::optional<storage::Database> m_db;
    int64_t m_source = 0;
};

inline bool sameArg(const engine::Arg& a, const engine::Arg& b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case engine::Arg::Kind::None:
        return true;
    case engine::Arg::Kind::NodeRef:
        return a.s == b.s && a.node == b.node;
    case engine::Arg::Kind::Int:
        return a.i == b.i;
    case engine::Arg::Kind::Float:
        return (std::isnan(a.f) && std::isnan(b.f)) || std::memcmp(&a.f, &b.f, sizeof a.f) == 0;
    case engine::Arg::Kind::Bool:
        return a.b == b.b;
    case engine::Arg::Kind::Str:
        return a.s == b.s;
    case engine::Arg::Kind::List:
        if (a.items.size() != b.items.size())
            return false;
        for (size_t i = 0; i < a.items.size(); ++i)
            if (!sameArg(a.items[i], b.items[i]))
                return false;
        return true;
    }
    return false;
}

inline std::string dims(const std::vector<engine::SymExpr>& d)
{
    std::string s;
    for (const auto& e : d)
        s += e.text() + ";";
    return s;
}

/// Every field a Graph carries, node by node.
inline void expectSameGraph(const engine::Graph& a, const engine::Graph& b)
{
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.comment, b.comment);
    EXPECT_EQ(a.dynamic, b.dynamic);
    EXPECT_EQ(a.recordedMutatedInputs, b.recordedMutatedInputs);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const engine::Node& x = a.nodes[i];
        const engine::Node& y = b.nodes[i];
        SCOPED_TRACE("node " + std::to_string(i) + " " + x.name);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.op, y.op);
        EXPECT_EQ(x.target, y.target);
        ASSERT_EQ(x.args.size(), y.args.size());
        for (size_t k = 0; k < x.args.size(); ++k)
            EXPECT_TRUE(sameArg(x.args[k], y.args[k])) << "argument " << k;
        ASSERT_EQ(x.kwargs.size(), y.kwargs.size());
        for (size_t k = 0; k < x.kwargs.size(); ++k) {
            EXPECT_EQ(x.kwargs[k].first, y.kwargs[k].first);
            EXPECT_TRUE(sameArg(x.kwargs[k].second, y.kwargs[k].second)) << "kwarg " << x.kwargs[k].first;
        }
        ASSERT_EQ(x.outputs.size(), y.outputs.size());
        for (size_t k = 0; k < x.outputs.size(); ++k) {
            EXPECT_EQ(dims(x.outputs[k].shape), dims(y.outputs[k].shape));
            EXPECT_EQ(dims(x.outputs[k].stride), dims(y.outputs[k].stride));
            EXPECT_EQ(x.outputs[k].dtype, y.outputs[k].dtype);
            EXPECT_EQ(x.outputs[k].device, y.outputs[k].device);
            EXPECT_EQ(x.outputs[k].storageOffset, y.outputs[k].storageOffset);
        }
        if (x.op == engine::NodeOp::Placeholder) {
            EXPECT_EQ(x.inputKind, y.inputKind);
        }
        EXPECT_EQ(x.symbol.text(), y.symbol.text());
        EXPECT_EQ(x.workspaceBytes.text(), y.workspaceBytes.text());
        EXPECT_EQ(x.provenance, y.provenance);
        EXPECT_EQ(x.storage, y.storage);
        EXPECT_EQ(x.users, y.users);
        EXPECT_EQ(x.freedAfter, y.freedAfter);
    }
}

} // namespace storetest
