"""A multilayer perceptron from scratch: ``relu`` as ``torch.max(X, zeros)``, parameters as
``nn.Parameter``s made from numpy arrays, ``nn.CrossEntropyLoss(reduction='none')``, and an
update written by hand, ``param -= lr * param.grad / batch_size``.

Compared: relu against ``F.relu``, the mean loss per epoch, and W1, b1, W2, b2.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=1e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(8)
    num_inputs, num_hiddens, num_outputs, n = 20, 33, 4, 240
    centres = rng.standard_normal((num_outputs, num_inputs))
    labels = rng.integers(0, num_outputs, n)
    features = (centres[labels] + rng.standard_normal((n, num_inputs))).astype(np.float32)

    W1 = nn.Parameter(torch.tensor(rng.standard_normal((num_inputs, num_hiddens)) * 0.01,
                                   dtype=torch.float32))
    b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
    W2 = nn.Parameter(torch.tensor(rng.standard_normal((num_hiddens, num_outputs)) * 0.01,
                                   dtype=torch.float32))
    b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
    params = [W1, b1, W2, b2]

    def relu(X):
        a = torch.zeros_like(X)
        return torch.max(X, a)

    def net(X):
        X = X.reshape((-1, num_inputs))
        H = relu(X @ W1 + b1)  # '@' is matrix multiplication
        return H @ W2 + b2

    probe = torch.tensor(features[:3, :7])
    relu_agrees = bool((relu(probe) == F.relu(probe)).all())

    loss = nn.CrossEntropyLoss(reduction="none")
    X_all, y_all = torch.tensor(features), torch.tensor(labels)
    batch_size, lr = 24, 0.5
    epoch_losses = []
    for _epoch in range(6):
        for start in range(0, n, batch_size):
            X, y = X_all[start:start + batch_size], y_all[start:start + batch_size]
            batch_loss = loss(net(X), y)
            batch_loss.sum().backward()
            with torch.no_grad():
                for param in params:
                    param -= lr * param.grad / batch_size
                    param.grad.zero_()
        with torch.no_grad():
            epoch_losses.append(loss(net(X_all), y_all).mean().item())

    return {"relu_agrees": relu_agrees, "losses": epoch_losses, "W1": W1, "b1": b1,
            "W2": W2, "b2": b2}
