"""Paper 000, Appendix E, Table 5: the production failure that grounds each perturbation type.

Transcribed verbatim (``Type``, ``Source``, ``Failure summary`` cells); the paper's italics
(``<i>…</i>`` in the text) are dropped, the words kept. Each row also names the taxonomy's display
names it covers (``Dup-*`` is the five ``Dup-`` types; ``MisDesc-N, TimeDesc-N`` two) and the
bibliography entries its ``Source`` cites, with their URLs (the paper's reference list).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    """One bibliography entry of paper 000 that Table 5 cites."""

    number: int
    """The paper's reference number, ``[n]``."""
    title: str
    """The entry as the reference list gives it (authors, title, year)."""
    url: str | None
    """The GitHub issue or pull request; ``None`` for a paper ([7])."""


REFERENCES: dict[int, Reference] = {
    r.number: r
    for r in (
        Reference(
            5,
            "crystaldba contributors. crystaldba/postgres-mcp PR #157: Disambiguation clauses for sibling tools, 2025.",
            "https://github.com/crystaldba/postgres-mcp/pull/157",
        ),
        Reference(
            7,
            "Kazem Faghieh, Wenxiao Wang, Yize Cheng, Siddhant Bharti, Gaurang Sriramanan, Sriram Balasubramanian, "
            "Parsa Hosseini, and Soheil Feizi. Tool preferences in agentic llms are unreliable. In Proceedings of "
            "the 2025 Conference on Empirical Methods in Natural Language Processing, pages 20965–20980, 2025.",
            None,
        ),
        Reference(
            8,
            "Gorilla contributors. Gorilla/BFCL issue #839: vllm server disconnects mid-inference, 2025.",
            "https://github.com/ShishirPatil/gorilla/issues/839",
        ),
        Reference(
            9,
            "Grafana Loki MCP contributors. grafana/loki-mcp issue #27: Parameter description “1h ago” fails "
            "parser, 2025.",
            "https://github.com/grafana/loki-mcp/issues/27",
        ),
        Reference(
            12,
            "LangChain contributors. langchain issue #29596: Missing authorization header causes silent 401, 2025.",
            "https://github.com/langchain-ai/langchain/issues/29596",
        ),
        Reference(
            13,
            "LangChain contributors. langchain issue #34746: Ollama returns malformed json; tool call dropped, 2025.",
            "https://github.com/langchain-ai/langchain/issues/34746",
        ),
        Reference(
            14,
            "LangChain contributors. langchain issue #35597: Default request_timeout=None causes agent hang, 2025.",
            "https://github.com/langchain-ai/langchain/issues/35597",
        ),
        Reference(
            15,
            "LangChain contributors. langchain issue #36032: anyOf schema crashes ollama after definition update, "
            "2025.",
            "https://github.com/langchain-ai/langchain/issues/36032",
        ),
        Reference(
            18,
            "LlamaIndex contributors. LlamaIndex issue #7170: Tool name typo from user query crashes dispatcher, 2023.",
            "https://github.com/run-llama/llama_index/issues/7170",
        ),
        Reference(
            19,
            "LlamaIndex contributors. LlamaIndex issue #16757: Query paraphrase routes to wrong tool, 2024.",
            "https://github.com/run-llama/llama_index/issues/16757",
        ),
        Reference(
            21,
            "Microsoft Semantic Kernel contributors. microsoft/semantic-kernel issue #13690: Silent mid-session tool "
            "swap with abbreviated descriptions, 2025.",
            "https://github.com/microsoft/semantic-kernel/issues/13690",
        ),
        Reference(
            22,
            "NetBox Labs. netbox-mcp-server issue #79: Misleading filter description silently returns all records, "
            "2025.",
            "https://github.com/netboxlabs/netbox-mcp-server/issues/79",
        ),
        Reference(
            25,
            "openai-agents-python contributors. openai-agents-python issue #1167: Same-named tools across mcp "
            "servers cause sdk hang, 2025.",
            "https://github.com/openai/openai-agents-python/issues/1167",
        ),
        Reference(
            26,
            "OpenAI Python contributors. openai-python issue #2699: Rate-limit asymmetry across endpoints, 2025.",
            "https://github.com/openai/openai-python/issues/2699",
        ),
        Reference(
            37,
            "Sierra Research. tau-bench issue #39: Tool description vs. implementation mismatch, 2025.",
            "https://github.com/sierra-research/tau-bench/issues/39",
        ),
    )
}
"""The bibliography entries Table 5 cites, by number, verbatim from the reference list."""


@dataclass(frozen=True)
class Grounding:
    """One row of Table 5."""

    type_cell: str
    """The ``Type`` cell as printed (``Dup-*``, ``MisDesc-N, TimeDesc-N``, ``Typo``, ...)."""
    displays: tuple[str, ...]
    """The taxonomy display names the row covers (``core.TAXONOMY``)."""
    source: str
    """The ``Source`` cell as printed."""
    summary: str
    """The ``Failure summary`` cell as printed (italics dropped)."""
    refs: tuple[int, ...]
    """The bibliography numbers the ``Source`` cell cites (:data:`REFERENCES`)."""

    @property
    def urls(self) -> tuple[str, ...]:
        """The cited GitHub issues' URLs, in citation order (a paper reference has none)."""
        return tuple(u for u in (REFERENCES[n].url for n in self.refs) if u is not None)


