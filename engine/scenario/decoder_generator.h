#pragma once
/// Synthetic LLaMA-like decoders in the scenario format, for the bundled samples, the tests and the
/// benchmarks (a 32- or 80-layer model without shipping megabytes of JSON). The graphs look like
/// what AOT autograd hands TorchAir for a vLLM-style model: weights as parameters, per-layer K/V
/// caches updated in place (so they are mutated user inputs), npu_fused_infer_attention_score with
/// `actual_seq_lengths` fed by a SymInt (patched at replay, not part of the key).
#include <string>
#include <vector>

namespace engine::scenario {

struct DecoderSpec {
    int layers = 2;
    int hidden = 512;
    int intermediate = 1408;
    int vocab = 4096;
    int maxBatch = 8; ///< KV cache rows
    int maxSeq = 256; ///< KV cache length
    int promptLen = 128; ///< prompt graph: batch 1, this many tokens (static shapes)
    bool dynamicDecode = true; ///< decode graph compiled with dynamic=True over the batch size s0
    int staticBatch = 4; ///< decode batch when dynamicDecode is false
    unsigned long long attentionWorkspace = 4ull << 20; ///< aclnn workspace of each attention op
    std::string dtype = "bf16";
    /// The same model as torch.compile(mode="reduce-overhead") hands Inductor on CUDA (the scenario's
    /// runtime "cuda_graph_trees"): ATen ops only (_fused_rms_norm, SDPA, silu), the K/V caches
    /// marked static (torch._dynamo.mark_static_address) and updated with index_copy_ at the token
    /// positions, as in ../shared/real's decoder; no KV-length SymInt and no aclnn workspaces.
    bool cuda = false;
};

/// The scenario's "graphs" array (JSON text): "prompt" (static) and "decode".
/// Weights and caches carry "storage" names so both graphs bind the same tensors.
std::string decoderGraphsJson(const DecoderSpec& spec);

/// A whole scenario: the two graphs, `config` (a JSON object text, "{}" for none), one prompt call,
/// then `decodeCalls` decode calls whose batch sizes cycle through `batches` (ignored for a static
/// decode graph), with the KV length growing by one each call.
std::string decoderScenarioJson(const DecoderSpec& spec, const std::string& config, const std::vector<int>& batches,
    int decodeCalls, const std::string& name = "decoder", const std::string& comment = {});

} // namespace engine::scenario
