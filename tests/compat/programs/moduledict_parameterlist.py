"""A model kept in containers: an ``nn.ModuleDict`` of named layers (``"encoder"``,
``"heads"`` holding another ``nn.ModuleDict``), one head chosen by name in ``forward``, an
``nn.ParameterList`` of per-layer scales, iteration with ``.items()`` and ``.keys()``, and a
head added after construction.

PyTorch's initial weights are copied into nnbook's model. Compared: the state dict's keys,
the parameter count, each head's output, the losses of training both heads with
``optim.SGD`` and the scales' gradients.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def model(torch, nn):
    class MultiHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleDict({
                "encoder": nn.Linear(6, 10),
                "heads": nn.ModuleDict({"age": nn.Linear(10, 1), "kind": nn.Linear(10, 4)}),
            })
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(10)),
                                            nn.Parameter(torch.full((1,), 2.0))])

        def forward(self, x, head):
            h = torch.relu(self.layers["encoder"](x)) * self.scales[0]
            out = self.layers["heads"][head](h)
            return out * self.scales[1] if head == "age" else out
    return MultiHead()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(58)
    X = torch.tensor(rng.normal(0, 1, (17, 6)), dtype=torch.float32)
    age = torch.tensor(rng.normal(0, 1, (17, 1)), dtype=torch.float32)
    kind = torch.tensor(rng.integers(0, 4, 17))
    heads = list(model.layers["heads"].keys())
    outs = {name: model(X[:3], name) for name in heads}

    optimizer = optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(6):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X, "age"), age) + F.cross_entropy(model(X, "kind"), kind)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grads = [p.grad for p in model.scales]

    model.layers["heads"]["extra"] = nn.Linear(10, 2)
    return {"keys": list(model.state_dict().keys()),
            "count": sum(p.numel() for p in model.parameters()), "heads": heads,
            "outs": outs, "losses": losses, "scale_grads": grads,
            "in_dict": "extra" in model.layers["heads"], "n_scales": len(model.scales),
            "types": [type(m).__name__ for _, m in model.layers.items()]}
