"""PyTorch's NumPy keyword names: ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``
(``tensorlab/_numpy_names.py``), on the public functions and Tensor methods, as PyTorch's argument
parser accepts them."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tensorlab as tl

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7 - 3


def _values(result):
    if isinstance(result, tuple | list):
        return [_values(r) for r in result]
    return result.cpu().numpy() if isinstance(result, tl.Tensor) else result


# (what, call with the NumPy names, the same call with PyTorch's)
CALLS = [
    ("sum", lambda x: tl.sum(x, axis=1, keepdims=True), lambda x: tl.sum(x, dim=1, keepdim=True)),
    ("sum dims", lambda x: tl.sum(x, axis=(0, 2)), lambda x: tl.sum(x, dim=(0, 2))),
    ("Tensor.sum", lambda x: x.sum(axis=-1), lambda x: x.sum(dim=-1)),
    ("mean", lambda x: x.mean(axis=0, keepdims=True), lambda x: x.mean(dim=0, keepdim=True)),
    ("amax", lambda x: tl.amax(x, axis=2), lambda x: tl.amax(x, dim=2)),
    ("max", lambda x: tl.max(x, axis=1, keepdims=True), lambda x: tl.max(x, dim=1, keepdim=True)),
    ("Tensor.min", lambda x: x.min(axis=2), lambda x: x.min(dim=2)),
    ("argmax", lambda x: x.argmax(axis=1), lambda x: x.argmax(dim=1)),
    ("var", lambda x: tl.var(x, axis=2, correction=0), lambda x: tl.var(x, dim=2, correction=0)),
    ("std_mean", lambda x: tl.std_mean(x, axis=1), lambda x: tl.std_mean(x, dim=1)),
    ("logsumexp", lambda x: tl.logsumexp(x, axis=2), lambda x: tl.logsumexp(x, dim=2)),
    ("softmax", lambda x: tl.softmax(x, axis=1), lambda x: tl.softmax(x, dim=1)),
    ("Tensor.log_softmax", lambda x: x.log_softmax(axis=0), lambda x: x.log_softmax(dim=0)),
    ("cumsum", lambda x: tl.cumsum(x, axis=2), lambda x: tl.cumsum(x, dim=2)),
    ("cummax", lambda x: x.cummax(axis=1), lambda x: x.cummax(dim=1)),
    ("all", lambda x: (x > -3).all(axis=1), lambda x: (x > -3).all(dim=1)),
    ("count_nonzero", lambda x: tl.count_nonzero(x, axis=0), lambda x: tl.count_nonzero(x, dim=0)),
    ("median", lambda x: x.median(axis=2, keepdims=True), lambda x: x.median(dim=2, keepdim=True)),
    ("sort", lambda x: tl.sort(x, axis=1, stable=True), lambda x: tl.sort(x, dim=1, stable=True)),
    ("topk", lambda x: x.topk(2, axis=1), lambda x: x.topk(2, dim=1)),
    ("cat", lambda x: tl.cat([x, x], axis=1), lambda x: tl.cat([x, x], dim=1)),
    ("stack", lambda x: tl.stack([x, x], axis=-1), lambda x: tl.stack([x, x], dim=-1)),
    ("index_select", lambda x: x.index_select(axis=2, index=tl.tensor([3, 0], device=x.device)),
     lambda x: x.index_select(dim=2, index=tl.tensor([3, 0], device=x.device))),
    ("gather", lambda x: tl.gather(x, axis=2, index=tl.zeros(2, 3, 1, dtype=tl.int64, device=x.device)),
     lambda x: tl.gather(x, dim=2, index=tl.zeros(2, 3, 1, dtype=tl.int64, device=x.device))),
    ("unsqueeze", lambda x: x.unsqueeze(axis=1), lambda x: x.unsqueeze(dim=1)),
    ("unbind", lambda x: tl.unbind(x, axis=2), lambda x: tl.unbind(x, dim=2)),
    ("Tensor.size", lambda x: x.size(axis=2), lambda x: x.size(dim=2)),
    ("linalg.vector_norm", lambda x: tl.linalg.vector_norm(x, axis=2, keepdims=True),
     lambda x: tl.linalg.vector_norm(x, dim=2, keepdim=True)),
    ("special.logsumexp", lambda x: tl.special.logsumexp(x, axis=0), lambda x: tl.special.logsumexp(x, dim=0)),
]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("what,numpy_names,torch_names", CALLS, ids=[c[0] for c in CALLS])
def test_numpy_names_mean_the_pytorch_parameters(what, numpy_names, torch_names, device):
    x = tl.tensor(X, device=device)
    expected = _values(torch_names(x))
    got = _values(numpy_names(x))
    np.testing.assert_equal(got, expected)


def test_numpy_names_keep_the_function_as_it_was():
    """The wrapper is only a spelling: the signature, name and docstring are the function's, and
    PyTorch's names and positional calls go straight through."""
    assert inspect.signature(tl.sum) == inspect.signature(tl.ops.reductions.sum)
    assert tl.sum.__name__ == "sum" and tl.sum.__doc__ == tl.ops.reductions.sum.__doc__
    x = tl.tensor(X)
    np.testing.assert_equal(tl.sum(x, 1, True).numpy(), X.sum(1, keepdims=True))


def test_a_parameter_named_twice_or_an_alias_without_its_parameter_is_a_type_error():
    x = tl.tensor(X)
    with pytest.raises(TypeError, match=r"sum\(\) got multiple values for argument 'dim'"):
        tl.sum(x, dim=1, axis=1)
    with pytest.raises(TypeError, match=r"max\(\) got multiple values for argument 'keepdim'"):
        x.max(1, keepdim=True, keepdims=True)
    with pytest.raises(TypeError, match="keepdims"):  # cumsum has a dim but no keepdim
        tl.cumsum(x, axis=0, keepdims=True)
    with pytest.raises(TypeError, match="axis"):  # add has no dim: not wrapped, an unexpected keyword
        tl.add(x, x, axis=0)


def _public_functions():
    for module, names in ((tl, [n for n in dir(tl) if not n.startswith("_")]), (tl.linalg, tl.linalg.__all__),
                          (tl.special, tl.special.__all__)):
        for name in names:
            fn = getattr(module, name)
            if inspect.isfunction(fn):
                yield f"{module.__name__}.{name}", fn
    for name, fn in vars(tl.Tensor).items():
        if not name.startswith("_") and inspect.isfunction(fn):
            yield f"Tensor.{name}", fn


def _lacks_an_alias(fn) -> bool:
    """A dim/keepdim parameter without a parameter of its NumPy name (``concatenate`` has both)."""
    params = inspect.signature(fn).parameters
    return any(name in params and alias not in params for name, alias in (("dim", "axis"), ("keepdim", "keepdims")))


def test_every_public_function_and_method_with_dim_or_keepdim_takes_the_numpy_names():
    missing = [where for where, fn in _public_functions()
               if _lacks_an_alias(fn) and not getattr(fn, "__numpy_names__", False)]
    assert not missing, missing
    wrapped = [where for where, fn in _public_functions() if getattr(fn, "__numpy_names__", False)]
    assert len(wrapped) > 80, wrapped  # (the reductions, scans, softmax, sorting, cat/stack, views, ...)
