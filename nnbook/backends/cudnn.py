"""``nb.backends.cudnn``: NVIDIA's convolution library, absent here; its switches are kept.

``cudnn.benchmark = True`` or ``cudnn.deterministic = True`` may be set as in
PyTorch; nnbook's convolutions are numpy and always give the same result.
"""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None
