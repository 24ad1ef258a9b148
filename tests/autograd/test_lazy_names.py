"""The upper autograd names load lazily and stay what PyTorch's are, whatever loads first."""
import subprocess
import sys

ORDERS = [
    "import nnbook as nb; nb.gradcheck; f = nb.autograd.gradcheck",
    "import nnbook as nb; f = nb.autograd.gradcheck",
    "import nnbook as nb; nb.gradcheck_report; f = nb.autograd.gradcheck",
    "import nnbook.autograd.gradchecking; import nnbook as nb; f = nb.autograd.gradcheck",
]


def test_autograd_gradcheck_is_the_function_in_any_order():
    for order in ORDERS:
        code = order + "; assert callable(f) and f.__name__ == 'gradcheck', f"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, (order, done.stderr[-500:])
