#pragma once
/// Reader of the Python module Inductor generates (`output_code.py` in a TORCH_COMPILE_DEBUG
/// `torchinductor/model__N_<kind>_<n>.<c>/` folder, the file TORCH_LOGS=output_code prints, the
/// cache's `.py`). PyTorch writes it in torch/_inductor/codegen/wrapper.py (PythonWrapperCodegen):
/// a header (`# AOT ID: ['0_inference']`, imports), one `async_compile.triton(...)` /
/// `async_compile.cpp_pybinding(...)` per kernel with comments naming the FX nodes it covers, then
/// `call(args)` (or, with graph partitions, `partition_N(args)` functions called by
/// `Runner.call(self, args)`), whose body is the memory plan: `empty_strided_*` allocations,
/// `# reuse` lines, `del` frees, kernel launches and `extern_kernels.*` calls, and `return`.
/// docs/inductor.md has the details and what is not read.
///
/// The text is read statically, line by line, never executed. A line that is not understood is a
/// Diagnostic (file:line) and skipped; only an empty text or one with no kernel and no call() is an
/// Error.
#include "engine/core/result.h"
#include "engine/graph/graph.h"
#include "engine/readers/fx_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engine::readers::inductor {

/// One input of the compiled graph, in the order `call(args)` unpacks them.
struct Input {
    std::string name; ///< "arg0_1"
    int line = 0; ///< the `assert_size_stride` line (0 when there is none)
    /// Sizes and strides from `assert_size_stride`; dtype and device from `get_args()`'s
    /// `rand_strided(...)` or a `# Graph fragment:` placeholder line. `device` is empty when the
    /// file does not say it (never assumed).
    TensorMeta meta;
    bool hasShape = false; ///< an `assert_size_stride` line was found
    bool hasDtype = false; ///< the dtype was found (else meta.dtype is DType::Unknown)
    bool symInt = false; ///< `get_args()` gives it an integer (a SymInt input such as s0)
};

/// One kernel the module compiles: `name = async_compile.<kind>('name', '''source''', ...)`.
struct Kernel {
    std::string name; ///< "triton_poi_fused_add_0", the variable the kernel is bound to
    std::string kind; ///< what follows `async_compile.`: "triton", "cpp_pybinding", "cpp", "cuda", ...
    int line = 0; ///< the `async_compile` line
    int sourceLines = 0; ///< lines of the kernel's source text
    std::string kernelPath; ///< `# kernel path:` (the cache file), empty when absent
    std::vector<std::string>
        sourceNodes; ///< `# Topologically Sorted Source Nodes: [...]`: FX nodes of the pre-grad graph
    std::vector<std::string> originalAten; ///< `Original ATen: [...]`: "aten.mm", ...
    /// `# Source node to ATen node mapping:` lines `#   x => embedding`, as (source node, ATen node).
    std::vector<std::pair<std::string, std::string>> sourceToAten;
    /// `# Graph fragment:` lines without the leading `#   ` (print(gm.graph) form with metadata).
    std::vector<std::string> fragment;
    /// Names defined by the fragment's lines (`%mul_1 : ... = call_function...`): the post-grad FX
    /// nodes the kernel computes; placeholders (`= PlaceHolder[...]`) are not included.
    std::vector<std::string> fragmentNodes;
    /// Triton: the parameter names of the `@triton.jit def` ("in_ptr0", "out_ptr1", "in_out_ptr0",
    /// "xnumel", ...), so that a launch's arguments can be told inputs from outputs. Empty otherwise.
    std::vector<std::string> parameters;
    int launches = 0; ///< `.run(...)` / calls of it in the plan
};

