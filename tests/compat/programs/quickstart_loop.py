"""The quickstart loop: a ``Dataset`` subclass on random data, two ``DataLoader``s,
``train()`` and ``test()`` functions with ``model.train()`` / ``model.eval()``, the device
line, ``optim.SGD``, ``nn.CrossEntropyLoss`` and accuracy by ``pred.argmax(1) == y``.

The loaders do not shuffle (the libraries' shuffles differ), so both see the same batches.
Compared: the printed loss lines, each epoch's test loss and accuracy, and the weights
(PyTorch's initial weights copied into nnbook's model first).
"""
import numpy as np

TOLERANCE = dict(rtol=1e-4, atol=1e-5)


class Clusters:
    """Three blobs in 6 dimensions; class k is centred at k along every axis."""

    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 3, n)
        self.points = (rng.standard_normal((n, 6)) + self.labels[:, None]).astype(np.float32)


def model(torch, nn):
    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(6, 17), nn.ReLU(), nn.Linear(17, 11), nn.ReLU(), nn.Linear(11, 3))

        def forward(self, x):
            return self.linear_relu_stack(self.flatten(x))

    return NeuralNetwork()


def run(torch, nn, F, optim, data, model):
    class ClusterDataset(data.Dataset):
        def __init__(self, n, seed):
            self.source = Clusters(n, seed)

        def __len__(self):
            return len(self.source.labels)

        def __getitem__(self, idx):
            return torch.tensor(self.source.points[idx]), int(self.source.labels[idx])

    train_dataloader = data.DataLoader(ClusterDataset(300, 1), batch_size=32)
    test_dataloader = data.DataLoader(ClusterDataset(100, 2), batch_size=32)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = model.to(device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    printed = []

    def train(dataloader, model, loss_fn, optimizer):
        size = len(dataloader.dataset)
        model.train()
        for batch, (X, y) in enumerate(dataloader):
            X, y = X.to(device), y.to(device)
            loss = loss_fn(model(X), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if batch % 4 == 0:
                loss, current = loss.item(), (batch + 1) * len(X)
                printed.append(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

    def test(dataloader, model, loss_fn):
        size = len(dataloader.dataset)
        num_batches = len(dataloader)
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                X, y = X.to(device), y.to(device)
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        return test_loss / num_batches, correct / size

    results = []
    for _t in range(4):
        train(train_dataloader, model, loss_fn, optimizer)
        results.append(test(test_dataloader, model, loss_fn))

    return {"printed": printed, "test_loss": [r[0] for r in results],
            "accuracy": [r[1] for r in results], "state": dict(model.state_dict())}
