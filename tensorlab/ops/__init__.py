"""The op families, each in its own module: declarations (OpDefs), public functions and methods.

Each family module defines ``__all__`` with the names it adds to ``tensorlab``; importing a module
registers its ops and attaches its Tensor methods.
"""

from __future__ import annotations

from . import elementwise, indexing, matmul, reductions, shape_ops, sorting
from .elementwise import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .matmul import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .shape_ops import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403

__all__ = [*elementwise.__all__, *reductions.__all__, *matmul.__all__, *indexing.__all__, *shape_ops.__all__,
           *sorting.__all__]
