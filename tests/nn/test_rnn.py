"""Recurrent modules (``nn.RNN``/``LSTM``/``GRU`` and their cells) against PyTorch 2.15.

Values: each case sets every parameter, in ``named_parameters()`` order, from a seeded numpy
generator, then draws the input, the initial states and the weights of a scalar loss
``sum(output * w_out) + sum(h_n * w_h) (+ sum(c_n * w_c))`` from the same generator. ``EXPECTED`` (at
the end of the file) holds the outputs and the gradients of that loss that torch computed for the
same numbers, in float64 (written as literals: no torch here). cpu runs every case; cuda (real or
Triton's interpreter) a few, as the interpreter is slow. Then: parameter names, shapes, order,
``state_dict`` keys, initialisation, ``repr``, dropout between layers, and PyTorch's errors.
"""

from __future__ import annotations

import collections
import math
import re
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import nn
from tests.helpers import to_numpy

CUDA = tl.cuda.is_available()
DEVICES = ["cpu"] + (["cuda"] if CUDA else [])

# name: (module, constructor kwargs, input shape, initial-state shapes (None: not given),
#        parameters whose gradients are checked, run on cuda too)
CASES = {
    "rnn_tanh": ("RNN", {}, (3, 2, 3), [(1, 2, 4)], ["weight_hh_l0", "bias_ih_l0"], True),
    "rnn_relu": ("RNN", {"nonlinearity": "relu"}, (3, 2, 3), [(1, 2, 4)], ["weight_ih_l0", "bias_hh_l0"], False),
    "lstm": ("LSTM", {}, (3, 2, 3), [(1, 2, 4), (1, 2, 4)], ["weight_hh_l0", "bias_ih_l0"], True),
    "gru": ("GRU", {}, (3, 2, 3), [(1, 2, 4)], ["weight_hh_l0", "bias_hh_l0"], True),
    "rnn_2layer_bidir": ("RNN", {"num_layers": 2, "bidirectional": True}, (3, 2, 3), [(4, 2, 4)],
                         ["weight_ih_l1_reverse", "bias_hh_l0"], False),
    "lstm_2layer_bidir": ("LSTM", {"num_layers": 2, "bidirectional": True}, (3, 2, 3), [(4, 2, 4), (4, 2, 4)],
                          ["weight_ih_l1", "weight_hh_l0_reverse"], True),
    "gru_2layer_bidir_no_hx": ("GRU", {"num_layers": 2, "bidirectional": True}, (3, 2, 3), None,
                               ["weight_ih_l0_reverse", "bias_hh_l1"], False),
    "rnn_batch_first_no_bias": ("RNN", {"batch_first": True, "bias": False, "num_layers": 2}, (2, 3, 3),
                                [(2, 2, 4)], ["weight_ih_l1", "weight_hh_l0"], False),
    "gru_batch_first": ("GRU", {"batch_first": True}, (2, 3, 3), [(1, 2, 4)], ["weight_ih_l0", "bias_ih_l0"],
                        False),
    "lstm_unbatched": ("LSTM", {}, (3, 3), [(1, 4), (1, 4)], ["weight_ih_l0", "bias_hh_l0"], False),
    "gru_unbatched_bidir_no_hx": ("GRU", {"bidirectional": True}, (3, 3), None, ["weight_hh_l0_reverse"], False),
    "lstm_proj": ("LSTM", {"proj_size": 2, "batch_first": True}, (2, 3, 3), [(1, 2, 2), (1, 2, 4)],
                  ["weight_hr_l0", "weight_hh_l0"], True),
    "lstm_proj_2layer_bidir": ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}, (3, 2, 3),
                               [(4, 2, 2), (4, 2, 4)], ["weight_ih_l1", "weight_hr_l1_reverse"], False),
    "rnn_cell": ("RNNCell", {}, (2, 3), [(2, 4)], ["weight_hh", "bias_ih"], True),
    "rnn_cell_relu_no_hx": ("RNNCell", {"nonlinearity": "relu"}, (2, 3), None, ["weight_ih", "bias_hh"], False),
    "lstm_cell": ("LSTMCell", {}, (2, 3), [(2, 4), (2, 4)], ["weight_hh", "bias_ih"], True),
    "lstm_cell_unbatched_no_hx": ("LSTMCell", {}, (3,), None, ["weight_ih"], False),
    "gru_cell": ("GRUCell", {}, (2, 3), [(2, 4)], ["weight_hh", "bias_hh"], True),
    "gru_cell_unbatched": ("GRUCell", {"bias": False}, (3,), [(4,)], ["weight_ih", "weight_hh"], False),
}


def draw(case: str, param_shapes, output_shapes=None):
    """The numbers of a case, from its seeded generator: parameters, input, initial states (and, given
    the output shapes, the loss weights). The torch script that made ``EXPECTED`` called this too."""
    kind, kwargs, in_shape, state_shapes, _, _ = CASES[case]
    rng = np.random.default_rng(sorted(CASES).index(case) + 1)
    params = [rng.uniform(-0.6, 0.6, shape) for shape in param_shapes]
    x = rng.standard_normal(in_shape)
    states = None if state_shapes is None else [rng.standard_normal(s) for s in state_shapes]
    weights = None if output_shapes is None else [rng.standard_normal(s) for s in output_shapes]
    return params, x, states, weights


def flat_outputs(out):
    """``output``, ``h_n`` (, ``c_n``) of a module's result, or the cell's states, as a list."""
    if not isinstance(out, tuple):
        return [out]
    return [t for item in out for t in (item if isinstance(item, tuple) else (item,))]


def run_case(case: str, device: str, dtype=tl.float64):
    """Outputs and gradients (input, initial states, the listed parameters) as numpy float64."""
    kind, kwargs, _, _, grad_params, _ = CASES[case]
    m = getattr(nn, kind)(3, 4, **kwargs, device=device, dtype=dtype)
    named = list(m.named_parameters())
    params, x, states, _ = draw(case, [tuple(p.shape) for _, p in named])
    with tl.no_grad():
        for (_, p), value in zip(named, params):
            p.copy_(tl.tensor(value, dtype=dtype))
    tx = tl.tensor(x, device=device, dtype=dtype, requires_grad=True)
    ts = None if states is None else [tl.tensor(s, device=device, dtype=dtype, requires_grad=True) for s in states]
    if ts is None:
        out = m(tx)
    else:
        out = m(tx, tuple(ts) if kind in ("LSTM", "LSTMCell") else ts[0])
    outs = flat_outputs(out)
    _, _, _, weights = draw(case, [tuple(p.shape) for _, p in named], [tuple(o.shape) for o in outs])
    loss = sum((o * tl.tensor(w, device=device, dtype=dtype)).sum() for o, w in zip(outs, weights))
    loss.backward()
    got = {f"out{i}": to_numpy(o.detach()) for i, o in enumerate(outs)}
    got["grad_input"] = to_numpy(tx.grad)
    for i, s in enumerate(ts or []):
        got[f"grad_state{i}"] = to_numpy(s.grad)
    for name in grad_params:
        got[f"grad_{name}"] = to_numpy(dict(named)[name].grad)
    return {k: v.astype(np.float64) for k, v in got.items()}


