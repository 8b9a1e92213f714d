#pragma once
// Helpers shared by the FX reader and writer tests: reading fixtures, compact texts of arguments and
// tensor metadata, and the equivalence readFxCode(writeFxCode(g)) must keep.
#include "engine/readers/fx_code_writer.h"
#include "engine/readers/fx_reader.h"
#include "engine/readers/fx_reader_internal.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace fxtest {

using namespace engine;
using namespace engine::readers;

inline const std::string kFxDir = std::string(ACLGI_TEST_DATA_DIR) + "/fx/";

inline FxReadResult readOk(const std::string& file)
{
    auto r = readFxFile(kFxDir + file);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : FxReadResult();
}

inline FxReadResult readText(const std::string& text, const std::string& path = "t.py")
{
    auto r = readFxText(text, path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : FxReadResult();
}

inline std::string readError(const std::string& text, const std::string& path = "t.py")
{
    auto r = readFxText(text, path);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().toString();
}

inline const Node& node(const Graph& g, const std::string& name)
{
    static const Node missing;
    int i = g.find(name);
    EXPECT_GE(i, 0) << "no node " << name;
    return i >= 0 ? g.nodes[size_t(i)] : missing;
}

// Compact text of an argument: %ref, 1, 1.5, 'str', [a, b], None, True.
inline std::string argText(const Arg& a)
{
    switch (a.kind) {
    case Arg::Kind::None:
        return "None";
    case Arg::Kind::NodeRef:
        return "%" + a.s;
    case Arg::Kind::Int:
        return std::to_string(a.i);
    case Arg::Kind::Float:
        return detail::pyFloat(a.f);
    case Arg::Kind::Bool:
        return a.b ? "True" : "False";
    case Arg::Kind::Str:
        return "'" + a.s + "'";
    case Arg::Kind::List: {
        std::string s = "[";
        for (size_t i = 0; i < a.items.size(); ++i)
            s += (i ? ", " : "") + argText(a.items[i]);
        return s + "]";
    }
    }
    return "?";
}

inline std::string argsText(const Node& n)
{
    std::string s;
    for (const Arg& a : n.args)
        s += (s.empty() ? "" : ", ") + argText(a);
    for (const auto& [k, v] : n.kwargs)
        s += (s.empty() ? "" : ", ") + k + "=" + argText(v);
    return s;
}

// "f32[4, 4][4, 1]cpu", strides as read ("[]" when none were printed).
inline std::string metaText(const TensorMeta& t)
{
    std::string s = dtypeShortName(t.dtype) + "[";
    for (size_t i = 0; i < t.shape.size(); ++i)
        s += (i ? ", " : "") + t.shape[i].text();
    s += "][";
    for (size_t i = 0; i < t.stride.size(); ++i)
        s += (i ? ", " : "") + t.stride[i].text();
    return s + "]" + t.device;
}

inline std::string outputsText(const Node& n)
{
    std::string s;
    for (const auto& t : n.outputs)
        s += (s.empty() ? "" : " ") + metaText(t);
    return s;
}

inline std::vector<std::string> names(const Graph& g)
{
    std::vector<std::string> out;
    for (const Node& n : g.nodes)
        out.push_back(n.name);
    return out;
}

inline std::vector<std::string> freed(const Graph& g, const std::string& name)
{
    return node(g, name).freedAfter;
}

inline std::vector<std::string> diagnosticTexts(const FxReadResult& r)
{
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics)
        out.push_back(d.toString());
    return out;
}

inline InputKind expressible(InputKind k)
{
    return k == InputKind::StaticAddress ? InputKind::UserInput : k;
}

// What readFxCode(writeFxCode(g)) must give back (see fx_code_writer.h).
inline void expectEquivalent(const Graph& a, const Graph& b, bool compareFreed)
{
    ASSERT_EQ(names(a), names(b));
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        const Node& x = a.nodes[i];
        const Node& y = b.nodes[i];
        SCOPED_TRACE("node " + x.name);
        EXPECT_EQ(int(x.op), int(y.op));
        EXPECT_EQ(x.target, y.target);
        EXPECT_EQ(argsText(x), argsText(y));
        ASSERT_EQ(x.outputs.size(), y.outputs.size());
        for (size_t k = 0; k < x.outputs.size(); ++k)
            EXPECT_TRUE(detail::equivalentMeta(x.outputs[k], y.outputs[k]))
                << metaText(x.outputs[k]) << " vs " << metaText(y.outputs[k]);
        if (x.op == NodeOp::Placeholder) {
            EXPECT_EQ(inputKindName(expressible(x.inputKind)), std::string(inputKindName(y.inputKind)));
            if (x.inputKind == InputKind::SymInt) {
                EXPECT_EQ(x.symbol.text(), y.symbol.text());
            }
        }
        if (x.provenance.empty() || x.provenance.rfind("# File:", 0) == 0) {
            EXPECT_EQ(x.provenance, y.provenance);
        }
        if (compareFreed) {
            EXPECT_EQ(x.freedAfter, y.freedAfter);
        }
    }
    bool symbolic = false;
    for (const Node& n : a.nodes)
        for (const auto& t : n.outputs)
            symbolic = symbolic || t.isSymbolic();
    if (symbolic) {
        EXPECT_EQ(a.dynamic, b.dynamic);
    }
}

inline Graph roundTrip(const Graph& g, const std::string& className = "GraphModule")
{
    std::string text = writeFxCode(g, className);
    auto r = readFxCode(text, "written.py");
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString()) << "\n" << text;
    if (!r.ok())
        return Graph();
    EXPECT_TRUE(r->diagnostics.empty()) << diagnosticTexts(*r).front() << "\n" << text;
    EXPECT_EQ(r->graphs.size(), 1u);
    return std::move(r->graphs[0]);
}

} // namespace fxtest
