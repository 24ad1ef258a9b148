"""A PyTorch-style training script runs after changing only its imports."""
import textwrap
import warnings

import numpy as np

import nnbook as nb

# Written the way tutorials write it; only the import lines name nnbook.
SCRIPT = textwrap.dedent('''
    import numpy as np
    import nnbook as torch
    import nnbook.nn as nn
    import nnbook.nn.functional as F
    import nnbook.optim as optim
    from nnbook.utils.data import DataLoader, Dataset, random_split

    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    torch.backends.cudnn.benchmark = True
    device = "cuda" if torch.cuda.is_available() else (
        "mps" if torch.backends.mps.is_available() else "cpu")

    class Blobs(Dataset):
        def __init__(self, n):
            rng = np.random.default_rng(1)
            self.y = rng.integers(0, 3, n)
            self.x = (rng.standard_normal((n, 5)) + 2.0 * self.y[:, None]).astype(np.float32)

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return torch.from_numpy(self.x[i]), int(self.y[i])

    train_set, test_set = random_split(Blobs(300), [0.8, 0.2],
                                       generator=torch.Generator().manual_seed(42))
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=0)
    test_loader = DataLoader(test_set, batch_size=64)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(5, 16)
            self.fc2 = nn.Linear(16, 3)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    model = torch.compile(Net().to(device))
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler(enabled=(device == "cuda"))
    for epoch in range(5):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device)
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()

    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x.to(device)).argmax(1) == y).type(torch.float).sum().item()
    accuracy = correct / len(test_loader.dataset)
    torch.save(model.state_dict(), "model.pth")
    model2 = Net()
    model2.load_state_dict(torch.load("model.pth"))
''')


def test_a_pytorch_training_script_runs_with_nnbook_imports(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(SCRIPT, "train.py", "exec"), scope)
    assert scope["device"] == "cpu"
    assert scope["accuracy"] > 0.8
    assert {type(w.message) for w in caught} == {nb.NnbookNote}  # compile and autocast notes
    a, b = scope["model"].state_dict(), scope["model2"].state_dict()
    for key in a:
        np.testing.assert_array_equal(a[key].numpy(), b[key].numpy())
