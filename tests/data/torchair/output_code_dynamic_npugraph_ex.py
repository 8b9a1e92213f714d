import threading
from collections import OrderedDict

import torch
from torch._dynamo.testing import rand_strided

import torch_npu
from npugraph_ex._acl_concrete_graph.acl_graph import AclGraph, AclGraphCacheInfo
from npugraph_ex._acl_concrete_graph.acl_graph_cache_utils import SerializableGraphModule
from npugraph_ex.ops._tagged_event import _npu_create_tagged_event

assert_size_stride = torch._C._dynamo.guards.assert_size_stride

from torch._dynamo.guards import _get_closure_vars
globals().update(_get_closure_vars())
globals().update({"nan": float("nan")})

serialized_gm = b'\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00]\x94.'
rebuild_gm = SerializableGraphModule.rebuild_from_bytes(serialized_gm)
fx_graph = rebuild_gm._artifact

tensor_constants = {}
with torch._C._DisableTorchDispatch():
    tensor_constants['_tensor_constant0'] = getattr(fx_graph, '_tensor_constant0')

def forward(*args, node_info=[], is_capturing: bool = False):
    arg0_1, arg1_1, arg2_1, arg3_1, arg4_1 = args
    from torchair._acl_concrete_graph.utils import reconstruct_args_kwargs
    from torchair._acl_concrete_graph.acl_graph import UpdatedNodeInfo
    global _GLOBAL_USER_TAG_TO_STREAM

    # File: /home/user/attn.py:40 in forward, code: q = self.q_proj(x)
    _tensor_constant0 = tensor_constants['_tensor_constant0']
    mm = torch.ops.aten.mm.default(arg1_1, arg2_1);  arg2_1 = None
    mul = torch.ops.aten.mul.Tensor(mm, _tensor_constant0);  mm = _tensor_constant0 = None
    view = torch.ops.aten.view.default(mul, [arg0_1, 2, 8]);  mul = None
    event_record = torch.npu.Event()
    event_record.record(torch.npu.current_stream())
    with torch.npu.stream(_GLOBAL_USER_TAG_TO_STREAM['side']):
        event_record.wait(torch.npu.current_stream())
        add = torch.ops.aten.add.Tensor(arg1_1, 1);  arg1_1 = None

    if is_capturing:
        external_event_npu_fused_infer_attention_score = torch.npu.ExternalEvent()
        capture_stream_npu_fused_infer_attention_score = torch.npu.current_stream()
        external_event_npu_fused_infer_attention_score.wait(capture_stream_npu_fused_infer_attention_score)
        external_event_npu_fused_infer_attention_score.reset(capture_stream_npu_fused_infer_attention_score)
        torch.npu.graph_task_group_begin(capture_stream_npu_fused_infer_attention_score)

    npu_fused_infer_attention_score = torch.ops.npu.npu_fused_infer_attention_score.default(*(view, arg3_1, arg3_1), **{'num_heads': 2, 'input_layout': 'BSH', 'actual_seq_lengths_kv': arg4_1})

    if is_capturing:
        handle_npu_fused_infer_attention_score = torch.npu.graph_task_group_end(capture_stream_npu_fused_infer_attention_score)
        node_args, node_kwargs = reconstruct_args_kwargs((view, arg3_1, arg3_1), {'num_heads': 2, 'input_layout': 'BSH', 'actual_seq_lengths_kv': arg4_1})
        node_info.append(UpdatedNodeInfo(
            node_name="npu_fused_infer_attention_score",
            updated_func=torch.ops.npu.npu_fused_infer_attention_score.default,
            updated_param_name=['actual_seq_lengths_kv'],
            updated_param_index=[4],
            args=node_args,
            kwargs=node_kwargs,
            handle=handle_npu_fused_infer_attention_score,
            event=external_event_npu_fused_infer_attention_score)
        )

    view = arg3_1 = arg4_1 = None
    getitem = npu_fused_infer_attention_score[0];  npu_fused_infer_attention_score = None
    return (getitem, add)


compile_configs = {}
compile_configs["force_eager"] = "False"
compile_configs["reuse_graph_pool_in_same_fx"] = "False"
compile_configs["clone_output"] = "False"
compile_configs["capture_limit"] = "8"
compile_configs["clone_input"] = "False"
compile_configs["deadlock_check"] = "False"
compile_configs["capture_error_mode"] = "global"
compile_configs["force_recapture"] = "False"
compile_configs["remove_noop_ops"] = "True"
compile_configs["pattern_fusion_pass"] = "True"
compile_configs["frozen_parameter"] = "False"

acl_graph = AclGraph(fx_forward=forward, config=compile_configs)

aclgraph_cache_info = AclGraphCacheInfo(
    pool=(0, 5),
    stream=torch.npu.Stream(),
    capture_error_mode="global",
    num_warmup_iters=0,
    fx_graph_name="graph_3",
    user_inputs_mapping=OrderedDict([('arg1_1', 1), ('arg3_1', 3), ('arg4_1', 4)]),
    unupdated_sym_input_index=[(1, True)],
    updated_ops_param={'npu_fused_infer_attention_score': ['actual_seq_lengths_kv'], 'arg_index_npu_fused_infer_attention_score': [4]},
    ops_update_rulers={'npu_fused_infer_attention_score': ['actual_seq_lengths_kv']},
    mutated_user_inputs=[],
    tagged_event_names=['record'],
    parameter_user_inputs=[2],
    user_stream_label={'side'},
    userinput_ref_with_output={1: [1]}
)
acl_graph.load(aclgraph_cache_info)

_GLOBAL_USER_TAG_TO_STREAM = {}
_GLOBAL_USER_TAGGED_STREAM_LOCK = threading.Lock()


_is_first_run = True
def kernel(*args, **kwargs):

    global _is_first_run
    if _is_first_run:
        _is_first_run = False

        _update_tagged_event_dict()

        arg0_1, arg1_1, arg2_1, arg3_1, arg4_1 = args
        s0 = arg0_1
        assert_size_stride(args[1], (s0, 16), (16, 1))
        assert_size_stride(args[2], (16, 16), (16, 1))
        assert_size_stride(args[3], (s0, 2, 8), (16, 8, 1))
        assert_size_stride(args[4], (s0,), (1,))
    return acl_graph(*args, **kwargs)

def main():
    arg0_1 = 2
    s0 = arg0_1
    arg1_1 = rand_strided((s0, 16),(16, 1),device ='npu:0',dtype =torch.bfloat16)
    arg2_1 = rand_strided((16, 16),(16, 1),device ='npu:0',dtype =torch.bfloat16)
    arg3_1 = rand_strided((s0, 2, 8),(16, 8, 1),device ='npu:0',dtype =torch.bfloat16)
    arg4_1 = rand_strided((s0,),(1,),device ='npu:0',dtype =torch.int64)
    return kernel(arg0_1, arg1_1, arg2_1, arg3_1, arg4_1)

if __name__ == "__main__":
    main()
