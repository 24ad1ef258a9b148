"""Fine-tuning with a frozen body: an ``nn.Sequential`` whose children are named with
``add_module``, ``model.body.requires_grad_(False)``, an optimizer given only
``filter(lambda p: p.requires_grad, model.parameters())`` (``optim.Adam`` with
``amsgrad=True`` and ``weight_decay``), counts of trainable and frozen parameters, then the
body unfrozen and given to the optimizer with ``add_param_group``.

PyTorch's initial weights are copied into nnbook's model. Compared: the children's names,
the parameter counts, that the frozen weights neither change nor get a gradient, the
losses, and the head's and body's weights at the end.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-6)


def model(torch, nn):
    net = nn.Sequential()
    net.add_module("body", nn.Sequential(nn.Linear(6, 9), nn.ReLU(), nn.Linear(9, 5),
                                         nn.ReLU()))
    net.add_module("act", nn.PReLU())
    net.add_module("head", nn.Linear(5, 3))
    return net


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(68)
    X = torch.tensor(rng.normal(0, 1, (23, 6)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 3, 23))
    model.body.requires_grad_(False)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    frozen = sum(p.numel() for p in model.parameters() if not p.requires_grad)
    before = model.body[0].weight.clone()
    optimizer = optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=0.05,
                           amsgrad=True, weight_decay=1e-3)

    def epochs(n):
        out = []
        for _ in range(n):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(X), y)
            loss.backward()
            optimizer.step()
            out.append(loss.item())
        return out

    losses = epochs(5)
    unchanged = bool(torch.equal(model.body[0].weight, before))
    no_grad = model.body[0].weight.grad is None
    model.body.requires_grad_(True)
    optimizer.add_param_group({"params": model.body.parameters(), "lr": 0.005})
    losses += epochs(5)
    return {"children": [name for name, _ in model.named_children()],
            "trainable": trainable, "frozen": frozen, "unchanged": unchanged,
            "no_grad": no_grad, "losses": losses, "head": model.get_submodule("head").weight,
            "prelu": model.act.weight, "body": model.body[2].bias}
