"""A dynamic net: a fourth to sixth order polynomial whose forward pass reuses the same
parameter a random number of times (0 to 2 extra terms), chosen per step, trained with SGD
and momentum.

The depths are drawn with numpy up front (the libraries' generators differ) and passed to
``forward``, so both runs build the same graphs. Compared: the loss every 250 steps and the
five parameters.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-3, atol=1e-4)
# A step without extra terms leaves e without a gradient: nnbook names it once (a listed
# difference), PyTorch says nothing.
NNBOOK_WARNS = "UnusedParameterWarning"


def run(torch, nn, F, optim, data):
    class DynamicNet(nn.Module):
        def __init__(self, start):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = (
                nn.Parameter(torch.tensor(v)) for v in start)

        def forward(self, x, extra_terms):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, 4 + extra_terms):
                y = y + self.e * x ** exp  # the same parameter, once per extra term
            return y

    rng = np.random.default_rng(21)
    x = torch.linspace(-np.pi, np.pi, 400)
    y = torch.sin(x)
    net = DynamicNet(rng.standard_normal(5).astype(np.float32) * 0.1)
    depths = rng.integers(0, 3, 1000)  # 0, 1 or 2 extra terms

    criterion = nn.MSELoss(reduction="sum")
    optimizer = optim.SGD(net.parameters(), lr=1e-8, momentum=0.9)
    losses = []
    for t in range(1000):
        loss = criterion(net(x, int(depths[t])), y)
        if t % 250 == 249:
            losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return {"losses": losses, "a_to_e": torch.stack([p.detach() for p in net.parameters()])}
