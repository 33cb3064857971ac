"""tensorlab.optim: optimizers and learning-rate schedulers, shaped like ``torch.optim`` (issue 5).

The elementwise optimizers (SGD, Adam, AdamW, Adamax, NAdam, RAdam, RMSprop, Adagrad, Adadelta,
Rprop, ASGD) update each parameter group with ONE fused Triton launch on cuda (all of the group's
tensors in one "multi-tensor apply" launch, ``tensorlab_kernels/optim``) and with the kernel's numpy
twin on cpu. LBFGS and Adafactor (per-parameter row/column reductions) are built on registered ops.
``lr_scheduler`` holds the schedulers, ``swa_utils`` weight averaging (SWA/EMA).
"""

from __future__ import annotations

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer",
    "RAdam", "RMSprop", "Rprop", "lr_scheduler", "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook", "swa_utils",
]
