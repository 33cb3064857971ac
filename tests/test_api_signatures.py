"""PyTorch call forms that used to fail here: keyword spellings, method signatures that differ
from their function's, legacy names, and the small top-level pieces PyTorch scripts reach for."""

import math

import numpy as np
import pytest

import tensorlab as tl


@pytest.mark.parametrize("factory", [tl.zeros, tl.ones, tl.empty, tl.rand, tl.randn])
def test_factories_take_size_keyword(factory):
    assert factory(size=(2, 3)).shape == (2, 3)
    assert factory(size=[4]).shape == (4,)
    with pytest.raises(TypeError, match="size"):
        factory(2, size=(3,))


def test_new_factories_take_size_keyword():
    x = tl.ones(2, dtype=tl.float64)
    for name, value in (("new_zeros", 0.0), ("new_ones", 1.0)):
        t = getattr(x, name)(size=(3,))
        assert t.shape == (3,) and t.dtype == tl.float64 and t.tolist() == [value] * 3
    assert x.new_empty(size=(2, 2)).shape == (2, 2)


def test_zeros_size_keyword_values():
    assert tl.zeros(size=(2,)).tolist() == [0.0, 0.0]
    assert tl.ones(size=(1, 2), dtype=tl.int32).tolist() == [[1, 1]]


def test_tensor_norm_fourth_argument_is_dtype():
    x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])
    r = x.norm(2, 0, False, tl.float64)
    assert r.dtype == tl.float64
    np.testing.assert_allclose(r.numpy(), np.linalg.norm(x.numpy().astype(np.float64), axis=0))
    assert x.norm(1, 1, True).shape == (2, 1)
    out = tl.empty(())  # the function keeps PyTorch's (input, p, dim, keepdim, out, dtype)
    tl.norm(x, 2, None, False, out)
    assert out.item() == pytest.approx(float(np.linalg.norm(x.numpy())))


def test_randint_like_high_keyword():
    tl.manual_seed(0)
    x = tl.ones(200)
    for r in (tl.randint_like(x, high=5), tl.randint_like(x, 5), tl.randint_like(x, low=3, high=5)):
        assert r.shape == (200,) and r.dtype == tl.float32
        assert r.min().item() >= 0 and r.max().item() <= 4
    assert tl.randint_like(x, low=3, high=5).min().item() == 3
    with pytest.raises(TypeError, match="high"):
        tl.randint_like(x)


def test_inference_mode_mode_keyword():
    with tl.inference_mode(mode=False):
        assert tl.is_grad_enabled()
    with tl.inference_mode(mode=True):
        assert not tl.is_grad_enabled()

    @tl.inference_mode
    def f():
        return tl.is_grad_enabled()

    assert f() is False


def test_split_method_keyword_and_function_keyword():
    x = tl.arange(5)
    assert [t.tolist() for t in x.split(split_size=2)] == [[0, 1], [2, 3], [4]]
    assert [t.tolist() for t in x.split([1, 4])] == [[0], [1, 2, 3, 4]]
    assert [t.tolist() for t in tl.split(x, split_size_or_sections=3)] == [[0, 1, 2], [3, 4]]


def test_swapaxes_numpy_names_swapdims_torch_names():
    x = tl.arange(6).reshape(2, 3)
    assert tl.swapaxes(x, axis0=0, axis1=1).tolist() == [[0, 3], [1, 4], [2, 5]]
    assert x.swapaxes(axis0=1, axis1=0).shape == (3, 2)
    assert tl.swapdims(x, dim0=0, dim1=1).shape == (3, 2)
    y = tl.arange(6).reshape(2, 3)
    assert y.swapaxes_(0, 1) is y and y.shape == (3, 2)


def test_linalg_norms_take_input_keyword():
    x = tl.tensor([[3.0, 4.0], [0.0, 0.0]])
    assert tl.linalg.norm(input=x).item() == pytest.approx(5.0)
    assert tl.linalg.matrix_norm(input=x, ord=1).item() == pytest.approx(4.0)
    assert tl.linalg.vector_norm(x=x).item() == pytest.approx(5.0)


def test_numpy_ufuncs_return_tensors():
    x = tl.tensor([1.0, 2.0])
    r = np.sin(x)
    assert isinstance(r, tl.Tensor) and r.dtype == tl.float32
    np.testing.assert_allclose(r.numpy(), np.sin([1.0, 2.0]), rtol=1e-6)
    assert np.add(x, 1).tolist() == [2.0, 3.0]
    assert np.isnan(x).dtype == tl.bool
    assert isinstance(np.sin(tl.tensor(1.0)), tl.Tensor)
    assert np.maximum(x, np.ones(2)).dtype == tl.float64
    assert isinstance(np.add(x, x, out=np.empty(2, np.float32)), np.ndarray)  # out= stays numpy's


