#pragma once
/// Analysis of `torch_npu.npu_prefetch(input, dependency, max_size, offset=0) -> ()` nodes in an FX
/// graph (torchair-behavior.md §6, docs/prefetch.md): how many bytes each prefetch moves into L2, the
/// window of nodes it has to hide in (from its dependency to the first node that reads the weight),
/// whether it (or several prefetches live at once) overflow L2, and TorchAir's own validation messages.
#include "engine/graph/graph.h"
#include "engine/graph/sym_expr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace engine::analysis {

/// One `npu_prefetch` node and what it does.
struct PrefetchFinding {
    std::string node; ///< the npu_prefetch node
    std::string weight; ///< node feeding arg 0 (`input`/`self`)
    uint64_t weightBytes = 0; ///< storage bytes of `weight` (0 when unknown: see weightBytesKnown)
    /// False when the weight's size cannot be computed (no tensor metadata, an unbound symbol): then
    /// nothing is clamped and bytesMoved is max_size, an upper bound.
    bool weightBytesKnown = false;
    std::string dependency; ///< arg 1 node name, empty when None
    int64_t maxSize = 0, offset = 0; ///< as given (a symbolic value evaluated with the symbols, else 0)
    /// min(max_size, weightBytes - offset), clamped at 0; 0 when TorchAir refuses the arguments
    /// (max_size <= 0, offset < 0) or the offset lies outside the weight.
    uint64_t bytesMoved = 0;
    /// First call node after the prefetch, in graph order, that reads or writes the weight or a view of
    /// it; pure view/getitem nodes, size queries and other prefetches do not count. Empty if none.
    std::string firstConsumer;
    /// Call nodes (call_function/call_method) strictly between the dependency and the first consumer,
    /// not counting the prefetch itself; -1 when there is no dependency or no consumer.
    int windowNodes = -1;
    /// The same window counting only nodes that launch device work (views, getitem and size queries
    /// excluded); -1 when windowNodes is.
    int windowKernels = -1;
    bool exceedsL2 = false; ///< bytesMoved > l2Bytes
    /// The most bytes that prefetches (this one included) hold in L2 at any one point of this prefetch's
    /// residency (after its dependency, or the prefetch when there is none, up to its first consumer, or
    /// the graph's end when there is none).
    uint64_t overlapBytes = 0;
    std::vector<std::string> overlapsWith; ///< other prefetch nodes whose residency overlaps this one's
    bool overlapExceedsL2 = false; ///< overlapBytes > l2Bytes
    /// TorchAir's GE-converter texts, exact and in its order (it raises only the first), then ours.
    std::vector<std::string> errors;
    std::vector<std::string> notes;
};

/// An edge for the graph view to draw: kind "dependency" (dependency -> prefetch) or "prefetches"
/// (prefetch -> first consumer, or prefetch -> weight when nothing consumes it).
struct PrefetchEdge {
    std::string from, to;
    std::string kind;
};

/// Every prefetch of one graph, in graph order.
struct PrefetchReport {
    std::vector<PrefetchFinding> prefetches;
    std::vector<PrefetchEdge> edges;
    uint64_t l2Bytes = 0;
    uint64_t peakOverlapBytes = 0; ///< max over the findings' overlapBytes
};

/// Recognises `npu.npu_prefetch.default` (also spelled `torch.ops.npu.npu_prefetch.default`, or any
/// target whose classifyOp packet is `npu_prefetch`) in a finalized graph. Arguments are read
/// positionally or as kwargs (`self`/`input`, `dependency`, `max_size`, `offset`). `symbols` give
/// values to symbolic sizes (weightBytes) and to SymInt placeholders passed as max_size/offset.
PrefetchReport analyzePrefetches(const Graph& graph, uint64_t l2Bytes, const SymbolValues& symbols = {});

} // namespace engine::analysis
