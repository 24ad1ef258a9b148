"""The classic MNIST example's shape of program on random 28x28 images: two ``nn.Conv2d``
layers (1 to 32 to 64 channels, 3x3), ``F.max_pool2d(x, 2)``, ``nn.Dropout`` twice,
``torch.flatten(x, 1)``, ``nn.Linear(9216, 128)``, ``F.log_softmax(x, dim=1)`` with
``F.nll_loss``, ``optim.Adadelta(lr=1.0)`` and ``StepLR(step_size=1, gamma=0.7)``, and a
``test()`` that sums the loss with ``reduction='sum'`` and counts
``pred.eq(target.view_as(pred)).sum().item()``.

Dropout's masks come from each library's own generator, so the training epochs (in train
mode) differ; their steps are compared only for the rows being log-probabilities and the
learning rates. Compared: the eval-mode log-probabilities and test loss before training,
one Adadelta step from an eval-mode batch (gradients and updated weights), the schedule,
and that train-mode outputs are log-probabilities.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-3, atol=2e-5)


def model(torch, nn):
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))  # (N, 32, 26, 26)
            x = F.relu(self.conv2(x))  # (N, 64, 24, 24)
            x = F.max_pool2d(x, 2)  # (N, 64, 12, 12): 9216 values per image
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = self.dropout2(x)
            return F.log_softmax(self.fc2(x), dim=1)

    return Net()


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(47)
    images = torch.tensor(rng.uniform(0, 1, (12, 1, 28, 28)), dtype=torch.float32)
    images = (images - 0.1307) / 0.3081  # the usual MNIST normalisation
    targets = torch.tensor(rng.integers(0, 10, 12))
    train_loader = data.DataLoader(data.TensorDataset(images[:8], targets[:8]), batch_size=4)
    test_loader = data.DataLoader(data.TensorDataset(images[8:], targets[8:]), batch_size=4)

    def test():
        model.eval()
        test_loss, correct = 0.0, 0
        with torch.no_grad():
            for x, target in test_loader:
                output = model(x)
                test_loss += F.nll_loss(output, target, reduction="sum").item()
                pred = output.argmax(dim=1, keepdim=True)
                correct += pred.eq(target.view_as(pred)).sum().item()
        return test_loss / len(test_loader.dataset), correct

    result = {"test_before": test()}
    with torch.no_grad():
        result["log_probs"] = model(images[:4])

    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    model.eval()  # one step with dropout off: the same in both libraries
    optimizer.zero_grad()
    F.nll_loss(model(images[:4]), targets[:4]).backward()
    result["fc2_grad"] = model.fc2.weight.grad.clone()
    result["conv1_grad"] = model.conv1.weight.grad.clone()
    optimizer.step()
    result["conv1_after_step"] = model.conv1.weight.detach().clone()

    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    rates, row_sums = [], []
    for _epoch in range(1, 3):
        model.train()
        for x, target in train_loader:
            optimizer.zero_grad()
            output = model(x)
            row_sums.append(output.exp().sum(dim=1).detach())
            F.nll_loss(output, target).backward()
            optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr()[0])
    result["rates"] = rates
    result["train_rows_sum_to_one"] = torch.cat(row_sums)
    return result
