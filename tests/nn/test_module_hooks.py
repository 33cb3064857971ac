"""Module hooks and state-dict extras PyTorch users expect: full backward hooks and pre-hooks
(what they receive with several inputs/outputs, non-tensors, unused outputs, no input requiring
grad, replaced gradients, nesting, removal), the deprecated ``register_backward_hook``, state_dict
pre/post hooks, load_state_dict pre/post hooks, ``get_extra_state``/``set_extra_state``,
``to_empty`` and ``set_submodule``.

Each scenario function below runs against tensorlab here
the expected logs are what the same
functions logged against torch 2.13 (values from torch 2.13, rounded to 5 decimals).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import nn

CUDA = tl.cuda.is_available()


def desc(g):
    if g is None:
        return None
    if isinstance(g, (tuple, list)):
        return tuple(desc(x) for x in g)
    if hasattr(g, "shape") and hasattr(g, "detach"):
        a = g.detach()
        a = a.cpu().numpy()
        return ("T", tuple(a.shape), np.round(np.asarray(a, dtype=np.float64), 5).tolist())
    return repr(g)

def hook_scenarios(L, nn):
    log = []
    def t(a, grad=False):
        x = L.tensor(np.asarray(a, dtype=np.float32))
        return x.requires_grad_() if grad else x
    def W(shape, k=0):
        return nn.Parameter(t(np.cos(np.arange(int(np.prod(shape))) + k).reshape(shape)))

    class Lin(nn.Module):
        def __init__(s):
            super().__init__()
            s.w = W((3, 2))
        def forward(s, x):
            return x @ s.w

    class Two(nn.Module):  # positional: x, y, a float, z; outputs tuple (a, b, int)
        def __init__(s):
            super().__init__()
            s.w = W((2,))
        def forward(s, x, y, k, z, scale=None):
            a = x * s.w * k + y
            b = (z * 2).sum() + (x * 0).sum()
            if scale is not None:
                a = a * scale
            return a, b, 7

    def hk(tag):
        def f(mod, gi, go):
            log.append((tag, type(mod).__name__, desc(gi), desc(go)))
        return f
    def prehk(tag):
        def f(mod, go):
            log.append((tag, type(mod).__name__, desc(go)))
        return f

    # 1: simple, order of pre / full / tensor hooks
    m = Lin()
    h1 = m.register_full_backward_hook(hk("full1"))
    m.register_full_backward_hook(hk("full0"), prepend=True)
    m.register_full_backward_pre_hook(prehk("pre1"))
    m.register_full_backward_pre_hook(prehk("pre0"), prepend=True)
    x = t([[1., 2, 3], [0.5, -1, 2]], grad=True)
    out = m(x)
    log.append(("out grad_fn", out.grad_fn.name(), out.requires_grad))
    out.register_hook(lambda g: log.append(("tensor hook on out", desc(g))))
    x.register_hook(lambda g: log.append(("tensor hook on x", desc(g))))
    (out * t([[1., 2], [3, 4]])).sum().backward()
    log.append(("x.grad", desc(x.grad), "w.grad", desc(m.w.grad)))
    h1.remove()
    x.grad = None
    m(x).sum().backward()
    log.append(("after remove", desc(x.grad)))

    # 2: several inputs/outputs, non-tensors, a tensor kwarg, an unused output
    m = Two()
    m.register_full_backward_hook(hk("two"))
    m.register_full_backward_pre_hook(prehk("two-pre"))
    x, y, z = t([1., 2], True), t([3., 4]), t([5., 6], True)
    a, b, k = m(x, y, 3.0, z, scale=t([2., 2], True))
    log.append(("k", k, "y is", y.requires_grad))
    a.sum().backward()  # b unused
    log.append(("grads", desc(x.grad), desc(z.grad)))

    # 3: no input requires grad -> hook fires on outputs (with a warning); return-value rule
    m = Lin()
    m.register_full_backward_hook(hk("noinput"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(t([[1., 2, 3]])).sum().backward()
    log.append(("noinput warnings", [str(x.message)[:60] for x in w], desc(m.w.grad)))
    m2 = Lin()
    m2.register_full_backward_hook(lambda mod, gi, go: (t([[1., 1, 1]]),))
    try:
        m2(t([[1., 2, 3]])).sum().backward()
        log.append(("noinput return", "ok"))
    except Exception as e:
        log.append(("noinput return", type(e).__name__, str(e)[:120]))

    # 4: hooks returning new gradients
    m = Lin()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
    m.register_full_backward_hook(hk("after-modify"))
    x = t([[1., 2, 3]], True)
    m(x).sum().backward()
    log.append(("modified", desc(x.grad), desc(m.w.grad)))
    # wrong count
    m = Lin()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    try:
        m(t([[1., 2, 3]], True)).sum().backward()
        log.append(("bad count", "ok"))
    except Exception as e:
        log.append(("bad count", type(e).__name__, str(e)[:120]))
    m = Lin()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    try:
        m(t([[1., 2, 3]], True)).sum().backward()
        log.append(("bad pre count", "ok"))
    except Exception as e:
        log.append(("bad pre count", type(e).__name__, str(e)[:120]))

    # 5: mixing old and new
    m = Lin()
    m.register_full_backward_hook(hk("x"))
    try:
        m.register_backward_hook(hk("y"))
    except Exception as e:
        log.append(("mix", type(e).__name__, str(e)))
    m = Lin()
    m.register_backward_hook(hk("y"))
    try:
        m.register_full_backward_hook(hk("x"))
    except Exception as e:
        log.append(("mix2", type(e).__name__, str(e)))

    # 6: output not reached from input (returns a parameter expression); dict output
    class P(nn.Module):
        def __init__(s):
            super().__init__()
            s.w = W((2,))
        def forward(s, x):
            return s.w * 2
    m = P()
    m.register_full_backward_hook(hk("param-only"))
    m(t([1., 2], True)).sum().backward()
    log.append(("param-only done", desc(m.w.grad)))
    class Dct(nn.Module):
        def forward(s, x):
            return {"y": x * 2}
    m = Dct()
    m.register_full_backward_hook(hk("dict"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        o = m(t([1., 2], True))
    o["y"].sum().backward()
    log.append(("dict warnings", [str(x.message)[:70] for x in w]))

    # 7: module called twice before one backward; retain_graph twice
    m = Lin()
    m.register_full_backward_hook(hk("twice"))
    x1, x2 = t([[1., 0, 0]], True), t([[0., 1, 0]], True)
    (m(x1).sum() + 2 * m(x2).sum()).backward()
    m = Lin()
    m.register_full_backward_hook(hk("retain"))
    x = t([[1., 1, 1]], True)
    o = m(x).sum()
    o.backward(retain_graph=True)
    o.backward()
    log.append(("retain grad", desc(x.grad)))

    # 8: forward hooks see the wrapped args; order with forward pre hooks
    m = Lin()
    m.register_forward_pre_hook(lambda mod, args: log.append(("fpre", args[0].grad_fn is None)))
    m.register_forward_hook(lambda mod, args, out: log.append(("fhook", args[0].grad_fn is not None)))
    m.register_full_backward_hook(hk("with-fwd"))
    m(t([[1., 1, 1]], True)).sum().backward()

    # 9: deprecated register_backward_hook on a single-op module
    class Sq(nn.Module):
        def forward(s, x):
            return x * x
    m = Sq()
    m.register_backward_hook(hk("old"))
    x = t([1., 2, 3], True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        o = m(x)
    o.sum().backward()
    log.append(("old warnings", [str(x.message)[:60] for x in w], desc(x.grad)))
    class Multi(nn.Module):
        def forward(s, x):
            return (x * 2).exp()
    m = Multi()
    m.register_backward_hook(hk("old-multi"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        o = m(t([1., 2], True))
    o.sum().backward()
    log.append(("old-multi warnings", [str(x.message)[:70] for x in w]))

    # 10: in-place on input inside forward
    class InplaceMod(nn.Module):
        def forward(s, x):
            return x.mul_(2)
    m = InplaceMod()
    m.register_full_backward_hook(hk("inplace"))
    try:
        x = t([1., 2], True) * 1
        m(x)
        log.append(("inplace", "ok"))
    except Exception as e:
        log.append(("inplace", type(e).__name__, str(e)[:90]))
    # 11: outputs: same tensor as input (identity module)
    class Ident(nn.Module):
        def forward(s, x):
            return x
    m = Ident()
    m.register_full_backward_hook(hk("ident"))
    x = t([1., 2], True)
    o = m(x)
    log.append(("ident is", o is x))
    (o * 3).sum().backward()
    log.append(("ident grad", desc(x.grad)))
    # 12: no_grad: nothing wraps
    m = Lin()
    m.register_full_backward_hook(hk("nograd"))
    with L.no_grad():
        o = m(t([[1., 1, 1]], True))
    log.append(("nograd", o.requires_grad, o.grad_fn is None))
    # 13: pre hook only, no input grads
    m = Lin()
    m.register_full_backward_pre_hook(prehk("pre-only"))
    m(t([[1., 1, 1]])).sum().backward()
    log.append(("pre-only w", desc(m.w.grad)))
    # 14: nested modules with hooks on both, firing order
    inner = Lin()
    class Outer(nn.Module):
        def __init__(s):
            super().__init__()
            s.inner = inner
            s.v = W((2,), 3)
        def forward(s, x):
            return s.inner(x * 2) * s.v
    m = Outer()
    for mod, tag in ((m, "outer"), (inner, "inner")):
        mod.register_full_backward_hook(hk(tag))
        mod.register_full_backward_pre_hook(prehk(tag + "-pre"))
    x = t([[1., 2, 3]], True)
    m(x).sum().backward()
    log.append(("nested x.grad", desc(x.grad)))
    # 15: list argument (not wrapped) and tensor kwargs
    class ListArg(nn.Module):
        def forward(s, xs, scale=None):
            return xs[0] * xs[1] * scale
    m = ListArg()
    m.register_full_backward_hook(hk("listarg"))
    a_, b_ = t([1., 2], True), t([3., 4], True)
    o = m([a_, b_], scale=t([2., 2], True))
    try:
        o.sum().backward()
        log.append(("listarg grads", desc(a_.grad), desc(b_.grad)))
    except Exception as e:
        log.append(("listarg", type(e).__name__, str(e)[:100]))
    # 17: hook removed between forward and backward still fires (PyTorch captures the hook list at call time)
    m = Lin()
    h = m.register_full_backward_hook(hk("removed-late"))
    o = m(t([[1., 2, 3]], True))
    h.remove()
    o.sum().backward()
    # 18: autograd.grad with inputs and hooks
    m = Lin()
    m.register_full_backward_hook(hk("agrad"))
    x = t([[1., 2, 3]], True)
    g, = L.autograd.grad(m(x).sum(), [x])
    log.append(("agrad", desc(g)))
    return log



def err(f):
    try:
        r = f()
        return ("ok", desc(r) if not hasattr(r, "_parameters") else type(r).__name__)
    except Exception as e:
        return (type(e).__name__, str(e)[:400])

def state_dict_scenarios(L, nn):
    """State dict / load hooks, extra state, to_empty, set_submodule: a log of what happens."""
    log = []

    def t(a):
        return L.tensor(np.asarray(a, dtype=np.float32))

    def fill(m, k):
        with L.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(t(np.cos(np.arange(p.numel()) + 10 * i + k).reshape(tuple(p.shape))))
        return m

    class Stateful(nn.Module):
        def __init__(s):
            super().__init__()
            s.lin = nn.Linear(2, 2)
            s.counter = 3

        def get_extra_state(s):
            return {"counter": s.counter}

        def set_extra_state(s, st):
            s.counter = st["counter"]

    class Net(nn.Module):
        def __init__(s):
            super().__init__()
            s.a = Stateful()
            s.b = nn.Linear(2, 1)
            s.register_buffer("buf", t([1., 2.]))

    n = Net()
    sd = n.state_dict()
    log.append(("keys", list(sd.keys()), sd["a._extra_state"]))
    log.append(("metadata", dict(sd._metadata)))
    n2 = Net()
    n2.a.counter = 0
    log.append(("load", repr(n2.load_state_dict(sd)), n2.a.counter))
    sd2 = dict(sd)
    del sd2["a._extra_state"]
    log.append(("load missing extra", err(lambda: n2.load_state_dict(sd2))))
    log.append(("load missing extra nonstrict", err(lambda: repr(n2.load_state_dict(sd2, strict=False)))))
    p = nn.Linear(2, 2)
    psd = dict(p.state_dict())
    psd["_extra_state"] = 5
    log.append(("unexpected extra", err(lambda: p.load_state_dict(psd))))
    log.append(("unexpected extra nonstrict", err(lambda: repr(p.load_state_dict(psd, strict=False)))))

    # state_dict hooks: order and arguments
    n = Net()
    h = n.register_state_dict_pre_hook(lambda m, prefix, keep_vars: log.append(("sd pre root", prefix, keep_vars)))
    n.a.register_state_dict_pre_hook(lambda m, prefix, keep_vars: log.append(("sd pre a", prefix, keep_vars)))

    def post(m, sd, prefix, meta):
        log.append(("sd post a", prefix, meta, list(sd.keys())))
        sd[prefix + "added"] = 1
    n.a.register_state_dict_post_hook(post)
    n.register_state_dict_post_hook(lambda m, sd, prefix, meta: log.append(("sd post root", prefix, meta, len(sd))))
    out = n.state_dict(prefix="pre.", keep_vars=True)
    log.append(("sd keys", list(out.keys())))
    h.remove()
    n.state_dict()
    m = nn.Linear(1, 1)
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
    log.append(("post returns", err(lambda: m.state_dict())))
    m = nn.Linear(1, 1)
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"replaced": 1})
    log.append(("private returns", err(lambda: dict(m.state_dict()))))
    log.append(("private returns in child", err(lambda: list(nn.Sequential(m).state_dict().keys()))))

    def f(mod, sd, prefix, meta):
        return None
    m.register_state_dict_post_hook(f)
    log.append(("private after public", err(lambda: m._register_state_dict_hook(f))))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d = nn.Linear(1, 1).state_dict(None, "x.")
    log.append(("positional", list(d.keys()), [type(x.message).__name__ for x in w]))

    # load_state_dict hooks: order, arguments, the key lists they see
    n, src = fill(Net(), 0), fill(Net(), 5)

    def pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        log.append(("load pre", type(mod).__name__, prefix, sorted(sd.keys()), meta, strict, list(missing),
                    list(unexpected)))

    def lpost(mod, keys):
        log.append(("load post", type(mod).__name__, list(keys.missing_keys), list(keys.unexpected_keys)))
    for mod in (n, n.a, n.a.lin):
        mod.register_load_state_dict_pre_hook(pre)
        mod.register_load_state_dict_post_hook(lpost)
    sd = src.state_dict()
    sd["zzz"] = t([0.])
    log.append(("load with hooks", err(lambda: n.load_state_dict(sd))))
    log.append(("loaded", desc(n.a.lin.weight)))  # post-hooks present: written before the strict error, as PyTorch
    n = fill(Net(), 0)

    def clear(mod, keys):
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()
    n.register_load_state_dict_post_hook(clear)
    del sd["b.bias"]
    log.append(("cleared", err(lambda: repr(n.load_state_dict(sd)))))
    log.append(("loaded2", desc(n.a.lin.weight), desc(n.b.bias)))
    n.register_load_state_dict_post_hook(lambda mod, keys: 1)
    log.append(("post returns value", err(lambda: n.load_state_dict(src.state_dict()))))
    # a pre-hook renaming the keys of an old checkpoint
    m = nn.Linear(2, 2)

    def rename(mod, sd, prefix, *rest):
        if prefix + "W" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "W")
    m.register_load_state_dict_pre_hook(rename)
    old = {"W": t([[1., 2.], [3., 4.]]), "bias": t([5., 6.])}
    log.append(("rename", err(lambda: repr(m.load_state_dict(old))), desc(m.weight)))
    seq = nn.Sequential(nn.Linear(2, 2))
    seq[0].register_load_state_dict_pre_hook(rename)
    log.append(("rename child", err(lambda: repr(seq.load_state_dict({"0.W": t([[1., 2.], [3., 4.]]),
                                                                      "0.bias": t([5., 6.])}))), desc(seq[0].weight)))
    m = nn.Linear(2, 2)
    m._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: log.append(("private load pre", prefix, len(rest))))
    m.load_state_dict(nn.Linear(2, 2).state_dict())

    class Scal(nn.Module):
        def __init__(s):
            super().__init__()
            s.s = nn.Parameter(t(1.0))
    sc = Scal()
    log.append(("0d from (1,)", err(lambda: repr(sc.load_state_dict({"s": t([7.])}))), desc(sc.s)))
    log.append(("non-tensor", err(lambda: sc.load_state_dict({"s": 3.0}))))
    log.append(("not mapping", err(lambda: sc.load_state_dict([1]))))
    m = nn.Linear(2, 2)
    m.load_state_dict({"weight": t([[1., 2.], [3., 4.]]), "bias": t([0., 0.])}, assign=True)
    log.append(("assign", type(m.weight).__name__, m.weight.requires_grad, desc(m.weight)))

    # to_empty, set_submodule, get_*
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    w0 = m[0].weight
    r = m.to_empty(device="cpu")
    log.append(("to_empty", r is m, m[0].weight is w0, tuple(m[0].weight.shape), str(m[0].weight.dtype).split(".")[-1],
                m[0].weight.requires_grad))
    log.append(("to_empty positional", err(lambda: m.to_empty("cpu"))))
    log.append(("to_empty none", err(lambda: m.to_empty(device=None))))
    log.append(("to_empty recurse", err(lambda: nn.Linear(1, 1).to_empty(device="cpu", recurse=False))))
    log.append(("set_submodule", err(lambda: m.set_submodule("1.1", nn.Linear(3, 2))), repr(m)))
    log.append(("set_submodule new", err(lambda: m.set_submodule("1.extra", nn.Tanh())),
                [k for k, _ in m.named_modules()]))
    log.append(("set_submodule strict", err(lambda: m.set_submodule("1.nope", nn.Tanh(), strict=True))))
    log.append(("set_submodule strict ok", err(lambda: m.set_submodule("1.0", nn.Tanh(), strict=True))))
    log.append(("set_submodule empty", err(lambda: m.set_submodule("", nn.Tanh()))))
    log.append(("set_submodule not module", err(lambda: m.set_submodule("0", 3))))
    log.append(("set_submodule bad parent", err(lambda: m.set_submodule("5.x", nn.Tanh()))))
    log.append(("set_submodule param", err(lambda: m.set_submodule("0.weight", nn.Tanh()))))
    log.append(("set_submodule top", err(lambda: m.set_submodule("2", nn.Tanh())), len(m)))
    log.append(("get_submodule bad", err(lambda: m.get_submodule("0.weight"))))
    log.append(("get_submodule missing", err(lambda: m.get_submodule("0.nope"))))
    log.append(("get_parameter bad", err(lambda: m.get_parameter("0.nope"))))
    log.append(("get_parameter notparam", err(lambda: m.get_parameter("0.in_features"))))
    log.append(("get_buffer notbuf", err(lambda: m.get_buffer("0.weight"))))
    log.append(("extra default", err(lambda: nn.Linear(1, 1).get_extra_state())[0]))
    return log


# values from torch 2.13 (the same scenario functions run with torch in place of tensorlab)
EXPECTED_HOOK_LOG = [('out grad_fn', 'BackwardHookFunctionBackward', True),
 ('tensor hook on out', ('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]])),
 ('pre0', 'Lin', (('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]]),)),
 ('pre1', 'Lin', (('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]]),)),
 ('full0', 'Lin', (('T', (2, 3), [[2.0806, -2.39613, -0.08632], [5.16121, -5.20841, -0.82628]]),),
  (('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]]),)),
 ('full1', 'Lin', (('T', (2, 3), [[2.0806, -2.39613, -0.08632], [5.16121, -5.20841, -0.82628]]),),
  (('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]]),)),
 ('tensor hook on x', ('T', (2, 3), [[2.0806, -2.39613, -0.08632], [5.16121, -5.20841, -0.82628]])),
 ('x.grad', ('T', (2, 3), [[2.0806, -2.39613, -0.08632], [5.16121, -5.20841, -0.82628]]), 'w.grad',
  ('T', (3, 2), [[2.5, 4.0], [-1.0, 0.0], [9.0, 14.0]])),
 ('pre0', 'Lin', (('T', (2, 2), [[1.0, 1.0], [1.0, 1.0]]),)),
 ('pre1', 'Lin', (('T', (2, 2), [[1.0, 1.0], [1.0, 1.0]]),)),
 ('full0', 'Lin', (('T', (2, 3), [[1.5403, -1.40614, -0.36998], [1.5403, -1.40614, -0.36998]]),),
  (('T', (2, 2), [[1.0, 1.0], [1.0, 1.0]]),)),
 ('tensor hook on x', ('T', (2, 3), [[1.5403, -1.40614, -0.36998], [1.5403, -1.40614, -0.36998]])),
 ('after remove', ('T', (2, 3), [[1.5403, -1.40614, -0.36998], [1.5403, -1.40614, -0.36998]])),
 ('k', 7, 'y is', False), ('two-pre', 'Two', (('T', (2,), [1.0, 1.0]), None, None)),
 ('two', 'Two', (('T', (2,), [6.0, 3.24181]), ('T', (2,), [0.0, 0.0]), None, ('T', (2,), [0.0, 0.0])),
  (('T', (2,), [1.0, 1.0]), None, None)),
 ('grads', ('T', (2,), [6.0, 3.24181]), ('T', (2,), [0.0, 0.0])),
 ('noinput', 'Lin', (None,), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('noinput warnings', ['Full backward hook is firing when gradients are computed wit'],
  ('T', (3, 2), [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])),
 ('noinput return', 'RuntimeError',
  'Backward hook for Modules where no input requires gradient should always return None or None for all '
  'gradients.'),
 ('after-modify', 'Lin', (('T', (1, 3), [[16.40302, -13.06139, -2.69981]]),), (('T', (1, 2), [[10.0, 10.0]]),)),
 ('modified', ('T', (1, 3), [[16.40302, -13.06139, -2.69981]]),
  ('T', (3, 2), [[10.0, 10.0], [20.0, 20.0], [30.0, 30.0]])),
 ('bad count', 'RuntimeError', 'Backward hook returned an invalid number of grad_input, got 2, but expected 1'),
 ('bad pre count', 'RuntimeError',
  'Backward pre hook returned an invalid number of grad_output, got 2, but expected 1'),
 ('mix', 'RuntimeError',
  'Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only one of '
  'them.'),
 ('mix2', 'RuntimeError',
  'Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only one of '
  'them.'),
 ('param-only done', ('T', (2,), [2.0, 2.0])),
 ('dict warnings', ['For backward hooks to be called, module output should be a Tensor or a']),
 ('twice', 'Lin', (('T', (1, 3), [[3.0806, -2.81228, -0.73996]]),), (('T', (1, 2), [[2.0, 2.0]]),)),
 ('twice', 'Lin', (('T', (1, 3), [[1.5403, -1.40614, -0.36998]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('retain', 'Lin', (('T', (1, 3), [[1.5403, -1.40614, -0.36998]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('retain', 'Lin', (('T', (1, 3), [[1.5403, -1.40614, -0.36998]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('retain grad', ('T', (1, 3), [[3.0806, -2.81228, -0.73996]])), ('fpre', True), ('fhook', True),
 ('with-fwd', 'Lin', (('T', (1, 3), [[1.5403, -1.40614, -0.36998]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('old', 'Sq', (('T', (3,), [1.0, 2.0, 3.0]), ('T', (3,), [1.0, 2.0, 3.0])), (('T', (3,), [1.0, 1.0, 1.0]),)),
 ('old warnings', ['Using a non-full backward hook when the forward contains mul'], ('T', (3,), [2.0, 4.0, 6.0])),
 ('old-multi', 'Multi', (('T', (2,), [7.38906, 54.59815]),), (('T', (2,), [1.0, 1.0]),)),
 ('old-multi warnings', ['Using a non-full backward hook when the forward contains multiple auto']),
 ('inplace', 'RuntimeError',
  'Output 0 of BackwardHookFunction is a view and is being modified inplace. This view was cr'),
 ('ident is', False), ('ident', 'Ident', (('T', (2,), [3.0, 3.0]),), (('T', (2,), [3.0, 3.0]),)),
 ('ident grad', ('T', (2,), [3.0, 3.0])), ('nograd', False, True),
 ('pre-only', 'Lin', (('T', (1, 2), [[1.0, 1.0]]),)),
 ('pre-only w', ('T', (3, 2), [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])),
 ('outer-pre', 'Outer', (('T', (1, 2), [[1.0, 1.0]]),)),
 ('inner-pre', 'Lin', (('T', (1, 2), [[-0.98999, -0.65364]]),)),
 ('inner', 'Lin', (('T', (1, 3), [[-1.34316, 1.05908, 0.46169]]),), (('T', (1, 2), [[-0.98999, -0.65364]]),)),
 ('outer', 'Outer', (('T', (1, 3), [[-2.68632, 2.11817, 0.92338]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('nested x.grad', ('T', (1, 3), [[-2.68632, 2.11817, 0.92338]])),
 ('listarg', 'ListArg', (None,), (('T', (2,), [1.0, 1.0]),)),
 ('listarg grads', ('T', (2,), [6.0, 8.0]), ('T', (2,), [2.0, 4.0])),
 ('removed-late', 'Lin', (('T', (1, 3), [[1.5403, -1.40614, -0.36998]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('agrad', 'Lin', (('T', (1, 3), [[1.5403, -1.40614, -0.36998]]),), (('T', (1, 2), [[1.0, 1.0]]),)),
 ('agrad', ('T', (1, 3), [[1.5403, -1.40614, -0.36998]]))]

EXPECTED_STATE_DICT_LOG = [
 ('keys', ['buf', 'a._extra_state', 'a.lin.weight', 'a.lin.bias', 'b.weight', 'b.bias'], {'counter': 3}),
 ('metadata', {'': {'version': 1}, 'a': {'version': 1}, 'a.lin': {'version': 1}, 'b': {'version': 1}}),
 ('load', '<All keys matched successfully>', 3),
 ('load missing extra',
  ('RuntimeError', 'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "a._extra_state". ')),
 ('load missing extra nonstrict',
  ('ok', '"_IncompatibleKeys(missing_keys=[\'a._extra_state\'], unexpected_keys=[])"')),
 ('unexpected extra',
  ('RuntimeError',
   'Error(s) in loading state_dict for Linear:\n\tUnexpected key(s) in state_dict: "_extra_state". ')),
 ('unexpected extra nonstrict', ('ok', '"_IncompatibleKeys(missing_keys=[], unexpected_keys=[\'_extra_state\'])"')),
 ('sd pre root', 'pre.', True), ('sd pre a', 'pre.a.', True),
 ('sd post a', 'pre.a.', {'version': 1}, ['pre.buf', 'pre.a._extra_state', 'pre.a.lin.weight', 'pre.a.lin.bias']),
 ('sd post root', 'pre.', {'version': 1}, 7),
 ('sd keys',
  ['pre.buf', 'pre.a._extra_state', 'pre.a.lin.weight', 'pre.a.lin.bias', 'pre.a.added', 'pre.b.weight',
   'pre.b.bias']),
 ('sd pre a', 'a.', False),
 ('sd post a', 'a.', {'version': 1}, ['buf', 'a._extra_state', 'a.lin.weight', 'a.lin.bias']),
 ('sd post root', '', {'version': 1}, 7),
 ('post returns', ('RuntimeError', 'state_dict post-hook must return None')),
 ('private returns', ('ok', "{'replaced': 1}")), ('private returns in child', ('ok', ("'0.weight'", "'0.bias'"))),
 ('private after public',
  ('RuntimeError',
   'Cannot register the same function as the state dict post hook that was previously registered via '
   'register_state_dict_post_hook')),
 ('positional', ['x.weight', 'x.bias'], ['FutureWarning']),
 ('load pre', 'Net', '', ['a._extra_state', 'a.lin.bias', 'a.lin.weight', 'b.bias', 'b.weight', 'buf', 'zzz'],
  {'version': 1}, True, [], []),
 ('load pre', 'Stateful', 'a.', ['a._extra_state', 'a.lin.bias', 'a.lin.weight'], {'version': 1}, True, [],
  ['zzz']),
 ('load pre', 'Linear', 'a.lin.', ['a.lin.bias', 'a.lin.weight'], {'version': 1}, True, [], ['zzz']),
 ('load post', 'Linear', [], ['zzz']), ('load post', 'Stateful', [], ['zzz']), ('load post', 'Net', [], ['zzz']),
 ('load with hooks',
  ('RuntimeError', 'Error(s) in loading state_dict for Net:\n\tUnexpected key(s) in state_dict: "zzz". ')),
 ('loaded', ('T', (2, 2), [[0.28366, 0.96017], [0.7539, -0.1455]])),
 ('cleared', ('ok', "'<All keys matched successfully>'")),
 ('loaded2', ('T', (2, 2), [[0.28366, 0.96017], [0.7539, -0.1455]]), ('T', (1,), [0.15425])),
 ('post returns value',
  ('AssertionError',
   'Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return new values, if '
   'incompatible_keys need to be modified, it should be done inplace.')),
 ('rename', ('ok', "'<All keys matched successfully>'"), ('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]])),
 ('rename child', ('ok', "'<All keys matched successfully>'"), ('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]])),
 ('private load pre', '', 5), ('0d from (1,)', ('ok', "'<All keys matched successfully>'"), ('T', (), 7.0)),
 ('non-tensor',
  ('RuntimeError',
   'Error(s) in loading state_dict for Scal:\n'
   '\tWhile copying the parameter named "s", expected torch.Tensor or Tensor-like object from checkpoint but '
   "received <class 'float'>")),
 ('not mapping', ('TypeError', "Expected state_dict to be dict-like, got <class 'list'>.")),
 ('assign', 'Parameter', True, ('T', (2, 2), [[1.0, 2.0], [3.0, 4.0]])),
 ('to_empty', True, True, (3, 2), 'float32', True),
 ('to_empty positional', ('TypeError', 'Module.to_empty() takes 1 positional argument but 2 were given')),
 ('to_empty none', ('ok', 'Sequential')), ('to_empty recurse', ('ok', 'Linear')),
 ('set_submodule', ('ok', None),
  'Sequential(\n'
  '  (0): Linear(in_features=2, out_features=3, bias=True)\n'
  '  (1): Sequential(\n'
  '    (0): ReLU()\n'
  '    (1): Linear(in_features=3, out_features=2, bias=True)\n'
  '  )\n'
  ')'),
 ('set_submodule new', ('ok', None), ['', '0', '1', '1.0', '1.1', '1.extra']),
 ('set_submodule strict', ('AttributeError', 'Sequential has no attribute `nope`')),
 ('set_submodule strict ok', ('ok', None)),
 ('set_submodule empty', ('ValueError', 'Cannot set the submodule without a target name!')),
 ('set_submodule not module', ('ValueError', "`module` is not an nn.Module, found <class 'int'>")),
 ('set_submodule bad parent', ('AttributeError', 'Sequential has no attribute `5`')),
 ('set_submodule param', ('AttributeError', '`weight` is not an nn.Module')),
 ('set_submodule top', ('ok', None), 3), ('get_submodule bad', ('AttributeError', '`weight` is not an nn.Module')),
 ('get_submodule missing', ('AttributeError', 'Linear has no attribute `nope`')),
 ('get_parameter bad', ('AttributeError', 'Linear has no attribute `nope`')),
 ('get_parameter notparam', ('AttributeError', '`in_features` is not an nn.Parameter')),
 ('get_buffer notbuf', ('AttributeError', '`weight` is not a buffer')), ('extra default', 'RuntimeError')]


def _assert_log_matches(scenarios, expected):
    """Run ``scenarios(tl, nn)`` (warnings off) and compare its log with torch's, entry by entry."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = scenarios(tl, nn)
    for got, want in zip(log, expected):
        assert got == want
    assert len(log) == len(expected)


