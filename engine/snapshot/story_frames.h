#pragma once
/// What a recorded stack says about an allocation (internal to engine/snapshot; the rules are
/// listed in docs/snapshots.md, "Pools and owners"): which CUDA Graph Trees phase it ran in
/// (torch/_inductor/cudagraph_trees.py functions), which generated Inductor module, whether it is a
/// Triton autotuning buffer, and the user's frames (the first and the last outside torch).
#include "engine/snapshot/memory_snapshot.h"

#include <string>
#include <unordered_map>

namespace engine::snapshot::story_detail {

/// The CUDA Graph Trees phase, from the cudagraph_trees.py function on the stack; the strongest
/// wins in this order (a static input copy runs inside record_function, so it is tested first).
enum class Phase {
    None, ///< no cudagraph_trees.py frame
    Restore, ///< apply_checkpoint_execution_state_in_allocator: the same tensors put back
    StaticInput, ///< _allocate_and_copy_recording_inputs (compile_fx.py static_input)
    Recording, ///< CUDAGraphNode._record / CUDAGraphTreeManager.record_function
    WarmUp, ///< CUDAGraphTreeManager.run_eager (CUDAWarmupNode)
    Other, ///< another cudagraph_trees.py function
};
const char* phaseName(Phase p);

struct StackFacts {
    Phase phase = Phase::None;
    std::string cgtFrame; ///< the cudagraph_trees.py frame that decided the phase ("run_eager")
    std::string module; ///< the generated module's file name, "" when none
    std::string site; ///< "file:line" of the innermost generated-module frame, "" when none
    bool autotune = false; ///< Triton benchmarking / autotuning frames
    std::string autotuneFrame; ///< the frame that showed it
    bool captureBegin = false; ///< torch/cuda/graphs.py capture_begin (or torch_npu's)
    /// The kind of capture code on the stack: "torch.cuda.graph", "torch_npu.npu.graph", "NPU graph
    /// trees", "TorchAir aclgraph", "npugraph_ex aclgraph"; "" when none.
    std::string captureKind;
    std::string captureFrame; ///< the frame that showed it ("graphs.py:188 capture_begin")
    std::string fxNode; ///< the first FX node named by a frame (augment_with_fx_traces), "" when none
    bool freesCublasWorkspace = false; ///< cudagraph_trees.py clear_cublass_cache / clear_cublas_manager
    /// Dynamo or Inductor compiling (torch/_dynamo/convert_frame.py, torch/_inductor/compile_fx.py
    /// compile_fx*), with no generated module or CUDA Graph Trees frame below
    bool compiling = false;
    std::string innerUser; ///< the innermost frame outside torch, generated code and Python's library
    std::string outerUser; ///< the outermost such frame
};

/// Classifies stacks once per StackId.
class FrameRules {
public:
    explicit FrameRules(const Snapshot& snapshot)
        : m_snap(snapshot)
    {
    }
    const StackFacts& of(StackId stack);

private:
    const Snapshot& m_snap;
    std::unordered_map<StackId, StackFacts> m_cache;
};

/// "part_a_allocator.py:84 <module>": the file's name without its folder.
std::string shortFrame(const Frame& f);
/// A file Inductor generated (/tmp/torchinductor_<user>/xx/cHASH.py).
bool isGeneratedModule(const std::string& file);
/// Code of the user: not torch or another installed package, not generated, not Python's library
/// or C++.
bool isUserFrame(const Frame& f);
std::string baseName(const std::string& path);

} // namespace engine::snapshot::story_detail
