#include "engine/scenario/decoder_generator.h"

#include <nlohmann/json.hpp>

namespace engine::scenario {

namespace {

using nlohmann::ordered_json;

struct Builder {
    ordered_json inputs = ordered_json::array();
    ordered_json nodes = ordered_json::array();
    std::string dtype;

    void input(const std::string& name, const char* kind, ordered_json shape, const std::string& storage = {},
        const std::string& dt = {})
    {
        ordered_json in = { { "name", name }, { "kind", kind }, { "shape", std::move(shape) },
            { "dtype", dt.empty() ? dtype : dt } };
        if (!storage.empty())
            in["storage"] = storage;
        inputs.push_back(std::move(in));
    }
    void symint(const std::string& name, const std::string& symbol)
    {
        inputs.push_back({ { "name", name }, { "kind", "symint" }, { "symbol", symbol } });
    }
    void node(const std::string& name, const std::string& target, ordered_json args, ordered_json meta,
        ordered_json kwargs = ordered_json::object(), unsigned long long workspace = 0)
    {
        ordered_json n = { { "name", name }, { "target", target }, { "args", std::move(args) } };
        if (!kwargs.empty())
            n["kwargs"] = std::move(kwargs);
        n["meta"] = std::move(meta);
        if (workspace)
            n["workspace_bytes"] = workspace;
        nodes.push_back(std::move(n));
    }
    ordered_json t(ordered_json shape, const std::string& dt = {}) const
    {
        return { { "shape", std::move(shape) }, { "dtype", dt.empty() ? dtype : dt } };
    }
};

ordered_json finish(const std::string& id, bool dynamic, Builder& b)
{
    return { { "id", id }, { "dynamic", dynamic }, { "inputs", b.inputs }, { "nodes", b.nodes },
        { "outputs", ordered_json::array({ "logits_f32" }) } };
}

/// The layers as Inductor sees them on CUDA (DecoderSpec::cuda), after the embedding.
ordered_json cudaLayers(const DecoderSpec& s, Builder& b, const ordered_json& rows, const std::string& id, bool dynamic)
{
    const int H = s.hidden;
    const int I = s.intermediate;
    auto rms = [&](const std::string& name, const std::string& in, const std::string& weight) {
        b.node(name, "aten._fused_rms_norm.default", { in, { H }, weight, 1e-6 },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, 1 }, "f32") }));
        b.node(name + "_out", "operator.getitem", { name, 0 }, b.t({ rows, H }));
        return name + "_out";
    };
    std::string h = "embedding";
    for (int l = 0; l < s.layers; ++l) {
        const std::string L = "l" + std::to_string(l) + "_";
        const std::string normed = rms(L + "rms_norm", h, L + "input_norm");
        b.node(L + "qkv", "aten.mm.default", { normed, L + "wqkv" }, b.t({ rows, 3 * H }));
        b.node(L + "split", "aten.split_with_sizes.default", { L + "qkv", { H, H, H }, -1 },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, H }), b.t({ rows, H }) }));
        b.node(L + "q", "operator.getitem", { L + "split", 0 }, b.t({ rows, H }));
        b.node(L + "k", "operator.getitem", { L + "split", 1 }, b.t({ rows, H }));
        b.node(L + "v", "operator.getitem", { L + "split", 2 }, b.t({ rows, H }));
        // k_cache.index_copy_(0, slot_mapping, k): in place on the static cache.
        b.node(L + "k_store", "aten.index_copy_.default", { L + "k_cache", 0, "slot_mapping", L + "k" },
            b.t({ s.maxBatch, s.maxSeq, H }));
        b.node(L + "v_store", "aten.index_copy_.default", { L + "v_cache", 0, "slot_mapping", L + "v" },
            b.t({ s.maxBatch, s.maxSeq, H }));
        b.node(L + "attn", "aten._scaled_dot_product_efficient_attention.default",
            { L + "q", L + "k_cache", L + "v_cache", nullptr, false },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, 1 }, "f32"), b.t(ordered_json::array(), "i64"),
                b.t(ordered_json::array(), "i64") }));
        b.node(L + "attn_out", "operator.getitem", { L + "attn", 0 }, b.t({ rows, H }));
        b.node(L + "o_proj", "aten.mm.default", { L + "attn_out", L + "wo" }, b.t({ rows, H }));
        b.node(L + "residual", "aten.add.Tensor", { h, L + "o_proj" }, b.t({ rows, H }));
        const std::string post = rms(L + "post_rms", L + "residual", L + "post_norm");
        b.node(L + "gate_up", "aten.mm.default", { post, L + "w_gate_up" }, b.t({ rows, 2 * I }));
        b.node(L + "gu", "aten.split_with_sizes.default", { L + "gate_up", { I, I }, -1 },
            ordered_json::array({ b.t({ rows, I }), b.t({ rows, I }) }));
        b.node(L + "gate", "operator.getitem", { L + "gu", 0 }, b.t({ rows, I }));
        b.node(L + "up", "operator.getitem", { L + "gu", 1 }, b.t({ rows, I }));
        b.node(L + "silu", "aten.silu.default", { L + "gate" }, b.t({ rows, I }));
        b.node(L + "act", "aten.mul.Tensor", { L + "silu", L + "up" }, b.t({ rows, I }));
        b.node(L + "down", "aten.mm.default", { L + "act", L + "w_down" }, b.t({ rows, H }));
        b.node(L + "out", "aten.add.Tensor", { L + "residual", L + "down" }, b.t({ rows, H }));
        h = L + "out";
    }
    const std::string final = rms("final_rms", h, "final_norm");
    b.node("logits", "aten.mm.default", { final, "lm_head" }, b.t({ rows, s.vocab }));
    b.node("logits_f32", "aten._to_copy.default", { "logits" }, b.t({ rows, s.vocab }, "f32"),
        { { "dtype", { { "str", "torch.float32" } } } });
    return finish(id, dynamic, b);
}