def test_backward_hooks_match_torch():
    _assert_log_matches(hook_scenarios, EXPECTED_HOOK_LOG)


def test_state_dict_hooks_extra_state_to_empty_set_submodule_match_torch():
    _assert_log_matches(state_dict_scenarios, EXPECTED_STATE_DICT_LOG)


def test_load_without_post_hooks_changes_nothing_on_error():
    """Without load post-hooks every check (keys included) happens before any write; extra states too."""
    class Counter(nn.Linear):
        def get_extra_state(self):
            return self.count

        def set_extra_state(self, state):
            self.count = state

    m = Counter(2, 2)
    m.count = 1
    sd = m.state_dict()
    sd["_extra_state"] = 5
    sd["unexpected"] = tl.zeros(1)
    before = m.weight.detach().clone()
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "unexpected"'):
        m.load_state_dict({**sd, "weight": tl.ones(2, 2)})
    assert m.count == 1 and np.array_equal(m.weight.detach().numpy(), before.numpy())
    del sd["unexpected"]
    m.load_state_dict(sd)
    assert m.count == 5


def test_full_backward_hook_inplace_input_raises_and_unpickled_module_gets_hook_dicts():
    m = nn.ReLU(inplace=True)
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction is a view and is being modified inplace"):
        m(tl.tensor([-1.0, 2.0], requires_grad=True) * 1)
    m2 = pickle.loads(pickle.dumps(nn.Linear(2, 2)))
    state = {k: v for k, v in m2.__dict__.items() if not k.startswith("_backward")}
    m3 = nn.Linear.__new__(nn.Linear)
    m3.__setstate__(state)  # as a module pickled before backward hooks existed
    m3.register_full_backward_hook(lambda *a: None)
    m3(tl.ones(1, 2, requires_grad=True)).sum().backward()


@pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
def test_full_backward_hooks_on_cuda():
    lin = nn.Linear(3, 2).cuda()
    seen = []
    lin.register_full_backward_pre_hook(lambda mod, go: seen.append(go[0].device.type))
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2,))
    x = tl.ones(1, 3, device="cuda", requires_grad=True)
    lin(x).sum().backward()
    assert seen == ["cuda"] and x.grad.device.type == "cuda"
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * lin.weight.detach().cpu().numpy().sum(0, keepdims=True),
                               rtol=1e-6)
    m = nn.Linear(2, 2).cuda().to_empty(device="cpu")
    assert m.weight.device.type == "cpu" and m.bias.device.type == "cpu"


def test_full_backward_hook_leaves_no_reference_cycle():
    # The hook object kept the hooked inputs, whose grad_fn holds the hook: each training step's
    # input activation stayed alive until gc ran (PyTorch frees it at once)
    import gc
    import weakref

    m = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
    m[2].register_full_backward_hook(lambda mod, gi, go: None)
    seen = []
    m[1].register_forward_hook(lambda mod, args, out: seen.append(weakref.ref(out._storage)))
    enabled = gc.isenabled()
    gc.disable()
    try:
        loss = m(tl.ones(3, 4)).pow(2).mean()
        loss.backward()
        del loss
        assert seen[0]() is None  # the hooked module's input activation's memory is gone without gc
    finally:
        if enabled:
            gc.enable()


