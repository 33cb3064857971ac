"""``tensorlab.return_types``: the named tuples ops return (max/min over a dim, sort, topk, ...), one class
per op as PyTorch's ``torch.return_types``, so results pickle, copy and cross DataLoader workers.

Observed in torch 2.15: ``type(torch.tensor([[3., 1.], [2., 4.]]).max(0))`` is ``torch.return_types.max``
(``__module__`` "torch.return_types", ``__qualname__`` "max"); ``pickle``/``copy.deepcopy`` give back that
class; the repr is ``torch.return_types.max(\\nvalues=tensor([3., 4.]),\\nindices=tensor([0, 1]))``."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import DataLoader, Dataset

X = [[3.0, 1.0], [2.0, 4.0]]

# (return type name, call, field names): each torch 2.15 result is torch.return_types.<name>
CASES = [
    ("max", lambda x: x.max(0), ("values", "indices")),
    ("min", lambda x: tl.min(x, 1, keepdim=True), ("values", "indices")),
    ("median", lambda x: tl.median(x, 0), ("values", "indices")),
    ("nanmedian", lambda x: x.nanmedian(1), ("values", "indices")),
    ("mode", lambda x: tl.mode(x, 0), ("values", "indices")),
    ("sort", lambda x: x.sort(1), ("values", "indices")),
    ("topk", lambda x: tl.topk(x, 1), ("values", "indices")),
    ("kthvalue", lambda x: x.kthvalue(1, 0), ("values", "indices")),
    ("cummax", lambda x: tl.cummax(x, 0), ("values", "indices")),
    ("cummin", lambda x: x.cummin(1), ("values", "indices")),
    ("aminmax", lambda x: tl.aminmax(x), ("min", "max")),
]
IDS = [c[0] for c in CASES]


def _same(a, b):
    assert type(a) is type(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(u.numpy(), v.numpy())


@pytest.mark.parametrize("name,call,fields", CASES, ids=IDS)
def test_result_is_the_return_types_class(name, call, fields):
    r = call(tl.tensor(X))
    cls = getattr(tl.return_types, name)
    assert type(r) is cls and isinstance(r, tuple)
    assert (cls.__module__, cls.__qualname__, cls.__name__) == ("tensorlab.return_types", name, name)
    assert r._fields == fields and all(getattr(r, f) is r[i] for i, f in enumerate(fields))


@pytest.mark.parametrize("name,call,fields", CASES, ids=IDS)
def test_result_pickles_and_copies(name, call, fields):
    r = call(tl.tensor(X))
    for protocol in (2, pickle.HIGHEST_PROTOCOL):  # torch: the class comes back (it raised PicklingError here)
        _same(pickle.loads(pickle.dumps(r, protocol=protocol)), r)
    assert pickle.dumps(r).count(b"tensorlab.return_types") == 1
    _same(copy.deepcopy(r), r)
    c = copy.copy(r)
    assert type(c) is type(r) and all(u is v for u, v in zip(c, r))


def test_repr_matches_pytorch_layout():
    # torch: "torch.return_types.max(\nvalues=tensor([3., 4.]),\nindices=tensor([0, 1]))"
    r = tl.tensor(X).max(0)
    assert repr(r) == str(r) == "tensorlab.return_types.max(\nvalues=tensor([3., 4.]),\nindices=tensor([0, 1]))"
    # torch: "torch.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(4.))"
    assert repr(tl.aminmax(tl.tensor(X))) == "tensorlab.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(4.))"
    # torch: "torch.return_types.sort(\nvalues=tensor([[1., 3.],\n        [2., 4.]]),\nindices=tensor([[1, 0],\n ..."
    assert repr(tl.tensor(X).sort(1)) == ("tensorlab.return_types.sort(\nvalues=tensor([[1., 3.],\n        [2., 4.]]),"
                                          "\nindices=tensor([[1, 0],\n        [0, 1]]))")


def test_construct_from_one_sequence_as_pytorch_structseq():
    v, i = tl.tensor([3.0, 4.0]), tl.tensor([0, 1])
    # torch: torch.return_types.max((v, i)) / ([v, i]) build the result; n_fields == n_sequence_fields == 2
    for r in (tl.return_types.max((v, i)), tl.return_types.max([v, i]), tl.return_types.max(v, i)):
        assert type(r) is tl.return_types.max and r.values is v and r.indices is i
    assert (tl.return_types.max.n_fields, tl.return_types.max.n_sequence_fields,
            tl.return_types.max.n_unnamed_fields) == (2, 2, 0)
    # torch: TypeError "torch.return_types.max() takes a 2-sequence (1-sequence given)" (3-sequence likewise)
    with pytest.raises(TypeError, match=r"return_types\.max\(\) takes a 2-sequence \(1-sequence given\)"):
        tl.return_types.max([v])
    with pytest.raises(TypeError, match=r"takes a 2-sequence \(3-sequence given\)"):
        tl.return_types.sort([v, i, v])
    r = tl.return_types.aminmax((v, i))
    assert r.min is v and r.max is i
    # a plain tuple still compares equal, slices to a tuple and unpacks (torch: the same)
    r = tl.tensor(X).max(0)
    assert r == tuple(r) and type(r[0:1]) is tuple and len(r + (1,)) == 3


def test_module_lists_pytorch_names():
    # each is a torch.return_types name in torch 2.15
    assert sorted(tl.return_types.__all__) == ["aminmax", "cummax", "cummin", "frexp", "histogram", "histogramdd",
                                               "kthvalue", "max", "median", "min", "mode", "nanmedian", "sort", "topk"]
    assert tl.return_types.sort is type(tl.sort(tl.tensor([2.0, 1.0])))
    assert tl.return_types.histogram is type(tl.histogram(tl.tensor([2.0, 1.0])))


def test_out_and_methods_keep_identity_and_class():
    x = tl.tensor(X)
    values, indices = tl.empty(2), tl.empty(2, dtype=tl.int64)
    r = tl.max(x, 0, out=(values, indices))
    assert r.values is values and r.indices is indices
    assert type(x.sort()) is type(tl.sort(x)) is tl.return_types.sort


class _MaxDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return tl.tensor([[float(i), 1.0], [2.0, 4.0]]).max(0)


def test_dataloader_workers_send_results_back():
    # torch 2.15: a worker pickles the sample back (torch's collate then yields a list [values, indices]);
    # here the worker's pickling failed ("it's not the same object as tensorlab.ops.reductions.max")
    for batch_size in (None, 2):
        batches = list(DataLoader(_MaxDataset(), batch_size=batch_size, num_workers=2))
        ref = list(DataLoader(_MaxDataset(), batch_size=batch_size, num_workers=0))
        assert len(batches) == len(ref) == (4 if batch_size is None else 2)
        for b, r in zip(batches, ref):
            assert len(b) == 2
            for u, v in zip(b, r):
                np.testing.assert_array_equal(u.numpy(), v.numpy())
