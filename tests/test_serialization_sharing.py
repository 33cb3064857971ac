"""Checkpoints keep what PyTorch's pickle keeps: storage sharing (each storage written once, views
loading back as views), object identity (pickle's memo), Python attributes of tensors and state
dicts (``_metadata``), and the containers and values PyTorch's weights-only loader accepts."""

from __future__ import annotations

import base64
import io
import json
import struct
from collections import Counter, OrderedDict, defaultdict

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import serialization
from tensorlab.serialization import CheckpointError


def _bytes(obj, **kwargs) -> bytes:
    buf = io.BytesIO()
    tl.save(obj, buf, **kwargs)
    return buf.getvalue()


def _roundtrip(obj, **load_kwargs):
    return tl.load(io.BytesIO(_bytes(obj)), **load_kwargs)


def _header(raw: bytes) -> dict:
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n])


def _storage_ptr(t) -> int:
    return t.untyped_storage().data_ptr()


# ----------------------------------------------------------------------------------------------
# 1. storage sharing and identity
# ----------------------------------------------------------------------------------------------


def test_views_load_back_as_views_of_one_storage(device):
    x = tl.arange(6.0, device=device)
    y = _roundtrip({"x": x, "odd": x[1::2], "t": x.view(2, 3).t()})
    assert y["odd"].stride() == (2,) and y["odd"].storage_offset() == 1
    assert y["t"].stride() == (1, 3) and y["t"].storage_offset() == 0
    assert y["x"].device == x.device and _storage_ptr(y["x"]) == _storage_ptr(y["odd"]) == _storage_ptr(y["t"])
    y["odd"][0] = 100.0  # PyTorch: the write is seen through every view of the storage
    assert y["x"].tolist() == [0.0, 100.0, 2.0, 3.0, 4.0, 5.0]
    assert y["t"].tolist() == [[0.0, 3.0], [100.0, 4.0], [2.0, 5.0]]


def test_view_dtype_tensors_save_as_pytorch(device, tmp_path):
    # torch 2.15: a storage saved through views of one dtype loads back as that dtype's storage,
    # shared by the views (offsets counted in the view's elements)
    x = tl.tensor([1.0, 2.0, 3.0], device=device)
    y = _roundtrip({"b": x[1:].view(tl.int16), "c": x[1:].view(tl.int16)[1:]})
    y["c"].add_(1)
    assert y["b"].dtype == tl.int16 and y["b"].device == x.device
    assert y["b"].tolist() == [0, 16385, 1, 16449] and y["b"].storage_offset() == 2 and y["c"].storage_offset() == 3
    assert y["b"].untyped_storage().nbytes() == 12 and _storage_ptr(y["b"]) == _storage_ptr(y["c"])
    # a tensor and a view(dtype) of it in another dtype: PyTorch's refusal, and no file is written
    m = tl.nn.Linear(2, 2).to(device)
    m.register_buffer("bits", m.weight.detach().view(tl.int32))
    path = tmp_path / "m.safetensors"
    with pytest.raises(RuntimeError, match="^Cannot save multiple tensors or storages that view the same data as "
                                           "different types$"):
        tl.save(m.state_dict(), path)
    assert not path.exists()
    bits = tl.load(io.BytesIO(_bytes({"bits": m.bits})))["bits"]  # alone it saves
    assert bits.dtype == tl.int32 and tl.equal(bits, m.bits)
    same = _roundtrip({"a": x, "b": x.view(tl.float32)})  # the same dtype: one storage, shared
    same["b"].add_(1)
    assert same["a"].tolist() == [2.0, 3.0, 4.0]
    # a view whose storage ends in bytes that make no whole element of its dtype: the entry holds the
    # whole elements (torch 2.15 writes all 5 bytes and then fails to load its own file)
    u = tl.tensor([0, 0, 128, 63, 7], dtype=tl.uint8, device=device)
    f = _roundtrip({"f": u[:4].view(tl.float32)})["f"]
    assert f.tolist() == [1.0] and f.untyped_storage().nbytes() == 4


