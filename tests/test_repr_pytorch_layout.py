"""``repr(tensor)`` laid out as PyTorch 2.15 lays it out, under assorted print options.

The expected strings were printed by torch 2.15; tensorlab's reprs are compared after renaming
``tensorlab.`` (its dtype names) to ``torch.``.
"""

import pytest

import tensorlab as tl
from tensorlab._repr import PRINT_OPTS


@pytest.fixture(autouse=True)
def _default_printoptions():
    tl.set_printoptions(profile="default")
    yield
    tl.set_printoptions(profile="default")


def _repr(t) -> str:
    return repr(t).replace("tensorlab.", "torch.")


CASES = [
    # Bug 1: a suffix that would pass ``linewidth`` goes on a new line (torch's ``_add_suffixes``).
    pytest.param(
        dict(), lambda: tl.arange(7, dtype=tl.float64) / 3,
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000],\n"
        "       dtype=torch.float64)",
        id="wrap_dtype",
    ),
    pytest.param(
        dict(), lambda: (tl.arange(6, dtype=tl.float32) / 3).requires_grad_(),
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667], requires_grad=True)",
        id="wrap_requires_grad",
    ),
    pytest.param(
        dict(), lambda: (tl.arange(6, dtype=tl.float32) / 3).requires_grad_() * 2,
        "tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333],\n"
        "       grad_fn=<MulBackward0>)",
        id="wrap_grad_fn",
    ),
    pytest.param(
        dict(), lambda: (tl.arange(7, dtype=tl.float64) / 3).requires_grad_() * 2,
        "tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333, 4.0000],\n"
        "       dtype=torch.float64, grad_fn=<MulBackward0>)",
        id="wrap_two_suffixes",
    ),
    pytest.param(
        dict(), lambda: tl.tensor([[0.25, 1.5, 2.0], [3.0, 4.0, 5.5]], dtype=tl.float64).requires_grad_(),
        "tensor([[0.2500, 1.5000, 2.0000],\n"
        "        [3.0000, 4.0000, 5.5000]], dtype=torch.float64, requires_grad=True)",
        id="wrap_multiline_no_break",
    ),
    pytest.param(
        dict(linewidth=40), lambda: tl.tensor([1.5, 2.5], dtype=tl.float64).requires_grad_(),
        "tensor([1.5000, 2.5000],\n"
        "       dtype=torch.float64,\n"
        "       requires_grad=True)",
        id="wrap_linewidth40",
    ),
    pytest.param(
        dict(linewidth=20), lambda: tl.tensor([1, 2, 3], dtype=tl.int32),
        "tensor([1, 2, 3],\n"
        "       dtype=torch.int32)",
        id="wrap_linewidth20_int32",
    ),
    pytest.param(
        dict(linewidth=30), lambda: tl.zeros(0, 3, dtype=tl.int32),
        "tensor([], size=(0, 3),\n"
        "       dtype=torch.int32)",
        id="wrap_empty",
    ),
    pytest.param(
        dict(), lambda: tl.tensor([1.5, 2.5], dtype=tl.float64),
        "tensor([1.5000, 2.5000], dtype=torch.float64)",
        id="nowrap_short",
    ),
    # Bug 2: a forced ``sci_mode`` decides the notation before the widths are measured.
    pytest.param(
        dict(sci_mode=False), lambda: tl.tensor([1e-5, 1.0]),
        "tensor([0.0000, 1.0000])",
        id="sci_false_small",
    ),
    pytest.param(
        dict(sci_mode=False), lambda: tl.tensor([1e10, 1.0]),
        "tensor([10000000000.,           1.])",
        id="sci_false_big",
    ),
    pytest.param(
        dict(sci_mode=False), lambda: tl.tensor([1e10, 1.5]),
        "tensor([10000000000.0000,           1.5000])",
        id="sci_false_big_frac",
    ),
    pytest.param(
        dict(sci_mode=False, precision=2), lambda: tl.tensor([[1e-6, 12345.678], [-3.0, 0.5]]),
        "tensor([[    0.00, 12345.68],\n"
        "        [   -3.00,     0.50]])",
        id="sci_false_prec2",
    ),
    pytest.param(
        dict(sci_mode=True), lambda: tl.tensor([1.0, 2.0, 300.0]),
        "tensor([1.0000e+00, 2.0000e+00, 3.0000e+02])",
        id="sci_true_ints",
    ),
    pytest.param(
        dict(), lambda: tl.tensor([1e-5, 1.0]),
        "tensor([1.0000e-05, 1.0000e+00])",
        id="sci_auto",
    ),
    # Bug 3: ``edgeitems=0`` summarises to ``[...]`` and always shows ``size=``.
    pytest.param(
        dict(edgeitems=0, threshold=3), lambda: tl.arange(10.),
        "tensor([...], size=(10,))",
        id="edge0_summarized",
    ),
    pytest.param(
        dict(edgeitems=0, threshold=3), lambda: tl.arange(12).reshape(3, 4),
        "tensor([...], size=(3, 4))",
        id="edge0_summarized_2d",
    ),
    pytest.param(
        dict(edgeitems=0), lambda: tl.tensor([[1.5, 2.0], [3.0, 4.0]]),
        "tensor([[1.5000, 2.0000],\n"
        "        [3.0000, 4.0000]], size=(2, 2))",
        id="edge0_not_summarized",
    ),
    pytest.param(
        dict(edgeitems=0), lambda: tl.tensor(2.5),
        "tensor(2.5000, size=())",
        id="edge0_scalar",
    ),
    pytest.param(
        dict(edgeitems=0), lambda: tl.zeros(2, 0),
        "tensor([], size=(2, 0))",
        id="edge0_empty",
    ),
    pytest.param(
        dict(edgeitems=0, threshold=2), lambda: tl.arange(5, dtype=tl.int32),
        "tensor([...], size=(5,), dtype=torch.int32)",
        id="edge0_dtype",
    ),
    # Regressions: layouts that already matched.
    pytest.param(
        dict(), lambda: tl.tensor([[1.0, -2.5], [3.25, 4.0]]),
        "tensor([[ 1.0000, -2.5000],\n"
        "        [ 3.2500,  4.0000]])",
        id="reg_default",
    ),
    pytest.param(
        dict(), lambda: tl.arange(2000.),
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])",
        id="reg_summary",
    ),
    pytest.param(
        dict(threshold=10, edgeitems=2), lambda: tl.arange(42).reshape(6, 7),
        "tensor([[ 0,  1,  ...,  5,  6],\n"
        "        [ 7,  8,  ..., 12, 13],\n"
        "        ...,\n"
        "        [28, 29,  ..., 33, 34],\n"
        "        [35, 36,  ..., 40, 41]])",
        id="reg_summary_2d",
    ),
    pytest.param(
        dict(), lambda: tl.tensor([float("nan"), float("inf"), -float("inf"), 1.5, 0.0]),
        "tensor([   nan,    inf,   -inf, 1.5000, 0.0000])",
        id="reg_nan_inf",
    ),
    pytest.param(
        dict(), lambda: tl.tensor([True, False]),
        "tensor([ True, False])",
        id="reg_bool",
    ),
    pytest.param(
        dict(), lambda: tl.tensor([0.5, 1.25], dtype=tl.float16),
        "tensor([0.5000, 1.2500], dtype=torch.float16)",
        id="reg_float16",
    ),
    pytest.param(
        dict(profile="short"), lambda: tl.tensor([1.23456, 2.5]),
        "tensor([1.23, 2.50])",
        id="reg_short_profile",
    ),
    pytest.param(
        dict(linewidth=40), lambda: tl.arange(12.) / 7,
        "tensor([0.0000, 0.1429, 0.2857, 0.4286,\n"
        "        0.5714, 0.7143, 0.8571, 1.0000,\n"
        "        1.1429, 1.2857, 1.4286, 1.5714])",
        id="reg_long_row",
    ),
]


