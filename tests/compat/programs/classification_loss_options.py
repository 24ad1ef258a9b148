"""The options of the classification losses that course code reaches for:
``nn.CrossEntropyLoss(weight=..., label_smoothing=...)`` for unbalanced classes,
``ignore_index`` for padded labels (-100 by default), soft targets given as probabilities,
``nn.LogSoftmax`` followed by ``nn.NLLLoss`` and the same with ``reduction="none"``; then a
small linear classifier trained with the weighted, smoothed loss.

PyTorch's initial weights are copied into nnbook's model. Compared: every loss's value and
gradient with respect to the logits, and the classifier's losses and weights.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def model(torch, nn):
    return nn.Linear(5, 4)


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(69)
    logits = torch.tensor(rng.normal(0, 2, (7, 4)), dtype=torch.float32, requires_grad=True)
    labels = torch.tensor([0, 3, 1, -100, 2, 3, -100])
    class_weight = torch.tensor([1.0, 3.0, 0.5, 2.0])
    losses, grads = {}, {}
    cases = {
        "weighted_smoothed": lambda z: nn.CrossEntropyLoss(weight=class_weight,
                                                           label_smoothing=0.1)(z, labels),
        "ignored": lambda z: F.cross_entropy(z, labels, ignore_index=-100),
        "soft_targets": lambda z: F.cross_entropy(z, torch.softmax(torch.arange(4.0) * 0.3
                                                                   * torch.ones(7, 4), dim=1)),
        "log_softmax_nll": lambda z: nn.NLLLoss()(nn.LogSoftmax(dim=1)(z), labels.clamp(min=0)),
        "per_example": lambda z: F.nll_loss(F.log_softmax(z, dim=1), labels.clamp(min=0),
                                            reduction="none").sum(),
    }
    for name, loss_of in cases.items():
        logits.grad = None
        loss = loss_of(logits)
        loss.backward()
        losses[name], grads[name] = loss.item(), logits.grad.clone()

    X = torch.tensor(rng.normal(0, 1, (29, 5)), dtype=torch.float32)
    y = torch.tensor(rng.choice(4, 29, p=[0.55, 0.1, 0.25, 0.1]))
    criterion = nn.CrossEntropyLoss(weight=class_weight, label_smoothing=0.05)
    optimizer = optim.SGD(model.parameters(), lr=0.3)
    fit = []
    for _ in range(10):
        optimizer.zero_grad()
        loss = criterion(model(X), y)
        loss.backward()
        optimizer.step()
        fit.append(loss.item())
    return {"losses": losses, "grads": grads, "fit": fit, "weight": model.weight}
