"""Specific behaviour and errors of the shape / data-movement ops (the OpInfo table covers values).

cat's legacy skip of 1-D (0,) inputs, type promotion, out=, list-input gradients; stack; repeat
with more sizes than dims; repeat_interleave with tensor repeats (errors, output_size, the
segment-sum gradient); meshgrid's indexing modes; flip/roll/tril/diag errors; and the rare
kernel paths (more than six dims that no stride pattern merges).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab_kernels.copy as kcopy
from tests.helpers import assert_close, to_numpy

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")


def _t(values, device="cpu", dtype=None, requires_grad=False):
    t = tl.tensor(np.asarray(values), dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


# ----------------------------------------------------------------------------------------------
# cat
# ----------------------------------------------------------------------------------------------


def test_cat_skips_1d_empty_inputs(device):
    x = _t(np.arange(6.0).reshape(2, 3), device)
    e = tl.zeros(0, device=device)
    out = tl.cat([e, x, e], 0)
    assert out.shape == (2, 3)
    assert_close(out, np.arange(6.0).reshape(2, 3))
    # dim is wrapped against the first input that is not skipped: 1 is valid for x, not for e
    out = tl.cat([e, x, x], dim=1)
    assert_close(out, np.concatenate([np.arange(6.0).reshape(2, 3)] * 2, axis=1))
    out = tl.cat([x, e], dim=-1)
    assert out.shape == (2, 3)
    # every input skipped: a (0,) result, whatever dim says
    assert tl.cat([e, e], dim=3).shape == (0,)


def test_cat_skipped_inputs_still_promote(device):
    x = _t(np.ones((2, 2), np.float32), device)
    e64 = tl.zeros(0, dtype=tl.float64, device=device)
    assert tl.cat([x, e64]).dtype is tl.float64
    assert tl.cat([tl.zeros(0, dtype=tl.int64), tl.zeros(0, dtype=tl.int8)]).dtype is tl.int64


def test_cat_other_empty_shapes_are_not_skipped():
    with pytest.raises(RuntimeError, match=r"Expected size 3 but got size 4 for tensor number 1"):
        tl.cat([tl.zeros(0, 3), tl.zeros(2, 4)], 0)
    assert tl.cat([tl.zeros(0, 3), tl.ones(2, 3)], 0).shape == (2, 3)


@pytest.mark.parametrize("a,b,expected", [
    (tl.int32, tl.float16, tl.float16),
    (tl.uint8, tl.int8, tl.int16),
    (tl.bool, tl.int64, tl.int64),
    (tl.bfloat16, tl.float16, tl.float32),
    (tl.float32, tl.float64, tl.float64),
    (tl.bool, tl.bool, tl.bool),
])
def test_cat_type_promotion(device, a, b, expected):
    xa = np.array([[1, 0, 3]]).astype(a.np)
    xb = np.array([[2, 5, 0], [1, 1, 1]]).astype(b.np)
    out = tl.cat([_t(xa, device), _t(xb, device)])
    assert out.dtype is expected
    assert out.dtype is tl.promote_types(a, b)
    assert_close(out, np.concatenate([xa.astype(np.float64), xb.astype(np.float64)]).astype(expected.np))


def test_cat_errors():
    x = tl.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 1\) cannot be concatenated"):
        tl.cat([x, tl.tensor(1.0)])
    with pytest.raises(RuntimeError, match=r"Sizes of tensors must match except in dimension 0. Expected size 3 but "
                                           r"got size 4 for tensor number 2 in the list"):
        tl.cat([x, x, tl.ones(2, 4)])
    with pytest.raises(RuntimeError, match=r"same number of dimensions: got 2 and 3"):
        tl.cat([x, tl.ones(2, 3, 1)])
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        tl.cat(x)
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        tl.cat([x, 3])
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.cat([x, x], 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.cat([x, x], -3)


def test_cat_of_no_tensors_is_a_value_error(device):
    # PyTorch 2.13 raises ValueError (from its argument parser), for every spelling and with out=
    out = tl.empty(0, device=device)
    for fn in (lambda: tl.cat([]), lambda: tl.cat((), dim=1), lambda: tl.concat([]), lambda: tl.concatenate([]),
               lambda: tl.cat([], out=out)):
        with pytest.raises(ValueError, match=r"cat\(\): expected a non-empty list of Tensors"):
            fn()


@needs_cuda
def test_cat_device_mismatch():
    with pytest.raises(RuntimeError, match="same device"):
        tl.cat([tl.ones(2), tl.ones(2, device="cuda")])
    with pytest.raises(RuntimeError, match="same device"):
        tl.stack([tl.tensor(1.0, device="cuda"), tl.tensor(2.0)])  # a 0-d cpu tensor is no scalar here


def test_cat_accepts_tuple_and_aliases(device):
    x = _t(np.arange(4.0), device)
    for out in (tl.cat((x, x)), tl.concat([x, x]), tl.concatenate([x, x], axis=0), tl.concatenate([x, x], dim=0),
                tl.concatenate([x, x], 0)):
        assert_close(out, np.concatenate([np.arange(4.0)] * 2))


def test_cat_out(device):
    x = _t(np.arange(6.0, dtype=np.float32).reshape(2, 3), device)
    out = tl.empty(4, 3, dtype=tl.float64, device=device)
    res = tl.cat([x, x], out=out)
    assert res is out and out.dtype is tl.float64
    assert_close(out, np.concatenate([np.arange(6.0).reshape(2, 3)] * 2))
    # an out= the promoted inputs can't be cast to: PyTorch 2.13's TypeError (torch.cat(): input types
    # can't be cast to the desired output type Long), for stack and the *stack helpers too
    for name, call in (("cat", lambda o: tl.cat([x, x], out=o)), ("stack", lambda o: tl.stack([x, x], out=o)),
                       ("cat", lambda o: tl.hstack([x, x], out=o)), ("cat", lambda o: tl.vstack([x, x], out=o))):
        for dtype, torch_name in ((tl.int64, "Long"), (tl.bool, "Bool")):
            o = tl.full((2,), 7, dtype=dtype, device=device)
            with pytest.raises(TypeError, match=f"{name}\\(\\): input types can't be cast to the desired output "
                                                f"type {torch_name}"):
                call(o)
            assert to_numpy(o).tolist() == to_numpy(tl.full((2,), 7, dtype=dtype)).tolist()  # unwritten
    with pytest.raises(TypeError, match="can't be cast to the desired output type Long"):  # promoted: float32
        tl.cat([x.to(tl.int64), x], out=tl.empty(4, 3, dtype=tl.int64, device=device))
    ints = tl.cat([x.to(tl.int32), x.to(tl.int64)], out=tl.empty(0, dtype=tl.float16, device=device))
    assert ints.dtype is tl.float16 and to_numpy(ints).tolist() == [[0, 1, 2], [3, 4, 5]] * 2
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        tl.cat([x.clone().requires_grad_(True), x], out=tl.empty(4, 3, device=device))


def test_cat_stack_out_of_another_dtype_casts_each_input_directly(device):
    # PyTorch copies every input straight into out= (no stop at the promoted float16, where these
    # int32 values overflow): torch.cat([a, b], out=empty(0, dtype=float64)) is exact
    a = tl.tensor([2147483646, -2147483647], dtype=tl.int32, device=device)
    b = tl.tensor([0.5, 1.5], dtype=tl.float16, device=device)
    cat64 = tl.cat([a, b], out=tl.empty(0, dtype=tl.float64, device=device))
    assert cat64.dtype is tl.float64 and to_numpy(cat64).tolist() == [2147483646.0, -2147483647.0, 0.5, 1.5]
    cat32 = tl.cat([a, b], out=tl.empty(0, dtype=tl.float32, device=device))
    assert to_numpy(cat32).tolist() == [2147483648.0, -2147483648.0, 0.5, 1.5]
    stack32 = tl.stack([a, b], out=tl.empty(0, dtype=tl.float32, device=device))
    assert to_numpy(stack32).tolist() == [[2147483648.0, -2147483648.0], [0.5, 1.5]]
    vstack64 = tl.vstack([a, b], out=tl.empty(0, dtype=tl.float64, device=device))
    assert to_numpy(vstack64).tolist() == [[2147483646.0, -2147483647.0], [0.5, 1.5]]


def test_cat_out_overlapping_an_input(device):
    big = _t(np.arange(4.0), device)
    # reading what is being written: PyTorch 2.13 refuses (a dense input overlapping out=)
    with pytest.raises(RuntimeError, match="cat: unsupported operation: some elements of the input tensor and the "
                                           "written-to tensor refer to a single memory location"):
        tl.cat([big[2:], big[:2]], out=big)
    assert_close(big, [0.0, 1.0, 2.0, 3.0])  # nothing written


def test_cat_list_input_gradients(device):
    a = _t(np.arange(6.0, dtype=np.float32).reshape(2, 3), device, requires_grad=True)
    b = _t(np.ones((2, 2)), device, dtype=tl.float64, requires_grad=True)
    c = _t(np.ones((2, 1), np.int32), device)
    e = _t(np.zeros(0, np.float32), device, requires_grad=True)
    out = tl.cat([a, e, b, c], dim=1)
    assert out.dtype is tl.float64 and out.grad_fn.name() == "CatBackward0"
    g = np.arange(12.0).reshape(2, 6)
    out.backward(_t(g, device))
    assert a.grad.dtype is tl.float32 and b.grad.dtype is tl.float64
    assert_close(a.grad, g[:, :3].astype(np.float32))
    assert_close(b.grad, g[:, 3:5])
    assert e.grad is not None and e.grad.shape == (0,) and e.grad.dtype is tl.float32


def test_stack_list_input_gradients(device):
    a = _t(np.zeros((2, 3)), device, requires_grad=True)
    b = _t(np.zeros((2, 3)), device, requires_grad=True)
    out = tl.stack((a, b), dim=1)
    assert out.shape == (2, 2, 3) and out.grad_fn.name() == "StackBackward0"
    g = np.arange(12.0).reshape(2, 2, 3)
    out.backward(_t(g, device))
    assert_close(a.grad, g[:, 0])
    assert_close(b.grad, g[:, 1])


@needs_cuda
def test_cat_is_one_launch_per_nonempty_input(monkeypatch):
    launches = []
    real = kcopy.launch

    def counting(kernel, grid, *args, **meta):
        launches.append(grid)
        return real(kernel, grid, *args, **meta)

    x = tl.ones(3, 4, device="cuda")
    inputs = [x, tl.zeros(0, device="cuda"), x.t().contiguous().t(), tl.zeros(3, 0, device="cuda"), x]
    monkeypatch.setattr(kcopy, "launch", counting)
    out = tl.cat(inputs, 1)
    assert len(launches) == 3
    assert_close(out, np.ones((3, 12)))


# ----------------------------------------------------------------------------------------------
# stack and friends
# ----------------------------------------------------------------------------------------------


def test_stack_errors_and_promotion(device):
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 "
                                           r"and \[2, 4\] at entry 1"):
        tl.stack([tl.ones(2, 3), tl.ones(2, 4)])
    with pytest.raises(RuntimeError, match="non-empty TensorList"):
        tl.stack([])
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.stack([tl.ones(2, 3)], 3)
    out = tl.stack([_t([1, 2], device, dtype=tl.int8), _t([0.5, 1.5], device, dtype=tl.float32)], -1)
    assert out.dtype is tl.float32
    assert_close(out, [[1.0, 0.5], [2.0, 1.5]])


def test_stack_out(device):
    out = tl.empty(2, 2, device=device)
    tl.stack([_t([1.0, 2.0], device), _t([3.0, 4.0], device)], out=out)
    assert_close(out, [[1.0, 2.0], [3.0, 4.0]])


def test_hstack_vstack_dstack_shapes():
    a, b = tl.ones(3), tl.zeros(3)
    assert tl.hstack([a, b]).shape == (6,)
    assert tl.vstack([a, b]).shape == (2, 3)
    assert tl.row_stack([a, b]).shape == (2, 3)
    assert tl.dstack([a, b]).shape == (1, 3, 2)
    assert tl.column_stack([a, b]).shape == (3, 2)
    with pytest.raises(RuntimeError, match="hstack expects a non-empty TensorList"):
        tl.hstack([])


def test_atleast_nd_forms():
    x = tl.tensor(1.0)
    assert tl.atleast_1d(x).shape == (1,)
    assert tl.atleast_2d(tl.ones(3)).shape == (1, 3)
    assert tl.atleast_3d(tl.ones(2, 3)).shape == (2, 3, 1)
    pair = tl.atleast_2d(x, tl.ones(3))
    assert isinstance(pair, tuple) and [p.shape for p in pair] == [(1, 1), (1, 3)]
    listed = tl.atleast_3d([tl.ones(3)])
    assert isinstance(listed, tuple) and listed[0].shape == (1, 3, 1)
    y = tl.ones(2, 3)
    assert tl.atleast_2d(y) is y


# ----------------------------------------------------------------------------------------------
# flip / roll
# ----------------------------------------------------------------------------------------------


def test_flip_forms_and_copy(device):
    x = _t(np.arange(6.0).reshape(2, 3), device)
    ref = np.arange(6.0).reshape(2, 3)[::-1, ::-1]
    for out in (x.flip(0, 1), x.flip([0, 1]), tl.flip(x, (0, 1)), tl.flip(x, dims=[-2, -1])):
        assert_close(out, ref)
    y = tl.flip(x, 0)
    assert y._storage is not x._storage and y.is_contiguous()
    assert_close(tl.fliplr(x), np.fliplr(np.arange(6.0).reshape(2, 3)))
    assert_close(tl.flipud(x), np.flipud(np.arange(6.0).reshape(2, 3)))


def test_flip_errors():
    x = tl.ones(2, 3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        tl.flip(x, (0, -2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.flip(x, (2,))
    with pytest.raises(RuntimeError, match="Input must be >= 2-d"):
        tl.fliplr(tl.ones(3))
    with pytest.raises(RuntimeError, match="Input must be >= 1-d"):
        tl.flipud(tl.tensor(1.0))


def test_flip_and_roll_gradients(device):
    x = _t(np.zeros((2, 3)), device, requires_grad=True)
    g = np.arange(6.0).reshape(2, 3)
    x.flip(1).backward(_t(g, device))
    assert_close(x.grad, g[:, ::-1])
    x.grad = None
    x.roll((1, 2), (0, 1)).backward(_t(g, device))
    assert_close(x.grad, np.roll(g, (-1, -2), (0, 1)))
    x.grad = None
    x.roll(4).backward(_t(g, device))
    assert_close(x.grad, np.roll(g, -4))


def test_roll_errors():
    x = tl.ones(2, 3)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        tl.roll(x, (1, 2), 0)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:0"):
        tl.roll(x, (1, 2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.roll(x, 1, 2)
    with pytest.raises(IndexError, match="no dimensions"):
        tl.roll(tl.tensor(1.0), 1, 0)


# ----------------------------------------------------------------------------------------------
# repeat / tile / repeat_interleave
# ----------------------------------------------------------------------------------------------


def test_repeat_more_sizes_than_dims(device):
    x = np.arange(6.0).reshape(2, 3)
    out = _t(x, device).repeat(2, 1, 2)
    assert out.shape == (2, 2, 6)
    assert_close(out, np.tile(x, (2, 1, 2)))
    assert _t(x, device).repeat((2, 2)).shape == (4, 6)  # a tuple works too
    assert tl.tile(_t(x, device), (2,)).shape == (2, 6)  # tile pads the reps with leading 1s
    # by name, as PyTorch's tile(input, dims) / Tensor.repeat(repeats) (here a TypeError)
    assert_close(tl.tile(input=_t(x, device), dims=[2, 1, 2]), np.tile(x, (2, 1, 2)))
    assert _t(x, device).tile(dims=(2,)).shape == (2, 6) and _t(x, device).repeat(repeats=(2, 1)).shape == (4, 3)


def test_repeat_errors():
    with pytest.raises(RuntimeError, match="can not be smaller than number of dimensions"):
        tl.ones(2, 3).repeat(2)
    with pytest.raises(RuntimeError, match="negative dimension"):
        tl.ones(2, 3).repeat(2, -1)
    # no sizes at all is PyTorch's argument error (an empty tuple is a valid size list of a 0-d tensor)
    with pytest.raises(TypeError, match="repeats"):
        tl.tensor(1.0).repeat()
    assert tl.tensor(1.0).repeat(()).shape == ()
    assert tl.tile(tl.tensor(1.0), ()).shape == ()
    x = tl.ones(2, 3)
    for f in (lambda: x.tile(), lambda: tl.tile(x), lambda: x.tile(2, dims=(2,)),
              lambda: x.repeat(2, 1, repeats=(2, 1)), lambda: x.flip()):
        with pytest.raises(TypeError):
            f()


def test_repeat_gradient_sums_the_blocks(device):
    x = _t(np.zeros((2, 3)), device, requires_grad=True)
    g = np.arange(48.0).reshape(2, 4, 6)
    x.repeat(2, 2, 2).backward(_t(g, device))
    expected = g.reshape(2, 2, 2, 2, 3).sum(axis=(0, 1, 3))
    assert_close(x.grad, expected)


def test_repeat_interleave_int_gradient(device):
    x = _t(np.zeros((2, 3)), device, requires_grad=True)
    g = np.arange(12.0).reshape(2, 6)
    x.repeat_interleave(2, dim=1).backward(_t(g, device))
    assert_close(x.grad, g.reshape(2, 3, 2).sum(-1))


def test_repeat_interleave_tensor_gradient_is_segment_sum(device):
    x = _t(np.zeros((4, 2)), device, requires_grad=True)
    r = _t([2, 0, 3, 1], device)
    out = tl.repeat_interleave(x, r, dim=0)
    assert out.shape == (6, 2)
    g = np.arange(12.0).reshape(6, 2)
    out.backward(_t(g, device))
    assert_close(x.grad, np.stack([g[0:2].sum(0), np.zeros(2), g[2:5].sum(0), g[5]]))


def test_repeat_interleave_tensor_double_backward(device):
    # the backward (segment sum) is itself an op whose backward repeats again
    x = _t(np.zeros(3), device, requires_grad=True)
    r = _t([1, 2, 0], device)
    g = _t(np.zeros(3), device, requires_grad=True)
    (gx,) = tl.autograd.grad(tl.repeat_interleave(x, r), [x], grad_outputs=g, create_graph=True)
    gx.backward(_t([1.0, 2.0, 3.0], device))
    assert_close(g.grad, [1.0, 2.0, 2.0])


def test_repeat_interleave_index_form(device):
    r = _t(np.array([2, 0, 3], np.int32), device)
    out = tl.repeat_interleave(r)
    assert out.dtype is tl.int32
    assert_close(out, [0, 0, 2, 2, 2])
    assert_close(tl.repeat_interleave(r, output_size=5), [0, 0, 2, 2, 2])
    # by name, as PyTorch's repeat_interleave(repeats, *, output_size) overload (here a TypeError)
    assert_close(tl.repeat_interleave(repeats=r), [0, 0, 2, 2, 2])
    assert_close(tl.repeat_interleave(repeats=r, output_size=5), [0, 0, 2, 2, 2])
    for f in (lambda: tl.repeat_interleave(repeats=r, dim=0), lambda: tl.repeat_interleave(repeats=2),
              lambda: tl.repeat_interleave()):
        with pytest.raises(TypeError):
            f()


def test_repeat_interleave_output_size(device):
    x = np.arange(6.0).reshape(3, 2)
    out = tl.repeat_interleave(_t(x, device), _t([1, 2, 1], device), dim=0, output_size=4)
    assert_close(out, np.repeat(x, [1, 2, 1], axis=0))
    with pytest.raises(RuntimeError, match="allocated size does not match"):
        tl.repeat_interleave(tl.tensor(x), tl.tensor([1, 2, 1]), dim=0, output_size=5)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):  # checked before the sum (cpu)
        tl.repeat_interleave(tl.tensor(x), tl.tensor([3, -1, 0]), dim=0, output_size=2)


def test_repeat_interleave_errors():
    x = tl.ones(3, 2)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        tl.repeat_interleave(x, tl.tensor([1, -1, 2]), dim=0)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        tl.repeat_interleave(x, -1)
    with pytest.raises(RuntimeError, match=r"repeats.size\(0\) = 2 and input.size\(0\) = 3"):
        tl.repeat_interleave(x, tl.tensor([1, 2]), dim=0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):  # as torch 2.13
        tl.repeat_interleave(x, tl.tensor([1.0, 2.0, 3.0]), dim=0)
    with pytest.raises(RuntimeError, match="0-dim or 1-dim"):
        tl.repeat_interleave(x, tl.ones(3, 2, dtype=tl.int64), dim=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.repeat_interleave(x, 2, dim=2)
    with pytest.raises(RuntimeError, match="Invalid output_size, expected 6 but got 7"):  # it was ignored
        tl.repeat_interleave(x, 2, dim=0, output_size=7)
    assert tl.repeat_interleave(x, 2, dim=0, output_size=6).shape == (6, 2)


def test_squeeze_and_unflatten_of_a_0d_tensor_check_their_dims(device):
    x = _t(np.array(3.0), device)
    assert x.squeeze((0,)).shape == () and x.squeeze(-1).shape == ()
    with pytest.raises(RuntimeError, match=r"squeeze\(\): dim 0 appears multiple times"):  # it returned
        x.squeeze((0, 0))
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):  # internal error
        x.unflatten(0, (1, 1))


def test_movedim_of_a_0d_tensor(device):
    x = _t(np.array(3.0), device)  # it raised an internal IndexError
    for f in (lambda: tl.movedim(x, 0, 0), lambda: tl.moveaxis(x, -1, -1), lambda: x.movedim([0], [-1])):
        y = f()
        assert y.shape == () and y.item() == 3.0 and y.data_ptr() == x.data_ptr()
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.movedim(x, 1, 0)


@needs_cuda
def test_repeat_interleave_cpu_repeats_with_cuda_input():
    x = np.arange(6.0).reshape(3, 2)
    out = tl.repeat_interleave(tl.tensor(x, device="cuda"), tl.tensor([0, 1, 3]), dim=0)
    assert out.device.type == "cuda"
    assert_close(out, np.repeat(x, [0, 1, 3], axis=0))


# ----------------------------------------------------------------------------------------------
# tril / triu / diag / trace
# ----------------------------------------------------------------------------------------------


def test_tril_triu_in_place_and_out(device):
    x = np.arange(12.0).reshape(3, 4)
    t = _t(x, device)
    v = t._version
    assert t.tril_(-1) is t and t._version == v + 1
    assert_close(t, np.tril(x, -1))
    t = _t(x, device)
    t.triu_(1)
    assert_close(t, np.triu(x, 1))
    out = tl.empty(3, 4, dtype=tl.float64, device=device)
    tl.triu(_t(x, device), out=out)
    assert_close(out, np.triu(x))
    leaf = _t(x, device, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.tril_()


def test_tril_triu_gradients(device):
    x = _t(np.zeros((3, 3)), device, requires_grad=True)
    g = np.arange(9.0).reshape(3, 3)
    x.triu(1).backward(_t(g, device))
    assert_close(x.grad, np.triu(g, 1))


def test_tril_errors():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tl.tril(tl.ones(3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tl.ones(3).triu_()


def test_diag_errors_and_gradients(device):
    with pytest.raises(RuntimeError, match="Supports 1D or 2D tensors. Got 3D"):
        tl.diag(tl.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        tl.diag_embed(tl.ones(3), 0, 0, -2)
    with pytest.raises(RuntimeError, match="expected a matrix"):
        tl.trace(tl.ones(3))
    v = _t(np.zeros(3), device, requires_grad=True)
    g = np.arange(16.0).reshape(4, 4)
    tl.diag(v, 1).backward(_t(g, device))
    assert_close(v.grad, np.diag(g, 1))
    m = _t(np.zeros((3, 4)), device, requires_grad=True)
    tl.diag(m, -1).backward(_t([1.0, 2.0], device))
    expected = np.zeros((3, 4))
    expected[1, 0], expected[2, 1] = 1.0, 2.0
    assert_close(m.grad, expected)


def test_diag_out(device):
    out = tl.empty(2, dtype=tl.float64, device=device)
    tl.diag(_t(np.arange(4.0).reshape(2, 2), device), out=out)
    assert_close(out, [0.0, 3.0])


def test_tril_triu_diag_out_of_another_dtype_is_refused(device):
    # PyTorch 2.13: out= of exactly the input's dtype ("Expected out tensor to have dtype float, but
    # got double instead"); tensorlab converted into it. Refused before anything is written.
    x = _t(np.arange(4.0).reshape(2, 2), device, dtype=tl.float32)
    calls = {"tril": lambda o: tl.tril(x, out=o), "triu": lambda o: tl.triu(x, 1, out=o),
             "diag": lambda o: tl.diag(x, out=o)}
    for name, call in calls.items():
        for dtype in (tl.float64, tl.int64):
            out = tl.full((2,), 7, dtype=dtype, device=device)
            with pytest.raises(RuntimeError, match=f"{name}\\(\\): Expected out tensor to have dtype float32, but "
                                                   f"got {dtype.name}"):
                call(out)
            assert to_numpy(out).tolist() == [7, 7]
    with pytest.raises(RuntimeError, match="diag\\(\\): Expected out tensor to have dtype float32"):
        tl.diag(x[0], out=tl.empty(0, dtype=tl.float64, device=device))
    out = tl.empty(0, device=device)
    assert tl.tril(x, out=out) is out
    assert_close(out, [[0.0, 0.0], [2.0, 3.0]])


def test_trace_of_bool_raises(device):
    for shape in ((2, 2), (3,)):  # the dtype is checked first, as PyTorch
        with pytest.raises(NotImplementedError, match="\"trace\" not implemented for 'Bool'"):
            tl.trace(tl.ones(*shape, dtype=tl.bool, device=device))


def test_trace_values_and_dtype(device):
    assert tl.trace(_t(np.arange(6, dtype=np.int32).reshape(2, 3), device)).dtype is tl.int64
    x = _t(np.zeros((2, 3)), device, requires_grad=True)
    t = tl.trace(x)
    assert t.shape == ()
    t.backward()
    assert_close(x.grad, np.eye(2, 3))


# ----------------------------------------------------------------------------------------------
# meshgrid / broadcast_tensors
# ----------------------------------------------------------------------------------------------


def test_meshgrid_indexing_modes(device):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    ij = tl.meshgrid(_t(a, device), _t(b, device), indexing="ij")
    xy = tl.meshgrid([_t(a, device), _t(b, device)], indexing="xy")
    assert [g.shape for g in ij] == [(3, 2), (3, 2)]
    assert [g.shape for g in xy] == [(2, 3), (2, 3)]
    for got, ref in zip(ij + xy, np.meshgrid(a, b, indexing="ij") + np.meshgrid(a, b, indexing="xy")):
        assert_close(got, ref)
    # the grids are views: no data moved
    assert ij[0]._storage is ij[0]._base._storage and 0 in ij[0].stride()


def test_meshgrid_default_warns_and_is_ij():
    with pytest.warns(UserWarning, match="indexing argument"):
        grids = tl.meshgrid(tl.ones(2), tl.ones(3))
    assert grids[0].shape == (2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.meshgrid(tl.ones(2), tl.ones(3), indexing="ij")


def test_meshgrid_errors():
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        tl.meshgrid(tl.ones(2), indexing="ab")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        tl.meshgrid(tl.ones(2, 2), indexing="ij")
    with pytest.raises(RuntimeError, match="same dtype"):
        tl.meshgrid(tl.ones(2), tl.ones(2, dtype=tl.int64), indexing="ij")
    with pytest.raises(RuntimeError, match="non-empty"):
        tl.meshgrid([], indexing="ij")


def test_broadcast_tensors_views_and_errors():
    a, b = tl.ones(3, 1), tl.ones(4)
    x, y = tl.broadcast_tensors(a, b)
    assert x.shape == y.shape == (3, 4) and x._storage is a._storage
    with pytest.raises(RuntimeError, match="must match"):
        tl.broadcast_tensors(tl.ones(3), tl.ones(4))
    # one already of the broadcast shape comes back itself (PyTorch): under no_grad it keeps its graph
    w = tl.ones(3, requires_grad=True)
    with tl.no_grad():
        same, wide = tl.broadcast_tensors(w, tl.ones(2, 1))
        kept, _ = tl.broadcast_tensors(w, tl.ones(3))
    assert kept is w and same is not w and same.shape == wide.shape == (2, 3)
    from tensorlab.distributions import Normal

    loc = tl.tensor([0.3], requires_grad=True)
    with tl.no_grad():
        d = Normal(loc, tl.tensor([1.0]))
    d.log_prob(tl.tensor([0.0])).sum().backward()
    assert loc.grad.tolist() == pytest.approx([-0.3])


# ----------------------------------------------------------------------------------------------
# rare kernel paths: more than six dims that no stride pattern merges
# ----------------------------------------------------------------------------------------------


@needs_cuda
def test_roll_and_flip_with_seven_unmergeable_dims():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 2, 3, 2, 3, 2)).astype(np.float32)
    shifts, dims = (1, 2, 1, -1, 1, 1, 1), (0, 1, 2, 3, 4, 5, 6)
    t = tl.tensor(x, device="cuda")
    assert_close(t.roll(shifts, dims), np.roll(x, shifts, dims))
    perm = (6, 4, 2, 0, 1, 3, 5)  # non-contiguous: the flat roll takes its fallback path
    assert_close(t.permute(perm).roll(7), np.roll(np.transpose(x, perm), 7))
    assert_close(t.permute(perm).flip(0, 3, 5), np.flip(np.transpose(x, perm), (0, 3, 5)))


@needs_cuda
def test_repeat_and_tril_with_many_unmergeable_dims():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    t = tl.tensor(x, device="cuda").permute(3, 1, 2, 0)  # 4 strided dims -> 8 interleaved
    assert_close(t.repeat(2, 1, 2, 2), np.tile(np.transpose(x, (3, 1, 2, 0)), (2, 1, 2, 2)))
    y = rng.standard_normal((2, 2, 2, 2, 2, 2, 3, 4)).astype(np.float32)
    ty = tl.tensor(y, device="cuda").permute(5, 4, 3, 2, 1, 0, 6, 7)
    assert_close(ty.tril(1), np.tril(np.transpose(y, (5, 4, 3, 2, 1, 0, 6, 7)), 1))
    assert to_numpy(ty.tril(1)).shape == (2, 2, 2, 2, 2, 2, 3, 4)


# ----------------------------------------------------------------------------------------------
# view geometry and dim wrapping (host fast paths against PyTorch's values)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("old, stride, new, expected", [
    ((2, 3), (3, 1), (3, 1, 2), (2, 2, 1)),  # contiguous: contiguous strides, size-1 dims included
    ((4,), (1,), (1, 4), (4, 1)),
    ((4,), (1,), (4, 1), (1, 1)),
    ((1, 4), (1, 1), (4,), (1,)),  # PyTorch counts this contiguous; not our strides, so the general walk
    ((3, 2), (1, 3), (6,), None),  # a transpose cannot be flattened as a view
    ((3, 2), (1, 3), (3, 2, 1), (1, 3, 3)),
    ((2, 3, 4), (24, 4, 1), (2, 12), (24, 1)),  # a strided outer dim (a step-2 slice) keeps its stride
    ((2, 3, 4), (24, 4, 1), (6, 4), None),
])
def test_view_strides_match_pytorch(old, stride, new, expected):
    from tensorlab._views import view_strides

    assert view_strides(old, stride, new) == expected


def test_view_of_a_contiguous_tensor_reads_the_same_elements(device):
    x = tl.arange(24, device=device).reshape(2, 3, 4)
    v = x.view(4, 1, 6)
    assert v.stride() == (6, 6, 1)
    np.testing.assert_array_equal(to_numpy(v), np.arange(24).reshape(4, 1, 6))


def test_dims_wrap_and_out_of_range_dims_name_the_op():
    x = tl.zeros(2, 3, 4)
    assert x.transpose(-1, 0).shape == (4, 3, 2)
    assert x.sum(np.int64(-2)).shape == (2, 4)  # an index-like dim, as PyTorch accepts
    with pytest.raises(IndexError, match=r"transpose\(\): Dimension out of range .*\[-3, 2\], but got 3"):
        x.transpose(3, 0)
    with pytest.raises(IndexError, match=r"but got -4"):
        x.transpose(0, -4)
    with pytest.raises(TypeError, match="dim must be an int"):
        x.transpose(0.5, 0)
    assert tl.zeros(()).unsqueeze(-1).shape == (1,)
    # a bool is not a dim (True was taken as 1), as PyTorch's argument parser refuses it
    for name, call in (("sum", lambda: x.sum(True)), ("unsqueeze", lambda: x.unsqueeze(True)),
                       ("softmax", lambda: tl.nn.functional.softmax(x, dim=True)),
                       ("cat", lambda: tl.cat([x, x], True)), ("softmax", lambda: tl.nn.Softmax(dim=True)(x)),
                       ("narrow", lambda: x.narrow(False, 0, 1))):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'dim' must be int, not bool"):
            call()
    assert x.var(True).shape == ()  # (there the bool is var's unbiased, as PyTorch)


# ----------------------------------------------------------------------------------------------
# view ops: strides, edge cases and errors as PyTorch (values from torch 2.13)
# ----------------------------------------------------------------------------------------------


def test_expand_strides_of_new_leading_dims(device):
    # A new leading size-1 dim gets the stride that keeps the tensor contiguous (inferExpandGeometry).
    x = tl.zeros(2, 3, device=device)
    assert x.expand(1, 2, 3).stride() == (6, 3, 1)
    assert x.expand(1, 2, 3).is_contiguous()
    assert x[:, :1].expand(1, 2, 5).stride() == (6, 3, 0)
    assert x[:, :1].expand(1, 2, 1).stride() == (6, 3, 1)
    assert x.expand(4, 1, 2, 3).stride() == (0, 6, 3, 1)
    assert tl.zeros((), device=device).expand(1, 1).stride() == (0, 0)


def test_integer_arguments_of_views_are_python_ints(device):
    # torch 2.15 reads numpy ints and 1-element integer tensors as ints and refuses floats. A numpy
    # int reached the view's shape (narrow) and, through the launch cache, broke every later op on
    # a tensor of that shape; a float offset (diagonal, as_strided) read garbage on cuda.
    x = tl.arange(12.0, device=device).reshape(3, 4)
    y = x.narrow(0, 0, np.int64(2))
    assert y.shape == (2, 4) and all(type(n) is int for n in y.shape) and (y + 0).sum().item() == 28.0
    assert (tl.ones(2, 4, device=device) * 2).sum().item() == 16.0
    assert x.narrow_copy(1, 1, np.int64(2)).tolist() == [[1, 2], [5, 6], [9, 10]]
    assert x.narrow(0, 0, tl.tensor(2)).shape == (2, 4)
    z = x.as_strided((np.int64(2),) * 2, (np.int64(1),) * 2, np.int64(1))
    assert type(z.storage_offset()) is int and all(type(n) is int for n in z.stride())
    assert z.contiguous().tolist() == [[1, 2], [2, 3]]
    assert x.as_strided((2, 2), (1, 1), storage_offset=tl.tensor(1)).tolist() == [[1, 2], [2, 3]]
    assert x.diagonal(tl.tensor(1)).tolist() == [1, 6, 11] and type(x.diagonal(np.int64(1)).storage_offset()) is int
    for call, arg in ((lambda: x.narrow(0, 0, 2.0), "length"), (lambda: x.diagonal(0.5), "offset"),
                      (lambda: x.as_strided((2, 2), (1, 1), 1.5), "storage_offset"),
                      (lambda: x.as_strided((2.0, 2), (1, 1)), "size")):
        with pytest.raises(TypeError, match=f"argument '{arg}' must be int, not float"):
            call()
    with pytest.raises(TypeError, match="argument 'length' must be int, not bool"):  # (as PyTorch's parser)
        x.narrow(0, 0, True)
    with pytest.raises(TypeError, match="argument 'length' must be int, not Tensor"):  # (nor a bool tensor)
        x.narrow(0, 0, tl.tensor(True))
    assert x.narrow(0, 0, tl.tensor(2)).shape == (2, 4)
    # a numpy int is a number of sections; a negative split size is refused, even for an empty dim
    assert [p.shape for p in x.tensor_split(np.int64(2))] == [(2, 4), (1, 4)]
    assert [p.shape for p in x.hsplit(np.int64(2))] == [(3, 2), (3, 2)]
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        tl.zeros(0, 2, device=device).split(-1)
    with pytest.raises(RuntimeError, match=r"shape '\[-1, 0\]' is invalid for input of size 12"):
        x.view(-1, 0)


def test_chunk_split_tensor_split_edge_cases(device):
    x = tl.arange(5, device=device)
    # tensor_split indices follow Python's slice rules: negative indices wrap, reversed ranges are empty.
    got = [p.tolist() for p in x.tensor_split([-1, 4])]
    assert got == [[0, 1, 2, 3], [], [4]]
    assert [p.tolist() for p in x.tensor_split([3, 1])] == [[0, 1, 2], [], [1, 2, 3, 4]]
    assert [p.tolist() for p in x.tensor_split([2, -4])] == [[0, 1], [], [1, 2, 3, 4]]
    assert [p.tolist() for p in x.tensor_split([-7, 9])] == [[], [0, 1, 2, 3, 4], []]
    # a 0-d int64 tensor is a number of sections, a 1-d one the indices
    assert [p.tolist() for p in x.tensor_split(tl.tensor(2))] == [[0, 1, 2], [3, 4]]
    assert [p.tolist() for p in x.tensor_split(tl.tensor([1, 3]))] == [[0], [1, 2], [3, 4]]
    with pytest.raises(RuntimeError, match="dtype of long"):
        x.tensor_split(tl.tensor([1.0]))
    # chunk of an empty dim gives `chunks` empty pieces
    assert [p.shape for p in tl.zeros(0, 3, device=device).chunk(3)] == [(0, 3)] * 3
    z = tl.zeros((), device=device)
    for fn, msg in [(lambda: z.split(1), "split expects at least a 1-dimensional tensor"),
                    (lambda: z.chunk(1), "chunk expects at least a 1-dimensional tensor"),
                    (lambda: z.tensor_split(1), "tensor_split expected at least a 1-dimensional tensor")]:
        with pytest.raises(RuntimeError, match=msg):
            fn()


def test_view_op_errors_as_pytorch():
    x = tl.zeros(3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        x.squeeze((0, -1))
    with pytest.raises(IndexError, match=r"but got 1"):
        tl.zeros(()).flatten(1, 0)
    assert tl.zeros(()).flatten(-1, 0).shape == (1,)
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        tl.zeros(0).narrow(0, 1, -1)  # checked before start, as PyTorch
    for start in (tl.tensor([1]), tl.tensor(True), tl.tensor(1.0)):  # (these were taken as 1)
        with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor"):
            tl.arange(3.0).narrow(0, start, 1)
    assert tl.arange(3.0).narrow(0, tl.tensor(-1, dtype=tl.int8), 1).tolist() == [2.0]
    for fn in (lambda: x.view(), lambda: x.permute(), lambda: x.expand()):
        with pytest.raises(TypeError):
            fn()


def test_matrix_transpose_properties_on_small_ranks(device):
    s = tl.tensor(2.0, device=device)
    # PyTorch: mT / mH / adjoint / H are the identity on 0-d tensors (deprecated, with torch 2.15's
    # warnings), errors on 1-d ones; H needs 2-d. T warns on 0-d and on more than 2 dims.
    for get, note in [(lambda: s.mT, "Tensor.mT is deprecated on 0-D"), (lambda: s.mH, "Tensor.mH is deprecated"),
                      (lambda: s.adjoint(), r"adjoint\(\) is deprecated"), (lambda: s.H, "Tensor.H is deprecated"),
                      (lambda: s.T, "Tensor.T is deprecated on 0-D")]:
        with pytest.warns(UserWarning, match=note):
            v = get()
        assert v.shape == () and v.item() == 2.0
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert tl.zeros(2, 3, 4).T.shape == (4, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tl.zeros(3).T.shape == (3,) and tl.zeros(2, 3).T.shape == (3, 2)
        assert tl.zeros(2).to(None).shape == (2,)  # (PyTorch's optional device: no change)
    v = tl.arange(3, device=device)
    for fn, msg in [(lambda: v.mT, "tensor.mT"), (lambda: v.mH, "tensor.mH"),
                    (lambda: v.adjoint(), r"tensor.adjoint\(\)"), (lambda: v.H, "tensor.H")]:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    with pytest.raises(RuntimeError, match="For batches of matrices"):
        _ = tl.zeros(2, 3, 4).H
    assert tl.zeros(2, 3, device=device).H.shape == (3, 2)


def test_unfold_windows_strides_and_errors(device):
    # values from torch 2.13
    x = tl.arange(12.0, device=device).reshape(3, 4)
    w = x.unfold(1, 2, 1)
    assert w.shape == (3, 3, 2) and w.stride() == (4, 1, 1)
    np.testing.assert_array_equal(to_numpy(w)[1], [[4.0, 5.0], [5.0, 6.0], [6.0, 7.0]])
    w = x.unfold(0, 2, 2)
    assert w.shape == (1, 4, 2) and w.stride() == (8, 1, 4)
    np.testing.assert_array_equal(to_numpy(w)[0], [[0.0, 4.0], [1.0, 5.0], [2.0, 6.0], [3.0, 7.0]])
    w = x[:, 1:].unfold(1, 2, 2)
    assert w.shape == (3, 1, 2) and w.stride() == (4, 2, 1) and w.storage_offset() == 1
    np.testing.assert_array_equal(to_numpy(w)[:, 0], [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]])
    assert x.unfold(1, 0, 1).shape == (3, 5, 0)
    assert tl.tensor(5.0, device=device).unfold(0, 1, 1).tolist() == [5.0]
    assert tl.zeros(0, 3, device=device).unfold(0, 0, 2).stride() == (6, 1, 3)
    for args, err, msg in [((1, 5, 1), RuntimeError, "maximum size for tensor at dimension 1 is 4 but size is 5"),
                           ((1, 2, 0), RuntimeError, "step is 0 but must be > 0"),
                           ((1, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
                           ((2, 1, 1), IndexError, "Dimension out of range")]:
        with pytest.raises(err, match=msg):
            x.unfold(*args)


def test_diagonal_of_fewer_than_two_dims_raises_as_pytorch():
    # torch 2.13: the dims' wrapping fails first (IndexError); identical dims are a RuntimeError
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        tl.zeros(3).diagonal()
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        tl.tensor(1.0).diagonal()
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, -1"):
        tl.zeros(3).diagonal(0, 0, -1)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_repeat_interleave_takes_every_integer_dtype_of_repeats(device, dtype):
    """Repeats of any integer dtype (PyTorch's); the one-argument form keeps the repeats' dtype."""
    dt = getattr(tl, dtype)
    r = tl.tensor([1, 0, 3, 2], dtype=dt, device=device)
    idx = tl.repeat_interleave(r)
    assert idx.dtype is dt and idx.tolist() == [0, 2, 2, 2, 3, 3]
    x = tl.tensor([5.0, 6.0, 7.0, 8.0], device=device, requires_grad=True)
    y = tl.repeat_interleave(x, r)
    assert y.tolist() == [5.0, 7.0, 7.0, 7.0, 8.0, 8.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0, 2.0]
    with pytest.raises(NotImplementedError, match="Bool"):
        tl.repeat_interleave(tl.tensor([True], device=device))


def test_split_with_sizes_and_keyword_forms_of_shape_arguments():
    """PyTorch's keyword spellings (and split_with_sizes), shapes as torch 2.15 gives them."""
    x = tl.arange(24.0).reshape(2, 3, 4)
    assert [p.shape for p in x.split_with_sizes([1, 2], 1)] == [(2, 1, 4), (2, 2, 4)]
    assert [p.shape for p in tl.split_with_sizes(x, [3, 1], dim=-1)] == [(2, 3, 3), (2, 3, 1)]
    assert [p.shape for p in tl.tensor_split(x, sections=2)] == [(1, 3, 4), (1, 3, 4)]
    assert [p.shape for p in tl.tensor_split(x, indices=[1, 2], dim=1)] == [(2, 1, 4)] * 3
    assert [p.shape for p in tl.tensor_split(x, tensor_indices_or_sections=tl.tensor(2), dim=2)] == [(2, 3, 2)] * 2
    assert x.reshape(shape=(6, 4)).shape == (6, 4) and tl.reshape(x, shape=(-1,)).shape == (24,)
    assert x.view(size=(4, 6)).shape == (4, 6) and x.permute(dims=(2, 0, 1)).shape == (4, 2, 3)
    assert x[:1].expand(size=(3, 3, 4)).shape == (3, 3, 4) and x[:1].expand(3, 3, 4, implicit=True).shape == (3, 3, 4)
    assert x.movedim(np.int64(0), 1).shape == (3, 2, 4)
    with pytest.raises(TypeError, match="multiple values"):
        x.view((4, 6), size=(4, 6))
    with pytest.raises(TypeError, match="takes one of"):
        tl.tensor_split(x, 2, sections=2)


def test_reshape_and_rot90_copies_are_not_views(device):
    # PyTorch's reshape copy is an _unsafe_view of its clone, rot90 a transpose_ of its flip: no _base,
    # so detach_ works; gradients still reach the input
    x = tl.arange(12.0, device=device).view(3, 4).requires_grad_()
    for make in (lambda: x.t().reshape(-1), lambda: x.t().flatten(), lambda: x.t().reshape_as(tl.zeros(12)),
                 lambda: x.rot90(1), lambda: x.rot90(3)):
        y = make()
        assert y._base is None
        (y * y).sum().backward()
        assert_close(x.grad, 2 * x.detach())
        x.grad = None
        y = make()
        y.detach_()
        assert not y.requires_grad
    assert x.reshape(-1)._base is x._base  # (still a view where the strides allow one: of x's base)
    assert tl.arange(4, device=device).view(2, 2).t().rot90(0).stride() == (2, 1)  # a contiguous clone


def test_hsplit_vsplit_dsplit_take_separate_indices_and_keywords(device):
    x = tl.ones((4, 6, 2), device=device)
    shapes = lambda parts: [tuple(p.shape) for p in parts]  # noqa: E731
    assert shapes(x.hsplit(1, 3)) == [(4, 1, 2), (4, 2, 2), (4, 3, 2)]
    assert shapes(x.vsplit(1, 3)) == [(1, 6, 2), (2, 6, 2), (1, 6, 2)]
    assert shapes(x.hsplit(indices=[1, 3])) == shapes(x.hsplit([1, 3]))
    assert shapes(tl.hsplit(x, sections=2)) == [(4, 3, 2), (4, 3, 2)]
    assert shapes(tl.dsplit(x, indices=[1])) == [(4, 6, 1), (4, 6, 1)]
    for bad in (lambda: x.hsplit(), lambda: x.hsplit(2, sections=2), lambda: x.hsplit(sections=2, indices=[1])):
        with pytest.raises(TypeError):
            bad()


def test_broadcast_shapes_of_a_float_and_an_overflowing_size():
    with pytest.raises(RuntimeError, match="Input shapes should be of type ints, a tuple of ints, or a list of ints"):
        tl.broadcast_shapes(1.1)
    assert tl.broadcast_shapes(np.int64(3), (2, 1)) == (2, 3)
    for size in ([2, 4, 2**29, 2**29], [2**62]):
        with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
            tl.empty((), dtype=tl.float64).resize_(size)
        with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
            tl.empty(size)


def test_chunk_count_given_as_a_numpy_integer():
    # np.uint8 arithmetic wrapped (-6 out of bounds for uint8); torch 2.15 reads it as an int
    assert [c.shape[0] for c in tl.arange(6.0).chunk(np.uint8(3))] == [2, 2, 2]
    assert [c.shape[0] for c in tl.chunk(tl.arange(5.0), np.int64(2))] == [3, 2]
