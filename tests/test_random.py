"""Random numbers: Philox generators, reproducibility per device, distributions, the twin = kernel."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels import random as krand
from tests.helpers import to_numpy


def test_philox_twin_matches_known_answer():
    # Philox4x32-10 known-answer test vectors (Random123): counter 0, key 0 and counter/key all ones.
    c = krand.philox4x32(0, np.array([0], dtype=np.uint64))
    assert [int(x[0]) for x in c] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_manual_seed_reproduces(device):
    tl.manual_seed(123)
    a = tl.rand(100, device=device)
    b = tl.randn(7, 3, device=device)
    tl.manual_seed(123)
    np.testing.assert_array_equal(to_numpy(tl.rand(100, device=device)), to_numpy(a))
    np.testing.assert_array_equal(to_numpy(tl.randn(7, 3, device=device)), to_numpy(b))
    assert not np.array_equal(to_numpy(tl.rand(100, device=device)), to_numpy(a))  # the offset advanced


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device")
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16, tl.bfloat16])
def test_cuda_kernels_match_the_twins(dtype):
    g_cpu = tl.Generator().manual_seed(77)
    g_gpu = tl.Generator("cuda").manual_seed(77)
    u_cpu = tl.rand(1001, dtype=dtype, generator=g_cpu)
    u_gpu = tl.rand(1001, dtype=dtype, device="cuda", generator=g_gpu)
    np.testing.assert_array_equal(to_numpy(u_gpu), to_numpy(u_cpu))  # bit-identical uniforms
    n_cpu = tl.randn(1001, dtype=dtype, generator=g_cpu)
    n_gpu = tl.randn(1001, dtype=dtype, device="cuda", generator=g_gpu)
    tol = {tl.float32: 1e-5, tl.float64: 1e-5, tl.float16: 2e-3, tl.bfloat16: 2e-2}[dtype]
    np.testing.assert_allclose(to_numpy(n_gpu).astype(np.float64), to_numpy(n_cpu).astype(np.float64),
                               rtol=tol, atol=tol)
    i_cpu = tl.randint(-5, 50, (999,), generator=g_cpu)
    i_gpu = tl.randint(-5, 50, (999,), device="cuda", generator=g_gpu)
    np.testing.assert_array_equal(to_numpy(i_gpu), to_numpy(i_cpu))


def test_uniform_and_normal_statistics(device):
    g = tl.Generator(device).manual_seed(5)
    u = to_numpy(tl.rand(20000, generator=g, device=device)).astype(np.float64)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    n = to_numpy(tl.randn(20000, generator=g, device=device)).astype(np.float64)
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1) < 0.03
    v = to_numpy(tl.empty(20000, device=device).uniform_(-2, 3, generator=g)).astype(np.float64)
    assert v.min() >= -2 and v.max() < 3 and abs(v.mean() - 0.5) < 0.05
    m = to_numpy(tl.normal(2.0, 0.5, (20000,), generator=g, device=device)).astype(np.float64)
    assert abs(m.mean() - 2.0) < 0.02 and abs(m.std() - 0.5) < 0.02


def test_half_precision_uniform_never_reaches_one(device):
    for dtype in (tl.float16, tl.bfloat16):
        u = to_numpy(tl.rand(50000, dtype=dtype, device=device)).astype(np.float32)
        assert u.max() < 1.0 and u.min() >= 0.0


def test_randint_randperm_bernoulli(device):
    g = tl.Generator(device).manual_seed(9)
    r = tl.randint(3, 10, (5000,), generator=g, device=device)
    assert r.dtype is tl.int64
    vals = to_numpy(r)
    assert vals.min() == 3 and vals.max() == 9 and len(np.unique(vals)) == 7
    assert tl.randint(5, (3,)).shape == (3,)
    assert tl.randint(0, 2, (4,), dtype=tl.bool).dtype is tl.bool
    p = tl.randperm(100, generator=tl.Generator(device).manual_seed(1), device=device)
    assert sorted(to_numpy(p).tolist()) == list(range(100))
    probs = tl.full((20000,), 0.3, device=device)
    b = to_numpy(tl.bernoulli(probs, generator=g))
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    x = tl.empty(1000, device=device).bernoulli_(0.9)
    assert abs(to_numpy(x).mean() - 0.9) < 0.05


def test_uniform_never_returns_its_upper_bound(device):
    # [from, to) as PyTorch: low + u * span rounded up to `to` in float16/bfloat16 (uniform_(100, 101):
    # 1 value in 32 was 101) and in float32 (uniform_(1e6, 1e6 + 1): 1 in 16)
    for dtype, lo, hi in ((tl.float16, 100, 101), (tl.bfloat16, 100, 101), (tl.bfloat16, 1, 2),
                          (tl.float32, 1e6, 1e6 + 1), (tl.float64, -1.0, -1.0 + 2**-40)):
        x = to_numpy(tl.empty(4096, dtype=dtype, device=device).uniform_(lo, hi)).astype(np.float64)
        assert x.max() < hi and x.min() >= lo
        assert len(np.unique(x)) > 1
    assert to_numpy(tl.empty(5, device=device).uniform_(2.0, 2.0)).tolist() == [2.0] * 5
    from tensorlab_kernels.random import largest_below

    assert largest_below(101.0, 100.0, np.float16) == 100.9375
    assert largest_below(0.0, -1.0, np.float32) == -float(np.finfo(np.float32).smallest_subnormal)
    assert largest_below(float("inf"), 0.0, np.float16) == 65504.0


def test_randperm_reads_n_as_an_int():
    g = tl.Generator().manual_seed(2)
    assert sorted(tl.randperm(tl.tensor(4), generator=g).tolist()) == [0, 1, 2, 3]
    assert tl.randperm(np.int64(3)).shape == (3,)
    for bad in (3.0, True):
        with pytest.raises(TypeError, match="randperm\\(\\): argument 'n' must be int"):
            tl.randperm(bad)


def test_generator_state_and_independence():
    g1 = tl.Generator().manual_seed(42)
    state = g1.get_state()
    a = tl.rand(10, generator=g1)
    g1.set_state(state)
    np.testing.assert_array_equal(tl.rand(10, generator=g1).numpy(), a.numpy())
    g2 = tl.Generator().manual_seed(43)
    assert not np.array_equal(tl.rand(10, generator=g2).numpy(), a.numpy())
    assert g1.initial_seed() == 42
    s = tl.Generator().seed()
    assert 0 <= s < 2**64


def test_seeds_are_uint64_as_pytorchs(device):
    # torch 2.15: a negative seed is taken modulo 2**64, seeds up to 2**64 - 1 are their own (they were
    # folded modulo 2**63, so 2**63 + 5 drew seed 5's numbers), out-of-range seeds raise ValueError
    for seed, initial in ((-1, 2**64 - 1), (2**63, 2**63), (2**64 - 1, 2**64 - 1), (-(2**63), 2**63)):
        tl.manual_seed(seed)
        assert tl.initial_seed() == initial
    for seed in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError, match="Overflow"):
            tl.manual_seed(seed)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        tl.Generator().manual_seed(1.5)
    tl.manual_seed(1.5)  # (the top-level function int()s, as torch's)
    assert tl.initial_seed() == 1
    draws = {}
    for seed in (5, 2**63 + 5):
        g = tl.Generator(device).manual_seed(seed)
        draws[seed] = to_numpy(tl.rand(6, generator=g, device=device))
        state = g.get_state()
        assert tl.Generator(device).set_state(state).initial_seed() == seed
    assert not np.array_equal(draws[5], draws[2**63 + 5])
    tl.manual_seed(2**64 - 7)  # the twin and the kernel take the same 64-bit key
    cpu = to_numpy(tl.rand(8, device="cpu"))
    if device == "cuda":
        tl.manual_seed(2**64 - 7)
        np.testing.assert_array_equal(to_numpy(tl.rand(8, device="cuda")), cpu)
        masks = []
        for dev in ("cpu", "cuda"):
            tl.manual_seed(2**64 - 7)
            masks.append(to_numpy(tl.nn.functional.dropout(tl.ones(64, device=dev), 0.5)))
        np.testing.assert_array_equal(masks[0], masks[1])


def test_random_into_strided_view(device):
    x = tl.zeros(4, 6, device=device)
    x[:, ::2].uniform_()
    arr = to_numpy(x)
    assert (arr[:, 1::2] == 0).all() and (arr[:, ::2] > 0).any()


def test_random_errors():
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        tl.randint(5, 5, (2,))
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        tl.normal(0.0, -1.0, (2,))
    with pytest.raises(RuntimeError, match="floating point dtype"):
        tl.rand(2, dtype=tl.int32)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        tl.normal(tl.ones(2), -1.0)  # a tensor mean with a number std is checked too
    for call in (lambda: tl.normal(tl.zeros(2), 1.0, (3,)), lambda: tl.normal(0.0, tl.ones(2), (3,))):
        with pytest.raises(TypeError, match="size is only taken with float mean and std"):  # (size was ignored)
            call()
    # [low, high) must fit the dtype, as PyTorch checks (these wrapped silently)
    for args, message in [((300, (2,), tl.uint8), "to - 1 is out of bounds for unsigned char"),
                          ((-1, 3, (2,), tl.uint8), "from is out of bounds for unsigned char"),
                          ((0, 2**31 + 1, (2,), tl.int32), "to - 1 is out of bounds for int"),
                          ((0, 3, (2,), tl.bool), "to - 1 is out of bounds for bool"),
                          ((0, 70000, (2,), tl.float16), "to - 1 is out of bounds for c10::Half")]:
        with pytest.raises(RuntimeError, match=message):
            tl.randint(*args[:-1], dtype=args[-1])
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for signed char"):
        tl.empty(2, dtype=tl.int8).random_(0, 200)
    top = tl.randint(0, 256, (4000,), dtype=tl.uint8)
    assert 0 <= int(top.min()) and int(top.max()) == 255  # the whole range still allowed
    assert tl.randint(0, 2**31, (8,), dtype=tl.int32).dtype is tl.int32
    # PyTorch's signature randint(low=0, high, size): high and size may be keywords
    k = tl.randint(high=3, size=(50,))
    assert k.shape == (50,) and 0 <= int(k.min()) and int(k.max()) <= 2
    with pytest.raises(TypeError, match="missing the high argument"):
        tl.randint(size=(2,))
    if tl.cuda.is_available():
        with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
            tl.rand(2, device="cuda", generator=tl.Generator("cpu"))


def test_random_one_argument_is_to(device):
    """x.random_(10) draws from [0, 10) (PyTorch's random_(to)); random_(a, b) from [a, b)."""
    tl.manual_seed(0)
    x = tl.zeros(2000, dtype=tl.int64, device=device).random_(10)
    assert x.min().item() == 0 and x.max().item() == 9
    assert sorted(set(tl.zeros(500, device=device).random_(3, 5).tolist())) == [3.0, 4.0]
    assert tl.zeros(500, dtype=tl.int32, device=device).random_(to=4).max().item() == 3
    for bad in (0, -5):
        with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
            tl.zeros(3, dtype=tl.int64, device=device).random_(bad)


def test_sampling_parameters_out_of_range_raise(device):
    """Probabilities outside [0, 1] (or NaN) and uniform bounds that are not finite in the dtype
    raise, as PyTorch, instead of sampling something."""
    for probs in ([1.5], [-0.1], [float("nan")]):
        with pytest.raises(RuntimeError, match="0 <= p <= 1"):
            tl.bernoulli(tl.tensor(probs, device=device))
    for p in (1.5, -0.5):
        with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in"):
            tl.empty(2, device=device).bernoulli_(p)
        with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in"):
            tl.bernoulli(tl.empty(2, device=device), p=p)
    with pytest.raises(RuntimeError, match="to is out of bounds for float"):
        tl.empty(2, device=device).uniform_(0, float("inf"))
    with pytest.raises(RuntimeError, match="from is out of bounds for c10::Half"):
        tl.empty(2, dtype=tl.float16, device=device).uniform_(-1e6, 1e6)
    with pytest.raises(RuntimeError, match="to-from"):
        tl.empty(2, device=device).uniform_(-3e38, 3e38)
    assert tl.bernoulli(tl.tensor([0.0, 1.0], device=device)).tolist() == [0.0, 1.0]


def test_generators_pickle_and_deepcopy_with_their_state():
    """A Generator pickles and deep-copies with its device and state (a sampler holding one can be
    copied), and the copy draws what the original draws next."""
    import copy
    import pickle

    from tensorlab.utils.data import RandomSampler

    g = tl.Generator().manual_seed(3)
    tl.rand(4, generator=g)
    copies = [copy.deepcopy(g), pickle.loads(pickle.dumps(g))]
    want = tl.rand(3, generator=g).tolist()
    assert all(tl.rand(3, generator=c).tolist() == want for c in copies)
    sampler = RandomSampler(range(10), generator=tl.Generator().manual_seed(1))
    assert list(copy.deepcopy(sampler)) == list(sampler)


def test_floating_samplers_refuse_integer_dtypes_with_not_implemented_error():
    """rand/randn/normal and uniform_/normal_ of an integer or bool dtype raise NotImplementedError,
    as PyTorch's missing kernels (a RuntimeError subclass)."""
    for f in (lambda: tl.rand(2, dtype=tl.int32), lambda: tl.randn(2, dtype=tl.int64),
              lambda: tl.randn(2, out=tl.zeros(2, dtype=tl.int64)), lambda: tl.zeros(2, dtype=tl.int64).uniform_(),
              lambda: tl.zeros(2, dtype=tl.bool).uniform_(), lambda: tl.zeros(2, dtype=tl.int64).normal_()):
        with pytest.raises(NotImplementedError):
            f()


def test_bad_rng_arguments_raise_type_errors():
    # PyTorch's TypeError (tensorlab's internals raised AttributeError for these)
    with pytest.raises(TypeError, match="expected a uint8 Tensor from get_state\\(\\), got list"):
        tl.set_rng_state([1, 2, 3])
    with pytest.raises(TypeError, match="got a float32 Tensor"):
        tl.set_rng_state(tl.zeros(16))
    with pytest.raises(TypeError, match="argument 'generator' must be tensorlab.Generator, not int"):
        tl.randn(2, generator=5)
    state = tl.get_rng_state()
    a = tl.rand(3)
    tl.set_rng_state(state)
    assert tl.rand(3).tolist() == a.tolist()


def test_float64_uniform_and_normal_keep_their_float64_parameters(device):
    # a Python float reaches a Triton kernel as float32 (and the twin mirrored that): uniform_(1, 1 + 1e-9)
    # gave all 1.0 and uniform_(-1e300, 0) NaN, where torch 2.15 draws 1000 distinct values
    tl.manual_seed(0)
    x = tl.empty(1000, dtype=tl.float64, device=device).uniform_(1.0, 1.0 + 1e-9).cpu().numpy()
    assert len(np.unique(x)) == 1000 and x.min() >= 1.0 and x.max() < 1.0 + 1e-9
    y = tl.empty(100, dtype=tl.float64, device=device).uniform_(-1e300, 0).cpu().numpy()
    assert np.isfinite(y).all() and (y <= 0).all() and y.min() < -1e298
    z = tl.empty(1000, dtype=tl.float64, device=device).normal_(1.0 + 1e-10, 1e-12).cpu().numpy()
    assert abs(z.mean() - (1.0 + 1e-10)) < 1e-12 and 0.5e-12 < z.std() < 2e-12


def test_float64_draws_agree_between_devices():
    if not tl.cuda.is_available():
        pytest.skip("needs the cuda device (a GPU or Triton's interpreter)")
    draws = {}
    for dev in ("cpu", "cuda"):
        tl.manual_seed(3)
        u = tl.empty(9, dtype=tl.float64, device=dev).uniform_(-2.5, 3.1).cpu().numpy()
        tl.manual_seed(3)
        n = tl.empty(9, dtype=tl.float64, device=dev).normal_(0.3, 2.0).cpu().numpy()
        draws[dev] = (u, n)
    np.testing.assert_allclose(draws["cpu"][0], draws["cuda"][0], rtol=1e-15)
    np.testing.assert_allclose(draws["cpu"][1], draws["cuda"][1], rtol=1e-13)  # (2 pi was float32 in the kernel)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_randint_into_half_types_gives_integers(dtype, device):
    x = tl.randint(0, 100, (64,), dtype=dtype, device=device).float().cpu().numpy()
    assert (x == np.round(x)).all() and x.min() >= 0 and x.max() <= 99 and len(np.unique(x)) > 20


def test_random_from_with_to_none_draws_up_to_the_dtypes_maximum(device):
    # torch 2.15's test_random_full_range: random_(from, None) is [from, max], random_(to) is [0, to)
    tl.manual_seed(0)
    x = tl.empty(5000, dtype=tl.int8, device=device).random_(-128, None).cpu().numpy()
    assert x.min() == -128 and x.max() == 127
    y = tl.empty(2000, dtype=tl.int16, device=device).random_(10).cpu().numpy()
    assert y.min() == 0 and y.max() == 9
    z = tl.empty(2000, dtype=tl.int32, device=device).random_(5, 9).cpu().numpy()
    assert z.min() == 5 and z.max() == 8


def test_normal_of_tensors_takes_means_dtype(device):
    # torch 2.15: the samples take mean's dtype (std's without a tensor mean), not the promotion
    zeros = tl.zeros(3, dtype=tl.float32, device=device)
    assert tl.normal(zeros, tl.ones(3, dtype=tl.float64, device=device)).dtype is tl.float32
    assert tl.normal(zeros.double(), tl.ones(3, device=device)).dtype is tl.float64
    assert tl.normal(0.0, tl.ones(3, dtype=tl.float16, device=device)).dtype is tl.float16


@pytest.mark.parametrize("dtype, low, high, lowest, highest", [
    (tl.bfloat16, 0, 1000, 0, 996),  # 999 rounds to 1000 in bfloat16: 'to' moves down to 996
    (tl.bfloat16, -999, 1000, -996, 996),  # and -998 rounds to -1000: 'from' moves up to -996
    (tl.float16, 0, 1000, 0, 999),  # float16 holds every integer below 2048: nothing moves
    (tl.float16, 0, 2049, 0, 2048),
])
def test_half_random_stays_inside_its_bounds_after_rounding(dtype, low, high, lowest, highest, device):
    # PyTorch's update_from/update_to (the values are what torch 2.15 draws with these bounds)
    tl.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = to_numpy(tl.empty(20000, dtype=dtype, device=device).random_(low, high)).astype(np.float64)
    assert x.min() == lowest and x.max() == highest
    assert np.all(x == np.round(x))


def test_half_random_bounds_that_collapse_raise_and_imprecise_bounds_warn():
    with pytest.raises(RuntimeError, match="casted to dtype.*from=100352 >= to=100010"):
        tl.empty(3, dtype=tl.bfloat16).random_(100001, 100010)
    with pytest.raises(RuntimeError, match="from is out of bounds for c10::Half"):
        tl.empty(3, dtype=tl.float16).random_(100001, 100010)  # (overflows float16)
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^8\), 2\^8\]"):
        tl.empty(3, dtype=tl.bfloat16).random_(0, 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.empty(3, dtype=tl.float16).random_(0, 2049)  # 2048 = 2**11 is still exact: no warning


def test_random_full_int64_range_and_int64_bounds(device):
    # torch 2.15: random_(-2**63, None) draws every int64 (its span 2**64 overflowed: OverflowError), for
    # int64/float64/float32/bfloat16 only; a bound outside int64 is the parser's ValueError
    g = tl.Generator(device).manual_seed(3)
    x = tl.empty(4, dtype=tl.int64, device=device).random_(-2**63, None, generator=g)
    assert x.tolist() == [5841253890697742286, 2878622986421020665, -4275511843399579843, -5084214293338808545]
    y = to_numpy(tl.empty(4000, dtype=tl.int64, device=device).random_(-2**63, None))
    assert y.min() < -2**62 * 3 // 2 and y.max() > 2**62 * 3 // 2
    f = to_numpy(tl.empty(4000, dtype=tl.float32, device=device).random_(-2**63, None)).astype(np.float64)
    assert f.min() < -6e18 and f.max() > 6e18
    assert tl.empty(4, dtype=tl.int64, device=device).random_(-2**63, 2**63 - 1).dtype is tl.int64
    with pytest.raises(RuntimeError, match="random_full_64_bits_range_kernel_cpu handles only int64, double, float"):
        tl.empty(2, dtype=tl.int32, device=device).random_(-2**63, None)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        tl.empty(2, dtype=tl.float16, device=device).random_(-2**63, None)
    assert tl.empty(0, dtype=tl.bool, device=device).random_(-2**63, None).shape == (0,)  # (no kernel runs)
    for call in (lambda: tl.empty(2, dtype=tl.int64, device=device).random_(2**63),
                 lambda: tl.empty(2, dtype=tl.int64, device=device).random_(-2**63 - 1, None),
                 lambda: tl.randint(-1, 2**63, (2,), device=device)):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            call()
    # a float random_(from, None) draws up to 2**digits and needs from below it
    with pytest.raises(RuntimeError, match="from=16777216 > to_inc=16777216"):
        tl.empty(2, device=device).random_(2**24, None)


def test_normal_refuses_nan_std_and_integer_mean_or_std(device):
    # torch 2.15: a NaN std is refused as a negative one (tensorlab drew NaNs), in every form
    nan = float("nan")
    for call in (lambda: tl.empty(3, device=device).normal_(0, nan), lambda: tl.empty(0, device=device).normal_(0, nan),
                 lambda: tl.normal(tl.zeros(3, device=device), nan), lambda: tl.normal(0.0, nan, (3,), device=device)):
        with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std nan"):
            call()
    for std in (tl.tensor([1.0, nan, 1.0], device=device), tl.tensor([1.0, -1.0, 1.0], device=device)):
        with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
            tl.normal(tl.zeros(3, device=device), std)
        with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
            tl.normal(0.0, std)
    # the samples take mean's (or std's) dtype: an integer or bool one has no normal kernel
    ones = tl.ones(3, device=device)
    for call, name in [(lambda: tl.normal(tl.zeros(3, dtype=tl.int64, device=device), 1.0), "Long"),
                       (lambda: tl.normal(0.0, tl.ones(3, dtype=tl.bool, device=device)), "Bool"),
                       (lambda: tl.normal(tl.zeros(3, dtype=tl.int32, device=device), ones), "Int")]:
        with pytest.raises(NotImplementedError, match=f"\"normal_kernel_cpu\" not implemented for '{name}'"):
            call()
    assert tl.normal(tl.zeros(0, dtype=tl.int64, device=device), 1.0).dtype is tl.int64  # (nothing to fill)
    assert tl.normal(tl.zeros(3, device=device), tl.ones(3, dtype=tl.int64, device=device)).dtype is tl.float32


def test_rand_and_randn_need_a_size():
    # torch 2.15: rand()/randn() are TypeErrors (tensorlab drew a 0-d tensor); an empty size is 0-d
    for f in (tl.rand, tl.randn):
        for kwargs in ({}, {"dtype": tl.float64}, {"out": tl.empty(2)}):
            with pytest.raises(TypeError, match="missing 1 required positional arguments: \"size\""):
                f(**kwargs)
        assert f(()).shape == () and f([]).shape == () and f(size=()).shape == ()


def test_random_bounds_must_be_ints():
    # torch 2.15: float or bool bounds are TypeErrors (tensorlab truncated them: randint(1.5, 10.5) drew
    # from [1, 10)); integer tensors and numpy ints are ints
    x = tl.zeros(3)
    for call in (lambda: tl.randint(1.5, 10.5, (3,)), lambda: tl.randint(1, 10.5, (3,)),
                 lambda: tl.randint(10.5, (3,)), lambda: tl.randint(True, 10, (3,)),
                 lambda: tl.randint(tl.tensor(1.5), 10, (3,)), lambda: tl.randint_like(x, 1.5),
                 lambda: tl.randint_like(x, 1, 10.5), lambda: tl.randint_like(x, 10.0), lambda: x.random_(1.5),
                 lambda: x.random_(1.5, 10), lambda: x.random_(1, 10.5), lambda: x.random_(0, True)):
        with pytest.raises(TypeError, match="must be int, not"):
            call()
    assert tl.randint(tl.tensor(9), 10, (3,)).tolist() == [9, 9, 9]
    assert tl.randint(np.int64(4), 5, (2,)).tolist() == [4, 4]
    assert tl.randint_like(x, tl.tensor(1)).tolist() == [0.0, 0.0, 0.0]
    assert x.random_(tl.tensor(2), 3).tolist() == [2.0, 2.0, 2.0]


def test_generator_manual_seed_refuses_bools_and_tensors():
    # torch 2.15: Generator.manual_seed(True) and manual_seed(tensor(5)) are RuntimeErrors (tensorlab
    # seeded 1 and 5); the top-level manual_seed int()s its seed and takes both
    for seed, name in [(True, "bool"), (False, "bool"), (tl.tensor(5), "Tensor"), (tl.tensor([5]), "Tensor")]:
        with pytest.raises(RuntimeError, match=f"manual_seed expected a long, but got {name}"):
            tl.Generator().manual_seed(seed)
    assert tl.Generator().manual_seed(np.int64(5)).initial_seed() == 5
    assert tl.manual_seed(True).initial_seed() == 1
    assert tl.manual_seed(tl.tensor(5)).initial_seed() == 5


def test_uniform_and_random_take_from_and_to_keywords(device):
    # torch 2.15 names the bounds 'from' and 'to' (a Python keyword: passed as **{"from": ...}); uniform_
    # took a=/b= and neither took from=
    x = tl.zeros(500, device=device)
    u = to_numpy(x.uniform_(**{"from": 2, "to": 3}))
    assert u.min() >= 2 and u.max() < 3
    assert to_numpy(x.uniform_(to=0.5)).max() < 0.5 and to_numpy(x.uniform_(2, to=3)).min() >= 2
    assert sorted(set(x.random_(**{"from": 2, "to": 5}).tolist())) == [2.0, 3.0, 4.0]
    assert to_numpy(x.random_(**{"from": 5, "to": None})).min() >= 5
    with pytest.raises(TypeError, match="unexpected keyword argument 'a'"):
        x.uniform_(a=2, b=3)
    with pytest.raises(TypeError, match="multiple values for argument 'from'"):
        x.uniform_(2, **{"from": 3})
    with pytest.raises(TypeError, match="'from' without 'to'"):
        x.random_(**{"from": 5})
    with pytest.raises(RuntimeError, match="found from=2 > to=1"):
        x.uniform_(**{"from": 2})
