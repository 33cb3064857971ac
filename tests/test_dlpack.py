"""DLPack as PyTorch 2.15 speaks it: versioned (1.0) capsules both ways, dtypes numpy lacks (bfloat16)
from any producer, capsules a consumer rejects (no leak, its exception kept), ``from_dlpack`` of a
tensor (a new alias) and the ``__dlpack__`` arguments. Values in comments: PyTorch 2.15's."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import _dlpack

_INVALID = "from_dlpack received an invalid capsule"


class Wrapper:
    """A producer that is not a tensorlab tensor: only the two protocol methods."""

    def __init__(self, t, *, versioned=True):
        self.t, self.versioned, self.calls = t, versioned, []

    def __dlpack__(self, **kwargs):
        self.calls.append(sorted(kwargs))
        if not self.versioned and "max_version" in kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        return self.t.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def _name(capsule) -> str:
    return str(capsule).split('"')[1]


def _live_exports() -> dict:
    gc.collect()
    return dict(_dlpack._exports)


def test_from_dlpack_reads_versioned_capsules(device):
    c = tl.arange(5.0, device=device).__dlpack__(max_version=(1, 0))
    assert _name(c) == "dltensor_versioned"
    r = tl.from_dlpack(c)  # torch: tensor([0., 1., 2., 3., 4.]), the capsule renamed as the spec says
    assert r.device.type == device and r.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert _name(c) == "used_dltensor_versioned"
    legacy = tl.utils.dlpack.to_dlpack(tl.zeros(2, device=device))
    tl.utils.dlpack.from_dlpack(legacy)
    assert _name(legacy) == "used_dltensor"
    with pytest.raises(RuntimeError, match=_INVALID):  # torch: the same RuntimeError for a consumed capsule
        tl.from_dlpack(c)
    with pytest.raises(RuntimeError, match=_INVALID):
        tl.from_dlpack([1, 2])
    # __dlpack__(copy=...) capsules: torch's x after writing through the import: [1,1,1], [0,0,0], [1,1,1]
    for copy, expect in ((None, 1.0), (True, 0.0), (False, 1.0)):
        x = tl.zeros(3, device=device)
        tl.from_dlpack(x.__dlpack__(max_version=(1, 0), copy=copy)).add_(1)
        assert x.tolist() == [expect] * 3
    # a producer is asked for max_version=(1, 0) first, and again without it if it refuses (TypeError)
    w, old = Wrapper(tl.arange(3.0, device=device)), Wrapper(tl.arange(3.0, device=device), versioned=False)
    assert tl.from_dlpack(w).tolist() == [0.0, 1.0, 2.0] and "max_version" in w.calls[0]
    assert tl.from_dlpack(old).tolist() == [0.0, 1.0, 2.0] and "max_version" not in old.calls[-1]


def test_from_dlpack_numpy_versioned_and_read_only():
    a = np.arange(4.0)
    r = tl.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    r.add_(1)
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0]
    # numpy flags a read-only array's capsule READ_ONLY; torch shares it writable anyway:
    # torch.from_dlpack(ro).add_(1) leaves ro == [1., 1., 1.]
    ro = np.zeros(3)
    ro.flags.writeable = False
    tl.from_dlpack(ro).add_(1)
    assert ro.tolist() == [1.0, 1.0, 1.0]
    # torch: RuntimeError "Storage size calculation overflowed with sizes=[4] and strides=[-1]"
    with pytest.raises(RuntimeError, match="sizes=\\[4\\] and strides=\\[-1\\]"):
        tl.from_dlpack(np.arange(4.0)[::-1])


def test_from_dlpack_bfloat16_from_other_producers(device):
    vals = [1.0, -2.0, 3.0, 0.5, 5.0, 6.0]
    src = tl.tensor(vals, dtype=tl.bfloat16, device=device)
    r = tl.from_dlpack(Wrapper(src))  # torch.from_dlpack(W(bf16)): the values, bfloat16
    assert r.dtype is tl.bfloat16 and r.tolist() == vals
    r[0] = 7.0
    assert src[0].item() == 7.0  # shared
    m = tl.from_dlpack(Wrapper(src.view(2, 3).t()[1:]))
    assert m.stride() == (1, 3) and m.tolist() == [[-2.0, 5.0], [3.0, 6.0]]  # torch: stride (1, 3)
    # the producer stays alive (its export listed) until the last tensor over it dies
    before = _live_exports()
    t = tl.from_dlpack(Wrapper(tl.tensor(vals, dtype=tl.bfloat16, device=device)))
    assert len(_live_exports()) == len(before) + 1 and t.tolist() == vals
    if device == "cpu":
        a = t.numpy()  # a numpy view keeps it alive too
        del t
        assert len(_live_exports()) == len(before) + 1 and a.astype(np.float32).tolist() == vals
        del a
    else:
        del t
    assert _live_exports() == before


def test_rejected_export_is_released_and_keeps_the_error(device, monkeypatch):
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    before = _live_exports()
    # torch: np.from_dlpack(bf16) -> RuntimeError 'Unsupported dtype in DLTensor.' (cuda: numpy's
    # 'Unsupported device in DLTensor.'); numpy raises it with the capsule still unconsumed
    match = "Unsupported dtype" if device == "cpu" else "Unsupported device"
    for _ in range(20):
        with pytest.raises(RuntimeError, match=match):
            np.from_dlpack(tl.ones(2, dtype=tl.bfloat16, device=device))
        with pytest.raises(RuntimeError, match=_INVALID):
            tl.from_dlpack(object())
    assert _live_exports() == before and not unraisable
    c = tl.ones(2, device=device).__dlpack__()  # never consumed: released when it dies
    assert len(_live_exports()) == len(before) + 1
    del c
    assert _live_exports() == before


def test_from_dlpack_of_a_tensor_is_a_new_alias(device):
    x = tl.arange(10.0, device=device)[3:7]
    y = tl.from_dlpack(x)
    # torch: a new tensor, storage_offset() 0, the same data_ptr, requires_grad False
    assert y is not x and y.storage_offset() == 0 and y.data_ptr() == x.data_ptr() and not y.requires_grad
    y[0] = 100.0
    assert x.tolist() == [100.0, 4.0, 5.0, 6.0]
    leaf = tl.zeros(3, device=device, requires_grad=True)
    msg = "Can't export tensors that require gradient, use tensor.detach()"
    for t in (leaf, leaf * 2, tl.nn.Parameter(tl.zeros(2, device=device))):  # torch: BufferError for each
        with pytest.raises(BufferError, match=msg[:30]):
            tl.from_dlpack(t)
        with pytest.raises(BufferError, match=msg[:30]):
            t.__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        np.from_dlpack(tl.zeros(2, requires_grad=True))  # torch: the same BufferError


def test_legacy_to_dlpack_exports_a_tensor_that_requires_grad(device):
    x = tl.zeros(3, device=device, requires_grad=True)
    c = tl.utils.dlpack.to_dlpack(x)  # torch: a "dltensor" capsule; from_dlpack of it: requires_grad False
    assert _name(c) == "dltensor"
    r = tl.utils.dlpack.from_dlpack(c)
    assert not r.requires_grad and r.data_ptr() == x.data_ptr()


def test_dlpack_device_and_stream_arguments():
    t = tl.arange(5.0)
    # torch on cpu: dl_device (1, 0) and (1, 1) export; (16, 0): BufferError "Unsupported device_type: 16"
    assert _name(t.__dlpack__(max_version=(1, 0), dl_device=(1, 0))) == "dltensor_versioned"
    assert _name(t.__dlpack__(max_version=(1, 0), dl_device=(1, 1))) == "dltensor_versioned"
    assert _name(t.__dlpack__(dl_device=(1, 0))) == "dltensor"
    with pytest.raises(BufferError, match="Unsupported device_type: 16"):
        t.__dlpack__(max_version=(1, 0), dl_device=(16, 0))
    # torch on cpu: stream None/-1 export, 0/1/2 AssertionError, a non-int TypeError
    assert _name(t.__dlpack__(stream=-1)) == "dltensor"
    for s in (0, 1, 2):
        with pytest.raises(AssertionError, match="stream should be None on cpu"):
            t.__dlpack__(stream=s)
    with pytest.raises(TypeError, match="stream must be ``int`` or ``none``"):
        t.__dlpack__(stream=object())
    # torch 2.15's read_only=: versioned only (BufferError otherwise); numpy then sees a read-only array
    with pytest.raises(BufferError, match="read_only export requires the versioned DLPack protocol"):
        t.__dlpack__(read_only=True)

    class ReadOnly(Wrapper):
        def __dlpack__(self, **kwargs):
            return self.t.__dlpack__(read_only=True, **kwargs)

    assert not np.from_dlpack(ReadOnly(t)).flags.writeable and np.from_dlpack(t).flags.writeable
    # torch: __dlpack_device__() is (DLDeviceType.kDLCPU, 0)
    kind, index = t.__dlpack_device__()
    assert kind is tl.utils.dlpack.DLDeviceType.kDLCPU and kind == 1 and index == 0


def test_tensor_of_a_dlpack_producer_copies_bfloat16_too():
    # torch 2.15: torch.tensor(<a cpu DLPack producer>) copies its values, bfloat16 included
    # (np.from_dlpack, which tl.tensor read them through, has no bfloat16)
    src = tl.tensor([1.5, -2.0, 3.0], dtype=tl.bfloat16)
    t = tl.tensor(Wrapper(src))
    assert t.dtype is tl.bfloat16 and t.tolist() == [1.5, -2.0, 3.0]
    src.add_(1)
    assert t.tolist() == [1.5, -2.0, 3.0]  # a copy
    assert tl.tensor(Wrapper(tl.arange(3, dtype=tl.int16)), dtype=tl.float32).tolist() == [0.0, 1.0, 2.0]


def test_numpy_sharing_rules_as_pytorch():
    # torch 2.15: np.asarray(t, dtype=other, copy=False) raises (a copy was returned, writes lost);
    # a storage NumPy shares cannot grow (resize_ moved the tensor away from the array silently);
    # to_dlpack of a non-tensor is a TypeError
    import pickle

    t = tl.ones(3)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.asarray(t, dtype=np.float64, copy=False)
    assert np.asarray(t, dtype=np.float32, copy=False).base is not None
    a = np.zeros(3, np.float32)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        tl.from_numpy(a).resize_(10)
    assert tl.from_numpy(a).resize_(2).shape == (2,)
    u = tl.zeros(3)
    u.numpy()
    with pytest.raises(RuntimeError, match="not resizable"):
        u.resize_(10)
    v = tl.tensor([1.0, 2.0])
    v.tolist()
    assert v.resize_(5).shape == (5,)  # (a tensor made from data owns its memory)
    with pytest.raises(TypeError, match="to_dlpack\\(\\): argument 'tensor' must be Tensor"):
        tl.utils.dlpack.to_dlpack(np.zeros(2))
    # protocol 5's out-of-band buffers may be read-only bytes: the tensor is still writable
    buffers = []
    data = pickle.dumps(tl.arange(4.0), protocol=5, buffer_callback=buffers.append)
    w = pickle.loads(data, buffers=[bytes(b.raw()) for b in buffers])
    w.add_(1)
    assert w.tolist() == [1.0, 2.0, 3.0, 4.0]
