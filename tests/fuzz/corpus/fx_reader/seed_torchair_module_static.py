import threading
from collections import OrderedDict

import torch
from torch._dynamo.testing import rand_strided

import torch_npu
from torchair._acl_concrete_graph.acl_graph import AclGraph, AclGraphCacheInfo
from torchair._acl_concrete_graph.acl_graph_cache_utils import SerializableGraphModule
from torchair.ops._tagged_event import _npu_create_tagged_event

assert_size_stride = torch._C._dynamo.guards.assert_size_stride

from torch._dynamo.guards import _get_closure_vars
globals().update(_get_closure_vars())
globals().update({"nan": float("nan")})

def forward(*args, node_info=[], is_capturing: bool = False):
    arg0_1, arg1_1, arg2_1, arg3_1 = args

    # File: /home/user/model.py:12 in forward, code: h = self.linear(x)
    permute = torch.ops.aten.permute.default(arg0_1, [1, 0]);  arg0_1 = None
    mm = torch.ops.aten.mm.default(arg2_1, permute);  arg2_1 = permute = None
    add = torch.ops.aten.add.Tensor(mm, arg1_1);  mm = arg1_1 = None
    # File: /home/user/model.py:13 in forward, code: self.cache.copy_(h)
    copy_ = torch.ops.aten.copy_.default(arg3_1, add);  arg3_1 = copy_ = None
    return (add,)


compile_configs = {}
compile_configs["disable_mempool_reuse_in_same_fx"] = "0"
compile_configs["enable_output_clone"] = "0"
compile_configs["static_capture_size_limit"] = "64"
compile_configs["clone_input"] = "1"
compile_configs["run_eagerly"] = "0"
compile_configs["deadlock_check"] = "0"
compile_configs["remove_noop_ops"] = "1"
compile_configs["pattern_fusion_pass"] = "1"
compile_configs["frozen_parameter"] = "1"

acl_graph = AclGraph(fx_forward=forward, config=compile_configs)

aclgraph_cache_info = AclGraphCacheInfo(
    pool=None,
    stream=torch.npu.Stream(),
    capture_error_mode="global",
    num_warmup_iters=0,
    fx_graph_name="graph_1",
    user_inputs_mapping=OrderedDict([('arg2_1', 2), ('arg3_1', 3)]),
    unupdated_sym_input_index=[],
    updated_ops_param={},
    ops_update_rulers={},
    mutated_user_inputs=['arg3_1'],
    tagged_event_names=[],
    parameter_user_inputs=[0, 1],
    user_stream_label=set(),
    user_stream_info={},
    userinput_ref_with_output={}
)
acl_graph.load(aclgraph_cache_info)


_is_first_run = True
def kernel(*args, **kwargs):

    global _is_first_run
    if _is_first_run:
        _is_first_run = False

        assert_size_stride(args[0], (8, 16), (16, 1))
        assert_size_stride(args[1], (8,), (1,))
        assert_size_stride(args[2], (4, 16), (16, 1))
        assert_size_stride(args[3], (4, 8), (8, 1))
    return acl_graph(*args, **kwargs)

def main():
    arg0_1 = rand_strided((8, 16),(16, 1),device ='npu:0',dtype =torch.float16)
    arg1_1 = rand_strided((8,),(1,),device ='npu:0',dtype =torch.float16)
    arg2_1 = rand_strided((4, 16),(16, 1),device ='npu:0',dtype =torch.float16)
    arg3_1 = rand_strided((4, 8),(8, 1),device ='npu:0',dtype =torch.float16)
    return kernel(arg0_1, arg1_1, arg2_1, arg3_1)

if __name__ == "__main__":
    main()
