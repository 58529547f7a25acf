"""The runtime's routed mixture-of-experts dispatch (runtime/moe.py): a Mixtral-style expert
loop, as written and with the three calls a mended loop makes, run on inputs that route
tokens to every expert and to none, eagerly, compiled (eager backend and Inductor) and with
gradients; and the conditions under which the runtime keeps the original's data-dependent
shapes (experts not known row-wise)."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import graphmend.runtime as rt

HIDDEN, INNER, EXPERTS, TOP_K = 8, 16, 4, 2


@rt.register_rowwise  # its forward computes each row from that row alone
class ExpertMLP(nn.Module):
    def __init__(self, hidden=HIDDEN, inner=INNER):
        super().__init__()
        self.w1 = nn.Linear(hidden, inner, bias=False)
        self.w2 = nn.Linear(inner, hidden, bias=False)
        self.w3 = nn.Linear(hidden, inner, bias=False)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.w2(self.act(self.w1(x)) * self.w3(x))


class RowMixingExpert(ExpertMLP):
    """Normalises over the tokens: what a row depends on depends on the other rows."""

    def forward(self, x):
        return super().forward(x - x.mean(0))


class RoutedMoE(nn.Module):
    """The routed loop as transformers 4.52.4's Mixtral and PhiMoE write it: the experts hit
    (`.tolist()`), `torch.where(mask)`, the emptiness test, `index_add_`."""

    def __init__(self, expert=ExpertMLP, layers=None):
        super().__init__()
        self.gate = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.experts = nn.ModuleList(layers or [expert() for _ in range(EXPERTS)])

    def route(self, hidden_states):
        weights = F.softmax(self.gate(hidden_states), dim=1, dtype=torch.float)
        weights, selected = torch.topk(weights, TOP_K, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        mask = F.one_hot(selected, num_classes=EXPERTS).permute(2, 1, 0)
        return weights, mask

    def forward(self, hidden_states):
        weights, expert_mask = self.route(hidden_states)
        final = torch.zeros_like(hidden_states)
        expert_hitted = (expert_mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()
        for expert_idx in expert_hitted:
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            if top_x.shape[0] == 0:
                continue
            current = expert_layer(hidden_states[None, top_x].reshape(-1, HIDDEN))
            current = current * weights[top_x, idx, None]
            final.index_add_(0, top_x, current.to(hidden_states.dtype))
        return final


class MendedMoE(RoutedMoE):
    """The same loop with the runtime's three calls in place of the data-dependent ones."""

    def forward(self, hidden_states):
        weights, expert_mask = self.route(hidden_states)
        final = torch.zeros_like(hidden_states)
        expert_hitted = rt.experts_hit(expert_mask.sum(dim=(-1, -2)) > 0, expert_mask, self.experts)
        for expert_idx in expert_hitted:
            expert_layer = self.experts[expert_idx]
            idx, top_x = rt.routed_where(expert_mask[expert_idx], self.experts)
            if top_x.shape[0] == 0:
                continue
            current = expert_layer(hidden_states[None, top_x].reshape(-1, HIDDEN))
            current = current * weights[top_x, idx, None]
            rt.routed_index_add_(final, 0, top_x, current.to(hidden_states.dtype))
        return final


def pair(expert=ExpertMLP):
    torch.manual_seed(0)
    original = RoutedMoE(expert)
    mended = MendedMoE(expert)
    mended.load_state_dict(original.state_dict())
    return original, mended


def inputs():
    """Their first feature is 1, a bias the gate reads: `starved_pair` lowers one expert's
    logit by 100 for every token, so no token reaches it."""
    torch.manual_seed(1)
    xs = [torch.randn(12, HIDDEN), torch.randn(1, HIDDEN)]
    for x in xs:
        x[:, 0] = 1.0
    return xs


def starved_pair():
    original, mended = pair()
    with torch.no_grad():
        for module in (original, mended):
            module.gate.weight[EXPERTS - 1, 0] -= 100.0
    return original, mended


def breaks(module, x):
    torch._dynamo.reset()
    explained = torch._dynamo.explain(module)(x)
    return len(explained.break_reasons), explained.graph_count


def test_inputs_route_tokens_to_every_expert_and_to_none():
    x = inputs()[0]
    every, _ = pair()
    idle, _ = starved_pair()
    assert (every.route(x)[1].sum(dim=(1, 2)) > 0).all()
    assert (idle.route(x)[1].sum(dim=(1, 2)) > 0).tolist() == [True] * (EXPERTS - 1) + [False]


@pytest.mark.parametrize("make", [pair, starved_pair], ids=["every_expert", "one_expert_idle"])
def test_mended_loop_equals_the_routed_loop_with_no_break(make):
    original, mended = make()
    with torch.no_grad():
        for x in inputs():
            expected = original(x)
            assert torch.equal(mended(x), expected)  # not compiling: the original calls
            torch._dynamo.reset()
            compiled = torch.compile(mended, backend="eager")
            torch.testing.assert_close(compiled(x), expected, rtol=1e-5, atol=1e-6)
        x = inputs()[0]
        assert breaks(original, x)[0] > 0
        assert breaks(mended, x) == (0, 1)


