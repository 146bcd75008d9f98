from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from shop_env import ShopEnv

from robustcall.core import ToolCall
from robustcall.faults import (
    BUILTIN_PROFILES,
    FAULT_TYPES,
    TAXONOMY_TYPES,
    TRANSITION_MESSAGES,
    FaultInjector,
    FaultProfile,
    FaultyEnv,
    load_profile,
)
from robustcall.faults._anomaly import TRANSFORMS

SEARCH = ToolCall(name="search", arguments={"query": "lamp"})
BUY = ToolCall(name="buy", arguments={"item_id": "L2"})


def only(code: str, delta: float = 1.0, **kw: object) -> FaultProfile:
    return FaultProfile.model_validate({"faults": {code: 1}, "delta": delta, **kw})


def faulty(code: str, **kw: object) -> tuple[FaultyEnv, ShopEnv]:
    inner = ShopEnv()
    env = FaultyEnv(inner, only(code, **kw))
    env.reset("lamp")
    return env, inner


def test_taxonomy_has_three_classes_and_marks_transience() -> None:
    by_class = Counter(FAULT_TYPES[c].fault_class for c in TAXONOMY_TYPES)
    assert by_class == {"execution": 7, "semantic": 5, "nonstationary": 3}
    assert {c for c in TAXONOMY_TYPES if not FAULT_TYPES[c].transient} == {
        "http_404",
        "http_401",
        "http_403",
        "tool_deprecated",
        "param_renamed",
        "param_required",
    }
    # the fixed messages are the Appendix G strings, defined once
    assert FAULT_TYPES["http_429"].message == TRANSITION_MESSAGES["transient_rate_limit"]
    assert FAULT_TYPES["timeout"].message == TRANSITION_MESSAGES["transient_timeout"]


def test_every_builtin_profile_loads() -> None:
    for name in BUILTIN_PROFILES:
        p = load_profile(name)
        assert p.name == name and abs(sum(w for _, w in p.weights_for("x")) - 1) < 1e-9
    assert load_profile("default").classes() == {"execution", "semantic", "nonstationary"}


def test_profile_file_yaml_and_json_with_clear_errors(tmp_path: Path) -> None:
    y = tmp_path / "p.yaml"
    y.write_text(
        "delta: 0.2\nfaults: {http_500: 3, timeout: 1}\ntools: {search: {delta: 1.0, faults: {http_503: 1}}}\n"
    )
    p = load_profile(y)
    assert p.rate_for("search") == 1.0 and p.rate_for("buy") == 0.2
    assert p.weights_for("buy") == [("http_500", 0.75), ("timeout", 0.25)]
    assert p.weights_for("search") == [("http_503", 1.0)]
    j = tmp_path / "p.json"
    j.write_text(json.dumps({"faults": {"quota": 1}, "custom": {"quota": {"class": "execution", "message": "Q"}}}))
    assert load_profile(j).fault_type("quota").message == "Q"
    bad = tmp_path / "bad.yaml"
    bad.write_text("faults: {http_999: 1}\n")
    with pytest.raises(ValueError, match=r"bad.yaml: .*unknown fault type\(s\) http_999"):
        load_profile(bad)
    bad.write_text("faults: {http_500: 1}\ndelta: 2\n")
    with pytest.raises(ValueError, match=r"bad.yaml: field delta"):
        load_profile(bad)
    with pytest.raises(FileNotFoundError, match="built-in profiles"):
        load_profile(tmp_path / "missing.yaml")


def test_decisions_follow_delta_and_lambda_and_replay() -> None:
    profile = FaultProfile(delta=0.3, faults={"http_500": 3, "timeout": 1})
    draws = [FaultInjector(profile, key="ep").draw(i, "t")[0] for i in range(4000)]
    again = [FaultInjector(profile, key="ep").draw(i, "t")[0] for i in range(4000)]
    assert draws == again
    hits = Counter(d.code for d in draws if d is not None)
    assert 1100 < sum(hits.values()) < 1300  # δ = 0.3 of 4000
    assert 2.5 < hits["http_500"] / hits["timeout"] < 3.5  # λ = 3 : 1
    other = [FaultInjector(profile, key="other").draw(i, "t")[0] for i in range(50)]
    assert other != draws[:50]


def test_per_tool_override_makes_one_tool_flaky() -> None:
    profile = FaultProfile(delta=0.0, faults={"http_500": 1}, tools={"search": {"delta": 1.0}})  # type: ignore[dict-item]
    inj = FaultInjector(profile, key="k")
    assert all(inj.draw(i, "search")[0] is not None for i in range(20))
    assert all(inj.draw(i, "buy")[0] is None for i in range(20))


