"""Samplers: orders, lengths, reproducibility through tensorlab generators, argument checks, and
the distribution of WeightedRandomSampler."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import (
    BatchSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


def gen(seed):
    return tl.Generator().manual_seed(seed)


def test_sequential():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5


def test_random_permutation_reproducible():
    a = list(RandomSampler(range(30), generator=gen(1)))
    assert sorted(a) == list(range(30)) and a != list(range(30))
    assert a == list(RandomSampler(range(30), generator=gen(1)))
    assert a != list(RandomSampler(range(30), generator=gen(2)))
    assert a == tl.randperm(30, generator=gen(1)).tolist()


def test_random_sampler_new_order_each_pass():
    s = RandomSampler(range(20), generator=gen(0))
    assert list(s) != list(s)


def test_random_sampler_without_generator_follows_manual_seed():
    tl.manual_seed(3)
    a = list(RandomSampler(range(10)))
    tl.manual_seed(3)
    assert a == list(RandomSampler(range(10)))


def test_random_num_samples_without_replacement_repeats_permutations():
    s = RandomSampler(range(4), num_samples=10, generator=gen(0))
    out = list(s)
    assert len(out) == 10 == len(s)
    assert sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]
    assert set(out[8:]) <= {0, 1, 2, 3} and len(set(out[8:])) == 2


def test_random_with_replacement():
    out = list(RandomSampler(range(5), replacement=True, num_samples=2000, generator=gen(0)))
    assert len(out) == 2000 and set(out) == {0, 1, 2, 3, 4}
    counts = np.bincount(out, minlength=5)
    assert np.all(np.abs(counts - 400) < 80), counts  # ~5 sigma
    short = list(RandomSampler(range(5), replacement=True, num_samples=3, generator=gen(0)))
    assert len(short) == 3


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"replacement": 1}, TypeError, "replacement should be a boolean value, but got replacement=1"),
    ({"num_samples": 0}, ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    ({"num_samples": 2.5}, ValueError, "num_samples should be a positive integer value"),
])
def test_random_sampler_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        RandomSampler(range(3), **kwargs)


def test_subset_random():
    idx = [10, 20, 30, 40]
    a = list(SubsetRandomSampler(idx, generator=gen(0)))
    assert sorted(a) == idx and len(SubsetRandomSampler(idx)) == 4
    assert a == list(SubsetRandomSampler(idx, generator=gen(0)))
    perm = tl.randperm(4, generator=gen(0)).tolist()
    assert a == [idx[i] for i in perm]


def test_weighted_with_replacement_distribution():
    w = [0.0, 1.0, 3.0, 0.0, 6.0]
    n = 20000
    out = np.array(list(WeightedRandomSampler(w, n, generator=gen(0))))
    counts = np.bincount(out, minlength=5)
    assert counts[0] == 0 and counts[3] == 0
    expected = np.array(w) / sum(w) * n
    # chi-square with 2 degrees of freedom (3 non-zero classes): 99.9% quantile is 13.8
    chi2 = sum((counts[i] - expected[i]) ** 2 / expected[i] for i in (1, 2, 4))
    assert chi2 < 13.8, (counts, expected)


def test_weighted_reproducible_and_tensor_weights():
    w = tl.tensor([1.0, 2.0, 3.0])
    a = list(WeightedRandomSampler(w, 50, generator=gen(7)))
    assert a == list(WeightedRandomSampler([1, 2, 3], 50, generator=gen(7)))
    assert a != list(WeightedRandomSampler([1, 2, 3], 50, generator=gen(8)))


def test_weighted_last_zero_weight_never_drawn():
    out = list(WeightedRandomSampler([1.0, 1.0, 0.0], 5000, generator=gen(0)))
    assert 2 not in out


def test_weighted_without_replacement():
    out = list(WeightedRandomSampler([1, 0, 5, 2, 1], 4, replacement=False, generator=gen(0)))
    assert sorted(out) == [0, 2, 3, 4]  # all non-zero categories, each once
    # Sequential draws without replacement: P(first = i) = w_i / sum(w), and
    # P(second = 0 | first = 2) = w_0 / (w_0 + w_1) = 1 / 4. Every pass draws fresh uniforms.
    sampler = WeightedRandomSampler([1, 3, 6], 2, replacement=False, generator=gen(0))
    pairs = [list(sampler) for _ in range(1000)]
    counts = np.bincount([p[0] for p in pairs], minlength=3)
    expected = np.array([0.1, 0.3, 0.6]) * 1000
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 13.8, counts  # 2 degrees of freedom, 99.9% quantile
    seconds = [p[1] for p in pairs if p[0] == 2]
    frac0 = seconds.count(0) / len(seconds)
    assert abs(frac0 - 0.25) < 0.07, frac0


@pytest.mark.parametrize("args, kwargs, exc, match", [
    (([1.0], 0), {}, ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    (([1.0], 2), {"replacement": "yes"}, ValueError, "replacement should be a boolean value"),
    (([[1.0, 2.0]], 2), {}, ValueError, r"weights should be a 1d sequence but given weights have shape \(1, 2\)"),
])
def test_weighted_errors(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        WeightedRandomSampler(*args, **kwargs)


# Bad weight values construct fine and raise when iterated, with torch.multinomial's messages
# (observed with torch 2.15).
@pytest.mark.parametrize("weights, n, replacement, match", [
    ([1.0, -1.0], 2, True, r"invalid multinomial distribution \(encountering probability entry < 0\)"),
    ([1.0, float("nan")], 2, True, r"invalid multinomial distribution \(encountering probability entry < 0\)"),
    ([1.0, float("inf")], 2, True, r"\(encountering probability entry = infinity or NaN\)"),
    ([float("nan")], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.0, 0.0], 2, True, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
    ([], 2, True, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
    ([-1.0, 2.0], 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.0, 0.0], 1, False, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
    ([0.0, 0.0], 3, False, r"cannot sample n_sample > prob_dist.size\(-1\) samples without replacement"),
    ([], 1, False, r"cannot sample n_sample > prob_dist.size\(-1\) samples without replacement"),
])
def test_weighted_bad_weights_raise_when_iterated(weights, n, replacement, match):
    sampler = WeightedRandomSampler(weights, n, replacement=replacement, generator=gen(0))
    with pytest.raises(RuntimeError, match=match):
        list(sampler)


def test_weighted_without_replacement_fewer_nonzero_than_samples():
    # torch returns the non-zero categories first, then zero-weight ones (e.g. [2, 0, 1]).
    out = list(WeightedRandomSampler([0.0, 0.0, 1.0], 3, replacement=False, generator=gen(0)))
    assert out[0] == 2 and sorted(out) == [0, 1, 2]


def test_weighted_weights_is_float64_tensor():
    for w in ([1, 2, 3], np.array([1, 2, 3], np.float32), tl.tensor([1, 2, 3])):
        s = WeightedRandomSampler(w, 2)
        assert isinstance(s.weights, tl.Tensor) and s.weights.dtype == tl.float64
        assert s.weights.tolist() == [1.0, 2.0, 3.0]


def test_batch_sampler():
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    assert len(BatchSampler(SequentialSampler(range(6)), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=True"):
        BatchSampler(range(3), True, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=0"):
        BatchSampler(range(3), 2, 0)


def test_distributed_sampler_split_and_guards():
    # `from torch.utils.data.distributed import DistributedSampler` and `torch.distributed.is_available()`
    # guards were ImportError/AttributeError; the splits below are PyTorch's (checked against torch 2.x)
    from tensorlab.utils.data import DistributedSampler
    from tensorlab.utils.data.distributed import DistributedSampler as DS

    assert DS is DistributedSampler
    assert tl.distributed.is_available() is False and tl.distributed.is_initialized() is False
    split = lambda n, r, dl: [list(DS(range(n), r, k, shuffle=False, drop_last=dl)) for k in range(r)]  # noqa: E731
    assert split(10, 3, False) == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert split(10, 3, True) == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert split(2, 5, False) == [[0], [1], [0], [1], [0]]
    assert len(DS(range(10), 3, 0)) == 4 and len(DS(range(10), 3, 0, drop_last=True)) == 3
    s = DS(range(10), 2, 1, seed=5)
    a = list(s)
    s.set_epoch(1)
    assert list(s) != a and sorted(list(DS(range(10), 2, 0, seed=5)) + a) == list(range(10))
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DS(range(4), num_replicas=2, rank=2)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DS(range(4))
