# Hand-written in the format of PyTorch 2.x's print_readable() for a symbolic_trace graph per its docs (no PyTorch was available here).
class Repro(torch.nn.Module):
    def forward(self, x : torch.Tensor, n : int):
        weight = self.weight
        linear_bias = self.linear.bias
        linear = self.linear(x);  x = None
        layers_0 = getattr(self.layers, "0")(linear);  linear = None
        add = layers_0 + weight;  layers_0 = weight = None
        add_1 = add + linear_bias;  add = linear_bias = None
        getattr_1 = add_1.shape
        getitem = getattr_1[-1];  getattr_1 = None
        mul = getitem * n;  getitem = n = None
        return (add_1, mul)