@pytest.mark.parametrize("code", ["http_429", "http_500", "http_503", "timeout"])
def test_transient_execution_errors_replace_the_call_once(code: str) -> None:
    env, inner = faulty(code, at_calls=[0])
    first = env.step(SEARCH)
    assert first.fault is not None and first.fault.fault_type == code and not first.fault.executed
    assert inner.executed == []  # Algorithm 1: the intercepted call is not executed
    second = env.step(SEARCH)
    assert second.fault is None and json.loads(second.observation)[0]["id"] == "L1"


def test_404_sticks_to_the_same_arguments_only() -> None:
    env, inner = faulty("http_404", at_calls=[0], sticky=True)
    assert env.step(SEARCH).observation.startswith("HTTP 404 Not Found")
    again = env.step(SEARCH)
    assert again.fault is not None and again.fault.repeat_of == 0
    assert env.step(ToolCall(name="search", arguments={"query": "floor lamp"})).fault is None
    assert len(inner.executed) == 1


@pytest.mark.parametrize("code", ["http_401", "http_403", "tool_deprecated"])
def test_tool_scoped_permanent_faults_stick_to_the_tool(code: str) -> None:
    env, inner = faulty(code, at_calls=[0], sticky=True)
    env.step(SEARCH)
    later = env.step(ToolCall(name="search", arguments={"query": "mug"}))
    assert later.fault is not None and later.fault.fault_type == code and later.fault.repeat_of == 0
    assert env.step(BUY).fault is None and inner.executed == [BUY]
    names = [t.name for t in env.tools()]
    assert names == (["buy"] if code == "tool_deprecated" else ["search", "buy"])


def test_param_renamed_rejects_the_old_name_and_translates_the_new() -> None:
    env, inner = faulty("param_renamed", at_calls=[0], sticky=True)
    first = env.step(SEARCH)
    assert first.observation == (
        "HTTP 400 Bad Request. Unknown parameter `query` for `search`: "
        "the API changed and this parameter is now named `query_v2`."
    )
    assert env.step(SEARCH).fault is not None  # the identical retry fails the same way
    ok = env.step(ToolCall(name="search", arguments={"query_v2": "lamp"}))
    assert ok.fault is None and inner.executed == [SEARCH]
    assert "query_v2" in env.tools()[0].properties() and env.tools()[0].required() == ["query_v2"]
    assert env.expert_action() == ToolCall(name="buy", arguments={"item_id": "L2"})


def test_param_required_needs_the_new_parameter() -> None:
    env, inner = faulty("param_required", at_calls=[0], sticky=True)
    assert "Missing required parameter `api_version`" in env.step(SEARCH).observation
    assert env.step(SEARCH).fault is not None
    ok = env.step(ToolCall(name="search", arguments={"query": "lamp", "api_version": "2"}))
    assert ok.fault is None and inner.executed == [SEARCH]
    env2, _ = faulty("param_required", at_calls=[0], sticky=True)
    env2.step(BUY)
    assert env2.expert_action() == ToolCall(name="search", arguments={"query": "lamp"})


@pytest.mark.parametrize(
    "code", ["empty_result", "malformed_body", "implausible_value", "wrong_type", "plausible_wrong"]
)
def test_semantic_anomalies_run_the_call_and_corrupt_its_result(code: str) -> None:
    env, inner = faulty(code, at_calls=[0])
    step = env.step(SEARCH)
    assert inner.executed == [SEARCH] and step.fault is not None and step.fault.executed
    real = step.fault.detail["real_observation"]
    assert step.observation != real and step.fault.fault_type == code and step.fault.requested is None
    if code == "empty_result":
        assert step.observation == "[]"
    elif code == "malformed_body":
        assert real.startswith(step.observation)
        with pytest.raises(json.JSONDecodeError):
            json.loads(step.observation)
    else:
        shown, orig = json.loads(step.observation), json.loads(real)
        assert len(shown) == len(orig) and set(shown[0]) == set(orig[0])  # same shape
        diffs = [(k, a[k], b[k]) for a, b in zip(shown, orig, strict=True) for k in a if a[k] != b[k]]
        assert len(diffs) == 1
        _, new, old = diffs[0]
        if code == "implausible_value":
            assert isinstance(new, int | float) and new < 0 < old
        elif code == "wrong_type":
            assert type(new) is not type(old)
        else:
            assert type(new) is type(old) and (not isinstance(new, int | float) or new >= 0)


def test_anomaly_transforms_on_text_and_fallback() -> None:
    rng = random.Random(0)
    assert TRANSFORMS["implausible_value"]("Price: 12 dollars", rng) == "Price: -12 dollars"
    assert TRANSFORMS["wrong_type"]("You are at row 3.", rng) == "You are at row null."
    assert TRANSFORMS["implausible_value"]("no numbers here", rng) is None
    assert TRANSFORMS["empty_result"]("plain text", rng) == ""
    env = FaultyEnv(ShopEnv(), only("implausible_value", at_calls=[0]))
    env.reset("lamp")
    step = env.step(ToolCall(name="buy", arguments={"item_id": "nope"}))  # text result without numbers
    assert step.fault is not None and step.fault.fault_type == "empty_result"
    assert step.fault.requested == "implausible_value" and step.observation == ""


