#include "engine/report/cgt_hazard_explain.h"

#include <algorithm>

namespace engine::report {

using runtime::Hazard;
using runtime::HazardKind;
using runtime::Simulation;

namespace {

constexpr const char* kRules = "docs/cuda-graph-trees.md";

/// The log lines of the hazard's call that carry `needle` (verbatim, with their level as a prefix).
std::vector<std::string> callLines(const Simulation& sim, const Hazard& h, const std::string& needle)
{
    std::vector<std::string> out;
    for (const runtime::Event& e : sim.events)
        if (e.call == h.call)
            for (const runtime::LogLine& l : e.log)
                if (l.text.find(needle) != std::string::npos && std::find(out.begin(), out.end(), l.text) == out.end())
                    out.push_back("[" + std::string(runtime::logLevelName(l.level)) + "] " + l.text);
    return out;
}

} // namespace

HazardExplanation explainCudaHazard(const Simulation& sim, int hazardIndex)
{
    HazardExplanation x;
    if (hazardIndex < 0 || hazardIndex >= int(sim.hazards.size())) {
        x.title = "hazard " + std::to_string(hazardIndex) + " is not in the run";
        return x;
    }
    const Hazard& h = sim.hazards[size_t(hazardIndex)];
    x.what = "Call " + std::to_string(h.call) + ", graph " + h.graph + (h.key.empty() ? "" : " at size " + h.key) + ": "
        + h.message + ".";
    x.quotesFrom = "PyTorch";
    switch (h.kind) {
    case HazardKind::OutputOverwritten:
        x.title = "Held output overwritten by a later replay (silently)";
        x.why = "Every replay of a recording returns the same output tensors at the same addresses "
                "(reconstruct_outputs caches them), so an output the program keeps shows the values of the newest "
                "replay of that recording. Nothing is raised.";
        x.avoid = { "Clone the output outside the compiled function before the next call: out = model(x).clone().",
            "Read or consume the output before calling the compiled function again." };
        x.source = std::string(kRules) + " §6 L1, L2 (cudagraph_trees.py reconstruct_outputs ≈1166-1220)";
        break;
    case HazardKind::OverwrittenError:
        x.title = "Held output freed by a new generation: reading it raises";
        x.why = "The outputs of a warm-up or a recording live in the pool only until the next generation (the next "
                "call of any compiled function in inference, or torch.compiler.cudagraph_mark_step_begin()). Then "
                "dealloc_current_path_weakrefs frees them and marks their storage, so any read of the data raises "
                "RuntimeError.";
        x.avoid = { "Clone the output outside torch.compile() before the next compiled call.",
            "Call torch.compiler.cudagraph_mark_step_begin() before each model invocation, and read outputs before "
            "the next one." };
        // PyTorch raises the error to the program and logs nothing: the hazard's message carries the text
        // (after "raises RuntimeError: ", or quoted when a held output was freed).
        if (const auto at = h.message.find("Error: accessing tensor output"); at != std::string::npos) {
            std::string text = h.message.substr(at);
            if (!text.empty() && text.back() == '"')
                text.pop_back();
            x.quotes.push_back("RuntimeError: " + text);
        }
        x.source = std::string(kRules)
            + " §6 L3-L5 (cudagraph_trees.py dealloc_current_path_weakrefs 2600-2647, "
              "format_dealloc_msg 2588-2598)";
        break;
    case HazardKind::StaticInputMoved:
        x.title = "Static input moved: the function records again";
        x.why = "Parameters, buffers and mark_static_address tensors are captured at their addresses. Before a replay "
                "PyTorch checks them; a moved one fails the check, so the function is recorded again as a new "
                "sibling. The old recordings stay (with their memory) and are replayed again if the old address comes "
                "back.";
        x.avoid = { "Keep weights and KV caches at fixed addresses: update them in place (copy_) instead of "
                    "rebinding new tensors.",
            "If the tensor must change, mark the new one with torch._dynamo.mark_static_address only once and reuse "
            "it." };
        x.quotes = callLines(sim, h, "Re-recording function=");
        x.source = std::string(kRules) + " §5 R1, R3, R8 (cudagraph_trees.py check_invariants ≈1742-1811)";
        break;
    case HazardKind::RecaptureStorm:
        x.title = "Re-record storm";
        x.why = "Each failed replay check records a new sibling and keeps the old ones; with "
                "torch._dynamo.config.inline_inbuilt_nn_modules=True (the default) the re-record limit "
                "(triton.cudagraph_unexpected_rerecord_limit) is never enforced, so recordings pile up in the pool.";
        x.avoid = { "Keep static inputs at fixed addresses (see the static_input_moved hazards of this run).",
            "Set torch._inductor.config.triton.cudagraph_unexpected_rerecord_limit together with "
            "torch._dynamo.config.inline_inbuilt_nn_modules=False to cap it (the function then runs eagerly)." };
        x.source = std::string(kRules) + " §5 R3, R7";
        break;
    case HazardKind::CudagraphsSkipped:
        x.title = "CUDA graphs skipped";
        x.why = "Inductor decided the graph cannot be captured (a mutated input that is not static, a CPU tensor, "
                "several devices, an incompatible op, or a size outside cudagraph_capture_sizes) and runs the compiled "
                "code directly: no warm-up, no recording, no replay, and none of the launch savings.";
        x.avoid = { "Remove the cause named in the message: mark mutated caches static "
                    "(torch._dynamo.mark_static_address), keep the graph on one CUDA device, avoid .item() in the "
                    "compiled region.",
            "Set torch._inductor.config.triton.cudagraph_or_error=True to make it an error while you fix it." };
        x.quotes = callLines(sim, h, "skipping cudagraph");
        x.source = std::string(kRules) + " §7 (cudagraph_utils.py:206-215 log_cudagraph_skip_and_bump_counter)";
        break;
    case HazardKind::PoolGrowth:
        x.title = "Pool grew for a new size";
        x.why = "All compiled functions on a device share one private pool. Every distinct size of a dynamic graph is "
                "a new function that warms up and records in it; the pool's segments are never returned while the "
                "tree manager lives.";
        x.avoid = { "Pad inputs to a few fixed sizes.",
            "Restrict captures with torch._inductor.config.triton.cudagraph_capture_sizes, or set "
            "triton.cudagraph_skip_dynamic_graphs=True." };
        x.source = std::string(kRules) + " §9 M1, M6; §2 F2-F4";
        break;
    case HazardKind::RecompileLimit:
        x.title = "Dynamo recompile limit hit";
        x.why = "Dynamo keeps at most torch._dynamo.config.recompile_limit (8) compiled entries per frame. The next "
                "recompile raises FailOnRecompileLimitHit under fullgraph=True, else the frame runs eagerly for calls "
                "that match no entry.";
        x.avoid = { "Compile with dynamic=True (or mark the changing dimension dynamic) so sizes do not recompile.",
            "Raise torch._dynamo.config.recompile_limit if the recompiles are expected." };
        x.quotes = callLines(sim, h, "hit config.");
        x.source = std::string(kRules) + " §8 (torch/_dynamo/convert_frame.py)";
        break;
    case HazardKind::CallRaised:
        x.title = "The call raises";
        x.why = "PyTorch raised the exception to the program at this call: Dynamo's FailOnRecompileLimitHit under "
                "fullgraph=True (or fail_on_recompile_limit_hit), or an assertion inside CUDA Graph Trees (a static "
                "input that moved with re-recording off, a re-record reason that cannot be explained under "
                "TORCH_LOGS=+cudagraphs for a graph with int inputs, a static input that moved with "
                "cudagraph_trees=False). A program that does not catch it stops here; the simulation goes on as if it "
                "did.";
        x.avoid = { "For the recompile limit: compile with dynamic=True or raise torch._dynamo.config.recompile_limit.",
            "For a moved static input: keep weights and caches at fixed addresses (update them in place)." };
        x.quotes = { h.message.substr(h.message.find("raises ") + 7) };
        x.source = std::string(kRules) + " §5 R6, §4 I5, §8 D3";
        break;
    case HazardKind::OutOfMemory:
        x.title = "Out of memory";
        x.why = "The warm-ups, recordings and their input buffers of every function share the manager's pool, which "
                "never shrinks; the device could not hold one more segment.";
        x.avoid = { "Fewer distinct sizes (padding, cudagraph_capture_sizes), or fewer re-records." };
        x.quotes = callLines(sim, h, "out of memory");
        x.source = std::string(kRules) + " §9";
        break;
    case HazardKind::RecompilePerCall:
        x.title = "A recompile on call after call";
        x.why = "Dynamo guards each compiled entry of a function; when a guard fails on every call (a size that is "
                "not marked dynamic, a Python value that changes, a tensor's address or attribute it specialised "
                "on) it compiles again, and each compile is a new FX graph that warms up and records its own CUDA "
                "graph in the shared pool, until the recompile limit sends the function to eager.";
        x.avoid = { "Read the guard failures (TORCH_LOGS=recompiles): mark the changing dimension dynamic "
                    "(torch._dynamo.mark_dynamic) or compile with dynamic=True.",
            "Move values that change each call out of the compiled function, or pass them as tensors." };
        x.quotes = callLines(sim, h, "Recompiling function");
        x.source = std::string(kRules) + " §8 (torch/_dynamo/guards.py, convert_frame.py); docs/run-logs.md";
        break;
    default:
        x.title = runtime::hazardKindName(h.kind);
        x.why = "A TorchAir hazard in a CUDA Graph Trees run: not produced by this runtime.";
        x.source = "engine/runtime/cgt/cgt_run.cpp";
        break;
    }
    if (x.quotes.empty())
        x.quotesFrom.clear();
    return x;
}

} // namespace engine::report
