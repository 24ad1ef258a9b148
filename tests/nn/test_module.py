"""Module and Parameter: registration, dotted names, sharing, state, the call stack, the guard."""
import copy
import gc
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import context, nn
from nnbook.errors import NnbookError, ShapeError


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 5, (3, 1))

    def forward(self, x):
        return self.conv2(self.conv1(x).relu())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.features = nn.Sequential(nn.ReLU(), nn.Conv2d(5, 2, 1))
        self.head = nn.Linear(2, 3)

    def forward(self, x):
        return self.head(self.features(self.block(x)).mean((2, 3)))


# -- registration and names ---------------------------------------------------------

def test_dotted_names_follow_attributes_and_indices():
    names = [n for n, _ in Net().named_parameters()]
    assert names == ["block.conv1.weight", "block.conv1.bias", "block.conv2.weight",
                     "block.conv2.bias", "features.1.weight", "features.1.bias",
                     "head.weight", "head.bias"]


def test_named_modules_children_and_buffers():
    net = Net()
    assert [n for n, _ in net.named_modules()] == [
        "", "block", "block.conv1", "block.conv2", "features", "features.0", "features.1",
        "head"]
    assert [n for n, _ in net.named_children()] == ["block", "features", "head"]
    assert list(net.children())[2] is net.head
    bn = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3))
    assert [n for n, _ in bn.named_buffers()] == [
        "1.running_mean", "1.running_var", "1.num_batches_tracked"]
    assert len(list(bn.buffers())) == 3


def test_parameter_knows_its_path_from_the_outermost_model():
    block = Block()
    assert block.conv2.weight.path == "conv2.weight"
    net = nn.Sequential(nn.Identity(), block)
    assert block.conv2.weight.path == "1.conv2.weight"  # the wrapper is the outermost now
    del net
    gc.collect()
    assert block.conv2.weight.path == "conv2.weight"  # and back when it is gone
    assert nn.Parameter(nb.zeros(2)).path is None
    assert nn.Parameter(nb.zeros(2)).paths == []


def test_shared_layer_listed_once_with_all_its_paths():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(4, 3)
            self.again = self.encoder
            self.bias2 = self.encoder.bias

        def forward(self, x):
            return self.again(self.encoder(x) @ nb.ones(3, 4))

    model = Tied()
    # the model's own parameters come first, as in PyTorch
    assert [n for n, _ in model.named_parameters()] == ["bias2", "encoder.weight"]
    assert [n for n, _ in model.named_modules()] == ["", "encoder"]
    assert model.encoder.bias.paths == ["bias2", "encoder.bias", "again.bias"]
    assert model.encoder.bias.path == "bias2"  # the name named_parameters() gives
    assert nn.paths_of(model.encoder) == ["encoder", "again"]
    assert nn.paths_of(model) == [""]
    # state_dict lists every path, as PyTorch's does
    assert list(model.state_dict()) == ["bias2", "encoder.weight", "encoder.bias",
                                        "again.weight", "again.bias"]


def test_reassigning_and_deleting_keep_the_registry_right():
    net = Net()
    old = net.head
    net.head = nn.Linear(2, 7)
    assert old.weight.path == "weight"  # no longer in net
    assert net.head.weight.path == "head.weight"
    del net.head
    assert "head" not in dict(net.named_children())
    with pytest.raises(AttributeError):
        _ = net.head
    net.head = None  # a plain attribute now
    assert net.head is None


def test_misspelt_attribute_suggests_the_close_name():
    net = Net()
    with pytest.raises(AttributeError, match=r"has no attribute 'blok'[\s\S]*did you mean 'block'"):
        _ = net.blok
    with pytest.raises(NnbookError, match="its layers: block \\(Block\\), features"):
        _ = net.featurs
    assert not hasattr(net, "_repr_html_")  # front ends probe quietly


