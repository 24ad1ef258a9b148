"""Shape inference runs no maths, so ops that also return positions (max(dim), min(dim),
cummax, median, topk...) must give indices of the right shape without computing them."""
import pytest

import nnbook as nb
from nnbook import nn

CALLS = {
    "max(dim)": lambda y: y.max(dim=1),
    "min(dim)": lambda y: y.min(1, keepdim=True),
    "cummax": lambda y: y.cummax(1),
    "cummin": lambda y: y.cummin(0),
    "median(dim)": lambda y: y.median(dim=1),
    "mode": lambda y: y.mode(dim=1),
    "kthvalue": lambda y: y.kthvalue(2, dim=1),
    "topk": lambda y: y.topk(2, dim=1),
    "sort": lambda y: y.sort(dim=1),
}


class Picks(nn.Module):
    def __init__(self, call):
        super().__init__()
        self.fc, self.call = nn.Linear(4, 3), call

    def forward(self, x):
        values, indices = self.call(self.fc(x))
        return values * 2 + indices  # an index of the wrong shape would not broadcast


@pytest.mark.parametrize("name", CALLS)
def test_values_and_indices_get_their_shapes_without_data(name):
    model = Picks(CALLS[name])
    real = model(nb.randn(5, 4))
    report = nb.infer_shapes(model, (5, 4))
    assert report.ok, report.error
    assert tuple(report.output_shape) == tuple(real.shape)
