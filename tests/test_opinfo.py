"""Generic op tests driven by the OpInfo table (tests/opinfo): op x device x dtype.

For each entry and each of its samples:
- values match the independent numpy reference (within the dtype's tolerance);
- non-contiguous inputs (NaN/sentinels in the gaps) give the same result as contiguous ones;
- the cuda kernel (real, or in Triton's interpreter) agrees with the cpu twin;
- gradients: gradcheck in float64 on cpu, and cuda gradients match cpu gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import assert_close, make_tensor, to_numpy
from tests.opinfo import OP_DB

SEED = 1234


def _cases(devices_attr: str):
    cases = []
    for info in OP_DB:
        for dtype in info.dtypes:
            cases.append(pytest.param(info, dtype, id=f"{info.name}-{dtype.name}"))
    return cases


def _cuda_cases():
    cases = []
    for info in OP_DB:
        for dtype in info.cuda_dtypes or info.dtypes:
            cases.append(pytest.param(info, dtype, id=f"{info.name}-{dtype.name}"))
    return cases


def _samples(info, dtype):
    return info.sample_inputs(dtype, np.random.default_rng(SEED))


def _tensor_args(sample, device, dtype, noncontiguous=False, grad_dtype=None):
    args = []
    grad_idx = sample.grad_args
    for i, a in enumerate(sample.args):
        if isinstance(a, np.ndarray):
            t = make_tensor(a, device, noncontiguous=noncontiguous)
            if grad_dtype is not None and t.dtype.is_floating_point and (grad_idx is None or i in grad_idx):
                t = t.to(grad_dtype).detach().requires_grad_(True)
            args.append(t)
        else:
            args.append(a)
    return args


def _ref_args(sample, info):
    out = []
    for a in sample.args:
        if isinstance(a, np.ndarray) and info.ref_float64 and (a.dtype.kind == "f" or a.dtype.name == "bfloat16"):
            out.append(a.astype(np.float64))
        else:
            out.append(a)
    return out


def _as_tuple(x):
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def _run(info, args, kwargs):
    with np.errstate(all="ignore"):
        return info.op(*args, **kwargs)


@pytest.mark.parametrize("info,dtype", _cases("dtypes"))
def test_matches_reference_cpu(info, dtype):
    if info.ref is None:
        pytest.skip(f"{info.name}: no independent reference (checked against cuda and by gradcheck)")
    for sample in _samples(info, dtype):
        got = _as_tuple(_run(info, _tensor_args(sample, "cpu", dtype), sample.kwargs))
        with np.errstate(all="ignore"):
            expected = _as_tuple(info.ref(*_ref_args(sample, info), **sample.kwargs))
        assert len(got) == len(expected), f"{info.name} {sample}: {len(got)} outputs, expected {len(expected)}"
        for g, e in zip(got, expected):
            if info.out_dtype is not None:
                assert g.dtype is info.out_dtype(dtype), f"{info.name} {sample}: dtype {g.dtype}"
            rtol, atol = info.tolerance(g.dtype)
            assert_close(g, np.asarray(e), rtol=rtol, atol=atol)


@pytest.mark.parametrize("info,dtype", [c for c in _cases("dtypes") if c.values[0].noncontiguous])
def test_noncontiguous_inputs(info, dtype):
    for sample in _samples(info, dtype):
        contiguous = _as_tuple(_run(info, _tensor_args(sample, "cpu", dtype), sample.kwargs))
        strided = _as_tuple(_run(info, _tensor_args(sample, "cpu", dtype, noncontiguous=True), sample.kwargs))
        for c, s in zip(contiguous, strided):
            assert_close(s, c)


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
@pytest.mark.parametrize("info,dtype", _cuda_cases())
def test_cuda_matches_cpu(info, dtype):
    for sample in _samples(info, dtype):
        for noncontiguous in ((False, True) if info.noncontiguous else (False,)):
            cpu = _as_tuple(_run(info, _tensor_args(sample, "cpu", dtype, noncontiguous), sample.kwargs))
            cuda = _as_tuple(_run(info, _tensor_args(sample, "cuda", dtype, noncontiguous), sample.kwargs))
            assert len(cpu) == len(cuda)
            for c, g in zip(cpu, cuda):
                assert g.device.type == "cuda", f"{info.name}: output on {g.device}"
                assert g.dtype is c.dtype and g.shape == c.shape
                rtol, atol = info.tolerance(c.dtype)
                assert_close(g, to_numpy(c), rtol=rtol, atol=atol)


def _finite(sample) -> bool:
    return all(np.isfinite(a.astype(np.float64)).all() for a in sample.args
               if isinstance(a, np.ndarray) and a.dtype.kind == "f")


def _grad_cases():
    return [pytest.param(i, id=i.name) for i in OP_DB if i.grad and tl.float64 in i.dtypes]


@pytest.mark.parametrize("info", _grad_cases())
def test_gradcheck(info):
    for sample in _samples(info, tl.float64):
        if not _finite(sample):
            continue  # finite differences through inf/nan mean nothing
        args = _tensor_args(sample, "cpu", tl.float64, grad_dtype=tl.float64)
        if not any(isinstance(a, tl.Tensor) and a.requires_grad for a in args):
            continue
        if any(isinstance(a, tl.Tensor) and a.requires_grad and a.numel() == 0 for a in args):
            continue  # nothing to perturb

        def fn(*xs, kwargs=sample.kwargs):
            return info.op(*xs, **kwargs)

        assert tl.autograd.gradcheck(fn, args, eps=1e-6, atol=1e-5, rtol=1e-3), f"{info.name} {sample}"


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
@pytest.mark.parametrize("info", _grad_cases())
def test_cuda_gradients_match_cpu(info):
    for sample in _samples(info, tl.float32):
        if not _finite(sample):
            continue
        grads = {}
        for device in ("cpu", "cuda"):
            args = _tensor_args(sample, device, tl.float32, grad_dtype=tl.float32)
            leaves = [a for a in args if isinstance(a, tl.Tensor) and a.requires_grad]
            if not leaves:
                break
            outs = [o for o in _as_tuple(info.op(*args, **sample.kwargs))
                    if isinstance(o, tl.Tensor) and o.requires_grad]
            if not outs:
                break
            total = None
            for k, o in enumerate(outs):
                # a fixed, non-uniform weighting so every output element matters
                w = tl.tensor(np.cos(np.arange(o.numel(), dtype=np.float64) + k).reshape(o.shape).astype(np.float32),
                              device=device)
                s = (o * w).sum()
                total = s if total is None else total + s
            total.backward()
            grads[device] = [to_numpy(a.grad) if a.grad is not None else None for a in leaves]
        if len(grads) < 2:
            continue
        for gc, gg in zip(grads["cpu"], grads["cuda"]):
            assert (gc is None) == (gg is None)
            if gc is not None:
                np.testing.assert_allclose(gg, gc, rtol=1e-4, atol=1e-4)
