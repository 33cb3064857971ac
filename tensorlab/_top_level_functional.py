"""PyTorch's top-level forms of ``nn.functional`` ops (``tl.layer_norm``, ``tl.dropout``, ``tl.kl_div``, ...).

PyTorch exposes these ATen ops at the top level with ATen's signatures, which differ from the
``nn.functional`` ones a user usually calls: every argument of ``dropout(input, p, train)`` is
required, ``batch_norm`` takes ``weight``/``bias`` before the running statistics,
``embedding(weight, indices)`` puts the table first with ``-1`` for "no padding index", and the
losses take ``reduction`` as ATen's enum (0 none, 1 mean, 2 sum). Each function here only maps
that signature onto the ``nn.functional`` one, which does the work and the checks; the cuDNN
switches PyTorch keeps in these signatures are taken and ignored.
"""

from __future__ import annotations

from .nn import functional as F
from .nn.functional.layers import _alpha_or_feature
from .nn.functional.loss import kl_div_reduced

__all__ = ["dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "layer_norm", "group_norm", "batch_norm",
           "instance_norm", "rms_norm", "kl_div", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
           "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss", "embedding",
           "bilinear", "constant_pad_nd", "pdist", "adaptive_avg_pool1d", "adaptive_max_pool1d"]

# ATen's Reduction enum, which the top-level losses take instead of a string
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(op: str, reduction) -> str:
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{op}(): argument 'reduction' must be int (0 none, 1 mean, 2 sum), "
                        f"not {type(reduction).__name__}")
    if reduction not in _REDUCTIONS:
        raise RuntimeError(f"{op}(): {reduction} is not a valid value for reduction (0 none, 1 mean, 2 sum)")
    return _REDUCTIONS[reduction]


# dropout family: (input, p, train), all required; the trailing-underscore forms work in place


def dropout(input, p: float, train: bool):
    return F.dropout(input, p, train)


def dropout_(input, p: float, train: bool):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p: float, train: bool):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p: float, train: bool):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p: float, train: bool):
    return _alpha_or_feature("feature_dropout", input, p, train, False, alpha=False, feature=True)


def feature_dropout_(input, p: float, train: bool):
    return _alpha_or_feature("feature_dropout_", input, p, train, True, alpha=False, feature=True)


def feature_alpha_dropout(input, p: float, train: bool):
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p: float, train: bool):
    return F.feature_alpha_dropout(input, p, train, inplace=True)


# normalisation


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-05, cudnn_enable: bool = True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05, cudnn_enabled: bool = True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats: bool, momentum: float,
                  eps: float, cudnn_enabled: bool):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps: float | None = None):
    return F.rms_norm(input, normalized_shape, weight, eps)


# losses: reduction is ATen's enum


def kl_div(input, target, reduction: int = 1, *, log_target: bool = False):
    """(ATen's 'mean' is the mean over elements, without ``nn.functional``'s warning about it)"""
    F.loss._need_tensor("kl_div", input=input, target=target)
    return kl_div_reduced(input, target, _reduction("kl_div", reduction), log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction: int = 1):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction("binary_cross_entropy_with_logits", reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: int = 1):
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction("cosine_embedding_loss", reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction: int = 1):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction))


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction: int = 1):
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction("margin_ranking_loss", reduction))


def poisson_nll_loss(input, target, log_input: bool, full: bool, eps: float, reduction: int):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction("poisson_nll_loss", reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-06,
                        swap: bool = False, reduction: int = 1):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", reduction))


# layers


def embedding(weight, indices, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False):
    """ATen's embedding: the table first, and a negative ``padding_idx`` means none (``nn.functional``
    has already turned a negative index into a row)."""
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def bilinear(input1, input2, weight, bias=None):
    return F.bilinear(input1, input2, weight, bias)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


def pdist(input, p: float = 2):
    return F.pdist(input, p)


def adaptive_avg_pool1d(input, output_size):
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    # (ATen's op always returns the indices too)
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)
