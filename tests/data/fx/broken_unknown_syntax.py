# Hand-written in the format of PyTorch 2.x's print_readable() per its docs, with lines that are not FX code (no PyTorch was available here).
import torch
print("hello")
class GraphModule(torch.nn.Module):
    _out_spec = None
    def forward(self, arg0_1: "f32[4][1]cpu"):
        if arg0_1:
        relu: "f32[4][1]cpu" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None
        weird: "f32[4][1]cpu" = relu $ 2
        sigmoid: "f32[4][1]cpu" = torch.ops.mylib.fancy_sigmoid.default(relu);  relu = None
        return (sigmoid,)

    def helper(self, x):
        return x
