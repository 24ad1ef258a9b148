"""A word-level language model in the style of the classic word_language_model example:
``nn.Embedding`` (with ``nn.Dropout``), a 2-layer ``nn.LSTM`` with dropout 0, a decoder
``nn.Linear`` whose weight is tied to the embedding (``init_weights`` with
``uniform_(-initrange, initrange)``), a corpus batchified into columns, truncated BPTT with
``get_batch`` slices, the hidden state repackaged with ``h.detach()`` between chunks,
``clip_grad_norm_`` and a hand-written SGD step (``p.data.add_(p.grad, alpha=-lr)``),
then ``model.eval()`` and perplexity.

The corpus is a made-up word stream from numpy, and dropout is 0 (train mode then draws
nothing). A second model, untied and with dropout 0.3 between the layers, is only
evaluated, in eval mode. Compared: the clipped gradient norms, the loss of each chunk, the
evaluation loss and perplexity, the hidden state carried out of evaluation, the tied
weight, and the untied model's parameter count and evaluation loss.
"""
import math

import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-5)

WORDS = "the cat dog sat ran on a mat log and then slept here".split()


def model(torch, nn):
    class RNNModel(nn.Module):
        def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.0, tie_weights=True):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
            self.decoder = nn.Linear(nhid, ntoken)
            if tie_weights:
                if nhid != ninp:
                    raise ValueError("tied weights need nhid == emsize")
                self.decoder.weight = self.encoder.weight
            self.init_weights()
            self.nhid, self.nlayers = nhid, nlayers

        def init_weights(self):
            initrange = 0.1
            nn.init.uniform_(self.encoder.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output).view(-1, self.decoder.out_features)
            return F.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            weight = next(self.parameters())
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))

    F = nn.functional
    return nn.ModuleDict({"tied": RNNModel(len(WORDS), 10, 10, 2),
                          "untied": RNNModel(len(WORDS), 10, 12, 2, dropout=0.3,
                                             tie_weights=False)})


def run(torch, nn, F, optim, data, model):
    untied, model = model["untied"], model["tied"]
    rng = np.random.default_rng(31)
    # a stream where each word mostly follows from the last one
    stream = [0]
    for _ in range(600):
        stream.append((stream[-1] * 5 + int(rng.integers(0, 3))) % len(WORDS))
    ids = torch.tensor(stream, dtype=torch.long)

    def batchify(data, bsz):
        nbatch = data.size(0) // bsz
        data = data.narrow(0, 0, nbatch * bsz)
        return data.view(bsz, -1).t().contiguous()

    bptt = 7

    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i)
        return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)

    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)

    train_data = batchify(ids[:450], 5)
    val_data = batchify(ids[450:], 3)
    criterion = nn.NLLLoss()
    lr, clip = 20.0, 0.1

    model.train()
    hidden = model.init_hidden(5)
    losses, norms = [], []
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data_, targets = get_batch(train_data, i)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data_, hidden)
        loss = criterion(output, targets)
        loss.backward()
        norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), clip)))
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())

    def evaluate(model, data_source, eval_batch_size=3):
        model.eval()  # dropout off
        total_loss = 0.0
        hidden = model.init_hidden(eval_batch_size)
        with torch.no_grad():
            for i in range(0, data_source.size(0) - 1, bptt):
                data_, targets = get_batch(data_source, i)
                output, hidden = model(data_, hidden)
                hidden = repackage_hidden(hidden)
                total_loss += len(data_) * criterion(output, targets).item()
        return total_loss / (len(data_source) - 1), hidden

    val_loss, hidden = evaluate(model, val_data)
    untied_loss, _ = evaluate(untied, val_data)  # dropout 0.3, untrained, in eval mode

    return {"chunks": len(losses), "losses": losses, "norms": norms, "val_loss": val_loss,
            "val_ppl": math.exp(val_loss), "h": hidden[0], "c": hidden[1],
            "tied": model.decoder.weight is model.encoder.weight,
            "encoder": model.encoder.weight, "untied_val_loss": untied_loss,
            "untied_params": sum(p.numel() for p in untied.parameters())}
