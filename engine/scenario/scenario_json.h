#pragma once
/// Internal to the scenario reader: JSON access helpers that fail with the file name and the JSON
/// path of the offending value. Not part of the engine's interface.
#include "engine/core/result.h"
#include "engine/graph/graph.h"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace engine::scenario::detail {

using Json = nlohmann::ordered_json;

/// Thrown inside the reader only; parseScenario turns it into a Result.
struct Failure {
    Error error;
};

class JsonReader {
public:
    explicit JsonReader(std::string file)
        : m_file(std::move(file))
    {
    }

    std::string context(const std::string& path) const { return m_file.empty() ? path : m_file + ": " + path; }
    const std::string& file() const { return m_file; }
    [[noreturn]] void fail(ErrorCode code, const std::string& path, const std::string& message) const;
    /// "expected <what>, got <JSON type>".
    [[noreturn]] void wrongType(const Json& v, const std::string& path, const std::string& what) const;

    static std::string key(const std::string& path, const std::string& name);
    static std::string index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

    const Json& object(const Json& v, const std::string& path) const;
    const Json& array(const Json& v, const std::string& path) const;
    /// Rejects keys not in `allowed`; keys starting with '_' and "comment"/"note" are always allowed.
    void checkKeys(const Json& obj, const std::string& path, std::initializer_list<const char*> allowed) const;
    /// nullptr when `obj` has no `name` (a JSON null counts as given).
    static const Json* find(const Json& obj, const char* name);
    const Json& required(const Json& obj, const std::string& path, const char* name) const;

    std::string string(const Json& v, const std::string& path) const;
    std::string nonEmptyString(const Json& v, const std::string& path) const;
    bool boolean(const Json& v, const std::string& path) const;
    int64_t integer(const Json& v, const std::string& path) const;
    int64_t integerAtLeast(const Json& v, const std::string& path, int64_t min) const;
    double number(const Json& v, const std::string& path) const;
    /// A size: a non-negative integer or a size expression string ("s0*2"). Symbols are refused
    /// unless `dynamic` ("symbolic size 's0' in a graph compiled with dynamic=False").
    SymExpr size(const Json& v, const std::string& path, bool dynamic) const;

private:
    std::string m_file;
};

/// A byte count: an integer or a size string ("64GiB", "1.5 GB"; KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB binary).
uint64_t byteSize(const JsonReader& r, const Json& v, const std::string& path);

/// Graph id -> placeholder name -> the storage name its "storage" key gives (the default binding
/// of that input in every call of the graph).

/// Reads `$.graphs` (already known to be an array). Graph ids are unique; each graph is finalized.
/// Reads `$.graphs`. Warnings of FX files that graphs reference by "file" go to `diagnostics`.
std::vector<Graph> readGraphs(
    const JsonReader& r, const Json& graphs, const std::string& path, std::vector<std::string>& diagnostics);

/// Every symbol a graph's shapes, strides, SymInt inputs and workspaces mention, sorted.
std::vector<std::string> graphSymbols(const Graph& g);

} // namespace engine::scenario::detail