/// One graph. `rows` is the token-row count as a JSON value (an int, or "s0" for dynamic decode).
ordered_json makeGraph(const DecoderSpec& s, const std::string& id, bool dynamic, const ordered_json& batch, int seq)
{
    Builder b;
    b.dtype = s.dtype;
    const int H = s.hidden;
    ordered_json rows = batch.is_string()
        ? ordered_json(seq == 1 ? batch.get<std::string>() : batch.get<std::string>() + "*" + std::to_string(seq))
        : ordered_json(batch.get<int>() * seq);
    b.input("embed_tokens", "parameter", { s.vocab, H }, "model.embed_tokens.weight");
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        const std::string L = "l" + std::to_string(l) + "_";
        b.input(L + "input_norm", "parameter", { H }, p + "input_layernorm.weight");
        b.input(L + "wqkv", "parameter", { H, 3 * H }, p + "self_attn.qkv_proj.weight");
        b.input(L + "wo", "parameter", { H, H }, p + "self_attn.o_proj.weight");
        b.input(L + "post_norm", "parameter", { H }, p + "post_attention_layernorm.weight");
        b.input(L + "w_gate_up", "parameter", { H, 2 * s.intermediate }, p + "mlp.gate_up_proj.weight");
        b.input(L + "w_down", "parameter", { s.intermediate, H }, p + "mlp.down_proj.weight");
        const char* cacheKind = s.cuda ? "static_address" : "user_input";
        b.input(L + "k_cache", cacheKind, { s.maxBatch, s.maxSeq, H }, "kv_cache.layer" + std::to_string(l) + ".k");
        b.input(L + "v_cache", cacheKind, { s.maxBatch, s.maxSeq, H }, "kv_cache.layer" + std::to_string(l) + ".v");
    }
    b.input("final_norm", "parameter", { H }, "model.norm.weight");
    b.input("lm_head", "parameter", { H, s.vocab }, "lm_head.weight");
    if (dynamic)
        b.symint("s0", "s0");
    // Decode feeds the KV length as a SymInt used only by the attention's actual_seq_lengths: TorchAir
    // patches it at replay instead of keying on it. The static prompt graph has it as a constant.
    const bool decode = seq == 1;
    if (decode && !s.cuda)
        b.symint("s1", "s1");
    const ordered_json seqLens = decode ? ordered_json::array({ "s1" }) : ordered_json::array({ seq });
    b.input("input_ids", "user_input", { rows }, {}, "i64");
    b.input("slot_mapping", "user_input", { rows }, {}, "i64");

    b.node("embedding", "aten.embedding.default", { "embed_tokens", "input_ids" }, b.t({ rows, H }));
    if (s.cuda)
        return cudaLayers(s, b, rows, id, dynamic);
    std::string h = "embedding";
    for (int l = 0; l < s.layers; ++l) {
        const std::string L = "l" + std::to_string(l) + "_";
        b.node(L + "rms_norm", "npu.npu_rms_norm.default", { h, L + "input_norm" },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, 1 }, "f32") }));
        b.node(L + "norm_out", "operator.getitem", { L + "rms_norm", 0 }, b.t({ rows, H }));
        b.node(L + "qkv", "aten.mm.default", { L + "norm_out", L + "wqkv" }, b.t({ rows, 3 * H }));
        b.node(L + "split", "aten.split_with_sizes.default", { L + "qkv", { H, H, H }, -1 },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, H }), b.t({ rows, H }) }));
        b.node(L + "q", "operator.getitem", { L + "split", 0 }, b.t({ rows, H }));
        b.node(L + "k", "operator.getitem", { L + "split", 1 }, b.t({ rows, H }));
        b.node(L + "v", "operator.getitem", { L + "split", 2 }, b.t({ rows, H }));
        // The cache update as AOT autograd leaves it once TorchAir's reinplace pass has run: in place on
        // the cache placeholder, which makes the caches mutated user inputs.
        b.node(L + "k_store", "aten.index_put_.default", { L + "k_cache", { "slot_mapping" }, L + "k" },
            b.t({ s.maxBatch, s.maxSeq, H }));
        b.node(L + "v_store", "aten.index_put_.default", { L + "v_cache", { "slot_mapping" }, L + "v" },
            b.t({ s.maxBatch, s.maxSeq, H }));
        b.node(L + "attn", "npu.npu_fused_infer_attention_score.default", { L + "q", L + "k_cache", L + "v_cache" },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, 1 }, "f32") }),
            { { "actual_seq_lengths", seqLens }, { "input_layout", { { "str", "TND" } } } }, s.attentionWorkspace);
        b.node(L + "attn_out", "operator.getitem", { L + "attn", 0 }, b.t({ rows, H }));
        b.node(L + "o_proj", "aten.mm.default", { L + "attn_out", L + "wo" }, b.t({ rows, H }));
        b.node(L + "residual", "aten.add.Tensor", { h, L + "o_proj" }, b.t({ rows, H }));
        b.node(L + "post_rms", "npu.npu_rms_norm.default", { L + "residual", L + "post_norm" },
            ordered_json::array({ b.t({ rows, H }), b.t({ rows, 1 }, "f32") }));
        b.node(L + "post_out", "operator.getitem", { L + "post_rms", 0 }, b.t({ rows, H }));
        b.node(
            L + "gate_up", "aten.mm.default", { L + "post_out", L + "w_gate_up" }, b.t({ rows, 2 * s.intermediate }));
        b.node(L + "swiglu", "npu.npu_swiglu.default", { L + "gate_up" }, b.t({ rows, s.intermediate }));
        b.node(L + "down", "aten.mm.default", { L + "swiglu", L + "w_down" }, b.t({ rows, H }));
        b.node(L + "out", "aten.add.Tensor", { L + "residual", L + "down" }, b.t({ rows, H }));
        h = L + "out";
    }
    b.node("final_rms", "npu.npu_rms_norm.default", { h, "final_norm" },
        ordered_json::array({ b.t({ rows, H }), b.t({ rows, 1 }, "f32") }));
    b.node("final_out", "operator.getitem", { "final_rms", 0 }, b.t({ rows, H }));
    b.node("logits", "aten.mm.default", { "final_out", "lm_head" }, b.t({ rows, s.vocab }));
    b.node("logits_f32", "aten._to_copy.default", { "logits" }, b.t({ rows, s.vocab }, "f32"),
        { { "dtype", { { "str", "torch.float32" } } } });
    return finish(id, dynamic, b);
}

} // namespace

