"""The Module API against PyTorch's: the same model built in both must list, print, hook,
load and switch modes the same way.  (Oracle: skipped without torch locally, required in
CI.)"""
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nnbook as nb  # noqa: E402


def build(lib):
    """One model with every container and a few layers, in nnbook (nb) or torch."""
    n = lib.nn
    zeros = lib.zeros

    class Block(n.Module):
        def __init__(self):
            super().__init__()
            self.fc = n.Linear(7, 5, bias=False)
            self.norm = n.BatchNorm1d(5, momentum=None)
            self.register_buffer("scale", zeros(5) + 2)
            self.register_buffer("cache", zeros(3), persistent=False)
            self.register_parameter("gain", n.Parameter(zeros(5) + 1))

        def forward(self, x):
            return self.norm(self.fc(x)) * self.gain * self.scale

    return n.Sequential(OrderedDict([
        ("block", Block()),
        ("act", n.LeakyReLU(0.2)),
        ("heads", n.ModuleList([n.Linear(5, 3), n.Sequential(n.Tanh(), n.Dropout(0.3))])),
        ("extra", n.ModuleDict({"b": n.Identity(), "a": n.LayerNorm(5)})),
        ("params", n.ParameterList([n.Parameter(zeros(3, 2)), n.Parameter(zeros(1))])),
        ("named", n.ParameterDict({"u": n.Parameter(zeros(4))})),
        ("bn", n.BatchNorm2d(5, affine=False, track_running_stats=False)),
        ("gn", n.GroupNorm(1, 5, affine=False)),
        ("emb", n.Embedding(11, 3, padding_idx=0)),
        ("lazy", n.LazyLinear(4)),
    ]))


def names(pairs):
    return [name for name, _ in pairs]


def test_the_walks_list_the_same_paths():
    model, tmodel = build(nb), build(torch)
    assert names(model.named_modules()) == names(tmodel.named_modules())
    assert names(model.named_children()) == names(tmodel.named_children())
    assert [type(m).__name__ for m in model.children()] == \
        [type(m).__name__ for m in tmodel.children()]
    assert names(model.named_buffers()) == names(tmodel.named_buffers())
    assert names(model.block.named_buffers(recurse=False)) == \
        names(tmodel.block.named_buffers(recurse=False))
    assert names(model.block.named_parameters(recurse=False)) == \
        names(tmodel.block.named_parameters(recurse=False))
    assert len(list(model.block.parameters(recurse=False))) == 1
    assert len(list(model.parameters(recurse=False))) == 0
    assert list(model.state_dict()) == list(tmodel.state_dict())
    assert "block.cache" not in model.state_dict()  # persistent=False


def test_print_model_is_pytorchs_text():
    text, ttext = repr(build(nb)), repr(build(torch))
    # The one deliberate difference: a ParameterList names nnbook's dtype.
    assert text == ttext.replace("torch.float32", "nnbook.float32")
    assert str(nb.nn.Linear(3, 2)) == str(torch.nn.Linear(3, 2))


def test_print_groups_repeated_layers_of_a_module_list_as_pytorch():
    def make(lib):
        n = lib.nn
        return n.Sequential(
            n.ModuleList([n.Linear(3, 3) for _ in range(3)] + [n.ReLU(), n.ReLU(),
                                                                n.Linear(3, 2)]),
            n.ParameterDict({"a": n.Parameter(lib.zeros(2, 3))}),
            n.ModuleDict(), n.ModuleList(), n.Sequential())
    assert repr(make(nb)) == repr(make(torch))


def test_extra_repr_of_a_users_module():
    def make(n):
        class Scaled(n.Module):
            def __init__(self):
                super().__init__()
                self.inner = n.Linear(3, 2)

            def extra_repr(self):
                return "factor=3,\nmode='x'"
        return n.Sequential(Scaled(), n.ReLU())
    assert repr(make(nb.nn)) == repr(make(torch.nn))
    class Leaf(nb.nn.Module):
        def extra_repr(self):
            return "k=1"
    class TLeaf(torch.nn.Module):
        def extra_repr(self):
            return "k=1"
    assert repr(Leaf()).replace("Leaf", "X") == repr(TLeaf()).replace("TLeaf", "X")


