"""copy.copy, copy.deepcopy and pickle of tensors (tensorlab/_tensor_copying.py): PyTorch's
storage-level meaning on both devices; values and layouts checked against known results."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import _tensor_copying


def roundtrip(x):
    return pickle.loads(pickle.dumps(x))


@pytest.mark.parametrize("dtype", [tl.float32, tl.bfloat16, tl.int64, tl.bool])
def test_pickle_keeps_zero_d_shape_dtype_and_values(dtype, device):
    t = tl.tensor(3, dtype=dtype, device=device)
    r = roundtrip(t)
    assert r.shape == () and r.dtype == dtype and r.device == t.device and r.item() == t.item()


def test_pickle_keeps_the_geometry_of_a_view(device):
    b = tl.arange(6.0, device=device).reshape(2, 3)
    v = roundtrip(b[:, 1:])
    assert v.stride() == (3, 1) and v.storage_offset() == 1 and v.tolist() == [[1, 2], [4, 5]]
    e = roundtrip(tl.ones(3, device=device).expand(4, 3))
    assert e.stride() == (0, 1) and e.tolist() == [[1, 1, 1]] * 4
    t = roundtrip(b.t())
    assert t.stride() == (1, 3) and t.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_pickle_sends_a_shared_storage_once_and_keeps_it_shared(device):
    b = tl.arange(6.0, device=device).reshape(2, 3)
    x, y = roundtrip((b, b[1]))
    y[0] = 9
    assert x[1, 0].item() == 9


def test_a_small_view_of_a_large_storage_is_pickled_by_value(device):
    big = tl.arange(100000.0, device=device)
    data = pickle.dumps(big[5:10])
    assert len(data) < 2000  # not the 400 kB storage
    r = pickle.loads(data)
    assert r.tolist() == [5, 6, 7, 8, 9] and r.stride() == (1,) and r.storage_offset() == 0
    assert len(pickle.dumps(big)) > 400000 > _tensor_copying.BY_VALUE_BYTES


def test_copy_shares_memory_and_deepcopy_copies_storages_once(device):
    b = tl.arange(6.0, device=device).reshape(2, 3)
    c = copy.copy(b)
    c[0, 0] = 5
    assert b[0, 0].item() == 5 and c is not b
    x, y = copy.deepcopy((b, b[0]))
    y[1] = 7
    assert x[0, 1].item() == 7 and b[0, 1].item() == 1  # the copies share one new storage
    assert y.storage_offset() == 0 and x.stride() == (3, 1)


def test_attributes_requires_grad_and_grad_survive_as_pytorch(device):
    t = tl.ones(2, device=device, requires_grad=True)
    t.tag = "x"
    t.grad = tl.full((2,), 3.0, device=device)
    for r in (roundtrip(t), copy.copy(t), copy.deepcopy(t)):
        assert r.tag == "x" and r.requires_grad and r.is_leaf
    assert roundtrip(t).grad is None and copy.copy(t).grad is None
    assert copy.deepcopy(t).grad.tolist() == [3, 3]
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(t * 2)


def test_parameters_stay_parameters(device):
    p = tl.nn.Parameter(tl.ones(2, device=device))
    p.grad = tl.ones(2, device=device)
    for q in (roundtrip(p), copy.copy(p), copy.deepcopy(p)):
        assert isinstance(q, tl.nn.Parameter) and q.requires_grad and q.grad is None  # (PyTorch's Parameter)
    assert copy.copy(p).data_ptr() == p.data_ptr() and copy.deepcopy(p).data_ptr() != p.data_ptr()
    m = tl.nn.Linear(3, 2).to(device)
    m2 = roundtrip(m)
    np.testing.assert_array_equal(m2.weight.detach().cpu().numpy(), m.weight.detach().cpu().numpy())
    assert isinstance(m2.weight, tl.nn.Parameter)


def test_a_zero_d_item_crosses_a_data_loader_worker():
    class Scalars(tl.utils.data.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return tl.tensor(float(i))

    items = list(tl.utils.data.DataLoader(Scalars(), batch_size=None, num_workers=1))
    assert [(t.shape, t.item()) for t in items] == [((), 0.0), ((), 1.0), ((), 2.0)]


# ----------------------------------------------------------------------------------------------
# view(dtype): a tensor whose dtype is not its storage array's (a float32 array read as int16)
# ----------------------------------------------------------------------------------------------


def test_pickle_and_deepcopy_of_view_dtype_tensors_keep_the_bytes_and_the_sharing(device):
    x = tl.tensor([1.0, 2.0, 3.0, 4.0], device=device)
    v = x[1:].view(tl.uint8)  # torch 2.15: offset 4 bytes, the floats' little-endian bytes
    r = roundtrip(v)
    assert r.dtype == tl.uint8 and r.storage_offset() == 4 and r.device == x.device
    assert r.tolist() == [0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64]
    a, b = roundtrip((x, x.view(tl.int32)))  # one storage, sent once: still shared
    b.add_(1)
    assert a.tolist() == [1.0000001192092896, 2.000000238418579, 3.000000238418579, 4.000000476837158]
    a, b = copy.deepcopy((x, x.view(tl.int32)))  # (as torch's deepcopy: one new storage)
    b.add_(1)
    assert a.tolist() == [1.0000001192092896, 2.000000238418579, 3.000000238418579, 4.000000476837158]
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0]
    big = tl.arange(100000.0, device=device)
    small = big[5:7].view(tl.int16)  # pickled by value
    data = pickle.dumps(small)
    assert len(data) < 2000 and pickle.loads(data).tolist() == [0, 16544, 0, 16576]


class _ViewedRows(tl.utils.data.Dataset):
    """Rows of a float32 tensor read as int16: big ones (shared memory) and small ones (pickled)."""

    def __init__(self, n):
        self.data = tl.arange(float(4 * n * 512)).reshape(4, 2, n * 256)  # (n=4: rows of 8 kB, shared memory)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.data[i].view(tl.int16)[:, 2:], self.data[i, 0, :2].view(tl.uint8)


@pytest.mark.parametrize("n", [1, 4])
@pytest.mark.parametrize("batch_size", [None, 2])
def test_view_dtype_tensors_cross_a_data_loader_worker(n, batch_size):
    ds = _ViewedRows(n)
    got = list(tl.utils.data.DataLoader(ds, batch_size=batch_size, num_workers=1))
    want = list(tl.utils.data.DataLoader(ds, batch_size=batch_size, num_workers=0))
    assert len(got) == len(want) == (4 if batch_size is None else 2)
    for (g_rows, g_bytes), (w_rows, w_bytes) in zip(got, want):
        assert g_rows.dtype == tl.int16 and g_bytes.dtype == tl.uint8
        assert tl.equal(g_rows, w_rows) and tl.equal(g_bytes, w_bytes)
    first = ds[0]
    assert first[1].tolist() == [0, 0, 0, 0, 0, 0, 128, 63]