def test_a_logged_episode_replays_byte_for_byte() -> None:
    calls = [SEARCH, SEARCH, ToolCall(name="search", arguments={"query": "mug"}), BUY, BUY, BUY]

    def episode() -> str:
        env = FaultyEnv(ShopEnv(), load_profile("default").with_delta(0.6))
        env.reset("lamp", seed=3)
        obs = [env.step(c).observation for c in calls]
        return json.dumps([obs, [f.model_dump() for f in env.log]])

    first = episode()
    assert first == episode()
    assert json.loads(first)[1], "δ = 0.6 over six calls injects something"


def test_key_order_of_a_profile_file_never_changes_a_draw() -> None:
    a = FaultProfile(delta=0.5, faults={"http_500": 1, "timeout": 2, "empty_result": 3})
    b = FaultProfile(delta=0.5, faults={"empty_result": 3, "timeout": 2, "http_500": 1})
    assert [FaultInjector(a, key="k").draw(i, "t")[0] for i in range(200)] == [
        FaultInjector(b, key="k").draw(i, "t")[0] for i in range(200)
    ]


def test_an_agent_that_repeats_a_call_meets_faults_at_rate_delta() -> None:
    """Algorithm 1 draws Bernoulli(δ) on every call: repeating a call never raises the fault rate."""
    from robustcall.core import Step, Trajectory
    from robustcall.metrics import injection_counts

    delta, episodes, calls = 0.3, 20, 200
    default = load_profile("default")
    per_call = {c: w for c, w in default.faults.items() if FAULT_TYPES[c].fault_class != "nonstationary"}
    profile = default.model_copy(update={"faults": per_call, "delta": delta})
    trajs = []
    for seed in range(episodes):
        env = FaultyEnv(ShopEnv(), profile)
        env.reset("lamp", seed=seed)
        steps = []
        for i in range(calls):
            out = env.step(SEARCH)
            steps.append(Step(index=i, action=SEARCH, fault=out.fault.model_dump() if out.fault else None))
        trajs.append(Trajectory(id=f"e{seed}", env="shop", task_id="lamp", steps=steps))
    counts = injection_counts(trajs)
    n = episodes * calls
    se = (delta * (1 - delta) / n) ** 0.5
    assert counts.calls == n and counts.faulted == counts.fresh  # nothing answered without a draw
    assert counts.rate is not None and abs(counts.rate - delta) < 4 * se, counts


@pytest.mark.parametrize("code", ["http_404", "http_401", "http_403"])
def test_permanent_execution_errors_are_one_call_observations_by_default(code: str) -> None:
    env, inner = faulty(code, at_calls=[0])
    assert env.step(SEARCH).fault is not None and inner.executed == []
    again = env.step(SEARCH)
    assert again.fault is None and inner.executed == [SEARCH]
    assert [t.name for t in env.tools()] == ["search", "buy"]  # the interface is unchanged


def test_non_stationarity_persists_for_the_rest_of_the_episode_by_default() -> None:
    """§3.1: a deprecated tool "becomes permanently unavailable", a changed specification stays changed;
    the Bernoulli(δ) draw only decides whether the fault is injected (here at call 0 only)."""
    env, inner = faulty("tool_deprecated", at_calls=[0])
    first = env.step(SEARCH)
    assert first.fault is not None and first.fault.persists
    again = env.step(SEARCH)
    assert again.fault is not None and again.fault.repeat_of == 0 and inner.executed == []
    assert [t.name for t in env.tools()] == ["buy"]  # the tool list shows it
    assert env.step(BUY).fault is None and inner.executed == [BUY]

    env, inner = faulty("param_renamed", at_calls=[0])
    assert "now named `query_v2`" in env.step(SEARCH).observation
    assert env.step(SEARCH).fault is not None  # the old name stays refused
    assert env.step(ToolCall(name="search", arguments={"query_v2": "lamp"})).fault is None
    assert inner.executed == [SEARCH] and env.tools()[0].required() == ["query_v2"]

    env, inner = faulty("param_required", at_calls=[0])
    env.step(SEARCH)
    assert env.step(SEARCH).fault is not None
    assert env.step(ToolCall(name="search", arguments={"query": "lamp", "api_version": "2"})).fault is None
    assert inner.executed == [SEARCH] and "api_version" in env.tools()[0].required()


def test_the_expert_stops_naming_the_removal_when_the_tool_it_needs_is_gone() -> None:
    env, _ = faulty("tool_deprecated", at_calls=[0])
    env.step(SEARCH)
    assert env.expert_action() is None
    assert env.expert_stop() is not None and "deprecated" in (env.expert_stop() or "")


def test_sticky_is_a_profile_option() -> None:
    assert load_profile("default").sticky is False
    assert FaultProfile.model_validate({"faults": {"http_404": 1}, "sticky": True}).with_delta(0.5).sticky
