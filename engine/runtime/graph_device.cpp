#include "engine/runtime/graph_device.h"

#include <algorithm>

namespace engine::runtime {

int deviceIndex(const std::string& device)
{
    const auto colon = device.find(':');
    if (colon == std::string::npos || colon + 1 == device.size() || device.compare(0, colon, "cpu") == 0
        || device.compare(0, colon, "meta") == 0)
        return -1;
    int index = 0;
    for (size_t i = colon + 1; i < device.size(); ++i) {
        if (device[i] < '0' || device[i] > '9' || index > 100000)
            return -1;
        index = index * 10 + (device[i] - '0');
    }
    return index;
}

int inputDevice(const TensorMeta& meta, int graphDevice)
{
    const int index = deviceIndex(meta.device);
    return index >= 0 ? index : graphDevice;
}

GraphDevice graphDevice(const Graph& g, memory::Profile profile)
{
    GraphDevice out;
    int fromInput = -1;
    int fromAny = -1;
    bool unnamed = false;
    for (const Node& n : g.nodes)
        for (const TensorMeta& m : n.outputs) {
            if (!m.onDevice())
                continue;
            const int index = deviceIndex(m.device);
            if (index < 0) {
                unnamed = true;
                continue;
            }
            if (std::find(out.named.begin(), out.named.end(), index) == out.named.end())
                out.named.push_back(index);
            if (fromAny < 0)
                fromAny = index;
            if (fromInput < 0 && n.op == NodeOp::Placeholder)
                fromInput = index;
        }
    std::sort(out.named.begin(), out.named.end());
    out.index = fromInput >= 0 ? fromInput : fromAny >= 0 ? fromAny : 0;
    const std::string chosen = memory::deviceName(profile, out.index);
    const std::string origin = "TorchAir captures on the device current when the AclGraph is built "
                               "(torch_npu.npu.current_device(), acl_graph.py:791), with that device's pool";
    if (out.named.size() > 1) {
        std::string list;
        for (size_t i = 0; i < out.named.size(); ++i)
            list += (i ? (i + 1 == out.named.size() ? " and " : ", ") : "") + memory::deviceName(profile, out.named[i]);
        out.note = "graph '" + g.id + "': its tensors name " + list + "; " + origin
            + ", which the file does not record: it is simulated on " + chosen + ", the device of its "
            + (fromInput >= 0 ? "first input" : "first tensor")
            + ", and inputs on another device are reported as cross_device_input (PyTorch refuses most ops whose "
              "tensors are on two devices)";
    } else if (out.named.empty() && unnamed) {
        out.note = "graph '" + g.id + "': no tensor names its device (the file prints none); " + origin
            + ", which the file does not record: it is simulated on " + chosen
            + ", the current device of a process that never calls torch.npu.set_device; tensor metadata such as "
              "f32[4, 8][8, 1]"
            + memory::deviceName(profile, 1) + " gives the device";
    }
    return out;
}

} // namespace engine::runtime