def _check(got, case, rtol, atol):
    expected = EXPECTED[case]
    assert sorted(got) == sorted(expected)
    for key, (shape, values) in expected.items():
        assert got[key].shape == shape, (case, key)
        np.testing.assert_allclose(got[key].ravel(), values, rtol=rtol, atol=atol, err_msg=f"{case}: {key}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_match_pytorch_cpu(case):
    _check(run_case(case, "cpu"), case, rtol=1e-10, atol=1e-11)


@pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
@pytest.mark.parametrize("case", sorted(c for c in CASES if CASES[c][5]))
def test_values_and_gradients_match_pytorch_cuda(case):
    _check(run_case(case, "cuda"), case, rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("case", ["lstm_2layer_bidir", "gru_cell"])
def test_float32_by_default(case):
    kind, kwargs = CASES[case][:2]
    assert next(getattr(nn, kind)(3, 4, **kwargs).parameters()).dtype is tl.float32  # (run_case passes it)
    _check(run_case(case, "cpu", tl.float32), case, rtol=1e-4, atol=1e-5)


def test_unbatched_equals_a_batch_of_one():
    m = nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    x = tl.tensor(np.random.default_rng(0).standard_normal((5, 3)))
    h = tl.tensor(np.random.default_rng(1).standard_normal((4, 4)))
    out, h_n = m(x, h)
    out_b, h_n_b = m(x.unsqueeze(0), h.unsqueeze(1))
    assert out.shape == (5, 8) and h_n.shape == (4, 4)
    np.testing.assert_allclose(to_numpy(out), to_numpy(out_b[0]), rtol=0, atol=0)
    np.testing.assert_allclose(to_numpy(h_n), to_numpy(h_n_b[:, 0]), rtol=0, atol=0)


def test_default_states_are_zeros(device):
    m = nn.LSTM(3, 4, proj_size=2, device=device, dtype=tl.float64)
    x = tl.tensor(np.random.default_rng(2).standard_normal((2, 1, 3)), device=device)
    out, (h, c) = m(x)
    out0, (h0, c0) = m(x, (tl.zeros(1, 1, 2, dtype=tl.float64, device=device),
                           tl.zeros(1, 1, 4, dtype=tl.float64, device=device)))
    assert out.shape == (2, 1, 2) and h.shape == (1, 1, 2) and c.shape == (1, 1, 4)
    for a, b in ((out, out0), (h, h0), (c, c0)):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    assert out.device.type == device


# -- parameters ------------------------------------------------------------------------------------
def test_parameter_names_shapes_and_state_dict_keys():
    m = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    names = [f"{w}_l{k}{s}" for k in range(2) for s in ("", "_reverse")
             for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]
    assert [n for n, _ in m.named_parameters()] == names
    assert list(m.state_dict()) == names and m._flat_weights_names == names
    assert m._all_weights == [names[i:i + 5] for i in range(0, 20, 5)]
    shapes = dict((n, tuple(p.shape)) for n, p in m.named_parameters())
    assert shapes["weight_ih_l0"] == (20, 3) and shapes["weight_hh_l0"] == (20, 2)
    assert shapes["weight_ih_l1_reverse"] == (20, 4) and shapes["weight_hr_l1"] == (2, 5)
    assert shapes["bias_ih_l0"] == (20,)
    assert [[tuple(p.shape) for p in ws] for ws in m.all_weights][0] == [(20, 3), (20, 2), (20,), (20,), (2, 5)]
    assert all(a is b for a, b in zip(m._flat_weights, m.parameters()))
    g = nn.GRU(3, 4, num_layers=2, bias=False)
    assert list(g.state_dict()) == ["weight_ih_l0", "weight_hh_l0", "weight_ih_l1", "weight_hh_l1"]
    assert tuple(g.weight_ih_l1.shape) == (12, 4) and tuple(nn.RNN(3, 4).weight_hh_l0.shape) == (4, 4)
    assert list(nn.LSTMCell(3, 4).state_dict()) == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    cell = nn.GRUCell(3, 4, bias=False)
    assert list(cell.state_dict()) == ["weight_ih", "weight_hh"] and cell.bias_ih is None
    assert tuple(cell.weight_ih.shape) == (12, 3) and tuple(nn.LSTMCell(3, 4).weight_hh.shape) == (16, 4)


def test_flat_weights_follow_replacement_and_casts():
    m = nn.RNN(3, 4)
    m.double()
    assert m._flat_weights[0] is m.weight_ih_l0 and m._flat_weights[0].dtype is tl.float64
    m.weight_hh_l0 = nn.Parameter(tl.zeros(4, 4, dtype=tl.float64))
    assert m._flat_weights[1] is m.weight_hh_l0
    before = [to_numpy(p).copy() for p in m.parameters()]
    assert m.flatten_parameters() is None  # nothing to pack: no cuDNN buffer here
    assert all(np.array_equal(a, to_numpy(p)) for a, p in zip(before, m.parameters()))


@pytest.mark.parametrize("make", [lambda: nn.LSTM(3, 16, 2, bidirectional=True, proj_size=3),
                                  lambda: nn.GRUCell(3, 16), lambda: nn.RNN(5, 16, bias=False)])
def test_every_parameter_is_uniform_in_one_over_sqrt_hidden(make):
    tl.manual_seed(0)
    m = make()
    bound = 1 / math.sqrt(16)
    values = np.concatenate([to_numpy(p).ravel() for p in m.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.8 * bound and values.max() > 0.8 * bound and abs(values.mean()) < 0.05
    first = to_numpy(next(m.parameters())).copy()
    m.reset_parameters()
    assert not np.array_equal(first, to_numpy(next(m.parameters())))


def test_repr_is_pytorchs():
    assert repr(nn.LSTM(10, 20, num_layers=2, batch_first=True)) == "LSTM(10, 20, num_layers=2, batch_first=True)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (repr(nn.LSTM(10, 20, 2, False, True, 0.5, True, 5)) ==
                "LSTM(10, 20, proj_size=5, num_layers=2, bias=False, batch_first=True, dropout=0.5, "
                "bidirectional=True)")
    assert repr(nn.GRU(3, 4, dropout=0)) == "GRU(3, 4)"
    assert repr(nn.RNNCell(3, 4, False, "relu")) == "RNNCell(3, 4, bias=False, nonlinearity=relu)"
    assert repr(nn.LSTMCell(3, 4)) == "LSTMCell(3, 4)" and repr(nn.GRUCell(3, 4, False)) == "GRUCell(3, 4, bias=False)"


def test_constructor_defaults_and_positional_forms():
    m = nn.RNN(3, 4, 2, "relu")
    assert (m.mode, m.nonlinearity, m.num_layers, m.bias, m.batch_first, m.dropout, m.bidirectional) == \
        ("RNN_RELU", "relu", 2, True, False, 0.0, False)
    lstm = nn.LSTM(3, 4)
    assert (lstm.mode, lstm.proj_size, lstm.num_layers, lstm.dropout) == ("LSTM", 0, 1, 0.0)
    assert nn.GRU(3, 4).mode == "GRU" and nn.RNN(3, 4).mode == "RNN_TANH"
    assert isinstance(lstm, nn.RNNBase) and isinstance(nn.GRUCell(3, 4), nn.RNNCellBase)
    assert nn.GRU(3, 4, dtype=tl.float64).weight_ih_l0.dtype is tl.float64


# -- dropout -----------------------------------------------------------------------------------------
def test_dropout_acts_between_layers_in_training_only():
    m = nn.LSTM(3, 4, num_layers=2, dropout=1.0).double()
    x = tl.tensor(np.random.default_rng(3).standard_normal((3, 2, 3)))
    out_train, _ = m(x)
    m.eval()
    out_eval, _ = m(x)
    with tl.no_grad():  # p = 1 zeroes the first layer's output: as if the second layer read zeros
        m.weight_ih_l1.zero_()
    out_zero_input, _ = m(x)
    np.testing.assert_allclose(to_numpy(out_train.detach()), to_numpy(out_zero_input.detach()), rtol=0, atol=1e-15)
    assert not np.allclose(to_numpy(out_eval.detach()), to_numpy(out_zero_input.detach()))


def test_dropout_with_one_layer_warns_and_does_nothing():
    with pytest.warns(UserWarning, match=re.escape(
            "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
            "num_layers greater than 1, but got dropout=0.5 and num_layers=1")):
        m = nn.GRU(3, 4, dropout=0.5).double()
    x = tl.tensor(np.random.default_rng(4).standard_normal((3, 2, 3)))
    a, _ = m(x)
    m.eval()
    b, _ = m(x)
    np.testing.assert_array_equal(to_numpy(a.detach()), to_numpy(b.detach()))


# -- errors --------------------------------------------------------------------------------------------
def z(*shape):
    return tl.zeros(*shape)


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.RNN(3, 4)(z(5, 2, 4)), RuntimeError, "input.size(-1) must be equal to input_size. Expected 3, got 4"),
    (lambda: nn.RNN(3, 4)(z(5, 2, 3), z(1, 3, 4)), RuntimeError, "Expected hidden size (1, 2, 4), got [1, 3, 4]"),
    (lambda: nn.GRU(3, 4, 2, bidirectional=True)(z(5, 2, 3), z(2, 2, 4)), RuntimeError,
     "Expected hidden size (4, 2, 4), got [2, 2, 4]"),
    (lambda: nn.RNN(3, 4)(z(5, 3), z(2, 4)), RuntimeError, "Expected hidden size (1, 1, 4), got [2, 1, 4]"),
    (lambda: nn.RNN(3, 4)(z(5, 2, 3), z(3, 4)), RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda: nn.GRU(3, 4)(z(5, 3), z(1, 1, 4)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.RNN(3, 4)(z(5)), ValueError, "RNN: Expected input to be 2D or 3D, got 1D tensor instead"),
    (lambda: nn.GRU(3, 4)(z(5, 3, 3, 3)), ValueError, "GRU: Expected input to be 2D or 3D, got 4D instead"),
    (lambda: nn.LSTM(3, 4)(z(5)), ValueError, "LSTM: Expected input to be 2D or 3D, got 1D instead"),
    (lambda: nn.LSTM(3, 4)(z(5, 2, 3), (z(1, 3, 4), z(1, 2, 4))), RuntimeError,
     "Expected hidden[0] size (1, 2, 4), got [1, 3, 4]"),
    (lambda: nn.LSTM(3, 4)(z(5, 2, 3), (z(1, 2, 4), z(1, 2, 5))), RuntimeError,
     "Expected hidden[1] size (1, 2, 4), got [1, 2, 5]"),
    (lambda: nn.LSTM(3, 4, proj_size=2)(z(5, 2, 3), (z(1, 2, 4), z(1, 2, 4))), RuntimeError,
     "Expected hidden[0] size (1, 2, 2), got [1, 2, 4]"),
    (lambda: nn.LSTM(3, 4)(z(5, 2, 3), (z(2, 4), z(1, 2, 4))), RuntimeError,
     "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) tensors"),
    (lambda: nn.LSTM(3, 4)(z(5, 3), (z(1, 2, 4), z(1, 2, 4))), RuntimeError,
     "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors"),
    (lambda: nn.LSTM(3, 4, bidirectional=True)(z(0, 2, 3)), RuntimeError,
     "Expected sequence length to be larger than 0 in RNN"),
    (lambda: nn.RNN(3, 4)(tl.zeros(5, 2, 3, dtype=tl.float64)), ValueError,
     "RNN input dtype (tensorlab.float64) does not match weight dtype (tensorlab.float32). Convert input: "
     "input.to(tensorlab.float32), or convert model: model.to(tensorlab.float64)"),
    (lambda: nn.RNNCell(3, 4)(z(2, 5)), RuntimeError, "input has inconsistent input_size: got 5 expected 3"),
    (lambda: nn.GRUCell(3, 4)(z(2, 3), z(3, 4)), RuntimeError,
     "Input batch size 2 doesn't match hidden0 batch size 3"),
    (lambda: nn.RNNCell(3, 4)(z(2, 3), z(2, 5)), RuntimeError,
     "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    (lambda: nn.RNNCell(3, 4)(z(3), z(2, 4)), RuntimeError,
     "Expected 2D hidden0 (batch x hidden_size), but got 3D tensor"),
    (lambda: nn.LSTMCell(3, 4)(z(2, 3), (z(2, 4), z(3, 4))), RuntimeError,
     "Input batch size 2 doesn't match hidden1 batch size 3"),
    (lambda: nn.LSTMCell(3, 4)(z(2, 3), (z(2, 4), z(2, 5))), RuntimeError,
     "hidden1 has inconsistent hidden_size: got 5, expected 4"),
    (lambda: nn.RNNCell(3, 4)(z(2, 2, 3)), ValueError, "RNNCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: nn.GRUCell(3, 4)(z(2, 3), z(2, 2, 4)), ValueError,
     "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
    (lambda: nn.LSTMCell(3, 4)(z(2, 3), (z(2, 4), z(2, 2, 4))), ValueError,
     "LSTMCell: Expected hx[1] to be 1D or 2D, got 3D instead"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="gelu")(z(2, 3)), RuntimeError, "Unknown nonlinearity: gelu"),
])
def test_forward_errors_are_pytorchs(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.GRU(3, 4, proj_size=2), ValueError, "proj_size argument is only supported for LSTM, not RNN or GRU"),
    (lambda: nn.RNN(3, 4, proj_size=2), ValueError, "proj_size argument is only supported for LSTM, not RNN or GRU"),
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError,
     "Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."),
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError, "proj_size has to be smaller than hidden_size"),
    (lambda: nn.LSTM(3, 4, proj_size=-1), ValueError,
     "proj_size should be a positive integer or zero to disable projections"),
    (lambda: nn.LSTM(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(0, 4), ValueError, "input_size must be greater than zero"),
    (lambda: nn.LSTM(3, 4.0), TypeError, "hidden_size should be of type int, got: float"),
    (lambda: nn.LSTM(3, 4, 0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.GRU(3, 4, 2, dropout=1.5), ValueError, "dropout should be a number in range [0, 1]"),
    (lambda: nn.GRU(3, 4, 2, dropout=True), ValueError, "dropout should be a number in range [0, 1]"),
    (lambda: nn.LSTM(3, 4, bias=1), TypeError, "bias should be of type bool, got: int"),
    (lambda: nn.RNN(3, 4, batch_first=1), TypeError, "batch_first should be of type bool, got: int"),
])
def test_constructor_errors_are_pytorchs(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_packed_sequence_input_is_refused():
    packed = collections.namedtuple("PackedSequence", "data batch_sizes sorted_indices unsorted_indices")(
        z(5, 3), tl.tensor([2, 2, 1]), None, None)
    for m in (nn.RNN(3, 4), nn.LSTM(3, 4), nn.GRU(3, 4)):
        with pytest.raises(NotImplementedError, match="PackedSequence input is not supported"):
            m(packed)


def test_exported_from_nn():
    from tensorlab.nn.modules import rnn

    for name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNNCellBase"):
        assert getattr(nn, name) is getattr(rnn, name) and name in rnn.__all__


# Computed by PyTorch 2.15 (cpu, float64) from ``draw``'s numbers: key -> (shape, flattened values).
# BEGIN EXPECTED
EXPECTED = {
    'gru': {
        'out0': ((3, 2, 4), [-0.9652593816054, -0.8277550279798, 0.3364166908764, -0.4589558946249, -0.5235262662288,
            -0.4658334179339, 0.2965442455019, -0.4028054804624, -0.5014748356787, -0.7625906945107, 0.1080085744035,
            -0.01222217087854, -0.5256026605184, -0.7083399598398, 0.006521528729485, -0.6030337075563,
            -0.2179693646525, -0.9365566683819, -0.3534857375553, -0.3797754045048, -0.6599593064485, 0.4989235283522,
            -0.02287843173915, -0.4558147406907]),
        'out1': ((1, 2, 4), [-0.2179693646525, -0.9365566683819, -0.3534857375553, -0.3797754045048, -0.6599593064485,
            0.4989235283522, -0.02287843173915, -0.4558147406907]),
        'grad_input': ((3, 2, 3), [0.1027199331934, 0.101371938728, -0.1427603723644, -0.4379485155234,
            -0.2064854120043, -0.3200072210329, 0.3527276636957, 0.1353428420666, 0.06433040979486, -0.2793364190268,
            -0.3202557307798, 0.1335218463032, -0.1703401799384, 0.08065256356153, -0.1858140901276, -0.06166678203131,
            -0.1666780572947, -0.1083196926287]),
        'grad_state0': ((1, 2, 4), [0.6478719885138, 0.1414563828625, -1.040858867801, -0.09222324582493,
            -1.302206610927, -0.3282466721181, 0.6022148839622, -0.1480510757878]),
        'grad_weight_hh_l0': ((12, 4), [0.01614127694858, 0.01278387385679, 0.001897782167647, 0.004277628049642,
            -0.01208261265501, -0.01107844823114, 0.00576558577632, -0.006392714183859, 0.006378323413203,
            0.004367973974042, -0.004163468799234, 0.01303982842467, 0.001936270877435, 0.002641958498923,
            -0.0005351782261567, 0.002938733466299, 0.1259935730567, 0.07556274297843, -0.05178425721866,
            0.1447939844775, -0.1111846248454, -0.1570140479886, -0.01521442532993, -0.1571346338384, 0.0473501073773,
            0.1736672249078, 0.02323752267037, -0.03255852964579, -0.003702337355048, -0.02475844697249,
            -0.002066145165329, -0.0349242285292, 0.1752241152383, 0.206331935095, -0.1625939478908, 0.1102028080246,
            0.1133148271923, 0.1054126225552, -0.06064287237632, 0.07473844038103, -0.05802665871069,
            -0.04110829232473, 0.05035684530073, -0.07252867982466, 0.1781313655413, 0.1824701391669, -0.1673156703636,
            0.1632365380432]),
        'grad_bias_hh_l0': ((12,), [0.008561384374932, 0.01717388541516, -0.02916698738876, 0.00304994997122,
            -0.09091062801055, 0.1917798671356, 0.1852723336433, 0.02400853405402, -0.5663955282249, -0.1709848114778,
            0.1526034109911, -0.3600139414212]),
    },
    'gru_2layer_bidir_no_hx': {
        'out0': ((3, 2, 8), [0.09114359993814, 0.1124040162777, -0.3177493116747, 0.01761372715887, 0.1081404877454,
            0.4517125197251, 0.485805645416, -0.176943928184, 0.03441944422424, -0.1352594012152, -0.3370910419799,
            0.01060559073196, 0.1449786528505, 0.557408836702, 0.294615335845, -0.2242696351863, 0.08923266704429,
            0.1556936167103, -0.4543671409007, 0.02515458106891, 0.004349946450022, 0.3228303865458, 0.4075309133649,
            -0.3252592011738, 0.1660442611985, -0.05430762504743, -0.5626263298733, 0.006544627621738, 0.157857864897,
            0.4760296338388, 0.1871110479533, 0.08498407720508, 0.08779904471772, 0.2306794095685, -0.5393408229744,
            -0.02602277094212, 0.07111066627882, 0.2077659870187, 0.2317937362921, -0.2446210007518, 0.2532841330433,
            0.03054002658208, -0.6704650594072, 0.01644477608036, 0.1104370917099, 0.2388143523743, 0.1037060661945,
            -0.08453930030594]),
        'out1': ((4, 2, 4), [-0.3448899686065, -0.2891267334596, -0.2382465983024, -0.4369677243567, -0.1916729556885,
            0.06092128924091, -0.2977644409342, -0.3368101271699, 0.4922736102722, -0.1920593898255, 0.02706088418724,
            -0.5921888055521, 0.05657265679203, 0.3161533349424, 0.3059277997072, -0.08883758218886, 0.08779904471772,
            0.2306794095685, -0.5393408229744, -0.02602277094212, 0.2532841330433, 0.03054002658208, -0.6704650594072,
            0.01644477608036, 0.1081404877454, 0.4517125197251, 0.485805645416, -0.176943928184, 0.1449786528505,
            0.557408836702, 0.294615335845, -0.2242696351863]),
        'grad_input': ((3, 2, 3), [-0.2511554761308, -0.1219710588069, -0.342519127109, 0.1894479056744,
            -0.3346519676231, -1.171900891453, -0.04980633881088, -0.05816715314915, -0.2949989038901,
            -0.8249154614868, 0.1588018040335, -0.8029938997145, 0.1653165026175, -0.9759826309967, -0.7145202789674,
            -0.4175278859417, -0.3314821273404, -0.4417944980439]),
        'grad_weight_ih_l0_reverse': ((12, 3), [-0.006156056848425, 0.007320282904452, 0.003390459435783,
            -0.1499190777784, -0.007357407723257, -0.1740575100154, -0.00580724593886, 0.03740893948905,
            0.008352729535454, 0.02485287948378, 0.0855279903103, 0.04989532497155, 1.448721359803, -0.0937484953228,
            0.4983197923913, -0.2228860374107, -0.03626886100119, 0.243701396672, -0.1041273765175, 0.05902897256216,
            0.1881958753861, 1.676733663616, -0.2105520214735, 0.2705657944395, -0.6509269007894, 0.05461444048548,
            1.192255286069, -0.01746376215845, -0.05715509917612, -1.820914940516, -0.851784731102, -0.578358176686,
            -0.8232033031215, -0.989842856094, -0.5910331487841, -0.8367533927576]),
        'grad_bias_hh_l1': ((12,), [0.02042033079863, -0.01878219908905, 0.1053884547026, -0.2501773169787,
            -0.007213298817616, 0.364534760047, -0.6036814738624, -0.0408582049005, 0.2222234349378, -0.3170795922334,
            -0.5435996765149, 1.995603713868]),
    },
    'gru_batch_first': {
        'out0': ((2, 3, 4), [0.5350140762729, 1.187690495302, -0.185631421877, 0.3154164081986, 0.494639403918,
            -0.07376585744489, -0.597723554795, -0.3467490235303, 0.375721966433, 0.2325735182167, -0.3274295774043,
            -0.08005906405007, 0.2461527958657, -0.3680348370717, 0.6379878762947, -0.09878214127559, 0.3857544270887,
            -0.410770048114, 0.3503330669527, -0.03894576894842, 0.0233669312769, 0.02586376824612, 0.3913898566705,
            -0.0572775736025]),
        'out1': ((1, 2, 4), [0.375721966433, 0.2325735182167, -0.3274295774043, -0.08005906405007, 0.0233669312769,
            0.02586376824612, 0.3913898566705, -0.0572775736025]),
        'grad_input': ((2, 3, 3), [0.5749186880229, -0.3213357070576, 0.0437214700695, 0.1538533807269,
            0.2851800829585, -0.1357464213959, -0.1269925431241, -0.06985809727605, 0.1661524624294, -0.5691469666045,
            0.460047192337, 0.1733156126763, 0.2633505692261, -0.2009487193396, 0.2781690321515, 0.04205752532034,
            0.08150320244141, -0.06137547972669]),
        'grad_state0': ((1, 2, 4), [-0.8207665460491, -0.4319166804191, -0.4365918486048, 0.4462028660121,
            0.06678579136215, 0.2935371994392, -2.466334057017, -0.2409928623568]),
        'grad_weight_ih_l0': ((12, 3), [0.0104132576263, -0.08574026919648, -0.1032060322575, -0.07574155586592,
            -0.2974038178455, -0.1103938390366, -0.06385210179479, 0.01727150489805, 0.02064410753219, 0.0285196388345,
            -0.06699574077029, 0.05250123502385, -0.0598472836474, 0.05307315490503, 0.08098445426539, 0.5664237860919,
            -1.815291845075, -1.132553920863, -0.2406960396585, -0.6224027589886, 0.76379582099, -0.05046990385392,
            0.9036812705908, 1.931118689281, -0.3965848244888, 1.132744375548, -0.9082442828013, -0.1068118055492,
            -1.602627342673, -2.298133829173, 0.5046722404811, -0.03563868409598, 0.04848772248558, 1.213512053773,
            2.13803726321, 3.987055236713]),
        'grad_bias_ih_l0': ((12,), [0.01424504250017, -0.2235234460434, 0.2217332287542, -0.1477271245092,
            -0.1952164671649, -0.3894674587134, -0.5130923591868, -0.5077338503173, -0.4066913084323, 0.4042769912104,
            -1.344119144262, 1.479994367914]),
    },
    'gru_cell': {
        'out0': ((2, 4), [0.8632334655978, -0.04838072471751, 0.1946508413537, 0.2725956215982, -0.06163023789457,
            -0.4312173221525, 0.3869151576779, -0.4175774079147]),
        'grad_input': ((2, 3), [0.3296123073311, -0.6173258293576, -0.2039322125592, -0.05039866926776,
            0.1711474560058, 0.8294709164296]),
        'grad_state0': ((2, 4), [-0.7634573632341, 0.05674326016049, -1.070085498991, 0.6811827486472,
            -0.5162531112966, 0.8313039555523, 1.383563761037, 0.6608394709064]),
        'grad_weight_hh': ((12, 4), [-0.0740086812567, -0.006325349034799, -0.003594705688903, -0.03227236794023,
            0.03836920765879, 0.003040630183657, 0.002985377255023, 0.016844427414, 0.1547968068377, 0.01677935119613,
            -0.009160572678183, 0.06581962733153, -0.1230853476434, -0.01051814749079, -0.005986274174534,
            -0.05367362440987, -0.3132760147821, -0.02041720182152, -0.04509398346981, -0.1396195877842,
            0.03241962533947, 0.001338269750439, 0.008306846834096, 0.01481560651556, 0.002033589708793,
            -0.2377548252441, 1.118221950834, 0.1135999924448, 0.244757451201, -0.08763227175844, 0.5220139660039,
            0.1581530032085, -0.3225909475105, -0.01507890143983, -0.07437457920799, -0.1465875185758, 0.1802666845503,
            0.009270975254335, 0.03759134584424, 0.08151422486808, -0.9460755937516, -0.1362947527322, 0.2145634835823,
            -0.3862860681915, 0.9905614920182, -0.05267615396729, 0.6935158606439, 0.4970064592105]),
        'grad_bias_hh': ((12,), [-0.04945320712467, 0.02658716146896, 0.08933239977604, -0.08225327212379,
            -0.2345983900204, 0.02735583227003, 0.9468507232342, 0.5949144201543, -0.2651999713996, 0.1448391857307,
            -0.4118817735461, 1.207657978339]),
    },
    'gru_cell_unbatched': {
        'out0': ((4,), [0.01855321235992, 0.2182822965273, -0.6159181528517, -0.02005337124632]),
        'grad_input': ((3,), [-0.09484815438652, 0.4125290449397, -0.09586192574438]),
        'grad_state0': ((4,), [0.5888320947575, -0.5705868276164, -0.4966969182743, -1.510758966289]),
        'grad_weight_ih': ((12, 3), [0.01406383309057, -0.006788180066905, 0.01323055264985, -0.00430411919258,
            0.002077466073474, -0.00404910064148, -0.04178727737329, 0.02016943471164, -0.03931138615063,
            -0.004278614800815, 0.002065155887291, -0.004025107381899, 0.2831693033185, -0.1366771212348,
            0.2663915557196, -0.04732212284873, 0.022840934543, -0.04451829268885, 0.09653807176564, -0.04659596073395,
            0.0908182024762, -0.0630380337695, 0.03042652181203, -0.05930303775363, -0.7698948812663, 0.3716046011758,
            -0.7242787009665, 0.4002738418469, -0.1931998834905, 0.3765576642449, 0.5150771434395, -0.2486119093919,
            0.4845588838496, 0.4787689754136, -0.2310870723952, 0.4504019704681]),
        'grad_weight_hh': ((12, 4), [0.003564809379017, 7.475418894356e-05, 0.004923535534302, 0.000598051630039,
            -0.00109098027311, -2.287789803006e-05, -0.001506807116671, -0.0001830287292538, -0.0105919685867,
            -0.0002221139861433, -0.01462909462194, -0.001776965723857, -0.001084515584971, -2.274233327267e-05,
            -0.001497878414352, -0.0001819441783373, 0.07177592209882, 0.001505143830062, 0.09913329588982,
            0.0120415154486, -0.01199490539171, -0.0002515336245719, -0.01656676042043, -0.002012329961849,
            0.02446984555677, 0.0005131335966903, 0.03379652074156, 0.004105193143893, -0.01597847276551,
            -0.0003350691846731, -0.02206866344886, -0.002680634689528, -0.08770265842694, -0.001839128099665,
            -0.1211305035718, -0.01471347055462, 0.05918065151225, 0.001241020524404, 0.08173734123873,
            0.009928464986655, 0.07659760074313, 0.001606254615543, 0.1057927560786, 0.0128504262391, 0.06415671632065,
            0.001345368793648, 0.08861003183738, 0.01076327643194]),
    },
    'gru_unbatched_bidir_no_hx': {
        'out0': ((3, 8), [0.04472623905762, -0.08389864320247, 0.02067825429682, 0.24076892804, 0.6823954193386,
            0.5306660340322, 0.02609513567344, 0.4473913319767, 0.1998799391021, 0.06234910207265, 0.1295044839505,
            0.337815466378, 0.3685968512456, 0.5014656000881, -0.01602901124222, 0.2660220428785, 0.1954804502439,
            -0.4384287853928, 0.1765544362113, 0.003658704373564, -0.1803538491984, 0.5233460149099, -0.345004562705,
            0.2208948077591]),
        'out1': ((2, 4), [0.1954804502439, -0.4384287853928, 0.1765544362113, 0.003658704373564, 0.6823954193386,
            0.5306660340322, 0.02609513567344, 0.4473913319767]),
        'grad_input': ((3, 3), [-0.4299033291379, 0.5276823992141, -0.0008866065649024, -0.5492859738102,
            0.2872667606915, 0.140551070177, -0.344172603294, -0.2545438402928, -0.2413414525478]),
        'grad_weight_hh_l0_reverse': ((12, 4), [-0.003529768921571, -0.004469786384996, 9.385228086388e-07,
            -0.002395703077961, 0.002128784257084, 0.003177324279716, -0.000221635267993, 0.001664784035302,
            0.005651436653008, 0.004372917350017, 0.001276182858845, 0.00256449937696, 0.02443104427946,
            -0.02552728960278, 0.02591138417785, -0.009204815497369, 0.07874639186639, 0.1394842364484,
            -0.01827433691452, 0.07160714104611, 0.00563820045779, 0.006718115415088, 0.0001920207606463,
            0.00363418582931, 0.007991672926604, -0.06248774958999, 0.03332561710315, -0.02773474634149,
            -0.02152125234631, -0.01414043529331, -0.006012910215505, -0.008618647842773, -0.03148238744363,
            -0.05006703678612, 0.004690529099636, -0.02602595730971, -0.01559526044606, -0.03244997029311,
            0.005834283744227, -0.01638530387101, 0.08452062326017, 0.2163349017813, -0.05019490673287,
            0.1072834305885, 0.1128424549687, -0.06201313084576, 0.09402450761264, -0.01699001608433]),
    },
    'lstm': {
        'out0': ((3, 2, 4), [0.2059856211214, -0.05744175316448, 0.1152026822278, 0.06958267244031, -0.1988695330776,
            -0.09568482649885, -0.1556291169205, -0.05748093832929, 0.08144819963618, 0.02689033942848,
            0.1793377622922, 0.2305655363361, -0.05142308096982, -0.1020182826637, 0.02872020030635, 0.1843667445135,
            0.05604782255234, -0.04473576268863, 0.1371320246923, 0.4051868340825, -0.1106476698942, 0.04276563013101,
            0.05753974371575, 0.2099053607454]),
        'out1': ((1, 2, 4), [0.05604782255234, -0.04473576268863, 0.1371320246923, 0.4051868340825, -0.1106476698942,
            0.04276563013101, 0.05753974371575, 0.2099053607454]),
        'out2': ((1, 2, 4), [0.08006022346558, -0.09197961690131, 0.5949254361983, 0.6255066915274, -0.2011456151202,
            0.1954748667801, 0.194148536805, 0.2835517083668]),
        'grad_input': ((3, 2, 3), [0.06069611297297, 0.04484206040107, -0.02531921794863, -0.004604321272786,
            0.05253074825583, 0.01439568000813, 0.06712328002192, 0.1146052657916, -0.1197486514016, -0.1821908862921,
            -0.151971850337, 0.002897752684929, 0.2314659867392, 0.0920802505344, 0.05913900853902, 0.2376840923282,
            0.05976322269329, 0.1210377153602]),
        'grad_state0': ((1, 2, 4), [0.1136677224637, 0.002080603031517, 0.03496572849045, 0.0134537027701,
            -0.02154750651832, -0.01405490545371, -0.05818905478166, 0.03211895978017]),
        'grad_state1': ((1, 2, 4), [-0.1232940433327, 0.03265345778038, 0.3192780316744, 0.01717531055595,
            -0.4783892946203, -0.03484543746806, 0.0279431514697, 0.01500099317935]),
        'grad_weight_hh_l0': ((16, 4), [-0.08581867323187, -0.2729847118147, 0.1525865560219, 0.02641116525357,
            -0.001247249829238, -0.0008424814315468, -0.00500887695446, -0.006881363933288, 0.05239856610288,
            0.08285139846186, -0.04760367038235, 0.04344064345622, 0.007737882788495, 0.02847431007514,
            -0.0239212215543, -0.01094728108575, -0.03127734786549, -0.06125726794658, 0.01638281301415,
            -0.003653240203997, -0.03050851886697, -0.06832730858302, 0.03841248258786, 0.002141587503797,
            0.06636727391625, 0.08316950899912, -0.01216181449061, 0.0423025965791, -0.008192870107393,
            -0.02759887450939, 0.01016676872135, -0.01409066268895, 0.0434436552027, 0.05723545650057,
            0.01523662074572, -0.01689088997078, 0.2420411392246, 0.3390313028165, -0.1392325387095, 0.06570546803971,
            0.005658215702119, -0.07124920668765, 0.0344955629697, 0.02976989591144, -0.002241297658271,
            -0.04315010303049, -0.00540038555319, -0.09342504377384, -0.0159947158784, -0.06023207473696,
            0.0402838947825, -0.01657719439431, 0.00307278132695, 0.03604295703705, -0.02750860306018,
            -0.01685026967033, 0.008608978639887, -0.06698165786022, 0.07318258786165, 0.04447492181618,
            0.01564938602352, -0.0163364977611, 0.06099201956881, 0.06541125793012]),
        'grad_bias_ih_l0': ((16,), [0.1439305056144, 0.01098686646122, 0.4629349280631, -0.01326454512026,
            0.0638467868965, 0.03676323705613, 0.2485374367558, -0.05197237441532, -0.3931407459149, 0.3334588422146,
            0.4815948881708, -0.2785562994789, -0.07256652128546, -0.01417984734347, 0.2993554950602,
            0.4051858050308]),
    },
    'lstm_2layer_bidir': {
        'out0': ((3, 2, 8), [0.5408562917438, -0.06258487641183, 0.2132326443058, 0.07590922963124, -0.1206040707581,
            -0.4010324590298, -0.09107141384643, 0.1157901130492, -0.2858541317402, -0.3145626256258, -0.4922136725371,
            0.005144586550032, -0.1159780565979, -0.5724100520915, -0.05130626581611, -0.05763791030321,
            0.4874563536207, -0.1973914776142, 0.170290400615, 0.1612988310622, -0.1429119443788, -0.2669204948241,
            -0.09337617029061, 0.1889101964408, 0.01025250649089, -0.2239937154677, -0.03442078627557,
            0.08873501080439, -0.2102470571238, -0.4853104128697, -0.05591575986985, -0.1586308172462, 0.4827144381877,
            -0.2790118391846, 0.267466457141, 0.1914589508673, -0.2885820823724, -0.1294255751694, -0.1321973086424,
            -0.05739861594957, 0.2487317534281, -0.2373278258307, 0.1572315417441, 0.1182813663451, -0.4220977387833,
            -0.2649345844316, -0.07405461086775, -0.393408364432]),
        'out1': ((4, 2, 4), [0.09263701857881, 0.0669065632809, 0.351267424936, -0.02066832100708, -0.02817088111137,
            -0.09402663836247, 0.6300281617567, 0.09700462515211, 0.007433269176096, 0.007775999520731,
            0.08730134921145, -0.1151544431146, 0.08417410204511, 0.1064970452748, -0.003863981607978, 0.3552883629311,
            0.4827144381877, -0.2790118391846, 0.267466457141, 0.1914589508673, 0.2487317534281, -0.2373278258307,
            0.1572315417441, 0.1182813663451, -0.1206040707581, -0.4010324590298, -0.09107141384643, 0.1157901130492,
            -0.1159780565979, -0.5724100520915, -0.05130626581611, -0.05763791030321]),
        'out2': ((4, 2, 4), [0.2173792049229, 0.3548198355167, 0.5667548156308, -0.1032430574784, -0.1076794514139,
            -0.6126523600842, 1.198269721187, 0.3498410198474, 0.01325147364704, 0.03222204173248, 0.292819989524,
            -0.2234164096357, 0.1268187675019, 0.6304860956726, -0.01455139346013, 0.9099858546, 0.8572228332123,
            -0.6315214171213, 0.4714178670384, 0.5255633437869, 0.3555440572897, -0.6647286736427, 0.2778291435833,
            0.3252917028788, -0.3353338596388, -0.5758053349525, -0.1706716815782, 0.1573482329911, -0.3271931561617,
            -1.112794826004, -0.1157859188558, -0.07716258003821]),
        'grad_input': ((3, 2, 3), [0.0865836839572, -0.2985238606463, 0.3729107296613, -0.4548922329673,
            -0.008404483387465, 0.3138706791899, 0.249750004395, -0.2788044662248, 0.038367683871, -0.5707198940675,
            0.6655937087479, 0.6260449548237, -0.09823498695261, -0.5478337361494, -0.09951908893398, -0.0737139252639,
            0.1517792301863, 0.08464894503866]),
        'grad_state0': ((4, 2, 4), [-0.2007657102057, -0.1141302505981, 0.1994193904569, -0.1614248148699,
            0.03878981556343, -0.04406592218733, -0.03165010204784, -0.01547275761071, 0.134501722313, 0.1951129101875,
            0.1622240963369, -0.1098171440625, -0.07142817772796, 0.03669487864257, -0.04830809353874,
            0.06772126530256, 0.5126707001196, 0.326846790053, -0.5039893795509, -0.5638762906865, -0.1497243736163,
            -0.1499356010386, -0.1113608555829, 0.2145614532529, -0.2433120815399, -0.2931586635093, 0.1169077188502,
            -0.3820004624186, -0.03438722310424, -0.2633643021555, -0.03463570518051, 0.06641146628184]),
        'grad_state1': ((4, 2, 4), [0.01589583712738, -0.1257279684271, 0.3809998112525, -0.01105287678554,
            0.06687003143199, 0.0801528179828, 0.0902345534625, 0.009518858863396, 0.2460146533979, -0.09165298386105,
            0.6661726023031, -0.2363081660156, -0.2945444188216, -1.134043095966, 0.09486491433398, -0.05836510055016,
            -0.08739020247261, -0.08055672590421, -0.9420304405044, 0.07486752637046, -0.681300289869,
            -0.09963600396604, 0.09057356695285, -0.02152260697225, -0.2422927768039, 0.04906870270778,
            -0.03594775560125, 0.9701182238487, -0.002911422337108, -0.3581321459708, -0.2044938162107,
            0.2348519582998]),
        'grad_weight_ih_l1': ((16, 8), [0.009922748287612, 0.0572192031618, -0.3113646582832, -0.0229106399512,
            0.04822315341785, -0.04960099411395, -0.002582482690647, -0.1198160082232, 0.1118724671796,
            0.1043005561812, 0.1678328980343, -0.06719380677704, 0.08900506059621, -0.190786176528, 0.06068906490863,
            -0.2918454260813, -0.06789251875479, -0.02862645464653, -0.1187205618976, 0.09105210821831,
            -0.008481199768164, 0.05903749711609, -0.03709051409864, 0.09654021272433, 0.06765307437213,
            0.06541667405931, 0.08551206745549, -0.04242655797108, 0.06868927856731, -0.1230970215595,
            0.02992092545641, -0.2081860938337, -0.01200331113223, -0.01801179910993, 0.09354985124595,
            0.03510728332156, 0.02290343127799, 0.00294873667897, -0.004449592952603, 0.04311725607559,
            0.03208381111317, 0.03944035761181, 0.04876251740283, -0.007896145450181, 0.0530189479595,
            -0.06820721729454, 0.01078475487686, -0.1165855168281, -0.06438120493605, -0.07196024528747,
            -0.08295530388982, 0.03121563426888, -0.02766870927114, 0.09768093690771, -0.04400667507934,
            0.1326663075031, 0.02742279926905, 0.01808950823283, 0.09021605567676, -0.01290721467159, 0.04288116712834,
            -0.0483408515587, 0.01069274497374, -0.06907245153172, 0.01560650531174, 0.07133824703145,
            -0.3948161950628, -0.04020930368326, 0.1049332843311, -0.04651092607321, -0.00435982686, -0.096269088258,
            -0.09721129768209, -0.1186350192647, -0.05302311429439, 0.05742774350554, -0.08357571893103,
            0.1631163304765, -0.046640366067, 0.2840879509273, -0.6003710158177, -0.3854171905569, -0.71519869157,
            0.6555331647003, -0.01757586649352, 0.7279559089636, -0.3894196322624, 1.087393272207, 0.06475325481785,
            0.0576515328576, 0.0771138602314, -0.0515192173315, 0.060163055747, -0.1022583977868, 0.02890042426024,
            -0.1728061497582, -0.04809566042315, -0.02842447083409, -0.08766812007193, 0.05702867893904,
            0.003227400920753, 0.0503228633729, -0.02264948039853, 0.109498271055, 0.03356825107727, 0.04338437380764,
            0.1063360669694, 0.006232618104738, 0.06905807539885, -0.07199057160926, 0.0102921249296, -0.1139166836109,
            -0.0867828525526, -0.07134957754336, -0.1801120658171, 0.05098903751625, 0.02210991703739, 0.1302147647323,
            -0.06808036237253, 0.1759522634793, 0.00875381955041, 0.01161340363399, 0.01559558742146,
            0.0002430813063389, 0.0483133195229, -0.0282610749591, -0.005145687327473, -0.05523811800001]),
        'grad_weight_hh_l0_reverse': ((16, 4), [0.06623188124405, 0.02132271788753, 0.01434395789183,
            -0.07644382200915, 0.07793777525311, -0.0007564284405928, -0.003842353133029, -0.145013504546,
            0.002058280828142, 0.05441229350161, -0.01981975599167, -0.01493312681255, 0.05055120143087,
            0.05850962743965, -0.03550655143011, 0.03662103997161, -0.2210009663576, -0.00502534168691,
            -0.02618874546888, 0.156157955375, 0.1113508769199, 0.009703811148868, 0.008200082588279,
            -0.09442343826765, 0.01202185143427, -0.09053741321393, 0.03264026605687, -0.08767755691854,
            -0.0006240103540945, -0.1220268992563, 0.05802368226677, -0.2524931920991, 0.0005424331213776,
            0.07092773924859, -0.01642965102994, 0.009029824503167, 0.7412903891093, 0.03880670739078,
            0.007681596595333, -0.4938213568574, -0.02717407411537, -0.07243024476933, 0.03578978309564,
            -0.1279468215726, 0.1199932277613, 0.08564860583438, -0.07365386242598, 0.1696481816248, -0.05600146796944,
            0.03509271279995, -0.01329417917016, 0.04965997027075, -0.03317519988336, 0.01625503146082,
            -0.006294324807038, 0.02504915787089, 0.01181621920802, 0.01078276465408, -0.007377440821383,
            0.006357340790279, 0.01459622674646, 0.06934066064935, -0.005708320410507, 0.0002280137020138]),
    },
    'lstm_cell': {
        'out0': ((2, 4), [-0.1997216260549, 0.1338342827065, -0.08530725882735, -0.1171091230701, 0.4166990697369,
            0.3190662214374, -0.02201569642367, 0.1242762707265]),
        'out1': ((2, 4), [-0.3645536693196, 0.2559713605359, -0.1883148713288, -0.2559383654426, 0.6001955878866,
            0.6470203797155, -0.06038673400982, 0.5088754523616]),
        'grad_input': ((2, 3), [0.2424849982009, 0.1740692853887, -0.03272816693199, -0.5907316364838,
            -0.02100526311086, 1.24856278344]),
        'grad_state0': ((2, 4), [0.2017314904541, -0.1153039546491, 0.08732025574954, 0.4300815567382,
            -0.1825432928251, -0.5477090039282, -0.3945001795851, 0.4554089288904]),
        'grad_state1': ((2, 4), [0.8353897044374, 0.4363232803114, -0.5269900825603, 0.1529424633083, 0.1916895596035,
            -0.3314001324581, -1.572469118309, -2.713607781241]),
        'grad_weight_hh': ((16, 4), [0.3761483404837, -0.07019142578069, 0.2078206267391, -0.07202782445631,
            0.02460356106232, -0.0672549009721, 0.01320660319825, 0.003409784475676, -0.04564701718916,
            -0.4329992892033, -0.02794497723514, 0.06596040572196, -0.324188433489, -0.5993893378957, -0.1831859457743,
            0.147597581885, 0.2654638262434, -0.01007845986972, 0.1469113733633, -0.05594682691501, -0.330959106911,
            -0.3525898442593, -0.1854112052496, 0.1170732132326, -0.1792534323829, 0.482929072279, -0.09626258106961,
            -0.02392657526416, -0.1663512572746, -0.2582691015977, -0.09369418629398, 0.06934826105574,
            -0.4860511594357, 0.4281378559984, -0.2664587887365, 0.04934174541427, -1.359510291343, -1.374343915035,
            -0.7611732958774, 0.4713191715191, -0.4088836337382, -1.696466569886, -0.2368487460957, 0.3080424404608,
            -1.63238161468, -2.280440901762, -0.9178406948918, 0.6475976771959, 0.1854242183789, -0.007602684894468,
            0.1026128664462, -0.03900542230922, -0.09909181653711, -0.1000554103068, -0.05547957840184,
            0.03433821263024, -0.1070824816143, 0.03337456726762, -0.05908003084069, 0.01876937286037,
            -0.1498362911164, -0.2527901491788, -0.0845168867922, 0.06507639540624]),
        'grad_bias_ih': ((16,), [-0.2358940260685, -0.06948723383321, -0.3522533496287, -0.3659487978602,
            -0.1324409919714, -0.1498881994257, 0.5001638157783, -0.1452537242015, 0.5959121447227, -0.5518541742899,
            -1.272874228157, -1.206309475727, -0.09299455291311, -0.04012203134247, 0.07870774862801,
            -0.1482257395589]),
    },
    'lstm_cell_unbatched_no_hx': {
        'out0': ((4,), [0.07724240962872, 0.05241213325387, 0.1566775186165, 0.2091341859518]),
        'out1': ((4,), [0.1898860790654, 0.13640555578, 0.2924703749071, 0.3319358432568]),
        'grad_input': ((3,), [0.2387061800485, -0.05905409268776, -0.3577592064527]),
        'grad_weight_ih': ((16, 3), [0.001202203578753, -0.001046777964361, 0.0002592997988472, 0.1136547644838,
            -0.09896102882148, 0.0245138661118, -0.2486865103562, 0.2165353386692, -0.05363847126314, 0.222447931149,
            -0.1936889863411, 0.04797914830759, 0, -0, 0, 0, -0, 0, -0, 0, -0, 0, -0, 0, 0.03877320372071,
            -0.03376045120795, 0.008362879717819, 0.2187901533872, -0.1905041004972, 0.0471902128439, -0.3489728242122,
            0.3038562428212, -0.07526893507939, 0.4842550692565, -0.4216486663211, 0.1044475696697, 0.02019305922512,
            -0.01758242098381, 0.00435538230606, -0.02538637036245, 0.02210432039978, -0.005475512504524,
            -0.1249640277433, 0.1088081859772, -0.02695312826351, -0.0225893261123, 0.01966888904843,
            -0.004872226152488]),
    },
    'lstm_proj': {
        'out0': ((2, 3, 2), [-0.06637784673502, 0.1108746673381, -0.05529540757011, 0.1543811065381, 0.0128319514038,
            0.04256622386695, 0.2307574927095, 0.1177296736554, -0.03645237396884, 0.172436489686, 0.05845554297073,
            0.07298002376996]),
        'out1': ((1, 2, 2), [0.0128319514038, 0.04256622386695, 0.05845554297073, 0.07298002376996]),
        'out2': ((1, 2, 4), [-0.3639497114981, -0.8184547314577, -1.007903337339, -0.05807604778886, -0.2587812704354,
            -0.7008080823601, -0.5497153876374, -0.4809345957993]),
        'grad_input': ((2, 3, 3), [-0.1533187806508, -0.101502752229, 0.1791160801518, -0.1769901124645,
            -0.1195762321068, 0.3304829693494, -0.4625780209295, -0.2993351733359, 0.6070297662392, -0.07409626168266,
            -0.0196098429962, -0.1043436509634, 0.02537049993656, -0.1910630873262, -0.2061126780815, 0.1575722727514,
            -0.1204167719903, -0.1774945117191]),
        'grad_state0': ((1, 2, 2), [-0.01113575606332, 0.04808368594212, -0.1578745052649, -0.1559393347317]),
        'grad_state1': ((1, 2, 4), [-0.03103772497885, -0.0824839606693, -0.01901339332697, -0.1193828331572,
            -0.4318016515482, 0.1168887645345, 0.1229349347001, -0.3078094425825]),
        'grad_weight_hr_l0': ((2, 4), [0.4268851392276, -0.3640592061126, -0.1736350811805, -1.878080115187,
            0.1536916295911, -0.5372671155629, -0.4018591927494, -1.095423266502]),
        'grad_weight_hh_l0': ((16, 2), [0.005010579406797, 0.06402715426876, 0.01884953818095, 0.07564521385693,
            -0.01708376139949, -0.07267187840631, 0.01787924493118, 0.05736014990927, 0.006063332001916,
            0.004441184652694, -0.003886710251562, 0.08360382227641, 0.01901220945882, 0.03914312496936,
            0.009658341006399, -0.1339866185976, -0.08490579427392, 0.01955381841862, -0.1307963971497,
            -0.4704326141512, 0.07358521818667, -0.01720368126873, -0.09547582398391, -0.1126272082681,
            -0.01487676115925, 0.03097363109727, 0.0196190430697, 0.003426473700383, -0.002992403476065,
            -0.01487508164199, 0.03809585408878, -0.05449025360099]),
    },
    'lstm_proj_2layer_bidir': {
        'out0': ((3, 2, 4), [-0.026808286785, 0.07064094053633, 0.03796999238116, -0.09707243237922, -0.2400121972007,
            0.1324404921425, -0.01808148675877, -0.05123665942413, -0.08682037723515, -0.00990737889635,
            0.141474258619, -0.107923860897, -0.2175873213073, 0.170436320156, 0.05280965132604, -0.006381066451054,
            -0.05746691801628, -0.02490526982038, 0.3368160010161, -0.09680098534169, -0.1597138989675,
            0.1380840757313, 0.1498295002212, 0.07061800419689]),
        'out1': ((4, 2, 2), [-0.03983261369679, -0.1458717115356, -0.1171325624187, -0.06991052135297,
            0.07099914472645, 0.2768917927048, -0.05154498210629, 0.1580639668624, -0.05746691801628,
            -0.02490526982038, -0.1597138989675, 0.1380840757313, 0.03796999238116, -0.09707243237922,
            -0.01808148675877, -0.05123665942413]),
        'out2': ((4, 2, 4), [-0.2405803221385, -0.151639756586, -0.5339876587127, 0.553402681186, -0.5524079615759,
            -0.0791230214638, -1.194689859289, -0.1583501939613, 0.5546248389707, -0.02382951182219, 0.6879701846715,
            1.148853531987, 0.8152452961489, 0.002925848813847, 0.8375373594357, 0.3731366752039, 0.120943550855,
            0.05947743283817, 0.07299622713888, 0.3445598334902, 0.07206175958099, -0.008935319814358,
            -0.5515004774878, 0.2308971786292, -0.09374722152581, 0.3418075895111, 0.6320331791601, 0.2119557714468,
            -0.2564116827501, 0.2480388529508, 0.4112250646866, 0.1972273936434]),
        'grad_input': ((3, 2, 3), [-0.1526113680045, 0.1602840006818, 0.2397739229718, 0.08774443306282,
            0.4428241834715, -0.2866452245781, -0.1302120877275, 0.06731159139067, 0.3218621306425, 0.2171361481515,
            0.5152290840705, -0.3678936449398, -0.2512270278551, -0.08080246448129, 0.3838493577069, 0.7237203829221,
            0.7104763764464, -0.9105930995598]),
        'grad_state0': ((4, 2, 2), [0.009924954089762, 0.04926270571642, -0.1673908553765, -0.04317807720026,
            -0.0314013829239, 0.005426631259819, -0.09604709768338, 0.005964380326313, 0.05633078713931,
            -0.1625999231639, 0.09114002265995, 0.1526592761315, -0.05634618293653, -0.1765898504787, 0.03170828990722,
            0.2451756216605]),
        'grad_state1': ((4, 2, 4), [-0.1288233351929, -0.141247016393, 0.01235744836507, 0.3733315052749,
            -0.1536631715051, 0.08912016374732, 0.4592551087297, -0.08259229921216, 0.02119284982758, 0.05626880169536,
            -0.007231803792244, 0.09222993980904, -0.01942207010908, 0.05734570800762, -0.1510382394545,
            -0.2348097443912, -0.4409445481305, 0.06431075620442, 0.8039000549679, -0.2571594631148, -0.06102324638335,
            0.03762045301851, -0.2173052425474, -0.05281729143718, -0.1276850388527, 0.1053703460386, 0.5233855961467,
            -0.1437119349293, -0.0714112234449, -0.05921212066704, -0.2233301506115, 0.4298740793538]),
        'grad_weight_ih_l1': ((16, 4), [0.01193229123595, 0.01779195187447, 0.002056172050887, -0.03677317759849,
            -0.0003419416016434, -0.003970629730832, 0.001918253382299, 0.00407706639787, 0.00450170858766,
            0.003029837835288, 2.025607929267e-05, -0.009280909727481, 0.006456969293105, 0.009277213472925,
            0.007775901055516, -0.01133276343815, 0.005888413739859, 0.03994832061073, -0.005279416761414,
            -0.04308775200908, -0.001455919425735, 0.004292954695555, -0.004577662695417, -0.006568893869481,
            -0.06963698130452, -0.04956902832543, -0.04559101872886, 0.0926908557119, 0.06088258257395,
            0.1354700681176, 0.02135851256172, -0.1852322566508, 0.1165344404104, 0.2904541355149, 0.07529666605729,
            -0.3546777514544, -0.1148096408024, -0.1186983567447, -0.1223048244316, 0.1903927059444, 0.03969730740825,
            -0.1549923591792, 0.1491973914743, 0.1794502619302, 0.1918650695409, 0.356786235112, 0.1461633122345,
            -0.4764736439005, 0.002580652990086, 0.005981404517215, -0.001910994146463, -0.008053080960808,
            -0.0007185129747527, -0.0002401261684991, -2.009810608331e-05, -0.000936763637529, -0.0188755840785,
            -0.01656143576708, -0.01405222716186, 0.02287498981195, -0.0041950186295, 0.002680882578516,
            -0.0069990739678, -0.005263161717694]),
        'grad_weight_hr_l1_reverse': ((2, 4), [0.2612756152642, -0.1808874525732, -0.1056875009076, 0.4387437367555,
            -0.2007000768034, 0.03523780042025, 0.1179712256476, 0.3802429241752]),
    },
    'lstm_unbatched': {
        'out0': ((3, 4), [0.2735752030359, 0.1324587897466, 0.05546014688301, 0.1161379228318, -0.09941780769218,
            0.03576730780174, 0.1477737257124, 0.01370351472211, -0.111600854766, -0.1474333113879, 0.1351741135634,
            -0.2326487803424]),
        'out1': ((1, 4), [-0.111600854766, -0.1474333113879, 0.1351741135634, -0.2326487803424]),
        'out2': ((1, 4), [-0.8252385561315, -0.6120219104354, 0.6900852438291, -0.4295216231417]),
        'grad_input': ((3, 3), [-0.1540784121646, -0.3044174258879, 0.3213617846488, -0.275193052412, -0.4075486237904,
            0.4282671076559, 0.2037313430073, 0.4835828915713, -0.06529554322698]),
        'grad_state0': ((1, 4), [-0.1782994863211, 0.1192225629649, 0.170625825399, -0.1658119725192]),
        'grad_state1': ((1, 4), [-0.1199839024498, 0.09741818662861, 0.4598734872421, 0.13658629085]),
        'grad_weight_ih_l0': ((16, 3), [-0.4681223765643, 0.1434334460879, 0.9338283674716, 0.1736895575083,
            -0.05266564649316, -0.2950203922082, 0.4869532722803, -0.1628412680415, -0.6140228628831, -0.1310744308194,
            0.02971640915856, 0.1465096546383, -0.3374765158549, 0.09541814274628, 0.1941872968443, 0.01061327789228,
            -0.0005937572289968, 0.0535258261361, 0.07672484517464, 0.01018981501452, 0.04638590115238,
            0.03410266891164, -0.01117427971317, -0.0104317533074, -0.8072975807119, 0.2032387794589, -0.6350777349773,
            -0.3755797561616, 0.1124125177916, 1.024755762863, 0.9527960199709, -0.244561767586, -0.06622596235368,
            0.4592489213966, -0.1212897143047, -0.1475534962648, -0.2167341094211, 0.06290891651477, 0.3577411095866,
            0.1484361004361, -0.03870116605864, -0.2049284880082, 0.2199390582303, -0.04821609111858, 0.04272518040666,
            -0.1966387769854, 0.05166240153398, 0.2891834588415]),
        'grad_bias_hh_l0': ((16,), [0.5103266521877, -0.1261319810184, 0.1039621015121, 0.1048438378301,
            -0.1887573768325, 0.05940403197947, -0.1921603820009, 0.0486358373456, -1.654446997377, 0.8109532031802,
            0.9048868881503, 0.3183983651927, 0.1748375643354, -0.1147920446383, 0.194843804551, 0.1715441950035]),
    },
    'rnn_2layer_bidir': {
        'out0': ((3, 2, 8), [-0.5583377730976, -0.8759317545258, -0.5474077498255, -0.8981730241182, 0.3424042086453,
            0.3648032099054, 0.5920878446124, 0.5324699377687, -0.3720256770474, 0.2564462414185, 0.6195617943335,
            -0.8577733394042, 0.6608395955758, -0.02151487064823, 0.965724535355, -0.2234188307017, -0.09639882136191,
            0.1085574352229, -0.2705257141641, -0.7773622395229, 0.7875382052337, 0.4123372364562, 0.8627961053715,
            -0.1983764110027, 0.4262810205488, -0.08510858387166, -0.3326736209162, -0.8657099093588, -0.3403119874164,
            0.3054326726649, 0.9276101074433, 0.8799185967101, 0.4515650780954, -0.6937375371242, -0.5528459703787,
            -0.7839362445501, -0.3663253976632, 0.5795471641528, 0.8769575896305, 0.6523270510133, 0.6208299739743,
            -0.6377083987244, 0.1769163750445, -0.5676896504091, 0.3347830946755, 0.6041520061311, 0.912431893208,
            -0.5181976743402]),
        'out1': ((4, 2, 4), [0.1195657579938, 0.7119701633089, 0.9435648993078, 0.5974539587138, 0.1917169759764,
            -0.2734246920712, 0.3993748319805, -0.4680074279468, -0.3349438652884, -0.1892232451619, -0.800232593906,
            0.858985105817, -0.2233455774535, 0.8852032081628, -0.9738366977331, 0.6181041292373, 0.4515650780954,
            -0.6937375371242, -0.5528459703787, -0.7839362445501, 0.6208299739743, -0.6377083987244, 0.1769163750445,
            -0.5676896504091, 0.3424042086453, 0.3648032099054, 0.5920878446124, 0.5324699377687, 0.6608395955758,
            -0.02151487064823, 0.965724535355, -0.2234188307017]),
        'grad_input': ((3, 2, 3), [-0.2335306319815, -0.1781677311458, 0.2154172766927, 1.150005657352,
            -0.7599521857505, 0.7006251234941, -1.048979670201, 0.1120838933461, -0.4407841048591, -0.6994339139165,
            -0.3309313231138, -0.4263714209318, 0.4739380266021, -0.2595219277857, 0.5903622208253, -0.7898243414849,
            0.8540964684133, -0.3803083049794]),
        'grad_state0': ((4, 2, 4), [-0.05780492940333, 0.0561383391927, 0.06449826579702, -0.1227490530963,
            0.3385923734159, 0.7236717704626, -0.3917170099759, 0.05492051029952, 0.286431280043, 0.4517906181369,
            0.1220466800665, -0.2520814222562, 0.1427441172764, -0.1399029298475, 0.4000217873974, 0.05025747127783,
            0.1013562369318, 0.5009848416321, -0.3333347148402, -0.2898572323349, -0.209997297047, -0.3493455918263,
            0.3104356982262, 0.1694647143275, -0.2399291616249, -0.2319580329285, 0.2829782185618, 0.2269873591785,
            -0.3133245671221, 0.599795859482, 0.08436485908827, -0.3395209882726]),
        'grad_weight_ih_l1_reverse': ((4, 8), [0.5080116484439, 0.8358214831079, 1.725579367244, -1.109893643288,
            0.8753593163817, -1.772673011244, -1.585665253413, 2.156917254412, -0.09463470625183, 1.084559777224,
            0.1471037054299, 0.004083449319041, 0.8075327949301, 0.09875696432397, -1.673846861287, 1.102641435874,
            -0.1671591033206, -0.8786429753393, -0.3989781875708, 0.1182560337745, -0.1828014269252, 0.6661785815559,
            0.110076431396, -0.2005310469341, 1.235764225643, 0.09204986242437, 0.8340470026708, -3.059893960856,
            1.739507480118, -2.49238972551, 0.5106238960801, 0.4314701077831]),
        'grad_bias_hh_l0': ((4,), [-2.928609271152, -2.209673994165, 1.621036182543, -0.7691609753939]),
    },
    'rnn_batch_first_no_bias': {
        'out0': ((2, 3, 4), [0.1147543767808, 0.5666507092963, 0.6070416688057, -0.631026443214, -0.2810653223229,
            0.4900185143758, 0.3783051755565, 0.1309306558909, -0.6085374380412, 0.01902096299418, -0.2393443312831,
            -0.01567155792891, -0.8522192564668, -0.0653364089121, 0.2862324742373, 0.2478903535356, -0.05372802349109,
            0.258001184718, -0.1860802128545, -0.09227912188375, 0.206595694957, 0.2963793602742, -0.01241341284111,
            0.335538653118]),
        'out1': ((2, 2, 4), [0.7368616736045, -0.583608081481, 0.3004264767166, 0.5602967554026, -0.1451674607229,
            0.6854216804106, -0.2718388233832, -0.8720140578302, -0.6085374380412, 0.01902096299418, -0.2393443312831,
            -0.01567155792891, 0.206595694957, 0.2963793602742, -0.01241341284111, 0.335538653118]),
        'grad_input': ((2, 3, 3), [-0.1817656448097, 0.2475977170733, 0.2886957833389, 0.4201979910522,
            0.6522902957403, 0.1238259219686, -0.01151439736201, 0.343778951703, -0.1776953559785, -0.5737380112369,
            -0.06528270863408, -0.411432468216, 0.3830915793148, -0.5451882286509, -0.6425528106974, -0.6618531434898,
            -0.2689070098954, 0.2800882171585]),
        'grad_state0': ((2, 2, 4), [0.3540428601884, -0.6556726105851, 0.1988157869013, -0.7192890022232,
            -0.2207982166394, -0.3560906618408, 0.2241298946053, 0.6833347699095, 0.02382533078243, 0.04059061676897,
            -0.685333733876, 0.8078063604686, 0.8530748176611, 1.634639201156, -0.5270447720917, 1.341507926601]),
        'grad_weight_ih_l1': ((4, 4), [0.4525398682142, -0.6338526939017, 0.104616946201, 0.1671107208546,
            0.1699551150948, 0.1968117412255, -0.1388285847158, 0.3832241204083, -0.3342642347781, -0.6176786107123,
            -0.8769815302883, -0.5507871391058, 2.931840161881, 1.18196898701, 1.07194559578, 1.165863404015]),
        'grad_weight_hh_l0': ((4, 4), [-0.1332751289856, -1.013798782475, 0.1004825018066, 1.431063572276,
            0.07191259047107, -0.9600938579829, -1.004230337313, 1.090286654753, 1.828824376259, -1.404275680016,
            0.1867183689641, 5.058153140033, -0.829041490423, -0.9009140595203, -0.3889210729381, -0.9938129220902]),
    },
    'rnn_cell': {
        'out0': ((2, 4), [-0.003858770727134, 0.4503651740231, -0.9693787694129, 0.1537168404319, 0.7709766279989,
            -0.2337512310773, 0.09349527700124, 0.3772169175463]),
        'grad_input': ((2, 3), [0.4015418352717, -0.4112752630418, -0.2407009802411, 0.01156859116896,
            -0.8314445999546, 1.777157211873]),
        'grad_state0': ((2, 4), [-0.8526533220606, 0.2820862798387, 0.9101049876104, 0.6804048475554, -0.9798351382628,
            0.8163512178034, 0.1507833869033, 0.3730490791317]),
        'grad_weight_hh': ((4, 4), [0.3432436545976, 0.082924329003, 0.1365050278015, -0.3379691959766,
            -1.857743077552, -0.3049587296676, -1.230587408976, -2.816810683466, -0.9975886689462, -0.1604102632616,
            -0.6722628574749, -1.620772398756, 0.827098355741, 0.1499071063169, 0.4995583853928, 0.7975979256126]),
        'grad_bias_ih': ((4,), [0.9096521284833, -2.005204308793, -1.008830308129, 1.179470489151]),
    },
    'rnn_cell_relu_no_hx': {
        'out0': ((2, 4), [0.135881828547, 0.2053343849091, 0, 0.79897293406, 0, 0.09541686849812, 0.277200537703,
            1.364328251675]),
        'grad_input': ((2, 3), [-1.317469912149, 0.862865400868, -0.08351722884394, -0.02658036892385, 0.1654961964683,
            -0.01924118215129]),
        'grad_weight_ih': ((4, 3), [-0.4235226548542, 0.8934566080763, -0.2005937024973, 1.494752705021,
            -0.5415834250853, -0.5304376769383, 1.083809717224, -0.4166662772281, -0.3732386131327, -0.5271532501351,
            0.03429225447887, 0.2613749953183]),
        'grad_bias_hh': ((4,), [-2.435417416344, -1.438260209586, -0.9507340805092, 1.109265724454]),
    },
    'rnn_relu': {
        'out0': ((3, 2, 4), [2.054635017781, 2.583337762816, 0, 1.860504682171, 0, 0.3470532290718, 0.1391355440808,
            1.713571911574, 1.203483661954, 1.390826010726, 0, 0.1275172598558, 0, 0, 0, 0, 1.132605508488,
            1.122490875278, 0, 0.9224381213425, 0.667301806944, 0.9591828974536, 0, 0]),
        'out1': ((1, 2, 4), [1.132605508488, 1.122490875278, 0, 0.9224381213425, 0.667301806944, 0.9591828974536, 0,
            0]),
        'grad_input': ((3, 2, 3), [0.6642863161043, -1.54391051637, 0.4517534435793, -0.7546824411333, 0.8488733881466,
            0.01285624157156, 0.2310973174897, -0.4191287531688, 0.3773173087336, 0, 0, 0, 1.768232143275,
            -1.66664521999, -0.1789488720915, -0.5421005627527, 0.6132335288587, 0.07643764682835]),
        'grad_state0': ((1, 2, 4), [-0.7168396775562, -1.364077053324, -1.1027509425, 0.5034392491296, 0.7535834602507,
            0.3418908150257, -0.1372363258822, 0.9741554846965]),
        'grad_weight_ih_l0': ((4, 3), [-0.1066853517499, -1.680357972242, 0.4595506010038, 0.4654961941119,
            -0.7839591704212, -2.362399919864, 1.46221944113, 0.005588182748372, 0.1432820289012, 0.4645533899755,
            1.904177885087, 0.6210339011055]),
        'grad_bias_hh_l0': ((4,), [-3.542961597577, -2.093962157299, -1.275477102703, -0.2452114877152]),
    },
    'rnn_tanh': {
        'out0': ((3, 2, 4), [0.02893388778593, 0.867916672692, 0.1415416519317, -0.7528185336231, -0.5972242080852,
            0.8881743851942, 0.542953760233, 0.2134156786399, 0.2025479783289, 0.5682688856887, -0.6091936170903,
            -0.6538277245582, -0.6388868958483, 0.7527067679664, -0.09530627255587, -0.3179966003073, -0.3873955352647,
            -0.6859034642833, -0.01157452069762, 0.6262675691036, 0.06092100068423, 0.9012768557753, -0.6132937047464,
            -0.9010374868595]),
        'out1': ((1, 2, 4), [-0.3873955352647, -0.6859034642833, -0.01157452069762, 0.6262675691036, 0.06092100068423,
            0.9012768557753, -0.6132937047464, -0.9010374868595]),
        'grad_input': ((3, 2, 3), [-0.4913382573642, 0.3867921478751, -0.1144499357618, -0.5347559824165,
            -0.09312569850983, 0.1782634474154, 0.6903552386346, 0.7502334254308, -0.1080128177595, -0.8971789706882,
            0.1112960654337, -0.06766268962645, 0.2627501926991, -0.975771071916, 0.2670162460899, -0.9491119604005,
            1.96315052966, -0.6080493672338]),
        'grad_state0': ((1, 2, 4), [0.09939978629266, 0.4076920692234, 0.142884791255, 0.1395604951927,
            0.3252539801474, 0.4369658492191, -0.1677220611546, -0.03104426710051]),
        'grad_weight_hh_l0': ((4, 4), [-3.802839578008, 3.402755039252, 2.72106028381, 0.6542854112514,
            -0.5148453910509, 1.391840851397, 0.1802324493262, -0.1683624532045, 1.996410290891, 0.07480138904213,
            -1.880967287397, -1.548149947764, 0.4450892586093, 0.9493692634308, -0.5083675762862, -1.609923351347]),
        'grad_bias_ih_l0': ((4,), [4.895582790941, 2.227141232839, -1.434143943454, 0.4159277258212]),
    },
}
# END EXPECTED