def test_device_keywords():
    d = tl.device(type="cuda", index=1)
    assert d.type == "cuda" and d.index == 1
    assert tl.device(type="cpu") == tl.device("cpu")
    with pytest.raises(TypeError, match="string, int or device"):
        tl.device(1.5)


def test_finfo_iinfo_compare_equal_per_dtype():
    assert tl.finfo(tl.float32) == tl.finfo(tl.float32)
    assert tl.finfo(tl.float32) != tl.finfo(tl.float16)
    assert len({tl.finfo(tl.bfloat16), tl.finfo(tl.bfloat16)}) == 1
    assert tl.iinfo(tl.int8) == tl.iinfo(tl.int8) and tl.iinfo(tl.int8) != tl.iinfo(tl.int16)


def test_broadcast_shapes_public_form():
    r = tl.broadcast_shapes(2, (3, 1))
    assert isinstance(r, tl.Size) and r == (3, 2)
    assert tl.broadcast_shapes() == () and isinstance(tl.broadcast_shapes(), tl.Size)
    assert tl.broadcast_shapes([2, 1], [3]) == (2, 3)
    with pytest.raises(RuntimeError):
        tl.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match="negative"):
        tl.broadcast_shapes((-1,), (3,))


def test_cuda_rng_state_functions():
    tl.cuda.manual_seed(7)
    assert tl.cuda.initial_seed() == 7
    state = tl.cuda.get_rng_state()
    assert state.dtype == tl.uint8 and state.device == tl.device("cpu")
    a = tl.rand(5, device="cuda")
    tl.cuda.set_rng_state(state)
    assert tl.equal(a, tl.rand(5, device="cuda"))
    states = tl.cuda.get_rng_state_all()
    assert len(states) == tl.cuda.device_count()
    tl.cuda.set_rng_state_all(states)
    tl.cuda.seed()  # a fresh random seed (equal to 7 with probability 2**-64)
    assert tl.cuda.initial_seed() != 7
    assert tl.cuda.is_bf16_supported() is True


def test_backends_allow_tf32_is_the_matmul_precision():
    before = tl.get_float32_matmul_precision()
    try:
        tl.backends.cuda.matmul.allow_tf32 = True
        assert tl.get_float32_matmul_precision() == "high"
        tl.set_float32_matmul_precision("highest")
        assert tl.backends.cuda.matmul.allow_tf32 is False
        tl.set_float32_matmul_precision("medium")
        assert tl.backends.cuda.matmul.allow_tf32 is True
    finally:
        tl.set_float32_matmul_precision(before)
    assert tl.backends.cudnn.is_available() is False
    tl.backends.cudnn.benchmark = True  # accepted (no cuDNN here: nothing to tune)
    assert tl.backends.cudnn.benchmark is True
    tl.backends.cudnn.benchmark = False


def test_constants():
    assert tl.pi == math.pi and tl.e == math.e and tl.inf == math.inf and math.isnan(tl.nan)
    assert tl.newaxis is None and tl.ones(3)[tl.newaxis].shape == (1, 3)


def test_legacy_variable():
    x = tl.ones(2, requires_grad=True)
    y = x * 2
    v = tl.autograd.Variable(y)
    assert v is not y and not v.requires_grad and v.grad_fn is None and v.data_ptr() == y.data_ptr()
    assert isinstance(y, tl.autograd.Variable) and not isinstance(1.0, tl.autograd.Variable)
    w = tl.autograd.Variable(tl.ones(2), requires_grad=True)
    assert w.requires_grad and w.is_leaf
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="tensor"):
        tl.autograd.Variable([1.0])


def test_use_deterministic_algorithms_is_recorded():
    assert tl.are_deterministic_algorithms_enabled() is False
    try:
        tl.use_deterministic_algorithms(True, warn_only=True)
        assert tl.are_deterministic_algorithms_enabled() and tl.is_deterministic_algorithms_warn_only_enabled()
        x = tl.arange(1000, dtype=tl.float32, device="cuda") / 7  # kernels give the same bits every run
        assert tl.equal(x.sum(), x.sum()) and tl.equal(x.cumsum(0), x.cumsum(0))
    finally:
        tl.use_deterministic_algorithms(False)
    assert not tl.are_deterministic_algorithms_enabled() and not tl.is_deterministic_algorithms_warn_only_enabled()
    with pytest.raises(TypeError, match="mode"):
        tl.use_deterministic_algorithms(1)


