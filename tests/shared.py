"""Models and helpers several test files share."""
import base64
import re

import nnbook as nb
from nnbook import nn

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def shown(widget):
    """What a widget's Output shows: (text/plain, PNG bytes)."""
    (output,) = widget.output.outputs
    assert output["output_type"] == "display_data"
    data = output["data"]
    return data["text/plain"], base64.b64decode(data["image/png"])


FLOAT = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def split_floats(text):
    """(text with each decimal number replaced by '#', those numbers as floats).

    Shown numbers can differ in their last digits from one CPU (BLAS kernel) to another:
    compare the text exactly and the numbers with a tolerance.
    """
    return FLOAT.sub("#", text), [float(m) for m in FLOAT.findall(text)]


def xception_block(depth_multiplier=1):
    """The Xception block of the swapped height and width (Lua torch) built with nnbook's layers."""
    c = 64 * depth_multiplier
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Sum(nn.Conv2d(64, 512, 1, stride=2),
               nn.Sequential(nn.DepthwiseConv2d(64, 3, depth_multiplier, padding=1),
                             nn.Conv2d(c, 512, 1), nn.BatchNorm2d(512), nn.MaxPool2d(3, 2, 1))),
        nn.ReLU(), nn.GlobalAvgPool2d(), nn.Reshape(512), nn.Linear(512, 3),
        nn.LogSoftmax(dim=1))


class Cell(nn.Module):
    """The layer built in forward, after the fix: conv1 and conv2 built in __init__.

    ``keep_w``: also store w and w2 as the buggy cell did, and never use them."""

    def __init__(self, keep_w=False):
        super().__init__()
        self.conv1 = nn.Conv2d(6, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 3, 1)
        if keep_w:
            self.w = nn.Parameter(nb.randn(6, 6, 3, 3))
            self.w2 = nn.Parameter(nb.randn(3, 6, 1, 1))

    def forward(self, x):
        return self.conv2(self.conv1(x))
