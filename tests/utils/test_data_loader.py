"""DataLoader: argument checks, len(), batching, ordering and seeding with and without workers,
IterableDataset sharding, persistent workers, shared-memory transport, pin_memory."""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    TensorDataset,
    _shm,
    default_collate,
    get_worker_info,
)

from .data_helpers import ArrayDataset, RandomDataset, RangeIterable, assert_no_leaks, shm_entries


@pytest.fixture(autouse=True)
def no_leaks():
    yield
    gc.collect()
    assert_no_leaks()


class Plain(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i


# ----------------------------------------------------------------------------------------------
# argument checks (PyTorch's)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, match", [
    ({"num_workers": -1}, "num_workers option should be non-negative"),
    ({"timeout": -1}, "timeout option should be non-negative"),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in multiprocessing"),
    ({"num_workers": 1, "prefetch_factor": -1}, "prefetch_factor option should be non-negative"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"shuffle": True, "sampler": [0, 1]}, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "shuffle": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "sampler": [0]}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "drop_last": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching"),
    ({"batch_size": 0}, "batch_size should be a positive integer value, but got batch_size=0"),
    ({"multiprocessing_context": "fork"}, "multiprocessing_context can only be used with multi-process loading"),
    ({"num_workers": 1, "multiprocessing_context": "nope"}, "valid start method"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(Plain(4), **kwargs)


def test_argument_errors_iterable_dataset():
    ds = RangeIterable(4)
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(ds, shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(ds, sampler=[0])
    with pytest.raises(ValueError, match="expected unspecified batch_sampler option"):
        DataLoader(ds, batch_sampler=[[0]])
    DataLoader(ds, shuffle=False)  # False and None are fine, as in PyTorch


def test_attributes_frozen_after_init():
    dl = DataLoader(Plain(4), batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        dl.batch_size = 3
    dl.num_workers = 0  # not a frozen attribute


def test_multiprocessing_context_type_error():
    with pytest.raises(TypeError, match="multiprocessing_context option should be a valid context object"):
        DataLoader(Plain(4), num_workers=1, multiprocessing_context=3)


def test_too_many_workers_warns():
    with pytest.warns(UserWarning, match="worker processes in total"):
        DataLoader(Plain(4), num_workers=os.cpu_count() * 64)


# ----------------------------------------------------------------------------------------------
# len() and batching without workers
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, bs, drop_last, expected", [(10, 3, False, 4), (10, 3, True, 3), (9, 3, True, 3),
                                                        (2, 5, False, 1), (2, 5, True, 0)])
def test_len(n, bs, drop_last, expected):
    dl = DataLoader(Plain(n), batch_size=bs, drop_last=drop_last)
    assert len(dl) == expected
    assert len(list(dl)) == expected


def test_len_batch_size_none_and_batch_sampler_and_iterable():
    assert len(DataLoader(Plain(7), batch_size=None)) == 7
    assert len(DataLoader(Plain(7), batch_sampler=BatchSampler(SequentialSampler(range(7)), 2, False))) == 4
    assert len(DataLoader(RangeIterable(7), batch_size=2)) == 4
    assert len(DataLoader(RangeIterable(7), batch_size=2, drop_last=True)) == 3

    class NoLen(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    with pytest.raises(TypeError):
        len(DataLoader(NoLen()))


def test_sequential_batches_values():
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10)
    dl = DataLoader(TensorDataset(tl.from_numpy(x), tl.from_numpy(y)), batch_size=4)
    batches = list(dl)
    assert [b[0].shape for b in batches] == [(4, 3), (4, 3), (2, 3)]
    np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in batches]), x)
    np.testing.assert_array_equal(np.concatenate([b[1].numpy() for b in batches]), y)
    assert batches[0][1].dtype is tl.int64


def test_batch_size_none_converts_samples():
    dl = DataLoader(ArrayDataset(3, (2,)), batch_size=None)
    samples = list(dl)
    assert len(samples) == 3
    x, i = samples[2]  # tuples come back as lists (default_convert, as PyTorch)
    assert isinstance(x, tl.Tensor) and x.shape == (2,) and x.dtype is tl.float32
    assert i == 2 and isinstance(i, int)


