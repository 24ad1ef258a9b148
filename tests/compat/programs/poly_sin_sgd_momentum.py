"""A cubic fitted to sin(x) by a ``nn.Module`` subclass holding four scalar
``nn.Parameter``s, trained with ``optim.SGD(momentum=0.9)`` and a ``string()`` method.

Compared: the loss every 300 steps, the printed polynomial and the parameters.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=1e-5)


def run(torch, nn, F, optim, data):
    class Cubic(nn.Module):
        def __init__(self, start):
            super().__init__()
            self.a = nn.Parameter(torch.tensor(start[0]))
            self.b = nn.Parameter(torch.tensor(start[1]))
            self.c = nn.Parameter(torch.tensor(start[2]))
            self.d = nn.Parameter(torch.tensor(start[3]))

        def forward(self, x):
            return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

        def string(self):
            return (f"y = {self.a.item():.2f} + {self.b.item():.2f} x + "
                    f"{self.c.item():.2f} x^2 + {self.d.item():.2f} x^3")

    x = torch.linspace(-np.pi, np.pi, 300)
    y = torch.sin(x)
    net = Cubic(np.random.default_rng(5).standard_normal(4).astype(np.float32))
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-6, momentum=0.9)
    losses = []
    for t in range(1500):
        loss = criterion(net(x), y)
        if t % 300 == 299:
            losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return {"losses": losses, "string": net.string(),
            "names": [name for name, _ in net.named_parameters()],
            "parameters": torch.stack([p.detach() for p in net.parameters()])}