@pytest.mark.inductor
def test_mended_loop_under_inductor_equals_the_routed_loop():
    original, mended = starved_pair()
    x = inputs()[0]
    with torch.no_grad():
        torch._dynamo.reset()
        compiled = torch.compile(mended)
        torch.testing.assert_close(compiled(x), original(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "backend", ["aot_eager", pytest.param("inductor", marks=pytest.mark.inductor)]
)
def test_gradients_equal_the_routed_loop_and_an_idle_expert_gets_zero(backend):
    original, mended = starved_pair()
    x = inputs()[0]
    x_original = x.clone().requires_grad_()
    x_mended = x.clone().requires_grad_()
    original(x_original).square().sum().backward()
    torch._dynamo.reset()
    compiled = torch.compile(mended, backend=backend)
    compiled(x_mended).square().sum().backward()
    torch.testing.assert_close(x_mended.grad, x_original.grad, rtol=1e-5, atol=1e-6)
    for (name, p), q in zip(original.named_parameters(), mended.parameters()):
        if name.startswith(f"experts.{EXPERTS - 1}."):
            assert p.grad is None  # the routed loop never ran it
            assert torch.equal(q.grad, torch.zeros_like(q))  # every weight it got was 0
        else:
            torch.testing.assert_close(q.grad, p.grad, rtol=1e-5, atol=1e-6)


def test_padding_adds_negative_zero_so_inf_and_nan_rows_drop_out():
    """A padding row's source is dropped, not multiplied by 0 (inf * 0 is NaN), and -0.0,
    the additive identity, keeps an accumulated -0.0."""

    def add(out, index, source):
        return rt.routed_index_add_(out, 0, index, source)

    out = torch.tensor([[-0.0], [1.0], [2.0]])
    index = torch.tensor([1, -1, -1])
    source = torch.tensor([[5.0], [float("inf")], [float("nan")]])
    result = torch.compile(add, backend="eager", fullgraph=True)(out.clone(), index, source)
    assert torch.equal(result, torch.tensor([[-0.0], [6.0], [2.0]]))
    assert torch.signbit(result[0, 0])


def test_padded_indices_keep_the_routed_order():
    mask = torch.tensor([[0, 1, 1, 0], [1, 0, 0, 1]])
    padded = torch.compile(lambda m: rt.routed_where(m, nn.Linear(2, 2)), backend="eager")(mask)
    rows, cols = torch.where(mask)
    assert torch.equal(padded[0][: len(rows)], rows) and torch.equal(padded[1][: len(cols)], cols)
    assert (padded[0][len(rows) :] == -1).all() and padded[0].numel() == mask.numel()


@pytest.mark.parametrize(
    "layer",
    [
        lambda: nn.BatchNorm1d(HIDDEN),  # mixes rows in train mode
        lambda: nn.MultiheadAttention(HIDDEN, 2),  # attends over the tokens
        lambda: nn.Dropout(0.5),  # more rows draw other random numbers
        RowMixingExpert,  # a user class never registered (its base class is)
    ],
    ids=["batch_norm", "attention", "dropout_train", "user_class"],
)
def test_declines_experts_not_known_rowwise(layer):
    experts = nn.ModuleList([ExpertMLP(), layer()])
    assert not rt.rowwise_experts(experts)
    mask = torch.tensor([[1, 0], [0, 0]])
    seen = torch.compile(lambda m: rt.routed_where(m, experts)[0].shape[0], backend="eager")
    assert seen(mask) == 1  # the original torch.where: the routed size, not the padded one
    assert torch.compile(lambda h: rt.experts_hit(h, mask[None], experts), backend="eager")(
        torch.tensor([False, True])
    ) == [1]


def test_the_cost_rule_keeps_large_routed_loops_and_decides_alike_in_both_helpers():
    """Above the rows-per-expert limit the compiled loop keeps torch.where and the experts
    hit (the routed loop's breaks cost less than E times the expert work); at the limit it
    takes the static form. Both helpers read the same size, so a loop never visits every
    expert with routed indices or the experts hit with padded ones."""
    experts = nn.ModuleList([ExpertMLP(), ExpertMLP()])
    masks = torch.tensor([[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 0, 0]]])  # 6 rows per expert
    hit = masks.sum(dim=(-1, -2)) > 0

    def both(h, m):
        return rt.experts_hit(h, m, experts), rt.routed_where(m[0], experts)[1].shape[0]

    previous = rt.set_padded_rows_limit(5)
    try:
        torch._dynamo.reset()
        assert torch.compile(both, backend="eager")(hit, masks) == ([0, 1], 2)
        rt.set_padded_rows_limit(6)
        torch._dynamo.reset()
        assert torch.compile(both, backend="eager")(hit, masks) == ([0, 1], 6)
        torch._dynamo.reset()
        assert torch.compile(both, backend="eager")(torch.tensor([True, False]), masks)[0] == [0, 1]
    finally:
        rt.set_padded_rows_limit(previous)


def test_declines_hooks_and_accepts_registered_classes_and_eval_dropout():
    expert = ExpertMLP()
    assert rt.rowwise_experts(nn.ModuleList([expert, nn.Dropout(0.5).eval(), nn.Dropout(0.0)]))
    handle = expert.w1.register_forward_hook(lambda *a: None)
    assert not rt.rowwise_experts(expert)
    handle.remove()

    class Own(nn.Module):
        def forward(self, x):
            return x * 2

    assert not rt.rowwise_experts(Own())
    rt.register_rowwise(Own)
    assert rt.rowwise_experts(Own())


def test_row_mixing_experts_keep_the_routed_loop_and_its_breaks():
    original, mended = pair(RowMixingExpert)
    x = inputs()[0]
    with torch.no_grad():
        torch._dynamo.reset()
        compiled = torch.compile(mended, backend="eager")
        torch.testing.assert_close(compiled(x), original(x), rtol=1e-5, atol=1e-6)
        kept = breaks(mended, x)
        assert kept == breaks(original, x) and kept[0] > 0
