"""Checkpoints: round trips, the safetensors layout, atomic writes, validation of damaged files."""

from __future__ import annotations

import io
import os
import struct
from collections import OrderedDict

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.serialization import CheckpointError


def _sample_state():
    return {
        "model": OrderedDict([("fc.weight", tl.randn(3, 4)), ("fc.bias", tl.zeros(3, dtype=tl.float64)),
                              ("emb", tl.arange(6, dtype=tl.int32).view(2, 3).t())]),  # non-contiguous
        "optimizer": {"state": {0: {"step": tl.tensor(3.0), "exp_avg": tl.ones(2, dtype=tl.bfloat16)}},
                      "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1], "amsgrad": False,
                                        "weight_decay": 0.0, "name": None, "eps": float("inf")}]},
        "epoch": 7,
        "note": "hello",
        "flags": [True, None, 2.5, tl.tensor([True, False])],
        "half": tl.tensor([1.5, -2.0], dtype=tl.float16),
    }


def _assert_same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, tl.Tensor):
        assert a.dtype is b.dtype and a.shape == b.shape and a.device == b.device
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, list | tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        assert a == b


def test_roundtrip_nested_structures(tmp_path):
    obj = _sample_state()
    path = tmp_path / "ckpt.safetensors"
    tl.save(obj, path)
    _assert_same(obj, tl.load(path))
    t = tl.linspace(0, 1, 5, dtype=tl.float64)
    tl.save(t, tmp_path / "t.st")
    _assert_same(t, tl.load(tmp_path / "t.st"))
    # PyTorch's load arguments (its docs pass encoding="ascii"): taken, changing nothing (no pickle)
    import pickle

    _assert_same(obj, tl.load(path, None, pickle, weights_only=False, mmap=True, encoding="ascii"))


def test_requires_grad_and_devices_restored(tmp_path):
    w = tl.randn(2, 2, requires_grad=True)
    tl.save({"w": w}, tmp_path / "a")
    back = tl.load(tmp_path / "a")["w"]
    assert back.requires_grad and back.is_leaf
    if tl.cuda.is_available():
        tl.save({"c": tl.ones(3, device="cuda")}, tmp_path / "b")
        assert tl.load(tmp_path / "b")["c"].is_cuda
        assert tl.load(tmp_path / "b", map_location="cpu")["c"].is_cpu
        assert tl.load(tmp_path / "b", map_location={"cuda:0": "cpu"})["c"].is_cpu
        assert tl.load(tmp_path / "a", map_location="cuda")["w"].is_cuda
    moved = tl.load(tmp_path / "a", map_location=lambda t, loc: t.double())
    assert moved["w"].dtype is tl.float64