def test_global_module_forward_hooks_run_before_the_modules_own():
    from tensorlab.nn.modules import module as M

    m = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.ReLU())
    seen = []
    m[0].register_forward_pre_hook(lambda mod, a: seen.append("own_pre"))
    m[0].register_forward_hook(lambda mod, a, o: seen.append("own_fwd"))
    h1 = M.register_module_forward_pre_hook(lambda mod, a: seen.append(("gpre", type(mod).__name__)))
    h2 = M.register_module_forward_hook(
        lambda mod, a, kw, o: seen.append(("gfwd", type(mod).__name__, tuple(o.shape))), with_kwargs=True)
    h3 = M.register_module_forward_hook(lambda mod, a, o: o * 0 if isinstance(mod, tl.nn.Sequential) else None)
    try:
        y = m(tl.ones(1, 3))
    finally:
        h1.remove(), h2.remove(), h3.remove()
    # PyTorch's order: global pre-hooks, own pre-hooks, forward, global hooks, own hooks
    assert seen == [("gpre", "Sequential"), ("gpre", "Linear"), "own_pre", ("gfwd", "Linear", (1, 4)), "own_fwd",
                    ("gpre", "ReLU"), ("gfwd", "ReLU", (1, 4)), ("gfwd", "Sequential", (1, 4))]
    assert y.tolist() == [[0.0] * 4]
    seen.clear()
    m(tl.ones(1, 3))
    assert seen == ["own_pre", "own_fwd"]

    class Bad(tl.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    called = []
    h = M.register_module_forward_hook(lambda mod, a, o: called.append(o), always_call=True)
    try:
        with pytest.raises(ValueError, match="boom"):
            Bad()(tl.ones(1))
    finally:
        h.remove()
    assert called == [None]
    with M.register_module_forward_pre_hook(lambda mod, a: (a[0] + 1,)):
        assert tl.nn.Identity()(tl.zeros(1)).tolist() == [1.0]
    assert tl.nn.Identity()(tl.zeros(1)).tolist() == [0.0]
