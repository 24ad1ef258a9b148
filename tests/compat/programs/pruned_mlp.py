"""Pruning an MLP as PyTorch's pruning tutorial does it: ``prune.l1_unstructured`` and
``prune.ln_structured`` on single layers, then ``prune.global_unstructured`` over every
weight with ``prune.L1Unstructured``, the sparsity printed per layer, training of the
pruned model with ``optim.SGD`` (pruned entries stay zero and get no gradient), then
``prune.remove`` to make it permanent, and ``prune.is_pruned`` before and after.

PyTorch's initial weights are copied into nnbook's model and pruned before training, so
both libraries choose among the same numbers; only the deterministic methods are used
(random pruning draws from each library's own generator). Compared: the state dict's keys
when pruned and after remove, the masks, the printed sparsity lines, the losses, the
gradient of a pruned weight, the weights at the end (zeros included) and the predictions.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def model(torch, nn):
    return nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 9), nn.ReLU(),
                         nn.Linear(9, 3))


def run(torch, nn, F, optim, data, model):
    prune = nn.utils.prune
    rng = np.random.default_rng(29)
    X = torch.tensor(rng.normal(0, 1, (40, 6)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 3, 40))
    layers = [model[0], model[2], model[4]]
    prune.l1_unstructured(layers[0], name="weight", amount=0.3)
    prune.ln_structured(layers[1], name="weight", amount=0.25, n=2, dim=0)
    prune.global_unstructured([(m, "weight") for m in layers],
                              pruning_method=prune.L1Unstructured, amount=0.2)
    pruned_keys = list(model.state_dict())
    lines = []
    for i, m in zip((0, 2, 4), layers):
        zeros = float(torch.sum(m.weight == 0))
        lines.append(f"Sparsity in {i}.weight: {100.0 * zeros / float(m.weight.nelement()):.2f}%")
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(15):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grad = model[2].weight_orig.grad.clone()
    was_pruned = prune.is_pruned(model)
    masks = [m.weight_mask.clone() for m in layers]
    model(X)  # the hook writes the weight from the trained weight_orig
    for m in layers:
        prune.remove(m, "weight")
    return {"pruned_keys": pruned_keys, "masks": masks, "lines": lines, "losses": losses,
            "grad": grad, "was_pruned": was_pruned,
            "is_pruned": prune.is_pruned(model), "keys": list(model.state_dict()),
            "weights": [m.weight for m in layers], "predictions": model(X).argmax(1)}
