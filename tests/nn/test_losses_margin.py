"""The margin losses PyTorch has and tensorlab lacked: soft_margin, hinge_embedding, multi_margin,
multilabel_margin, multilabel_soft_margin, triplet_margin_with_distance (functional and modules),
plus the PairwiseDistance/CosineSimilarity modules. Values and gradients are PyTorch's (literals
below), on cpu in float64 and on cuda (real or interpreted) in float32; then shapes, dtypes and
PyTorch's errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tests.helpers import to_numpy

CUDA = tl.cuda.is_available()
DEVICES = ["cpu"] + (["cuda"] if CUDA else [])

X = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.3, 0.2]]
Y = [[1., -1, 1, -1], [-1, 1, 1, 0]]
XM = [[0.1, 0.9, -0.4, 0.3], [0.6, -0.2, 0.5, 0.55], [0.0, 1.0, 0.0, 0.2]]
TM = [1, 2, 1]
WM = [1., 2., 0.5, 3.]
TL = [[3, 0, -1, 1], [1, 1, 2, -1], [-1, 2, 2, 2]]
YS = [[1., 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]]
WS = [1., 0.5, 2., 1.5]
A = [[0.1, 0.2, 0.3], [1.0, -1.0, 0.5]]
P = [[0.2, 0.1, 0.4], [0.0, -1.2, 0.5]]
N = [[0.1, 0.25, 0.3], [0.05, -1.1, 0.45]]

# values from torch 2.13 (('hinge', 'at_margin'): torch 2.15, whose clamp_min gives the minimum-norm
# subgradient 0 at the bound, where 2.13 gave 1): key -> (loss, [gradient of each differentiable
# argument]) for backward(ones)
TORCH = {('hinge', 'at_margin'): (0.5, [[0.0, -1.0, 0.0]]),
 ('hinge', 'long'): [0, 2, 0, 3],
 ('hinge', 'mean'): (0.55625, [[[0.125, -0.125, 0.125, -0.125], [0.0, 0.125, 0.125, 0.0]]]),
 ('hinge', 'none'): ([[0.5, 1.5, 2.0, 0.25], [0.0, 0.0, -0.3, 0.5]],
                     [[[1.0, -1.0, 1.0, -1.0], [0.0, 1.0, 1.0, 0.0]]]),
 ('hinge', 'sum'): (4.45, [[[1.0, -1.0, 1.0, -1.0], [0.0, 1.0, 1.0, 0.0]]]),
 ('multi_margin', 1, 'mean'): (0.11041666666666668,
                               [[[0.16666666666666666, -0.3333333333333333, 0.0, 0.16666666666666666],
                                 [0.041666666666666664, 0.041666666666666664, -0.125, 0.041666666666666664],
                                 [0.0, -0.16666666666666666, 0.0, 0.16666666666666666]]]),
 ('multi_margin', 1, 'none'): ([0.10000000000000002, 0.23125, 2.7755575615628914e-17],
                               [[[0.5, -1.0, 0.0, 0.5], [0.125, 0.125, -0.375, 0.125], [0.0, -0.5, 0.0, 0.5]]]),
 ('multi_margin', 1, 'sum'): (0.33125000000000004,
                              [[[0.5, -1.0, 0.0, 0.5], [0.125, 0.125, -0.375, 0.125], [0.0, -0.5, 0.0, 0.5]]]),
 ('multi_margin', 'default'): (0.27083333333333337,
                               [[[0.08333333333333333, -0.16666666666666666, 0.0, 0.08333333333333333],
                                 [0.08333333333333333, 0.08333333333333333, -0.25, 0.08333333333333333],
                                 [0.0, -0.08333333333333333, 0.0, 0.08333333333333333]]]),
 ('multi_margin', 2, 'mean'): (0.0709375,
                               [[[9.25185853854297e-18, -0.06666666666666668, 0.0, 0.06666666666666667],
                                 [0.075, 0.008333333333333335, -0.15416666666666667, 0.07083333333333333],
                                 [0.0, -1.850371707708594e-17, 0.0, 1.850371707708594e-17]]]),
 ('multi_margin', 2, 'none'): ([0.020000000000000004, 0.19281250000000003, 1.5407439555097887e-33],
                               [[[2.7755575615628914e-17, -0.20000000000000004, 0.0, 0.2],
                                 [0.225, 0.02500000000000001, -0.4625, 0.21250000000000002],
                                 [0.0, -5.551115123125783e-17, 0.0, 5.551115123125783e-17]]]),
 ('multi_margin', 2, 'sum'): (0.21281250000000002,
                              [[[2.7755575615628914e-17, -0.20000000000000004, 0.0, 0.2],
                                [0.225, 0.02500000000000001, -0.4625, 0.21250000000000002],
                                [0.0, -5.551115123125783e-17, 0.0, 5.551115123125783e-17]]]),
 ('multi_margin', '1d'): (0.6749999999999999, [[0.25, 0.25, 0.25, -0.75]]),
 ('multilabel_margin', '1d'): (1.05, [[-0.5, 0.5, 0.5, -0.5]]),
 ('multilabel_margin', 'mean'): (1.1208333333333333,
                                 [[[-0.16666666666666666, 0.16666666666666666, 0.16666666666666666,
                                    -0.16666666666666666],
                                   [0.25, -0.3333333333333333, -0.16666666666666666, 0.25],
                                   [0.0, 0.0, 0.0, 0.0]]]),
 ('multilabel_margin', 'none'): ([1.05, 2.3125, 0.0],
                                 [[[-0.5, 0.5, 0.5, -0.5], [0.75, -1.0, -0.5, 0.75], [0.0, 0.0, 0.0, 0.0]]]),
 ('multilabel_margin', 'sum'): (3.3625, [[[-0.5, 0.5, 0.5, -0.5], [0.75, -1.0, -0.5, 0.75], [0.0, 0.0, 0.0, 0.0]]]),
 ('multilabel_soft_margin', 'mean'): (1.2515211644262514,
                                      [[[-0.133770779962516, 0.1622338344038557, -0.5546789234226163,
                                         0.3842623917495088],
                                        [0.30560910116869255, 0.05167091981206459, -0.0794686146814117,
                                         -0.04987524455984256],
                                        [-0.16666666666666666, -0.0029977016603485924, -0.3333333333333333,
                                         0.34498724056380625]],
                                       [0.3077498820928206, 0.33468397390614957, 0.21699799437427136,
                                        0.2282888710878754]]),
 ('multilabel_soft_margin', 'none'): ([2.0223047454219456, 0.7709668717167069, 0.9612918761401019],
                                      [[[-0.401312339887548, 0.4867015032115671, -1.664036770267849,
                                         1.1527871752485264],
                                        [0.9168273035060777, 0.15501275943619378, -0.2384058440442351,
                                         -0.1496257336795277],
                                        [-0.5, -0.008993104981045778, -1.0, 1.0349617216914186]],
                                       [0.923249646278462, 1.004051921718449, 0.6509939831228142,
                                        0.6848666132636262]]),
 ('multilabel_soft_margin', 'sum'): (3.7545634932787544,
                                     [[[-0.401312339887548, 0.4867015032115671, -1.664036770267849,
                                        1.1527871752485264],
                                       [0.9168273035060777, 0.15501275943619378, -0.2384058440442351,
                                        -0.1496257336795277],
                                       [-0.5, -0.008993104981045778, -1.0, 1.0349617216914186]],
                                      [0.923249646278462, 1.004051921718449, 0.6509939831228142,
                                       0.6848666132636262]]),
 ('soft_margin', 'broadcast'): (4.287260675012963,
                                [[[-0.37754066879814546, 0.2689414213699951, -0.11920292202211755,
                                   0.5621765008857981],
                                  [-0.18242552380635632, 0.5, -0.574442516811659, 0.549833997312478]]]),
 ('soft_margin', 'mean'): (0.7102836232739145,
                           [[[-0.04719258359976818, 0.03361767767124939, -0.014900365252764693,
                              0.07027206261072476],
                             [0.10219680952420546, -0.0625, -0.07180531460145738, -0.0]]]),
 ('soft_margin', 'none'): ([[0.4740769841801067, 0.31326168751822286, 0.1269280110429725, 0.8259394198788436],
                            [1.7014132779827524, 0.6931471805599453, 0.8543552444685272, 0.6931471805599453]],
                           [[[-0.37754066879814546, 0.2689414213699951, -0.11920292202211755, 0.5621765008857981],
                             [0.8175744761936437, -0.5, -0.574442516811659, -0.0]]]),
 ('soft_margin', 'sum'): (5.682268986191316,
                          [[[-0.37754066879814546, 0.2689414213699951, -0.11920292202211755, 0.5621765008857981],
                            [0.8175744761936437, -0.5, -0.574442516811659, -0.0]]]),
 ('triplet_distance', False, 'mean'): (0.5932265546828639,
                                       [[[-0.28868321027467053, 0.7886789833965993, -0.28868321027467064],
                                         [-0.006282618134023699, 0.045787147497547975, -0.02613541967282361]],
                                        [[0.2886732100746705, -0.28867898359660726, 0.2886732100746706],
                                         [-0.4902902624158836, -0.0980584447149944, -4.902897721261115e-07]],
                                        [[1.000019999999984e-05, -0.49999999979999193, 1.000019999999984e-05],
                                         [0.4965728805499073, 0.05227129721744643, 0.026135909962595735]]]),
 ('triplet_distance', False, 'none'): ([0.6232055033943162, 0.5632476059714117],
                                       [[[-0.5773664205493411, 1.5773579667931985, -0.5773664205493413],
                                         [-0.012565236268047397, 0.09157429499509595, -0.05227083934564722]],
                                        [[0.577346420149341, -0.5773579671932145, 0.5773464201493412],
                                         [-0.9805805248317672, -0.1961168894299888, -9.80579544252223e-07]],
                                        [[2.000039999999968e-05, -0.9999999995999839, 2.000039999999968e-05],
                                         [0.9931457610998146, 0.10454259443489286, 0.05227181992519147]]]),
 ('triplet_distance', False, 'sum'): (1.1864531093657278,
                                      [[[-0.5773664205493411, 1.5773579667931985, -0.5773664205493413],
                                        [-0.012565236268047397, 0.09157429499509595, -0.05227083934564722]],
                                       [[0.577346420149341, -0.5773579671932145, 0.5773464201493412],
                                        [-0.9805805248317672, -0.1961168894299888, -9.80579544252223e-07]],
                                       [[2.000039999999968e-05, -0.9999999995999839, 2.000039999999968e-05],
                                        [0.9931457610998146, 0.10454259443489286, 0.05227181992519147]]]),
 ('triplet_distance', True, 'mean'): (1.0102684560791861,
                                      [[[-0.28868321027467053, 0.7886789833965993, -0.28868321027467064],
                                        [0.4902902624158836, 0.0980584447149944, 4.902897721261115e-07]],
                                       [[0.2886732100746705, -0.28867898359660726, 0.2886732100746706],
                                        [-0.28616883887324246, 0.31018848488040834, -0.2041300788526553]],
                                       [[1.000019999999984e-05, -0.49999999979999193, 1.000019999999984e-05],
                                        [-0.20412142354264112, -0.40824692959540276, 0.20412958856288319]]]),
 ('triplet_distance', True, 'none'): ([0.6232055033943162, 1.397331408764056],
                                      [[[-0.5773664205493411, 1.5773579667931985, -0.5773664205493413],
                                        [0.9805805248317672, 0.1961168894299888, 9.80579544252223e-07]],
                                       [[0.577346420149341, -0.5773579671932145, 0.5773464201493412],
                                        [-0.5723376777464849, 0.6203769697608167, -0.4082601577053106]],
                                       [[2.000039999999968e-05, -0.9999999995999839, 2.000039999999968e-05],
                                        [-0.40824284708528225, -0.8164938591908055, 0.40825917712576637]]]),
 ('triplet_distance', True, 'sum'): (2.0205369121583723,
                                     [[[-0.5773664205493411, 1.5773579667931985, -0.5773664205493413],
                                       [0.9805805248317672, 0.1961168894299888, 9.80579544252223e-07]],
                                      [[0.577346420149341, -0.5773579671932145, 0.5773464201493412],
                                       [-0.5723376777464849, 0.6203769697608167, -0.4082601577053106]],
                                      [[2.000039999999968e-05, -0.9999999995999839, 2.000039999999968e-05],
                                       [-0.40824284708528225, -0.8164938591908055, 0.40825917712576637]]]),
 ('triplet_distance', 'cosine'): (2.0883691011097936,
                                  [[[-0.5472525475978177, 0.9866272074296752, -0.47533395575384474],
                                    [0.016014208094485616, 0.01090651489725164, -0.010215386394467701]],
                                   [[0.30549191803418296, -0.7220718062626149, 0.027771992548561775],
                                    [-0.5128205128205128, -0.015172204521316845, -0.03641329085116071]],
                                   [[0.050999503394753676, -0.20399801357901337, 0.15299851018426103],
                                    [0.5332118560551317, 0.03861701464466161, 0.03515138512526858]]])}


def _cases(key, d, idx):
    """(function of the differentiable arguments, their values) for a key of TORCH."""
    name = key[0]
    r = key[-1]
    if name == "soft_margin":
        if r == "broadcast":
            return (lambda a: F.soft_margin_loss(a, d(Y[0]), reduction="sum")), [X]
        return (lambda a: F.soft_margin_loss(a, d(Y), reduction=r)), [X]
    if name == "hinge":
        if r == "at_margin":  # margin - x == 0: PyTorch's clamp_min (2.15) passes no gradient there
            return (lambda a: F.hinge_embedding_loss(a, d([-1., -1, -1]), reduction="sum")), [[1.0, 0.5, 2.0]]
        return (lambda a: F.hinge_embedding_loss(a, d(Y), margin=0.5, reduction=r)), [X]
    if name == "multi_margin":
        if r == "default":
            return (lambda a: F.multi_margin_loss(a, idx(TM))), [XM]
        if r == "1d":
            return (lambda a: F.multi_margin_loss(a, idx(3), reduction="none")), [XM[0]]
        p = key[1]
        return (lambda a: F.multi_margin_loss(a, idx(TM), p=p, margin=0.8, weight=d(WM), reduction=r)), [XM]
    if name == "multilabel_margin":
        if r == "1d":
            return (lambda a: F.multilabel_margin_loss(a, idx(TL[0]), reduction="none")), [XM[0]]
        return (lambda a: F.multilabel_margin_loss(a, idx(TL), reduction=r)), [XM]
    if name == "multilabel_soft_margin":
        return (lambda a, w: F.multilabel_soft_margin_loss(a * 4, d(YS), weight=w, reduction=r)), [XM, WS]
    if name == "triplet_distance":
        if r == "cosine":
            def fn(a, p, n):
                return F.triplet_margin_with_distance_loss(
                    a, p, n, distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y), reduction="sum")
            return fn, [A, P, N]
        swap = key[1]
        return (lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, swap=swap, margin=0.5,
                                                                     reduction=r)), [A, P, N]
    raise KeyError(key)


GRAD_KEYS = [k for k, v in TORCH.items() if isinstance(v, tuple)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", GRAD_KEYS, ids=lambda k: "-".join(map(str, k)))
def test_values_and_gradients_match_torch(key, device):
    dtype = tl.float64 if device == "cpu" else tl.float32
    tol = dict(rtol=1e-10, atol=1e-12) if device == "cpu" else dict(rtol=2e-5, atol=2e-6)

    def d(v):
        return tl.tensor(v, dtype=dtype, device=device)

    def idx(v):
        return tl.tensor(v, dtype=tl.int64, device=device)

    fn, values = _cases(key, d, idx)
    leaves = [d(v).requires_grad_() for v in values]
    out = fn(*leaves)
    out.backward(tl.ones_like(out))
    want, want_grads = TORCH[key]
    assert out.dtype == dtype and out.device.type == device
    np.testing.assert_allclose(to_numpy(out), want, **tol)
    for leaf, g in zip(leaves, want_grads):
        np.testing.assert_allclose(to_numpy(leaf.grad), g, **tol)


def test_gradcheck():
    def d(v, grad=True):
        return tl.tensor(v, dtype=tl.float64).requires_grad_(grad)

    x = d(np.array(XM) + 0.013)  # away from the hinges' kinks
    t = tl.tensor(TM)
    assert tl.autograd.gradcheck(lambda a: F.multi_margin_loss(a, t, p=2, weight=d(WM, False)), [x])
    assert tl.autograd.gradcheck(lambda a: F.multilabel_margin_loss(a, tl.tensor(TL)), [x])
    assert tl.autograd.gradcheck(lambda a, y: F.multilabel_soft_margin_loss(a, y), [x, d(YS)])
    assert tl.autograd.gradcheck(lambda a: F.soft_margin_loss(a, d(Y, False)), [d(X)])


def test_shapes_and_dtypes():
    # hinge_embedding_loss keeps an integer input's dtype; the margin is filled into it (1.7 -> 1),
    # as PyTorch's ``margin - input``; values from torch 2.13
    out = F.hinge_embedding_loss(tl.tensor([0, -1, 2, 3]), tl.tensor([1, -1, -1, 0]), margin=1.7, reduction="none")
    assert out.dtype == tl.int64 and out.tolist() == TORCH[("hinge", "long")]
    # soft_margin_loss: the input's dtype whatever the target's (PyTorch computes into an input-shaped result)
    x16 = tl.tensor(X, dtype=tl.float16)
    assert F.soft_margin_loss(x16, tl.tensor(Y), reduction="none").dtype == tl.float16
    assert F.soft_margin_loss(tl.tensor(X), tl.tensor(Y, dtype=tl.float64)).dtype == tl.float32
    # multi/multilabel margin: 'none' is (N) for a 2-D input; for a 1-D input () or (1) as the target
    x = tl.tensor(XM[0])
    assert F.multi_margin_loss(x, tl.tensor(1), reduction="none").shape == ()
    assert F.multi_margin_loss(x, tl.tensor([1]), reduction="none").shape == (1,)
    assert F.multi_margin_loss(tl.tensor(XM[:1]), tl.tensor(1), reduction="none").shape == ()
    assert F.multi_margin_loss(tl.tensor(0.3), tl.tensor(0), reduction="none").tolist() == 0.0
    assert F.multilabel_margin_loss(x, tl.tensor(TL[0]), reduction="none").shape == ()
    assert F.multilabel_margin_loss(tl.tensor(0.5), tl.tensor([0]), reduction="none").tolist() == 0.0
    # an empty batch: PyTorch returns uninitialised memory for 'mean'/'sum'; here NaN and 0
    empty, no_t = tl.zeros(0, 3), tl.zeros(0, dtype=tl.int64)
    assert F.multi_margin_loss(empty, no_t, reduction="none").shape == (0,)
    assert F.multi_margin_loss(empty, no_t, reduction="sum").item() == 0.0
    assert F.multilabel_margin_loss(empty, tl.zeros(0, 3, dtype=tl.int64), reduction="none").shape == (0,)
    # multilabel_soft_margin_loss: the last dim is the class dim
    assert F.multilabel_soft_margin_loss(tl.zeros(2, 3, 4), tl.zeros(2, 3, 4), reduction="none").shape == (2, 3)


def test_multilabel_margin_targets():
    x = tl.tensor(XM)
    # a class listed twice counts twice; everything after the first -1 is ignored (values from torch 2.13)
    out = F.multilabel_margin_loss(x, tl.tensor([[3, 3, -1, 1], [2, 1, -1, 3], [1, -1, 0, 0]]), reduction="none")
    np.testing.assert_allclose(out.numpy(), [1.3499999046325684, 1.4249999523162842, 0.05000000074505806], rtol=1e-6)
    out = F.multilabel_margin_loss(x, tl.tensor([[3, -1, -1, 1], [2, 1, -1, 3], [1, -1, 0, 0]]), reduction="none")
    np.testing.assert_allclose(out.numpy(), [0.6749999523162842, 1.4249999523162842, 0.05000000074505806], rtol=1e-6)


def test_errors():
    x, y = tl.tensor(X), tl.tensor(Y)
    with pytest.raises(RuntimeError, match=r"output with shape \[4\] doesn't match the broadcast shape \[2, 4\]"):
        F.soft_margin_loss(x[0], y)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.soft_margin_loss(x.long(), y)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(x, y.clone().requires_grad_())
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.soft_margin_loss(x, y, reduction="foo")
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        F.hinge_embedding_loss(x.long(), y.long())

    xm, t = tl.tensor(XM), tl.tensor(TM)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(xm, t, p=3)
    with pytest.raises(ValueError, match="weight must be one-dimensional"):
        F.multi_margin_loss(xm, t, weight=tl.ones(1, 4))
    with pytest.raises(RuntimeError, match=r"inconsistent weight size, expected 4 but got \[3\]"):
        F.multi_margin_loss(xm, t, weight=tl.ones(3))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        F.multi_margin_loss(xm, t, weight=tl.ones(4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.multi_margin_loss(xm, t, weight=tl.ones(4).requires_grad_())
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(xm, tl.tensor([0, 4, 1]))
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(xm, tl.tensor([0, -1, 1]))
    with pytest.raises(RuntimeError, match=r"Expected target size \[3\], but got \[3, 1\]"):
        F.multi_margin_loss(xm, t.reshape(3, 1))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Int"):
        F.multi_margin_loss(xm, t.int())
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.multi_margin_loss(xm.long(), t)
    with pytest.raises(RuntimeError, match=r"Expected non-empty vector or matrix .* but got: \[3, 0\]"):
        F.multi_margin_loss(tl.zeros(3, 0), t)
    with pytest.raises(RuntimeError, match=r"but got: \[2, 3, 4\]"):
        F.multilabel_margin_loss(tl.zeros(2, 3, 4), tl.zeros(2, 3, 4, dtype=tl.int64))

    tlab = tl.tensor(TL)
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[3, 3\] for input of size: \[3, 4\]"):
        F.multilabel_margin_loss(xm, tlab[:, :3])
    # PyTorch checks every entry against [-1, C), the ones after the padding too
    for bad in ([[4, 0, -1, 1]], [[-2, 0, -1, 1]], [[2, 0, -1, 5]]):
        with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
            F.multilabel_margin_loss(xm[:1], tl.tensor(bad))
    with pytest.raises(ValueError, match="elementwise_mean is not valid"):
        F.multilabel_soft_margin_loss(xm, tl.tensor(YS), reduction="elementwise_mean")

    a = tl.tensor(A)
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_with_distance_loss(a, a, a, margin=0)
    with pytest.raises(RuntimeError, match="anchor 2D, positive 1D, and negative 2D inputs"):
        F.triplet_margin_with_distance_loss(a, a[0], a)
    with pytest.raises(TypeError):
        F.triplet_margin_with_distance_loss(a, a, a, None)  # distance_function is keyword-only


def test_modules():
    xm, t = tl.tensor(XM, dtype=tl.float64), tl.tensor(TM)
    w = tl.tensor(WM, dtype=tl.float64)
    m = nn.MultiMarginLoss(p=2, margin=0.8, weight=w, reduction="sum")
    assert m(xm, t).item() == pytest.approx(TORCH[("multi_margin", 2, "sum")][0], rel=1e-12)
    assert list(m.state_dict()) == ["weight"]
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"):
        nn.MultiMarginLoss(weight=tl.ones(1, 4))
    x, y = tl.tensor(X, dtype=tl.float64), tl.tensor(Y, dtype=tl.float64)
    assert nn.SoftMarginLoss()(x, y).item() == pytest.approx(TORCH[("soft_margin", "mean")][0], rel=1e-12)
    assert nn.HingeEmbeddingLoss(margin=0.5)(x, y).item() == pytest.approx(TORCH[("hinge", "mean")][0], rel=1e-12)
    assert nn.MultiLabelMarginLoss(reduction="sum")(xm, tl.tensor(TL)).item() == pytest.approx(
        TORCH[("multilabel_margin", "sum")][0], rel=1e-12)
    ms = nn.MultiLabelSoftMarginLoss(weight=tl.tensor(WS, dtype=tl.float64), reduction="none")
    np.testing.assert_allclose(ms(xm * 4, tl.tensor(YS, dtype=tl.float64)).numpy(),
                               TORCH[("multilabel_soft_margin", "none")][0], rtol=1e-12)
    a, p, n = (tl.tensor(v, dtype=tl.float64) for v in (A, P, N))
    tm = nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)
    assert tm(a, p, n).item() == pytest.approx(TORCH[("triplet_distance", True, "mean")][0], rel=1e-12)
    # PyTorch's default distance is a PairwiseDistance submodule (it shows in the repr)
    assert repr(tm) == "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    custom = nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(p=1.0), reduction="none")
    np.testing.assert_allclose(custom(a, p, n).numpy(), (F.pairwise_distance(a, p, 1.0)
                                                         - F.pairwise_distance(a, n, 1.0) + 1).clamp_min(0).numpy())
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=-1.0)
    with pytest.raises(TypeError):
        nn.TripletMarginWithDistanceLoss(None)  # keyword-only, as PyTorch
    np.testing.assert_allclose(nn.CosineSimilarity(dim=0)(a, p).numpy(), F.cosine_similarity(a, p, 0).numpy())
    assert nn.PairwiseDistance(p=3.0, keepdim=True)(a, p).shape == (2, 1)
