#pragma once
/// Graphs in the project database (docs/database.md, tables graphs, nodes, node_args, node_users,
/// tensors, pass_reports, pass_changes): writing an engine::Graph with every node, argument, user
/// and output tensor, reading it back as the same Graph, and the pass reports of a graph.
#include "engine/config/options.h"
#include "engine/graph/graph.h"
#include "engine/passes/pipeline.h"
#include "storage/write_context.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storage {

/// Where a graph came from and what it is, beside the Graph itself.
struct GraphPlace {
    int64_t sourceId = 0;
    /// The group of stages it belongs to ("model__0/forward"), or the file it was read from; one
    /// group's stages share it.
    std::string group;
    int stage = 0; ///< position in its group (debug folder stage order); 0 for a lone graph
    std::string pass; ///< the pass after which it was dumped ("view_to_reshape"), "" when none
    std::string file; ///< the file it was read from
    /// "graph" (read from a file), "stage" (a debug folder dump), "cache" (a compiled_module's
    /// py_code), "module" (a generated output_code.py), "pass_result" (our pass pipeline's output).
    std::string role = "graph";
    std::optional<std::string> error; ///< a stage that could not be read: stored without nodes
    std::vector<std::string> diagnostics; ///< the reader's warnings, "file:line:col: warning: ..."
};

/// Inserts the graph and all its rows; returns graphs.id. `graph` is finalized (its users and reference
/// indices are stored as finalize() computed them; readGraph checks them against its own). A
/// placeholder-less or error-only graph is fine. Cancelled (via ctx) mid-way returns the error; the
/// caller's transaction undoes the rows.
///
/// Column texts: nodes.op is FX's op name (nodeOpName). node_args.value is the scalar as Python prints
/// it (integers; floats in shortest round-trip repr, inf/nan included; True/False), the string, the
/// referenced node's name (kind ref, with ref_idx), NULL for none, and for a list JSON: null, true,
/// integers, finite floats as numbers with '.' or an exponent, {"float": "inf"}, strings,
/// {"ref": name, "idx": node index}, nested arrays. tensors.shape and stride are JSON arrays of
/// SymExpr texts (stride NULL when contiguous); freed_after and recorded_mutated_inputs are JSON
/// arrays of strings.
Result<int64_t> writeGraph(WriteContext& ctx, const engine::Graph& graph, const GraphPlace& place);

/// A graph as listed (no nodes).
struct GraphRow {
    int64_t id = 0;
    int64_t sourceId = 0;
    std::string name, group, pass, file, role;
    int stage = 0;
    int nodeCount = 0;
    int placeholderCount = 0;
    std::optional<int64_t> staticBytes; ///< sum of the non-symbolic tensors' bytes
    std::optional<std::string> error;
};
Result<std::vector<GraphRow>> listGraphs(Database& db, std::optional<int64_t> sourceId = {});

/// Reads graph `graphId` back: the same Graph that was written (finalized), errors naming the row
/// when the database holds something inconsistent (a hand-edited file).
Result<engine::Graph> readGraph(Database& db, int64_t graphId);

/// Stores a pipeline's reports for `graphId` (the pipeline's input). Stage graphs of passes that ran
/// are written too (role "pass_result", same group, pass = the pass name) unless `writeStages` is
/// false; pass_reports.result_graph_id links them. Returns the report ids in pass order.
Result<std::vector<int64_t>> writePassReports(WriteContext& ctx, int64_t graphId,
    const engine::passes::PipelineResult& result, engine::config::Backend backend, bool writeStages = true);

/// The reports stored for `graphId`, in pass order. report.stage is the stored result graph's stage
/// (graphs.stage, the index into PipelineResult::stages it was written with), -1 when none was stored.
struct StoredPassReport {
    int64_t id = 0;
    std::optional<int64_t> resultGraphId;
    std::string backend;
    engine::passes::PassReport report;
};
Result<std::vector<StoredPassReport>> readPassReports(Database& db, int64_t graphId);

} // namespace storage
