"""Recurrent modules (``nn.RNN``/``LSTM``/``GRU`` and their cells) against PyTorch 2.15.

Values: each case sets every parameter, in ``named_parameters()`` order, from a seeded numpy
generator, then draws the input, the initial states and the weights of a scalar loss
``sum(output * w_out) + sum(h_n * w_h) (+ sum(c_n * w_c))`` from the same generator. ``EXPECTED`` (at
the end of the file) holds the outputs and the gradients of that loss that torch computed for the
same numbers, in float64 (written as literals: no torch here). cpu runs every case; cuda (real or
Triton's interpreter) a few, as the interpreter is slow. ``PACKED_CASES``/``EXPECTED_PACKED`` do the
same over a ``PackedSequence`` (packed output data, the padded output, h_n/c_n in the caller's batch
order, gradients w.r.t. the padded input, the initial states and a weight). Then: parameter names,
shapes, order, ``state_dict`` keys, initialisation, ``repr``, dropout between layers, and PyTorch's errors.
"""

from __future__ import annotations

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


# -- autocast ------------------------------------------------------------------------------------------
def _seeded_lstm():
    m = nn.LSTM(2, 3)
    rng = np.random.default_rng(0)
    with tl.no_grad():
        for _, p in m.named_parameters():
            p.copy_(tl.tensor(rng.uniform(-0.6, 0.6, tuple(p.shape)), dtype=tl.float32))
    x = tl.tensor(rng.standard_normal((3, 2, 2)), dtype=tl.float32)
    h0 = tl.tensor(rng.standard_normal((1, 2, 3)), dtype=tl.float32)
    return m, x, h0


def test_lstm_under_cpu_autocast_runs_in_bfloat16_as_pytorchs_onednn_layer():
    # PyTorch's cpu LSTM is oneDNN's mkldnn_rnn_layer, on autocast's lower-precision list: the input, the
    # float32 states and the weights are cast, so output, h_n and c_n are all bfloat16 (the gate ops alone
    # would keep c's float32). Values: PyTorch 2.15's for the same numbers.
    m, x, h0 = _seeded_lstm()
    with tl.autocast("cpu"):
        out, (h, c) = m(x, (h0, h0 * 0.5))
    assert (out.dtype, h.dtype, c.dtype) == (tl.bfloat16,) * 3
    np.testing.assert_allclose(to_numpy(h.float()).ravel(), [-0.0840, 0.1069, 0.1904, 0.0178, 0.1748, -0.2793],
                               atol=1.5e-2)
    np.testing.assert_allclose(to_numpy(c.float()).ravel(), [-0.2480, 0.2793, 0.2754, 0.0381, 0.2520, -0.4277],
                               atol=1.5e-2)
    np.testing.assert_allclose(to_numpy(out[0].float()).ravel(), [0.1289, 0.3555, 0.0664, -0.1172, -0.1738, -0.5547],
                               atol=1.5e-2)
    out.float().sum().backward()
    assert m.weight_hh_l0.grad.dtype == tl.float32
    # packed or with projections PyTorch runs its composition instead: c keeps the state's float32
    with tl.autocast("cpu"):
        _, (h, c) = nn.LSTM(2, 3, proj_size=2)(x)
    assert (h.dtype, c.dtype) == (tl.bfloat16, tl.float32)


@pytest.mark.skipif(not CUDA, reason="needs cuda (real or Triton's interpreter)")
def test_rnns_and_cells_under_cuda_autocast_run_in_float16():
    # on cuda PyTorch's modules are cuDNN's _cudnn_rnn and its cells lstm_cell/gru_cell/rnn_*_cell, all on
    # autocast's lower-precision list: every state comes out float16, float32 ones given included
    m, x, h0 = _seeded_lstm()
    m, x, h0 = m.to("cuda"), x.to("cuda"), h0.to("cuda")
    ref, (ref_h, ref_c) = m(x, (h0, h0))
    with tl.autocast("cuda"):
        out, (h, c) = m(x, (h0, h0))
        gru_out, gru_h = nn.GRU(2, 3, device="cuda")(x, h0)
        cell_h, cell_c = nn.LSTMCell(2, 3, device="cuda")(x[0], (h0[0], h0[0]))
        gru_cell_h = nn.GRUCell(2, 3, device="cuda")(x[0], h0[0])
    assert {t.dtype for t in (out, h, c, gru_out, gru_h, cell_h, cell_c, gru_cell_h)} == {tl.float16}
    np.testing.assert_allclose(to_numpy(c.float()), to_numpy(ref_c), atol=5e-3)


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
    # a stacked (2, layers, N, H) hx was read as (h_0, c_0); PyTorch's lstm takes only a tuple there
    (lambda: nn.LSTM(3, 4)(z(5, 2, 3), z(2, 1, 2, 4)), TypeError,
     "LSTM: hx must be a tuple (h_0, c_0) of Tensors, got a Tensor of shape [2, 1, 2, 4]"),
    (lambda: nn.LSTM(3, 4)(z(5, 2, 3), (z(1, 2, 4),) * 3), RuntimeError, "lstm expects two hidden states, got 3"),
    (lambda: nn.LSTMCell(3, 4)(z(2, 3), z(2, 2, 4)), TypeError,
     "LSTMCell: argument 'hx' must be a tuple of Tensors (h, c), not a Tensor of shape [2, 2, 4]"),
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


# -- PackedSequence input ------------------------------------------------------------------------------
# name: (module, constructor kwargs, padded input shape, lengths, enforce_sorted, hx given,
#        parameters whose gradients are checked, run on cuda too). Every module is 2 layers, bidirectional.
PACKED_CASES = {
    "lstm_packed_unsorted_hx": ("LSTM", {}, (4, 3, 3), [2, 4, 1], False, True, ["weight_hh_l0_reverse"], True),
    "gru_packed_batch_first_sorted": ("GRU", {"batch_first": True}, (3, 4, 3), [4, 3, 1], True, False,
                                      ["weight_ih_l1"], False),
    "rnn_packed_unsorted_hx": ("RNN", {}, (4, 3, 3), [3, 1, 4], False, True, ["weight_hh_l0"], True),
    "lstm_packed_proj_batch_first_ties": ("LSTM", {"proj_size": 2, "batch_first": True}, (4, 4, 3), [2, 4, 2, 3],
                                          False, True, ["weight_hr_l1_reverse"], False),
    "gru_packed_unsorted_no_hx": ("GRU", {}, (3, 3, 3), [1, 3, 2], False, False, ["bias_hh_l1_reverse"], False),
}


