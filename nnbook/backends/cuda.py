"""``nb.backends.cuda``: CUDA's switches (``matmul.allow_tf32 = True``...), kept and unused."""
from types import SimpleNamespace

# attributes tutorials assign; nnbook's float32 matmuls are always computed in float32
matmul = SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                         allow_bf16_reduced_precision_reduction=True)


def is_built() -> bool:
    return False
