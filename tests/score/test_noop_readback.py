"""Issue 43 item 2: a read verifies a silent no-op only when it addresses the resource the no-op touched.

The same key arguments (name and value; credentials and paging are no key), or a read tool whose
description names the no-op's resource; never an empty call, a word shared by the tool names, or a shared
credential value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Message, Sample, ToolCall, ToolSpec, key_arguments, reads_back
from robustcall.perturb import FOLLOW_UP
from robustcall.score._noop import judge_noop


def _spec(name: str, description: str, *params: str, required: tuple[str, ...] = ()) -> ToolSpec:
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in params}, "required": list(required)}
    return ToolSpec(name=name, description=description, parameters=schema)


# API-Bank's specs, as its records list them (no required parameters)
REGISTER = _spec("RegisterUser", "The API for registering a account, given the username, password and email.",
                 "username", "password", "email")  # fmt: skip
TOKEN = _spec("GetUserToken", "Get the user token by username and password.", "username", "password")
ADD_AGENDA = _spec("AddAgenda", "The API for adding a agenda item includes content, time and location.",
                   "token", "content", "time", "location")  # fmt: skip
QUERY_AGENDA = _spec("QueryAgenda", "The API for getting a agenda item includes parameters for token, content, time.",
                     "token", "content", "time", "location")  # fmt: skip
BALANCE = _spec("QueryBalance", "This API queries the balance of a given user.", "token")
APPOINTMENT = _spec("AppointmentRegistration", "This API registers an appointment of hospital.",
                    "patient_name", "date", "doctor_name")  # fmt: skip
REGISTRATION = _spec("QueryRegistration", "This API queries the registration of a patient, given patient ID.",
                     "patient_name", "date", "patient_id")  # fmt: skip
HEALTH = _spec("QueryHealthData", "This API queries the recorded health data of a user.", "user_id", "patient_id")

SIGN_UP = ToolCall(name="RegisterUser", arguments={"username": "foo", "password": "bar", "email": "foo@example.com"})
AGENDA = ToolCall(
    name="AddAgenda",
    arguments={"token": "l9k8j7h6g5f4d3s2a1", "content": "Meeting", "time": "2023-07-15 15:00:00", "location": "A"},
)
VISIT = ToolCall(name="AppointmentRegistration", arguments={"patient_name": "Mary", "date": "2023-11-15",
                                                            "doctor_name": "Dr. Lee"})  # fmt: skip

NOOP_SPECS = {"RegisterUser": REGISTER, "AddAgenda": ADD_AGENDA, "AppointmentRegistration": APPOINTMENT}


def _noop_record(noop: ToolCall, tools: list[ToolSpec]) -> Sample:
    conv = [
        Message(role="user", content="Please do it."),
        Message(role="assistant", tool_calls=[noop]),
        Message(role="tool", name=noop.name, content='{"status": "success", "result": null, "modified": 0}'),
        Message(role="user", content=FOLLOW_UP),
    ]
    return Sample.model_validate(
        {
            "id": "apibank__x__silent_noop",
            "benchmark": "apibank",
            "category": "level-1",
            "tools": tools,
            "conversation": conv,
            "golden_answers": [],
            "perturbation": {"type": "silent_noop", "mdp_category": "reward"},
            "source": {"original_id": "x", "benchmark": "apibank"},
            "eval_config": {"method": "exact"},
        }
    )


@pytest.mark.parametrize(
    ("noop", "read", "spec", "verifies"),
    [
        # the issue's cases: an empty call, a word shared by the names ("user"), a shared token value
        (SIGN_UP, ToolCall(name="GetUserToken"), TOKEN, False),  # apibank level-1 #39
        (AGENDA, ToolCall(name="QueryBalance", arguments={"token": "l9k8j7h6g5f4d3s2a1"}), BALANCE, False),
        (VISIT, ToolCall(name="QueryRegistration"), REGISTRATION, False),  # apibank level-1 #201, read blindly
        # a word of the name and a call of the right tool, but for another resource
        (SIGN_UP, ToolCall(name="GetUserToken", arguments={"username": "someone", "password": "x"}), TOKEN, False),
        # credentials only: addresses nothing
        (SIGN_UP, ToolCall(name="GetUserToken", arguments={"password": "bar"}), TOKEN, False),
        # legitimate read-backs: the same key arguments ...
        (SIGN_UP, ToolCall(name="GetUserToken", arguments={"username": "foo", "password": "bar"}), TOKEN, True),
        (
            VISIT,
            ToolCall(name="QueryRegistration", arguments={"patient_name": "Mary", "date": "2023-11-15"}),
            REGISTRATION,
            True,
        ),
        (
            AGENDA,
            ToolCall(name="QueryAgenda", arguments={"token": "l9k8j7h6g5f4d3s2a1", "content": "Meeting"}),
            QUERY_AGENDA,
            True,
        ),
        # ... or a tool whose description names the resource ("registration"), addressed by another key
        (VISIT, ToolCall(name="QueryRegistration", arguments={"patient_id": "P-17"}), REGISTRATION, True),
        (VISIT, ToolCall(name="QueryHealthData", arguments={"patient_id": "P-17"}), HEALTH, False),
        # a key of the no-op's with another value is another registration, whatever the description says
        (VISIT, ToolCall(name="QueryRegistration", arguments={"patient_name": "Bob"}), REGISTRATION, False),
    ],
)
def test_a_read_verifies_only_when_it_addresses_the_touched_resource(
    noop: ToolCall, read: ToolCall, spec: ToolSpec, verifies: bool
) -> None:
    assert reads_back(read, spec, [noop]) is verifies
    record = _noop_record(noop, [NOOP_SPECS[noop.name], spec])
    verdict = judge_noop(record, [read], "")
    assert verdict.correct is verifies
    assert verdict.detail == ("read the state back" if verifies else "noop_unverified: acted without checking that "
                              "the state changed")  # fmt: skip


def test_key_arguments_leave_out_credentials_paging_and_empty_values() -> None:
    call = ToolCall(
        name="f",
        arguments={"api_key": "K", "accessToken": "T", "page": 1, "limit": 10, "user_id": "u1", "note": "", "n": 3},
    )
    assert key_arguments(call) == {"user_id": "u1", "n": "3"}


def test_scripted_readers_on_the_issue_record() -> None:
    """``scripted:read_anything`` reads ``GetUserToken {}`` and fails; ``scripted:verify_noop`` passes the
    no-op's username and password and passes."""
    import asyncio

    from robustcall.models import make_model
    from robustcall.run import answer

    record = _noop_record(SIGN_UP, [REGISTER, TOKEN])
    blind = asyncio.run(answer(record, make_model("scripted:read_anything")))
    careful = asyncio.run(answer(record, make_model("scripted:verify_noop")))
    assert blind.tool_calls == [ToolCall(name="GetUserToken")]
    assert careful.tool_calls == [ToolCall(name="GetUserToken", arguments={"username": "foo", "password": "bar"})]
    assert not judge_noop(record, blind.tool_calls, blind.raw_output).correct
    assert judge_noop(record, careful.tool_calls, careful.raw_output).correct


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_the_silent_noop_records_of_the_five_sources_end_to_end(tmp_path: Path, shared_data: Path) -> None:
    """``build`` -> ``run`` -> ``score`` on the 193 silent-no-op records of the five sources: reading any
    listed read tool blindly verifies none of them (it passed 10 before issue 43: apibank level-1 #39 and
    #201, rotbench medium #205, two ToolAlpaca Axolotl records, five ToolEyes ones); the careful reader
    passes every record, 13 of them by a read."""
    bench = tmp_path / "bench"
    _invoke("build", "--out", str(bench), "--sources", "bfcl,apibank,rotbench,toolalpaca,tooleyes",
            "--data-dir", str(shared_data), "--types", "silent_noop")  # fmt: skip
    details: dict[str, list[str]] = {}
    for policy in ("read_anything", "verify_noop"):
        run = tmp_path / policy
        _invoke("run", "--bench", str(bench), "--model", f"scripted:{policy}", "--types", "silent_noop",
                "--out", str(run))  # fmt: skip
        _invoke("score", str(run))
        rows = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
        assert len(rows) == 193
        details[policy] = [r["detail"] if r["correct"] else "wrong" for r in rows]
    assert details["read_anything"].count("read the state back") == 0
    assert details["read_anything"].count("reported the no-op") == 102  # the records with no read tool listed
    assert details["verify_noop"].count("read the state back") == 13
    assert details["verify_noop"].count("wrong") == 0
