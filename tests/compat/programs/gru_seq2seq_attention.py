"""A GRU encoder-decoder with attention, in the style of translation tutorials: an
``EncoderRNN`` (``nn.Embedding`` then ``nn.GRU(batch_first=True)``), a decoder that
attends over the encoder outputs with additive (Bahdanau) attention written by hand
(``Wa(query) + Ua(keys)``, ``torch.tanh``, ``Va``, ``squeeze(2).unsqueeze(1)``,
``F.softmax``, ``torch.bmm``), feeds ``torch.cat((embedded, context), dim=2)`` to its GRU
and decodes a fixed number of steps with teacher forcing while training and with
``topk(1)`` and ``detach()`` while evaluating; ``F.log_softmax`` and ``nn.NLLLoss``; a
second decoder uses dot-product (Luong) attention.

The task is reversing a short sequence of tokens drawn by numpy. Compared: the losses of
both models, the attention weights and the greedy output of one batch.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-5)

SOS, N_TOKENS, HIDDEN, LENGTH = 0, 9, 10, 5


def model(torch, nn):
    F = nn.functional

    class EncoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(N_TOKENS, HIDDEN)
            self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)

        def forward(self, input):
            return self.gru(self.embedding(input))

    class BahdanauAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.Wa = nn.Linear(HIDDEN, HIDDEN)
            self.Ua = nn.Linear(HIDDEN, HIDDEN)
            self.Va = nn.Linear(HIDDEN, 1)

        def forward(self, query, keys):  # query (B, 1, H), keys (B, T, H)
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
            weights = F.softmax(scores.squeeze(2).unsqueeze(1), dim=-1)
            return torch.bmm(weights, keys), weights

    class DotAttention(nn.Module):
        def forward(self, query, keys):
            scores = torch.bmm(query, keys.transpose(1, 2))  # (B, 1, T)
            weights = F.softmax(scores, dim=-1)
            return torch.bmm(weights, keys), weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self, attention):
            super().__init__()
            self.embedding = nn.Embedding(N_TOKENS, HIDDEN)
            self.attention = attention
            self.gru = nn.GRU(2 * HIDDEN, HIDDEN, batch_first=True)
            self.out = nn.Linear(HIDDEN, N_TOKENS)

        def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
            batch_size = encoder_outputs.size(0)
            decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS)
            decoder_hidden = encoder_hidden
            outputs, attentions = [], []
            for i in range(LENGTH):
                output, decoder_hidden, weights = self.forward_step(
                    decoder_input, decoder_hidden, encoder_outputs)
                outputs.append(output)
                attentions.append(weights)
                if target_tensor is not None:  # teacher forcing
                    decoder_input = target_tensor[:, i].unsqueeze(1)
                else:
                    _, topi = output.topk(1)
                    decoder_input = topi.squeeze(-1).detach()
            outputs = F.log_softmax(torch.cat(outputs, dim=1), dim=-1)
            return outputs, decoder_hidden, torch.cat(attentions, dim=1)

        def forward_step(self, input, hidden, encoder_outputs):
            embedded = self.embedding(input)
            query = hidden.permute(1, 0, 2)
            context, weights = self.attention(query, encoder_outputs)
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            return self.out(output), hidden, weights

    return nn.ModuleDict({
        "enc_add": EncoderRNN(), "dec_add": AttnDecoderRNN(BahdanauAttention()),
        "enc_dot": EncoderRNN(), "dec_dot": AttnDecoderRNN(DotAttention()),
    })


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(29)
    criterion = nn.NLLLoss()
    src = rng.integers(1, N_TOKENS, (40, LENGTH))
    pairs = data.TensorDataset(torch.tensor(src), torch.tensor(src[:, ::-1].copy()))
    loader = data.DataLoader(pairs, batch_size=8)  # no shuffle: the same batches
    result = {}
    for kind in ("add", "dot"):
        encoder, decoder = model[f"enc_{kind}"], model[f"dec_{kind}"]
        enc_opt = optim.Adam(encoder.parameters(), lr=0.01)
        dec_opt = optim.Adam(decoder.parameters(), lr=0.01)
        losses = []
        for epoch in range(2):
            total = 0.0
            for input_tensor, target_tensor in loader:
                enc_opt.zero_grad()
                dec_opt.zero_grad()
                encoder_outputs, encoder_hidden = encoder(input_tensor)
                decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden,
                                                target_tensor)
                loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)),
                                 target_tensor.view(-1))
                loss.backward()
                enc_opt.step()
                dec_opt.step()
                total += loss.item()
            losses.append(total / len(loader))
        encoder.eval()
        decoder.eval()
        with torch.no_grad():
            test = torch.tensor(rng.integers(1, N_TOKENS, (3, LENGTH)))
            encoder_outputs, encoder_hidden = encoder(test)
            outputs, _, attentions = decoder(encoder_outputs, encoder_hidden)
            _, decoded = outputs.topk(1)
        result[kind] = {"losses": losses, "attentions": attentions,
                        "decoded": decoded.squeeze(-1), "log_probs": outputs}
    return result
