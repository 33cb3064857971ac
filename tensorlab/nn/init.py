"""``tensorlab.nn.init``: parameter initialisation, as ``torch.nn.init`` (issue 5).

Every function fills its tensor in place under ``no_grad`` and returns it; the random ones take
PyTorch 2.x's ``generator=`` (a :class:`tensorlab.Generator` of the tensor's device) and draw
from the device's Philox generator, so a seed reproduces an initialisation on every device.
Formulas, argument names, defaults and errors are PyTorch's.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity: 1 (linear, conv, sigmoid), 5/3 (tanh), sqrt(2) (relu),
    sqrt(2 / (1 + slope^2)) (leaky_relu, slope ``param`` default 0.01), 3/4 (selu)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, numbers.Real):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check_tensor(name: str, tensor) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}(): expected a Tensor, got {type(tensor).__name__}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out): dim 1 (inputs) and dim 0 (outputs) times the receptive field (dims 2+)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with values drawn from U(a, b)."""
    _check_tensor("uniform_", tensor)
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with values drawn from N(mean, std^2)."""
    _check_tensor("normal_", tensor)
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with N(mean, std^2) values truncated to [a, b], by rejection as PyTorch 2.15: when the
    interval holds more than 30% of the mass, normal draws outside it are drawn again; otherwise
    uniform draws on [a, b] are kept with probability pdf / pdf(mode). (The inverse-cdf method
    before it hit the bounds exactly in float16/bfloat16, where erfinv(-1) is -inf.)"""
    from .. import where
    from .._factories import empty_like

    _check_tensor("trunc_normal_", tensor)

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            # the bounds as the tensor's dtype holds them, so the test agrees with the values kept
            lo, hi = (tensor.new_tensor(v, device="cpu").item() for v in (a, b))
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = where(outside, empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def rejected(x):  # log(u) > log(pdf(x) / pdf(mode)), u uniform on [0, 1)
            log_pdf = (x - mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            return empty_like(x).uniform_(generator=generator).log_() > log_pdf

        result = tensor.uniform_(a, b, generator=generator)
        pending = rejected(result)
        while pending.any():
            candidates = empty_like(tensor).uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            pending = pending & rejected(candidates)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    _check_tensor("constant_", tensor)
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    _check_tensor("zeros_", tensor)
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-d tensor with the identity matrix."""
    from .._factories import eye

    _check_tensor("eye_", tensor)
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3/4/5-d (convolution) weight with the Dirac delta: the layer passes its input channels
    through (per group)."""
    from .._factories import from_numpy

    _check_tensor("dirac_", tensor)
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    min_dim = min(per_group, sizes[1])
    host = np.zeros(tuple(sizes), dtype=np.float64)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            host[(g * per_group + d, d) + centre] = 1.0
    with no_grad():
        return tensor.copy_(from_numpy(host).to(tensor.dtype).to(tensor.device))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio)."""
    _check_tensor("xavier_uniform_", tensor)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    _check_tensor("xavier_normal_", tensor)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """U(-bound, bound) with ``bound = gain * sqrt(3 / fan)`` (He et al.); ``a`` is leaky_relu's slope."""
    _check_tensor("kaiming_uniform_", tensor)
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """N(0, std^2) with ``std = gain / sqrt(fan)``."""
    _check_tensor("kaiming_normal_", tensor)
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix (dims after the first are flattened), scaled by ``gain``.

    The normal matrix is drawn with tensorlab's generator on the tensor's device; its QR
    factorisation is computed on the host with numpy (float64) — tensorlab has no QR kernel,
    and this is a one-off setup cost — and the sign-corrected Q is copied back.
    """
    from .._factories import empty, from_numpy

    _check_tensor("orthogonal_", tensor)
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = empty((rows, cols), dtype=tensor.dtype, device=tensor.device).normal_(0, 1, generator=generator)
        a = np.asarray(flat._host_array(), dtype=np.float64)
        if rows < cols:
            a = a.T
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))  # make the factorisation unique (Mezzadri): Q Haar-distributed
        if rows < cols:
            q = q.T
        tensor.copy_(from_numpy(np.ascontiguousarray(q * gain)).reshape(tuple(tensor.shape)).to(tensor.dtype)
                     .to(tensor.device))
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """A 2-d matrix with ``ceil(sparsity * rows)`` zeros per column at random rows, N(0, std^2) elsewhere."""
    from .._factories import from_numpy
    from .._random import randperm

    _check_tensor("sparse_", tensor)
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        mask = np.ones((rows, cols), dtype=np.float64)
        for c in range(cols):
            perm = randperm(rows, generator=generator, device=tensor.device).cpu().numpy()
            mask[perm[:num_zeros], c] = 0.0
        tensor.mul_(from_numpy(mask).to(tensor.dtype).to(tensor.device))
    return tensor


def _deprecated(meth):
    """PyTorch's deprecated spelling without the trailing underscore (``nn.init.xavier_uniform``):
    the in-place initialiser, with its FutureWarning."""
    old_name, new_name = meth.__name__[:-1], meth.__name__

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"nn.init.{old_name} is now deprecated in favor of nn.init.{new_name}.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use :func:`{new_name}`."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)

__all__ = ["calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_",
           "ones_", "orthogonal_", "sparse_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_",
           "zeros_"]
