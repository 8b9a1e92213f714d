// view_to_reshape (npu_fx_compiler.py `_view_to_reshape`, §4.0 pass 5): every aten.view.default becomes
// aten.reshape.default, so that a view of a non-contiguous tensor does not fail at capture.
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

namespace engine::passes {

Result<PassReport> viewToReshape(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "view_to_reshape", {}, true, [](Graph& g, PassReport& report) -> Result<void> {
        for (Node& n : g.nodes) {
            if (n.op != NodeOp::CallFunction)
                continue;
            const std::string target = detail::targetOf(n);
            if (target == "aten.view.default") {
                report.rewritten.push_back({ n.name, target, "aten.reshape.default" });
                n.target = "aten.reshape.default";
            } else if (target == "aten.view.dtype") {
                // TorchAir compares the target with aten.view.default only.
                report.skipped.push_back({ n.name, "only aten.view.default is rewritten; aten.view.dtype stays" });
            }
        }
        return {};
    });
}

} // namespace engine::passes