def test_assigning_before_super_init_is_refused_with_the_fix():
    class Early(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
            super().__init__()

    with pytest.raises(AttributeError, match=r"self.fc = Linear\(...\) came before "
                       r"super\(\).__init__\(\)[\s\S]*hint: call super\(\).__init__\(\) first"):
        Early()

    class Forgot(nn.Module):
        def __init__(self):
            self.size = 3

        def forward(self, x):
            return x

    with pytest.raises(NnbookError, match="did not call super"):
        nn.Sequential(Forgot())


def test_wrong_kinds_of_values_for_registered_names():
    layer = nn.Linear(2, 3)
    with pytest.raises(AttributeError, match="cannot assign a Tensor to self.weight"):
        layer.weight = nb.zeros(3, 2)
    layer.bias = None
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    with pytest.raises(NnbookError, match="already has an attribute 'training'"):
        layer.register_buffer("training", nb.zeros(1))
    with pytest.raises(NnbookError, match="without '.'"):
        layer.register_buffer("a.b", nb.zeros(1))


def test_plain_list_of_layers_warns():
    class Hidden(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]

    with pytest.warns(nn.HiddenModuleWarning, match="ModuleList"):
        Hidden()

    class Alias(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.stages = [self.a]  # already registered: fine

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Alias()


def test_missing_forward_and_misspelt_forward():
    class NoForward(nn.Module):
        pass

    class Typo(nn.Module):
        def foward(self, x):
            return x

    with pytest.raises(AttributeError, match="has no forward"):
        NoForward()(nb.zeros(1))
    with pytest.raises(AttributeError, match=r"rename foward\(\) to forward\(\)"):
        Typo()(nb.zeros(1))


# -- state ------------------------------------------------------------------------------

def test_train_eval_zero_grad_and_requires_grad():
    net = Net()
    assert net.training and net.block.conv1.training
    net.eval()
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net(nb.randn(2, 3, 5, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_to_double_and_float_convert_in_place():
    model = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3))
    weight = model[0].weight
    model.double()
    assert model[0].weight is weight and weight.dtype == np.float64
    assert model[1].running_var.dtype == np.float64
    assert model[1].num_batches_tracked.dtype == np.int64  # counts stay integers
    assert model(nb.randn(2, 2, 3, 5, dtype=np.float64)).dtype == np.float64
    model.float()
    assert weight.dtype == np.float32
    assert model.to("cpu") is model
    with pytest.raises(NnbookError, match="CPU only"):
        model.to("cuda")


def test_state_dict_shares_memory_and_excludes_non_persistent_buffers():
    layer = nn.Linear(3, 2)
    layer.register_buffer("scratch", nb.zeros(2), persistent=False)
    sd = layer.state_dict()
    assert list(sd) == ["weight", "bias"]
    assert np.shares_memory(sd["weight"].detach().numpy(), layer.weight.detach().numpy())
    assert layer.state_dict(keep_vars=True)["weight"] is layer.weight


def test_repr_tree_like_pytorch():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
                          nn.Sum(nn.Identity(), nn.Sequential(nn.ReLU())),
                          nn.Flatten(), nn.Linear(8, 2))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)\n"
        "  (1): Sum(\n"
        "    (0): Identity()\n"
        "    (1): Sequential(\n"
        "      (0): ReLU()\n"
        "    )\n"
        "  )\n"
        "  (2): Flatten(start_dim=1, end_dim=-1)\n"
        "  (3): Linear(in_features=8, out_features=2, bias=True)\n"
        ")")


def test_deepcopy_gives_an_independent_model_with_its_own_names():
    net = Net()
    twin = copy.deepcopy(net)
    assert [n for n, _ in twin.named_parameters()] == [n for n, _ in net.named_parameters()]
    assert twin.head.weight is not net.head.weight
    assert twin.head.weight.path == "head.weight"
    np.testing.assert_array_equal(
        twin.head.weight.detach().numpy(), net.head.weight.detach().numpy()
    )
    twin.head.weight.data += 1
    assert not np.array_equal(twin.head.weight.detach().numpy(), net.head.weight.detach().numpy())


def test_get_submodule_and_apply():
    net = Net()
    assert net.get_submodule("features.1") is net.features[1]
    with pytest.raises(AttributeError, match="did you mean 'features.1'"):
        net.get_submodule("feature.1")
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen.count("Conv2d") == 3


# -- calling: the module stack ------------------------------------------------------------

