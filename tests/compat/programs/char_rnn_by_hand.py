"""A character RNN cell written by hand, as in the classic name-classification walk-through:
``i2h`` and ``h2o`` ``nn.Linear`` layers over ``torch.cat((input, hidden), 1)``,
``nn.LogSoftmax(dim=1)`` and ``nn.NLLLoss``, names turned into one-hot tensors of shape
(length, 1, letters) by index assignment, a loop over the letters carrying the hidden
state, SGD by hand with ``p.data.add_(p.grad.data, alpha=-learning_rate)`` and the guess
read with ``output.topk(1)``; then the same recurrence with ``nn.LSTMCell`` and
``nn.GRUCell`` stepped by hand, checked against ``nn.LSTM`` and ``nn.GRU`` given the same
weights, and a bidirectional GRU whose two last states are joined with ``torch.cat``.

Names are made up from syllables by numpy. Compared: the losses, the guesses, the cells'
outputs and gradients, the agreement of the cells with the full layers, and the
bidirectional states.
"""
import numpy as np

TOLERANCE = dict(rtol=2e-4, atol=2e-5)

GROUPS = [["ab", "ur", "ik"], ["sol", "men", "ya"], ["oo", "ee", "iy"]]
ALL_LETTERS = "abeikl" + "mnorsuy"


def model(torch, nn):
    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
            self.h2o = nn.Linear(input_size + hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, input, hidden):
            combined = torch.cat((input, hidden), 1)
            hidden = self.i2h(combined)
            output = self.softmax(self.h2o(combined))
            return output, hidden

        def initHidden(self):
            return torch.zeros(1, self.hidden_size)

    return nn.ModuleDict({
        "rnn": RNN(len(ALL_LETTERS), 9, len(GROUPS)),
        "lstm_cell": nn.LSTMCell(len(ALL_LETTERS), 7),
        "gru_cell": nn.GRUCell(len(ALL_LETTERS), 7),
        "bi_gru": nn.GRU(len(ALL_LETTERS), 5, bidirectional=True),
    })


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(3)
    rnn = model["rnn"]

    def lineToTensor(line):
        tensor = torch.zeros(len(line), 1, len(ALL_LETTERS))
        for li, letter in enumerate(line):
            tensor[li][0][ALL_LETTERS.find(letter)] = 1
        return tensor

    criterion = nn.NLLLoss()
    learning_rate = 0.01

    def train(category_tensor, line_tensor):
        hidden = rnn.initHidden()
        rnn.zero_grad()
        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)
        loss = criterion(output, category_tensor)
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)
        return output, loss.item()

    losses, guesses = [], []
    for it in range(30):
        category = int(rng.integers(0, len(GROUPS)))
        line = "".join(rng.choice(GROUPS[category], int(rng.integers(1, 4))))
        output, loss = train(torch.tensor([category], dtype=torch.long), lineToTensor(line))
        top_n, top_i = output.topk(1)
        guesses.append(top_i[0].item())
        losses.append(loss)

    # cells stepped by hand against the full layers with the same weights
    x = lineToTensor("mensolab").repeat(1, 3, 1) * torch.tensor([[[1.0], [0.5], [-1.0]]])
    x.requires_grad_(True)
    lstm_cell, gru_cell = model["lstm_cell"], model["gru_cell"]
    hx, cx = torch.zeros(3, 7), torch.zeros(3, 7)
    lstm_steps, gru_steps = [], []
    h = torch.zeros(3, 7)
    for i in range(x.size(0)):
        hx, cx = lstm_cell(x[i], (hx, cx))
        h = gru_cell(x[i], h)
        lstm_steps.append(hx)
        gru_steps.append(h)
    lstm_out, gru_out = torch.stack(lstm_steps), torch.stack(gru_steps)
    (lstm_out.sum() + (gru_out ** 2).sum()).backward()

    lstm = nn.LSTM(len(ALL_LETTERS), 7)
    gru = nn.GRU(len(ALL_LETTERS), 7)
    with torch.no_grad():
        for layer, cell in ((lstm, lstm_cell), (gru, gru_cell)):
            layer.weight_ih_l0.copy_(cell.weight_ih)
            layer.weight_hh_l0.copy_(cell.weight_hh)
            layer.bias_ih_l0.copy_(cell.bias_ih)
            layer.bias_hh_l0.copy_(cell.bias_hh)
        cells_match = (torch.allclose(lstm(x)[0], lstm_out, atol=1e-6)
                       and torch.allclose(gru(x)[0], gru_out, atol=1e-6))

    out, h_n = model["bi_gru"](x)  # h_n: (2 directions, batch, hidden)
    joined = torch.cat((h_n[-2, :, :], h_n[-1, :, :]), dim=1)
    ends_match = bool(torch.allclose(out[-1, :, :5], h_n[0])
                      and torch.allclose(out[0, :, 5:], h_n[1]))

    return {"losses": losses, "guesses": guesses, "lstm_out": lstm_out,
            "gru_out": gru_out, "x_grad": x.grad,
            "cell_grad": lstm_cell.weight_hh.grad, "cells_match": bool(cells_match),
            "out_shape": list(out.shape), "joined": joined, "ends_match": ends_match}
