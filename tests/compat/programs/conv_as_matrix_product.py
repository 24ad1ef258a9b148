"""Convolution as a matrix product, the im2col lesson: ``F.unfold`` cuts every 3x2 window
of a batch of 7x5 images into a column, the filters flattened to a matrix multiply the
columns, and the result, reshaped, is ``F.conv2d``'s; ``F.fold`` adds columns back onto an
image, so ``fold(unfold(x))`` is x times how many windows cover each pixel, and the
gradient that reaches the images through the columns is the convolution's.

Compared: the columns, the product against conv2d, the window counts, the folded image and
the input's gradient by both routes.
"""
import numpy as np

TOLERANCE = dict(rtol=1e-5, atol=1e-6)


def run(torch, nn, F, optim, data):
    rng = np.random.default_rng(70)
    x = torch.tensor(rng.normal(0, 1, (2, 3, 7, 5)), dtype=torch.float32, requires_grad=True)
    w = torch.tensor(rng.normal(0, 0.5, (4, 3, 3, 2)), dtype=torch.float32)
    unfold = nn.Unfold(kernel_size=(3, 2), padding=1, stride=(2, 1))

    cols = unfold(x)                                    # (2, 3·3·2, L)
    h_out, w_out = (7 + 2 - 3) // 2 + 1, (5 + 2 - 2) // 1 + 1
    product = (w.view(4, -1) @ cols).view(2, 4, h_out, w_out)
    conv = F.conv2d(x, w, padding=1, stride=(2, 1))

    ones = torch.ones(1, 1, 7, 5)
    fold = nn.Fold(output_size=(7, 5), kernel_size=(3, 2), padding=1, stride=(2, 1))
    counts = fold(F.unfold(ones, (3, 2), padding=1, stride=(2, 1)))
    folded = fold(cols)

    (product * product).sum().backward()
    grad_by_columns = x.grad.clone()
    x.grad = None
    (conv * conv).sum().backward()
    return {"cols_shape": list(cols.shape), "cols": cols[1, :, 3], "product": product,
            "same_as_conv": bool(torch.allclose(product, conv, atol=1e-5)),
            "counts": counts[0, 0], "folded_over_counts": folded / counts,
            "grad_by_columns": grad_by_columns, "grad_by_conv": x.grad}
