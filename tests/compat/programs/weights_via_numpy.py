"""Moving trained weights between models written differently: the state dict of an
``nn.Sequential`` saved as numpy arrays (``np.savez`` of ``v.detach().numpy()``, a format any
library reads), loaded into an ``nn.Module`` subclass whose layers have names by renaming
the keys, then ``load_state_dict(..., strict=False)`` into a model with an extra layer,
reading the ``missing_keys`` and ``unexpected_keys`` it reports.

PyTorch's initial weights are copied into nnbook's model. Compared: the keys of both
models, that the renamed model predicts as the trained one, the missing and unexpected keys
of the partial load, and the partly loaded model's predictions.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(67)
    X = torch.tensor(rng.normal(0, 1, (11, 5)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 3, 11))
    optimizer = optim.SGD(model.parameters(), lr=0.2)
    for _ in range(10):
        optimizer.zero_grad()
        F.cross_entropy(model(X), y).backward()
        optimizer.step()
    np.savez("weights.npz", **{k: v.detach().numpy() for k, v in model.state_dict().items()})

    class Named(nn.Module):
        def __init__(self, extra=False):
            super().__init__()
            self.fc1 = nn.Linear(5, 7)
            self.fc2 = nn.Linear(7, 3)
            self.extra = nn.Linear(3, 3) if extra else None

        def forward(self, x):
            out = self.fc2(torch.tanh(self.fc1(x)))
            return out if self.extra is None else self.extra(out)

    saved = np.load("weights.npz")
    rename = {"0": "fc1", "2": "fc2"}
    state = {}
    for key in saved.files:
        layer, name = key.split(".")
        state[f"{rename[layer]}.{name}"] = torch.from_numpy(saved[key])
    named = Named()
    named.load_state_dict(state)
    named.eval()
    with torch.no_grad():
        same = bool(torch.equal(named(X), model(X)))

    partial = Named(extra=True)
    with torch.no_grad():
        partial.extra.weight.copy_(torch.eye(3) * 2)
        partial.extra.bias.zero_()
    state["head.weight"] = torch.zeros(3, 3)
    result = partial.load_state_dict(state, strict=False)
    with torch.no_grad():
        doubled = bool(torch.allclose(partial(X), model(X) * 2))
    return {"saved_keys": sorted(saved.files), "named_keys": list(named.state_dict()),
            "same_predictions": same, "missing": list(result.missing_keys),
            "unexpected": list(result.unexpected_keys), "partial_doubles": doubled,
            "pred": model(X)[:3]}
