"""The op families, each in its own module: declarations (OpDefs), public functions and methods.

Each family module defines ``__all__`` with the names it adds to ``tensorlab``; importing a module
registers its ops and attaches its Tensor methods.
"""

from __future__ import annotations

from . import (
           composite,
           composite_numeric,
           composite_shape,
           elementwise,
           fake_quantize,
           indexing,
           matmul,
           numeric_gradient,
           order_statistics,
           pixel_shuffle,
           reductions,
           shape_ops,
           sorting,
           view_copies,
           windows,
)

# Collected before the star imports: ``from .matmul import *`` rebinds the name ``matmul`` here
# to the function ``matmul`` (the module stays importable as ``tensorlab.ops.matmul``).
__all__ = [*elementwise.__all__, *reductions.__all__, *matmul.__all__, *indexing.__all__, *shape_ops.__all__,
           *sorting.__all__, *composite.__all__, *composite_numeric.__all__, *composite_shape.__all__,
           *order_statistics.__all__, *numeric_gradient.__all__, *view_copies.__all__, *windows.__all__,
           *pixel_shuffle.__all__, *fake_quantize.__all__]

from .composite import *  # noqa: E402,F401,F403
from .composite_numeric import *  # noqa: E402,F401,F403
from .composite_shape import *  # noqa: E402,F401,F403
from .elementwise import *  # noqa: E402,F401,F403
from .fake_quantize import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .matmul import *  # noqa: E402,F401,F403
from .numeric_gradient import *  # noqa: E402,F401,F403
from .order_statistics import *  # noqa: E402,F401,F403
from .pixel_shuffle import *  # noqa: E402,F401,F403
from .reductions import *  # noqa: E402,F401,F403
from .shape_ops import *  # noqa: E402,F401,F403
from .sorting import *  # noqa: E402,F401,F403
from .view_copies import *  # noqa: E402,F401,F403
from .windows import *  # noqa: E402,F401,F403
