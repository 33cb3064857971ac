"""Independent numpy references of PyTorch's documented optimizer algorithms (float64).

Written from the algorithm boxes of the ``torch.optim`` documentation, not from the kernels or their
twins: each class keeps its own state and ``step(params, grads)`` updates a list of float64 arrays
in place. ``state[i]`` uses PyTorch's state names so tests can compare them too.
"""

from __future__ import annotations

import math

import numpy as np


class Ref:
    def __init__(self, n: int, **opts):
        self.opts = opts
        self.state = [dict() for _ in range(n)]

    def step(self, params, grads):
        for i, (p, g) in enumerate(zip(params, grads)):
            if g is None:
                continue
            st = self.state[i]
            st["step"] = st.get("step", 0) + 1
            self.update(p, np.array(g, dtype=np.float64), st, st["step"])

    def update(self, p, g, st, t):  # pragma: no cover - abstract
        raise NotImplementedError

    def decayed_grad(self, p, g, lr, wd):
        """Every algorithm box starts so: ``g = -g`` when maximizing, then weight decay,
        ``g += wd p`` or, decoupled (AdamW), ``p *= 1 - lr wd`` (``p`` in place)."""
        if self.opts.get("maximize"):
            g = -g
        if wd:
            if self.opts.get("decoupled"):
                p *= 1 - lr * wd
            else:
                g = g + wd * p
        return g


class SGDRef(Ref):
    """g += wd p; b = mu b + (1 - tau) g (b = g at t = 1); g = g + mu b (nesterov) or b; p -= lr g."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, mu, tau, wd = o.get("lr", 1e-3), o.get("momentum", 0), o.get("dampening", 0), o.get("weight_decay", 0)
        g = self.decayed_grad(p, g, lr, wd)
        if mu:
            b = g.copy() if t == 1 else mu * st["momentum_buffer"] + (1 - tau) * g
            st["momentum_buffer"] = b
            g = g + mu * b if o.get("nesterov") else b
        p -= lr * g


class AdamRef(Ref):
    """Adam / AdamW (decoupled): m, v moments, bias-corrected; amsgrad keeps the max of v."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, (b1, b2), eps, wd = o.get("lr", 1e-3), o.get("betas", (0.9, 0.999)), o.get("eps", 1e-8), o["weight_decay"]
        g = self.decayed_grad(p, g, lr, wd)
        m = b1 * st.get("exp_avg", 0.0) + (1 - b1) * g
        v = b2 * st.get("exp_avg_sq", 0.0) + (1 - b2) * g * g
        st["exp_avg"], st["exp_avg_sq"] = m, v
        m_hat = m / (1 - b1**t)
        if o.get("amsgrad"):
            vmax = np.maximum(st.get("max_exp_avg_sq", 0.0), v)
            st["max_exp_avg_sq"] = vmax
            v_hat = vmax / (1 - b2**t)
        else:
            v_hat = v / (1 - b2**t)
        p -= lr * m_hat / (np.sqrt(v_hat) + eps)


class AdamaxRef(Ref):
    """m = b1 m + (1 - b1) g; u = max(b2 u, |g| + eps); p -= lr / (1 - b1^t) m / u."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, (b1, b2), eps, wd = o.get("lr", 2e-3), o.get("betas", (0.9, 0.999)), o.get("eps", 1e-8), o["weight_decay"]
        g = self.decayed_grad(p, g, lr, wd)
        m = b1 * st.get("exp_avg", 0.0) + (1 - b1) * g
        u = np.maximum(b2 * st.get("exp_inf", 0.0), np.abs(g) + eps)
        st["exp_avg"], st["exp_inf"] = m, u
        p -= lr / (1 - b1**t) * m / u


class NAdamRef(Ref):
    """Dozat's NAdam with PyTorch's momentum schedule mu_t = b1 (1 - 0.5 * 0.96^(t psi))."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, (b1, b2), eps, wd = o.get("lr", 2e-3), o.get("betas", (0.9, 0.999)), o.get("eps", 1e-8), o["weight_decay"]
        psi = o.get("momentum_decay", 4e-3)
        g = self.decayed_grad(p, g, lr, wd)

        def mu(k):
            return b1 * (1 - 0.5 * 0.96 ** (k * psi))

        prod_t = math.prod(mu(k) for k in range(1, t + 1))
        prod_next = prod_t * mu(t + 1)
        m = b1 * st.get("exp_avg", 0.0) + (1 - b1) * g
        v = b2 * st.get("exp_avg_sq", 0.0) + (1 - b2) * g * g
        st["exp_avg"], st["exp_avg_sq"], st["mu_product"] = m, v, prod_t
        m_hat = mu(t + 1) * m / (1 - prod_next) + (1 - mu(t)) * g / (1 - prod_t)
        v_hat = v / (1 - b2**t)
        p -= lr * m_hat / (np.sqrt(v_hat) + eps)