/// One step of a plan function, in file order.
struct PlanStep {
    enum class Kind {
        Alloc, ///< `buf0 = empty_strided_cuda((1, 16), (16, 1), torch.float32)`
        Reuse, ///< `buf3 = buf0; del buf0  # reuse` (also with reinterpret_tensor): buffer takes source's storage
        View, ///< `buf5 = reinterpret_tensor(buf2, ...)` or `x = y`: another name for source's storage
        Free, ///< `del buf1` (one step per name of `del a, b`)
        Launch, ///< `kernel.run(args..., stream=stream0)` or `kernel(args)` of a known kernel
        Extern, ///< `extern_kernels.mm(..., out=buf2)`, `buf3 = torch.ops.aten.x(...)`, ...
        PartitionCall, ///< `(buf4,) = self.partitions[0](partition0_args)`
        Return, ///< `return (buf5, )`
    };
    Kind kind = Kind::Alloc;
    int line = 0;
    std::string function; ///< "call", "partition_0", "Runner.call"
    /// Alloc/Reuse/View: the new name; Free: the freed name; Launch: the kernel; Extern: the callee
    /// ("extern_kernels.mm"); PartitionCall: "partition_0".
    std::string name;
    std::string source; ///< Reuse/View: the name whose storage is taken
    std::optional<TensorMeta> meta; ///< Alloc (and Reuse/View with reinterpret_tensor): sizes, strides, dtype, device
    std::optional<uint64_t> bytes; ///< Alloc: dtype size x storage extent; unset when symbolic
    /// Launch/Extern/PartitionCall/Return: every buffer or input name the arguments mention, in order
    /// (through reinterpret_tensor); PartitionCall: the partition's arguments.
    std::vector<std::string> uses;
    /// Launch: the arguments at `out_ptr*` / `in_out_ptr*` parameters; Extern: `out=` or the assigned
    /// name; PartitionCall: the names it assigns.
    std::vector<std::string> writes;
    std::vector<std::string> sourceNodes; ///< the `# Topologically Sorted Source Nodes:` comment above
    std::vector<std::string> originalAten; ///< the same comment's `Original ATen: [...]`
};

/// What a user wants to know first.
struct Summary {
    size_t kernels = 0; ///< compiled kernels (async_compile lines)
    size_t launches = 0; ///< kernel launches in the plan
    size_t externCalls = 0;
    size_t allocations = 0; ///< Alloc steps
    size_t reuses = 0;
    size_t frees = 0; ///< Free steps of buffers the plan allocated
    uint64_t allocatedBytes = 0; ///< sum of the allocations' bytes
    /// Most bytes of the plan's own allocations alive at once, walking the plan in execution order
    /// (partitions inlined where Runner.call calls them): an allocation adds, the `del` of its last
    /// name subtracts, a reuse or view adds a name. Inputs are not counted.
    uint64_t peakBytes = 0;
    int peakLine = 0; ///< the allocation line where the peak was first reached
    bool bytesExact = true; ///< false when an allocation's size is symbolic or unknown (counted as 0)
    std::vector<std::string> outputs; ///< the entry's `return` names, through reinterpret_tensor
};

/// A whole output_code.py.
struct OutputCode {
    std::string path;
    std::vector<std::string> aotIds; ///< `# AOT ID: ['0_inference']` -> "0_inference"
    std::vector<Input> inputs;
    std::vector<Kernel> kernels; ///< in file order
    std::vector<PlanStep> plan; ///< every plan function's steps, in file order
    std::vector<std::string> functions; ///< the plan functions found: "partition_0", "Runner.call" / "call"
    std::string entry; ///< the function called with the inputs: "call" or "Runner.call"
    Summary summary;
    /// The plan as a graph: placeholders = inputs; one `inductor.alloc` node per allocation (its one
    /// output the allocation's TensorMeta, named after the buffer); one node per launch (target
    /// "triton:<kernel>") or extern call (target its callee) with no outputs, whose args refer to the
    /// nodes owning the storages it uses; output = the returned storages. See docs/inductor.md for
    /// what this models. Unset when the plan has no steps.
    std::optional<Graph> graph;
    std::vector<Diagnostic> diagnostics; ///< lines not understood (file:line), unknown kernels, ...

    /// The kernel named `name`, or nullptr.
    const Kernel* kernel(const std::string& name) const;
};

/// Does `head` (the first few KiB of a file) look like Inductor's generated module? True for an
/// `# AOT ID:` first line, or `from torch._inductor` imports together with `async_compile` or
/// `def call(args)` / `class Runner`. TorchAir's generated module (torchair_module.h) is not.
bool looksLikeInductorOutputCode(std::string_view head);

/// Reads an output_code.py text. `path` labels diagnostics and errors.
Result<OutputCode> readInductorOutputCode(std::string_view text, const std::string& path);

/// Reads the file (regular files only, at most 64 MiB) and calls readInductorOutputCode.
Result<OutputCode> readInductorOutputCodeFile(const std::string& path);

/// Bytes of a tensor's storage as Inductor allocates it: dtype size x (1 + sum((size-1) x stride)),
/// 0 when a size is 0; unset when a size or stride is symbolic or the dtype unknown.
std::optional<uint64_t> storageBytes(const TensorMeta& meta);

} // namespace engine::readers::inductor