def test_custom_batch_sampler_and_collate():
    dl = DataLoader(Plain(6), batch_sampler=[[5, 0], [2], [1, 3, 4]], collate_fn=lambda b: tuple(b))
    assert list(dl) == [(5, 0), (2,), (1, 3, 4)]


def test_getitems_is_used_for_batches():
    class Batched(Plain):
        calls = []

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [10 * i for i in indices]

    ds = Batched(5)
    out = [b.tolist() for b in DataLoader(ds, batch_size=2)]
    assert out == [[0, 10], [20, 30], [40]]
    assert ds.calls == [[0, 1], [2, 3], [4]]


def test_shuffle_is_a_permutation_and_reproducible():
    def epoch(seed):
        g = tl.Generator().manual_seed(seed)
        return [i for b in DataLoader(Plain(50), batch_size=7, shuffle=True, generator=g) for i in b.tolist()]

    a, b, c = epoch(3), epoch(3), epoch(4)
    assert sorted(a) == list(range(50))
    assert a == b and a != c
    assert a != list(range(50))


def test_shuffle_uses_default_generator_when_none():
    tl.manual_seed(11)
    a = [i for b in DataLoader(Plain(20), batch_size=5, shuffle=True) for i in b.tolist()]
    tl.manual_seed(11)
    b = [i for b in DataLoader(Plain(20), batch_size=5, shuffle=True) for i in b.tolist()]
    assert a == b and sorted(a) == list(range(20))


