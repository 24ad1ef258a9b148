"""The losses beyond cross-entropy, each training a small head with ``optim.SGD``: a
multi-class SVM (``nn.MultiMarginLoss``), a multi-label tagger
(``nn.MultiLabelSoftMarginLoss``, and ``F.multilabel_margin_loss`` on the same labels as
index lists ended by -1), a regression that learns its own variance
(``nn.GaussianNLLLoss`` with the variance through ``F.softplus``), a Poisson regression of
counts (``nn.PoissonNLLLoss``) and an embedding trained with
``nn.TripletMarginWithDistanceLoss`` under a cosine distance.

PyTorch's initial weights are copied into nnbook's model. Compared: every loss curve and
the heads' final weights.
"""
import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=2e-5)


def model(torch, nn):
    return nn.ModuleDict({"svm": nn.Linear(4, 3), "tagger": nn.Linear(4, 5),
                          "gauss": nn.Linear(1, 2), "poisson": nn.Linear(2, 1),
                          "embed": nn.Linear(4, 3)})


def train(optim, params, loss_fn, steps=40, lr=0.1):
    optimizer = optim.SGD(params, lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses[::8]


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(71)
    x = torch.tensor(rng.standard_normal((31, 4)), dtype=torch.float32)
    classes = torch.tensor(rng.integers(0, 3, 31))
    tags = rng.random((31, 5)) < 0.4
    lists = np.full((31, 5), -1)
    for i, row in enumerate(tags):
        lists[i, :row.sum()] = np.nonzero(row)[0]
    tags, lists = torch.tensor(tags, dtype=torch.float32), torch.tensor(lists)

    curves = {}
    svm = model["svm"]
    curves["svm"] = train(optim, svm.parameters(),
                          lambda: nn.MultiMarginLoss(margin=0.5)(svm(x), classes))
    tagger, soft = model["tagger"], nn.MultiLabelSoftMarginLoss()
    curves["tagger"] = train(optim, tagger.parameters(), lambda: soft(tagger(x), tags))
    curves["tagger_margin"] = F.multilabel_margin_loss(tagger(x), lists).item()

    u = torch.tensor(rng.uniform(-1, 1, (31, 1)), dtype=torch.float32)
    y = 2 * u + torch.tensor(rng.normal(0, 0.3, (31, 1)), dtype=torch.float32) * (1 + u)
    gauss, nll = model["gauss"], nn.GaussianNLLLoss()

    def gaussian_loss():
        out = gauss(u)
        return nll(out[:, :1], y, F.softplus(out[:, 1:]) + 1e-3)
    curves["gauss"] = train(optim, gauss.parameters(), gaussian_loss, lr=0.05)

    z = torch.tensor(rng.uniform(0, 1, (31, 2)), dtype=torch.float32)
    counts = torch.tensor(rng.poisson(np.exp(1 + z.numpy() @ [1.0, -0.5]))[:, None],
                          dtype=torch.float32)
    poisson = model["poisson"]
    curves["poisson"] = train(optim, poisson.parameters(),
                              lambda: nn.PoissonNLLLoss(full=True)(poisson(z), counts),
                              lr=0.02)

    embed = model["embed"]
    triplet = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=1.0)
    curves["triplet"] = train(optim, embed.parameters(),
                              lambda: triplet(embed(x[:10]), embed(x[10:20] + 0.1 * x[:10]),
                                              embed(x[20:30])), steps=16, lr=0.05)
    return {"curves": curves,
            "weights": {name: layer.weight.detach().clone() for name, layer in model.items()}}