def test_readable_by_safetensors_library(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    sd = OrderedDict([("layer.weight", tl.randn(4, 3)), ("layer.bias", tl.arange(4, dtype=tl.int64))])
    tl.save(sd, tmp_path / "m.safetensors")
    loaded = safetensors_numpy.load_file(str(tmp_path / "m.safetensors"))
    np.testing.assert_array_equal(loaded["layer.weight"], sd["layer.weight"].numpy())
    np.testing.assert_array_equal(loaded["layer.bias"], sd["layer.bias"].numpy())
    # and a file written by the safetensors library loads as a dict of tensors
    safetensors_numpy.save_file({"x": np.arange(3, dtype=np.float32)}, str(tmp_path / "ext.safetensors"))
    ext = tl.load(tmp_path / "ext.safetensors")
    assert list(ext) == ["x"] and ext["x"].tolist() == [0.0, 1.0, 2.0]


def test_header_layout(tmp_path):
    tl.save({"a": tl.ones(2)}, tmp_path / "f")
    raw = (tmp_path / "f").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0 and raw[8:9] == b"{"
    import json

    header = json.loads(raw[8:8 + n])
    assert header["a"] == {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    assert header["__metadata__"]["format"] == "tensorlab-2"
    assert len(raw) == 8 + n + 8


def test_no_pickle_for_unsupported_objects(tmp_path):
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        tl.save({"x": object()}, tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_atomic_write_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "ckpt"
    tl.save({"v": tl.tensor([1.0])}, path)
    original = path.read_bytes()

    def exploding_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", exploding_fsync)
    with pytest.raises(OSError, match="disk full"):
        tl.save({"v": tl.tensor([2.0])}, path)
    monkeypatch.undo()
    assert path.read_bytes() == original
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt"]  # no temp file left behind
    assert tl.load(path)["v"].tolist() == [1.0]


def test_save_into_a_missing_directory_names_it(tmp_path):
    # PyTorch's RuntimeError and words; the OSError of the temporary file named a file the user never chose
    with pytest.raises(RuntimeError, match=f"Parent directory {tmp_path / 'missing'} does not exist"):
        tl.save({"v": tl.tensor([1.0])}, tmp_path / "missing" / "ckpt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cut", [0, 5, 8, 20, -1, -5])
def test_truncated_files_raise(tmp_path, cut):
    path = tmp_path / "ckpt"
    tl.save(_sample_state(), path)
    raw = path.read_bytes()
    path.write_bytes(raw[:cut] if cut >= 0 else raw[:len(raw) + cut])
    with pytest.raises(CheckpointError, match=str(path).replace("\\", "\\\\")):
        tl.load(path)


def test_bit_flips_are_detected(tmp_path):
    path = tmp_path / "ckpt"
    original = _sample_state()
    tl.save(original, path)
    raw = bytearray(path.read_bytes())
    rng = np.random.default_rng(0)
    positions = list(range(0, 8)) + sorted(rng.choice(np.arange(8, len(raw)), size=60, replace=False).tolist())
    detected = 0
    for pos in positions:
        damaged = bytearray(raw)
        damaged[pos] ^= 1 << int(rng.integers(0, 8))
        path.write_bytes(bytes(damaged))
        try:
            result = tl.load(path)
        except CheckpointError as exc:
            assert str(path) in str(exc)
            detected += 1
            continue
        # Only a flip in the header's JSON padding can leave the file meaning the same thing.
        _assert_same(result, original)
    assert detected >= len(positions) - 3


def test_header_validation_messages(tmp_path):
    import json

    def write(header: dict, data: bytes = b""):
        head = json.dumps(header).encode()
        (tmp_path / "x").write_bytes(struct.pack("<Q", len(head)) + head + data)

    write({"t": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8)
    with pytest.raises(CheckpointError, match="holds 8 bytes but dtype float32 and shape"):
        tl.load(tmp_path / "x")
    write({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 4)
    with pytest.raises(CheckpointError, match="truncated"):
        tl.load(tmp_path / "x")
    write({"t": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8)
    with pytest.raises(CheckpointError, match="unsupported dtype"):
        tl.load(tmp_path / "x")
    write({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
           "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}}, b"\0" * 6)
    with pytest.raises(CheckpointError, match="overlap"):
        tl.load(tmp_path / "x")
    (tmp_path / "x").write_bytes(struct.pack("<Q", 2**40) + b"{}")
    with pytest.raises(CheckpointError, match="exceeds the limit"):
        tl.load(tmp_path / "x")
    with pytest.raises(FileNotFoundError, match="no such file"):
        tl.load(tmp_path / "missing")


@pytest.mark.skipif(not tl.cuda.is_available(), reason="needs a cuda device (real or interpreted) to write one")
def test_cuda_checkpoint_without_cuda_asks_for_map_location(tmp_path, monkeypatch):
    tl.save({"w": tl.ones(2, device="cuda")}, tmp_path / "c")
    monkeypatch.setattr(tl.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        tl.load(tmp_path / "c")
    assert tl.load(tmp_path / "c", map_location="cpu")["w"].tolist() == [1.0, 1.0]


def test_a_metadata_named_entry_does_not_shadow_the_header(tmp_path):
    """A top-level key "__metadata__" is stored under another tensor name: the header's own
    __metadata__ entry (the structure, the checksum) stays intact and everything loads back."""
    buf = io.BytesIO()
    tl.save({"__metadata__": tl.ones(1), "step": 5, "model": {"w": tl.ones(2)}}, buf)
    buf.seek(0)
    back = tl.load(buf)
    assert back["step"] == 5 and back["__metadata__"].tolist() == [1.0] and back["model"]["w"].tolist() == [1.0, 1.0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX links, FIFOs and modes")
def test_save_writes_through_links_and_special_files(tmp_path):
    """save(path) replaces a regular file atomically, but as PyTorch writes through the path: a
    symlink keeps pointing at its (new) target, a hard-linked file and a FIFO are written in place,
    and the file keeps its permissions (a new one gets 0666 less the umask, not mkstemp's 0600)."""
    import stat
    import threading

    target, link, hard = tmp_path / "target.pt", tmp_path / "link.pt", tmp_path / "hard.pt"
    tl.save(tl.ones(2), target)
    os.symlink(target, link)
    tl.save(tl.zeros(3), link)
    assert link.is_symlink() and tl.load(target).tolist() == [0.0, 0.0, 0.0]
    os.link(target, hard)
    tl.save(tl.full((2,), 7.0), target)
    assert tl.load(hard).tolist() == [7.0, 7.0]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    tl.save(tl.ones(1), fifo)
    reader.join()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and tl.load(io.BytesIO(got[0])).tolist() == [1.0]
    umask = os.umask(0o022)
    try:
        new = tmp_path / "new.pt"
        tl.save(tl.ones(1), new)
        assert stat.S_IMODE(os.stat(new).st_mode) == 0o644
        os.chmod(new, 0o640)
        tl.save(tl.ones(1), new)
        assert stat.S_IMODE(os.stat(new).st_mode) == 0o640
    finally:
        os.umask(umask)


def _roundtrip(obj):
    buf = io.BytesIO()
    tl.save(obj, buf)
    buf.seek(0)
    return tl.load(buf)


def test_parameters_load_back_as_parameters():
    m = tl.nn.Linear(2, 3)
    loaded = _roundtrip({"w": m.weight, "frozen": tl.nn.Parameter(tl.ones(2), requires_grad=False),
                         "plain": tl.ones(2, requires_grad=True)})
    assert isinstance(loaded["w"], tl.nn.Parameter) and loaded["w"].requires_grad
    assert tl.equal(loaded["w"], m.weight)
    assert isinstance(loaded["frozen"], tl.nn.Parameter) and not loaded["frozen"].requires_grad
    assert not isinstance(loaded["plain"], tl.nn.Parameter) and loaded["plain"].requires_grad
    m.weight = loaded["w"]  # assignable as a module's parameter, as a torch.load'ed Parameter is
    assert m.weight is loaded["w"]


def test_numpy_bools_and_sizes_roundtrip():
    loaded = _roundtrip({"flag": np.bool_(True), "shape": tl.Size([2, 3]), "empty": tl.Size([])})
    assert loaded["flag"] is True
    assert isinstance(loaded["shape"], tl.Size) and loaded["shape"] == (2, 3)
    assert isinstance(loaded["empty"], tl.Size) and loaded["empty"] == ()


def test_dense_layouts_load_back_as_saved(device):
    x = tl.arange(6.0, device=device).view(2, 3).t()
    p = tl.nn.Parameter(tl.ones(2, 3, device=device).t())
    nhwc = tl.arange(24.0, device=device).reshape(1, 2, 3, 4).contiguous(memory_format=tl.channels_last)
    loaded = _roundtrip({"t": x, "p": p, "nhwc": nhwc, "every_other": tl.arange(10.0, device=device)[::2]})
    assert loaded["t"].stride() == (1, 3) and not loaded["t"].is_contiguous() and tl.equal(loaded["t"], x)
    assert isinstance(loaded["p"], tl.nn.Parameter) and loaded["p"].stride() == (1, 3) and loaded["p"].requires_grad
    assert loaded["nhwc"].is_contiguous(memory_format=tl.channels_last) and tl.equal(loaded["nhwc"], nhwc)
    # not dense: its whole storage is saved and it loads back as the same view of it (PyTorch's)
    assert loaded["every_other"].stride() == (2,) and loaded["every_other"].untyped_storage().nbytes() == 40
    assert loaded["every_other"].tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_pytorch_pickle_checkpoints_are_named_as_such(tmp_path):
    # a pytorch_model.bin (torch.save's zip of pickles, or the legacy bare pickle) was reported as a
    # corrupted tensorlab file ("header length 578712552184433488 exceeds the limit"); it now says what it is
    import pickle
    import zipfile
    with zipfile.ZipFile(tmp_path / "pytorch_model.bin", "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({}))
    with pytest.raises(CheckpointError, match="zip archive of pickles, as torch.save writes.*safetensors"):
        tl.load(tmp_path / "pytorch_model.bin")
    (tmp_path / "legacy.pt").write_bytes(pickle.dumps({"a": 1}, protocol=2))
    with pytest.raises(CheckpointError, match="a pickle, as torch.save writes"):
        tl.load(tmp_path / "legacy.pt")