class Probe(nn.Module):
    """Records the module stack while its forward runs."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, x):
        self.seen.append([(path, type(m).__name__) for path, m in context.module_stack])
        return x


def test_paths_on_the_stack_are_relative_to_the_outermost_call():
    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.ReLU(), Probe())
            self.inner = nn.Sequential(nn.Identity(), Probe())

        def forward(self, x):
            x = self.features(x)
            return self.inner[1](x)  # a grandchild called directly

    model = Outer()
    model(nb.ones(2))
    assert model.features[1].seen == [[("", "Outer"), ("features", "Sequential"),
                                       ("features.1", "Probe")]]
    assert model.inner[1].seen == [[("", "Outer"), ("inner.1", "Probe")]]
    model.features(nb.ones(2))  # called on its own, the Sequential is the outermost
    assert model.features[1].seen[-1] == [("", "Sequential"), ("1", "Probe")]
    assert context.module_stack == []


def test_an_op_error_inside_a_layer_names_its_path():
    class Bad(nn.Module):
        def forward(self, x):
            return x @ nb.ones(5, 2)

    model = nn.Sequential(nn.ReLU(), nn.Sequential(nn.Identity(), Bad()))
    with pytest.raises(ShapeError, match=r"^1\.1 \(Bad\), in matmul: inner dimensions"):
        model(nb.ones(3, 4))
    assert context.module_stack == []


def test_unregistered_module_called_in_forward_is_labelled():
    helper = Probe()

    class User(nn.Module):
        def forward(self, x):
            return helper(x)

    User()(nb.ones(1))
    assert helper.seen[-1][-1] == ("<unregistered Probe>", "Probe")


# -- the guard (the layer built in forward): no layers or parameters built inside forward ---


class BuildsInForward(nn.Module):
    def forward(self, x):
        return nn.Linear(x.shape[1], 2)(x)


def test_building_a_layer_in_forward_is_refused():
    model = nn.Sequential(nn.Identity(), BuildsInForward())
    with pytest.raises(nn.BuildInForwardError) as info:
        model(nb.ones(3, 5))
    text = str(info.value)
    assert text.startswith("1 (BuildsInForward): Linear(in_features=5, out_features=2) was "
                           "built while BuildsInForward.forward() was running.")
    assert "inside:   1 (BuildsInForward).forward()" in text
    assert "test_module.py, line" in text and "nn.Linear(x.shape[1], 2)(x)" in text
    assert "hint: build it once in __init__ (self.linear = Linear(in_features=5, " \
           "out_features=2))" in text
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, NnbookError)
    assert context.module_stack == []  # the stack is clean after the error
    nn.Linear(2, 2)  # building outside forward works again


def test_building_a_parameter_in_forward_is_refused():
    class MakesWeight(nn.Module):
        def forward(self, x):
            w = nn.Parameter(nb.randn(x.shape[1], 3))
            return x @ w

    with pytest.raises(nn.BuildInForwardError, match=r"a Parameter of shape \(4, 3\) was built"):
        MakesWeight()(nb.ones(2, 4))


def test_allow_build_in_forward_opts_out():
    class Probing(nn.Module):
        def forward(self, x):
            with nn.allow_build_in_forward():
                probe = nn.Linear(x.shape[1], 1)
            return probe(x)

    assert Probing()(nb.ones(2, 4)).shape == (2, 1)
    with pytest.raises(nn.BuildInForwardError):
        BuildsInForward()(nb.ones(3, 5))  # the opt-out ended with its block


def test_unregistered_trainable_tensors_are_warned_about():
    import warnings

    from nnbook.nn import HiddenModuleWarning

    class Loose(nb.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nb.randn(3, 2, requires_grad=True)        # not a Parameter
            self.ws = [nb.nn.Parameter(nb.randn(2)) for _ in range(2)]  # hidden in a list

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = Loose()
    texts = [str(w.message) for w in caught if w.category is HiddenModuleWarning]
    assert any("self.w is a Tensor with requires_grad=True, not a Parameter" in t for t in texts)
    assert any("self.ws is a plain list holding 2 Parameter(s)" in t for t in texts)
    assert list(model.parameters()) == []
