"""``robustcall types`` and the HTML report's type legend show Table 5 (paper 000, Appendix E)."""

from __future__ import annotations

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import TAXONOMY, TYPES
from robustcall.report import legend_html, types_table
from robustcall.report._write import _page

runner = CliRunner()


def test_types_table_rows() -> None:
    table = types_table()
    assert len(table.rows) == 22
    assert table.rows[0] == [
        "Typo",
        "realistic_typos",
        "observation",
        "LlamaIndex #7170 [18]",
        "user typo “ocrra”→“occcra” propagates into hallucinated tool name; dispatch crashes",
        "https://github.com/run-llama/llama_index/issues/7170",
    ]
    assert table.rows[16][:4] == ["Timeout", "transient_timeout", "transition", "langchain #35597 [14]"]
    beyond = types_table(beyond=True)
    assert beyond.rows[22][:5] == ["FabObs", "fabricated_observation", "reward", "Appendix N (beyond the paper)", ""]


def test_types_command_markdown_and_table5_csv() -> None:
    res = runner.invoke(app, ["types"])
    assert res.exit_code == 0, res.output
    assert (
        "| MisDesc-Abbr | CD_AB | reward | netbox-mcp #79; [7] | abbreviation amplifies the MisDesc failure; "
        "surface-naming bias is the documented mechanism | https://github.com/netboxlabs/netbox-mcp-server/issues/79 |"
    ) in res.output
    res = runner.invoke(app, ["types", "--table5", "--format", "csv"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "Type,Source,Failure summary"
    assert len(lines) == 18
    assert lines[9] == (
        '"MisDesc-N, TimeDesc-N",crystaldba/postgres-mcp #157 [5],nine sibling tools with vague descriptions; '
        "LLM picks the wrong sibling; fixed by “do not use when...” clauses"
    )


def test_types_command_refuses_an_unknown_format_in_one_line() -> None:
    res = runner.invoke(app, ["types", "--format", "latex"])
    assert res.exit_code == 1
    assert res.output.strip() == "error: --format must be one of markdown, csv, not 'latex'"


def test_html_legend_links_the_issues() -> None:
    page = legend_html(TAXONOMY)
    assert page.count("<tr><td>") == 22
    assert (
        "<tr><td>AuthErr</td><td><code>transient_auth_error</code></td><td>transition</td>"
        "<td style='text-align:left'>langchain #29596 [12]<br><a href='https://github.com/langchain-ai/langchain/"
        "issues/29596'>langchain-ai/langchain/issues/29596</a></td><td style='text-align:left'>missing "
        "Authorization header causes silent 401</td></tr>"
    ) in page
    # a row citing a paper as well links only the issue
    assert "LlamaIndex #16757; [7]<br><a href='https://github.com/run-llama/llama_index/issues/16757'>" in page
    assert "<td>NoOp</td>" not in page and "<td>NoOp</td>" in legend_html([*TAXONOMY, TYPES["silent_noop"]])


def test_report_page_carries_the_legend() -> None:
    page = _page([], [], {}, [], {})
    assert "<h2>Perturbation types</h2>" in page
    assert page.index("<h2>Figures</h2>") < page.index("<h2>Perturbation types</h2>")
    assert "openai-agents-python/issues/1167" in page
