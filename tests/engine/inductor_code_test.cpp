// readInductorOutputCode and readFxRunnable (engine/readers/inductor_code.h, fx_runnable.h) on the
// real TORCH_COMPILE_DEBUG files in tests/data/real/inductor/ (see its README.md: every expected
// number there was counted by a python3 one-off over the files, not by these readers) and on
// small hostile texts.
#include "engine/readers/fx_runnable.h"
#include "engine/readers/inductor_code.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace engine;
using namespace engine::readers;
using namespace engine::readers::inductor;

namespace {

const std::string kInductor = std::string(ACLGI_TEST_DATA_DIR)
    + "/real/inductor/torch_compile_debug/run_2026_11_26_08_52_02_717226-pid_457/torchinductor";
const std::string kModel0 = kInductor + "/model__0_inference_0.0";
const std::string kModel1 = kInductor + "/model__1_inference_1.1";

std::string slurp(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

OutputCode readOk(const std::string& path)
{
    auto r = readInductorOutputCodeFile(path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? std::string() : r.error().toString());
    return r.ok() ? std::move(r.value()) : OutputCode();
}

std::string shapeText(const TensorMeta& m)
{
    std::string s = dtypeShortName(m.dtype) + "[";
    for (size_t i = 0; i < m.shape.size(); ++i)
        s += (i ? ", " : "") + m.shape[i].text();
    s += "][";
    for (size_t i = 0; i < m.stride.size(); ++i)
        s += (i ? ", " : "") + m.stride[i].text();
    return s + "]" + m.device;
}

size_t countKind(const OutputCode& c, PlanStep::Kind k)
{
    size_t n = 0;
    for (const PlanStep& s : c.plan)
        n += s.kind == k;
    return n;
}

} // namespace

TEST(InductorCode, SniffsTheFormat)
{
    const std::string text = slurp(kModel0 + "/output_code.py");
    EXPECT_TRUE(looksLikeInductorOutputCode(text.substr(0, 4096)));
    EXPECT_FALSE(looksLikeInductorOutputCode(slurp(kModel0 + "/fx_graph_readable.py").substr(0, 4096)));
    EXPECT_FALSE(looksLikeInductorOutputCode("import torchair\nfrom torch._inductor import x\ndef call(args):\n"));
    EXPECT_TRUE(looksLikeFxRunnable(slurp(kModel0 + "/fx_graph_runnable.py")));
    EXPECT_FALSE(looksLikeFxRunnable(text));
}

TEST(InductorCode, RealModel0KernelsAndSources)
{
    const OutputCode c = readOk(kModel0 + "/output_code.py");
    ASSERT_EQ(c.aotIds, std::vector<std::string>({ "0_inference" }));
    // 9 `= async_compile.triton(` lines (README: python3 count).
    ASSERT_EQ(c.kernels.size(), 9u);
    EXPECT_EQ(c.kernels[0].name, "triton_red_fused_add_embedding_mean_mul_pow_rsqrt_0");
    EXPECT_EQ(c.kernels[1].name, "triton_poi_fused__unsafe_view_index_copy_transpose_view_1");
    EXPECT_EQ(c.kernels[8].name, "triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8");
    const Kernel& k0 = c.kernels[0];
    EXPECT_EQ(k0.kind, "triton");
    EXPECT_EQ(k0.line, 62);
    EXPECT_EQ(k0.kernelPath, "/tmp/torchinductor_root/pc/cpcpki5xtt6il4ypghsouol3js7434atog6ndrx4hyfptnxcuarz.py");
    EXPECT_EQ(k0.sourceNodes, std::vector<std::string>({ "x", "pow_1", "mean", "add", "rsqrt", "mul", "mul_1" }));
    EXPECT_EQ(k0.originalAten,
        std::vector<std::string>({ "aten.embedding", "aten.pow", "aten.mean", "aten.add", "aten.rsqrt", "aten.mul" }));
    ASSERT_EQ(k0.sourceToAten.size(), 7u);
    EXPECT_EQ(k0.sourceToAten.back(), std::make_pair(std::string("x"), std::string("embedding")));
    EXPECT_EQ(
        k0.fragmentNodes, std::vector<std::string>({ "embedding", "pow_1", "mean", "add", "rsqrt", "mul", "mul_1" }));
    EXPECT_EQ(k0.fragment.size(), 12u); // 4 placeholders, 7 nodes, return
    EXPECT_EQ(k0.parameters,
        std::vector<std::string>(
            { "in_ptr0", "in_ptr1", "in_ptr2", "out_ptr1", "xnumel", "r0_numel", "XBLOCK", "R0_BLOCK" }));
    EXPECT_EQ(k0.launches, 1);
    EXPECT_EQ(c.kernels[1].launches, 2); // both layers' index_copy_
}

TEST(InductorCode, RealModel0Inputs)
{
    const OutputCode c = readOk(kModel0 + "/output_code.py");
    ASSERT_EQ(c.entry, "Runner.call");
    EXPECT_EQ(c.functions, std::vector<std::string>({ "partition_0", "Runner.call" }));
    ASSERT_EQ(c.inputs.size(), 27u);
    // Runner.call's order (arg0_1 first), not partition_0's (arg1_1 first).
    EXPECT_EQ(c.inputs[0].name, "arg0_1");
    EXPECT_EQ(shapeText(c.inputs[0].meta), "f32[1024, 256][256, 1]cuda:0");
    EXPECT_EQ(shapeText(c.inputs[1].meta), "i64[1, 16][16, 1]cuda:0");
    EXPECT_EQ(shapeText(c.inputs[6].meta), "f32[1, 4, 64, 64][16384, 4096, 64, 1]cuda:0");
    EXPECT_EQ(c.inputs[0].line, 743);
    for (const Input& in : c.inputs) {
        EXPECT_TRUE(in.hasShape && in.hasDtype) << in.name;
        EXPECT_EQ(in.meta.device, "cuda:0") << in.name;
    }
}

TEST(InductorCode, RealModel0PlanAndSummary)
{
    const OutputCode c = readOk(kModel0 + "/output_code.py");
    for (const Diagnostic& d : c.diagnostics)
        ADD_FAILURE() << d.toString();
    const Summary& s = c.summary;
    EXPECT_EQ(s.kernels, 9u);
    EXPECT_EQ(s.allocations, 15u); // `buf.. = empty_strided_cuda(` lines
    EXPECT_EQ(s.reuses, 16u); // `# reuse` lines
    EXPECT_EQ(s.launches, 13u); // `.run(` lines
    EXPECT_EQ(s.externCalls, 19u); // `extern_kernels.` calls
    EXPECT_EQ(s.allocatedBytes, 360448u);
    EXPECT_EQ(s.peakBytes, 98304u);
    EXPECT_TRUE(s.bytesExact);
    EXPECT_EQ(s.outputs, std::vector<std::string>({ "buf43" }));
    EXPECT_EQ(countKind(c, PlanStep::Kind::PartitionCall), 1u);

    const PlanStep& first = c.plan.front();
    EXPECT_EQ(first.kind, PlanStep::Kind::Alloc);
    EXPECT_EQ(first.name, "buf1");
    EXPECT_EQ(first.line, 771);
    EXPECT_EQ(first.function, "partition_0");
    ASSERT_TRUE(first.meta && first.bytes);
    EXPECT_EQ(shapeText(*first.meta), "f32[1, 16, 256][4096, 256, 1]cuda:0");
    EXPECT_EQ(*first.bytes, 16384u);
    const PlanStep& launch = c.plan[1];
    EXPECT_EQ(launch.kind, PlanStep::Kind::Launch);
    EXPECT_EQ(launch.name, "triton_red_fused_add_embedding_mean_mul_pow_rsqrt_0");
    EXPECT_EQ(launch.uses, std::vector<std::string>({ "arg1_1", "arg0_1", "arg2_1", "buf1" }));
    EXPECT_EQ(launch.writes, std::vector<std::string>({ "buf1" }));
    EXPECT_EQ(launch.sourceNodes.size(), 7u);
    EXPECT_EQ(launch.originalAten.size(), 6u);
    EXPECT_EQ(c.plan[4].originalAten,
        std::vector<std::string>({ "aten.embedding", "aten.pow", "aten.mean", "aten.add", "aten.rsqrt", "aten.mul",
            "aten.view", "aten.t", "aten.mm" }));
    const PlanStep& mm = c.plan[4];
    EXPECT_EQ(mm.kind, PlanStep::Kind::Extern);
    EXPECT_EQ(mm.name, "extern_kernels.mm");
    EXPECT_EQ(mm.uses, std::vector<std::string>({ "buf1", "arg3_1", "buf2" }));
    EXPECT_EQ(mm.writes, std::vector<std::string>({ "buf2" }));
    bool sawReuse = false;
    for (const PlanStep& st : c.plan)
        if (st.kind == PlanStep::Kind::Reuse && st.name == "buf5") {
            EXPECT_EQ(st.source, "buf8");
            sawReuse = true;
        }
    EXPECT_TRUE(sawReuse);
}

TEST(InductorCode, RealModel0Graph)
{
    const OutputCode c = readOk(kModel0 + "/output_code.py");
    ASSERT_TRUE(c.graph.has_value());
    const Graph& g = *c.graph;
    EXPECT_EQ(g.placeholders().size(), 27u);
    // 27 inputs + 15 allocations + 13 launches + 19 extern calls + output.
    EXPECT_EQ(g.nodes.size(), 27u + 15 + 13 + 19 + 1);
    EXPECT_EQ(g.nodes[0].outputs.at(0).device, "cuda:0");
    const int buf1 = g.find("buf1");
    ASSERT_GE(buf1, 0);
    EXPECT_EQ(g.nodes[buf1].target, "inductor.alloc");
    // The K/V caches are written by the index_copy kernel and the mutated inputs say so.
    ASSERT_TRUE(g.recordedMutatedInputs.has_value());
    EXPECT_EQ(*g.recordedMutatedInputs, std::vector<std::string>({ "arg6_1", "arg8_1", "arg18_1", "arg19_1" }));
    const Node& out = g.nodes[g.outputNode()];
    ASSERT_EQ(out.args.size(), 1u);
    ASSERT_EQ(out.args[0].items.size(), 1u);
    EXPECT_EQ(out.args[0].items[0].s, "buf43");
}

TEST(InductorCode, OtherModelsSummaries)
{
    const OutputCode c1 = readOk(kModel1 + "/output_code.py");
    EXPECT_EQ(c1.aotIds, std::vector<std::string>({ "1_inference" }));
    EXPECT_EQ(c1.summary.kernels, 8u);
    EXPECT_EQ(c1.summary.allocations, 13u);
    EXPECT_EQ(c1.summary.allocatedBytes, 20480u);
    EXPECT_EQ(c1.summary.peakBytes, 6144u);
    const OutputCode c2 = readOk(kInductor + "/model__2_inference_2.2/output_code.py");
    EXPECT_EQ(c2.summary.allocatedBytes, 40960u);
    EXPECT_EQ(c2.summary.peakBytes, 12288u);
}

TEST(InductorCode, ClassicCallWithoutPartitions)
{
    const std::string text = R"(# AOT ID: ['3_forward']
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()

# kernel path: /tmp/k.py
# Topologically Sorted Source Nodes: [add], Original ATen: [aten.add]
triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''
@triton.jit
def triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    pass
''', device_str='cuda')

async_compile.wait(globals())
del async_compile

def call(args):
    primals_1, s0 = args
    args.clear()
    assert_size_stride(primals_1, (s0, 8), (8, 1))
    with torch.cuda._DeviceGuard(1):
        torch.cuda.set_device(1)
        buf0 = empty_strided_cuda((s0, 8), (8, 1), torch.float16)
        buf1 = empty_strided_cuda((4, 8), (8, 1), torch.float16)
        triton_poi_fused_add_0.run(primals_1, buf0, 8*s0, stream=stream1)
        buf2 = buf1; del buf1  # reuse
        buf3 = torch.ops.aten.foo.default(buf0)
        something_odd(buf0)
        del buf0
    return (buf2, buf3, )
)";
    auto r = readInductorOutputCode(text, "t.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const OutputCode& c = r.value();
    EXPECT_EQ(c.entry, "call");
    ASSERT_EQ(c.inputs.size(), 2u);
    EXPECT_EQ(c.inputs[0].meta.device, ""); // no get_args(), no fragment: not assumed
    EXPECT_FALSE(c.inputs[0].hasDtype);
    EXPECT_EQ(c.summary.allocations, 2u);
    EXPECT_FALSE(c.summary.bytesExact); // buf0 is symbolic, buf3's size is not in the file
    EXPECT_EQ(c.summary.allocatedBytes, 64u);
    EXPECT_EQ(c.summary.outputs, std::vector<std::string>({ "buf2", "buf3" }));
    const PlanStep* alloc = nullptr;
    for (const PlanStep& s : c.plan)
        if (s.name == "buf1")
            alloc = &s;
    ASSERT_NE(alloc, nullptr);
    EXPECT_EQ(alloc->meta->device, "cuda:1");
    // The one line not understood is a diagnostic with its line.
    ASSERT_EQ(c.diagnostics.size(), 2u) << c.diagnostics[0].toString();
    EXPECT_EQ(c.diagnostics[0].line, 27);
    EXPECT_NE(c.diagnostics[0].message.find("something_odd"), std::string::npos);
    EXPECT_NE(c.diagnostics[1].message.find("input s0"), std::string::npos);
    ASSERT_TRUE(c.graph.has_value());
    // The aten call owns the storage it returns: the output refers to it.
    const Graph& g = *c.graph;
    ASSERT_GE(g.find("torch_ops_aten_foo_default"), 0);
    const Node& out = g.nodes[g.outputNode()];
    ASSERT_EQ(out.args.at(0).items.size(), 2u);
    EXPECT_EQ(out.args[0].items[0].s, "buf1"); // buf2 reuses buf1's storage
    EXPECT_EQ(out.args[0].items[1].s, "torch_ops_aten_foo_default");
}

TEST(InductorCode, OlderSpellings)
{
    // PyTorch 2.1-2.3: `# Source Nodes:`, get_cuda_stream, grid=, empty_strided(device=...), a C++
    // kernel called through c_void_p(x.data_ptr()).
    const std::string text = R"(from torch._inductor.codecache import AsyncCompile
async_compile = AsyncCompile()

# Source Nodes: [add], Original ATen: [aten.add]
triton_poi_fused_add_0 = async_compile.triton('triton_', '''
@triton.jit
def triton_(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    pass
''')

cpp_fused_mul_1 = async_compile.cpp('''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0) {}
''')

async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, arg1_1 = args
    args.clear()
    assert_size_stride(arg0_1, (4, 4), (4, 1))
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0) # no-op to ensure context
        buf0 = empty_strided((4, 4), (4, 1), device='cuda', dtype=torch.float32)
        stream0 = get_cuda_stream(0)
        triton_poi_fused_add_0.run(arg0_1, buf0, 16, grid=grid(16), stream=stream0)
        del arg0_1
    buf1 = empty_strided((8, ), (1, ), device='cpu', dtype=torch.float32)
    cpp_fused_mul_1(c_void_p(arg1_1.data_ptr()), c_void_p(buf1.data_ptr()))
    return (buf0, buf1, )
)";
    auto r = readInductorOutputCode(text, "old.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const OutputCode& c = r.value();
    ASSERT_EQ(c.kernels.size(), 2u);
    EXPECT_EQ(c.kernels[0].sourceNodes, std::vector<std::string>({ "add" }));
    EXPECT_EQ(c.kernels[0].parameters, std::vector<std::string>({ "in_ptr0", "out_ptr0", "xnumel", "XBLOCK" }));
    EXPECT_EQ(c.kernels[1].kind, "cpp");
    EXPECT_EQ(c.summary.launches, 2u);
    EXPECT_EQ(c.summary.allocatedBytes, 64u + 32u);
    EXPECT_EQ(c.summary.peakBytes, 96u);
    std::vector<std::string> devices;
    for (const PlanStep& s : c.plan) {
        if (s.kind == PlanStep::Kind::Alloc)
            devices.push_back(s.meta->device);
        if (s.kind == PlanStep::Kind::Launch && s.name == "cpp_fused_mul_1") {
            EXPECT_EQ(s.uses, std::vector<std::string>({ "arg1_1", "buf1" }));
        }
        if (s.kind == PlanStep::Kind::Launch && s.name == "triton_poi_fused_add_0") {
            EXPECT_EQ(s.writes, std::vector<std::string>({ "buf0" }));
        }
    }
    EXPECT_EQ(devices, std::vector<std::string>({ "cuda:0", "cpu" }));
    // arg1_1 has no assert_size_stride (a CPU input): said, not guessed.
    ASSERT_EQ(c.diagnostics.size(), 1u) << c.diagnostics[0].toString();
    EXPECT_NE(c.diagnostics[0].message.find("arg1_1"), std::string::npos);
}

TEST(InductorCode, HostileTexts)
{
    EXPECT_FALSE(readInductorOutputCode("", "e.py").ok());
    EXPECT_FALSE(readInductorOutputCode("import os\nx = 1\n", "e.py").ok());
    const std::string text = slurp(kModel0 + "/output_code.py");
    // Cut everywhere in steps: never a crash, a hang or an exception.
    for (size_t cut = 0; cut < text.size(); cut += 997) {
        auto r = readInductorOutputCode(std::string_view(text).substr(0, cut), "cut.py");
        if (r.ok()) {
            EXPECT_LE(r->kernels.size(), 9u);
        }
    }
    // Truncated inside a kernel's source: the kernels before it, and a diagnostic.
    auto r = readInductorOutputCode(std::string_view(text).substr(0, 5000), "cut.py");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->kernels.size(), 1u);
    ASSERT_FALSE(r->diagnostics.empty());
    EXPECT_NE(r->diagnostics.back().message.find("not closed"), std::string::npos);
    // Deep brackets and a very long line.
    std::string deep = "def call(args):\n    a = args\n    buf0 = empty_strided_cuda(" + std::string(5000, '(')
        + std::string(5000, ')') + ")\n    return (" + std::string(100000, 'x') + ")\n";
    auto d = readInductorOutputCode(deep, "deep.py");
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d->diagnostics.empty());
    EXPECT_FALSE(readInductorOutputCodeFile(kModel0).ok()); // a folder

    // Sizes that would be quadratic if partitions were inlined at every call or arguments deduplicated
    // by search: 20000 calls of a 20000-step partition, a launch with 50000 arguments.
    std::string big = "k = async_compile.triton('k', '')\ndef partition_0(args):\n    a0 = args\n";
    for (int i = 0; i < 20000; ++i)
        big += "    buf" + std::to_string(i) + " = empty_strided_cuda((4, ), (1, ), torch.float32)\n";
    big += "    k.run(";
    for (int i = 0; i < 50000; ++i)
        big += "buf" + std::to_string(i % 20000) + ", ";
    big += "stream=stream0)\n    return ()\nclass Runner:\n    def call(self, args):\n        a0 = args\n";
    for (int i = 0; i < 20000; ++i)
        big += "        () = self.partitions[0](partition0_args)\n";
    big += "        return ()\n";
    auto b = readInductorOutputCode(big, "big.py");
    ASSERT_TRUE(b.ok()) << b.error().toString();
    EXPECT_EQ(b->summary.allocations, 20000u); // the partition counted once
    EXPECT_EQ(b->summary.peakBytes, 20000u * 16);
}

TEST(InductorRunnable, RealModel0)
{
    auto r = readFxRunnableFile(kModel0 + "/fx_graph_runnable.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const FxRunnable& f = r.value();
    for (const Diagnostic& d : f.diagnostics)
        ADD_FAILURE() << d.toString();
    EXPECT_EQ(f.torchVersion, "2.11.0+cu130");
    ASSERT_EQ(f.inputs.size(), 27u); // reader.tensor lines
    EXPECT_EQ(f.inputs[0].name, "arg0_1");
    EXPECT_EQ(shapeText(f.inputs[0].meta), "f32[1024, 256][256, 1]cuda:0");
    EXPECT_EQ(f.inputs[0].storageBytes, 1048576u);
    EXPECT_EQ(shapeText(f.inputs[1].meta), "i64[1, 16][16, 1]cuda:0");
    EXPECT_EQ(shapeText(f.inputs[6].meta), "f32[1, 4, 64, 64][16384, 4096, 64, 1]cuda:0");
    EXPECT_EQ(f.forwardParameters.size(), 27u);
    ASSERT_FALSE(f.config.empty());
    EXPECT_EQ(
        f.config[2], std::make_pair(std::string("torch._inductor.config.triton.cudagraphs"), std::string("True")));
    ASSERT_TRUE(f.graph.has_value());
    const Graph& g = *f.graph;
    EXPECT_EQ(g.placeholders().size(), 27u);
    EXPECT_EQ(shapeText(g.nodes[g.placeholders()[1]].outputs.at(0)), "i64[1, 16][16, 1]cuda:0");
}

TEST(InductorRunnable, LoadArgsVariantsAndGarbage)
{
    const std::string text = R"(import torch
torch._inductor.config.fx_graph_cache = False
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, arg0_1, s0, arg2_1, arg3_1):
        add = torch.ops.aten.add.Tensor(arg0_1, arg2_1);  arg0_1 = arg2_1 = None
        return (add,)

def load_args(reader):
    buf0 = reader.storage(None, 64, device=device(type='cuda', index=1), dtype_hint=torch.float16)
    reader.tensor(buf0, (4, 4), (1, 4), dtype=torch.float16, storage_offset=2, is_leaf=True)  # arg0_1
    reader.symint(4)  # s0
    buf1 = reader.storage(None, 64)
    reader.tensor(buf1, (4, 4), is_leaf=True)  # arg2_1
    reader.tensor(buf9, (4, 4))  # arg3_1
    reader.tensor(buf1, ((((  # broken
    this is garbage
load_args._version = 0
)";
    auto r = readFxRunnable(text, "r.py");
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const FxRunnable& f = r.value();
    ASSERT_EQ(f.inputs.size(), 3u);
    EXPECT_EQ(shapeText(f.inputs[0].meta), "f16[4, 4][1, 4]cuda:1");
    EXPECT_EQ(f.inputs[0].meta.storageOffset, 2);
    EXPECT_TRUE(f.inputs[1].symInt);
    EXPECT_EQ(f.inputs[1].value, 4);
    EXPECT_EQ(shapeText(f.inputs[2].meta), "f32[4, 4][4, 1]cpu"); // InputReader's defaults
    EXPECT_GE(f.diagnostics.size(), 3u); // buf9 unknown, the broken call, the garbage line
    for (const Diagnostic& d : f.diagnostics)
        EXPECT_GT(d.line, 0) << d.toString();
    EXPECT_EQ(f.config.size(), 1u);
    EXPECT_FALSE(readFxRunnable("x = 1\n", "n.py").ok());
}
