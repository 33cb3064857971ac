"""nn modules: the recurrent layers ``RNN``, ``LSTM``, ``GRU`` and their cells ``RNNCell``, ``LSTMCell``,
``GRUCell`` (PyTorch's constructor signatures, parameter names, shapes, ``state_dict`` keys,
initialisation, gate order, input/hidden layouts and shape errors).

This is the reference composition, not a fused kernel: each time step is a few registered ops
(``F.linear`` for the hidden projection, the gate activations, elementwise updates), one launch
group per step, driven by a Python loop. Autograd therefore runs through the same ops on cpu and
cuda with no backward of its own. The input projection ``x @ W_ih^T + b_ih`` does not depend on the
recurrence, so it is computed for every step of a layer at once (one matmul over ``(L, N, H_in)``)
and only ``h @ W_hh^T + b_hh`` stays inside the loop.

Gates (PyTorch's order and formulas, ``*`` elementwise):

- RNN: ``h' = act(W_ih x + b_ih + W_hh h + b_hh)``, ``act`` tanh or relu;
- LSTM: rows ``i, f, g, o`` of ``W_ih``/``W_hh``; ``c' = f * c + i * g``, ``h' = o * tanh(c')``,
  with ``proj_size > 0`` then ``h' = W_hr h'``;
- GRU: rows ``r, z, n``; ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``.

A ``PackedSequence`` input (``nn.utils.rnn.pack_padded_sequence``) runs the same steps on its sorted
batch: at step ``t`` only the first ``batch_sizes[t]`` rows, the sequences still running, are
advanced (a slice of the state), so a sequence's final state is its last valid step's and no
gradient flows through padding. The forward direction drops the rows that end as it goes and keeps
their states for ``h_n``; the reverse one starts each row from its initial state at its last step,
growing the batch. The output is a ``PackedSequence`` with the input's ``batch_sizes`` and indices,
``h_n``/``c_n`` in the caller's batch order (an ``hx`` given is read in that order too).
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _dtype as D
from ..._factories import empty, zeros
from ..._tensor import Tensor
from ...amp.autocast_mode import cast_for
from ...ops.shape_ops import cat, stack
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]


# ----------------------------------------------------------------------------------------------
# one time step of each kind: shared by the cells and the sequence modules, so both compute the
# same thing. ``gi`` is the input projection W_ih x + b_ih, already computed by the caller.
# ----------------------------------------------------------------------------------------------
def _rnn_step(gi, h, w_hh, b_hh, nonlinearity: str):
    pre = gi + F.linear(h, w_hh, b_hh)
    return F.tanh(pre) if nonlinearity == "tanh" else F.relu(pre)


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr=None):
    i, f, g, o = (gi + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
    h = F.sigmoid(o) * F.tanh(c)
    if w_hr is not None:  # LSTM with projections: the hidden state is projected down to proj_size
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh, b_hh):
    # W_hn h + b_hn must stay apart from the input part: r scales it alone, so the two projections
    # are chunked separately rather than summed first as in the LSTM.
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = F.sigmoid(i_r + h_r)
    z = F.sigmoid(i_z + h_z)
    n = F.tanh(i_n + r * h_n)
    return n + z * (h - n)  # = (1 - z) * n + z * h, one op fewer


def _grow(state, rows):
    """``state`` with ``rows`` appended below (``rows`` alone when there is no state yet)."""
    return rows if state is None else cat([state, rows])


def _packed_sequence_type():
    # imported when needed: nn.utils imports modules that import nn.modules, so a top-level import
    # here would be circular
    from ..utils.rnn import PackedSequence

    return PackedSequence


def _autocast_on() -> bool:
    from ...amp import is_autocast_enabled

    return is_autocast_enabled("cuda") or is_autocast_enabled("cpu")


class RNNBase(Module):
    """Base of ``RNN``, ``LSTM`` and ``GRU``: the parameters of every layer and direction, their
    initialisation and the checks of the input and hidden shapes (PyTorch's ``nn.RNNBase``).

    ``mode`` is ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``. Parameters per layer ``k``
    and direction (suffix ``_reverse`` for the backward one): ``weight_ih_l{k}`` (gates * hidden,
    layer input), ``weight_hh_l{k}`` (gates * hidden, hidden or proj_size), ``bias_ih_l{k}``,
    ``bias_hh_l{k}`` (with ``bias``), ``weight_hr_l{k}`` (proj_size, hidden; LSTM with ``proj_size``).
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        # PyTorch's checks, in its order and with its messages
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            # dropout only ever acts between stacked layers, so here it would do nothing
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gates is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gates * hidden_size

        # Registered in PyTorch's order (layer, then direction, then ih, hh, biases, hr), which is
        # the order of parameters(), state_dict() and _flat_weights_names.
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * num_directions
            for direction in range(num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for prefix, shape in shapes.items():
                    setattr(self, prefix + suffix, Parameter(empty(shape, **factory)))
                    names.append(prefix + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        """The parameters in ``_flat_weights_names`` order, read afresh (a list PyTorch keeps in sync
        by hand; reading it each time cannot go stale when a weight is replaced or moved)."""
        return [getattr(self, name) if hasattr(self, name) else None for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters per layer and direction: ``[[weight_ih_l0, weight_hh_l0, ...], ...]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Does nothing. PyTorch copies the weights into one contiguous buffer for cuDNN's fused RNN;
        the composition here reads each parameter where it lies, so there is nothing to pack."""

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (PyTorch's init)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # -- checks (PyTorch's method names, so subclasses written for PyTorch still work) -----------
    def check_input(self, input: Tensor, batch_sizes=None) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype and not _autocast_on():
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                             f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def _states_shape(self, input: Tensor, batch_sizes, size: int) -> tuple[int, int, int]:
        """(layers x directions, batch, size): the shape of a hidden or cell state for ``input``
        (packed: its batch is the first step's, the largest)."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    def get_expected_hidden_size(self, input: Tensor, batch_sizes=None) -> tuple[int, int, int]:
        return self._states_shape(input, batch_sizes, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size, msg: str = "Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation=None):
        # (the batch order of a PackedSequence; without one there is never a permutation)
        return hx if permutation is None else hx.index_select(1, permutation)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- the computation ----------------------------------------------------------------------------
    def _layer_weights(self, layer: int, direction: int, kernel: str | None = None):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction; absent ones are None. Cast as
        autocast casts the arguments of PyTorch's fused ``kernel`` (see ``_autocast_kernel``)."""
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        weights = tuple(getattr(self, p + suffix, None) for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh",
                                                                  "weight_hr"))
        return weights if kernel is None else cast_for(kernel, *weights)

    def _autocast_kernel(self, input: Tensor, packed: bool) -> str | None:
        """PyTorch's fused RNN kernel that this forward stands for when that kernel is on autocast's
        lower-precision list, else None. PyTorch casts the input, the states and every weight to the
        autocast dtype at that kernel, so output, h_n and c_n come out in it; the composition here casts
        the same tensors (the gate ops alone would keep a float32 state's dtype). cuda: cuDNN's
        ``_cudnn_rnn`` runs every mode, packed or not (float32/float16 inputs; others take PyTorch's
        native path). cpu: only the LSTM goes through oneDNN's ``mkldnn_rnn_layer``, and only unpacked,
        without projections, non-empty and float32/bfloat16 (RNN, GRU and the rest stay compositions
        whose dtypes the ops' own rules already give)."""
        if not _autocast_on():
            return None
        if input.is_cuda:
            return "_cudnn_rnn" if input.dtype in (D.float32, D.float16) else None
        if (self.mode == "LSTM" and not packed and self.proj_size == 0 and input.numel() > 0
                and input.dtype in (D.float32, D.bfloat16)):
            return "mkldnn_rnn_layer"
        return None

    def _step(self, gi, h, c, w_hh, b_hh, w_hr):
        """One step of this mode: ``(h', c')`` (``c`` None but for the LSTM)."""
        if self.mode == "LSTM":
            return _lstm_step(gi, h, c, w_hh, b_hh, w_hr)
        if self.mode == "GRU":
            return _gru_step(gi, h, w_hh, b_hh), None
        return _rnn_step(gi, h, w_hh, b_hh, "tanh" if self.mode == "RNN_TANH" else "relu"), None

    def _run(self, x: Tensor, h0: Tensor, c0: Tensor | None, kernel: str | None = None):
        """``x`` (L, N, H_in) time-major, ``h0``/``c0`` (layers * directions, N, *): the output of the
        last layer (L, N, directions * H_out) and the final states, stacked as ``h0``. ``kernel``: the
        weights are cast for it under autocast (``_autocast_kernel``)."""
        if x.size(0) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        num_directions = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, direction, kernel)
                h = h0[index]
                c = c0[index] if c0 is not None else None
                gi = F.linear(x, w_ih, b_ih)  # the input projection of every step, in one matmul
                steps = range(x.size(0) - 1, -1, -1) if direction == 1 else range(x.size(0))
                out = [None] * x.size(0)
                for t in steps:
                    h, c = self._step(gi[t], h, c, w_hh, b_hh, w_hr)
                    out[t] = h
                outputs.append(stack(out))
                h_n.append(h)
                c_n.append(c)
            x = outputs[0] if num_directions == 1 else cat(outputs, -1)  # (forward, reverse) features
            # dropout acts on each layer's output except the last one's, in training mode only
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, stack(h_n), (stack(c_n) if c0 is not None else None)

    def _run_packed(self, data: Tensor, batch_sizes: list[int], h0: Tensor, c0: Tensor | None,
                    kernel: str | None = None):
        """``_run`` over packed ``data`` (sum(batch_sizes), H_in) of a batch sorted by decreasing
        length, ``h0``/``c0`` (layers * directions, batch_sizes[0], *) in that order: the packed
        output of the last layer and each sequence's final states, stacked as ``h0``."""
        offsets = [0]
        for n in batch_sizes[:-1]:
            offsets.append(offsets[-1] + n)
        steps = len(batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        x = data
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, direction, kernel)
                gi = F.linear(x, w_ih, b_ih)  # every valid step's input projection, in one matmul
                out = [None] * steps
                if direction == 0:
                    h, c = h0[index], (c0[index] if c0 is not None else None)
                    ended_h, ended_c = [], []  # states of the rows that stopped, highest rows first
                    for t in range(steps):
                        n = batch_sizes[t]
                        if n < h.size(0):
                            # rows n.. have no step t: their state is final, and they leave the batch
                            ended_h.append(h.narrow(0, n, h.size(0) - n))
                            h = h.narrow(0, 0, n)
                            if c is not None:
                                ended_c.append(c.narrow(0, n, c.size(0) - n))
                                c = c.narrow(0, 0, n)
                        h, c = self._step(gi.narrow(0, offsets[t], n), h, c, w_hh, b_hh, w_hr)
                        out[t] = h
                    if ended_h:  # back to the sorted batch order: the rows that ran longest come first
                        h = cat([h, *reversed(ended_h)])
                        c = cat([c, *reversed(ended_c)]) if c is not None else None
                else:
                    h = c = None
                    for t in range(steps - 1, -1, -1):
                        n = batch_sizes[t]
                        have = 0 if h is None else h.size(0)
                        if n > have:
                            # rows have..n-1 have their last step at t: they join from their initial state
                            h = _grow(h, h0[index].narrow(0, have, n - have))
                            if c0 is not None:
                                c = _grow(c, c0[index].narrow(0, have, n - have))
                        h, c = self._step(gi.narrow(0, offsets[t], n), h, c, w_hh, b_hh, w_hr)
                        out[t] = h
                outputs.append(cat(out))
                h_n.append(h)
                c_n.append(c)
            x = outputs[0] if num_directions == 1 else cat(outputs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, stack(h_n), (stack(c_n) if c0 is not None else None)

    def _packed_forward(self, input, hx):
        """The forward of a ``PackedSequence`` (every mode): ``hx`` is given in the caller's batch order,
        so it is permuted to the sorted one, and the final states are permuted back."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(n) for n in batch_sizes.tolist()]
        # (a PackedSequence built by hand could hold anything; the step loop slices by these sizes)
        if (not sizes or sizes[-1] <= 0 or data.dim() < 1 or sum(sizes) != data.size(0)
                or any(sizes[t + 1] > sizes[t] for t in range(len(sizes) - 1))):
            raise RuntimeError(f"{type(self).__name__}: PackedSequence batch_sizes {sizes} must be positive, "
                               f"non-increasing and sum to the {data.size(0) if data.dim() else 0} rows of data")
        lstm = self.mode == "LSTM"
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            factory = {"dtype": data.dtype, "device": data.device}
            shape = (self.num_layers * num_directions, int(batch_sizes[0]))
            h0 = zeros(*shape, real_hidden, **factory)
            hx = (h0, zeros(*shape, self.hidden_size, **factory)) if lstm else h0
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(data, hx, batch_sizes)
        h0, c0 = hx if lstm else (hx, None)
        kernel = self._autocast_kernel(data, packed=True)
        if kernel is not None:
            data, h0, c0 = cast_for(kernel, data, h0, c0)
        output, h_n, c_n = self._run_packed(data, sizes, h0, c0, kernel)
        output = type(input)(output, batch_sizes, sorted_indices, unsorted_indices)
        return output, self.permute_hidden((h_n, c_n) if lstm else h_n, unsorted_indices)

    def _time_major(self, input: Tensor, label: str):
        """Check the rank and give the input a batch dimension: (input, is_batched, batch_dim)."""
        if input.dim() not in (2, 3):
            # (PyTorch's wording differs by one word between RNN and LSTM/GRU)
            what = "tensor instead" if label == "RNN" else "instead"
            raise ValueError(f"{label}: Expected input to be 2D or 3D, got {input.dim()}D {what}")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        return (input if is_batched else input.unsqueeze(batch_dim)), is_batched, batch_dim

    def _single_state_forward(self, input, hx, label: str):
        """``RNN``'s and ``GRU``'s forward: one hidden state ``hx`` (layers * directions, N, hidden)."""
        if isinstance(input, _packed_sequence_type()):
            return self._packed_forward(input, hx)
        input, is_batched, batch_dim = self._time_major(input, label)
        if hx is not None:
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
            elif hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        else:
            num_directions = 2 if self.bidirectional else 1
            batch = input.size(0) if self.batch_first else input.size(1)
            hx = zeros(self.num_layers * num_directions, batch, self.hidden_size, dtype=input.dtype,
                       device=input.device)
        self.check_forward_args(input, hx, None)
        kernel = self._autocast_kernel(input, packed=False)
        if kernel is not None:
            input, hx = cast_for(kernel, input, hx)
        output, h_n, _ = self._run(input.transpose(0, 1) if self.batch_first else input, hx, None, kernel)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output, h_n = output.squeeze(batch_dim), h_n.squeeze(1)
        return output, h_n


def _reject_extra_kwargs(cls_name: str, kwargs: dict) -> None:
    """``RNN``/``GRU`` take no ``proj_size``: PyTorch answers with a ValueError rather than Python's
    TypeError, so the keyword is caught here (anything else is Python's TypeError)."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"{cls_name}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")


class RNN(RNNBase):
    """Elman RNN, ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` with ``act`` tanh or relu
    (PyTorch's ``nn.RNN``), stacked ``num_layers`` deep, optionally bidirectional.

    ``input`` (L, N, H_in), (N, L, H_in) with ``batch_first``, unbatched (L, H_in), or a
    ``PackedSequence`` (then ``output`` is one too); ``hx`` (num_layers * directions, N, hidden_size)
    or unbatched (num_layers * directions, hidden_size), zeros when not given. Returns ``(output,
    h_n)``, ``output`` holding the last layer's state at each step (both directions' features
    concatenated). ``dropout`` applies to each layer's output but the last, in training mode. The
    reference composition: one launch group per time step, no fused kernel (see the module
    docstring, which also says how a ``PackedSequence`` runs).
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, **kwargs) -> None:
        _reject_extra_kwargs("RNN", kwargs)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._single_state_forward(input, hx, "RNN")


class LSTM(RNNBase):
    """Long short-term memory (PyTorch's ``nn.LSTM``): gates ``i, f, g, o`` in that row order of
    ``W_ih``/``W_hh``, ``c_t = f * c_{t-1} + i * g``, ``h_t = o * tanh(c_t)``; with ``proj_size > 0``
    ``h_t = W_hr h_t`` (proj_size features).

    Input layouts as ``RNN``'s; ``hx`` is ``(h_0, c_0)``, ``h_0`` (num_layers * directions, N,
    proj_size or hidden_size) and ``c_0`` (num_layers * directions, N, hidden_size), zeros when not
    given. Returns ``(output, (h_n, c_n))``. The reference composition: one launch group per time
    step, no fused kernel; a ``PackedSequence`` input gives a ``PackedSequence`` output.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)

    def get_expected_cell_size(self, input: Tensor, batch_sizes=None) -> tuple[int, int, int]:
        return self._states_shape(input, batch_sizes, self.hidden_size)  # (the cell state is never projected)

    def check_forward_args(self, input: Tensor, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation=None):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        if isinstance(hx, Tensor):
            # a stacked (2, layers, N, H) tensor would otherwise be read as (h_0, c_0) by indexing;
            # PyTorch's lstm op takes only a tuple of tensors there
            raise TypeError(f"LSTM: hx must be a tuple (h_0, c_0) of Tensors, got a Tensor of shape {list(hx.shape)}")
        if hx is not None and len(hx) != 2:
            raise RuntimeError(f"lstm expects two hidden states, got {len(hx)}")
        if isinstance(input, _packed_sequence_type()):
            return self._packed_forward(input, hx)
        input, is_batched, batch_dim = self._time_major(input, "LSTM")
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            batch = input.size(0) if self.batch_first else input.size(1)
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            factory = {"dtype": input.dtype, "device": input.device}
            hx = (zeros(self.num_layers * num_directions, batch, real_hidden, **factory),
                  zeros(self.num_layers * num_directions, batch, self.hidden_size, **factory))
        elif is_batched:
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        else:
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        kernel = self._autocast_kernel(input, packed=False)
        if kernel is not None:
            input, *hx = cast_for(kernel, input, *hx)
        output, h_n, c_n = self._run(input.transpose(0, 1) if self.batch_first else input, hx[0], hx[1], kernel)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output, h_n, c_n = output.squeeze(batch_dim), h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit (PyTorch's ``nn.GRU``): gates ``r, z, n`` in that row order,
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h_t = (1 - z) * n + z * h_{t-1}``.

    Input (``PackedSequence`` included), ``hx`` and outputs as ``RNN``'s. The reference composition:
    one launch group per time step, no fused kernel.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device=None,
                 dtype=None, **kwargs) -> None:
        _reject_extra_kwargs("GRU", kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._single_state_forward(input, hx, "GRU")


# ----------------------------------------------------------------------------------------------
# cells: one step, (N, H_in) or unbatched (H_in)
# ----------------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """Base of the cells: ``weight_ih`` (chunks * hidden, input), ``weight_hh`` (chunks * hidden,
    hidden), ``bias_ih``/``bias_hh`` (chunks * hidden, or None without ``bias``), all from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (PyTorch's ``nn.RNNCellBase``)."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **factory))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **factory))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, label: str, input, hx, n_states: int):
        """Check ranks, add the batch dimension to an unbatched call and default the states to zeros:
        (input, states, is_batched)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{label}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if n_states == 2 and isinstance(hx, Tensor) and input.dim() == 2:
            # a stacked (2, N, H) tensor would be split into (h, c); PyTorch's lstm_cell takes a tuple
            # (an unbatched call indexes what it is given, there and here)
            raise TypeError(f"{label}: argument 'hx' must be a tuple of Tensors (h, c), not a Tensor of shape "
                            f"{list(hx.shape)}")
        states = None if hx is None else (tuple(hx) if n_states == 2 else (hx,))
        if states is not None:
            for idx, h in enumerate(states):
                if h.dim() not in (1, 2):
                    what = f"hx[{idx}]" if n_states == 2 else "hidden"
                    raise ValueError(f"{label}: Expected {what} to be 1D or 2D, got {h.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if states is None:
            zero = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            states = (zero,) * n_states
        elif not is_batched:
            states = tuple(h.unsqueeze(0) for h in states)
        return input, states, is_batched

    def _autocast(self, kernel: str, input, states):
        """``(input, states, (w_ih, w_hh, b_ih, b_hh))`` cast as autocast casts PyTorch's cell op
        ``kernel`` (on cuda's lower-precision list: a float32 state comes out in the autocast dtype
        there, where the gate ops alone would keep it float32); unchanged without autocast."""
        input, *rest = cast_for(kernel, input, *states, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return input, tuple(rest[:len(states)]), tuple(rest[len(states):])

    def _check_step(self, input, states) -> None:
        """The checks PyTorch's cell ops make (their messages): input features, then each state's rank,
        batch and features (``hidden0``, ``hidden1`` for the LSTM's (h, c))."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        for label, h in enumerate(states):
            if h.dim() != 2:
                raise RuntimeError(f"Expected 2D hidden{label} (batch x hidden_size), but got {h.dim()}D tensor")
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size "
                                   f"{h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {h.size(1)}, expected "
                                   f"{self.hidden_size}")


class RNNCell(RNNCellBase):
    """One Elman step, ``h' = act(W_ih x + b_ih + W_hh h + b_hh)`` (PyTorch's ``nn.RNNCell``): ``input``
    (N, H_in) or (H_in), ``hx`` (N, hidden) or (hidden), zeros when not given; returns ``h'``."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity  # (checked at the first forward, as PyTorch)

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._batched("RNNCell", input, hx, 1)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_step(input, (h,))
        input, (h,), (w_ih, w_hh, b_ih, b_hh) = self._autocast(f"rnn_{self.nonlinearity}_cell", input, (h,))
        out = _rnn_step(F.linear(input, w_ih, b_ih), h, w_hh, b_hh, self.nonlinearity)
        return out if is_batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (PyTorch's ``nn.LSTMCell``): ``hx = (h, c)``, each (N, hidden) or (hidden), zeros
    when not given; returns ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h, c), is_batched = self._batched("LSTMCell", input, hx, 2)
        self._check_step(input, (h, c))
        input, (h, c), (w_ih, w_hh, b_ih, b_hh) = self._autocast("lstm_cell", input, (h, c))
        h, c = _lstm_step(F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (PyTorch's ``nn.GRUCell``): ``input`` (N, H_in) or (H_in), ``hx`` (N, hidden) or
    (hidden), zeros when not given; returns ``h'``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._batched("GRUCell", input, hx, 1)
        self._check_step(input, (h,))
        input, (h,), (w_ih, w_hh, b_ih, b_hh) = self._autocast("gru_cell", input, (h,))
        out = _gru_step(F.linear(input, w_ih, b_ih), h, w_hh, b_hh)
        return out if is_batched else out.squeeze(0)
