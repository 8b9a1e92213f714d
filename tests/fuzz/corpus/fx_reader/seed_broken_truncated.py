# Hand-written in the format of PyTorch 2.x's print_readable() per its docs, then cut short (no PyTorch was available here).
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4][1]cpu"):
        relu: "f32[4][1]cpu" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None
        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(relu,