def test_get_submodule_parameter_buffer():
    model, tmodel = build(nb), build(torch)
    for path in ["block.fc", "heads.1.0", "extra.a", ""]:
        assert type(model.get_submodule(path)).__name__ == \
            type(tmodel.get_submodule(path)).__name__
    assert tuple(model.get_parameter("heads.0.weight").shape) == (3, 5)
    assert tuple(model.get_buffer("block.norm.running_mean").shape) == (5,)
    with pytest.raises(AttributeError, match="hint:"):
        model.get_submodule("heads.5")
    with pytest.raises(AttributeError, match="did you mean"):
        model.get_parameter("heads.0.wieght")


def test_train_eval_and_apply_order():
    model, tmodel = build(nb), build(torch)
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.heads.train()
    assert [m.training for m in model.modules()] == \
        [m.training for m in (tmodel.eval(), tmodel.heads.train())[0].modules()]
    seen, tseen = [], []
    model.apply(lambda m: seen.append(type(m).__name__))
    tmodel.apply(lambda m: tseen.append(type(m).__name__))
    assert seen == tseen
    with pytest.raises(ValueError, match="hint:"):
        model.train("yes")
    assert [m.training for m in model.modules()] == [m.training for m in tmodel.modules()]


def test_zero_grad_and_requires_grad():
    layer = nb.nn.Linear(7, 3)
    layer(nb.randn(5, 7)).sum().backward()
    layer.zero_grad(set_to_none=False)
    assert np.all(layer.weight.grad.numpy() == 0)
    layer.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None
    assert layer.requires_grad_(False) is layer
    assert not any(p.requires_grad for p in layer.parameters())
    layer.requires_grad_()
    assert all(p.requires_grad for p in layer.parameters())


def test_registration_errors_keep_the_module_unchanged():
    layer = nb.nn.Linear(3, 2)
    before = list(layer.state_dict())
    with pytest.raises(AttributeError, match="hint:"):
        layer.register_buffer("a.b", nb.zeros(2))
    with pytest.raises(AttributeError, match="hint:"):
        layer.register_parameter("weight", nb.zeros(2))  # not a Parameter
    with pytest.raises(AttributeError, match="hint:"):
        layer.add_module("forward", nb.nn.ReLU())  # a method's name
    assert list(layer.state_dict()) == before
    layer.add_module("post", nb.nn.ReLU())
    assert names(layer.named_children()) == ["post"]


def test_load_state_dict_non_strict_returns_pytorchs_keys():
    def pair(lib):
        n = lib.nn
        return n.Sequential(n.Linear(7, 5), n.ReLU(), n.Linear(5, 3)), \
            n.Sequential(n.Linear(7, 5), n.ReLU(), n.Identity(), n.BatchNorm1d(5))
    src, dst = pair(nb)
    tsrc, tdst = pair(torch)
    got = dst.load_state_dict(src.state_dict(), strict=False)
    want = tdst.load_state_dict(tsrc.state_dict(), strict=False)
    assert got.missing_keys == want.missing_keys
    assert got.unexpected_keys == want.unexpected_keys
    missing, unexpected = got
    assert (missing, unexpected) == tuple(want)
    assert repr(got) == repr(want)
    np.testing.assert_array_equal(dst[0].weight.detach().numpy(), src[0].weight.detach().numpy())
    assert repr(src.load_state_dict(src.state_dict())) == \
        repr(tsrc.load_state_dict(tsrc.state_dict())) == "<All keys matched successfully>"


def test_strict_load_with_a_wrong_shape_changes_nothing():
    model = nb.nn.Sequential(nb.nn.Linear(7, 5), nb.nn.Linear(5, 3))
    state = {k: v.numpy().copy() + 1 for k, v in model.state_dict().items()}
    state["1.weight"] = np.zeros((3, 4), np.float32)
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    with pytest.raises(ValueError, match="hint:"):
        model.load_state_dict(state, strict=False)
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])


# -- hooks -----------------------------------------------------------------------------

def _pair_of_mlps(seed=0):
    rng = np.random.default_rng(seed)
    model = nb.nn.Sequential(nb.nn.Linear(7, 5), nb.nn.Tanh(), nb.nn.Linear(5, 3)).double()
    tmodel = torch.nn.Sequential(torch.nn.Linear(7, 5), torch.nn.Tanh(),
                                 torch.nn.Linear(5, 3)).double()
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    return model, tmodel, rng.standard_normal((9, 7))


