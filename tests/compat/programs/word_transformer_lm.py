"""The word language model again with attention: ``nn.Embedding`` scaled by
``math.sqrt(ninp)``, a sinusoidal ``PositionalEncoding`` module that keeps its table in a
registered buffer, ``nn.TransformerEncoder`` over ``nn.TransformerEncoderLayer`` (sequence
first, dropout 0) with ``nn.Transformer.generate_square_subsequent_mask`` as the causal
mask, a decoder ``nn.Linear``, ``clip_grad_norm_`` and SGD with ``StepLR``; then a small
``nn.Transformer`` (encoder and decoder, ``batch_first=True``) trained to copy a sequence
with teacher forcing and decoded greedily.

The data are made-up word streams from numpy, and dropout is 0. Compared: the causal mask,
the losses of the two models, the evaluation loss, that the causal model's output at a
position does not change when later words change, and the greedy copy.
"""
import math

import numpy as np

TOLERANCE = dict(rtol=5e-4, atol=5e-5)

NTOKEN, NINP, NHEAD, NHID, NLAYERS = 11, 12, 3, 20, 2


def model(torch, nn):
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=64):
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(max_len, 1, d_model)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x):  # (seq, batch, d_model)
            return x + self.pe[:x.size(0)]

    class TransformerModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.pos_encoder = PositionalEncoding(NINP)
            layer = nn.TransformerEncoderLayer(NINP, NHEAD, NHID, dropout=0.0)
            self.transformer_encoder = nn.TransformerEncoder(layer, NLAYERS,
                                                          enable_nested_tensor=False)
            self.embedding = nn.Embedding(NTOKEN, NINP)
            self.linear = nn.Linear(NINP, NTOKEN)
            nn.init.uniform_(self.embedding.weight, -0.1, 0.1)
            nn.init.zeros_(self.linear.bias)
            nn.init.uniform_(self.linear.weight, -0.1, 0.1)

        def forward(self, src, src_mask=None):
            src = self.embedding(src) * math.sqrt(NINP)
            src = self.pos_encoder(src)
            output = self.transformer_encoder(src, src_mask)
            return self.linear(output)

    class Copier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(NTOKEN, NINP)
            self.pos = nn.Embedding(16, NINP)
            self.transformer = nn.Transformer(NINP, 4, num_encoder_layers=1,
                                              num_decoder_layers=1, dim_feedforward=NHID,
                                              dropout=0.0, batch_first=True)
            self.out = nn.Linear(NINP, NTOKEN)

        def embed_at(self, x):
            return self.embed(x) + self.pos(torch.arange(x.size(1)))

        def forward(self, src, tgt):
            mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
            h = self.transformer(self.embed_at(src), self.embed_at(tgt), tgt_mask=mask,
                                 tgt_is_causal=True)
            return self.out(h)

    return nn.ModuleDict({"lm": TransformerModel(), "copier": Copier()})


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(17)
    lm, copier = model["lm"], model["copier"]

    stream = [1]
    for _ in range(500):
        stream.append((stream[-1] * 3 + int(rng.integers(0, 2))) % NTOKEN)
    ids = torch.tensor(stream)

    def batchify(data, bsz):
        seq_len = data.size(0) // bsz
        return data[:seq_len * bsz].view(bsz, seq_len).t().contiguous()

    train_data, val_data = batchify(ids[:400], 4), batchify(ids[400:], 2)
    bptt = 9

    def get_batch(source, i):
        seq_len = min(bptt, len(source) - 1 - i)
        return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)

    mask = nn.Transformer.generate_square_subsequent_mask(bptt)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(lm.parameters(), lr=0.5)
    scheduler = optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.9)
    lm.train()
    losses = []
    for epoch in range(2):
        for i in range(0, train_data.size(0) - 1, bptt):
            x, targets = get_batch(train_data, i)
            output = lm(x, mask[:x.size(0), :x.size(0)])
            loss = criterion(output.view(-1, NTOKEN), targets)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(lm.parameters(), 0.5)
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()

    lm.eval()
    total = 0.0
    with torch.no_grad():
        for i in range(0, val_data.size(0) - 1, bptt):
            x, targets = get_batch(val_data, i)
            output = lm(x, mask[:x.size(0), :x.size(0)])
            total += x.size(0) * criterion(output.view(-1, NTOKEN), targets).item()
        val_loss = total / (val_data.size(0) - 1)
        x = val_data[:bptt]
        changed = x.clone()
        changed[5:] = (changed[5:] + 1) % NTOKEN
        causal = torch.allclose(lm(x, mask)[:5], lm(changed, mask)[:5], atol=1e-5)

    # the full Transformer learns to copy: BOS = 0, target shifted by one (teacher forcing)
    opt = optim.Adam(copier.parameters(), lr=0.01)
    copy_losses = []
    for step in range(12):
        src = torch.tensor(rng.integers(1, NTOKEN, (6, 5)))
        tgt_in = torch.cat([torch.zeros(6, 1, dtype=torch.long), src[:, :-1]], dim=1)
        logits = copier(src, tgt_in)
        loss = F.cross_entropy(logits.reshape(-1, NTOKEN), src.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        copy_losses.append(loss.item())
    copier.eval()
    src = torch.tensor(rng.integers(1, NTOKEN, (2, 5)))
    with torch.no_grad():
        ys = torch.zeros(2, 1, dtype=torch.long)
        for _ in range(5):
            next_word = copier(src, ys)[:, -1].argmax(dim=-1, keepdim=True)
            ys = torch.cat([ys, next_word], dim=1)
        final_logits = copier(src, ys[:, :-1])

    return {"mask": mask[:4, :4], "losses": losses, "val_loss": val_loss,
            "causal": bool(causal), "copy_losses": copy_losses, "greedy": ys,
            "final_logits": final_logits}