def draw_packed(case: str, param_shapes, output_shapes=None):
    """The numbers of a packed case (as ``draw``): parameters, padded input, initial states (in the
    caller's batch order) and, given the output shapes, the loss weights."""
    kind, kwargs, in_shape, _, _, hx_given, _, _ = PACKED_CASES[case]
    rng = np.random.default_rng(100 + sorted(PACKED_CASES).index(case))
    params = [rng.uniform(-0.6, 0.6, shape) for shape in param_shapes]
    x = rng.standard_normal(in_shape)
    batch = in_shape[0] if kwargs.get("batch_first") else in_shape[1]
    states = None
    if hx_given:
        states = [rng.standard_normal((4, batch, kwargs.get("proj_size") or 4))]
        if kind == "LSTM":
            states.append(rng.standard_normal((4, batch, 4)))
    weights = None if output_shapes is None else [rng.standard_normal(s) for s in output_shapes]
    return params, x, states, weights


def run_packed_case(case: str, device: str):
    """Pack the padded input, run the module, pad the packed output back; outputs (packed data, padded
    output, h_n, c_n) and the gradients of ``sum(padded * w0) + sum(h_n * w1) (+ sum(c_n * w2))``
    w.r.t. the padded input, the initial states and the listed parameters, as numpy float64; and
    the packed output's batch_sizes and indices."""
    from tensorlab.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

    kind, kwargs, _, lengths, enforce_sorted, _, grad_params, _ = PACKED_CASES[case]
    m = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True, **kwargs, device=device, dtype=tl.float64)
    named = list(m.named_parameters())
    params, x, states, _ = draw_packed(case, [tuple(p.shape) for _, p in named])
    with tl.no_grad():
        for (_, p), value in zip(named, params):
            p.copy_(tl.tensor(value))
    tx = tl.tensor(x, device=device, requires_grad=True)
    packed = pack_padded_sequence(tx, lengths, batch_first=m.batch_first, enforce_sorted=enforce_sorted)
    ts = None if states is None else [tl.tensor(s, device=device, requires_grad=True) for s in states]
    out, hidden = m(packed) if ts is None else m(packed, tuple(ts) if kind == "LSTM" else ts[0])
    assert isinstance(out, PackedSequence) and out.data.device.type == device
    padded, out_lengths = pad_packed_sequence(out, batch_first=m.batch_first)
    assert out_lengths.tolist() == lengths and out_lengths.device.type == "cpu"
    outs = [padded, *(hidden if kind == "LSTM" else (hidden,))]
    _, _, _, weights = draw_packed(case, [tuple(p.shape) for _, p in named], [tuple(o.shape) for o in outs])
    loss = sum((o * tl.tensor(w, device=device)).sum() for o, w in zip(outs, weights))
    loss.backward()
    got = {"data": to_numpy(out.data.detach())}
    got.update({f"out{i}": to_numpy(o.detach()) for i, o in enumerate(outs)})
    got["grad_input"] = to_numpy(tx.grad)
    for i, st in enumerate(ts or []):
        got[f"grad_state{i}"] = to_numpy(st.grad)
    for name in grad_params:
        got[f"grad_{name}"] = to_numpy(dict(named)[name].grad)
    fields = [out.batch_sizes.tolist()] + [None if t is None else t.tolist()
                                            for t in (out.sorted_indices, out.unsorted_indices)]
    assert out.batch_sizes is packed.batch_sizes and out.batch_sizes.device.type == "cpu"
    return {k: v.astype(np.float64) for k, v in got.items()}, fields


def _check_packed(case: str, device: str) -> None:
    got, fields = run_packed_case(case, device)
    expected = EXPECTED_PACKED[case]
    assert fields == expected["fields"]
    assert sorted(got) == sorted(k for k in expected if k != "fields")
    for key in got:
        shape, values = expected[key]
        assert got[key].shape == shape, (case, key)
        np.testing.assert_allclose(got[key].ravel(), values, rtol=1e-10, atol=1e-11, err_msg=f"{case}: {key}")


@pytest.mark.parametrize("case", sorted(PACKED_CASES))
def test_packed_input_matches_pytorch_cpu(case):
    _check_packed(case, "cpu")


@pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
@pytest.mark.parametrize("case", sorted(c for c in PACKED_CASES if PACKED_CASES[c][7]))
def test_packed_input_matches_pytorch_cuda(case):
    _check_packed(case, "cuda")


