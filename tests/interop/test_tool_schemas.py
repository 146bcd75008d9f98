"""Function-calling requests any strict server accepts: the tool schemas sent in fc mode are valid
JSON Schema (the ``jsonschema`` library's metaschema check, drafts 7 and 2020-12) for every tool of
every source and every static perturbation; R_schema validates through the same library."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Sample, ToolCall, ToolSpec, read_jsonl
from robustcall.models import ModelSettings, json_schema, tool_parameters
from robustcall.rewards import schema_reward, schema_violations
from robustcall.sources import SOURCE_NAMES, load_source

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import completion, serve_chat

METASCHEMAS = (jsonschema.Draft7Validator, jsonschema.Draft202012Validator)


def _invalid(tools: list[ToolSpec]) -> list[str]:
    seen: set[str] = set()
    bad: list[str] = []
    for tool in tools:
        key = tool.name + json.dumps(tool.parameters, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        schema = tool_parameters(tool.parameters)
        for cls in METASCHEMAS:
            errors = list(cls(cls.META_SCHEMA).iter_errors(schema))
            if errors:
                bad.append(f"{tool.name} ({cls.__name__}): {errors[0].message}")
    return bad


@pytest.mark.parametrize("source", SOURCE_NAMES)
def test_every_tool_of_every_source_is_valid_json_schema(source: str, shared_data: Path) -> None:
    tools = [t for s in load_source(source, shared_data).samples for t in s.tools]
    assert tools
    assert _invalid(tools) == []


def test_every_tool_of_every_static_perturbation_is_valid_json_schema(tmp_path: Path, shared_data: Path) -> None:
    from robustcall.perturb import build_benchmark

    manifest = build_benchmark(["bfcl", "apibank", "rotbench", "toolalpaca", "tooleyes"], shared_data, 0, tmp_path)
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == len(manifest["counts"]) == 17
    tools = [t for f in files for s in read_jsonl(f, Sample) for t in s.tools]
    assert len(tools) > 1000
    assert _invalid(tools) == []


def test_api_bank_and_bfcl_type_names_map_to_json_schema() -> None:
    api_bank = {
        "type": "object",
        "properties": {
            "keyword": {"type": "str", "description": "The keyword."},
            "count": {"type": "int"},
            "tags": {"type": "list(str)"},
            "ids": {"type": "list"},
            "flag": {"type": "bool"},
            "when": "str",
        },
        "required": ["keyword", "keyword", "count"],
    }
    assert tool_parameters(api_bank) == {
        "type": "object",
        "properties": {
            "keyword": {"type": "string", "description": "The keyword."},
            "count": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ids": {"type": "array", "items": {}},
            "flag": {"type": "boolean"},
            "when": {"type": "string"},
        },
        "required": ["keyword", "count"],
    }
    assert json_schema({"type": "tuple", "items": [{"type": "float"}, {"type": "long"}]}) == {
        "type": "array",
        "prefixItems": [{"type": "number"}, {"type": "integer"}],
    }
    assert json_schema({"type": "any"}) == {"type": "string"}  # on the wire
    assert json_schema({"type": "any"}, any_type=True) == {}  # when validating values
    assert json_schema({"type": ["str", "None", "string"]}) == {"type": ["string", "null"]}
    assert tool_parameters({}) == {"type": "object", "properties": {}}


def _tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="search",
            description="Search.",
            parameters={
                "type": "object",
                "properties": {
                    "keyword": {"type": "str"},
                    "tags": {"type": "list(str)"},
                    "mode": {"type": "string", "enum": ["fast", "full"]},
                    "limits": {"type": "dict", "properties": {"max": {"type": "int"}}},
                    "extra": {"type": "any"},
                },
                "required": ["keyword"],
            },
        )
    ]


def test_schema_violations_come_from_jsonschema_with_our_messages() -> None:
    tools = _tools()
    ok = ToolCall(name="search", arguments={"keyword": "x", "tags": ["a"], "mode": "fast", "extra": [1, {}]})
    assert schema_violations([ok], tools) == []
    assert schema_reward([ok], tools) == 1.0
    bad = ToolCall(
        name="search",
        arguments={"tags": ["a", 2], "mode": "slow", "limits": {"max": True}, "colour": "red", "size": 1},
    )
    assert schema_violations([bad, ToolCall(name="nope", arguments={})], tools) == [
        "search: missing required parameter 'keyword'",
        "search: unexpected parameter 'colour'",
        "search: unexpected parameter 'size'",
        "search: parameter at limits.max has the wrong type (True is not of type 'integer')",
        "search: parameter at mode is not one of its enum values",
        "search: parameter at tags.1 has the wrong type (2 is not of type 'string')",
        "nope: unknown function",
    ]
    assert schema_reward([bad], tools) == -1.0
    assert schema_reward(None, tools) == -1.0
    assert schema_violations([], tools) == ["no tool call"]


def test_fc_run_through_the_cli_sends_valid_schemas_and_the_per_model_tool_settings(
    tmp_path: Path, shared_data: Path
) -> None:
    """End to end: build API-Bank (whose ``str``/``list(str)`` types were invalid JSON Schema), run it
    in fc mode against a mock server that refuses invalid schemas as a strict server would."""
    seen: list[dict[str, Any]] = []

    async def strict(body: dict[str, Any]) -> dict[str, Any]:
        for tool in body.get("tools", []):
            jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])  # raises -> HTTP 500
        seen.append(body)
        return completion("no call")

    runner = CliRunner()
    bench = tmp_path / "bench"
    res = runner.invoke(
        app,
        [
            "build",
            "--sources",
            "apibank",
            "--data-dir",
            str(shared_data),
            "--per-source",
            "apibank=30",
            "--out",
            str(bench),
        ],
    )
    assert res.exit_code == 0, res.output
    settings = tmp_path / "models.yaml"
    settings.write_text("m:\n  tool_choice: required\n  parallel_tool_calls: false\n  max_retries: 0\n")
    with serve_chat(strict) as url:
        res = runner.invoke(
            app,
            ["run", "--bench", str(bench), "--out", str(tmp_path / "run"), "--model", f"openai:m@{url}",
             "--mode", "fc", "--types", "clean", "--settings", str(settings)],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert len(seen) == 30
    assert all(b["tool_choice"] == "required" and b["parallel_tool_calls"] is False for b in seen)
    types = {
        p.get("type") for b in seen for t in b["tools"] for p in t["function"]["parameters"]["properties"].values()
    }
    assert types <= {"string", "integer", "number", "boolean", "array", "object"}
    records = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert [r["prediction"].get("error_kind") for r in records] == [None] * 30


def test_tool_choice_setting_is_checked(tmp_path: Path) -> None:
    from robustcall.models import SettingsError, load_settings

    bad = tmp_path / "s.yaml"
    bad.write_text("m:\n  tool_choice: always\n")
    with pytest.raises(SettingsError, match="tool_choice must be one of auto, required, none"):
        load_settings(bad, "m")
    assert ModelSettings().tool_choice is None and ModelSettings().parallel_tool_calls is None