std::string decoderGraphsJson(const DecoderSpec& spec)
{
    ordered_json graphs = ordered_json::array();
    graphs.push_back(makeGraph(spec, "prompt", false, 1, spec.promptLen));
    graphs.push_back(makeGraph(spec, "decode", spec.dynamicDecode,
        spec.dynamicDecode ? ordered_json("s0") : ordered_json(spec.staticBatch), 1));
    return graphs.dump(1);
}

std::string decoderScenarioJson(const DecoderSpec& spec, const std::string& config, const std::vector<int>& batches,
    int decodeCalls, const std::string& name, const std::string& comment)
{
    ordered_json j;
    j["format"] = "aclgraph-inspector-scenario";
    j["version"] = 1;
    j["name"] = name;
    if (!comment.empty())
        j["comment"] = comment;
    if (spec.cuda)
        j["runtime"] = "cuda_graph_trees";
    j["config"] = ordered_json::parse(config);
    j["graphs"] = ordered_json::parse(decoderGraphsJson(spec));
    ordered_json calls = ordered_json::array();
    calls.push_back({ { "graph", "prompt" } });
    for (int i = 0; i < decodeCalls; ++i) {
        ordered_json syms = ordered_json::object();
        if (!spec.cuda)
            syms["s1"] = spec.promptLen + 1 + i;
        if (spec.dynamicDecode && !batches.empty())
            syms["s0"] = batches[size_t(i) % batches.size()];
        ordered_json call = { { "graph", "decode" } };
        if (!syms.empty())
            call["symbols"] = syms;
        calls.push_back(std::move(call));
    }
    j["calls"] = calls;
    return j.dump(1);
}

} // namespace engine::scenario