def test_set_default_device_and_device_context():
    import numpy as np

    assert tl.get_default_device() == tl.device("cpu")
    try:
        tl.set_default_device("cuda")
        assert tl.get_default_device().type == "cuda"
        made = [tl.zeros(2), tl.ones(1), tl.empty(1), tl.full((1,), 2.0), tl.tensor([1]), tl.rand(2), tl.randn(1),
                tl.randint(0, 3, (2,)), tl.randperm(3), tl.arange(3), tl.linspace(0, 1, 3), tl.eye(2),
                tl.as_tensor(np.ones(2)), tl.nn.Linear(2, 2).weight]
        assert all(t.device.type == "cuda" for t in made)
        cpu_t = tl.ones(2, device="cpu")
        assert tl.as_tensor(cpu_t) is cpu_t and tl.from_numpy(np.ones(1)).device.type == "cpu"
        # a training step: the optimizer's step counters stay cpu scalars
        lin = tl.nn.Linear(2, 1)
        opt = tl.optim.Adam(lin.parameters())
        lin(tl.ones(3, 2)).sum().backward()
        opt.step()
        assert opt.state[lin.weight]["step"].device.type == "cpu"
    finally:
        tl.set_default_device(None)
    assert tl.zeros(1).device.type == "cpu"
    with tl.device("cuda") as d:
        assert d.type == "cuda" and tl.ones(1).device.type == "cuda"
        with tl.device("cpu"):
            assert tl.ones(1).device.type == "cpu"
        assert tl.ones(1).device.type == "cuda"
    assert tl.ones(1).device.type == "cpu" and tl.get_default_device() == tl.device("cpu")


def test_from_dlpack_device_and_copy_modules_remove_duplicate_dataloader_keywords():
    import numpy as np

    a = np.arange(3.0)
    shared = tl.from_dlpack(a)
    assert np.shares_memory(shared.numpy(), a)
    copied = tl.from_dlpack(a, copy=True)
    assert copied.tolist() == [0.0, 1.0, 2.0] and not np.shares_memory(copied.numpy(), a)
    moved = tl.from_dlpack(a, device="cuda")
    assert moved.device.type == "cuda" and moved.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(BufferError, match="copy=False"):
        tl.from_dlpack(a, device="cuda", copy=False)
    lin = tl.nn.Linear(1, 1)
    seq = tl.nn.Sequential(lin, lin)
    assert len(list(seq.modules())) == 2 and len(list(seq.modules(remove_duplicate=False))) == 3
    loader = tl.utils.data.DataLoader(list(range(4)), batch_size=2, in_order=False, pin_memory_device="")
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="pin_memory_device"):
        tl.utils.data.DataLoader([1], pin_memory_device="xpu")


def _functions_that_are_also_methods():
    import inspect

    return [name for name in sorted(dir(tl)) if not name.startswith("_") and hasattr(tl.Tensor, name)
            and callable(getattr(tl, name)) and not inspect.isclass(getattr(tl, name))]


def test_a_function_given_a_number_for_its_tensor_raises_type_error():
    # 76 functions failed on the number's missing attribute (AttributeError: 'int' object has no
    # attribute 'ndim'); PyTorch raises TypeError naming the function and the argument
    names = _functions_that_are_also_methods()
    assert len(names) > 300
    wrong = {}
    for name in names:
        for arg in (2, [1.0, 2.0]):
            try:
                getattr(tl, name)(arg)
            except (TypeError, RuntimeError, NotImplementedError):  # (clamp(2): "min or max must be given")
                continue
            except Exception as e:  # noqa: BLE001 (the test's point: which exception)
                wrong[f"{name}({arg!r})"] = f"{type(e).__name__}: {e}"
                break
            wrong[f"{name}({arg!r})"] = "no error"
            break
    assert not wrong, wrong
    for name, call in (("sum", lambda: tl.sum(2)), ("sin_", lambda: tl.sin_(2)), ("cov", lambda: tl.cov([1.0, 2.0])),
                       ("reshape", lambda: tl.reshape(2, (1,))), ("max", lambda: tl.max(2, 3))):
        with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not "):
            call()
    with pytest.raises(TypeError, match=r"where\(\): argument 'condition' \(position 1\) must be Tensor, not bool"):
        tl.where(True, tl.ones(1), 0.0)
    assert tl.reshape(input=tl.arange(4), shape=(2, 2)).shape == (2, 2)  # the keyword still reaches the method


