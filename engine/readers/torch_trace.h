#pragma once
/// Reader of PyTorch's structured trace (`TORCH_TRACE=<dir>`: what tlparse reads). A log is a
/// sequence of records; each record is one header line
///   V1126 08:52:02.716000 457 torch/_dynamo/convert_frame.py:276] {"dynamo_start": {...}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
/// (glog prefix, then a JSON envelope) followed, when the envelope has `has_payload` (the md5 of the
/// payload), by payload lines that each start with a tab. The reader streams the file (it is never
/// held whole), checks each payload against its md5, and groups records by compile id
/// (`frame_id/frame_compile_id`, `_attempt` when attempt > 0, `!compiled_autograd_id` prefix).
/// See docs/torch-trace.md.
#include "engine/core/result.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine::readers::trace {

/// tlparse's compile id: "0/0", "1/0_1" (attempt 1), "!2/0/1" (compiled autograd 2). Records with no
/// frame id (a module-level record) belong to no compile: `valid()` is false and text() is "-".
struct CompileId {
    int frame = -1;
    int frameCompile = -1;
    int attempt = 0;
    std::optional<int> compiledAutograd;

    bool valid() const { return frame >= 0 && frameCompile >= 0; }
    std::string text() const;
    bool operator<(const CompileId& o) const;
    bool operator==(const CompileId& o) const;
};

/// Where a record came from: line of its header (1-based) and byte offset of the header.
struct TracePlace {
    uint64_t line = 0;
    uint64_t offset = 0;
};

/// One payload-carrying record kept as text: a graph, the generated code, an artifact, guards.
struct TracePayload {
    std::string kind; ///< envelope key: "dynamo_output_graph", "aot_inference_graph", "artifact", ...
    std::string name; ///< artifact / graph_dump name ("recompile_reasons", "fx_graph_runnable"); else = kind
    std::string encoding; ///< artifact encoding ("string", "json"); empty otherwise
    std::string filename; ///< inductor_output_code: the generated module's path ("/tmp/torchinductor_*/xx/cHASH.py")
    std::string text; ///< the payload, tab prefix removed, lines joined with '\n'
    bool md5Ok = true; ///< false: the payload does not match `has_payload` (kept, with a diagnostic)
    TracePlace place;
};

/// An input tensor or symbol of a compile as `describe_tensor` / `describe_source` / `create_symbol` give it.
struct TraceSource {
    int describerId = 0;
    int id = 0; ///< tensor id within the describer
    std::string source; ///< "L['self']._modules['embed']._parameters['weight']", "L['tokens']"
    std::string dtype; ///< "torch.float32"
    std::string device; ///< "cuda:0" (from "device(type='cuda', index=0)")
    std::vector<int64_t> size; ///< empty for symbolic sizes, see sizeText
    std::string sizeText; ///< as printed ("[s0, 16]" or "[1, 16]")
    std::vector<int64_t> stride;
    bool isParameter = false;
    bool requiresGrad = false;
};

struct TraceSymbol {
    std::string symbol; ///< "s27"
    std::string source; ///< "L['tokens'].size()[0]"
    std::optional<int64_t> hint; ///< the value the first compile saw ("val")
    TracePlace place;
};

/// A chromium event span (begin "B" / end "E" pairs joined), in microseconds since the epoch.
struct TraceSpan {
    std::string name; ///< "dynamo", "entire_frame_compile", "inductor_compile", "CUDAGraphNode.record", ...
    std::string category;
    double startUs = 0;
    double endUs = 0; ///< == startUs when the end is missing (cut log)
    bool ended = false;
    /// String form of each arg (JSON text unless a string), cut to TraceReadOptions::maxSpanArgBytes
    /// with "..." appended when longer.
    std::map<std::string, std::string> args;
};

/// Everything the log says about one compile id, in log order within each list.
struct TraceCompile {
    CompileId id;
    TracePlace first; ///< where its first record is
    std::vector<std::string> stack; ///< dynamo_start's user frames, innermost last: "file:line in name"
    /// Graph payloads: dynamo_output_graph, aot_inference_graph / aot_forward_graph / aot_backward_graph,
    /// inductor_post_grad_graph, and graph artifacts (before_pre_grad_graph, after_joint_graph, ...).
    std::vector<TracePayload> graphs;
    std::optional<TracePayload> outputCode; ///< inductor_output_code
    /// Every other record of the compile: artifacts (fw_metadata, recompile_reasons, ...), and records with
    /// no payload that are not read into the fields here (guard_added_fast, unknown kinds): their metadata
    /// as JSON text, name = kind.
    std::vector<TracePayload> artifacts;
    std::vector<std::string> recompileReasons; ///< from the recompile_reasons artifact (JSON list)
    std::string guards; ///< dynamo_cpp_guards_str payload
    std::vector<TraceSource> sources; ///< joined by (describer_id, id), in describe order
    std::vector<TraceSymbol> symbols;
    std::vector<TraceSpan> spans;
    /// compilation_metrics as its JSON text ("" when absent): times, cache hits, fail_type, fail_reason, ...
    std::string metricsJson;
    /// A few metrics read out for display. Times in seconds; negative when absent.
    double compileSeconds = -1; ///< entire_frame_compile_time_s
    std::string failType, failReason;
    std::vector<int> staticInputIndices; ///< from the fw_metadata artifact's static_input_indices
    size_t records = 0;
};

struct TraceDiagnostic {
    uint64_t line = 0;
    std::string message;
};

struct TorchTrace {
    std::string path;
    std::optional<int> rank; ///< from "dedicated_log_torch_trace_rank_<N>_..." or "rank_<N>" in the name
    std::vector<TraceCompile> compiles; ///< in order of first appearance
    std::vector<TraceSpan> spans; ///< spans of no compile (runtime: CUDAGraphNode.record, ...)
    std::vector<std::string> runtimeMetricsJson; ///< compilation_metrics_runtime payloads/envelopes
    std::vector<TraceDiagnostic> diagnostics; ///< lines skipped, md5 mismatches, cut records
    uint64_t records = 0;
    uint64_t bytes = 0;

    const TraceCompile* find(const CompileId& id) const;
};

struct TraceReadOptions {
    /// Called with bytes read and the total; returning false cancels (Error Cancelled).
    std::function<bool(uint64_t done, uint64_t total)> progress;
    /// Payload text kept per record at most (longer payloads are cut with a diagnostic).
    uint64_t maxPayloadBytes = uint64_t(256) << 20;
    /// A chromium event's arg kept per value at most (longer ones are cut, "..." appended, no
    /// diagnostic): the cache events' "components" lists repeat what their artifacts hold in full.
    uint64_t maxSpanArgBytes = 4096;
};

/// Is this (the first bytes of a file) a structured trace? True when the first non-empty line is a
/// glog header whose JSON envelope parses and has a known key or frame_id.
bool looksLikeTorchTrace(const std::string& head);

/// Reads one log file. Errors: unreadable (Io), not a trace at all (ParseError naming file:line),
/// cancelled. A cut or damaged record is a diagnostic, not an error.
Result<TorchTrace> readTorchTrace(const std::string& path, const TraceReadOptions& options = {});

/// A TORCH_TRACE folder: one TorchTrace per log file (one per rank), sorted by rank then name.
/// A single file is accepted too.
Result<std::vector<TorchTrace>> readTorchTraceDir(const std::string& path, const TraceReadOptions& options = {});

} // namespace engine::readers::trace