def test_a_storage_is_written_once():
    w = tl.randn(4, 3)
    sd = OrderedDict([("encoder.weight", w), ("decoder.weight", w), ("head", w[1:])])  # tied weights
    raw = _bytes(sd)
    header = _header(raw)
    entries = [k for k in header if k != "__metadata__"]
    assert entries == ["encoder.weight"] and header["encoder.weight"]["shape"] == [4, 3]
    assert len(raw) == 8 + struct.unpack("<Q", raw[:8])[0] + 4 * 12  # the data section holds w's 12 floats once
    back = tl.load(io.BytesIO(raw))
    assert back["encoder.weight"] is back["decoder.weight"]  # one object saved twice: one object loaded
    assert _storage_ptr(back["head"]) == _storage_ptr(back["encoder.weight"])
    assert back["head"].storage_offset() == 3 and tl.equal(back["head"], w[1:])


def test_the_same_object_saved_twice_loads_as_one():
    a = tl.ones(2)
    c = _roundtrip([a, a])
    assert c[0] is c[1]
    inner, d = [1, a], {"k": a}
    back = _roundtrip({"l": [inner, inner], "d": (d, d), "a": a})
    assert back["l"][0] is back["l"][1] and back["d"][0] is back["d"][1]
    assert back["a"] is back["l"][0][1] is back["d"][0]["k"]
    cyclic = [1]
    cyclic.append(cyclic)
    loop = _roundtrip(cyclic)
    assert loop[0] == 1 and loop[1] is loop


def test_parameter_and_its_data_share_and_keep_requires_grad():
    p = tl.nn.Parameter(tl.arange(4.0))
    back = _roundtrip({"p": p, "data": p.data, "tail": p.detach()[2:]})
    assert isinstance(back["p"], tl.nn.Parameter) and back["p"].requires_grad
    assert not back["data"].requires_grad and not back["tail"].requires_grad
    back["data"][0] = 7.0
    back["tail"][1] = 9.0
    assert back["p"].tolist() == [7.0, 1.0, 2.0, 9.0]


def test_sharing_survives_map_location():
    x = tl.arange(4.0)
    raw = _bytes({"x": x, "v": x[1:]})
    doubled = tl.load(io.BytesIO(raw), map_location=lambda t, loc: t.double())
    assert doubled["v"].dtype is tl.float64 and doubled["v"].tolist() == [1.0, 2.0, 3.0]
    doubled["v"][0] = -1.0
    assert doubled["x"].tolist() == [0.0, -1.0, 2.0, 3.0]
    default = tl.load(io.BytesIO(raw), map_location=lambda t, loc: None)  # None: where it was saved (PyTorch's)
    assert default["x"].is_cpu and _storage_ptr(default["x"]) == _storage_ptr(default["v"])
    # a map_location giving something other than the storage's elements is called on each tensor
    summed = tl.load(io.BytesIO(raw), map_location=lambda t, loc: t.sum())
    assert summed["x"].item() == 6.0 and summed["v"].item() == 6.0
    with pytest.raises(TypeError, match="map_location must return a Tensor .* but it returned str"):
        tl.load(io.BytesIO(raw), map_location=lambda t, loc: "junk")  # (PyTorch's TypeError; was loaded as 'junk')
    if tl.cuda.is_available():
        on_gpu = tl.load(io.BytesIO(raw), map_location="cuda")
        assert on_gpu["v"].is_cuda and _storage_ptr(on_gpu["x"]) == _storage_ptr(on_gpu["v"])
        on_gpu["v"][0] = 5.0
        assert on_gpu["x"].tolist() == [0.0, 5.0, 2.0, 3.0]
        back = tl.load(io.BytesIO(_bytes({"x": on_gpu["x"], "v": on_gpu["v"]})), map_location={"cuda:0": "cpu"})
        assert back["x"].is_cpu and _storage_ptr(back["x"]) == _storage_ptr(back["v"])


def test_views_that_do_not_fit_their_storage_are_refused():
    raw = bytearray(_bytes({"v": tl.arange(4.0)[1:]}))
    header = _header(bytes(raw))
    meta = header["__metadata__"]
    tree = json.loads(meta["tensorlab.structure"])
    tree["__dict__"][0][1]["offset"] = 2  # 2 + 3 elements > the storage's 4
    structure = json.dumps(tree)
    entries = {k: v for k, v in header.items() if k != "__metadata__"}
    data = bytes(raw[8 + struct.unpack("<Q", raw[:8])[0]:])
    import zlib

    meta.update({"tensorlab.structure": structure,
                 "tensorlab.crc32": str(serialization._checksum(structure, entries, zlib.crc32(data)))})
    head = json.dumps({"__metadata__": meta, **entries}).encode()
    with pytest.raises(CheckpointError, match="does not fit in storage"):
        tl.load(io.BytesIO(struct.pack("<Q", len(head)) + head + data))
    meta["format"] = "tensorlab-99"
    head = json.dumps({"__metadata__": meta, **entries}).encode()
    with pytest.raises(CheckpointError, match="newer tensorlab"):
        tl.load(io.BytesIO(struct.pack("<Q", len(head)) + head + data))