def test_call_forms_of_the_signature_sweep():
    # torch 2.15's behaviour for call forms a signature sweep found different
    x = tl.ones(2)
    # to(): each of device and dtype once (a second was silently the winner)
    for call in (lambda: x.to(tl.float64, tl.int32), lambda: x.to(tl.ones(1, dtype=tl.float64), dtype=tl.float16),
                 lambda: x.to("cpu", device="cpu")):
        with pytest.raises(TypeError, match="given twice"):
            call()
    assert x.to("cpu", tl.float64, True).dtype is tl.float64
    # a non-tensor other is a TypeError naming it (AttributeError '_shape' before)
    for name, call in (("equal", lambda: tl.equal(x, 1)), ("view_as", lambda: x.view_as(1)),
                       ("reshape_as", lambda: x.reshape_as(1)), ("expand_as", lambda: x.expand_as(1)),
                       ("is_same_size", lambda: x.is_same_size(1)), ("type_as", lambda: x.type_as(1))):
        with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'other'.* must be Tensor, not int"):
            call()
    assert tl.rsub(x, 2, 3).tolist() == [-1.0, -1.0]  # (alpha positional, as PyTorch's number overload)
    with pytest.raises(RuntimeError, match="eps must be non-negative"):
        tl.nn.functional.cosine_similarity(tl.ones(2, 2), tl.ones(2, 2), eps=-1.0)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        tl.linalg.multi_dot(tl.ones(2, 3))  # (its rows were multiplied: tensor(3.))
    assert math.isnan(tl.var(tl.zeros(0, 3), correction=-1).item())  # (an empty variance was 0)


@pytest.mark.parametrize("make", [lambda **k: tl.zeros(2, **k), lambda **k: tl.full((2,), 1.0, **k),
                                  lambda **k: tl.arange(2, **k), lambda **k: tl.eye(2, **k),
                                  lambda **k: tl.ones_like(tl.ones(2), **k), lambda **k: tl.randn(2, **k),
                                  lambda **k: tl.tril_indices(2, 2, **k),
                                  lambda **k: tl.empty_strided((2,), (1,), **k)])
def test_factories_take_layout_and_pin_memory(make):
    # PyTorch's factory keywords (a TypeError before): ported code passes layout=torch.strided
    assert make(layout=tl.strided, pin_memory=False).layout is tl.strided
    with pytest.raises(NotImplementedError, match="layout=.* is not supported"):
        make(layout="sparse")


