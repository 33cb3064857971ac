"""Replayed launches (tensorlab._replay) hand the launcher what the full eager path hands it.

Replays happen only where launches go direct, i.e. outside Triton's interpreter, so the check runs
this file as a script in a process without ``TRITON_INTERPRET``: kernels compile for sm_90 under a
stand-in driver whose launchers record their calls, and host memory stands in for device memory
(``tools/compile_check.py``). For each elementwise call it checks that

1. with replays off, the call's launch is direct (the reference);
2. with replays on, the call after the recording one is replayed (``direct_launch.replay`` ran and
   nothing else launched) and hands the launcher the reference's arguments: grid, stream,
   function, metadata, every kernel argument — with the new output's address where the reference
   had its output's;
3. chains of ops replay (another op's new output is keyed like any tensor), broadcast and strided
   operands replay, a call whose launch compiled is recorded on a later call, and what must not be
   replayed is not: two inputs at one address, a 0.0 operand (also -0.0), a registered launch
   hook, another thread's launch during a recording; a changed default dtype gives its own plan.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("triton")

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_replayed_launches_match_the_full_path():
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "TENSORLAB_DIRECT_LAUNCH",
                                                            "TENSORLAB_REPLAY")}
    proc = subprocess.run([sys.executable, __file__], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    assert "replay checks passed" in proc.stdout, proc.stdout


def test_nothing_is_keyed_in_the_interpreter():
    """Interpreted launches never go direct, so nothing could be replayed: calls are not keyed
    (no key to build, no recording around each launch)."""
    import tensorlab as tl
    from tensorlab import _replay
    from tensorlab._dispatch import _impl_arg
    from tensorlab.ops.elementwise_binary import ADD

    if not tl.cuda.is_interpreted():
        pytest.skip("checks the interpreted device")
    a = tl.ones(8, device="cuda")
    assert _replay.ENABLED  # on by default; off here only because launches are not direct
    assert _replay.find(ADD, (a, a), {}, _impl_arg) is None
    assert (a + a).tolist() == [2.0] * 8


@pytest.mark.gpu
def test_gpu_replayed_ops_compute_what_the_full_path_computes():
    import numpy as np

    import tensorlab as tl
    from tensorlab import _replay

    x, y = tl.randn(1001, device="cuda"), tl.randn(1001, device="cuda")
    hx, hy = x.cpu().numpy(), y.cpu().numpy()
    for _ in range(4):  # the second call records the launch, later ones replay it
        np.testing.assert_array_equal((x + y).cpu().numpy(), hx + hy)
        np.testing.assert_array_equal((x * 2.5).cpu().numpy(), hx * np.float32(2.5))
        np.testing.assert_array_equal(tl.relu(x).cpu().numpy(), np.maximum(hx, 0))
    assert any(k[0].name == "add" and plan for k, plan in _replay.plans.items())
    w = tl.randn(1001, device="cuda", requires_grad=True)
    for _ in range(4):  # replayed ops still record their autograd nodes
        w.grad = None
        (w * y + 2.5).sum().backward()
        np.testing.assert_array_equal(w.grad.cpu().numpy(), hy)
    # the matmul family (float64: exact enough to compare with numpy), a Linear's Parameters
    a, b = tl.randn(33, 20, dtype=tl.float64, device="cuda"), tl.randn(20, 17, dtype=tl.float64, device="cuda")
    ha, hb = a.cpu().numpy(), b.cpu().numpy()
    lin = tl.nn.Linear(20, 9, dtype=tl.float64).cuda()
    hw, hbias = lin.weight.detach().cpu().numpy(), lin.bias.detach().cpu().numpy()
    for _ in range(4):
        np.testing.assert_allclose((a @ b).cpu().numpy(), ha @ hb, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(tl.addmm(a[:, :17], a, b, beta=0.5, alpha=2).cpu().numpy(),
                                   0.5 * ha[:, :17] + 2 * (ha @ hb), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lin(a).detach().cpu().numpy(), ha @ hw.T + hbias, rtol=1e-10, atol=1e-12)
    assert any(k[0].name == "linear" and plan for k, plan in _replay.plans.items())
    for _ in range(4):  # reductions
        np.testing.assert_allclose(a.sum(0).cpu().numpy(), ha.sum(0), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a.t().mean(1, keepdim=True).cpu().numpy(), ha.T.mean(1, keepdims=True),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a.amax().item(), ha.max())
        e = np.exp(ha - ha.max(1, keepdims=True))
        np.testing.assert_allclose(a.softmax(1).cpu().numpy(), e / e.sum(1, keepdims=True), rtol=1e-10, atol=1e-12)
    assert any(k[0].name == "sum" and plan for k, plan in _replay.plans.items())
    # cross-entropy (a kernel with four outputs, and its backward): loss and gradient as on the cpu
    logits = tl.randn(64, 10, dtype=tl.float64, device="cuda", requires_grad=True)
    target = tl.randint(0, 10, (64,), device="cuda")
    cpu_logits = logits.detach().cpu().requires_grad_()
    cpu_loss = tl.nn.functional.cross_entropy(cpu_logits, target.cpu())
    cpu_loss.backward()
    for _ in range(4):
        logits.grad = None
        loss = tl.nn.functional.cross_entropy(logits, target)
        loss.backward()
        np.testing.assert_allclose(loss.item(), cpu_loss.item(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(logits.grad.cpu().numpy(), cpu_logits.grad.numpy(), rtol=1e-10, atol=1e-15)
    assert any(k[0].name == "cross_entropy_loss" and plan for k, plan in _replay.plans.items())
    with pytest.raises(IndexError, match="out of bounds"):  # the target check still reads the kernel's flags
        tl.nn.functional.cross_entropy(logits, target + 10)
    for _ in range(3):  # and a Linear's gradients through replayed launches
        lin.zero_grad()
        lin(a).sum().backward()
        np.testing.assert_allclose(lin.weight.grad.cpu().numpy(), np.ones((33, 9)).T @ ha, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# the check (runs as a script, without the interpreter)
# ----------------------------------------------------------------------------------------------


def _main() -> None:
    assert os.environ.get("TRITON_INTERPRET", "0") in ("", "0"), "run without TRITON_INTERPRET"
    import tempfile

    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tl-replay-"))
    sys.path.insert(0, str(ROOT / "tools"))
    from compile_check import launcher_args, stand_in_device_memory, stand_in_launches

    calls = []

    def record(*a):  # the C launcher's part that matters here: call the hooks, (not) launch
        calls.append(a)
        for hook in a[7:9]:
            if hook is not None:
                hook(a[6])

    stand_in_launches(record, stream=0x5EED)
    stand_in_device_memory()
    import triton

    import tensorlab as tl
    from tensorlab import _replay
    from tensorlab_kernels import direct_launch

    assert direct_launch.ENABLED and _replay.ENABLED
    replays = []
    real_replay = direct_launch.replay

    def counting_replay(*args):
        replays.append(args)
        return real_replay(*args)

    direct_launch.replay = counting_replay

    a, b = tl.ones(37, device="cuda"), tl.ones(37, device="cuda")
    i = tl.ones(37, dtype=tl.int64, device="cuda")
    h = tl.ones(37, dtype=tl.float16, device="cuda")
    c = a < b
    x, bias, y = tl.ones(8, 6, device="cuda"), tl.ones(6, device="cuda"), tl.ones(6, 8, device="cuda")
    m = tl.ones(8, 1, device="cuda") > 0
    p = tl.nn.Parameter(tl.ones(37, device="cuda"))
    x2, x3, y3 = tl.ones(8, 5, device="cuda"), tl.ones(3, 8, 6, device="cuda"), tl.ones(3, 6, 4, device="cuda")
    v, v2, c8 = tl.ones(6, device="cuda"), tl.ones(6, device="cuda"), tl.ones(8, 8, device="cuda")
    lw, lb = tl.nn.Parameter(tl.ones(7, 6, device="cuda")), tl.nn.Parameter(tl.ones(7, device="cuda"))
    from tensorlab._dispatch import dispatch
    from tensorlab.nn.functional.loss import CROSS_ENTROPY, CROSS_ENTROPY_BACKWARD
    from tensorlab.ops.elementwise_binary import THRESHOLD_BACKWARD
    from tensorlab.ops.reductions import SOFTMAX_BACKWARD

    x2b = tl.ones(8, 6, device="cuda")

    logits, target = tl.ones(9, 5, device="cuda"), tl.zeros(9, dtype=tl.int64, device="cuda")
    g_rows, class_w, lse = tl.ones(9, device="cuda"), tl.ones(5, device="cuda"), tl.ones(9, device="cuda")
    cases = {
        "a + b": lambda: a + b,
        "a * 2.5": lambda: a * 2.5,
        "2.5 * a": lambda: 2.5 * a,
        "a - b, alpha 2": lambda: tl.sub(a, b, alpha=2),
        "a < b": lambda: a < b,
        "a + 1 (int)": lambda: a + 1,
        "i + 3": lambda: i + 3,
        "a / i (mixed dtypes)": lambda: a / i,
        "h * 3.0 (half)": lambda: h * 3.0,
        "relu(a)": lambda: tl.relu(a),
        "exp(h)": lambda: tl.exp(h),
        "where(c, a, b)": lambda: tl.where(c, a, b),
        "a.clamp(0.5, 1.5)": lambda: a.clamp(0.5, 1.5),
        "2 - a (reversed)": lambda: 2 - a,
        "x + bias (broadcast)": lambda: x + bias,
        "bias * x (broadcast first)": lambda: bias * x,
        "x.t() * 2 (strided)": lambda: x.t() * 2,
        "x.t() + y (strided and contiguous)": lambda: x.t() + y,
        "exp(x.t()) (laid out as x.t())": lambda: tl.exp(x.t()),
        "where(m, x, 0.5) (broadcast condition)": lambda: tl.where(m, x, 0.5),
        "p * 2.5 (a Parameter)": lambda: p * 2.5,
        "x @ y (mm)": lambda: x @ y,
        "mm(x, y.t().t())": lambda: tl.mm(x, y),
        "x3 @ y (batch folded into M)": lambda: x3 @ y,
        "bmm(x3, y3)": lambda: tl.bmm(x3, y3),
        "mv(x, v)": lambda: tl.mv(x, v),
        "dot(v, v2)": lambda: tl.dot(v, v2),
        "linear(x, w, bias) (Parameters, weight read transposed)": lambda: tl.nn.functional.linear(x, lw, lb),
        "linear(x, w) (no bias)": lambda: tl.nn.functional.linear(x, lw),
        "addmm(c8, x, y, beta 0.5, alpha 2)": lambda: tl.addmm(c8, x, y, beta=0.5, alpha=2),
        "x.t() @ x2 (transposed operand)": lambda: x.t() @ x2,
        "x.sum()": lambda: x.sum(),
        "x.sum(0) (a bias gradient)": lambda: x.sum(0),
        "x.t().mean(1, keepdim=True)": lambda: x.t().mean(1, keepdim=True),
        "x.sum(dtype=float64)": lambda: x.sum(dtype=tl.float64),
        "i.sum() (int64)": lambda: i.sum(),
        "x.amax(1)": lambda: x.amax(1),
        "x.norm(3.0)": lambda: x.norm(3.0),
        "logsumexp(x, 1)": lambda: tl.logsumexp(x, 1),
        "c.all()": lambda: c.all(),
        "x.softmax(1)": lambda: x.softmax(1),
        "x.t().log_softmax(0)": lambda: x.t().log_softmax(0),
        "softmax's backward kernel": lambda: dispatch(SOFTMAX_BACKWARD, x, x2b, dim=1, log=False),
        "cross_entropy's kernel (four outputs)": lambda: dispatch(CROSS_ENTROPY, logits, target, None, class_dim=1,
                                                                  ignore_index=-100, label_smoothing=0.0),
        "cross_entropy's backward kernel (weights, smoothing)": lambda: dispatch(
            CROSS_ENTROPY_BACKWARD, g_rows, logits, target, class_w, lse, class_dim=1, ignore_index=2,
            label_smoothing=0.1),
        "a * 0.0": lambda: a * 0.0,
        "a * -0.0": lambda: a * -0.0,
        "where(c, 0.0, b)": lambda: tl.where(c, 0.0, b),
        "relu's backward kernel": lambda: dispatch(THRESHOLD_BACKWARD, a, b),
    }
    keep = []  # results stay alive, so that every output has its own address
    for name, fn in cases.items():
        _replay.ENABLED = False
        calls.clear()
        fn()
        reference = fn()  # the first call may compile; the second is a direct launch
        keep.append(reference)
        assert len(calls) == 2 and calls[-1][6:9] == (None, None, None), f"{name}: reference not direct"
        expected = launcher_args(calls[-1])
        _replay.ENABLED = True
        _replay.plans.clear()  # ("2.5 * a" is "a * 2.5": one key)
        calls.clear()
        replays.clear()
        keep.append(fn())  # records the plan
        assert not replays, f"{name}: replayed before a plan was recorded"
        result = fn()
        keep.append(result)
        assert len(replays) == 1 and len(calls) == 2, f"{name}: not replayed ({len(replays)}, {len(calls)} launches)"
        assert type(result) is type(reference), name  # a tuple of outputs stays a tuple
        results, references = (result, reference) if isinstance(result, tuple) else ((result,), (reference,))
        assert [(r.dtype, r.shape) for r in results] == [(r.dtype, r.shape) for r in references], name
        moved = {old.data_ptr(): new.data_ptr() for old, new in zip(references, results)}  # the new outputs
        assert not moved.keys() & set(moved.values())
        assert launcher_args(calls[-1]) == tuple(moved.get(x, x) for x in expected), (
            f"{name}: the replay passed other arguments\n  full   {expected}\n  replay {launcher_args(calls[-1])}")

    def replayed(fn, times=3):
        """How many of ``times`` calls of ``fn`` replay, after two that may compile and record."""
        fn()
        fn()
        replays.clear()
        for _ in range(times):
            fn()
        return len(replays)

    assert replayed(lambda: a + b) == 3
    assert replayed(lambda: tl.relu(a + b) * 2.5) == 9  # other ops' new outputs are keyed like any tensor
    fresh = tl.ones(37, dtype=tl.float64, device="cuda")
    assert replayed(lambda: tl.sigmoid(fresh), times=2) == 2  # its first launch compiled: recorded later
    assert replayed(lambda: a.t() + b) == 3  # (a 1-d transpose is itself)
    assert replayed(lambda: x + bias) == 3 and replayed(lambda: x.t() * 2) == 3
    # a result laid out as its transposed operand (not contiguous) replays with that layout
    assert replayed(lambda: tl.exp(x.t())) == 3
    assert tl.exp(x.t()).stride() == x.t().stride() and (x.t() * 2).stride() == x.t().stride()
    # two inputs at one address: which one a launched array stands for is ambiguous, so no plan;
    # the key is recorded again by a later call with distinct inputs
    z, w = tl.ones(5, 7, device="cuda"), tl.ones(5, 7, device="cuda")
    assert replayed(lambda: z.t() + z.t()) == 0
    assert replayed(lambda: z.t() + w.t()) == 3
    assert replayed(lambda: z @ z.t()) == 0 and replayed(lambda: z @ w.t()) == 3  # the same for a matmul
    big = tl.ones(1 << 18, device="cuda")
    assert replayed(lambda: big.sum()) == 0  # a split reduction launches twice (and allocates its partials)
    assert replayed(lambda: a + a) == 3  # a + b's plan: each input position gets its own address
    # a float zero's key holds its sign (0.0 == -0.0 as dict keys): -0.0 does not take 0.0's plan
    assert replayed(lambda: a * 0.0) == 3 and replayed(lambda: a * -0.0) == 3
    neg_zero_bits = -(2**63)  # -0.0 as the kernels take a number: its float64 bits, as an int64
    calls.clear()
    a * 0.0
    a * -0.0
    assert neg_zero_bits not in launcher_args(calls[0]) and neg_zero_bits in launcher_args(calls[1])
    assert replayed(lambda: a * float("nan")) == 0  # NaN never equals itself: no key
    before = tl.get_default_dtype()
    try:
        assert (i / i).dtype is before
        tl.set_default_dtype(tl.float64)
        for _ in range(3):
            assert (i / i).dtype is tl.float64  # the default dtype is part of the key
    finally:
        tl.set_default_dtype(before)
    # a recording is its thread's: another thread's launches meanwhile are not in it, and that
    # thread does not start a recording of its own
    import threading

    other = {}

    def elsewhere():
        b * 3.5  # a direct launch (this key's plan is cleared below, so it is not replayed)
        other["started"] = _replay._start()

    b * 3.5
    b * 3.5
    _replay.plans.clear()
    assert _replay._start()
    thread = threading.Thread(target=elsewhere)
    calls.clear()
    thread.start()
    thread.join()
    assert len(calls) == 1 and other["started"] is False
    assert _replay._stop() == [], "another thread's launch was recorded"
    hook = []
    triton.knobs.runtime.launch_enter_hook.add(hook.append)
    try:
        replays.clear()
        calls.clear()
        a + b
        assert len(calls) == 1 and len(hook) == 1, "a registered launch hook must see the launch"
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(hook.append)
    print("replay checks passed:", len(cases), "ops; triton", triton.__version__)


if __name__ == "__main__":
    _main()
