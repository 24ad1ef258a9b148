"""Transformers on padded batches: ``nn.MultiheadAttention(batch_first=True)`` called
directly with a boolean ``key_padding_mask`` and ``need_weights=True`` (weights averaged
over the heads, then per head with ``average_attn_weights=False``), a causal mask built by
hand as ``torch.triu(torch.full((T, T), float("-inf")), diagonal=1)``, in place with
``triu_(1)`` and as a boolean mask, ``nn.TransformerEncoderLayer(batch_first=True, norm_first=True,
activation="gelu")`` in an ``nn.TransformerEncoder`` with a final ``nn.LayerNorm`` and
``src_key_padding_mask``, ``nn.TransformerDecoder`` with ``tgt_mask``,
``tgt_key_padding_mask`` and ``memory_key_padding_mask``, mean pooling over the real tokens
only, and a few SGD steps of a classifier on top.

Tokens and lengths come from numpy; dropout is 0. PyTorch's eval-mode fast path leaves
zeros at padded positions, so outputs there are not compared (a listed difference):
everything compared is taken at real positions, with gradients on. Compared: the attention
outputs and weights, that the three causal masks agree, the encoder's and
decoder's outputs at real positions, the pooled features, the losses and the gradient of
the embedding.
"""
import numpy as np

TOLERANCE = dict(rtol=3e-4, atol=3e-5)

VOCAB, D, HEADS, PAD = 12, 8, 2, 0


def model(torch, nn):
    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, D, padding_idx=PAD)
            self.pos = nn.Parameter(torch.zeros(1, 10, D))
            layer = nn.TransformerEncoderLayer(D, HEADS, dim_feedforward=14, dropout=0.0,
                                               activation="gelu", batch_first=True,
                                               norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(D),
                                                 enable_nested_tensor=False)
            self.head = nn.Linear(D, 3)

        def forward(self, tokens):
            padding = tokens == PAD
            x = self.embed(tokens) + self.pos[:, :tokens.size(1)]
            h = self.encoder(x, src_key_padding_mask=padding)
            keep = (~padding).unsqueeze(-1).float()
            pooled = (h * keep).sum(1) / keep.sum(1)
            return self.head(pooled), h, pooled

    dec_layer = nn.TransformerDecoderLayer(D, HEADS, dim_feedforward=14, dropout=0.0,
                                           batch_first=True)
    return nn.ModuleDict({"mha": nn.MultiheadAttention(D, HEADS, batch_first=True),
                          "clf": Classifier(),
                          "decoder": nn.TransformerDecoder(dec_layer, num_layers=1)})


def run(torch, nn, F, optim, data, model):
    rng = np.random.default_rng(47)
    lengths = np.array([7, 4, 6, 2, 5])
    tokens = np.zeros((5, 7), dtype=np.int64)
    for i, n in enumerate(lengths):
        tokens[i, :n] = rng.integers(1, VOCAB, n)
    tokens = torch.tensor(tokens)
    padding = tokens == PAD
    real = ~padding  # the positions compared

    mha = model["mha"]
    x = torch.tensor(rng.standard_normal((5, 7, D)), dtype=torch.float32)
    out, weights = mha(x, x, x, key_padding_mask=padding)
    _, per_head = mha(x, x, x, key_padding_mask=padding, average_attn_weights=False)
    T = 7
    float_mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    bool_mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    causal_f, _ = mha(x, x, x, attn_mask=float_mask, need_weights=False)
    causal_b, _ = mha(x, x, x, attn_mask=bool_mask, need_weights=False)
    in_place = torch.full((T, T), float("-inf")).triu_(1)  # the same mask, made in place
    causal_i, _ = mha(x, x, x, attn_mask=in_place, need_weights=False)
    masks_agree = bool(torch.allclose(causal_f, causal_b, atol=1e-6)
                       and torch.equal(in_place, float_mask) and torch.equal(causal_i, causal_f))

    clf = model["clf"]
    labels = torch.tensor(rng.integers(0, 3, 5))
    opt = optim.SGD(clf.parameters(), lr=0.2, momentum=0.5)
    losses = []
    for step in range(5):
        logits, h, pooled = clf(tokens)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        if step == 0:
            embed_grad = clf.embed.weight.grad.clone()
            first_h = h[real].detach()
        opt.step()
        losses.append(loss.item())

    memory = h.detach()
    tgt = torch.tensor(rng.standard_normal((5, 4, D)), dtype=torch.float32)
    tgt_padding = torch.tensor([[False] * 4, [False] * 3 + [True], [False] * 4,
                                [False, True, True, True], [False] * 4])
    dec = model["decoder"](tgt, memory, tgt_mask=bool_mask[:4, :4],
                      tgt_key_padding_mask=tgt_padding, memory_key_padding_mask=padding)

    return {"attn_out": out[real], "weights": weights, "per_head": per_head,
            "masks_agree": masks_agree, "causal": causal_f, "losses": losses,
            "first_h": first_h, "pooled": pooled.detach(), "embed_grad": embed_grad,
            "decoded": dec[~tgt_padding].detach()}
