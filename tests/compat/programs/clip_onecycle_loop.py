"""A training loop as course scripts write it: ``loss.backward()``, then
``nn.utils.clip_grad_norm_(model.parameters(), max_norm)`` (whose return value, the norm
before clipping, is logged), ``optimizer.step()`` and ``scheduler.step()`` after every batch
of an ``optim.lr_scheduler.OneCycleLR`` with ``steps_per_epoch`` and ``epochs``, on
``optim.AdamW``.

PyTorch's initial weights are copied into nnbook's model. Compared: the gradient norms,
the learning rate and first beta after each batch, the losses and the final weights.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(56)
    X = torch.tensor(rng.normal(0, 1, (35, 4)), dtype=torch.float32)
    y = torch.tensor(rng.normal(0, 3, (35, 1)), dtype=torch.float32) + X[:, :1] * 4
    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=8)
    epochs = 4
    optimizer = optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
    scheduler = optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, epochs=epochs,
                                              steps_per_epoch=len(loader))
    norms, rates, betas, losses = [], [], [], []
    for epoch in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
            norms.append(float(norm))
            rates.append(scheduler.get_last_lr()[0])
            betas.append(optimizer.param_groups[0]["betas"][0])
            losses.append(loss.item())
    clipped = [n for n in norms if n > 1.0]
    return {"batches": len(loader), "norms": norms, "clipped": len(clipped), "rates": rates,
            "betas": betas, "losses": losses, "weight": model[2].weight}
