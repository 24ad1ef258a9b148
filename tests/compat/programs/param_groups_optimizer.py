"""Optimizer parameter groups, as fine-tuning scripts use them: ``optim.SGD`` built from a
list of dicts (the backbone at a small learning rate, the head at the default one),
``add_param_group`` for a layer unfrozen later with its own ``lr`` and ``momentum``, a
``StepLR`` scaling every group, and the optimizer's ``state_dict()`` loaded into a fresh
optimizer that carries on the same.

The state dict's momentum buffers are cloned when read: PyTorch's share their memory with
the optimizer (nnbook's are copies, a listed difference).

PyTorch's initial weights are copied into nnbook's model. Compared: each group's settings,
the state dict's groups (``params`` as indices) and its momentum buffers, the losses of
the original and the restored optimizer, and the final weights.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-6)


def model(torch, nn):
    return nn.ModuleDict({"backbone": nn.Sequential(nn.Linear(4, 8), nn.ReLU()),
                          "middle": nn.Linear(8, 8), "head": nn.Linear(8, 2)})


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(65)
    X = torch.tensor(rng.normal(0, 1, (21, 4)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 2, 21))

    def forward(m):
        return m["head"](torch.relu(m["middle"](m["backbone"](X))))

    optimizer = optim.SGD([{"params": model["backbone"].parameters(), "lr": 1e-3},
                           {"params": model["head"].parameters()}], lr=0.1, momentum=0.9)
    for p in model["middle"].parameters():
        p.requires_grad_(False)

    def train(opt, steps):
        out = []
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(forward(model), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out

    losses = train(optimizer, 3)
    for p in model["middle"].parameters():
        p.requires_grad_(True)
    optimizer.add_param_group({"params": model["middle"].parameters(), "lr": 0.02,
                               "momentum": 0.5})
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    for _ in range(4):
        losses += train(optimizer, 1)
        scheduler.step()
    settings = [[g["lr"], g["momentum"], len(g["params"])] for g in optimizer.param_groups]

    state = optimizer.state_dict()
    groups = [[g["lr"], g["momentum"], g["params"]] for g in state["param_groups"]]
    # PyTorch's state dict shares its buffers with the optimizers (nnbook's copies them):
    # cloned now, before the restored optimizer's steps change PyTorch's in place
    buffers = [state["state"][i]["momentum_buffer"].clone() for i in sorted(state["state"])]
    restored = optim.SGD([{"params": model["backbone"].parameters()},
                          {"params": model["head"].parameters()},
                          {"params": model["middle"].parameters()}], lr=0.5)
    restored.load_state_dict(state)
    after = train(restored, 3)
    return {"settings": settings, "groups": groups, "buffers": buffers,
            "restored_lrs": [g["lr"] for g in restored.param_groups], "losses": losses,
            "after": after, "head": model["head"].weight, "middle": model["middle"].bias}
