"""nnbook.optim: PyTorch's optimizers and learning-rate schedulers, with its names,
defaults, update rules and state dicts, so that ``import nnbook.optim as optim`` can
stand in for ``import torch.optim as optim``.

    opt = nb.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = nb.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
        scheduler.step()

Each optimizer's file gives its update rule as maths, in its docstring.

Where nnbook differs from PyTorch, on purpose:

- Settings are refused where they can only be a mistake, also where PyTorch accepts them:
  lr, weight_decay or eps of inf or nan, eps = 0 (0 / 0 = nan wherever the gradients were
  all zero), momentum >= 1, RMSprop's alpha > 1, a negative dampening, a flag such as
  nesterov that is not True or False, a string where a number goes (an ArgumentError).
- ``foreach`` and ``fused`` choose among PyTorch's implementations; nnbook has one, the
  same maths, so they are accepted, change nothing, and are not kept in ``param_groups``
  (nor are ``capturable`` and ``differentiable``, which are refused when True: nnbook runs
  on the CPU and never records an update in the graph).  ``lr`` must be a number, not a
  Tensor.
- A parameter group accepts only the optimizer's settings and the keys that schedulers
  add (``initial_lr``, ``max_lr``, ``min_lr``, ``max_momentum``, ``base_momentum``): a
  misspelt setting is an error rather than a silently unused key.
- ``state_dict()`` adds ``'kind': 'Adam'`` and refuses to load into another kind; its
  Tensors are copies (PyTorch's share memory with the optimizer).  Loading checks the
  whole dict before changing anything.
- Adagrad fills ``sum`` from each group's ``initial_accumulator_value``; PyTorch uses the
  constructor's value for every group.
- A step with a bad gradient (wrong shape or dtype) is refused before any parameter
  changes; a step names, once, the parameters that received no gradient.
- ``optimizer.state[p]`` entries are Tensors, as in PyTorch; the update changes their
  memory directly, so their version counters do not move (the parameters' do).
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer, UnusedParameterWarning
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD",
           "UnusedParameterWarning", "lr_scheduler"]
