"""A binary classifier on two noisy blobs: one logit per example from an ``nn.Sequential``,
``nn.BCEWithLogitsLoss`` with float targets of shape ``(N, 1)`` and a ``pos_weight``,
``optim.Adam``, and predictions from ``torch.sigmoid(logits) > 0.5``.

PyTorch's initial weights are copied into nnbook's model. Compared: the loss each epoch,
the accuracy, the predicted probabilities and the last layer's weights.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(2, 9), nn.ReLU(), nn.Linear(9, 1))


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(54)
    a = rng.normal((1.0, 1.5), 0.8, (30, 2))
    b = rng.normal((-1.0, -0.5), 0.8, (23, 2))
    X = torch.tensor(np.vstack([a, b]), dtype=torch.float32)
    y = torch.tensor(np.r_[np.ones(30), np.zeros(23)], dtype=torch.float32).unsqueeze(1)
    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=11)

    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([0.8]))
    optimizer = optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for epoch in range(8):
        total = 0.0
        for xb, yb in loader:
            logits = model(xb)
            loss = loss_fn(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        losses.append(total / len(X))

    with torch.no_grad():
        probs = torch.sigmoid(model(X))
        preds = (probs > 0.5).float()
        accuracy = (preds == y).float().mean().item()
        unreduced = nn.BCEWithLogitsLoss(reduction="none")(model(X[:5]), y[:5])
    return {"losses": losses, "accuracy": accuracy, "probs": probs,
            "unreduced": unreduced, "weight": model[2].weight}
