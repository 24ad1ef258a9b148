"""A 1-D convolutional classifier of signals (sine, square and noisy ramp): inputs of shape
``(batch, channels, length)``, ``nn.Conv1d`` with padding, ``nn.BatchNorm1d``,
``nn.MaxPool1d(2)`` and ``nn.MaxPool1d(kernel_size=3, stride=2)``, a mean over time before
the linear head, and ``nn.CrossEntropyLoss`` with ``optim.SGD(momentum=0.9)`` over a
``DataLoader`` without shuffling (its order would differ).

PyTorch's initial weights are copied into nnbook's model. Compared: the shapes through the
layers, the loss each epoch, the accuracy, the logits and the first kernel's gradient.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-6)


def model(torch, nn):
    class SignalNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv1d(2, 6, kernel_size=5, padding=2), nn.BatchNorm1d(6), nn.ReLU(),
                nn.MaxPool1d(2),
                nn.Conv1d(6, 8, kernel_size=3), nn.ReLU(), nn.MaxPool1d(kernel_size=3,
                                                                         stride=2))
            self.classifier = nn.Linear(8, 3)

        def forward(self, x):
            return self.classifier(self.features(x).mean(dim=2))
    return SignalNet()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(62)
    t = np.linspace(0, 1, 37)
    signals, labels = [], []
    for i in range(27):
        kind, f = i % 3, rng.uniform(2, 5)
        wave = [np.sin(2 * np.pi * f * t), np.sign(np.sin(2 * np.pi * f * t)), t * f / 3][kind]
        noise = rng.normal(0, 0.3, (2, 37))
        signals.append(np.stack([wave, np.gradient(wave)]) + noise)
        labels.append(kind)
    X = torch.tensor(np.array(signals), dtype=torch.float32)
    y = torch.tensor(labels)
    shapes, x = [], X[:2]
    for layer in model.features:
        x = layer(x)
        shapes.append(list(x.shape))

    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=9)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for epoch in range(5):
        model.train()
        running = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item()
        losses.append(running / len(loader))
    grad = model.features[0].weight.grad
    model.eval()
    with torch.no_grad():
        logits = model(X)
        accuracy = (logits.argmax(1) == y).sum().item() / len(y)
    return {"shapes": shapes, "losses": losses, "accuracy": accuracy, "logits": logits[:5],
            "grad": grad}
