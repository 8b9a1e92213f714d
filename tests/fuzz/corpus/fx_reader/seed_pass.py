class Empty(torch.nn.Module):
    def forward(self):
        pass
