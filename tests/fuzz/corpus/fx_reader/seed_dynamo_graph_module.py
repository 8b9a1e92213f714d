# Hand-written in the format of PyTorch 2.x's Dynamo print_readable() per its docs (no PyTorch was available here).
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[s0, 4][4, 1]cpu", s0: "Sym(s0)", L_self_modules_linear_parameters_weight_: "f32[4, 4][4, 1]cpu", L_self_buffers_scale_: "f32[4][1]cpu", L_y_: "i64[][]cpu"):
        l_x_ = L_x_
        l_self_modules_linear_parameters_weight_ = L_self_modules_linear_parameters_weight_
        l_self_buffers_scale_ = L_self_buffers_scale_
        l_y_ = L_y_
        
         # File: /tmp/m.py:8 in forward, code: a = x.sin()
        sin: "f32[s0, 4][4, 1]cpu" = l_x_.sin();  l_x_ = None
        
         # File: /tmp/m.py:9 in forward, code: b = self.linear(a) * self.scale
        linear: "f32[s0, 4][4, 1]cpu" = torch._C._nn.linear(sin, l_self_modules_linear_parameters_weight_, None);  sin = l_self_modules_linear_parameters_weight_ = None
        mul: "f32[s0, 4][4, 1]cpu" = linear * l_self_buffers_scale_;  linear = l_self_buffers_scale_ = None
        
         # No stacktrace found for following nodes
        size = mul.size()
        getitem: "Sym(s0)" = size[0];  size = None
        floordiv: "Sym((s0//3))" = getitem // 3;  getitem = None
        item: "Sym(u1)" = l_y_.item();  l_y_ = None
        neg: "Sym(-u1)" = -item;  item = None
        add: "f32[s0, 4][4, 1]cpu" = mul + 1;  mul = None
        truediv: "f32[s0, 4][4, 1]cpu" = add / floordiv;  add = floordiv = None
        getitem_1: "f32[4][1]cpu" = truediv[0]
        shape = truediv.shape;  shape = None
        dropout: "f32[s0, 4][4, 1]cpu" = torch.nn.functional.dropout(truediv, 0.1, True, False);  truediv = None
        clone: "f32[s0, 4][4, 1]cpu" = dropout.clone();  dropout = None
        clone += 2;  iadd: "f32[s0, 4][4, 1]cpu" = clone;  clone = None
        zeros: "f32[4][1]cpu" = torch.zeros(4, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        gt: "b8[4][1]cpu" = getitem_1 > 0
        where: "f32[4][1]cpu" = torch.where(gt, zeros, -inf);  gt = zeros = None
        pad: "f32[6][1]cpu" = torch.ops.aten.constant_pad_nd.default(where, [1, 1], -1.5e-05);  where = None
        fill: "f32[2][1]cpu" = torch.ops.aten.add.Tensor(pad, torch.Tensor(size=[2], dtype=torch.float32), alpha = 2);  pad = None
        return (iadd, getitem_1, neg, fill, 'done', s0)
