"""Models and helpers several test files share."""
import base64
import re

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


def seed002(depth_multiplier=1):
    """The Xception block of seed 002 (Lua torch) built with nnbook's layers."""
    c = 64 * depth_multiplier
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Sum(nn.Conv2d(64, 512, 1, stride=2),
               nn.Sequential(nn.DepthwiseConv2d(64, 3, depth_multiplier, padding=1),
                             nn.Conv2d(c, 512, 1), nn.BatchNorm2d(512), nn.MaxPool2d(3, 2, 1))),
        nn.ReLU(), nn.GlobalAvgPool2d(), nn.Reshape(512), nn.Linear(512, 3),
        nn.LogSoftmax(dim=1))
