"""Softmax regression from scratch: weights from ``torch.normal(0, 0.01, size=...,
requires_grad=True)``, softmax by ``exp`` and ``sum(1, keepdim=True)``, cross-entropy by
fancy indexing ``y_hat[range(len(y_hat)), y]``, accuracy, and an ``sgd`` function over
``params``.

``torch.normal``'s draws differ between the libraries: the program checks their spread and
then overwrites them with numpy's (``W.data = ...``). Compared: the spread check, softmax
rows summing to one, the loss and accuracy per epoch, and the final W and b.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-4, atol=1e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(4)
    num_inputs, num_outputs, n = 12, 5, 250
    true_W = rng.standard_normal((num_inputs, num_outputs))
    features = rng.standard_normal((n, num_inputs)).astype(np.float32)
    labels = (features @ true_W + rng.standard_normal((n, num_outputs))).argmax(1)

    W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
    b = torch.zeros(num_outputs, requires_grad=True)
    spread_ok = bool(0.002 < W.std().item() < 0.02) and W.requires_grad
    W.data = torch.tensor(rng.standard_normal((num_inputs, num_outputs)) * 0.01,
                          dtype=torch.float32)

    def softmax(X):
        X_exp = torch.exp(X)
        partition = X_exp.sum(1, keepdim=True)
        return X_exp / partition  # broadcasting

    def net(X):
        return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)

    def cross_entropy(y_hat, y):
        return -torch.log(y_hat[range(len(y_hat)), y])

    def accuracy(y_hat, y):
        y_hat = y_hat.argmax(axis=1)
        cmp = y_hat.type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    def sgd(params, lr, batch_size):
        with torch.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    X_all, y_all = torch.tensor(features), torch.tensor(labels)
    row_sums = softmax(torch.tensor(features[:4, :5])).sum(1)
    batch_size, lr = 25, 0.3
    losses, accuracies = [], []
    for _epoch in range(5):
        for start in range(0, n, batch_size):
            X, y = X_all[start:start + batch_size], y_all[start:start + batch_size]
            batch_loss = cross_entropy(net(X), y)
            batch_loss.sum().backward()
            sgd([W, b], lr, batch_size)
        with torch.no_grad():
            y_hat = net(X_all)
            losses.append(float(cross_entropy(y_hat, y_all).mean()))
            accuracies.append(accuracy(y_hat, y_all) / n)

    return {"spread_ok": spread_ok, "row_sums": row_sums, "losses": losses,
            "accuracies": accuracies, "W": W, "b": b}
