"""``tensorlab.nn.utils.parametrizations``: weight and spectral normalization as parametrizations
(``parametrize.register_parametrization``), PyTorch's current versions of the hook-based
``nn.utils.weight_norm``/``spectral_norm``.

PyTorch's ``orthogonal`` is not here: it needs ``matrix_exp``, QR (``geqrf``) and Householder
products, which tensorlab lacks.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.matmul import mv, vdot
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _is_conv_transpose
from .weight_norm import _norm_except_dim, _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    raise NotImplementedError("tensorlab.nn.utils.parametrizations.orthogonal is not implemented: it needs "
                              "matrix_exp, QR (geqrf) and householder_product, which tensorlab does not have")


class _WeightNorm(Module):
    """``weight = g * v / ||v||`` (norm over every dim but ``dim``; the whole tensor for None)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        weight_g = _norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalization (https://arxiv.org/abs/1602.07868): ``module.<name>`` becomes
    ``g * v / ||v||`` with ``g = parametrizations.<name>.original0`` (the magnitude, the norm over
    every dim but ``dim``; over the whole tensor for ``dim=None``) and
    ``v = parametrizations.<name>.original1`` (the direction). A state dict of the hook-based
    ``weight_norm`` (``<name>_g``, ``<name>_v``) loads into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, ``sigma = u . (W v)`` with ``W`` the weight as a matrix (rows: ``dim``)
    and ``u``, ``v`` (buffers ``_u``, ``_v``) its first singular vectors, refined by
    ``n_power_iterations`` steps of the power method at each training-mode evaluation. A 1-D weight
    is simply normalized."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from reasonable estimates rather than random vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # in place (out=): the buffers themselves hold the new estimates (see forward for the clone)
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)  # exact: no estimate needed
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: a graph built by an earlier evaluation saved u and v, which the next training
        # evaluation updates in place (GAN's D(real) - D(fake))
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Spectral normalization (https://arxiv.org/abs/1802.05957): ``module.<name>`` becomes
    ``W / sigma(W)``, the largest singular value estimated by the power method on ``W`` reshaped to
    a matrix whose rows are ``dim`` (0, or 1 for ConvTranspose). The estimates (buffers
    ``parametrizations.<name>.0._u`` / ``._v``) start after 15 iterations and are refined
    ``n_power_iterations`` times at each access in training mode; eval mode reuses them."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
