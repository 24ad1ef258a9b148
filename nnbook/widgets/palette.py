"""The colours of every nnbook view, defined once.

Blue is for values going forward (inputs, parameters), purple for gradients, red for
anything wrong; a shape step draws its input blue, its layer orange and its output green.
Colours that only one view uses (a graph's node fills, a convolution's group colours)
are defined in that view.
"""
FORWARD_COLOR = "#1565c0"                            # values going forward, parameters
INPUT_FILL = "#bbdefb"                               # inside a drawn input tensor
GRADIENT_COLOR = "#7b3fa0"                           # gradients
PROBLEM_COLOR, PROBLEM_FILL = "#c62828", "#ffebee"   # anything wrong
PROBLEM_TINT = "#fdecea"                             # behind a row that has a problem
INFO_COLOR = "#00796b"                               # shared, and other plain facts
OUTPUT_COLOR, OUTPUT_FILL = "#2e7d32", "#c8e6c9"     # what a layer produces
LAYER_COLOR, LAYER_FILL = "#e65100", "#ffe0b2"       # the layer between them
PADDING_COLOR, PADDING_FILL = "#757575", "#e0e0e0"   # padding zeros
TEXT_COLOR = "#212121"
MUTED_COLOR = "#616161"                              # secondary text
