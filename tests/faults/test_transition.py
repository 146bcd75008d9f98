from robustcall.core import TRANSITION_TYPES, ToolCall
from robustcall.faults import TRANSITION_MESSAGES, FaultInjector, fixed_profile, transition_injector


def test_appendix_g_strings_verbatim() -> None:
    assert set(TRANSITION_MESSAGES) == set(TRANSITION_TYPES)
    assert TRANSITION_MESSAGES["transient_rate_limit"] == (
        "HTTP 429 Too Many Requests. "
        "The provider rejected the call because the per-minute rate limit has been exceeded."
    )
    assert TRANSITION_MESSAGES["transient_server_error"] == (
        "HTTP 500 Internal Server Error. The remote endpoint failed to handle the request."
    )


def test_transition_injects_only_at_the_first_call() -> None:
    inj = transition_injector("transient_timeout")
    call = ToolCall(name="country_info.capital", arguments={"country": "Brazil"})
    first = inj.maybe_inject(0, call)
    assert first is not None and first.observation.startswith("Tool execution timed out")
    assert inj.maybe_inject(1, call) is None
    assert [f.step for f in inj.log] == [0]


def test_injection_rate_is_seeded_and_replayable() -> None:
    call = ToolCall(name="t")
    runs = []
    for _ in range(2):
        inj = FaultInjector(fixed_profile({"a": "A", "b": "B"}, delta=0.3, seed=7))
        runs.append([(f.fault_type if (f := inj.maybe_inject(i, call)) else None) for i in range(200)])
    assert runs[0] == runs[1]
    hits = sum(r is not None for r in runs[0])
    assert 35 <= hits <= 85  # about 60 of 200
