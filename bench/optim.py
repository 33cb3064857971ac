"""Optimizer benchmark: the fused multi-tensor step against a per-parameter launch loop, in GB/s.

A model-shaped parameter set (many tensors of mixed sizes: weight matrices, biases, norms) is
updated by each optimizer's ``step()`` — ONE fused launch per parameter group
(``tensorlab_kernels/optim``) — and, for comparison, by the same kernel launched once per
parameter (what an optimizer without multi-tensor apply does). Reported per optimizer:

- ``fused_ms`` / ``loop_ms``: median time of a full step (host work included: the step's Python,
  the chunk table, the launch) and of the per-parameter loop;
- ``GB/s``: bytes the update must move (parameters, gradients and state read; parameters and state
  written) over the fused time, and ``copy_fraction``: that over the measured device-to-device
  copy bandwidth (read + write) — the ceiling of a memory-bound update;
- ``host_us``: host time per fused step without synchronisation (the launch overhead that
  multi-tensor apply removes: compare ``loop_ms`` on many small tensors).

    python bench/optim.py                       # cuda when a real GPU is present
    python bench/optim.py --device cpu --quick  # smoke test: the numpy twins
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)


def param_shapes(quick: bool) -> list[tuple]:
    """A transformer-like parameter list: per layer two d x 4d MLP matrices, a d x 3d and a d x d
    attention matrix, biases and two norm vectors (full: 12 layers, d = 768, ~85 M parameters,
    146 tensors; quick: 4 layers, d = 64, 58 tensors)."""
    layers, d = (4, 64) if quick else (12, 768)
    shapes = [(4 * d if not quick else 512, d)]  # an embedding
    for _ in range(layers):
        shapes += [(3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,), (d,),
                   (d,)]
    return shapes


# (name, constructor kwargs, bytes moved per element in units of the parameter's itemsize, launcher)
OPTIMIZERS = [
    ("SGD-momentum", "SGD", dict(lr=0.01, momentum=0.9), 5),  # read p g b, write p b
    ("Adam", "Adam", dict(lr=1e-3), 7),  # read p g m v, write p m v
    ("AdamW-amsgrad", "AdamW", dict(lr=1e-3, amsgrad=True), 9),
    ("RMSprop-centered", "RMSprop", dict(lr=1e-3, centered=True), 7),
    ("Adagrad", "Adagrad", dict(lr=1e-2), 5),
]


def per_parameter_loop(tl, name: str, opt, params):
    """The same kernel, launched once per parameter (no multi-tensor apply)."""
    from tensorlab_kernels.optim import adagrad, adam, rmsprop, sgd

    group = opt.param_groups[0]
    cuda = params[0].is_cuda

    def arr(t):
        return t._device_array() if cuda else t._np_view()

    st = [opt.state[p] for p in params]
    g = [p.grad for p in params]
    calls = []
    for i, p in enumerate(params):
        if name == "SGD-momentum":
            fn = sgd.sgd if cuda else sgd.sgd_twin
            calls.append((fn, ([arr(p)], [arr(g[i])], [arr(st[i]["momentum_buffer"])]),
                          dict(lr=0.01, weight_decay=0, momentum=0.9, dampening=0, nesterov=False, maximize=False,
                               first=False)))
        elif name.startswith("Adam"):
            fn = adam.adam if cuda else adam.adam_twin
            ams = group["amsgrad"]
            calls.append((fn, ([arr(p)], [arr(g[i])], [arr(st[i]["exp_avg"])], [arr(st[i]["exp_avg_sq"])],
                               [arr(st[i]["max_exp_avg_sq"])] if ams else None),
                          dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=group["weight_decay"],
                               step=10.0, amsgrad=ams, maximize=False, decoupled=group["decoupled_weight_decay"])))
        elif name.startswith("RMSprop"):
            fn = rmsprop.rmsprop if cuda else rmsprop.rmsprop_twin
            calls.append((fn, ([arr(p)], [arr(g[i])], [arr(st[i]["square_avg"])], [arr(st[i]["grad_avg"])], None),
                          dict(lr=1e-3, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=True,
                               maximize=False)))
        else:
            fn = adagrad.adagrad if cuda else adagrad.adagrad_twin
            calls.append((fn, ([arr(p)], [arr(g[i])], [arr(st[i]["sum"])]),
                          dict(lr=1e-2, lr_decay=0, eps=1e-10, weight_decay=0, step=10.0, maximize=False)))

    def run():
        for fn, args, kwargs in calls:
            fn(*args, **kwargs)

    return run


def main() -> None:
    run = harness.Run(__doc__, dtypes="float32,bfloat16", dtypes_help="comma-separated parameter dtypes")
    dev, repeats = run.dev, run.repeats

    import tensorlab as tl

    shapes = param_shapes(run.args.quick)
    run.measure_copy_bandwidth(note=f"; {len(shapes)} parameter tensors")
    rows = []
    for dt in run.dtypes:
        dtype = getattr(tl, dt)
        for name, cls, kwargs, units in OPTIMIZERS:
            tl.manual_seed(0)
            params = [tl.nn.Parameter(tl.randn(*s, dtype=dtype, device=dev) * 0.02) for s in shapes]
            for q in params:
                q.grad = tl.randn(*q.shape, dtype=dtype, device=dev) * 1e-3
            opt = getattr(tl.optim, cls)(params, **kwargs)
            opt.step()  # creates the state
            before = params[0].detach().clone()
            fused = harness.time_fn(opt.step, dev, repeats)
            if not bool((params[0] != before).any().item()):
                raise SystemExit(f"{name}: the step did not change the parameters")
            host = harness.host_overhead(opt.step, iters=20 if run.args.quick else 200)
            loop = harness.time_fn(per_parameter_loop(tl, name, opt, params), dev, repeats)
            numel = sum(q.numel() for q in params)
            nbytes = units * numel * params[0].element_size()
            rows.append({"optimizer": name, "dtype": dt, "tensors": len(params), "Mparams": numel / 1e6,
                         "fused_ms": fused * 1e3, "loop_ms": loop * 1e3, "speedup": loop / fused,
                         **run.bandwidth(nbytes, fused), "host_us": host * 1e6})
            r = rows[-1]
            print(f"{name:18s} {dt:9s}: fused {r['fused_ms']:.3f} ms ({r['GB/s']:.1f} GB/s, "
                  f"{r['copy_fraction']:.0%} of copy), per-parameter loop {r['loop_ms']:.3f} ms", file=sys.stderr)
    run.finish("optim", rows, run.meta(tensors=len(shapes)))


if __name__ == "__main__":
    main()
