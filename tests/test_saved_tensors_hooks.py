"""autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks."""

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


def test_pack_and_unpack_run_once_per_saved_tensor():
    calls = []

    def pack(t):
        calls.append(("pack", tuple(t.shape)))
        return t.clone()

    def unpack(x):
        calls.append(("unpack",))
        return x

    a = tl.ones(3, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (a * a).exp().sum()  # mul saves both inputs, exp its output, sum nothing
    assert calls == [("pack", (3,))] * 3
    y.backward()
    assert calls[3:] == [("unpack",)] * 3
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.exp(1.0), rtol=1e-6)


def test_save_on_cpu_keeps_saved_tensors_on_the_host(device):
    b = tl.tensor([0.5, 1.0, 2.0], device=device, requires_grad=True)
    seen = []
    inner = save_on_cpu()
    pack, unpack = inner.pack_hook, inner.unpack_hook

    def spy(t):
        packed = pack(t)
        seen.append(packed[1].device.type)
        return packed

    with saved_tensors_hooks(spy, unpack):
        loss = (b * 3).sin().sum()
    loss.backward()
    assert seen and all(d == "cpu" for d in seen)
    np.testing.assert_allclose(b.grad.cpu().numpy(), 3 * np.cos(3 * np.array([0.5, 1.0, 2.0])), rtol=1e-5)
    assert b.grad.device == b.device


def test_errors_and_disabling():
    a = tl.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: 1, lambda x: x):
        z = (a * a).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        z.backward()
    with disable_saved_tensors_hooks("no hooks here"), pytest.raises(RuntimeError, match="no hooks here"):
        with saved_tensors_hooks(lambda t: t, lambda x: x):
            pass
    with saved_tensors_hooks(lambda t: t, lambda x: x):
        pass  # allowed again outside
