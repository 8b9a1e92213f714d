# Hand-written in the format of PyTorch 2.x's print_readable() of a graph with cond submodules per its docs (no PyTorch was available here).
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu", L_p_: "b8[][]cpu"):
        l_x_ = L_x_
        l_p_ = L_p_
        
         # File: /tmp/c.py:5 in forward, code: return torch.cond(p, t, f, (x, p))
        cond_true_0 = self.cond_true_0
        cond_false_0 = self.cond_false_0
        cond = torch.ops.higher_order.cond(l_p_, cond_true_0, cond_false_0, (l_x_, l_p_));  l_p_ = cond_true_0 = cond_false_0 = l_x_ = None
        getitem: "f32[4][1]cpu" = cond[0];  cond = None
        return (getitem,)
        
    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_: "f32[4][1]cpu", l_p_: "b8[][]cpu"):
            l_x__1 = l_x_
            l_p__1 = l_p_
            
             # File: /tmp/c.py:2 in t, code: return torch.cond(p, inner, inner, (x,))
            inner_true_0 = self.inner_true_0
            cond = torch.ops.higher_order.cond(l_p__1, inner_true_0, inner_true_0, (l_x__1,));  l_p__1 = inner_true_0 = l_x__1 = None
            getitem: "f32[4][1]cpu" = cond[0];  cond = None
            return (getitem,)
            
        class inner_true_0(torch.nn.Module):
            def forward(self, l_x__1: "f32[4][1]cpu"):
                sin: "f32[4][1]cpu" = l_x__1.sin();  l_x__1 = None
                return (sin,)
                
    class cond_false_0(torch.nn.Module):
        def forward(self, l_x_: "f32[4][1]cpu", l_p_: "b8[][]cpu"):
            cos: "f32[4][1]cpu" = l_x_.cos();  l_x_ = None
            return (cos,)
