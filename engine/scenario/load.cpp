#include "engine/scenario/load.h"

#include "engine/readers/fx_reader.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

namespace engine::scenario {

namespace {

bool looksLikeJson(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char c = 0;
    while (in.get(c))
        if (!std::isspace(static_cast<unsigned char>(c)))
            return c == '{';
    return false;
}

std::string baseName(const std::string& path)
{
    std::string name = path.substr(path.find_last_of('/') + 1);
    const auto dot = name.find('.');
    return dot == 0 || dot == std::string::npos ? name : name.substr(0, dot);
}

} // namespace

Result<Scenario> loadScenarioOrGraph(const std::string& path, const SymbolValues& symbols, int calls)
{
    if (looksLikeJson(path))
        return readScenarioFile(path);
    auto read = readers::readFxFile(path);
    if (!read)
        return read.error();
    if (read->graphs.empty())
        return makeError(ErrorCode::InvalidArgument, "the file holds no FX graph", path);
    Scenario s;
    s.path = path;
    s.name = baseName(path);
    for (const auto& d : read->diagnostics)
        s.diagnostics.push_back(d.toString());
    Graph g = std::move(read->graphs.front());
    g.id = s.name;
    std::set<std::string> needed;
    for (const Node& n : g.nodes) {
        for (const TensorMeta& m : n.outputs)
            for (const auto* dims : { &m.shape, &m.stride })
                for (const SymExpr& d : *dims)
                    for (const std::string& sym : d.symbols())
                        needed.insert(sym);
        if (n.op == NodeOp::Placeholder && n.inputKind == InputKind::SymInt)
            for (const std::string& sym : n.symbol.symbols())
                needed.insert(sym);
    }
    for (const std::string& sym : needed)
        if (!symbols.count(sym))
            return makeError(ErrorCode::InvalidArgument,
                "graph '" + g.id + "' uses symbol " + sym + ": give its value, e.g. --symbols " + sym + "=4", path);
    Call c;
    c.graph = g.id;
    for (const auto& [name, value] : symbols)
        if (needed.count(name))
            c.symbols[name] = value;
    c.sourcePath = "(command line)";
    s.graphs.push_back(std::move(g));
    for (int i = 0; i < std::max(1, calls); ++i)
        s.calls.push_back(c);
    return s;
}

} // namespace engine::scenario