class RAdamRef(Ref):
    """Liu et al.'s rectified Adam: rectify when rho_t > 5, else an SGD-with-momentum step."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, (b1, b2), eps, wd = o.get("lr", 1e-3), o.get("betas", (0.9, 0.999)), o.get("eps", 1e-8), o["weight_decay"]
        g = self.decayed_grad(p, g, lr, wd)
        m = b1 * st.get("exp_avg", 0.0) + (1 - b1) * g
        v = b2 * st.get("exp_avg_sq", 0.0) + (1 - b2) * g * g
        st["exp_avg"], st["exp_avg_sq"] = m, v
        m_hat = m / (1 - b1**t)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho_t > 5:
            lt = math.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
            rt = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p -= lr * m_hat * rt * lt
        else:
            p -= lr * m_hat


class RMSpropRef(Ref):
    """v = a v + (1 - a) g^2; centered subtracts the squared running mean; optional momentum buffer."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, a, eps, wd = o.get("lr", 1e-2), o.get("alpha", 0.99), o.get("eps", 1e-8), o.get("weight_decay", 0)
        mu = o.get("momentum", 0)
        g = self.decayed_grad(p, g, lr, wd)
        v = a * st.get("square_avg", 0.0) + (1 - a) * g * g
        st["square_avg"] = v
        vt = v
        if o.get("centered"):
            ga = a * st.get("grad_avg", 0.0) + (1 - a) * g
            st["grad_avg"] = ga
            vt = v - ga * ga
        if mu > 0:
            b = mu * st.get("momentum_buffer", 0.0) + g / (np.sqrt(vt) + eps)
            st["momentum_buffer"] = b
            p -= lr * b
        else:
            p -= lr * g / (np.sqrt(vt) + eps)


class AdagradRef(Ref):
    """lr_t = lr / (1 + (t - 1) eta); s += g^2; p -= lr_t g / (sqrt(s) + eps)."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, eta, eps, wd = o.get("lr", 1e-2), o.get("lr_decay", 0), o.get("eps", 1e-10), o.get("weight_decay", 0)
        g = self.decayed_grad(p, g, lr, wd)
        s = st.get("sum", o.get("initial_accumulator_value", 0.0)) + g * g
        st["sum"] = s
        p -= lr / (1 + (t - 1) * eta) * g / (np.sqrt(s) + eps)


class AdadeltaRef(Ref):
    """v = r v + (1 - r) g^2; dx = sqrt(u + eps) / sqrt(v + eps) g; u = r u + (1 - r) dx^2; p -= lr dx."""

    def update(self, p, g, st, t):
        o = self.opts
        lr, r, eps, wd = o.get("lr", 1.0), o.get("rho", 0.9), o.get("eps", 1e-6), o.get("weight_decay", 0)
        g = self.decayed_grad(p, g, lr, wd)
        v = r * st.get("square_avg", 0.0) + (1 - r) * g * g
        dx = np.sqrt(st.get("acc_delta", 0.0) + eps) / np.sqrt(v + eps) * g
        u = r * st.get("acc_delta", 0.0) + (1 - r) * dx * dx
        st["square_avg"], st["acc_delta"] = v, u
        p -= lr * dx


def run_optimizer(cls, kwargs, device, dtype, init, grads, params=None):
    """tensorlab's optimizer ``cls(**kwargs)`` stepped through ``grads`` (per step, one array or None
    per parameter) from ``init``; returns (params, optimizer)."""
    import tensorlab as tl

    if params is None:
        params = [tl.nn.Parameter(tl.tensor(a, dtype=dtype, device=device)) for a in init]
    opt = cls(params, **kwargs)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = None if g is None else tl.tensor(g, dtype=dtype, device=device)
        opt.step()
    return params, opt


def run_reference(ref_cls, ref_opts, init, grads, np_dtype):
    """The reference fed the same (dtype-rounded) inputs, in float64; returns (params, reference)."""
    params = [np.asarray(a, dtype=np_dtype).astype(np.float64) for a in init]
    ref = ref_cls(len(params), **ref_opts)
    for step_grads in grads:
        ref.step(params, [None if g is None else np.asarray(g, dtype=np_dtype).astype(np.float64)
                          for g in step_grads])
    return params, ref


def check_state_dict_round_trip(opt, cls, kwargs, params, later_grads, device, tmp_path):
    """``opt`` (over ``params``, stepped twice) -> state_dict -> tensorlab.save/load -> a new ``cls``
    over copies of the parameters -> load_state_dict: PyTorch's layout, the options and the step
    restored, and identical parameters after both take the ``later_grads`` steps. Returns the new
    optimizer and its parameters (for an optimizer's own state checks)."""
    import tensorlab as tl

    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert sorted(sd["state"]) == list(range(len(params))) == sd["param_groups"][0]["params"]
    assert {k: v for k, v in sd["param_groups"][0].items() if k in kwargs} == {
        k: (tuple(v) if isinstance(v, list | tuple) else v) for k, v in kwargs.items()}
    if "step" in sd["state"][0]:
        assert sd["state"][0]["step"].dtype is tl.float32 and sd["state"][0]["step"].item() == 2.0
    path = tmp_path / "opt.safetensors"
    tl.save(sd, path)
    clones = [tl.nn.Parameter(p.detach().clone()) for p in params]
    opt2 = cls(clones, lr=123.0)  # options come from the state dict
    opt2.load_state_dict(tl.load(path))
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    for step_grads in later_grads:
        for ps in (params, clones):
            for p, g in zip(ps, step_grads):
                p.grad = tl.tensor(g, dtype=tl.float32, device=device)
        opt.step()
        opt2.step()
    for p, q in zip(params, clones):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())
        assert q.device == p.device
    return opt2, clones
