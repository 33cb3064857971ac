"""``tensorlab.nn.functional``: the functional forms of layers, activations and losses."""

from __future__ import annotations

from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
