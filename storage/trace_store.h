#pragma once
/// A TORCH_TRACE's compiles in the project database (tables trace_compiles and trace_spans;
/// docs/database.md): per compile id what tlparse shows about it (when, how long, cache hits,
/// failure, recompile reasons, guards, sources, symbols, metrics, the user's stack) and the chromium
/// spans of the log, the compiles' and the runtime ones (CUDAGraphNode.record, ...). A compile's
/// graphs are the `graphs` rows of the same source whose grp is the compile's group label.
#include "engine/readers/torch_trace.h"
#include "storage/write_context.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace storage {

/// Guards text kept per compile at most (longer text is cut, with a note at its end).
constexpr size_t kMaxTraceGuardsBytes = size_t(256) << 10;

/// The group label traceGraphGroups gives a compile (graphs.grp of its graphs): its compile id, with
/// "rank N: " before it when `severalRanks`, then "/inference", "/forward" or "/backward" from its AOT
/// graph ("0/0/inference").
std::string traceCompileGroup(
    const engine::readers::trace::TraceCompile& compile, std::optional<int> rank, bool severalRanks);

/// Writes every compile and span of `traces` (one per rank log) under `sourceId`.
Result<void> writeTraceCompiles(
    WriteContext& ctx, int64_t sourceId, const std::vector<engine::readers::trace::TorchTrace>& traces);

/// An input as describe_tensor / describe_source gave it.
struct StoredTraceSource {
    std::string source; ///< "L['tokens']"
    std::string dtype; ///< "torch.float32"
    std::string size; ///< "[1, 16]" or "[s0, 16]"
    bool isParameter = false;
};

struct StoredTraceSymbol {
    std::string symbol; ///< "s27"
    std::string source; ///< "L['tokens'].size()[0]"
    std::optional<int64_t> hint;
};

/// One compile id as stored.
struct StoredTraceCompile {
    int64_t id = 0;
    int64_t sourceId = 0;
    std::string sourcePath; ///< sources.path of its source
    std::string log; ///< the log file it is in (one per rank in a folder)
    std::optional<int> rank;
    std::string compileId; ///< "0/1"
    int frame = -1, frameCompile = -1, attempt = 0;
    std::string group; ///< graphs.grp of its graphs ("0/1/inference")
    std::string phase; ///< "inference" / "forward" / "backward", "" when it has no AOT graph
    int64_t firstLine = 0;
    std::optional<double> startUs, endUs; ///< its spans' earliest start and latest end (µs since the epoch)
    std::optional<double> compileSeconds; ///< entire_frame_compile_time_s
    std::string failType, failReason;
    int graphCount = 0; ///< graph payloads in the log
    std::vector<std::string> recompileReasons;
    std::string metricsJson; ///< compilation_metrics, "" when absent
    std::string guards; ///< dynamo_cpp_guards_str, at most kMaxTraceGuardsBytes
    std::vector<StoredTraceSource> sources;
    std::vector<StoredTraceSymbol> symbols;
    std::vector<std::string> stack; ///< "file:line in name", innermost last
    std::vector<std::string> artifacts; ///< names of the other records
    /// From the metrics: "FX hit, AOT hit" / "FX miss, AOT miss" ... ; "" when the metrics say nothing.
    std::string cache;
};

/// A span of the log; compileId is empty for a runtime span (no compile).
struct StoredTraceSpan {
    int64_t sourceId = 0;
    std::optional<int> rank;
    std::string compileId;
    std::string name, category;
    double startUs = 0, endUs = 0;
};

/// Every compile (of one source, or all), by source, rank and log order.
Result<std::vector<StoredTraceCompile>> readTraceCompiles(Database& db, std::optional<int64_t> sourceId = {});
/// Every span (of one source, or all), by start time.
Result<std::vector<StoredTraceSpan>> readTraceSpans(Database& db, std::optional<int64_t> sourceId = {});

/// "FX hit, AOT miss" from compilation_metrics' local/remote cache hit and miss counts; "" when none.
std::string traceCacheSummary(const std::string& metricsJson);

} // namespace storage