def test_single_process_iterable_dataset():
    assert [b.tolist() for b in DataLoader(RangeIterable(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(RangeIterable(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert list(DataLoader(RangeIterable(3), batch_size=None)) == [0, 1, 2]


def test_worker_info_is_none_in_main_process():
    assert get_worker_info() is None


# ----------------------------------------------------------------------------------------------
# workers
# ----------------------------------------------------------------------------------------------


def _indices(loader):
    return [b[1].tolist() for b in loader]


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
@pytest.mark.parametrize("num_workers", [1, 2, 3])
def test_order_is_independent_of_num_workers(num_workers):
    ds = ArrayDataset(37)

    def run(nw):
        g = tl.Generator().manual_seed(5)
        return _indices(DataLoader(ds, batch_size=4, shuffle=True, num_workers=nw, generator=g))

    ref = run(0)
    assert sorted(i for b in ref for i in b) == list(range(37))
    assert run(num_workers) == ref


def test_out_of_order_arrival_is_reordered(monkeypatch):
    class Uneven(Dataset):
        # Worker 0 gets the even batches; make them slow so odd batches arrive first.
        def __len__(self):
            return 12

        def __getitem__(self, i):
            import time

            if (i // 2) % 2 == 0:
                time.sleep(0.03)
            return i

    from tensorlab.utils.data import dataloader as dl_mod

    arrivals = []
    orig = dl_mod._MultiProcessingDataLoaderIter._get_message

    def spy(self):
        msg = orig(self)
        arrivals.append((msg[1], self._rcvd_idx))
        return msg

    monkeypatch.setattr(dl_mod._MultiProcessingDataLoaderIter, "_get_message", spy)
    out = [b.tolist() for b in DataLoader(Uneven(), batch_size=2, num_workers=2, prefetch_factor=3)]
    assert out == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]
    assert any(idx != expected for idx, expected in arrivals), f"no out-of-order arrival: {arrivals}"


def test_batches_values_through_workers():
    ds = ArrayDataset(10, (8, 64))  # 2 KiB per sample: a batch of 4 is 8 KiB -> shared memory
    for x, i in DataLoader(ds, batch_size=4, num_workers=2):
        assert x.dtype is tl.float32 and x.shape == (len(i), 8, 64)
        expected = np.broadcast_to(np.asarray(i.tolist(), np.float32)[:, None, None], x.shape)
        np.testing.assert_array_equal(x.numpy(), expected)


def test_large_batches_arrive_in_shared_memory_and_small_ones_pickled():
    ds = ArrayDataset(8, (8, 64))
    batches = list(DataLoader(ds, batch_size=4, num_workers=2))
    for x, i in batches:
        assert isinstance(x._storage.owner, _shm.Segment), "large batch should be mapped from a shm segment"
        assert x.nbytes >= _shm.MIN_BYTES
        assert i.nbytes < _shm.MIN_BYTES and i._storage.owner is None  # 32 bytes of labels ride in the message
    # the iterator is exhausted and shut down: every name is unlinked, the memory lives on only
    # through the mappings the tensors hold
    assert shm_entries() == []
    x0 = batches[0][0]
    del batches
    gc.collect()
    np.testing.assert_array_equal(x0.numpy()[1], np.full((8, 64), 1, np.float32))


def test_segments_are_reused_once_released():
    dl = DataLoader(ArrayDataset(120, (16, 64)), batch_size=4, num_workers=2, persistent_workers=True)
    names = []
    for _ in range(2):
        for x, _ in dl:
            names.append(x._storage.owner.name)
    assert len(names) == 60
    # each worker keeps at most prefetch_factor batches in flight plus a few released ones
    assert len(set(names)) <= 2 * 6, sorted(set(names))
    del dl, x
    gc.collect()


def test_held_batches_are_never_overwritten():
    # Keep some batches (as tensors, and as bare numpy views whose tensor is gone) while the
    # loader keeps producing: a segment may only be reused once nothing maps it.
    kept_tensors, kept_views = [], []
    for k, (x, i) in enumerate(DataLoader(ArrayDataset(160, (16, 64)), batch_size=4, num_workers=2)):
        if k % 3 == 0:
            kept_tensors.append((x, i.tolist()))
        elif k % 3 == 1:
            kept_views.append((x.numpy()[1:], i.tolist()[1:]))  # the tensor itself is dropped
    gc.collect()
    for x, idx in kept_tensors:
        np.testing.assert_array_equal(x.numpy()[:, 0, 0], np.asarray(idx, np.float32))
    for v, idx in kept_views:
        np.testing.assert_array_equal(v[:, 0, 0], np.asarray(idx, np.float32))
        assert (v == np.asarray(idx, np.float32)[:, None, None]).all()


def test_shared_memory_tensor_outlives_iterator_and_is_writable():
    it = iter(DataLoader(ArrayDataset(4, (8, 64)), batch_size=2, num_workers=1))
    x, _ = next(it)
    del it
    gc.collect()
    x.numpy()[0, 0, 0] = 42.0
    assert float(x[0, 0, 0].item()) == 42.0


def test_numpy_and_structures_through_shared_memory():
    class Mixed(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return {"img": np.full((32, 32), i, np.uint8), "name": f"s{i}", "meta": (i, float(i) / 2)}

    def collate(batch):  # numpy out: the loader must keep numpy as numpy
        return {"img": np.stack([b["img"] for b in batch]), "names": [b["name"] for b in batch],
                "tensor": default_collate([b["img"] for b in batch])}

    out = list(DataLoader(Mixed(), batch_size=3, num_workers=2, collate_fn=collate))
    assert [b["names"] for b in out] == [["s0", "s1", "s2"], ["s3", "s4", "s5"]]
    img = out[1]["img"]
    assert type(img) is np.ndarray and img.shape == (3, 32, 32) and img.dtype == np.uint8
    np.testing.assert_array_equal(img[:, 0, 0], [3, 4, 5])
    t = out[1]["tensor"]
    assert isinstance(t, tl.Tensor) and t.dtype is tl.uint8
    np.testing.assert_array_equal(t.numpy(), img)


def test_default_convert_with_workers():
    out = list(DataLoader(ArrayDataset(4, (40, 40)), batch_size=None, num_workers=2))
    assert [s[1] for s in out] == [0, 1, 2, 3]
    assert all(isinstance(s[0], tl.Tensor) and s[0].shape == (40, 40) for s in out)
    np.testing.assert_array_equal(out[3][0].numpy(), np.full((40, 40), 3, np.float32))


def test_worker_seeding_and_worker_info():
    ds = RandomDataset(8)

    def run():
        g = tl.Generator().manual_seed(123)
        return [s for b in DataLoader(ds, batch_size=2, num_workers=2, generator=g) for s in _unbatch(b)]

    a, b = run(), run()
    assert a == b, "the loader's generator must reproduce worker random streams"
    by_worker = {}
    for s in a:
        by_worker.setdefault(s["worker"], []).append(s)
    assert sorted(by_worker) == [0, 1]
    seeds = {w: {s["seed"] for s in v} for w, v in by_worker.items()}
    assert len(seeds[0]) == 1 and len(seeds[1]) == 1
    assert seeds[1].pop() == seeds[0].pop() + 1  # base_seed + worker_id
    # workers draw different numbers from numpy, random and tensorlab
    first = {w: v[0] for w, v in by_worker.items()}
    for key in ("np", "py", "tl"):
        assert first[0][key] != first[1][key]
    # a different generator seed gives different streams
    g = tl.Generator().manual_seed(124)
    c = [s for b in DataLoader(ds, batch_size=2, num_workers=2, generator=g) for s in _unbatch(b)]
    assert [s["np"] for s in c] != [s["np"] for s in a]


def test_worker_seed_follows_manual_seed():
    def run():
        tl.manual_seed(77)
        return [s["tl"] for b in DataLoader(RandomDataset(4), batch_size=2, num_workers=1) for s in _unbatch(b)]

    assert run() == run()


def _unbatch(batch: dict) -> list[dict]:
    n = len(batch["i"])
    return [{k: (v[j].item() if isinstance(v, tl.Tensor) else v[j]) for k, v in batch.items()} for j in range(n)]


def test_worker_init_fn_sees_worker_info():
    class Echo(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = get_worker_info()
            return (i, info.id, info.num_workers, getattr(info.dataset, "tag", None))

    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id
        info.dataset.tag = f"init{worker_id}"  # the worker's own copy of the dataset

    out = [tuple(x.tolist() if isinstance(x, tl.Tensor) else x for x in b)
           for b in DataLoader(Echo(), batch_size=2, num_workers=2, worker_init_fn=init)]
    assert out[0][1] == [0, 0] and out[1][1] == [1, 1]
    assert out[0][2] == [2, 2]
    assert out[0][3] == ("init0", "init0") and out[1][3] == ("init1", "init1")  # (a string field: a tuple, as PyTorch)


def test_worker_info_is_read_only():
    class Check(Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            info = get_worker_info()
            try:
                info.id = 5
            except RuntimeError as e:
                return str(e)
            return "assigned"

    out = list(DataLoader(Check(), batch_size=None, num_workers=1))
    assert out == ["Cannot assign attributes to WorkerInfo objects"]


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
@pytest.mark.parametrize("num_workers", [1, 2, 3])
def test_iterable_dataset_sharded_by_worker_info(num_workers):
    out = [b.tolist() for b in DataLoader(RangeIterable(10), batch_size=2, num_workers=num_workers)]
    flat = sorted(i for b in out for i in b)
    assert flat == list(range(10))
    # deterministic: the same run again gives the same batches
    assert out == [b.tolist() for b in DataLoader(RangeIterable(10), batch_size=2, num_workers=num_workers)]


def test_iterable_dataset_batch_size_none_with_workers():
    out = list(DataLoader(RangeIterable(5), batch_size=None, num_workers=2))
    assert out == [0, 1, 2, 3, 4]  # round robin over workers 0 (0, 2, 4) and 1 (1, 3)


def test_iterable_dataset_without_sharding_duplicates_per_worker():
    class NoShard(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    out = sorted(i for b in DataLoader(NoShard(), batch_size=2, num_workers=2) for i in b.tolist())
    assert out == [0, 0, 1, 1, 2, 2]  # PyTorch's behaviour: sharding is the dataset's job


def test_iterable_dataset_drop_last_with_workers():
    out = [b.tolist() for b in DataLoader(RangeIterable(10), batch_size=3, num_workers=2, drop_last=True)]
    # worker 0 yields 0,2,4,6,8 -> [0,2,4]; worker 1 yields 1,3,5,7,9 -> [1,3,5]; partial batches dropped
    assert out == [[0, 2, 4], [1, 3, 5]]


def test_persistent_workers_reuse_processes_and_epochs_match():
    g = tl.Generator().manual_seed(9)
    dl = DataLoader(ArrayDataset(20), batch_size=3, shuffle=True, num_workers=2, persistent_workers=True, generator=g)
    it1 = iter(dl)
    pids1 = [w.pid for w in it1._pool.workers]
    e1 = [b[1].tolist() for b in it1]
    it2 = iter(dl)
    assert it2 is it1 and [w.pid for w in it2._pool.workers] == pids1
    e2 = [b[1].tolist() for b in it2]
    assert sorted(i for b in e1 for i in b) == sorted(i for b in e2 for i in b) == list(range(20))
    assert e1 != e2  # a new shuffle each epoch
    # break out early, then a full epoch still comes through
    for _ in iter(dl):
        break
    e3 = [b[1].tolist() for b in iter(dl)]
    assert sorted(i for b in e3 for i in b) == list(range(20))
    g2 = tl.Generator().manual_seed(9)
    ref = DataLoader(ArrayDataset(20), batch_size=3, shuffle=True, generator=g2)
    assert e1 == [b[1].tolist() for b in ref]
    del dl, it1, it2
    gc.collect()


def test_persistent_workers_iterable_dataset_each_epoch():
    dl = DataLoader(RangeIterable(6), batch_size=2, num_workers=2, persistent_workers=True)
    e1 = sorted(i for b in dl for i in b.tolist())
    e2 = sorted(i for b in dl for i in b.tolist())
    assert e1 == e2 == list(range(6))
    del dl
    gc.collect()


def test_spawn_context():
    g = tl.Generator().manual_seed(2)
    ds = ArrayDataset(9)
    out = _indices(DataLoader(ds, batch_size=4, shuffle=True, num_workers=1, multiprocessing_context="spawn",
                              generator=g))
    g = tl.Generator().manual_seed(2)
    assert out == _indices(DataLoader(ds, batch_size=4, shuffle=True, generator=g))


def test_default_context_is_fork_on_linux():
    from tensorlab.utils.data.dataloader import _default_context

    expected = "fork" if "fork" in mp.get_all_start_methods() and os.uname().sysname == "Linux" else "spawn"
    assert _default_context().get_start_method() == expected


# ----------------------------------------------------------------------------------------------
# pin_memory
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_workers", [0, 2])
def test_pin_memory(num_workers):
    if not tl.cuda.is_available():
        with pytest.warns(UserWarning, match="pin_memory"):
            out = list(DataLoader(ArrayDataset(4, (8, 64)), batch_size=2, pin_memory=True, num_workers=num_workers))
        assert not out[0][0].is_pinned()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = list(DataLoader(ArrayDataset(6, (8, 64)), batch_size=2, pin_memory=True, num_workers=num_workers))
    assert [b[1].tolist() for b in out] == [[0, 1], [2, 3], [4, 5]]
    for x, i in out:
        assert x.is_pinned() and i.is_pinned()
        np.testing.assert_array_equal(x.numpy()[:, 0, 0], np.asarray(i.tolist(), np.float32))
        y = x.to("cuda", non_blocking=True)
        tl.cuda.synchronize()
        np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())


def test_random_sampler_with_workers_matches_sampler_order():
    g = tl.Generator().manual_seed(4)
    sampler = RandomSampler(range(13), generator=g)
    expected = list(sampler)
    g.manual_seed(4)
    got = [i for b in DataLoader(ArrayDataset(13), sampler=sampler, batch_size=5, num_workers=2)
           for i in b[1].tolist()]
    assert got == expected


def test_default_collate_keeps_string_fields_as_tuples():
    """Strings inside sequence or namedtuple samples come back as a tuple (PyTorch's zip), a top-level
    list of strings or a dict's string field as a list."""
    import collections

    P = collections.namedtuple("P", "a b")
    assert default_collate([(1, "x"), (2, "y")])[1] == ("x", "y")
    assert default_collate([P(1, "u"), P(2, "v")]).b == ("u", "v")
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([{"s": "a"}, {"s": "b"}])["s"] == ["a", "b"]
