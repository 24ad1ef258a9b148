"""einsum: sums of products named by letters ("ij,jk->ik" is a matrix product).

Each operand's dims get letters; a letter shared by two operands multiplies them
element by element along it, and a letter missing from the output is summed over.
The gradient of an operand is another einsum: the output's gradient times the other
operands, written out with the operand's letters.
"""
from __future__ import annotations

import string

import numpy as np

from ..errors import InputError, fmt_shape
from .base import Op


class Einsum(Op):
    name = "einsum"

    def __init__(self, equation):
        self.equation = equation.replace(" ", "")

    def letters(self, shapes) -> tuple:
        """(subscripts of each operand, subscripts of the output), '...' written out as
        letters of its own (right-aligned, so the dims it stands for broadcast)."""
        left, arrow, right = self.equation.partition("->")
        subs = left.split(",")
        if len(subs) != len(shapes):
            self.fail(f"the equation '{self.equation}' names {len(subs)} operand(s), "
                      f"got {len(shapes)}.", cls=InputError,
                      hint="one comma-separated group of letters per operand.")
        spare = [c for c in string.ascii_letters if c not in self.equation]
        named = [s.replace("...", "") for s in subs]
        spans = [len(shape) - len(n) for shape, n in zip(shapes, named)]
        widest = max([s for s, sub in zip(spans, subs) if "..." in sub], default=0)
        dots = "".join(spare[:widest])
        for i, (sub, n, shape) in enumerate(zip(subs, named, shapes)):
            bad = [c for c in n if c not in string.ascii_letters]
            if bad or (spans[i] != 0 and "..." not in sub) or spans[i] < 0:
                self.fail(f"operand {i} has shape {fmt_shape(shape)}, which the subscripts "
                          f"'{sub}' do not describe.", cls=InputError,
                          hint="one letter per dimension (or '...' for the leading ones).")
            subs[i] = sub.replace("...", dots[widest - spans[i]:])
        if arrow:
            out = right.replace("...", dots)
        else:  # implicit output: the broadcast dims, then letters used once, in order
            counts = "".join(subs)
            out = dots + "".join(sorted(c for c in set(counts) if counts.count(c) == 1
                                        and c not in dots))
        if len(set(out)) != len(out) or any(c not in "".join(subs) for c in out):
            self.fail(f"the output '{right}' must name each letter once, and only letters "
                      "of the operands.", cls=InputError, hint="e.g. 'ij,jk->ik'.")
        return subs, out

    def infer(self, *operands):
        subs, out = self.letters([x.shape for x in operands])
        size = {}
        for i, (sub, x) in enumerate(zip(subs, operands)):
            for c, n in zip(sub, x.shape):
                if size.get(c, 1) not in (1, n) and n != 1:
                    self.fail(f"letter '{c}' stands for sizes {size[c]} and {n} (in operand "
                              f"{i}, shape {fmt_shape(x.shape)}).",
                              hint="a letter shared by operands needs the same size in each.")
                size[c] = max(size.get(c, 1), n)
        return tuple(size[c] for c in out)

    def forward(self, *operands):
        self.subs, self.out = self.letters([x.shape for x in operands])
        self.operands = operands
        out = np.einsum(f"{','.join(self.subs)}->{self.out}", *operands,
                        optimize=len(operands) > 2)
        # One operand rearranged ('ij->ji', 'ii->i') comes back as a view of it: copied,
        # so writing into the result cannot change the input behind autograd's back.
        return out.copy() if any(np.may_share_memory(out, x) for x in operands) else out

    def backward(self, grad_out):
        # y = sum over the missing letters of prod_k x_k;  dy/dx_k = the product of the others
        return tuple(self._gradient(k, grad_out) if need else None
                     for k, need in enumerate(self.needs_input_grad))

    def _gradient(self, k, grad_out):
        x, sub = self.operands[k], self.subs[k]
        others = [s for j, s in enumerate(self.subs) if j != k]
        own = "".join(dict.fromkeys(sub))  # its letters, each once
        linked = "".join(c for c in own if c in self.out or any(c in s for s in others))
        arrays = [a for j, a in enumerate(self.operands) if j != k]
        grad = np.einsum(f"{','.join([self.out] + others)}->{linked}", grad_out, *arrays,
                         optimize=len(arrays) > 1)
        # Letters only this operand has were summed in forward: their gradient is the same
        # all along them (broadcast).
        sizes = dict(zip(sub, x.shape))
        grad = np.expand_dims(grad, tuple(i for i, c in enumerate(own) if c not in linked))
        grad = np.broadcast_to(grad, tuple(sizes[c] if c not in linked else n
                                           for c, n in zip(own, grad.shape)))
        if own == sub:
            return grad
        full = np.zeros(x.shape, dtype=grad.dtype)  # a repeated letter ('ii') is a diagonal
        np.einsum(f"{sub}->{own}", full)[...] = grad
        return full
