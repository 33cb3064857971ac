"""``tensorlab.nn.utils.fusion``: fold an eval-mode BatchNorm into the preceding Linear (or conv-like
module with ``weight``/``bias``), PyTorch's ``torch.nn.utils.fusion``."""

from __future__ import annotations

import copy

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of the eval-mode ``conv`` whose weight and bias include the eval-mode ``bn``."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose: bool = False):
    """``(weight, bias)`` Parameters of the conv followed by the BatchNorm; the output channels are
    dim 0 of ``conv_w`` (dim 1 with ``transpose``). Missing bias/affine terms count as 0/1."""
    from ..._factories import ones_like, zeros_like
    from ..parameter import Parameter

    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (len(conv_w.shape) - 2)
    fused_conv_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_conv_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return Parameter(fused_conv_w, conv_w.requires_grad), Parameter(fused_conv_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of the eval-mode ``linear`` whose weight and bias include the eval-mode ``bn`` (which
    must have ``linear.out_features`` features, or 1)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    # the bn's features must broadcast against the linear's outputs, so the fused weight keeps its shape
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """``(weight, bias)`` Parameters of the Linear followed by the BatchNorm."""
    from ..._factories import zeros_like
    from ..parameter import Parameter

    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