def test_packed_input_equals_each_sequence_run_alone():
    # a packed batch is the same computation as each sequence by itself, unpadded
    from tensorlab.nn.utils.rnn import pack_sequence, unpack_sequence

    m = nn.GRU(3, 4, num_layers=2, bidirectional=True).double()
    rng = np.random.default_rng(5)
    seqs = [tl.tensor(rng.standard_normal((n, 3))) for n in (2, 5, 1)]
    out, h_n = m(pack_sequence(seqs, enforce_sorted=False))
    for b, (seq, seq_out) in enumerate(zip(seqs, unpack_sequence(out))):
        alone, h_alone = m(seq)
        np.testing.assert_allclose(to_numpy(seq_out), to_numpy(alone), rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(to_numpy(h_n[:, b]), to_numpy(h_alone), rtol=1e-13, atol=1e-14)


def test_packed_input_errors_are_pytorchs():
    from tensorlab.nn.utils.rnn import PackedSequence, pack_padded_sequence

    packed = pack_padded_sequence(z(3, 2, 3), [3, 2])
    with pytest.raises(RuntimeError, match=re.escape("Expected hidden size (1, 2, 4), got [1, 4]")):
        nn.GRU(3, 4)(packed, z(1, 4))
    with pytest.raises(RuntimeError, match=re.escape("Expected hidden[1] size (1, 2, 4), got [1, 3, 4]")):
        nn.LSTM(3, 4)(packed, (z(1, 2, 4), z(1, 3, 4)))
    with pytest.raises(RuntimeError, match=re.escape("input.size(-1) must be equal to input_size. Expected 5, got 3")):
        nn.RNN(5, 4)(packed)
    with pytest.raises(ValueError, match=re.escape("RNN input dtype (tensorlab.float32) does not match weight dtype "
                                                   "(tensorlab.float64)")):
        nn.RNN(3, 4).double()(packed)
    bad = PackedSequence(z(5, 3), tl.tensor([2, 2]))
    with pytest.raises(RuntimeError, match=re.escape("GRU: PackedSequence batch_sizes [2, 2] must be positive, "
                                                     "non-increasing and sum to the 5 rows of data")):
        nn.GRU(3, 4)(bad)


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


EXPECTED_PACKED = {
    'gru_packed_batch_first_sorted': {
        'fields': [[3, 2, 2, 1], None, None],
        'data': ((8, 8), [0.1174700857577, 0.1411633785207, -0.2410668639755, 0.05648850032248, -0.6322525840933,
            -0.1176283300322, 0.0355261414757, -0.4255972480514, 0.2995146063349, 0.02372947039597, -0.2042560132038,
            0.1944847271582, -0.636155199308, 0.02199984420251, 0.05082652356784, -0.4473635552916, 0.2758638956479,
            0.1544280817756, -0.2375583709801, 0.1647325948434, -0.2490708837661, -0.04242510464726, 0.1148633283532,
            -0.4304354356968, 0.1983468593568, 0.1999885416865, -0.401945115987, 0.2779799812126, -0.592120583672,
            0.02415178897135, 0.137002673239, -0.470586967923, 0.5369908271898, 0.0454203453011, -0.345608382375,
            0.4075318616548, -0.4325059130234, 0.08143681756721, 0.1098806798088, -0.5362523003506, 0.4557064976527,
            0.140424492886, -0.5014288352581, 0.5382290184171, -0.5189933996409, 0.1265000333514, 0.2366626295705,
            -0.4750235416964, 0.4753219562283, 0.2188179521226, -0.5012678578516, 0.3125390077029, -0.1385303319966,
            -0.02875429307741, 0.07606485535292, -0.4258830037672, 0.5953135395252, 0.183306107522, -0.5375518707721,
            0.5867000714505, -0.2992393129459, 0.09923023367352, 0.2285474060535, -0.4976049576272]),
        'out0': ((3, 4, 8), [0.1174700857577, 0.1411633785207, -0.2410668639755, 0.05648850032248, -0.6322525840933,
            -0.1176283300322, 0.0355261414757, -0.4255972480514, 0.1983468593568, 0.1999885416865, -0.401945115987,
            0.2779799812126, -0.592120583672, 0.02415178897135, 0.137002673239, -0.470586967923, 0.4557064976527,
            0.140424492886, -0.5014288352581, 0.5382290184171, -0.5189933996409, 0.1265000333514, 0.2366626295705,
            -0.4750235416964, 0.5953135395252, 0.183306107522, -0.5375518707721, 0.5867000714505, -0.2992393129459,
            0.09923023367352, 0.2285474060535, -0.4976049576272, 0.2995146063349, 0.02372947039597, -0.2042560132038,
            0.1944847271582, -0.636155199308, 0.02199984420251, 0.05082652356784, -0.4473635552916, 0.5369908271898,
            0.0454203453011, -0.345608382375, 0.4075318616548, -0.4325059130234, 0.08143681756721, 0.1098806798088,
            -0.5362523003506, 0.4753219562283, 0.2188179521226, -0.5012678578516, 0.3125390077029, -0.1385303319966,
            -0.02875429307741, 0.07606485535292, -0.4258830037672, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.2758638956479, 0.1544280817756, -0.2375583709801, 0.1647325948434, -0.2490708837661, -0.04242510464726,
            0.1148633283532, -0.4304354356968, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        'out1': ((4, 3, 4), [0.518869513569, -0.1395577875911, 0.01099028096602, -0.7364412535285, 0.2434884492697,
            -0.1722383816351, 0.1436175360265, 0.1723928271614, 0.2883593615291, 0.08550484333407, 0.3237376372897,
            -0.3967965992521, -0.5934400225692, 0.1638963716797, 0.2923514936154, -0.1800566587546, -0.717793676236,
            0.3656030988838, 0.1922550749732, -0.4075988621974, -0.4333240894689, -0.03926028312996,
            -0.007444753165184, -0.1759591143906, 0.5953135395252, 0.183306107522, -0.5375518707721, 0.5867000714505,
            0.4753219562283, 0.2188179521226, -0.5012678578516, 0.3125390077029, 0.2758638956479, 0.1544280817756,
            -0.2375583709801, 0.1647325948434, -0.6322525840933, -0.1176283300322, 0.0355261414757, -0.4255972480514,
            -0.636155199308, 0.02199984420251, 0.05082652356784, -0.4473635552916, -0.2490708837661,
            -0.04242510464726, 0.1148633283532, -0.4304354356968]),
        'grad_input': ((3, 4, 3), [0.1837824705045, 1.317234444951, 0.5656189100075, 0.09343193446379,
            1.163107827285, 0.4917648057913, -0.01743423837054, -0.01046236286322, -0.002488525678403,
            0.1004997964909, -0.05315561069186, -0.06170628422607, 0.3911112290272, 0.2986067933176, 0.2471952730979,
            0.1614775660539, 0.1461025541338, 0.1347715026465, 0.3447951324415, -0.01177599906591, 0.1287017035495,
            0.0, 0.0, 0.0, 0.6543621499894, -0.3722035335346, -0.6930309194744, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0]),
        'grad_weight_ih_l1': ((12, 8), [-0.02514394317967, -0.01599312693844, -0.02575604494462, 0.06506185950065,
            0.06411038334269, 0.001857520656653, -0.007403160055432, 0.02332310435314, 0.02307983418266,
            -0.009669194955849, -0.000939906803296, -0.02253617699037, 0.001232711666212, 0.02233382992541,
            0.01652223005731, -0.01176657006102, 0.02630129659867, -0.004697402535407, 0.005252345833584,
            -0.04216387686161, -0.02225715078944, 0.03496985286631, 0.004650212644419, -0.03229505096303,
            -0.1172318331454, -0.0101752828354, -0.05024726212739, 0.2529224279993, 0.1553164998259,
            -0.1685569406799, -0.01109956439631, 0.1782726163084, 0.1138193325911, 0.03699864032279, 0.1101441336659,
            -0.2170276120038, -0.1967655307861, 0.05977460327673, 0.04993641011691, -0.1135000712979,
            -0.07020373094748, 0.02101445570565, -0.04690621174416, 0.03237300420373, 0.02982465637104,
            -0.05641300758552, -0.08133304800776, 0.03661980954197, -0.05113451677476, -0.008831008457565,
            -0.05878577632217, 0.1083431274198, 0.1331753272182, -0.08564775890634, -0.00877047937063,
            0.1031613023727, -0.1274113462869, -0.00884193543461, -0.09475281556637, 0.2378550531089,
            0.1889062481068, -0.2119273124171, -0.04147634899715, 0.2135033293798, -0.1986132385662, -0.323943788349,
            -0.2330167976143, 0.9995382080312, 0.9226651583291, 0.1170625622416, 0.09992593797594, 0.3233465624408,
            0.2343610689631, -0.1208907282822, 0.0003131561360602, -0.01430732814766, 0.1441538713451,
            0.001375121510046, 0.2099095738103, 0.07776833413375, -0.3413121952061, 0.05398409571584,
            -0.08600772011022, 0.5567291639701, 0.3223913710452, -0.4563528846888, -0.05620541406178,
            0.4328402910253, 1.401079010886, 0.08847480431171, 0.6038267763808, -2.938595177746, -1.822049859831,
            2.100062232877, 0.1193635823704, -2.179734755146]),
    },
    'gru_packed_unsorted_no_hx': {
        'fields': [[3, 2, 1], [1, 2, 0], [2, 0, 1]],
        'data': ((6, 8), [-0.1740574315154, -0.2202597122293, 0.1547915416982, -0.03053855751487, 0.1224504662294,
            -0.2979357042324, 0.3201788785806, -0.136899542196, -0.1999337092916, -0.2242876465353, 0.2088683751972,
            0.0895159065682, 0.06644504528399, -0.253076693253, 0.1550973717464, -0.1496389178294, -0.1906292013136,
            -0.2271458470255, 0.1937485721262, 0.04795661526593, 0.03986961606378, -0.1636527042698, 0.131507952405,
            -0.07844328465342, -0.2946783793974, -0.3212230578642, 0.2315488236932, 0.02294097636504,
            0.08247463811473, -0.3406816254667, 0.2156841397564, -0.2727900332761, -0.3020434782459,
            -0.2984439147894, 0.3347448283499, 0.08929452533578, 0.09754399404279, -0.2493898381152, 0.0951134172421,
            -0.2166617307841, -0.4175356369665, -0.3969819301078, 0.2995199755464, 0.08562909429819,
            0.005203473352202, -0.2247137370535, 0.1263051333063, -0.1585841706738]),
        'out0': ((3, 3, 8), [-0.1906292013136, -0.2271458470255, 0.1937485721262, 0.04795661526593, 0.03986961606378,
            -0.1636527042698, 0.131507952405, -0.07844328465342, -0.1740574315154, -0.2202597122293, 0.1547915416982,
            -0.03053855751487, 0.1224504662294, -0.2979357042324, 0.3201788785806, -0.136899542196, -0.1999337092916,
            -0.2242876465353, 0.2088683751972, 0.0895159065682, 0.06644504528399, -0.253076693253, 0.1550973717464,
            -0.1496389178294, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.2946783793974, -0.3212230578642,
            0.2315488236932, 0.02294097636504, 0.08247463811473, -0.3406816254667, 0.2156841397564, -0.2727900332761,
            -0.3020434782459, -0.2984439147894, 0.3347448283499, 0.08929452533578, 0.09754399404279,
            -0.2493898381152, 0.0951134172421, -0.2166617307841, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            -0.4175356369665, -0.3969819301078, 0.2995199755464, 0.08562909429819, 0.005203473352202,
            -0.2247137370535, 0.1263051333063, -0.1585841706738, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        'out1': ((4, 3, 4), [-0.3355063167532, -0.1358516679076, -0.1837244564243, -0.1525534939909,
            -0.5480132186309, -0.3907922766302, -0.5060976689949, 0.02410172535172, -0.6426480835581,
            -0.4312413016144, -0.2922286699051, -0.2684425239721, 0.1416692514625, -0.1272793245181,
            -0.1573381279376, 0.09122440565086, 0.113031343003, -0.06317829044605, -0.3097186213905, 0.3102981995631,
            0.419322799096, -0.3120142105273, -0.2338008075768, 0.02688102771664, -0.1906292013136, -0.2271458470255,
            0.1937485721262, 0.04795661526593, -0.4175356369665, -0.3969819301078, 0.2995199755464, 0.08562909429819,
            -0.3020434782459, -0.2984439147894, 0.3347448283499, 0.08929452533578, 0.03986961606378,
            -0.1636527042698, 0.131507952405, -0.07844328465342, 0.1224504662294, -0.2979357042324, 0.3201788785806,
            -0.136899542196, 0.06644504528399, -0.253076693253, 0.1550973717464, -0.1496389178294]),
        'grad_input': ((3, 3, 3), [-0.2471680442529, 0.4086152332558, -0.5955826245695, -0.4002837804881,
            -0.002025129334409, 0.789135486211, -0.3288625890713, 0.08147567408734, 0.05933787238968, 0.0, 0.0, 0.0,
            -0.3144690036996, -0.1012288842477, 0.3850184383279, -0.02252853716638, 0.02046872524199,
            0.06502857875115, 0.0, 0.0, 0.0, -0.2551901094695, -0.06135280838937, 0.04093030039547, 0.0, 0.0, 0.0]),
        'grad_bias_hh_l1_reverse': ((12,), [0.00265598412091, 0.1107922845268, -0.02237109692388, -0.05819661193027,
            -0.06980801410584, -0.1474073141098, -0.06130108575247, -0.2814521137541, 0.2888181816775,
            -0.2022903486206, 0.3131966176361, -1.508426174077]),
    },
    'lstm_packed_proj_batch_first_ties': {
        'fields': [[4, 4, 2, 1], [1, 3, 0, 2], [2, 0, 3, 1]],
        'data': ((11, 4), [0.1488915281353, -0.08124470314215, -0.1960433587425, -0.1132633572102, -0.0995711067577,
            0.2171298165391, -0.1859442715542, -0.1962900979745, -0.2729142720012, 0.2401556219667,
            -0.07676958089481, -0.1839570007004, 0.0431714207412, -0.4322558959609, -0.3448930353496,
            -0.1369177919867, 0.1577684235151, 0.05561598057689, -0.1582108655619, -0.06907029470468,
            -0.02551531827761, 0.2188281059308, -0.1718446651474, -0.183811080289, -0.1200463751331, 0.2072227896964,
            0.03049661709134, -0.1663545244258, -0.004727646124876, -0.1872876881199, -0.4159678688365,
            -0.05903173368342, 0.1235426708137, 0.1630127076471, -0.107922398819, -0.00303614005373,
            0.02102892360794, 0.234838290621, -0.1576721371648, -0.1480080871819, 0.1083304774238, 0.2352640999408,
            -0.01847237595589, 0.04645729806472]),
        'out0': ((4, 4, 4), [-0.2729142720012, 0.2401556219667, -0.07676958089481, -0.1839570007004,
            -0.1200463751331, 0.2072227896964, 0.03049661709134, -0.1663545244258, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.1488915281353, -0.08124470314215, -0.1960433587425, -0.1132633572102, 0.1577684235151,
            0.05561598057689, -0.1582108655619, -0.06907029470468, 0.1235426708137, 0.1630127076471, -0.107922398819,
            -0.00303614005373, 0.1083304774238, 0.2352640999408, -0.01847237595589, 0.04645729806472,
            0.0431714207412, -0.4322558959609, -0.3448930353496, -0.1369177919867, -0.004727646124876,
            -0.1872876881199, -0.4159678688365, -0.05903173368342, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            -0.0995711067577, 0.2171298165391, -0.1859442715542, -0.1962900979745, -0.02551531827761,
            0.2188281059308, -0.1718446651474, -0.183811080289, 0.02102892360794, 0.234838290621, -0.1576721371648,
            -0.1480080871819, 0.0, 0.0, 0.0, 0.0]),
        'out1': ((4, 4, 2), [-0.07345236350055, 0.005324511845807, -0.1304967722995, 0.2216185188732,
            -0.1470021169247, -0.03377617113741, -0.1046833703604, 0.09026352289355, 0.2079948894537,
            -0.1539983805754, 0.1066637771756, -0.04836565277853, 0.02207875870983, 0.0157554874736,
            0.02566630738681, -0.139532332427, -0.1200463751331, 0.2072227896964, 0.1083304774238, 0.2352640999408,
            -0.004727646124876, -0.1872876881199, 0.02102892360794, 0.234838290621, -0.07676958089481,
            -0.1839570007004, -0.1960433587425, -0.1132633572102, -0.3448930353496, -0.1369177919867,
            -0.1859442715542, -0.1962900979745]),
        'out2': ((4, 4, 4), [-1.445940955613, 0.06738869727609, 0.364510768464, 0.01041884951691, -1.302554834013,
            0.3848476476402, -0.2878556410624, 0.3392086455957, -1.036893327558, 0.202909520654, -0.3317561232924,
            -0.5851040950796, -0.7319172483857, -0.07729696144333, -0.3642179252477, 0.03359267276207,
            -0.333637913673, -0.3634179026098, 0.06268443356514, -0.7373341753614, -0.1032479283175,
            -0.2834870029274, -0.001915943337524, -0.5834654679551, -0.1335223438139, -0.3343925998739,
            -0.07756792355735, -0.1861095689216, -0.2913246968083, -0.4921811841732, 0.4642247774988,
            -0.2821401995072, -0.9155251891679, 0.6659039814712, -0.02072126338368, -0.1461867358617,
            -0.3493699413653, 0.5089901784988, 0.5114695575348, 0.01940947696939, 0.1870905918086, 1.068512327976,
            -0.5355745710508, 0.1756483985528, -0.7179340295227, 0.5244464822171, 0.3435029962878, 0.02370202704698,
            -1.129788203468, 0.1573183201504, -0.00135894100239, 0.4447335952848, -0.4622999176802, -0.3019958351955,
            -0.5022538721481, 0.3446198154655, -1.579603979003, -0.3958560406462, -0.7594332129641, 0.0867666189846,
            -1.009355117904, -0.5488034034511, -0.3085714547693, 0.240803340411]),
        'grad_input': ((4, 4, 3), [0.3311356857564, 0.05531926820522, -0.206161797648, 0.1610975869717,
            0.04133675874124, 0.02418526756233, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.484597746131, 0.6280447881096,
            0.09683040229294, 0.04912832912727, -0.09245580706236, 0.003008932228106, 0.04964377599114,
            -0.06907783870091, 0.03639514170963, 0.1514945465954, -0.2131608282373, 0.1492646619541,
            0.08386383622703, -0.6067644448268, -0.001995030542608, 0.07931772303813, -0.4234041495657,
            -0.752153728495, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.03231280765051, -0.2636785270881, -0.295135667192,
            0.2004546836174, 0.3941948391254, 0.1476746397961, 0.1943177885345, 0.3875311575369, 0.1657499490763,
            0.0, 0.0, 0.0]),
        'grad_state0': ((4, 4, 2), [-0.08929183667652, -0.04855145811626, -0.03070898491612, -0.06515846691148,
            -0.1507823647713, -0.3305387725229, -0.03172506040914, 0.007474092088684, 0.1169197408619,
            0.02849150516652, 0.02349034249418, 0.04046852256709, -0.007072738508646, -0.02549683888587,
            0.09657354625119, -0.1191793040024, 0.144989827474, 0.2175417689853, -0.1171343388057, -0.1154701601981,
            0.2282570476945, -0.003735311124606, 0.01001931629808, -0.01348249829334, -0.2754943844525,
            0.02281979439647, -0.1090458233788, 0.2741476079497, -0.2281211793237, 0.1239651803185, -0.3244770223957,
            -0.08304256509086]),
        'grad_state1': ((4, 4, 4), [0.2425196249227, 0.005251377694366, 0.02150933125308, 0.2091448427594,
            0.007416630304677, 0.01136193104539, -0.0276159267347, 0.1088411974673, 0.6823949341149, 0.2162095266838,
            -0.07761057755213, 0.5074212859051, 0.04954594611227, 0.005355591989491, -0.01332087352804,
            -0.2123386256523, -0.4141080323968, -0.2355896486561, -0.0866906730489, -0.03791445168172,
            -0.1083163084065, -0.001099856885784, 0.0100940614424, 0.03837209631766, -0.08153922352828,
            -0.4494908361163, 0.03590043796976, -0.08844419406165, -0.06695723185323, 0.5732622304972,
            -0.1469559423927, 0.1170882877539, -0.2567415069391, 0.276515188381, 0.6893983383176, -0.1670114302246,
            0.111556439237, 0.03023160729836, -0.4666234534057, 0.2120805459212, 0.02023927587718, 0.4025552785078,
            0.2021356353637, -0.03325272865739, 0.4946772423149, -0.005030086505028, 0.008673923678239,
            0.08051738335311, 0.4849527907035, -0.3240750963151, -0.06132872743795, 0.04477686746136,
            -0.1765968134245, -0.08109728694942, -0.4850881807754, -0.06700315645092, 0.3484768419744,
            -0.07028100446762, 0.1343216402963, 0.04107623180187, 0.1201259369403, -0.09037664035641,
            0.5477897804641, 0.2101928350629]),
        'grad_weight_hr_l1_reverse': ((2, 4), [-2.620951841886, -0.2572006903818, -0.6601132637923, -0.9017871253578,
            2.597081492162, 0.6805548348164, 1.079160137465, -0.4250475061728]),
    },
    'lstm_packed_unsorted_hx': {
        'fields': [[3, 2, 1, 1], [1, 0, 2], [1, 0, 2]],
        'data': ((7, 8), [-0.07168023824794, -0.07226584814265, 0.3121751013323, -0.05944370161685, 0.4357471364657,
            0.5907074487219, 0.1296333879898, 0.30948138577, -0.2586483502975, -0.05147568033181, 0.302878172174,
            0.07627381049784, 0.1833305948129, 0.06512366329368, 0.06396230571284, 0.2413150938263, 0.05762424797481,
            0.06756691987233, -0.0129712232006, 0.0196099432039, 0.4821452646632, 0.08871721888678, 0.1697676443176,
            0.1647568483288, -0.06235392114485, -0.1085011772409, 0.3958875812045, -0.1646648131465, 0.4221244811325,
            0.5888300835738, 0.1398716190506, 0.3082608429581, -0.06287600457961, -0.04549770782262, 0.3743978210805,
            0.009204151315426, -0.06600084048332, -0.2902156680433, 0.04402297174634, 0.1548630017533,
            -0.06921579188821, -0.05786236247771, 0.274368953775, -0.1678403986721, 0.4446579965322, 0.530726931803,
            0.1488084757222, 0.2658051579357, -0.1071084125924, -0.04103844885631, 0.2137128947577, -0.1808030245733,
            0.4887041166168, 0.4954830286298, 0.1171912887817, 0.2174484229274]),
        'out0': ((4, 3, 8), [-0.2586483502975, -0.05147568033181, 0.302878172174, 0.07627381049784, 0.1833305948129,
            0.06512366329368, 0.06396230571284, 0.2413150938263, -0.07168023824794, -0.07226584814265,
            0.3121751013323, -0.05944370161685, 0.4357471364657, 0.5907074487219, 0.1296333879898, 0.30948138577,
            0.05762424797481, 0.06756691987233, -0.0129712232006, 0.0196099432039, 0.4821452646632, 0.08871721888678,
            0.1697676443176, 0.1647568483288, -0.06287600457961, -0.04549770782262, 0.3743978210805,
            0.009204151315426, -0.06600084048332, -0.2902156680433, 0.04402297174634, 0.1548630017533,
            -0.06235392114485, -0.1085011772409, 0.3958875812045, -0.1646648131465, 0.4221244811325, 0.5888300835738,
            0.1398716190506, 0.3082608429581, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, -0.06921579188821, -0.05786236247771, 0.274368953775, -0.1678403986721, 0.4446579965322,
            0.530726931803, 0.1488084757222, 0.2658051579357, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, -0.1071084125924, -0.04103844885631, 0.2137128947577, -0.1808030245733,
            0.4887041166168, 0.4954830286298, 0.1171912887817, 0.2174484229274, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0]),
        'out1': ((4, 3, 4), [0.2847712410606, -0.07803909809719, -0.564074967746, -0.1298349554918, 0.1811815082708,
            -0.2330108343522, -0.2818879291463, -0.3100789885147, 0.2840963985174, -0.4007747205553,
            -0.2295301844707, -0.2163284777403, 0.0474311402079, 0.03285056618316, 0.06895126291824,
            -0.08143966206027, 0.1634557379202, 0.2001662659176, 0.3163426172632, 0.09253018125542, 0.1116509921566,
            0.2377614086908, -0.05205858792849, 0.09660382780725, -0.06287600457961, -0.04549770782262,
            0.3743978210805, 0.009204151315426, -0.1071084125924, -0.04103844885631, 0.2137128947577,
            -0.1808030245733, 0.05762424797481, 0.06756691987233, -0.0129712232006, 0.0196099432039, 0.1833305948129,
            0.06512366329368, 0.06396230571284, 0.2413150938263, 0.4357471364657, 0.5907074487219, 0.1296333879898,
            0.30948138577, 0.4821452646632, 0.08871721888678, 0.1697676443176, 0.1647568483288]),
        'out2': ((4, 3, 4), [0.4108768592749, -0.3338031756951, -0.7421386789892, -0.315420912796, 0.3191342012161,
            -0.5241480832511, -0.4251240257137, -0.5309151907072, 0.6894117473291, -0.608575094323, -0.7810247578563,
            -0.2712427148939, 0.168575225962, 0.08055326594402, 0.09147519977054, -0.1773169838813, 0.518924491989,
            0.4237647139873, 0.5699267087578, 0.2243706444267, 0.3308158084863, 1.437653746766, -0.06435878131543,
            0.2605588937806, -0.1382336184098, -0.1563718761459, 0.9192163546177, 0.04266358235064, -0.1813529716956,
            -0.2613790209416, 0.5386604980262, -1.108944847011, 0.1401551082153, 0.3512002322604, -0.02092327220758,
            0.1190111716968, 0.2779064585643, 0.09306945124997, 0.2990707841057, 0.6566044632793, 0.7268901103395,
            1.548566993005, 0.5179286131489, 0.7280966697639, 1.689020503192, 0.1491572854214, 0.8133802606964,
            0.5560546710393]),
        'grad_input': ((4, 3, 3), [-0.1973650812056, 0.6188038912474, 0.3385853228931, -0.2646205969536,
            0.3825039310372, 0.2936822242369, -0.08425512677503, -0.3982915539248, 0.2290033321394, -0.2843315159178,
            0.1369585994797, -0.5387319998778, -0.488993574912, -0.2054762339131, -0.6779414072634, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, -0.6418595587478, -0.1740033247071, -0.5105734611408, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            -0.8296246717827, -0.07518079685273, -0.6469819896203, 0.0, 0.0, 0.0]),
        'grad_state0': ((4, 3, 4), [0.09238995687223, 0.1320007024075, 0.3500594700197, 0.03288822130058,
            0.2761509464024, -0.003467300180109, -0.2345765364057, -0.5037674577926, -0.4934942553603,
            -0.07442427872858, -0.08320308923313, -0.3780359968481, -0.01441543612788, -0.02931007170243,
            -0.01650219651233, 0.3065608175033, 0.01281176255824, -0.005625649609802, -0.01963767632371,
            -0.05417684352456, 0.2789252378492, -0.008549232661847, 0.5089548587255, 0.2468445120934,
            -0.2697664078384, -0.439391063099, -0.04668258306724, 0.4628575663872, 0.07400597973841,
            -0.03617468244077, -0.1190804254863, 0.1058531105286, -0.04343656769287, 0.3844027143288,
            0.1063162887581, 0.2112513342415, 0.2985998332428, 0.4715933523496, -0.5312050734995, -0.392064892103,
            0.08633178933634, 0.008689824678644, 0.05335475108856, 0.1353618149245, -0.1339251938798,
            -0.3413315885527, -0.08479377179433, 0.4729968194766]),
        'grad_state1': ((4, 3, 4), [0.7756166746397, 0.002964190840637, 0.2112921930169, 0.07379730612384,
            0.630153439971, -0.2429708726979, -0.7965760754224, 0.124381590397, -1.579612019498, 0.2979421162727,
            -0.3323661772597, 0.04533260104807, -0.4326695797088, 0.2784899014648, -0.6784361239376,
            -0.4224754143468, -0.1330356281691, 0.0240536937676, 0.005244762210141, -0.03265464353865,
            0.08239442358081, 0.09557968942047, 0.2636626733015, 0.2309441687071, -0.4143819846928,
            -0.05933977938621, 0.4420523323495, 1.21257829997, -0.0409305461162, 0.1165244692877, 0.3587064955154,
            -0.8808361429684, -0.1344184944264, 1.016525536684, -0.2385395588665, 0.6093323711864, -0.6494328307093,
            -0.2378560096264, -0.801969951307, -0.4858495521572, -0.009645892518019, 0.4517814998049,
            0.0385570759418, -0.03151102085282, -0.2553025331945, 0.5113115372112, -0.7476613841476,
            0.05853135212517]),
        'grad_weight_hh_l0_reverse': ((16, 4), [0.1224077907761, -0.146525056203, 0.1756935166724, -0.04069319961477,
            -0.1314006497858, 0.08813344083076, -0.1787335006658, -0.04735762340387, -0.4525334499805,
            0.3550964029765, -0.2036409052359, 0.5074978998894, 0.03994993843295, 0.1711803944117, -0.09342208047469,
            -0.1143223430867, -0.008730846902537, 0.0007532169352382, -0.06700729759467, 0.01031523805217,
            -0.1074376070755, 0.1540054594506, -0.1521862543731, -0.0005897492963164, 0.7075052909611,
            -0.5267829047591, 0.4336298794328, -0.5958345789679, -0.001680926356934, -0.05625202530601,
            0.1455235308463, 0.2020692175339, -0.001741016872022, -0.02657588911019, -0.03496398581393,
            -0.03122668829942, -0.02208681096824, -0.2364730155052, 0.03316473310087, -0.1134649845742,
            0.1092977051984, 0.7679462734344, -0.7149911049095, -0.6558444332835, 0.7252151219054, 0.1582673729744,
            0.1370663965115, -0.5567787064958, 0.2248664957233, -0.08400832711303, 0.00129270050617,
            -0.2385763409575, -0.1818580253872, 0.08550854306261, 0.0979138158075, 0.3686608102047, 0.04045153939017,
            -0.03795629822939, 0.03464005336206, -0.009766006027176, 0.2064367145745, -0.06842300155861,
            0.05826948822837, -0.1737093333498]),
    },
    'rnn_packed_unsorted_hx': {
        'fields': [[3, 2, 2, 1], [2, 0, 1], [1, 2, 0]],
        'data': ((8, 8), [0.09769454150148, -0.3777691376293, 0.6005419682322, -0.7299430232806, 0.3939545729188,
            -0.8787458722747, 0.9470163280092, -0.7425344285769, -0.7115539239752, -0.2344154851348,
            -0.6235793996718, -0.1417811331711, -0.02553228337581, -0.7821722026322, 0.9119037374708,
            -0.6693863260937, -0.6734006443347, 0.1650760908872, -0.6836637189395, -0.7852545978924,
            -0.7067026237079, 0.6938327249993, 0.9923468511317, 0.674489851401, -0.4659544950717, -0.7411371288487,
            0.1765264182132, -0.1635551676492, -0.4746096766238, -0.3754659327331, 0.891272631898, 0.3994175662802,
            -0.3553585185341, -0.7648831341597, 0.1652356261029, -0.6082856385684, -0.3858803180834,
            -0.5737761093068, 0.881851551279, 0.6428602181245, -0.4330309399179, -0.6445841192063, -0.1097830253922,
            -0.6719832333513, 0.551549921242, -0.7057412946118, 0.9260977717219, -0.8654517105128, -0.4152197672376,
            -0.6279441013882, 0.1559480980207, -0.4181451123926, 0.649689143914, -0.5618033532828, 0.8980839078989,
            -0.9846594611659, -0.3571726465755, -0.1309691546837, 0.05124096107621, -0.6421136112072,
            -0.9280591728013, 0.05095996653866, 0.9899781463451, 0.9509039328734]),
        'out0': ((4, 3, 8), [-0.7115539239752, -0.2344154851348, -0.6235793996718, -0.1417811331711,
            -0.02553228337581, -0.7821722026322, 0.9119037374708, -0.6693863260937, -0.6734006443347,
            0.1650760908872, -0.6836637189395, -0.7852545978924, -0.7067026237079, 0.6938327249993, 0.9923468511317,
            0.674489851401, 0.09769454150148, -0.3777691376293, 0.6005419682322, -0.7299430232806, 0.3939545729188,
            -0.8787458722747, 0.9470163280092, -0.7425344285769, -0.3553585185341, -0.7648831341597, 0.1652356261029,
            -0.6082856385684, -0.3858803180834, -0.5737761093068, 0.881851551279, 0.6428602181245, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, -0.4659544950717, -0.7411371288487, 0.1765264182132, -0.1635551676492,
            -0.4746096766238, -0.3754659327331, 0.891272631898, 0.3994175662802, -0.4152197672376, -0.6279441013882,
            0.1559480980207, -0.4181451123926, 0.649689143914, -0.5618033532828, 0.8980839078989, -0.9846594611659,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.4330309399179, -0.6445841192063, -0.1097830253922,
            -0.6719832333513, 0.551549921242, -0.7057412946118, 0.9260977717219, -0.8654517105128, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.3571726465755, -0.1309691546837,
            0.05124096107621, -0.6421136112072, -0.9280591728013, 0.05095996653866, 0.9899781463451, 0.9509039328734]),
        'out1': ((4, 3, 4), [-0.08419468547263, 0.2819100522868, 0.5240927879988, -0.2626606657757, 0.774841320614,
            -0.5580128883536, 0.7369253245496, 0.404627552713, 0.02770680721751, 0.125596051497, 0.6554145331807,
            0.5171031872838, 0.2842553852405, 0.9197042636541, 0.1470796159268, 0.6587354179589, 0.9465529315109,
            -0.5487810173442, 0.4807626835068, 0.8333660903354, 0.5910005627016, 0.9535060121458, -0.2054055721728,
            0.6093566200785, -0.4152197672376, -0.6279441013882, 0.1559480980207, -0.4181451123926, -0.6734006443347,
            0.1650760908872, -0.6836637189395, -0.7852545978924, -0.3571726465755, -0.1309691546837,
            0.05124096107621, -0.6421136112072, -0.02553228337581, -0.7821722026322, 0.9119037374708,
            -0.6693863260937, -0.7067026237079, 0.6938327249993, 0.9923468511317, 0.674489851401, 0.3939545729188,
            -0.8787458722747, 0.9470163280092, -0.7425344285769]),
        'grad_input': ((4, 3, 3), [0.6466412073165, -1.385587987502, 0.2509882076649, 0.8671563112519,
            -0.6593192687934, 0.3407088396744, 0.6361559978003, 0.3972310345745, -0.6911751763787, -0.4496745842666,
            0.06463922809912, -0.04206550324214, 0.0, 0.0, 0.0, 0.1343683593134, -0.4884347476408, -0.05927646933119,
            -0.199582898886, 0.5103586832883, -0.557087487164, 0.0, 0.0, 0.0, -0.8767607619794, 0.6697675997154,
            -0.2270394500614, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.8928942307684, 0.2968003626012, -0.281989869874]),
        'grad_state0': ((4, 3, 4), [0.05157181736535, -0.3926946639359, 0.09372160401866, -0.2597647669471,
            0.2756244795541, -0.3260487592128, 0.3107064790967, -0.8438404395957, 0.2226855269141, -0.08029062798616,
            -0.1117200857771, -0.1778321480799, 0.04879682729122, -0.8370702895932, 0.1128692867799, 0.6459088305417,
            -0.2466902430482, 0.5508929215283, -0.2523957684623, -0.7236378393307, 0.16080724253, 0.3402767589178,
            0.1480408370908, -0.5253475668915, -1.008761796448, 0.2016167775066, -0.1056836386301, 0.9462632332139,
            -0.2426345418172, -1.05299836716, -0.777208408272, 0.3429385849133, -0.571467355472, -0.613851232284,
            -0.6457356284052, 1.018114573051, -0.3349363244581, 0.3485825465991, 0.4413187631615, -0.3796353778391,
            -0.3654313387939, 0.4807703307525, 0.3533127922852, 0.7159074676405, -0.02842904500147, 0.03675778952284,
            0.01707587272857, 0.1426799930888]),
        'grad_weight_hh_l0': ((4, 4), [1.275201556008, 0.5088459545297, -0.4007671339778, 1.072603650379,
            0.5665033531252, 0.5646391413579, -0.4078046455322, 0.4069369958734, 1.667632845495, -1.100685257001,
            -1.845505082212, -1.195584019148, -1.601103028181, 0.4995674625132, 1.130662772903, -1.788560230551]),
    },
}
# END EXPECTED_PACKED
