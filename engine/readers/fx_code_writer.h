#pragma once
/// Writes a Graph as PyTorch's readable FX code (the form `print_readable()` and TorchAir's
/// `NNN_aot_forward_graph.txt` use), so that graphs from scenarios can be diffed against real dumps
/// and read back with readFxCode.
#include "engine/graph/graph.h"

#include <string>

namespace engine::readers {

/// The graph as one `class <className>(torch.nn.Module):` with its `forward`: annotations with
/// strides and device, `torch.ops.` before op-overload targets, operator and method sugar, `= None`
/// tails computed from the users (last use), `return (a, b)`.
///
/// readFxCode(writeFxCode(g)) gives back an equivalent graph: the same nodes in the same order,
/// ops, targets, args, kwargs, tensor metadata (empty strides come back as the explicit contiguous
/// ones), provenance of `# File:` lines, and input kinds: the forward header is one line unless
/// some input is a parameter or buffer; then it is the expanded form whose `# ParamAOTInput(...)` /
/// `# BufferAOTInput(...)` comments carry the kind. What does not come back: StaticAddress (read as
/// UserInput), Node::storage, workspaceBytes, storageOffset, Graph::comment, `dynamic` of a graph
/// without symbolic sizes, and the id (it becomes `className`). Multi-output producers print no
/// annotation when their getitem users describe every result (as PyTorch prints them); otherwise
/// they carry this project's tuple annotation `"(f32[4][1]npu:0, f32[2][1]npu:0)"`.
std::string writeFxCode(const Graph& graph, const std::string& className = "GraphModule");

/// The forward's statements as `GraphModule.code` prints them (what TorchAir's codegen splices,
/// fx2acl_converter.py:655-661): no type annotations, no class and no `def` line, each statement
/// on its own line indented by 8 spaces, the `# File:` comments and `= None` tails as in writeFxCode.
std::string writeFxCodeBody(const Graph& graph);

/// One argument as FX code prints it (`arg0_1`, `[1, 0]`, `'BSH'`, `None`).
std::string fxArgText(const Arg& arg);

} // namespace engine::readers
