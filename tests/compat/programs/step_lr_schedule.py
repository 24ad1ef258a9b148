"""A learning-rate schedule: ``optim.SGD(momentum=0.9)`` with
``optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)``, ``scheduler.step()`` once
per epoch after the batches, and ``scheduler.get_last_lr()`` / ``param_groups[0]['lr']``
printed each epoch.

PyTorch's initial weights are copied into nnbook's model. Compared: the learning rates,
the loss per epoch and the final weights.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(4, 12), nn.Tanh(), nn.Linear(12, 1))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(35)
    X = torch.tensor(rng.uniform(-1, 1, (64, 4)), dtype=torch.float32)
    y = (X[:, :1] * 2 - X[:, 1:2] ** 2 + 0.5 * X[:, 2:3] * X[:, 3:4])
    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=16)

    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    criterion = nn.MSELoss()
    rates, last_lr, losses = [], [], []
    for _epoch in range(10):
        rates.append(optimizer.param_groups[0]["lr"])
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
        scheduler.step()
        last_lr.append(scheduler.get_last_lr()[0])
        losses.append(total / len(loader))

    return {"rates": rates, "last_lr": last_lr, "losses": losses,
            "weight": model[2].weight, "scheduler_epoch": scheduler.last_epoch}
