"""Tutorial 02 — autograd.

    python tutorials/02_autograd.py [--device cpu|cuda]

What you will see: how every op records a node on a tape, how backward walks it, how to stop
recording, how to write your own differentiable function, and how to check a gradient against
finite differences.
"""

# %% Setup.
import argparse

import numpy as np

import tensorlab as tl

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda if a real GPU is present)")
args, _ = parser.parse_known_args()
device = args.device or ("cuda" if tl.cuda.is_available() and not tl.cuda.is_interpreted() else "cpu")
print("device:", device)

# %% The tape.
# A tensor with requires_grad=True is a leaf. Every op on it records a node (its grad_fn) that
# names the registered op and points at the nodes of its inputs: that chain is the tape.
x = tl.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
w = tl.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
y = (x * w).sum()
print("y =", y)
print("y.grad_fn:", y.grad_fn.name(), "<- inputs:", [f.name() for f, _ in y.grad_fn.next_functions])
print("x is a leaf:", x.is_leaf, "| y is a leaf:", y.is_leaf)

# %% backward.
# backward() walks the tape from y and accumulates dy/dleaf into each leaf's .grad.
# Here y = sum(x * w), so dy/dx = w and dy/dw = x.
y.backward()
print("x.grad =", x.grad, "(equals w)")
print("w.grad =", w.grad, "(equals x)")
# Gradients accumulate: a second backward adds to .grad. Reset them between steps.
(x * 2).sum().backward()
print("x.grad after another backward:", x.grad)
x.grad = None

# %% Not recording.
# Inside no_grad() (and inference_mode()) nothing is recorded — what optimizers use to update
# parameters, and what evaluation loops use to save memory.
with tl.no_grad():
    z = x * 2
print("under no_grad: z.requires_grad =", z.requires_grad)
d = x.detach()
print("detach() shares memory but leaves the graph:", d.requires_grad)

# %% Higher-order gradients.
# create_graph=True makes the backward pass itself recorded, so gradients can be differentiated.
t = tl.tensor([2.0], device=device, requires_grad=True)
(g,) = tl.autograd.grad((t * t * t).sum(), t, create_graph=True)   # 3 t^2
(gg,) = tl.autograd.grad(g.sum(), t)                                # 6 t
print(f"d/dt t^3 at 2 = {g.item():.1f}, second derivative = {gg.item():.1f}")

# %% A custom Function.
# For an operation you want to differentiate your own way, subclass autograd.Function with a
# forward and a backward. Here: y = x^2 with a hand-written gradient 2x.
class Square(tl.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * 2 * a


a = tl.tensor([3.0, -1.0], device=device, requires_grad=True)
Square.apply(a).sum().backward()
print("custom Square backward:", a.grad, "| node:", Square.apply(a).grad_fn.name())

# %% Checking gradients.
# gradcheck compares autograd's Jacobian with central finite differences (use float64).
inputs = (tl.tensor(np.linspace(-1, 1, 4), dtype=tl.float64, requires_grad=True),)
print("gradcheck(Square):", tl.autograd.gradcheck(Square.apply, inputs))
print("gradcheck(exp * sin):", tl.autograd.gradcheck(lambda v: (v.exp() * v.sin()).sum(), inputs))

# %% Mistakes autograd catches.
h = x * 1
out = h * h          # mul saves h for its backward
h.add_(1)            # ... and h is then modified in place
try:
    out.sum().backward()
except RuntimeError as exc:
    print("modified a saved tensor in place ->", str(exc).split(":")[0])
print("done: tape, backward, no_grad, higher order, custom Function, gradcheck")
