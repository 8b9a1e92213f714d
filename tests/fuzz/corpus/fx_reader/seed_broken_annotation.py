# Hand-written in the format of PyTorch 2.x's print_readable() per its docs, with damaged annotations (no PyTorch was available here).
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 4][4, 1]cpu", arg1_1: "u16[4][1]cpu"):
        mm: "f32[4, 4" = torch.ops.aten.mm.default(arg0_1, arg0_1);  arg0_1 = None
        add: "f32[4, @][4, 1]cpu" = torch.ops.aten.add.Tensor(mm, 1);  mm = None
        view: "f32[16][1]cpu" = torch.ops.aten.view.default(add, [16]);  add = None
        return (view, arg1_1)
