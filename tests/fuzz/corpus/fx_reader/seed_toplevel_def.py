def forward(self, x):
    y = x.view(-1)
    return y
