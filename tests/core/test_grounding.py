"""Paper 000 Appendix E, Table 5 as data: exact rows, one grounding per type, the cited URLs."""

from __future__ import annotations

from robustcall.core import GROUNDING, REFERENCES, TABLE5, TAXONOMY


def test_table5_has_the_papers_17_rows_in_order() -> None:
    assert [g.type_cell for g in TABLE5] == [
        "Typo", "QueryPara", "ToolPara", "ParamPara", "Dup-*", "RedunTool", "MisDesc", "TimeDesc",
        "MisDesc-N, TimeDesc-N", "MisDesc-Abbr", "TimeDesc-Abbr", "Timeout", "RateLim", "AuthErr", "5xxErr",
        "Malform", "SchemaD",
    ]  # fmt: skip


def test_every_one_of_the_22_types_has_exactly_one_row() -> None:
    covered = [d for g in TABLE5 for d in g.displays]
    assert sorted(covered) == sorted(t.display for t in TAXONOMY)
    assert len(covered) == len(set(covered)) == 22
    assert set(GROUNDING) == {t.display for t in TAXONOMY}


def test_exact_entries() -> None:
    typo = GROUNDING["Typo"]
    assert typo.source == "LlamaIndex #7170 [18]"
    assert typo.summary == "user typo “ocrra”→“occcra” propagates into hallucinated tool name; dispatch crashes"
    assert typo.urls == ("https://github.com/run-llama/llama_index/issues/7170",)
    dup = GROUNDING["Dup-SwapDP"]
    assert dup.type_cell == "Dup-*" and dup.source == "openai-agents-python #1167 [25]"
    assert dup.summary == "two MCP servers register the same tool name; the SDK hangs indefinitely"
    assert GROUNDING["TimeDesc-N"] is GROUNDING["MisDesc-N"]
    assert GROUNDING["MisDesc-N"].urls == ("https://github.com/crystaldba/postgres-mcp/pull/157",)
    # a paper reference ([7]) cites no issue: ToolPara's one URL is LlamaIndex #16757
    tool_para = GROUNDING["ToolPara"]
    assert tool_para.source == "LlamaIndex #16757; [7]" and tool_para.refs == (19, 7)
    assert tool_para.urls == ("https://github.com/run-llama/llama_index/issues/16757",)
    assert REFERENCES[7].url is None
    assert GROUNDING["SchemaD"].summary == "anyOf schema crashes Ollama after a tool-definition update"
    assert GROUNDING["5xxErr"].urls == ("https://github.com/ShishirPatil/gorilla/issues/839",)


def test_every_cited_number_is_in_the_source_cell() -> None:
    for g in TABLE5:
        for n in g.refs:
            assert n in REFERENCES
            # the cell names each reference by its number, or (LlamaIndex #16757; netbox-mcp #79) by its issue
            assert f"[{n}]" in g.source or f"#{REFERENCES[n].title.split('#')[1].split(':')[0]}" in g.source
