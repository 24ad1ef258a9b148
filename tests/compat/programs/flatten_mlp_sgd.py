"""An image classifier in the concise style: ``nn.Sequential(nn.Flatten(), nn.Linear,
nn.ReLU(), nn.Linear)`` initialised by ``net.apply(init_weights)`` with ``nn.init.normal_``,
``nn.CrossEntropyLoss``, ``optim.SGD`` with weight decay, batches from a ``TensorDataset``.

The initial weights are PyTorch's, copied into nnbook's model. Compared: the mean loss per
epoch, the train accuracy and the final parameters.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def model(torch, nn):
    net = nn.Sequential(nn.Flatten(), nn.Linear(7 * 5, 23), nn.ReLU(), nn.Linear(23, 4))

    def init_weights(m):
        if type(m) is nn.Linear:
            nn.init.normal_(m.weight, std=0.1)

    net.apply(init_weights)
    return net


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(15)
    images = rng.uniform(0, 1, (180, 1, 7, 5)).astype(np.float32)
    labels = (images.reshape(180, -1)[:, :4] * [1, 2, 3, 4]).argmax(1)
    dataset = data.TensorDataset(torch.tensor(images), torch.tensor(labels))
    train_iter = data.DataLoader(dataset, batch_size=30, shuffle=False)

    net = model
    loss = nn.CrossEntropyLoss()
    trainer = optim.SGD(net.parameters(), lr=0.2, weight_decay=1e-3)
    losses = []
    for _epoch in range(5):
        total, count = 0.0, 0
        for X, y in train_iter:
            batch_loss = loss(net(X), y)
            trainer.zero_grad()
            batch_loss.backward()
            trainer.step()
            total += batch_loss.item() * y.numel()
            count += y.numel()
        losses.append(total / count)

    with torch.no_grad():
        X, y = dataset.tensors
        accuracy = (net(X).argmax(dim=1) == y).float().mean().item()
    return {"losses": losses, "accuracy": accuracy,
            "params": [p.detach() for p in net.parameters()]}
