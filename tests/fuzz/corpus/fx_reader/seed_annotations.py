class M(torch.nn.Module):
    def forward(self, a: "f32[]", b: "Sym(-u1)", c: "DTensor(f32[8, 4][4, 1]cuda:0, (Shard(dim=0),))", d: "f16[Max(1, s0), 2*s1 + 1][2*s1 + 1, 1]npu:1", e: "f8e4m3fnuz[2]", f: "u16[2][1]cpu", g: "(f32[2][1]cpu, i32[])", h: "Sym(((-u1)//3))", i: f32[4, 4]):
        return (a,)
