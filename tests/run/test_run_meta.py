"""``run.json`` as ``robustcall run`` writes it: the resolved mode and every model setting used, the
format, release and scorer versions; a resume of a run whose ``run.json`` predates them (format 0)
goes on under the same identity rule, and one written in a newer format is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mock_openai import completion, serve_chat, write_capital_bench
from typer.testing import CliRunner

from robustcall import __version__
from robustcall.cli.main import app
from robustcall.core import FORMAT_VERSION, SCORER_VERSION, read_run_meta

runner = CliRunner()


def _run(bench: Path, out: Path, url: str, *extra: str) -> Any:
    args = ["run", "--bench", str(bench), "--out", str(out), "--types", "clean", "--mode", "fc", "--limit", "2"]
    return runner.invoke(app, [*args, "--model", f"openai:mock@{url}", "--concurrency", "1", *extra])


def test_run_json_records_the_settings_used_and_resumes_from_an_old_one(tmp_path: Path) -> None:
    bench = write_capital_bench(tmp_path / "bench", 4)

    async def answer(body: dict[str, Any]) -> dict[str, Any]:
        return completion("[capital_0(country='C0')]")

    out = tmp_path / "run"
    settings = tmp_path / "settings.yaml"
    settings.write_text("mock:\n  max_retries: 2\n  timeout_s: 30\n  tool_choice: auto\n")
    with serve_chat(answer) as url:
        first = _run(bench, out, url, "--settings", str(settings))
        assert first.exit_code == 0, first.output
        data = json.loads((out / "run.json").read_text())
        assert (data["format_version"], data["robustcall_version"], data["scorer_version"]) == (
            FORMAT_VERSION,
            __version__,
            SCORER_VERSION,
        )
        assert (data["mode"], data["order"]) == ("fc", "sample")  # `run`'s default order
        used = data["model_settings"]
        assert (used["mode"], used["max_retries"], used["timeout_s"], used["tool_choice"]) == ("fc", 2, 30.0, "auto")
        assert (used["temperature"], used["max_tokens"]) == (0.0, 1024)
        assert data["answer_settings"] == {"temperature": 0.0, "max_tokens": 1024, "extra_body": {}}

        # the run.json of a release before versions and model_settings (format 0)
        old = {k: v for k, v in data.items() if k not in ("format_version", "robustcall_version", "scorer_version")}
        del old["model_settings"]
        (out / "run.json").write_text(json.dumps(old))
        assert read_run_meta(out).format_version == 0
        refused = _run(bench, out, url, "--resume", "--settings", str(settings), "--mode", "prompt")
        assert refused.exit_code == 1 and "different mode" in refused.output, refused.output
        again = _run(bench, out, url, "--resume", "--settings", str(settings))
        assert again.exit_code == 0 and "already done 2" in again.output, again.output
        meta = read_run_meta(out)
        assert (meta.format_version, meta.model_settings is not None, meta.endpoint_history) == (
            FORMAT_VERSION,
            True,
            [url],
        )

        # a newer format is not resumed over
        (out / "run.json").write_text(json.dumps({**data, "format_version": FORMAT_VERSION + 1}))
        newer = _run(bench, out, url, "--resume", "--settings", str(settings))
        assert newer.exit_code == 1, newer.output
        assert f"with run format {FORMAT_VERSION + 1}; this robustcall ({__version__}) reads up to" in " ".join(
            newer.output.split()
        )
        assert "Traceback" not in newer.output
