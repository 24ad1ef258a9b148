"""A modern MLP block: ``nn.Linear``, ``nn.LayerNorm``, ``nn.GELU`` (exact and
``approximate="tanh"``), ``nn.Dropout`` and a residual connection, trained with
``optim.AdamW``. Dropout's random masks differ between the libraries, so the training runs
in ``model.eval()``, where dropout must be the identity; in ``model.train()`` only the
share of zeros and the ``1 / (1 - p)`` scaling of the rest are compared.

PyTorch's initial weights are copied into nnbook's model. Compared: the losses, the
eval-mode outputs (twice, equal), the LayerNorm's weight and gradient, and the two GELUs.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-6)


def model(torch, nn):
    class Block(nn.Module):
        def __init__(self, d=9, hidden=21, p=0.0):
            super().__init__()
            self.norm = nn.LayerNorm(d)
            self.ff = nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Dropout(p),
                                    nn.Linear(hidden, d), nn.GELU(approximate="tanh"))

        def forward(self, x):
            return x + self.ff(self.norm(x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.Sequential(Block(), Block())
            self.drop = nn.Dropout(0.3)
            self.head = nn.Linear(9, 2)

        def forward(self, x):
            return self.head(self.drop(self.blocks(x)))
    return Net()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(59)
    X = torch.tensor(rng.normal(0, 1, (19, 9)), dtype=torch.float32)
    y = torch.tensor(rng.normal(0, 1, (19, 2)), dtype=torch.float32)
    optimizer = optim.AdamW(model.parameters(), lr=0.01)
    losses = []
    model.eval()  # the p=0.3 dropout's masks would differ between the libraries
    for _ in range(8):
        loss = F.mse_loss(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    norm = model.blocks[0].norm
    grad = norm.weight.grad

    model.eval()
    with torch.no_grad():
        first, second = model(X), model(X)
    model.train()
    with torch.no_grad():
        dropped = model.drop(torch.ones(200, 50))
    zeros = (dropped == 0).float().mean().item()
    kept = dropped[dropped != 0]
    z = torch.linspace(-3, 3, 13)
    return {"losses": losses, "eval_out": first, "eval_repeatable": bool(torch.equal(first,
                                                                                     second)),
            "norm_weight": norm.weight, "norm_grad": grad,
            "kept_scaled": bool(torch.allclose(kept, torch.full_like(kept, 1 / 0.7))),
            "some_dropped": 0.2 < zeros < 0.4,
            "gelu": nn.GELU()(z), "gelu_tanh": F.gelu(z, approximate="tanh")}