@pytest.mark.parametrize("options, make, expected", CASES)
def test_repr_matches_torch(options, make, expected):
    tl.set_printoptions(**options)
    assert _repr(make()) == expected


def test_suffix_wrap_breaks_where_torch_does():
    # torch fits these suffixes on the line; the break is decided on torch's spelling of the dtype, so the
    # longer "tensorlab.float64" does not move it.
    t = tl.tensor([[0.25, 1.5, 2.0], [3.0, 4.0, 5.5]], dtype=tl.float64).requires_grad_()
    assert repr(t).splitlines()[-1] == "        [3.0000, 4.0000, 5.5000]], dtype=tensorlab.float64, requires_grad=True)"
    tl.set_printoptions(edgeitems=0)
    t = tl.tensor([1e30, -2e25, 3.5e20], dtype=tl.float64)
    assert repr(t) == "tensor([ 1.0000e+30, -2.0000e+25,  3.5000e+20], size=(3,), dtype=tensorlab.float64)"


def test_sci_mode_false_then_none_restores_auto_mode():
    tl.set_printoptions(sci_mode=False)
    assert repr(tl.tensor([1e-5, 1.0])) == "tensor([0.0000, 1.0000])"
    tl.set_printoptions()
    assert PRINT_OPTS.sci_mode is None
    assert repr(tl.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"


def test_edgeitems_zero_big_tensor():
    tl.set_printoptions(edgeitems=0)
    assert repr(tl.zeros(50, 40, 30)) == "tensor([...], size=(50, 40, 30))"