# A file written by tensorlab before format tensorlab-2 (one entry per tensor): it still loads.
_FORMAT_1_FILE = (
    "yAIAAAAAAAB7Il9fbWV0YWRhdGFfXyI6eyJmb3JtYXQiOiJ0ZW5zb3JsYWItMSIsInRlbnNvcmxhYi5zdHJ1Y3R1cmUiOiJ7XCJfX2RpY3RfX1wi"
    "OiBbW1widFwiLCB7XCJfX3RlbnNvcl9fXCI6IFwidFwiLCBcImRldmljZVwiOiBcImNwdVwiLCBcInJlcXVpcmVzX2dyYWRcIjogZmFsc2UsIFwi"
    "c3RyaWRlXCI6IFsxLCAzXX1dLCBbXCJwXCIsIHtcIl9fdGVuc29yX19cIjogXCJwXCIsIFwiZGV2aWNlXCI6IFwiY3B1XCIsIFwicmVxdWlyZXNf"
    "Z3JhZFwiOiB0cnVlLCBcInBhcmFtZXRlclwiOiB0cnVlfV0sIFtcImlcIiwge1wiX190ZW5zb3JfX1wiOiBcImlcIiwgXCJkZXZpY2VcIjogXCJj"
    "cHVcIiwgXCJyZXF1aXJlc19ncmFkXCI6IGZhbHNlfV0sIFtcIm9kXCIsIHtcIl9fZGljdF9fXCI6IFtbXCJzdGVwXCIsIDVdXSwgXCJvcmRlcmVk"
    "XCI6IHRydWV9XSwgW1wiZlwiLCB7XCJfX3R1cGxlX19cIjogW3tcIl9fZmxvYXRfX1wiOiBcImluZlwifSwgXCJhXCJdfV1dLCBcIm9yZGVyZWRc"
    "IjogZmFsc2V9IiwidGVuc29ybGFiLmNyYzMyIjoiMzcyNzkzNzYxNCJ9LCJ0Ijp7ImR0eXBlIjoiRjMyIiwic2hhcGUiOlszLDJdLCJkYXRhX29m"
    "ZnNldHMiOlswLDI0XX0sInAiOnsiZHR5cGUiOiJGMzIiLCJzaGFwZSI6WzJdLCJkYXRhX29mZnNldHMiOlsyNCwzMl19LCJpIjp7ImR0eXBlIjoi"
    "STY0Iiwic2hhcGUiOlsxXSwiZGF0YV9vZmZzZXRzIjpbMzIsNDBdfX0gICAgICAgAAAAAAAAQEAAAIA/AACAQAAAAEAAAKBAAACAPwAAAEAHAAAA"
    "AAAAAA=="
)


def test_format_1_files_still_load():
    back = tl.load(io.BytesIO(base64.b64decode(_FORMAT_1_FILE)))
    assert list(back) == ["t", "p", "i", "od", "f"]
    assert back["t"].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]] and back["t"].stride() == (1, 3)
    assert isinstance(back["p"], tl.nn.Parameter) and back["p"].requires_grad and back["p"].tolist() == [1.0, 2.0]
    assert back["i"].dtype is tl.int64 and back["i"].tolist() == [7]
    assert back["od"] == OrderedDict(step=5) and type(back["od"]) is OrderedDict
    assert back["f"] == (float("inf"), "a")


# ----------------------------------------------------------------------------------------------
# 2. a state dict's _metadata
# ----------------------------------------------------------------------------------------------


