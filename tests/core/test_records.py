import json
from pathlib import Path

import pytest

from robustcall.core import (
    GoldenAnswer,
    JsonlAppender,
    JsonlError,
    Prediction,
    PredictionRecord,
    Sample,
    ToolCall,
    dump_record,
    prediction_line,
    read_checkpoint,
    read_jsonl,
    seeded_rng,
)

RELEASE_RECORD = {
    "id": "bfcl_v3__BFCL_v3_multiple__multiple_110",
    "benchmark": "bfcl_v3",
    "category": "multiple",
    "source": {
        "original_id": "multiple_110",
        "benchmark": "bfcl_v3",
        "file": "BFCL_v3_multiple.json",
        "extra": {},
    },
    "perturbation": {"type": "realistic_typos", "mdp_category": "observation", "variant": None, "metadata": {}},
    "conversation": [{"role": "user", "content": "Find teh type of gene mutaiton based on SNP ID rs6034464."}],
    "tools": [
        {
            "name": "mutation_type.find",
            "description": "Finds the type of a genetic mutation based on its SNP ID.",
            "parameters": {
                "type": "dict",
                "properties": {"snp_id": {"type": "string"}, "species": {"type": "string"}},
                "required": ["snp_id"],
            },
        }
    ],
    "golden_answers": [
        {"name": "mutation_type.find", "parameters": {"snp_id": "rs6034464", "species": "Homo sapiens"}}
    ],
    "eval_config": {"method": "bfcl_ast"},
}


def test_release_record_round_trips():
    sample = Sample.model_validate(RELEASE_RECORD)
    again = Sample.model_validate_json(dump_record(sample))
    assert again == sample
    out = json.loads(dump_record(sample))
    expected = dict(RELEASE_RECORD)
    expected["perturbation"] = {k: v for k, v in RELEASE_RECORD["perturbation"].items() if v is not None}
    assert out == expected


def test_golden_answer_keeps_bfcl_possible_answer_lists():
    g = GoldenAnswer(
        name="mutation_type.find",
        parameters={"snp_id": "rs6034464", "species": "Homo sapiens"},
        acceptable={"snp_id": ["rs6034464"], "species": ["Homo sapiens", ""]},
    )
    assert GoldenAnswer.model_validate_json(dump_record(g)).acceptable == {
        "snp_id": ["rs6034464"],
        "species": ["Homo sapiens", ""],
    }


def test_tool_call_reads_arguments_or_parameters_and_writes_parameters():
    a = ToolCall.model_validate({"name": "f", "arguments": {"x": 1}})
    b = ToolCall.model_validate({"name": "f", "parameters": {"x": 1}})
    assert a == b
    assert json.loads(dump_record(a)) == {"name": "f", "parameters": {"x": 1}}


def test_malformed_jsonl_names_file_and_line(tmp_path: Path):
    p = tmp_path / "bench.jsonl"
    good = json.dumps(RELEASE_RECORD)
    p.write_text(good + "\n" + good[:-5] + "\n")
    with pytest.raises(JsonlError) as err:
        read_jsonl(p, Sample)
    assert f"{p}:2: invalid JSON" in str(err.value)


def test_schema_error_names_the_field(tmp_path: Path):
    bad = dict(RELEASE_RECORD, eval_config={"method": "nope"})
    p = tmp_path / "bench.jsonl"
    p.write_text(json.dumps(RELEASE_RECORD) + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(JsonlError, match=r"bench.jsonl:3: field eval_config.method"):
        read_jsonl(p, Sample)


def test_checkpoint_cuts_a_torn_last_line(tmp_path: Path):
    p = tmp_path / "pred.jsonl"
    sample = Sample.model_validate(RELEASE_RECORD)
    rec = PredictionRecord(**sample.model_dump(), prediction=Prediction(raw_output="[f()]"))
    with JsonlAppender(p) as out:
        out.write(rec)
        out.write(rec)
    with open(p, "a") as fh:
        fh.write('{"id": "half a rec')
    got = read_checkpoint(p, PredictionRecord)
    assert len(got) == 2
    assert p.read_text().endswith("\n")
    with JsonlAppender(p) as out:
        out.write(rec)
    assert len(read_checkpoint(p, PredictionRecord)) == 3


def test_seeded_rng_depends_only_on_seed_and_keys():
    assert seeded_rng(0, "a", "b").random() == seeded_rng(0, "a", "b").random()
    assert seeded_rng(0, "a", "b").random() != seeded_rng(1, "a", "b").random()
    assert seeded_rng(0, "a", "b").random() != seeded_rng(0, "a", "c").random()


@pytest.mark.parametrize(
    "prediction",
    [
        Prediction(raw_output='[mutation_type.find(snp_id="rs6034464")]', latency_s=0.25),
        Prediction(
            raw_output='Ünïcode \u2028 \x7f and "quotes"\n',
            tool_calls=[ToolCall(name="f", arguments={"ключ": [1, 2.5, None]})],
            transition_injected=True,
            pass1_raw_output="x",
            pass1_tool_calls=[],
        ),
        Prediction(error="HTTP 503: busy (gave up after 4 attempts)", error_kind="infra"),
    ],
)
@pytest.mark.parametrize("model", ["openai:m@http://127.0.0.1:1/v1", "", 'mod"el\u00e9'])
def test_prediction_line_is_the_records_own_dump_byte_for_byte(prediction: Prediction, model: str):
    sample = Sample.model_validate(RELEASE_RECORD)
    record = PredictionRecord(**dict(sample), prediction=prediction, model=model)
    assert prediction_line(sample, prediction, model) == dump_record(record)
    # a record given as the sample (a subclass) takes the validating path and still agrees
    again = PredictionRecord(**{**dict(record), "prediction": Prediction()})
    assert prediction_line(again, prediction, model) == dump_record(record)
