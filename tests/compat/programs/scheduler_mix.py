"""Schedules beyond StepLR, as training scripts use them: a warm-up written as
``LambdaLR``, ``CosineAnnealingLR`` with ``Adam``, ``ReduceLROnPlateau`` fed a validation
loss each epoch, and ``OneCycleLR`` stepped after every batch.

Compared: each schedule's learning rates (from ``get_last_lr()`` or ``param_groups``), the
validation losses and the final weights of each run (PyTorch's initial weights copied into
nnbook's models first).
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-6)


def model(torch, nn):
    return nn.ModuleList([nn.Linear(3, 1) for _ in range(4)])


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(43)
    X = torch.tensor(rng.uniform(-1, 1, (48, 3)), dtype=torch.float32)
    y = X @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3
    X_val = torch.tensor(rng.uniform(-1, 1, (16, 3)), dtype=torch.float32)
    y_val = X_val @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3
    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=12)

    def train(net, optimizer, epochs, after_batch=None, after_epoch=None):
        rates, val_losses = [], []
        for _epoch in range(epochs):
            for xb, yb in loader:
                optimizer.zero_grad()
                F.mse_loss(net(xb), yb).backward()
                optimizer.step()
                if after_batch is not None:
                    after_batch.step()
                    rates.append(after_batch.get_last_lr()[0])
            with torch.no_grad():
                val = F.mse_loss(net(X_val), y_val).item()
            val_losses.append(val)
            if after_epoch is not None:
                after_epoch(val)
                rates.append(optimizer.param_groups[0]["lr"])
        return rates, val_losses

    warm, cosine, plateau, one_cycle = model
    results = {}

    sgd = optim.SGD(warm.parameters(), lr=0.2)
    warmup = optim.lr_scheduler.LambdaLR(sgd, lr_lambda=lambda e: min(1.0, (e + 1) / 4))
    results["warmup"] = train(warm, sgd, 8, after_epoch=lambda val: warmup.step())

    adam = optim.Adam(cosine.parameters(), lr=0.05)
    annealing = optim.lr_scheduler.CosineAnnealingLR(adam, T_max=8, eta_min=0.001)
    results["cosine"] = train(cosine, adam, 8, after_epoch=lambda val: annealing.step())

    momentum = optim.SGD(plateau.parameters(), lr=0.5, momentum=0.9)
    reduce = optim.lr_scheduler.ReduceLROnPlateau(momentum, mode="min", factor=0.5,
                                                  patience=1)
    results["plateau"] = train(plateau, momentum, 10, after_epoch=reduce.step)

    cycle_opt = optim.SGD(one_cycle.parameters(), lr=0.1, momentum=0.9)
    cycle = optim.lr_scheduler.OneCycleLR(cycle_opt, max_lr=0.3, epochs=3,
                                          steps_per_epoch=len(loader))
    results["one_cycle"] = train(one_cycle, cycle_opt, 3, after_batch=cycle)

    out = {}
    for name, (rates, val_losses) in results.items():
        out[f"{name}_rates"] = rates
        out[f"{name}_val"] = val_losses
    out["weights"] = [torch.cat([m.weight.flatten(), m.bias]) for m in model]
    return out
