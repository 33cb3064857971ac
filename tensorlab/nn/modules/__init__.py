"""nn modules, one file per family; each defines ``__all__``."""

from __future__ import annotations

from . import (
    activation,
    attention,
    container,
    distance,
    dropout,
    flatten,
    instancenorm,
    lazy,
    linear,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
)
from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import Module
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