_DUP = ("Dup-NoDesc", "Dup-Desc", "Dup-WrongP", "Dup-DescWP", "Dup-SwapDP")

TABLE5: tuple[Grounding, ...] = (
    # Observation perturbations (4 types)
    Grounding(
        "Typo",
        ("Typo",),
        "LlamaIndex #7170 [18]",
        "user typo “ocrra”→“occcra” propagates into hallucinated tool name; dispatch crashes",
        (18,),
    ),
    Grounding(
        "QueryPara",
        ("QueryPara",),
        "LlamaIndex #16757 [19]",
        "query “summarise the document” routes to vector_doc (search) instead of list_doc ; fixed by editing "
        "tool descriptions",
        (19,),
    ),
    Grounding(
        "ToolPara",
        ("ToolPara",),
        "LlamaIndex #16757; [7]",
        "paraphrasing tool descriptions changes selection; [7] measure 10× usage variance",
        (19, 7),
    ),
    Grounding(
        "ParamPara",
        ("ParamPara",),
        "grafana/loki-mcp #27 [9]",
        "parameter description lists “1h ago” default; agents send the literal string but parser only accepts "
        "- 1h/RFC3339/now",
        (9,),
    ),
    # Action perturbations (6 types)
    Grounding(
        "Dup-*",
        _DUP,
        "openai-agents-python #1167 [25]",
        "two MCP servers register the same tool name; the SDK hangs indefinitely",
        (25,),
    ),
    Grounding(
        "RedunTool",
        ("RedunTool",),
        "tau-bench #39 [37]",
        "“direct flights” tool description vs. one-stop-flights implementation; agent picks the wrong sibling",
        (37,),
    ),
    # Reward perturbations (6 types)
    Grounding(
        "MisDesc",
        ("MisDesc",),
        "netbox-mcp-server #79 [22]",
        "misleading filter description silently returns all records instead of the filtered subset",
        (22,),
    ),
    Grounding(
        "TimeDesc",
        ("TimeDesc",),
        "tau-bench #39 [37]; [7]",
        "description-vs-implementation mismatch (search_onestop_flight described as “direct flights”, a "
        "speed/time implication); we cite [7] for the general description-wording mechanism that TimeDesc "
        "stress-tests",
        (37, 7),
    ),
    Grounding(
        "MisDesc-N, TimeDesc-N",
        ("MisDesc-N", "TimeDesc-N"),
        "crystaldba/postgres-mcp #157 [5]",
        "nine sibling tools with vague descriptions; LLM picks the wrong sibling; fixed by “do not use when...” "
        "clauses",
        (5,),
    ),
    Grounding(
        "MisDesc-Abbr",
        ("MisDesc-Abbr",),
        "netbox-mcp #79; [7]",
        "abbreviation amplifies the MisDesc failure; surface-naming bias is the documented mechanism",
        (22, 7),
    ),
    Grounding(
        "TimeDesc-Abbr",
        ("TimeDesc-Abbr",),
        "semantic-kernel #13690 [21]; [7]",
        "tool integrity verification gap (MCP servers can swap tools mid-session); we synthesize the time + "
        "abbreviation case as a stress-test of the description-wording mechanism in [7]",
        (21, 7),
    ),
    # Transition perturbations (6 types)
    Grounding(
        "Timeout",
        ("Timeout",),
        "langchain #35597 [14]",
        "default request_timeout=None causes agents to hang indefinitely",
        (14,),
    ),
    Grounding(
        "RateLim",
        ("RateLim",),
        "openai-python #2699 [26]",
        "undocumented HTTP 429 asymmetry across endpoints",
        (26,),
    ),
    Grounding(
        "AuthErr",
        ("AuthErr",),
        "langchain #29596 [12]",
        "missing Authorization header causes silent 401",
        (12,),
    ),
    Grounding(
        "5xxErr",
        ("5xxErr",),
        "Gorilla #839 [8]",
        "vLLM disconnects mid-inference during BFCL evaluation",
        (8,),
    ),
    Grounding(
        "Malform",
        ("Malform",),
        "langchain #34746 [13]",
        "Ollama returns malformed JSON; tool call silently dropped",
        (13,),
    ),
    Grounding(
        "SchemaD",
        ("SchemaD",),
        "langchain #36032 [15]",
        "anyOf schema crashes Ollama after a tool-definition update",
        (15,),
    ),
)
"""Table 5's 17 rows in the paper's order; together they cover the 22 types once each."""

GROUNDING: dict[str, Grounding] = {display: row for row in TABLE5 for display in row.displays}
"""Table 5's row for each of the 22 display names."""
