"""The matmul kernel family: one tiled GEMM (``gemm``) and its launch-configuration space (``configs``)."""

from .configs import CONFIGS, configs_for, pick_config
from .gemm import matmul, matmul_twin

__all__ = ["CONFIGS", "configs_for", "matmul", "matmul_twin", "pick_config"]
