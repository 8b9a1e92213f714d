# Hand-written in the format of PyTorch 2.x's print_readable() per its docs (no PyTorch was available here).
class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 4]", arg1_1: "f32[4]"):
        # File: /home/user/model.py:12 in forward, code: y = x @ x
        mm: "f32[4, 4]" = torch.ops.aten.mm.default(arg0_1, arg0_1);  arg0_1 = None
        
        # File: /home/user/model.py:13 in forward, code: return y + b
        add: "f32[4, 4]" = torch.ops.aten.add.Tensor(mm, arg1_1);  mm = arg1_1 = None
        return (add,)
        
