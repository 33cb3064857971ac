"""nn modules: ``InstanceNorm1d/2d/3d`` and their lazy forms (PyTorch's ``torch.nn.modules.instancenorm``).

Each channel of each sample is normalised over its spatial dims (``F.instance_norm``). PyTorch's
defaults differ from batch norm's: no affine and no running statistics. With
``track_running_stats=True`` training updates ``running_mean``/``running_var`` (the batch average
of the per-sample statistics) and evaluation normalises with them. Parameter and buffer names,
``num_batches_tracked`` (registered, never incremented, as PyTorch's) and ``extra_repr`` are
PyTorch's, so state dicts move between the two.
"""

from __future__ import annotations

import warnings

from .. import functional as F
from ._shapes import need_tensor
from .normalization import _LazyNormBase, _NormBase


class _InstanceNorm(_NormBase):
    _no_batch_dim = 2  # the rank of an unbatched input: (C, L) for InstanceNorm1d

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # PyTorch's: a metadata-free state dict (saved before 0.4.0, when instance norm tracked running
        # statistics by default) with running statistics for a module that tracks none is an error
        # naming them, and the keys are dropped (not reported again as unexpected)
        if local_metadata.get("version") is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    f"state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does not "
                    f"track running stats by default since 0.4.0. Please remove these keys from state_dict. If the "
                    f"running stats are actually needed, instead set track_running_stats=True in {klass} to enable "
                    f"them. See the documentation of {klass} for details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        need_tensor(type(self).__name__, input)
        lo = self._no_batch_dim
        if input.ndim not in (lo, lo + 1):
            raise ValueError(f"expected {lo}D or {lo + 1}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - lo
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            # without affine, num_features is used by nothing (the statistics are per input channel)
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.ndim == lo:  # unbatched
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or unbatched (C, L) inputs: each (sample, channel) row over L."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or unbatched (C, H, W) inputs, per sample and channel."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or unbatched (C, D, H, W) inputs, per sample and channel."""

    _no_batch_dim = 4


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm1d whose ``num_features`` is ``input.shape[1]`` of the first input; it then
    becomes one. PyTorch's defaults: ``affine=True, track_running_stats=True`` (unlike InstanceNorm1d)."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = InstanceNorm1d._no_batch_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm2d whose ``num_features`` is ``input.shape[1]`` of the first input; it then becomes one."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = InstanceNorm2d._no_batch_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm3d whose ``num_features`` is ``input.shape[1]`` of the first input; it then becomes one."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = InstanceNorm3d._no_batch_dim


__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]
