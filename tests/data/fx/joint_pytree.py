# Hand-written in the format of PyTorch 2.x's joint-graph print_readable() per its docs (no PyTorch was available here).
class inner_f(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[2, 3][3, 1]cpu"  # ParamAOTInput(target='linear.weight')
        primals_2: "f32[4, 3][3, 1]cpu"  # PlainAOTInput(idx=0)
        tangents_1: "f32[4, 2][2, 1]cpu"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        t: "f32[3, 2][1, 3]cpu" = torch.ops.aten.t.default(primals_1);  primals_1 = None
        mm: "f32[4, 2][2, 1]cpu" = torch.ops.aten.mm.default(primals_2, t);  t = None
        t_1: "f32[2, 4][1, 2]cpu" = torch.ops.aten.t.default(tangents_1)
        mm_1: "f32[2, 3][3, 1]cpu" = torch.ops.aten.mm.default(t_1, primals_2);  t_1 = primals_2 = None
        sum_1: "f32[2][1]cpu" = torch.ops.aten.sum.dim_IntList(tangents_1, [0], True);  tangents_1 = None
        return pytree.tree_unflatten([mm, mm_1, None, sum_1], self._out_spec)
