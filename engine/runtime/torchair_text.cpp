#include "engine/runtime/torchair_text.h"

#include <cstdio>

namespace engine::runtime::text {

std::string memState(const std::vector<memory::SegmentInfo>& segments)
{
    std::string out;
    for (const memory::SegmentInfo& seg : segments) {
        if (seg.pool.isDefault())
            continue;
        out += "\n({'device': " + std::to_string(seg.device) + "}, {'stream': " + std::to_string(seg.stream)
            + "}, {'pool_id': " + seg.pool.str() + "}, {'block_num': " + std::to_string(seg.blockNum())
            + "}, {'activate_num': " + std::to_string(seg.activeNum()) + "}, {'total_size': "
            + std::to_string(seg.totalSize) + "}, {'allocated_size': " + std::to_string(seg.allocatedSize) + "})";
    }
    return out;
}

std::string findCaptured(int id, const std::string& graph, const std::string& key)
{
    return "Find captured AclGraph{id: " + std::to_string(id) + "} of fx_graph " + graph + " with graph key {" + key
        + "}.";
}

std::string needsRecapture(const std::string& graph, const std::string& key)
{
    return "The current AclGraph needs to be recaptured for fx_graph " + graph + " with graph key {" + key + "}.";
}

std::string noNeedsRecapture(const std::string& graph, const std::string& key)
{
    return "The current AclGraph no needs to be recaptured for fx_graph " + graph + " with graph key {" + key + "}.";
}

std::string startCapture(int id, const std::string& graph, const std::string& key)
{
    return "No find captured AclGraph{id: " + std::to_string(id) + "} of fx_graph " + graph + " with graph key {" + key
        + "}, and start to capture it.";
}

std::string successCapture(const std::string& graph, const std::string& key, int id, int updatedNodes)
{
    return "Success to capture fx_graph " + graph + " for graph key{" + key + "}. Start to run AclGraph{id: "
        + std::to_string(id) + "} with the updated node num {" + std::to_string(updatedNodes) + "}.";
}

std::string startStaticKernel(const std::string& graph, const std::string& values)
{
    return "Start to compile static shape kernel for fx graph " + graph + ", all symbol input indices and values are "
        + values + ".";
}

std::string skipStaticKernel(
    const std::string& graph, const std::string& values, int64_t symIndex, const std::string& range)
{
    return "Skip compile static shape kernel for fx graph " + graph + ", all symbol input indices and values are "
        + values + ". The specified sym index is " + std::to_string(symIndex) + " and the specified sym value range is "
        + range + ".";
}

std::string captureInfo(int id, const std::string& graph, const std::string& key, int params, int mutated, int alias,
    const std::string& meta)
{
    return "AclGraph{id: " + std::to_string(id) + "} of fx_graph " + graph + " with graph key {" + key + "}, has {"
        + std::to_string(params) + "} parameters and {" + std::to_string(mutated) + "} mutated_inputs, and {"
        + std::to_string(alias) + "} input alias, all the input meta info are " + meta + ".";
}

std::string afterCapturing(
    const std::string& graph, const std::string& key, int id, bool reuse, const std::string& state)
{
    return "After capturing fx_graph " + graph + " for graph key{" + key + "} to AclGraph{id: " + std::to_string(id)
        + "}, memory pool reuse is " + (reuse ? "enable" : "disable") + ", the memory state is {" + state + "}.";
}

std::string startSettingOriginal(const std::string& graph, const std::string& key, const std::string& state)
{
    return "Start setting to original memory state for fx_graph " + graph + " with graph key{" + key
        + "}. The current memory state is {" + state + "}.";
}

std::string afterSettingOriginal(const std::string& graph, const std::string& key, const std::string& state)
{
    return "After setting to original memory state for fx_graph " + graph + " with graph key{" + key
        + "}. The current memory state is {" + state + "}.";
}

std::string counters(Backend b, const std::string& graph, int captures, int mutated, int coreLimit, int force)
{
    std::string s = "For graph " + graph + " : the count of captures is " + std::to_string(captures)
        + ", and count of recaptures caused by mutated inputs changed is " + std::to_string(mutated)
        + ", and count of recaptures caused by global limit changed is " + std::to_string(coreLimit);
    if (b == Backend::NpugraphEx)
        s += ", and count of recaptures caused by force_recapture is " + std::to_string(force);
    return s;
}

std::string retainedOneKey(const std::string& graph, const std::string& key)
{
    return "When mempool reuse is enabled in fx_graph " + graph + " for graph key{" + key
        + "} and there is only one graph meta captured, all the outputs are retained.";
}

std::string retainedNoReuse(Backend b, const std::string& graph, const std::string& key)
{
    const std::string option = b == Backend::NpugraphEx
        ? "config.reuse_graph_pool_in_same_fx is False"
        : "config.debug.aclgraph.disable_mempool_reuse_in_same_fx is True";
    return "When " + option + ", no mempool reuse in fx_graph " + graph + " for graph key{" + key
        + "}, all the outputs are retained.";
}

std::string outputsAlive(const std::string& graph, const std::string& key)
{
    return "All output tensors weak ref are valid, no need to reconstruct output tensors for fx_graph " + graph
        + " with graph key{" + key + "}.";
}

std::string beforeReconstruct(const std::string& graph, const std::string& key, const std::string& state)
{
    return "Before reconstructing fx_graph " + graph + " outputs for graph key{" + key + "}, the memory state is {"
        + state + "}.";
}

std::string afterReconstruct(const std::string& graph, const std::string& key, const std::string& state)
{
    return "After reconstructing fx_graph " + graph + " outputs for graph key{" + key + "}, the memory state is {"
        + state + "}.";
}

std::string outputOverwriteWarning(Backend b)
{
    return std::string("Because acl graph fixes memory addresses, acl graphs do not have a great way of handling live "
                       "tensors from a previous invocation. The retained memory of acl graph output tensors will be "
                       "overwritten by subsequent executions, which may cause precision issues. See "
                       "https://docs.pytorch.org/docs/main/torch.compiler_cudagraph_trees.html#limitations for more "
                       "details. To resolve this, you can either: 1. Remove the memory retention of all the output "
                       "tensors in your script; 2. Enable debug option by setting ")
        + (b == Backend::NpugraphEx ? "clone_output=True." : "debug.aclgraph.enable_output_clone=True.");
}

std::string captureLimitWarning(Backend b, const std::string& graph, const std::string& key, int64_t limit)
{
    const bool ex = b == Backend::NpugraphEx;
    const std::string option = ex ? "capture_limit" : "static_capture_size_limit";
    return "The " + option + " reached when capturing fx_graph " + graph + " with graph key " + key
        + ", we will fall back to eager for all subsequent executions. Excessive recapture can degrade performance "
          "due to the each recapture overhead, and result in unexpected resources consumption, including stream, "
          "memory, etc. This may lead to program error: The resources are insufficient. The current "
        + option + " is " + std::to_string(limit) + ". If recapture are expected, consider increasing "
        + (ex ? "capture_limit" : "debug.aclgraph.static_capture_size_limit") + " to an appropriate value.";
}

std::string resetBefore(const std::string& graph, const memory::PoolId& pool, const std::string& state)
{
    return "Current fx_graph " + graph + " memory pool is " + pool.str()
        + ". Before reset, the current memory state is {" + state + "}.";
}

std::string resetAfter(const std::string& graph, const memory::PoolId& pool, const std::string& state)
{
    return "Current fx_graph " + graph + " memory pool is " + pool.str()
        + ". After reset, the current memory state is {" + state + "}.";
}

std::string updateStream(int replayStream, int updateStream)
{
    return "Update the stream for parameter, replay stream id: " + std::to_string(replayStream)
        + ", update stream id: " + std::to_string(updateStream) + ".";
}

std::string paramsUpdated()
{
    return "Replay AclGraph and update input params successfully.";
}

std::string overheadPhase(const std::string& phase, const std::string& function, double seconds)
{
    char buf[64] = "?";
    if (seconds >= 0)
        std::snprintf(buf, sizeof buf, "%.10f", seconds);
    return "The operation of [npugraph_ex overhead] " + phase + " phase (function name: " + function + ") cost " + buf
        + "s.";
}

std::string processInputsTook(const std::string& graph, double seconds)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", seconds);
    return graph + " process inputs foreach copy took " + buf + " [s]";
}

std::string capturedCounter(const std::string& graph)
{
    return "captured_" + graph;
}
std::string mutatedRecaptureCounter(const std::string& graph)
{
    return "recapture_due_to_mutated_input_change_" + graph;
}
std::string coreLimitRecaptureCounter(const std::string& graph)
{
    return "recapture_due_to_global_limit_core_change_" + graph;
}
std::string forceRecaptureCounter(const std::string& graph)
{
    return "recapture_due_to_force_recapture_" + graph;
}

const char* loggerTag(Backend b)
{
    return b == Backend::NpugraphEx ? "NPUGRAPH_EX" : "TORCHAIR";
}

} // namespace engine::runtime::text
