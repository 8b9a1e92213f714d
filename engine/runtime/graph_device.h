#pragma once
/// Which device an FX graph is captured on. TorchAir does not read it from the graph: an AclGraph
/// takes `torch_npu.npu.current_device()` when it is built (acl_graph.py:791 at fced8842) and
/// captures, checkpoints and rolls back its pool on that device (lines 964, 1125, 1141, 1592). A
/// file does not record the current device, but the graph's tensors name theirs ("f32[4, 8][8, 1]npu:1"),
/// and a program that calls a compiled model with tensors on npu:1 runs it with npu:1 current. So the
/// simulator takes the device its inputs name, and says so where that is not one clear answer.
#include "engine/graph/graph.h"
#include "engine/memory/caching_allocator.h"

#include <string>
#include <vector>

namespace engine::runtime {

/// The index of "npu:1" / "cuda:1" (1); -1 for a CPU or meta tensor and for a device printed
/// without an index ("npu") or not at all ("").
int deviceIndex(const std::string& device);

struct GraphDevice {
    int index = 0;
    std::vector<int> named; ///< every device index its tensors name, ascending
    /// What was assumed, for Simulation::assumptions: some tensor names no device (index 0 taken),
    /// or the tensors name several devices (the first input's taken). Empty when one device is named.
    std::string note;
};

/// The device of `g`: the first device a placeholder names, else the first any tensor names, else
/// index 0 (the current device of a process that never called set_device), with a note.
GraphDevice graphDevice(const Graph& g, memory::Profile profile);

/// The device of placeholder tensor `meta` in a graph on device `graphDevice`: its own where it
/// names one, else the graph's.
int inputDevice(const TensorMeta& meta, int graphDevice);

} // namespace engine::runtime
