"""nn.utils: gradient clipping, parameters as one vector, and padded and packed sequences
(nn.utils.rnn), with PyTorch's names.

    loss.backward()
    nb.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
"""
from . import rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]