def test_forward_hooks_change_inputs_and_outputs_like_pytorchs():
    model, tmodel, x = _pair_of_mlps()
    for m in (model, tmodel):
        m[0].register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        m[2].register_forward_hook(lambda mod, args, out: out + args[0].sum())
    out = model(nb.tensor(x)).detach().numpy()
    np.testing.assert_allclose(out, tmodel(torch.tensor(x)).detach().numpy(), rtol=1e-12)


def test_hook_handles_remove_and_work_as_context_managers():
    model, _, x = _pair_of_mlps()
    calls = []
    handle = model[0].register_forward_hook(lambda *a: calls.append("f"))
    with model[2].register_forward_pre_hook(lambda *a: calls.append("p")):
        model(nb.tensor(x))
    model(nb.tensor(x))
    handle.remove()
    model(nb.tensor(x))
    handle.remove()  # a second removal does nothing, as in PyTorch
    assert calls == ["f", "p", "f"]
    with pytest.raises(TypeError, match="hint:"):
        model.register_forward_hook(print(""))  # the result of a call, not a function


def test_full_backward_hook_sees_pytorchs_gradients():
    model, tmodel, x = _pair_of_mlps(1)
    got, want = [], []
    model[2].register_full_backward_hook(
        lambda m, gi, go: got.append([g.numpy().copy() for g in gi + go]))
    tmodel[2].register_full_backward_hook(
        lambda m, gi, go: want.append([g.numpy().copy() for g in gi + go]))
    # a hook that halves the gradient flowing into the first layer
    model[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))
    tmodel[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))
    xb, xt = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    r = np.random.default_rng(2).standard_normal((9, 3))
    (model(xb) * nb.tensor(r)).sum().backward()
    (tmodel(xt) * torch.tensor(r)).sum().backward()
    assert len(got) == len(want) == 1
    for a, b in zip(got[0], want[0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xb.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, p), tp in zip(model.named_parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10, err_msg=name)


# -- containers ------------------------------------------------------------------------

def test_sequential_slicing_append_indexing_like_pytorchs():
    def make(n):
        s = n.Sequential(OrderedDict([("a", n.Linear(7, 5)), ("b", n.ReLU()),
                                      ("c", n.Linear(5, 3))]))
        return s
    s, t = make(nb.nn), make(torch.nn)
    assert repr(s[1:]) == repr(t[1:])
    assert type(s[1:]) is nb.nn.Sequential
    assert s[-1] is s.c and len(s) == len(t) == 3
    assert [type(m).__name__ for m in s] == [type(m).__name__ for m in t]
    s.append(nb.nn.Sigmoid())
    t.append(torch.nn.Sigmoid())
    assert repr(s) == repr(t)
    del s[0]
    del t[0]
    assert repr(s) == repr(t)
    ml, tl = nb.nn.ModuleList([nb.nn.ReLU()]), torch.nn.ModuleList([torch.nn.ReLU()])
    ml.extend([nb.nn.Tanh(), nb.nn.ReLU()])
    tl.extend([torch.nn.Tanh(), torch.nn.ReLU()])
    ml.insert(1, nb.nn.Sigmoid())
    tl.insert(1, torch.nn.Sigmoid())
    assert repr(ml) == repr(tl) and repr(ml[1:]) == repr(tl[1:])
    with pytest.raises(IndexError, match="hint:"):
        s[7]


def test_parameter_containers_like_pytorchs():
    pl = nb.nn.ParameterList([nb.nn.Parameter(nb.zeros(3, 2))])
    pl.append(nb.nn.Parameter(nb.ones(5)))
    assert len(pl) == 2 and tuple(pl[-1].shape) == (5,)
    pd = nb.nn.ParameterDict({"w": nb.nn.Parameter(nb.zeros(3))})
    pd["v"] = nb.nn.Parameter(nb.ones(1))
    assert list(pd.keys()) == ["w", "v"] and "v" in pd
    holder = nb.nn.Module()
    holder.pl, holder.pd = pl, pd
    assert names(holder.named_parameters()) == ["pl.0", "pl.1", "pd.w", "pd.v"]


# -- lazy layers -----------------------------------------------------------------------

def test_lazy_linear_learns_its_size_at_the_first_call():
    nb.manual_seed(3)
    model = nb.nn.Sequential(nb.nn.LazyLinear(5), nb.nn.ReLU(), nb.nn.LazyLinear(3))
    tmodel = torch.nn.Sequential(torch.nn.LazyLinear(5), torch.nn.ReLU(),
                                 torch.nn.LazyLinear(3))
    assert repr(model) == repr(tmodel)
    out = model(nb.randn(9, 7))
    tmodel(torch.randn(9, 7))
    assert tuple(out.shape) == (9, 3)
    assert repr(model) == repr(tmodel)
    assert type(model[0]) is nb.nn.Linear
    assert np.abs(model[0].weight.detach().numpy()).max() <= 1 / np.sqrt(7)


def test_lazy_model_is_summarised_from_shapes_alone():
    model = nb.nn.Sequential(nb.nn.LazyLinear(5), nb.nn.ReLU(), nb.nn.LazyLinear(3))
    with pytest.raises(RuntimeError, match="hint:"):
        _ = model[0].weight.shape
    trace = nb.infer_shapes(model, (9, 7))
    assert trace is not None
    assert tuple(model[0].weight.shape) == (5, 7) and tuple(model[2].weight.shape) == (3, 5)
    assert sum(p.numel() for p in model.parameters()) == 5 * 7 + 5 + 3 * 5 + 3
    text = str(nb.summary(model, (9, 7)))
    assert "58" in text  # the parameter count shows


def _lazy_convs(n):
    return n.Sequential(n.LazyConv2d(6, 3, padding=1), n.ReLU(),
                        n.LazyConv2d(4, (3, 2), stride=(2, 1), groups=2, bias=False),
                        n.Flatten(), n.LazyLinear(3))


def test_lazy_conv2d_becomes_pytorchs_conv2d():
    nb.manual_seed(5)
    torch.manual_seed(5)
    model, tmodel = _lazy_convs(nb.nn).double(), _lazy_convs(torch.nn).double()
    assert repr(model) == repr(tmodel)
    x = np.random.default_rng(6).standard_normal((2, 5, 9, 7))
    out = model(nb.tensor(x))
    tmodel(torch.tensor(x))
    assert repr(model) == repr(tmodel)
    assert type(model[0]) is nb.nn.Conv2d and type(model[2]) is nb.nn.Conv2d
    bound = 1 / np.sqrt(5 * 3 * 3)  # Conv2d's default initialisation, fan_in from the input
    assert 0.8 * bound < np.abs(model[0].weight.detach().numpy()).max() <= bound
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    xb, xt = nb.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, tout = model(xb), tmodel(xt)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(xb.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_lazy_conv2d_from_shapes_alone_and_from_a_state_dict():
    model = _lazy_convs(nb.nn)
    nb.infer_shapes(model, (2, 5, 9, 7))
    assert tuple(model[2].weight.shape) == (4, 3, 3, 2)
    fresh = _lazy_convs(nb.nn)
    assert repr(fresh.load_state_dict(model.state_dict())) == "<All keys matched successfully>"
    assert repr(fresh) == repr(model)
    np.testing.assert_array_equal(fresh[0].weight.detach().numpy(),
                                  model[0].weight.detach().numpy())


def test_lazy_conv2d_refuses_an_input_it_cannot_take_and_stays_lazy():
    layer = nb.nn.LazyConv2d(4, 3, groups=2)
    with pytest.raises(ValueError, match="hint:"):
        layer(nb.randn(2, 5, 9, 7))  # 5 channels in 2 groups
    with pytest.raises(ValueError, match="hint:"):
        layer(nb.randn(9, 7))
    assert type(layer) is nb.nn.LazyConv2d and layer.in_channels == 0
    with pytest.raises(ValueError, match="hint:"):
        nb.nn.LazyConv2d(4, 3, groups=0)
    assert tuple(layer(nb.randn(2, 6, 9, 7)).shape) == (2, 4, 7, 5)


def test_hardtanh_takes_pytorchs_old_argument_names_with_a_warning():
    with pytest.warns(FutureWarning, match="old name of"):
        layer = nb.nn.Hardtanh(min_value=-0.5, max_value=2.0)
    with pytest.warns(FutureWarning):
        tlayer = torch.nn.Hardtanh(min_value=-0.5, max_value=2.0)
    assert repr(layer) == repr(tlayer)


def _two_inputs(lib):
    class Two(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(7, 3)

        def forward(self, a, b, c, scale=1.0):
            return self.fc(a) * scale, self.fc(b).tanh()  # c unused
    return Two().double()


def _arrays(grads):
    return [None if g is None else g.numpy().copy() for g in grads]


@pytest.mark.parametrize("loss", ["both", "first", "second"])
def test_every_kind_of_hook_on_a_module_with_several_inputs_and_outputs(loss):
    """Forward hooks with keyword arguments, backward pre-hooks and full backward hooks
    that replace gradients: what each hook receives, and the resulting gradients, equal
    PyTorch's (zeros for inputs no gradient reached, None for unused outputs)."""
    rng = np.random.default_rng(11)
    x, y, z = rng.standard_normal((4, 7)), rng.standard_normal((4, 7)), rng.standard_normal(3)
    model, tmodel = _two_inputs(nb), _two_inputs(torch)
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    seen = {}
    for mod, lib in ((model, nb), (tmodel, torch)):
        log = seen.setdefault(lib.__name__, [])
        mod.register_forward_pre_hook(lambda m, args, kw: (args, {**kw, "scale": 2.0}),
                                      with_kwargs=True)
        mod.register_forward_hook(lambda m, args, kw, out, log=log: log.append(kw["scale"]),
                                  with_kwargs=True)

        def pre(m, go, log=log):
            log.append(_arrays(go))
            return (None if go[0] is None else go[0] * 3, go[1])

        def full(m, gi, go, log=log):
            log.append(_arrays(gi + go))
            return (gi[0] * 0.5,) + gi[1:]
        mod.register_full_backward_pre_hook(pre)
        mod.register_full_backward_hook(full)
        a = lib.tensor(x, requires_grad=True)
        c = lib.tensor(z, requires_grad=True)
        first, second = mod(a, lib.tensor(y), c)
        {"both": first.sum() + (second * 2).sum(), "first": first.sum(),
         "second": (second * 2).sum()}[loss].backward()
        log.append(_arrays([a.grad, mod.fc.weight.grad]))
    mine, theirs = seen["nnbook"], seen["torch"]
    assert len(mine) == len(theirs) == 4 and mine[0] == theirs[0] == 2.0
    for got, want in zip(mine[1:], theirs[1:]):
        assert [g is None for g in got] == [w is None for w in want]
        for g, w in zip(got, want):
            if g is not None:
                np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-14)


def test_load_state_dict_assign_takes_the_tensors_themselves():
    model = nb.nn.Sequential(nb.nn.Linear(7, 5), nb.nn.BatchNorm1d(5))
    rng = np.random.default_rng(12)
    state = {k: nb.tensor(rng.standard_normal(v.shape).astype(v.numpy().dtype))
             for k, v in model.state_dict().items()}
    result = model.load_state_dict(state, assign=True)
    assert repr(result) == "<All keys matched successfully>"
    assert isinstance(model[0].weight, nb.nn.Parameter) and model[0].weight.requires_grad
    state["0.weight"].numpy()[0, 0] = 42.0  # the same memory: no copy was made
    assert model[0].weight.detach().numpy()[0, 0] == 42.0
    assert model[1].running_mean is state["1.running_mean"]
    assert names(model.named_parameters()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_set_submodule_like_pytorchs():
    def make(n):
        return n.Sequential(OrderedDict([("body", n.Sequential(n.Linear(7, 5), n.ReLU())),
                                         ("head", n.Linear(5, 3))]))
    model, tmodel = make(nb.nn), make(torch.nn)
    for m, n in ((model, nb.nn), (tmodel, torch.nn)):
        m.set_submodule("body.1", n.Tanh())
        m.set_submodule("body.extra", n.Sigmoid())  # strict=False adds it
    assert repr(model) == repr(tmodel)
    with pytest.raises(AttributeError, match="hint:"):
        model.set_submodule("body.missing", nb.nn.ReLU(), strict=True)
    with pytest.raises(AttributeError):
        tmodel.set_submodule("body.missing", torch.nn.ReLU(), strict=True)
    with pytest.raises(AttributeError, match="hint:"):
        model.set_submodule("body.1", "relu")
    assert repr(model) == repr(tmodel)  # nothing changed
