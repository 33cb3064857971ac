"""nn modules: ``LayerNorm``, ``RMSNorm``, ``GroupNorm``, ``BatchNorm1d/2d/3d`` and their lazy forms.

Parameter and buffer names, constructor signatures, initialisation (weight ones, bias zeros,
running_mean zeros, running_var ones, num_batches_tracked 0) and ``extra_repr`` are PyTorch's,
so a state dict moves between the two unchanged. LayerNorm and RMSNorm run the fused Triton
kernels (``tensorlab_kernels.nn.layer_norm``).
"""

from __future__ import annotations

import numbers

from ... import _dtype as D
from ..._factories import empty, ones, tensor, zeros
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from ._shapes import check_channels, check_ndims, check_trailing
from .lazy import LazyModuleMixin
from .module import Module


def _shape(normalized_shape) -> tuple:
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


def _affine_parameters(module: Module, shape, enabled: bool, bias: bool, device, dtype) -> None:
    """Register ``weight`` (and ``bias`` when asked) of ``shape``, uninitialised, or register them as
    None (PyTorch's names either way, so state dicts match); :func:`_reset_affine` initialises them."""
    module.register_parameter("weight", Parameter(empty(shape, device=device, dtype=dtype)) if enabled else None)
    module.register_parameter("bias", Parameter(empty(shape, device=device, dtype=dtype)) if enabled and bias
                              else None)


def _reset_affine(module: Module) -> None:
    """Weight ones and bias zeros, as PyTorch's norm layers initialise them."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the trailing ``normalized_shape`` dims."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input):
        check_trailing("LayerNorm", input, self.normalized_shape, "normalized_shape")
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing dims (``eps=None``: machine epsilon)."""

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.register_parameter("weight", Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
                                if elementwise_affine else None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input):
        check_trailing("RMSNorm", input, self.normalized_shape, "normalized_shape")
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """Normalise ``num_groups`` groups of channels (dim 1) per sample, then a per-channel affine."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input):
        check_channels("GroupNorm", input, self.num_channels, "num_channels")
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _NormBase(Module):
    """What batch and instance normalisation share (PyTorch's ``_NormBase``): the affine parameters,
    the running statistics (``track_running_stats``), their reset, the state-dict upgrade that added
    ``num_batches_tracked`` and the repr."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=D.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def _missing_in_version(self, name: str, version) -> bool:
        # version 2 added num_batches_tracked: PyTorch loads an older (or metadata-free) state dict
        # without it, keeping the module's own count
        return name == "num_batches_tracked" and self.track_running_stats and (version is None or version < 2)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    _input_ndims: tuple = ()

    def forward(self, input):
        # the dimension count is checked whatever the affine and the statistics (PyTorch's _check_input_dim);
        # without weight and running statistics any channel count is accepted, as PyTorch does
        check_ndims(input, self._input_ndims)
        # a training batch of one value per channel is refused first (ValueError, in F.batch_norm), as
        # PyTorch refuses it before it compares the channel count
        one_value = self.training and isinstance(input, Tensor) and input.shape[1] and \
            input.numel() // input.shape[1] == 1
        if (self.weight is not None or self.running_mean is not None) and not one_value:
            check_channels(type(self).__name__, input, self.num_features, "num_features")
        factor = 0.0 if self.momentum is None else self.momentum
        count = self.training and self.track_running_stats and self.num_batches_tracked is not None
        if count and self.momentum is None:  # cumulative moving average over the batches, this one too
            factor = 1.0 / (float(self.num_batches_tracked.item()) + 1.0)
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        out = F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                           self.weight, self.bias, use_batch_stats, factor, self.eps)
        if count:  # (after the checks batch_norm makes: a refused batch is not counted)
            with no_grad():
                self.num_batches_tracked.add_(1)
        return out


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over N (and L), per channel C.

    Training: batch statistics (biased variance) normalise, and the running statistics move by
    ``momentum`` towards the batch mean and the *unbiased* batch variance (``momentum=None``: a
    cumulative average over ``num_batches_tracked``). Evaluation: the running statistics.
    """

    _input_ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs per channel."""

    _input_ndims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) inputs per channel."""

    _input_ndims = (5,)


class _LazyNormBase(LazyModuleMixin):
    """The lazy batch and instance norms (mixed in before ``_BatchNorm``/``_InstanceNorm``):
    ``num_features`` is ``input.shape[1]`` of the first input. PyTorch's defaults for all of them,
    the instance norms included: ``affine=True, track_running_stats=True``."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):
        # affine, bias and running statistics off: tensors that the placeholders would replace at once
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=D.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]  # (PyTorch's, for an unbatched instance norm input too)
            for name in ("weight", "bias", "running_mean", "running_var"):
                t = getattr(self, name)
                if t is not None:
                    t.materialize((self.num_features,))
            self.reset_parameters()
        if self.num_features == 0:
            # materialized by load_state_dict, or nothing to materialize (affine=False and
            # track_running_stats=False). PyTorch keeps 0 (its forward never reads it); tensorlab's
            # norms check the input's channels against it, so it takes the count it stands for.
            held = next((t for t in (self.weight, self.running_mean) if t is not None), None)
            self.num_features = held.shape[0] if held is not None else (input.shape[1] if input.ndim > 1 else 0)


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose ``num_features`` is ``input.shape[1]`` of the first input; it then becomes one."""

    cls_to_become = BatchNorm1d
    _input_ndims = BatchNorm1d._input_ndims


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose ``num_features`` is ``input.shape[1]`` of the first input; it then becomes one."""

    cls_to_become = BatchNorm2d
    _input_ndims = BatchNorm2d._input_ndims


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose ``num_features`` is ``input.shape[1]`` of the first input; it then becomes one."""

    cls_to_become = BatchNorm3d
    _input_ndims = BatchNorm3d._input_ndims


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d", "RMSNorm"]
