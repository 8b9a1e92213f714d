#!/usr/bin/env python3
"""Writes the bundled sample scenarios (resources/samples/*.json).

Each sample starts from `aclgraph-inspector generate decoder` (a 2-layer LLaMA-like decoder with a
prompt graph and a decode graph, K/V caches updated in place) and then sets the config and the calls
that show one behaviour. Run it after changing the generator, then check docs/samples.md still
holds (tests/cli/check_samples.py does).

usage: scripts/make_samples.py [path/to/aclgraph-inspector]
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "resources" / "samples"
EXE = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "gui" / "aclgraph-inspector")


def decoder(*args):
    # Two layers keep the files readable; a 32k vocabulary and batches up to 64 make the logits big
    # enough (up to 8 MiB) that memory reuse between keys is visible.
    size = ["--layers", "2", "--hidden", "1024", "--intermediate", "2816", "--vocab", "32000",
            "--max-batch", "64", "--max-seq", "256"]
    text = subprocess.run([EXE, "generate", "decoder", *size, *args], check=True,
                          capture_output=True, text=True).stdout
    return json.loads(text)


def write(name, scenario, title, comment, config=None):
    scenario["name"] = title
    scenario["comment"] = comment
    scenario["config"] = config or {}
    keys = ("format", "version", "name", "comment", "runtime", "config", "graphs", "calls")
    ordered = {k: scenario[k] for k in keys if k in scenario}
    (OUT / name).write_text(json.dumps(ordered, indent=1) + "\n")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    frozen = {"experimental_config.frozen_parameter": True}

    s = decoder("--static-decode", "16", "--decode-calls", "6")
    write("01_prompt_and_decode.json", s, "Prompt and decode, one shape each",
          "A 2-layer LLaMA-like decoder compiled with dynamic=False: one prompt call (batch 1, 128 tokens) and six "
          "decode calls (batch 16). Each FX graph is captured once into its own private pool and then only "
          "replayed; the K/V caches are mutated inputs updated in place (never copied), input_ids and "
          "slot_mapping are copied into staging buffers on every call (clone_input). Weights are parameters; "
          "frozen_parameter keeps their addresses out of the graph key.", frozen)

    s = decoder("--batches", "8,16,32,64", "--decode-calls", "12")
    write("02_dynamic_decode_reuse.json", s, "Dynamic decode over four batch sizes (memory reuse mode 2)",
          "The decode graph is compiled with dynamic=True, so batch sizes 8, 16, 32 and 64 are four graph keys "
          "of one FX graph. With the default reuse_graph_pool_in_same_fx (mode 2) every new key is captured "
          "after rolling the pool back to its empty original state, so the keys share memory: the pool's "
          "peak is that of the largest key, not the sum. With more than one key, outputs are rebuilt at their "
          "captured addresses after each replay and TorchAir warns once that they will be overwritten.",
          frozen)

    s = decoder("--batches", "8,16,32,64", "--decode-calls", "12")
    write("03_custom_pool_shared.json", s, "One custom pool shared by prompt and decode (mode 1)",
          "Same calls as 02, with aclgraph_config.use_custom_pool set: both FX graphs capture into pool "
          "(0, 1). TorchAir then switches same-FX reuse off, so every key keeps its own memory and its "
          "outputs are retained: the pool grows with every key. Each FX graph captures on its own stream, "
          "so the prompt graph's cached blocks cannot serve the decode graph either.",
          dict(frozen, **{"aclgraph_config.use_custom_pool": [0, 1]}))

    s = decoder("--static-decode", "16", "--decode-calls", "8")
    for i, c in enumerate(s["calls"][1:], start=1):
        # The serving framework reallocates layer 0's K cache at calls 3, 5 and 7.
        generation = sum(1 for moved in (3, 5, 7) if i >= moved)
        c["inputs"] = {"l0_k_cache": "kv_cache.layer0.k" + ("" if generation == 0 else f".realloc{generation}")}
    write("04_kv_cache_moves.json", s, "The KV cache moves: recapture storm",
          "Layer 0's K cache is a mutated input. The caller reallocates it three times (calls 3, 5 and 7); "
          "TorchAir notices the new address in is_need_to_recapture and recaptures the decode graph each "
          "time (recapture_due_to_mutated_input_change_graph_2). Three recaptures are reported as a "
          "recapture storm; with a smaller capture limit the graph would fall back to eager.", frozen)

    s = decoder("--static-decode", "16", "--decode-calls", "6")
    for c in s["calls"][4:]:
        c["inputs"] = {"l1_wo": "model.layers.1.self_attn.o_proj.weight.reloaded"}
    write("05_frozen_parameter_moved.json", s, "frozen_parameter on, and a weight moves",
          "From call 4 on, layer 1's o_proj weight lives at a new address (the model reloaded it). With "
          "frozen_parameter on, parameter addresses are not part of the graph key, so TorchAir replays the "
          "graph captured with the old address: it reads stale weights, silently.", frozen)

    s = decoder("--static-decode", "16", "--decode-calls", "6")
    for c in s["calls"][4:]:
        c["inputs"] = {"l1_wo": "model.layers.1.self_attn.o_proj.weight.reloaded"}
    write("06_parameter_moved_not_frozen.json", s, "frozen_parameter off, and a weight moves",
          "The same calls as 05 with frozen_parameter off (the default). The graph key ends with the hash "
          "of every parameter address, so the moved weight makes a new key: a fresh capture (not a "
          "recapture), correct results, and a second copy of the decode graph's memory.", {})

    s = decoder("--static-decode", "16", "--decode-calls", "6")
    for c in s["calls"][1:]:
        c["keep_outputs"] = 2
    write("07_held_outputs_overwritten.json", s, "The caller keeps outputs: overwritten by the next replay",
          "Each decode call's logits are kept by the caller for the next two calls (e.g. for speculative "
          "decoding checks). With one key, TorchAir returns the same retained tensors on every call, so the "
          "next replay overwrites the logits the caller still holds. Setting "
          "debug.aclgraph.enable_output_clone=True (see sample 08) avoids it.", frozen)

    s = decoder("--static-decode", "16", "--decode-calls", "6")
    for c in s["calls"][1:]:
        c["keep_outputs"] = 2
    write("08_held_outputs_cloned.json", s, "The caller keeps outputs, enable_output_clone on",
          "The calls of 07 with debug.aclgraph.enable_output_clone=True: every returned tensor is a clone in "
          "the default pool, so later replays cannot overwrite what the caller holds. The price is one "
          "device copy of the outputs per call.",
          dict(frozen, **{"debug.aclgraph.enable_output_clone": True}))

    s = decoder("--batches", "8,16,32", "--decode-calls", "6")
    write("09_capture_limit_fallback.json", s, "Capture limit reached: fallback to eager",
          "static_capture_size_limit is 2 and the decode graph sees three batch sizes. The third key "
          "triggers TorchAir's warning, the captured graphs are reset, the pool is emptied, and every later "
          "call of the decode graph runs eagerly, even for keys that had been captured.",
          dict(frozen, **{"debug.aclgraph.static_capture_size_limit": 2}))

    # CUDA Graph Trees (runtime "cuda_graph_trees"): the same decoder as Inductor sees it on CUDA, the
    # K/V caches marked static, a batch-16 decode (docs/samples.md works their numbers out).
    def cuda(*args):
        return decoder("--runtime", "cuda_graph_trees", *args)

    s = cuda("--static-decode", "16", "--decode-calls", "6")
    write("10_cuda_warmup_record_replay.json", s, "CUDA Graph Trees: warm-up, record, replay",
          "torch.compile(mode=\"reduce-overhead\") on CUDA. Each compiled graph's first call warms up (runs "
          "eagerly inside the tree manager's private pool), its second call records, later calls replay. The "
          "prompt graph is called once, so it only warms up. Before every replay input_ids and slot_mapping "
          "(not static) are copied into the recording's own buffers; weights and the K/V caches (marked with "
          "torch._dynamo.mark_static_address) are read where they are.")

    s = cuda("--static-decode", "16", "--decode-calls", "8")
    for i, c in enumerate(s["calls"][1:], start=1):
        # The serving loop hands layer 0 a new K cache at calls 3, 5 and 7, and the first one back at call 8.
        generation = sum(1 for moved in (3, 5, 7) if i >= moved) if i < 8 else 0
        c["inputs"] = {"l0_k_cache": "kv_cache.layer0.k" + ("" if generation == 0 else f".realloc{generation}")}
    write("11_cuda_kv_cache_moves.json", s, "CUDA Graph Trees: the KV cache moves, re-records pile up",
          "Layer 0's K cache is a static input (mark_static_address). The caller reallocates it at calls 3, 5 and "
          "7: each time the replay check finds the static input moved, and the decode function is recorded again "
          "as a new sibling; the old recordings and their memory stay. At call 8 the first cache comes back and "
          "call 2's recording replays again. With inline_inbuilt_nn_modules (the default) no re-record limit "
          "applies.")

    s = cuda("--static-decode", "16", "--decode-calls", "5")
    s["calls"][2]["reads"] = [1]
    s["calls"][5]["reads"] = [4]
    write("12_cuda_held_outputs.json", s, "CUDA Graph Trees: held outputs, overwritten or raising",
          "The program reads call 1's logits after call 2, and call 4's after call 5. Call 1 was a warm-up: the "
          "next call started a new generation and freed its outputs, so the read raises \"accessing tensor "
          "output of CUDAGraphs that has been overwritten by a subsequent run\". Call 4 was a replay: call 5 "
          "replays the same recording and writes over the same tensor, so the read silently gives call 5's "
          "values.")

    s = cuda("--batches", "8,16,64,256,8,16", "--decode-calls", "6")
    write("13_cuda_dynamic_sizes.json", s, "CUDA Graph Trees: one recording per batch size",
          "The decode graph is compiled with dynamic=True. CUDA Graph Trees records one graph per distinct size: "
          "each new batch size is a new function that warms up first. With "
          "cudagraph_dynamic_shape_warn_limit set to 3 the fourth size prints PyTorch's warning; sizes seen "
          "before (8 and 16 again) record on their second call. Every warm-up and recording lives in the one "
          "shared pool, which the prompt's warm-up sized: batch 256 needs more and grows it for good.",
          {"torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit": 3})


if __name__ == "__main__":
    main()
