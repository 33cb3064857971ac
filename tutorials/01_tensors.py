"""Tutorial 01 — tensors.

Run it step by step (each `# %%` is a cell in VS Code / Jupyter) or all at once:

    python tutorials/01_tensors.py                # cpu, or cuda when a GPU is present
    python tutorials/01_tensors.py --device cpu

What you will see: how tensors are made, what a dtype and a device are, how views share memory
through strides, how broadcasting lines up shapes, and how tensors cross into numpy and other
libraries without copies.
"""

# %% Setup: pick a device.
# tensorlab's `cuda` device is a real NVIDIA GPU when there is one. Without a GPU, setting
# TRITON_INTERPRET=1 before importing tensorlab emulates it: the same Triton kernels run in
# Triton's interpreter on host memory (slowly) — handy for learning and for tests.
import argparse

import numpy as np

import tensorlab as tl

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda if a real GPU is present)")
args, _ = parser.parse_known_args()
device = args.device or ("cuda" if tl.cuda.is_available() and not tl.cuda.is_interpreted() else "cpu")
print(f"device: {device}", "(interpreted)" if device == "cuda" and tl.cuda.is_interpreted() else "")

# %% Making tensors.
# From Python data (dtype inferred like PyTorch: ints -> int64, floats -> float32), from shapes,
# and from ranges. Every factory takes dtype= and device=.
a = tl.tensor([[1, 2, 3], [4, 5, 6]], device=device)
b = tl.zeros(2, 3, device=device)
c = tl.full((2, 3), 0.5, dtype=tl.float64, device=device)
r = tl.arange(0, 1, 0.25, device=device)
print("a =", a)
print("b =", b)
print("c =", c)
print("r =", r)
print("random normal:", tl.randn(2, 2, device=device))

# %% dtypes and promotion.
# Mixing dtypes follows PyTorch: int + float tensor -> float, and Python scalars are "weak":
# they never widen a tensor's dtype within its category.
h = tl.ones(3, dtype=tl.float16, device=device)
print("float16 + 2.5 ->", (h + 2.5).dtype)
print("int64 tensor * 0.5 ->", (a * 0.5).dtype)
print("uint8 + int8 ->", tl.promote_types(tl.uint8, tl.int8))
print("a.float():", a.float())

# %% Views and strides.
# A tensor is (storage, shape, strides, offset). Transposing, slicing, selecting and reshaping
# usually just change the strides: no data moves, and writes through a view show in the base.
m = tl.arange(12, device=device).view(3, 4)
print("m =", m, "strides", m.stride())
t = m.t()
print("m.t() strides", t.stride(), "contiguous?", t.is_contiguous(), "same storage?", t._storage is m._storage)
col = m[:, 1]
col.fill_(-1)
print("after m[:, 1].fill_(-1):", m)
print("t.contiguous() copies into row-major order:", t.contiguous().stride())

# %% Broadcasting.
# Shapes line up from the right; size-1 dims stretch (stride 0, no copy).
row = tl.tensor([10, 20, 30, 40], device=device)
print("m + row =", m + row)
colv = tl.tensor([[100], [200], [300]], device=device)
print("m + column =", m + colv)
print("expand is a view:", row.expand(3, 4).stride())

# %% Moving between devices and to numpy.
# .numpy() shares memory with cpu tensors; cuda tensors must be copied with .cpu() first.
x = tl.arange(4, dtype=tl.float32)
arr = x.numpy()
arr[0] = 42.0
print("numpy view of x, after arr[0] = 42:", x)
y = x.to(device)
print("x on", y.device, "->", y)
print("back on the host:", y.cpu().numpy())
z = tl.from_numpy(np.linspace(0, 1, 3))  # shares the numpy buffer
print("from_numpy keeps float64:", z.dtype)

# %% DLPack: zero-copy exchange with other libraries.
shared = np.from_dlpack(x)
shared[1] = -7.0
print("numpy.from_dlpack(x) shares memory:", x)
print("and back:", tl.from_dlpack(np.arange(3, dtype=np.int16)))

# %% What ran where.
# Set TENSORLAB_DEBUG=1 to see every dispatched op with its shapes, dtypes, device, implementation
# (numpy twin on cpu, Triton kernel on cuda) and launch configuration.
print("done: tensors, dtypes, views, broadcasting, devices, numpy and DLPack")