def test_compile_runs_eagerly_and_keeps_pytorchs_wrapper():
    # `model = torch.compile(model)` failed (no tl.compile); PyTorch wraps a module in an OptimizedModule
    # whose state_dict keys carry the `_orig_mod.` prefix, so checkpoints must keep it
    m = tl.nn.Linear(2, 3)
    c = tl.compile(m)
    assert type(c).__name__ == "OptimizedModule" and c._orig_mod is m
    assert list(c.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert c.weight is m.weight and c.in_features == 2  # attributes read from the original
    x = tl.tensor([[1.0, -2.0]])
    assert tl.equal(c(x), m(x))
    c.eval()
    assert m.training is False
    assert tl.compile(m, disable=True) is m
    assert type(tl.compile(mode="max-autotune")(m)).__name__ == "OptimizedModule"
    f = tl.compile(lambda t: t + 1, backend="eager")
    assert f(tl.tensor([1.0])).tolist() == [2.0]
    with pytest.raises(AssertionError, match="A callable function is expected, but <class 'int'> is provided"):
        tl.compile(5)
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        tl.compile(m, mode="default", options={})
    with pytest.raises(RuntimeError, match="Unrecognized mode=bogus"):
        tl.compile(m, mode="bogus")
    with pytest.raises(RuntimeError, match="Invalid backend: 'nope'"):
        tl.compile(m, backend="nope")
    with pytest.raises(TypeError, match="unexpected keyword argument 'fulgraph'"):
        tl.compile(m, fulgraph=True)  # a misspelt keyword, as PyTorch's signature refuses it
    assert type(tl.compile(m, recompile_limit=4, dynamic_shapes=None)).__name__ == "OptimizedModule"


def test_compiled_module_sets_and_deletes_attributes_on_the_original():
    # PyTorch's OptimizedModule forwards attribute writes and deletes to _orig_mod: `c.foo = 3` set foo on
    # the wrapper only (m.foo raised AttributeError), and `del c.foo` then removed the wrapper's copy
    m = tl.nn.Linear(2, 3)
    c = tl.compile(m)
    c.foo = 3
    assert m.foo == 3 and c.foo == 3
    c.extra = tl.nn.Linear(1, 1)
    assert "extra" in m._modules and "extra" not in c._modules
    assert list(c.state_dict())[-2:] == ["_orig_mod.extra.weight", "_orig_mod.extra.bias"]
    del c.foo
    assert not hasattr(m, "foo") and not hasattr(c, "foo")
    c.training = False
    assert m.training is False and c.training is False


def test_compile_of_a_class_returns_the_class():
    # PyTorch compiles a decorated class's __call__ and returns the class itself; a function wrapping
    # it was returned, so isinstance(net, Net) raised TypeError and Net could not be subclassed
    @tl.compile
    class Net(tl.nn.Module):
        scale = 3

        def forward(self, x):
            return x * self.scale

    net = Net()
    assert isinstance(Net, type) and isinstance(net, Net) and tl.compile(fullgraph=True)(Net) is Net
    assert net(tl.ones(2)).tolist() == [3.0, 3.0]
    assert type("Sub", (Net,), {})().scale == 3


def test_compile_of_a_staticmethod_stays_a_staticmethod():
    # PyTorch returns staticmethod(compile(f)); a plain function was returned, so in a class body the
    # instance was passed as the first argument (A().f(1, y=2) raised "got multiple values for 'y'")
    class A:
        @tl.compile
        @staticmethod
        def f(x, y=1):
            return x + y

    assert isinstance(A.__dict__["f"], staticmethod)
    assert A().f(1, y=2) == 3 and A.f(1) == 2


def test_jit_scripting_entry_points_run_eagerly():
    # RWKV's RNN inference subclasses torch.jit.ScriptModule and decorates with @torch.jit.script_method:
    # tl.jit had only the queries (AttributeError); the entry points hand back what they are given
    class M(tl.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.w = tl.nn.Parameter(tl.tensor([2.0, 3.0]))

        @tl.jit.script_method
        def forward(self, x):
            return x * self.w

    m = M()
    assert isinstance(m, tl.nn.Module) and [n for n, _ in m.named_parameters()] == ["w"]
    assert m(tl.ones(2)).tolist() == [2.0, 3.0]

    def f(x):
        return x + 1
    assert tl.jit.script(f) is f and tl.jit.script(m) is m
    assert tl.jit.ignore(f) is f and tl.jit.ignore(drop=True)(f) is f
    assert tl.jit.unused(f) is f and tl.jit.export(f) is f
    with pytest.raises(RuntimeError, match="must be a bool or a function but got 3"):
        tl.jit.ignore(3)


def test_jit_annotate_returns_the_value():
    # torchvision's detection heads write `torch.jit.annotate(List[Tensor], [])`: tl.jit had no annotate
    # (AttributeError); eagerly it hands back the value unchanged, as PyTorch does
    v = []
    assert tl.jit.annotate(list, v) is v
    assert tl.jit.annotate(dict, {"a": 1}) == {"a": 1}


def test_compiler_and_jit_queries_answer_eager():
    # Hugging Face model code asks `torch.compiler.is_compiling()` / `torch.jit.is_tracing()` and decorates
    # helpers with `@torch.compiler.disable`: tl.compiler / tl.jit were missing (AttributeError)
    assert tl.compiler.is_compiling() is False and tl.compiler.is_dynamo_compiling() is False
    assert tl.jit.is_tracing() is False and tl.jit.is_scripting() is False

    def f(x):
        return x + 1
    assert tl.compiler.disable(f)(1) == 2 and tl.compiler.disable(recursive=False, reason="r")(f)(2) == 3
    with pytest.raises(AssertionError, match="fn must be callable"):
        tl.compiler.disable(3)


def test_jit_decorators_run_eagerly():
    # DeepSpeed's MoE gating decorates helpers with `@torch.jit.script`, timm/fairseq models mark methods
    # `@torch.jit.ignore` / `@torch.jit.unused` / `@torch.jit.export`: they were missing (AttributeError)
    def f(x):
        return x + 1
    assert tl.jit.script(f) is f and tl.jit.ignore(f) is f and tl.jit.ignore(drop=True)(f) is f
    assert tl.jit.unused(f) is f and tl.jit.export(f) is f
    lin = tl.nn.Linear(2, 2)
    assert tl.jit.script(lin) is lin
    with pytest.raises(RuntimeError, match="Argument to @torch.jit.ignore must be a bool or a function but got 3"):
        tl.jit.ignore(3)
    with pytest.raises(TypeError, match="jit.script.*3"):
        tl.jit.script(3)
