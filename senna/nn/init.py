"""One weight initialisation for every network (taggers and the language model).

Remark 7 of the paper (after LeCun): a layer's weights are drawn uniformly with variance
1/fan-in, so every unit starts with inputs of unit variance; biases start at zero; lookup
tables are N(0, 1), the scale of the features they stand for.  Keyed by module type, as
nanoGPT's `_init_weights`, so a new layer needs no new rule.
"""

from __future__ import annotations

import math

from torch import nn


def fan_in_init(module: nn.Module) -> None:
    """Initialise every lookup table, linear and convolution layer inside `module`."""
    for m in module.modules():
        if isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, 0.0, 1.0)
        elif isinstance(m, nn.Linear | nn.Conv1d):
            bound = math.sqrt(3.0 / m.weight[0].numel())
            nn.init.uniform_(m.weight, -bound, bound)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
