// What a recorded stack says about an allocation (story_frames.h).
#include "engine/snapshot/story_frames.h"

#include "engine/core/text_codec.h"

#include <vector>

namespace engine::snapshot::story_detail {

namespace {

bool has(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

/// Triton's benchmarking of kernel configurations (torch/_inductor/runtime/benchmarking.py
/// benchmark_gpu's L2-flush buffer, triton_heuristics.py's autotune and the argument clones it
/// benchmarks on), and max-autotune's select_algorithm.py.
bool isAutotune(const Frame& f)
{
    if (endsWith(f.filename, "torch/_inductor/runtime/benchmarking.py")
        || (endsWith(f.filename, "torch/_inductor/fx_passes/pad_mm.py") && has(f.name, "bench"))
        || endsWith(f.filename, "torch/_inductor/select_algorithm.py")
        || endsWith(f.filename, "torch/_inductor/autotune_process.py"))
        return true;
    if (!endsWith(f.filename, "torch/_inductor/runtime/triton_heuristics.py"))
        return false;
    for (const char* n : { "bench", "benchmark_all_configs", "autotune_to_one_config", "maybe_clone_args",
             "clone_preserve_strides", "prepare_arg", "kernel_call", "copy_args_to_cpu_if_needed" })
        if (f.name == n)
            return true;
    return false;
}

/// Graph-capture code: the file (substring), its functions (empty: any) and the kind it names.
const char* captureKindOf(const Frame& f)
{
    struct Marker {
        const char* file;
        std::vector<const char*> names;
        const char* kind;
    };
    static const std::vector<Marker> markers = {
        { "torch/cuda/graphs.py", { "capture_begin", "__enter__", "make_graphed_callables" }, "torch.cuda.graph" },
        { "torch_npu/npu/graphs.py", { "capture_begin", "__enter__", "make_graphed_callables" },
            "torch_npu.npu.graph" },
        { "torch_npu/npu/_graph_tree.py", {}, "NPU graph trees" },
        { "torchair/_acl_concrete_graph/", { "capture", "compile_for_graph_key", "compile", "__call__" },
            "TorchAir aclgraph" },
        { "npugraph_ex/_acl_concrete_graph/", { "capture", "compile_for_graph_key", "compile", "__call__" },
            "npugraph_ex aclgraph" },
    };
    for (const Marker& m : markers) {
        if (!has(f.filename, m.file))
            continue;
        if (m.names.empty())
            return m.kind;
        for (const char* n : m.names)
            if (f.name == n)
                return m.kind;
    }
    return nullptr;
}

} // namespace

const char* phaseName(Phase p)
{
    switch (p) {
    case Phase::None:
        return "none";
    case Phase::Restore:
        return "checkpoint restore";
    case Phase::StaticInput:
        return "static input copy";
    case Phase::Recording:
        return "recording";
    case Phase::WarmUp:
        return "warm-up";
    case Phase::Other:
        return "other";
    }
    return "none";
}

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string shortFrame(const Frame& f)
{
    return baseName(f.filename) + ":" + std::to_string(f.line) + " " + f.name;
}

bool isGeneratedModule(const std::string& file)
{
    return has(file, "/torchinductor_") && endsWith(file, ".py");
}

bool isUserFrame(const Frame& f)
{
    const std::string_view file = f.filename;
    if (file.empty() || file == "??" || file[0] == '<' || f.name.empty())
        return false;
    for (const char* ext : { ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu" })
        if (endsWith(file, ext))
            return false;
    if (has(file, "site-packages/") || has(file, "dist-packages/") || has(file, "/torch/") || has(file, "/torch_npu/")
        || has(file, "/torchair/") || has(file, "/lib/python3") || isGeneratedModule(f.filename))
        return false;
    return !has(f.name, "::");
}

const StackFacts& FrameRules::of(StackId stack)
{
    if (auto it = m_cache.find(stack); it != m_cache.end())
        return it->second;
    StackFacts s;
    if (stack < m_snap.stacks.size()) {
        const auto& frames = m_snap.stacks[stack];
        int rank = 0; // of the phase found so far (the strongest wins)
        const auto phaseRank = [](Phase p) {
            switch (p) {
            case Phase::Restore:
                return 5;
            case Phase::StaticInput:
                return 4;
            case Phase::Recording:
                return 3;
            case Phase::WarmUp:
                return 2;
            case Phase::Other:
                return 1;
            case Phase::None:
                break;
            }
            return 0;
        };
        std::string anyModule, anySite;
        for (uint32_t k : frames) { // innermost first
            const Frame& f = m_snap.frames[k];
            if (endsWith(f.filename, "torch/_inductor/cudagraph_trees.py")) {
                Phase p = Phase::Other;
                if (f.name == "apply_checkpoint_execution_state_in_allocator")
                    p = Phase::Restore;
                else if (f.name == "_allocate_and_copy_recording_inputs")
                    p = Phase::StaticInput;
                else if (f.name == "_record" || f.name == "record_function")
                    p = Phase::Recording;
                else if (f.name == "run_eager")
                    p = Phase::WarmUp;
                else if (f.name == "clear_cublass_cache" || f.name == "clear_cublas_manager")
                    s.freesCublasWorkspace = true;
                if (phaseRank(p) > rank) {
                    rank = phaseRank(p);
                    s.phase = p;
                    s.cgtFrame = "cudagraph_trees.py:" + std::to_string(f.line) + " " + f.name;
                }
            } else if (isGeneratedModule(f.filename)) {
                const bool entry = f.name == "call" || f.name.rfind("partition_", 0) == 0;
                if (s.module.empty() && entry) {
                    s.module = baseName(f.filename);
                    s.site = s.module + ":" + std::to_string(f.line);
                }
                if (anyModule.empty()) {
                    anyModule = baseName(f.filename);
                    anySite = anyModule + ":" + std::to_string(f.line);
                }
            } else if (!s.autotune && isAutotune(f)) {
                s.autotune = true;
                s.autotuneFrame = shortFrame(f);
            } else if ((endsWith(f.filename, "torch/cuda/graphs.py") || endsWith(f.filename, "torch_npu/npu/graphs.py"))
                && (f.name == "capture_begin" || f.name == "__enter__")) {
                s.captureBegin = true;
            }
            if (s.captureKind.empty())
                if (const char* kind = captureKindOf(f)) {
                    s.captureKind = kind;
                    s.captureFrame = shortFrame(f);
                }
            if (s.fxNode.empty() && !f.fxNodeName.empty())
                s.fxNode = f.fxNodeName;
            if (endsWith(f.filename, "torch/_dynamo/convert_frame.py")
                || (endsWith(f.filename, "torch/_inductor/compile_fx.py") && f.name.rfind("compile_fx", 0) == 0))
                s.compiling = true;
            if (isUserFrame(f)) {
                if (s.innerUser.empty())
                    s.innerUser = shortFrame(f);
                s.outerUser = shortFrame(f);
            }
        }
        s.compiling = s.compiling && s.phase == Phase::None && anyModule.empty();
        if (s.module.empty()) {
            s.module = anyModule;
            s.site = anySite;
        }
    }
    return m_cache.emplace(stack, std::move(s)).first->second;
}

} // namespace engine::snapshot::story_detail