def test_state_dict_metadata_is_kept():
    class Versioned(tl.nn.Linear):
        _version = 2
        migrations = 0

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
            if local_metadata.get("version", 1) < 2:  # an old checkpoint: migrate (must not run for a new one)
                Versioned.migrations += 1
            super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    net = tl.nn.Sequential(Versioned(2, 2))
    sd = net.state_dict()
    back = _roundtrip(sd)
    assert type(back) is OrderedDict and back._metadata == sd._metadata
    assert back._metadata["0"]["version"] == 2
    net.load_state_dict(back)
    assert Versioned.migrations == 0

    class Plain(dict):
        pass

    d = Plain(a=1)
    d._metadata = {"": {"version": 3}}
    assert _roundtrip(d)._metadata == {"": {"version": 3}}


# ----------------------------------------------------------------------------------------------
# 3. attributes set on tensors
# ----------------------------------------------------------------------------------------------


def test_tensor_attributes_are_kept():
    t = tl.ones(2)
    t.foo = "foo"
    p = tl.nn.Parameter(tl.zeros(2))
    p.bar = [1, t, {"k": (2.5, None)}]
    back = _roundtrip({"t": t, "p": p})
    assert back["t"].foo == "foo"
    assert isinstance(back["p"], tl.nn.Parameter) and back["p"].bar[0] == 1 and back["p"].bar[2] == {"k": (2.5, None)}
    assert back["p"].bar[1] is back["t"]
    b = tl.nn.Buffer(tl.ones(1), persistent=False)
    loaded = _roundtrip(b)
    assert isinstance(loaded, tl.nn.Buffer) and loaded.persistent is False
    t.hook = object()
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        _bytes(t)


# ----------------------------------------------------------------------------------------------
# 4. more containers and values
# ----------------------------------------------------------------------------------------------


def test_more_containers_and_values_roundtrip():
    a = tl.ones(2)
    obj = {
        (1, 2): a, "set": {1, "x", (3, 4)}, "frozen": frozenset({1, 2}), "bytes": b"\x00ab", "ba": bytearray(b"cd"),
        "dev": tl.device("cpu"), "gpu": tl.device("cuda", 1), "count": Counter("aab"),
        "dd": defaultdict(list, {"a": [1]}), "ddnone": defaultdict(None, {1: 2}), "z": 1 + 2j,
        "zinf": complex(float("inf"), -1.0), frozenset({"k"}): 3, b"key": 4, None: 5, 2.5: 6, float("-inf"): 7,
    }
    back = _roundtrip(obj)
    assert list(back) == list(obj)
    assert tl.equal(back[(1, 2)], a)
    assert back["set"] == {1, "x", (3, 4)} and type(back["set"]) is set
    assert back["frozen"] == frozenset({1, 2}) and type(back["frozen"]) is frozenset
    assert back["bytes"] == b"\x00ab" and type(back["ba"]) is bytearray and back["ba"] == bytearray(b"cd")
    assert back["dev"] == tl.device("cpu") and back["gpu"] == tl.device("cuda:1") and isinstance(back["gpu"], tl.device)
    assert type(back["count"]) is Counter and back["count"] == Counter({"a": 2, "b": 1})
    assert type(back["dd"]) is defaultdict and back["dd"].default_factory is list and back["dd"] == {"a": [1]}
    assert back["ddnone"].default_factory is None
    assert back["z"] == 1 + 2j and back["zinf"] == complex(float("inf"), -1.0)
    assert back[frozenset({"k"})] == 3 and back[b"key"] == 4 and back[None] == 5 and back[2.5] == 6
    assert back[float("-inf")] == 7


def test_defaultdict_with_a_code_factory_is_refused():
    with pytest.raises(TypeError, match="default_factory"):
        _bytes({"d": defaultdict(lambda: 0)})


# ----------------------------------------------------------------------------------------------
# 5. PyTorch's save arguments
# ----------------------------------------------------------------------------------------------


def test_save_takes_pytorchs_pickle_arguments(tmp_path):
    import pickle

    obj = {"w": tl.arange(3.0)}
    tl.save(obj, tmp_path / "a", pickle, 2, _use_new_zipfile_serialization=False, _disable_byteorder_record=True)
    tl.save(obj, tmp_path / "b", pickle_module=pickle, pickle_protocol=pickle.HIGHEST_PROTOCOL)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes() == _bytes(obj)
    assert tl.load(tmp_path / "a")["w"].tolist() == [0.0, 1.0, 2.0]
    np.testing.assert_array_equal(tl.load(tmp_path / "b")["w"].numpy(), np.arange(3.0, dtype=np.float32))
