#pragma once
/// TorchAir's own log and warning texts (torchair-behavior.md §2 and §7), filled in. Everything the
/// simulator prints that TorchAir also prints comes from here, so the wording lives in one place.
/// Texts the reference quotes only in part ("Start setting to original memory state ...",
/// "Before reconstructing ...") are completed to mirror their quoted partner; docs/simulator.md
/// lists them as inferred.
#include "engine/config/options.h"
#include "engine/memory/caching_allocator.h"

#include <string>

namespace engine::runtime::text {

using config::Backend;

/// debug_mem_state(): "\n(...)\n(...)" — one line per segment of every private pool (§4.2 of the
/// allocator reference), for use inside "{...}".
std::string memState(const std::vector<memory::SegmentInfo>& segments);

std::string findCaptured(int id, const std::string& graph, const std::string& key);
std::string needsRecapture(const std::string& graph, const std::string& key);
std::string noNeedsRecapture(const std::string& graph, const std::string& key);
std::string startCapture(int id, const std::string& graph, const std::string& key);
std::string successCapture(const std::string& graph, const std::string& key, int id, int updatedNodes);
/// AclGraph.run_eagerly_compile (force_eager with the static kernel), once per new tuple of symbol
/// values; `values` is the Python dict repr "{3: 5}" of placeholder position -> value.
std::string startStaticKernel(const std::string& graph, const std::string& values);
std::string skipStaticKernel(
    const std::string& graph, const std::string& values, int64_t symIndex, const std::string& range);
std::string captureInfo(int id, const std::string& graph, const std::string& key, int params, int mutated, int alias,
    const std::string& meta);
std::string afterCapturing(
    const std::string& graph, const std::string& key, int id, bool reuse, const std::string& state);
std::string startSettingOriginal(const std::string& graph, const std::string& key, const std::string& state);
std::string afterSettingOriginal(const std::string& graph, const std::string& key, const std::string& state);
std::string counters(Backend b, const std::string& graph, int captures, int mutated, int coreLimit, int force);
std::string retainedOneKey(const std::string& graph, const std::string& key);
std::string retainedNoReuse(Backend b, const std::string& graph, const std::string& key);
std::string outputsAlive(const std::string& graph, const std::string& key);
std::string beforeReconstruct(const std::string& graph, const std::string& key, const std::string& state);
std::string afterReconstruct(const std::string& graph, const std::string& key, const std::string& state);
std::string outputOverwriteWarning(Backend b);
std::string captureLimitWarning(Backend b, const std::string& graph, const std::string& key, int64_t limit);
std::string resetBefore(const std::string& graph, const memory::PoolId& pool, const std::string& state);
std::string resetAfter(const std::string& graph, const memory::PoolId& pool, const std::string& state);
std::string updateStream(int replayStream, int updateStream);
std::string paramsUpdated();
std::string processInputsTook(const std::string& graph, double seconds);
/// debug_time's DEBUG line for the [npugraph_ex overhead] phases of AclGraph (acl_graph.py: "generate
/// graph_key", "process input", "get updated params"): "The operation of [npugraph_ex overhead] <phase>
/// phase (function name: <function>) cost <s>s." with %.10f; `seconds` < 0 prints "?" (not modelled).
std::string overheadPhase(const std::string& phase, const std::string& function, double seconds);

/// Counter names of counters["npugraph_ex"] (§2.2, §2.3).
std::string capturedCounter(const std::string& graph);
std::string mutatedRecaptureCounter(const std::string& graph);
std::string coreLimitRecaptureCounter(const std::string& graph);
std::string forceRecaptureCounter(const std::string& graph);

/// Logger name as printed in the line prefix: "TORCHAIR" or "NPUGRAPH_EX".
const char* loggerTag(Backend b);

} // namespace engine::runtime::text
