"""A sequence-to-sequence model on padded batches, in the style of the well-known seq2seq
notebooks: ``nn.Embedding(padding_idx=PAD)``, a bidirectional ``nn.GRU`` encoder whose two
final states go through ``torch.tanh(fc(torch.cat(...)))``, additive attention that
``repeat``s the decoder state over the source, ``permute``s, and hides padding with
``masked_fill(mask == 0, -1e10)``, a decoder step that concatenates embedding, context and
state, the predictions written one step at a time into a preallocated
``torch.zeros(trg_len, batch, vocab)`` (``outputs[t] = output``), weights initialised over
``named_parameters()`` by name, ``nn.CrossEntropyLoss(ignore_index=PAD)``,
``clip_grad_norm_`` and Adam; then greedy decoding under ``torch.no_grad()``.

Teacher forcing is always on while training (a draw per step from Python's ``random``
would differ between runs of the test, not between the libraries). Sequences of random
lengths and tokens come from numpy. Compared: the losses, the attention over one batch
(zero on padding), the embedding row of PAD (its gradient is zero, so it stays zero) and
the greedy output.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-5)

PAD, SOS, EOS, VOCAB, EMB, ENC_HID, DEC_HID = 0, 1, 2, 10, 6, 7, 8


def model(torch, nn):
    F = nn.functional

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
            self.rnn = nn.GRU(EMB, ENC_HID, bidirectional=True)
            self.fc = nn.Linear(ENC_HID * 2, DEC_HID)

        def forward(self, src):  # src: (src_len, batch)
            outputs, hidden = self.rnn(self.embedding(src))
            hidden = torch.tanh(self.fc(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)))
            return outputs, hidden

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.Linear(ENC_HID * 2 + DEC_HID, DEC_HID)
            self.v = nn.Linear(DEC_HID, 1, bias=False)

        def forward(self, hidden, encoder_outputs, mask):
            src_len = encoder_outputs.shape[0]
            hidden = hidden.unsqueeze(1).repeat(1, src_len, 1)
            encoder_outputs = encoder_outputs.permute(1, 0, 2)
            energy = torch.tanh(self.attn(torch.cat((hidden, encoder_outputs), dim=2)))
            attention = self.v(energy).squeeze(2)
            attention = attention.masked_fill(mask == 0, -1e10)
            return F.softmax(attention, dim=1)

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = Attention()
            self.embedding = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
            self.rnn = nn.GRU(ENC_HID * 2 + EMB, DEC_HID)
            self.fc_out = nn.Linear(ENC_HID * 2 + DEC_HID + EMB, VOCAB)

        def forward(self, input, hidden, encoder_outputs, mask):
            embedded = self.embedding(input.unsqueeze(0))  # (1, batch, emb)
            a = self.attention(hidden, encoder_outputs, mask).unsqueeze(1)
            weighted = torch.bmm(a, encoder_outputs.permute(1, 0, 2)).permute(1, 0, 2)
            output, hidden = self.rnn(torch.cat((embedded, weighted), dim=2),
                                      hidden.unsqueeze(0))
            prediction = self.fc_out(torch.cat((output.squeeze(0), weighted.squeeze(0),
                                                embedded.squeeze(0)), dim=1))
            return prediction, hidden.squeeze(0), a.squeeze(1)

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder, self.decoder = Encoder(), Decoder()

        def forward(self, src, trg):
            trg_len, batch_size = trg.shape
            outputs = torch.zeros(trg_len, batch_size, VOCAB)
            encoder_outputs, hidden = self.encoder(src)
            mask = (src != PAD).permute(1, 0)
            input = trg[0, :]
            for t in range(1, trg_len):
                output, hidden, _ = self.decoder(input, hidden, encoder_outputs, mask)
                outputs[t] = output
                input = trg[t]  # teacher forcing
            return outputs

    net = Seq2Seq()
    for name, param in net.named_parameters():
        if "weight" in name:
            nn.init.normal_(param.data, mean=0, std=0.1)
        else:
            nn.init.constant_(param.data, 0)
    with torch.no_grad():  # init overwrote the padding rows; keep them zero
        net.encoder.embedding.weight[PAD].fill_(0)
        net.decoder.embedding.weight[PAD].fill_(0)
    return net


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(37)

    def batch(size=4):
        lengths = rng.integers(2, 6, size)
        width = lengths.max() + 2
        src = np.full((width, size), PAD)
        trg = np.full((width, size), PAD)
        for j, n in enumerate(lengths):
            tokens = rng.integers(3, VOCAB, n)
            src[:n + 2, j] = [SOS, *tokens, EOS]
            trg[:n + 2, j] = [SOS, *tokens[::-1], EOS]  # the task: reverse
        return torch.tensor(src), torch.tensor(trg)

    optimizer = optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD)
    model.train()
    losses = []
    for step in range(10):
        src, trg = batch()
        optimizer.zero_grad()
        output = model(src, trg)
        output_dim = output.shape[-1]
        loss = criterion(output[1:].view(-1, output_dim), trg[1:].view(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())

    model.eval()
    src, _ = batch(3)
    with torch.no_grad():
        encoder_outputs, hidden = model.encoder(src)
        mask = (src != PAD).permute(1, 0)
        tokens = torch.full((1, 3), SOS, dtype=torch.long)
        attentions = []
        for t in range(6):
            output, hidden, a = model.decoder(tokens[-1], hidden, encoder_outputs, mask)
            tokens = torch.cat([tokens, output.argmax(1).unsqueeze(0)], dim=0)
            attentions.append(a)
    attentions = torch.stack(attentions)
    padded_weight = attentions.masked_select(~mask.unsqueeze(0).expand_as(attentions))

    return {"losses": losses, "greedy": tokens, "attentions": attentions,
            "zero_on_padding": bool((padded_weight == 0).all()),
            "pad_row": model.encoder.embedding.weight[PAD]}
