"""Saving and loading: ``torch.save(model.state_dict(), "model.pth")`` and the optimizer's,
a new model with ``load_state_dict(torch.load("model.pth"))``, ``model.eval()``, and
training resumed from the loaded optimizer state.

Each library writes in a folder of its own. Compared: the state dict's keys, that the
loaded model predicts exactly as the saved one, and the loss after resuming training.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def build(nn):
    return nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.BatchNorm1d(10), nn.Linear(10, 2))


def model(torch, nn):
    return build(nn)


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(17)
    X = torch.tensor(rng.standard_normal((40, 6)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 2, 40))
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    for _ in range(15):
        optimizer.zero_grad()
        F.cross_entropy(model(X), y).backward()
        optimizer.step()

    torch.save(model.state_dict(), "model.pth")
    torch.save(optimizer.state_dict(), "optimizer.pth")

    restored = build(nn)  # new, untrained weights
    restored.load_state_dict(torch.load("model.pth"))
    restored_optimizer = optim.Adam(restored.parameters(), lr=0.01)
    restored_optimizer.load_state_dict(torch.load("optimizer.pth"))

    model.eval()
    restored.eval()
    with torch.no_grad():
        same = bool(torch.equal(model(X), restored(X)))

    restored.train()
    losses = []
    for _ in range(5):
        restored_optimizer.zero_grad()
        loss = F.cross_entropy(restored(X), y)
        loss.backward()
        restored_optimizer.step()
        losses.append(loss.item())

    return {"keys": list(restored.state_dict().keys()), "same_predictions": same,
            "losses": losses, "running_mean": restored[2].running_mean,
            "steps": restored_optimizer.state_dict()["state"][0]["step"]}
