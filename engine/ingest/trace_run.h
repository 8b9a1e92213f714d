#pragma once
/// What a TORCH_TRACE says about the run it recorded, beyond its graphs: whether the compiled code
/// ran under CUDA graphs, each compiled function's first run and each CUDA graph recording in time
/// order, the Python function (frame) each compile belongs to, how each compile ended, and the
/// configuration the compiles dumped. Read from the trace's own records only:
/// - `cudagraphify.get_container` spans (torch/_inductor/cudagraph_trees.py `cudagraphify`, which
///   compile_fx.py's cudagraphify wrapper calls on the first run of each distinct set of integer
///   inputs: one span per FunctionID, before `manager.add_function`) and `CUDAGraphNode.record` spans
///   (torch/_inductor/cudagraph_trees.py `CUDAGraphNode._record`, one per recording), both with the
///   compile id in their args;
/// - compilation_metrics: `co_name`, `fail_type`, `inductor_config` and `dynamo_config` (JSON dumps of
///   torch._inductor.config and torch._dynamo.config as they were for that compile).
/// Replays leave nothing in a trace; what a trace cannot tell is said in TraceRun::unknown.
#include "engine/readers/torch_trace.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine::ingest {

struct TraceRunStep {
    enum class Kind {
        FirstRun, ///< a compiled function's first run (cudagraphify.get_container): a warm-up under CUDA Graph Trees
        Record, ///< one CUDA graph recording (CUDAGraphNode.record)
    };
    Kind kind = Kind::FirstRun;
    std::string compileId; ///< "0/1"
    bool backward = false; ///< the span's is_backward
    double startUs = 0;
};

/// One compile's facts from its compilation_metrics.
struct TraceRunCompile {
    std::string compileId;
    int frame = -1; ///< frame_id
    std::string frameName; ///< co_name ("forward"); empty when the metrics lack it
    std::string failType; ///< "FailOnRecompileLimitHit", ...; empty when the compile succeeded
    /// torch.compile(dynamic=) as Dynamo's config shows it (dynamic=True sets
    /// assume_static_by_default False; dynamic=False sets automatic_dynamic_shapes False; None
    /// leaves both True: torch/_dynamo/eval_frame.py `_optimize` → `config.patch`).
    std::optional<bool> dynamic;
    bool dynamicKnown = false; ///< false: the metrics carry no dynamo_config
    bool hasGraph = false; ///< the compile logged a graph (it reached AOT/Inductor)
};

struct TraceRun {
    /// The graphs' tensors are on a CUDA device (describe_tensor / describe_source), with the evidence.
    bool cudaDevice = false;
    std::string deviceFrom;
    /// The compiled code ran under cudagraphs: some cudagraphify span exists.
    bool cudagraphs = false;
    std::vector<TraceRunStep> steps; ///< in time order
    std::vector<TraceRunCompile> compiles; ///< in trace order
    /// torch._inductor.config / torch._dynamo.config values (JSON text) from the last compile whose
    /// metrics dumped them, and which compile that was ("0/2").
    std::map<std::string, std::string> inductorConfig;
    std::map<std::string, std::string> dynamoConfig;
    std::string configFrom;
    std::string path; ///< the (first) log file, for messages
    /// What the trace cannot tell about the run, each with what would tell it.
    std::vector<std::string> unknown;

    const TraceRunCompile* compile(const std::string& id) const;
};

/// Reads the run facts of the first trace (rank 0 when several ranks are given: one process's run;
/// scenario/trace_scenario.h leaves the other ranks' graphs out and says so).
TraceRun readTraceRun(const std::vector<readers::trace::TorchTrace>& traces);

} // namespace engine::ingest
