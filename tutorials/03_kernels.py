"""Tutorial 03 — an op is a Triton kernel plus its numpy twin.

    python tutorials/03_kernels.py [--device cpu|cuda]

What you will see: a small Triton kernel written from scratch, its numpy twin, the one
declaration (an OpDef) that makes it a tensorlab op with a gradient, and the check that the
kernel and the twin agree. Without a GPU the kernel runs in Triton's interpreter (TRITON_INTERPRET=1,
set below before anything imports Triton), so this tutorial runs anywhere.
"""

# %% Setup: choose where kernels run before Triton is imported.
import argparse
import ctypes
import os


def gpu_present() -> bool:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    n = ctypes.c_int()
    return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0


if not gpu_present():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # emulate the cuda device: kernels run in the interpreter

import numpy as np
import triton
import triton.language as tl  # Triton's interpreter expects this exact alias in kernel code

import tensorlab
from tensorlab.library import Plan, cdiv, defop, dispatch, launch

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--device", default=None,
                    help="accepted like the other tutorials; this one always compares cpu (twin) with cuda (kernel)")
args, _ = parser.parse_known_args()
print("cuda:", "interpreted (no GPU)" if tensorlab.cuda.is_interpreted() else tensorlab.cuda.get_device_name())

# %% The kernel.
# (Kernel code uses Triton's usual `tl` alias for triton.language, so this tutorial spells out
# `tensorlab` instead of the `tl` alias the other tutorials use.)
# squareplus(x) = (x + sqrt(x^2 + b)) / 2, a smooth ReLU. Each program instance handles BLOCK
# consecutive elements: it computes its offsets, masks the tail past n, loads, computes in fp32
# (fp64 for fp64 inputs; fp16/bf16 inputs do not lose precision), and stores in the output's dtype.


@triton.jit
def squareplus_kernel(x_ptr, out_ptr,  # pointers first
                      n, b,  # then sizes and scalars
                      BLOCK: tl.constexpr):  # then compile-time parameters
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if x.dtype != tl.float64:  # decided at compile time: one specialisation per input dtype
        x = x.to(tl.float32)
    y = (x + tl.sqrt(x * x + b)) * 0.5
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


# %% The launcher and the twin: same arguments, outputs first.
# The launcher receives DeviceArrays (device memory with shape, strides and a numpy dtype);
# the twin receives numpy arrays. This kernel reads its input contiguously, so the op's meta rule
# below hands it a contiguous input.


def squareplus_launcher(out, x, b: float) -> None:
    n = out.numel
    block = 1024
    launch(squareplus_kernel, (cdiv(n, block),), x, out, n, float(b), BLOCK=block)


def squareplus_twin(out: np.ndarray, x: np.ndarray, b: float) -> None:
    ct = np.float64 if x.dtype == np.float64 else np.float32  # the kernel's compute dtype
    xf = x.astype(ct)
    out[...] = ((xf + np.sqrt(xf * xf + ct(b))) * ct(0.5)).astype(out.dtype)


# %% One declaration makes it an op.
# meta decides the output (same shape and dtype) and what the implementations receive; backward
# is written with tensorlab ops, so it runs on their kernels and is differentiable too.


def squareplus_meta(x, b):
    if not x.dtype.is_floating_point:
        raise TypeError(f"squareplus: expected a floating point tensor, got {x.dtype}")
    return Plan(args=[x.contiguous(), b], outputs=[(x.shape, x.dtype)])


def squareplus_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    b = ctx.inputs[1]
    return grad * (1 + x / (x * x + b).sqrt()) * 0.5, None


SQUAREPLUS = defop("tutorial_squareplus", twin=squareplus_twin, kernel=squareplus_launcher, meta=squareplus_meta,
                   backward=squareplus_backward, tags={"elementwise"})


def squareplus(x, b: float = 4.0):
    return dispatch(SQUAREPLUS, x, b)


print("registered:", SQUAREPLUS, "| total ops in the registry:", len(tensorlab.registered_ops()))

# %% Kernel vs twin.
# The same op runs the twin on cpu and the kernel on cuda; they must agree.
x = tensorlab.linspace(-4, 4, 1001)
cpu = squareplus(x)
gpu = squareplus(x.to("cuda")).cpu()
print("max |kernel - twin| =", float(np.abs(gpu.numpy() - cpu.numpy()).max()))
print("a few values:", cpu[::250])
h = squareplus(x.to("cuda", tensorlab.float16))
print("float16 in, float16 out:", h.dtype, "| max error vs float32:",
      float(np.abs(h.cpu().float().numpy() - cpu.numpy()).max()))

# %% Its gradient.
v = tensorlab.tensor([-2.0, 0.0, 3.0], dtype=tensorlab.float64, requires_grad=True)
squareplus(v).sum().backward()
print("d squareplus / dx at [-2, 0, 3]:", v.grad)
print("gradcheck:", tensorlab.autograd.gradcheck(lambda t: squareplus(t, 4.0), (v.detach().requires_grad_(),)))

# %% Seeing what ran.
# TENSORLAB_DEBUG=1 logs every dispatched op (implementation, shapes, dtypes) and every Triton
# launch with its grid and configuration; try: TENSORLAB_DEBUG=1 python tutorials/03_kernels.py
print("done: kernel, launcher, twin, OpDef, agreement, gradient")
