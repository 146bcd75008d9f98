# ruff: noqa: E501  (the prompts are verbatim; their lines are the paper's)
"""The paper's two prompts, verbatim and only here: Listing 1 (ToolRM input) and Listing 2 (judge)."""

from __future__ import annotations

import json
import re
from typing import Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.rewards._output import output_calls

TOOLRM_SYSTEM = (
    "You are provided with a user query, a catalog of tools available to fulfill that user query, and a list of "
    "tool calls that use tools available in the catalog to fulfill user request.\n"
    "Your job is to assess whether the tool calls adequately fulfill the user request or not.\n"
    "\n"
    "You have the following tools available:\n"
    "\n"
    "```json\n"
    "{tools}\n"
    "```\n"
)
"""Listing 1, system turn; ``{tools}`` is the catalog as a JSON list, one tool per line."""

JUDGE_PROMPT = """Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. You should choose the assistant that follows the user's instructions and answers the user's question best.

You will be given:
– TOOL SPECIFICATIONS: All the tool specifications including parameters and their descriptions available to the assistant to answer the query.
– CONVERSATION: Conversation between the user and the assistant
– ASSISTANT RESPONSES: List of responses from two assistants – [[A]] and [[B]]. Each response is a sequence of tool calls needed to answer the question.

When comparing two tool call sequences for the same user query, carefully evaluate both sequences and determine which one better follows the tool specifications and the question requirements.

Consider the following instructions to compare the assistant responses:
– Check whether all the tools used are relevant and actually exist.
– Verify that the tools are called in a correct and logical order.
– Ensure that the correct parameters are used for each tool and that no nonexistent parameters are included.
– Confirm that parameter values and formats are appropriate based on the question and tool specifications.
– Make sure all required parameters and data mentioned in the question are included.
– Look for any extra tools or parameters that are not needed or mentioned in the question.

Also, follow these general instructions:
– Begin your evaluation by comparing the two responses (i.e., [[A]] and [[B]]) and provide a short explanation.
– Avoid any position biases and ensure that the order in which the responses were presented does not influence your decision.
– Do not allow the length of the responses to influence your evaluation.
– Do not favor certain names of the assistants.
– Be as objective as possible.
– After providing your explanation, output your final verdict by strictly following this format: "[[A]]" if assistant A's response is better and "[[B]]" if assistant B's response is better.
– STRICTLY follow this output format: [EXPLANATION]\\n{Short comparison highlighting differences and reasoning. }\\n\\n[VERDICT]\\n{[[A]] or [[B]]}. Place your reasoning after the [EXPLANATION] tag and your final choice after the [VERDICT] tag.

# TOOL SPECIFICATIONS
{tool-library}

# CONVERSATION
{query}

# ASSISTANT RESPONSES:
[[A]] {response-A}
[[B]] {response-B}

# ANSWER:
"""
"""Listing 2; the placeholders ``{tool-library}``, ``{query}``, ``{response-A}``, ``{response-B}`` are
replaced by :func:`judge_prompt` (plain string replacement: the template's own braces stay)."""


_PLACEHOLDER = re.compile(r"\{tool-library\}|\{query\}|\{response-A\}|\{response-B\}")


def tools_block(tools: list[dict[str, Any]]) -> str:
    """Listing 1's catalog: a JSON list with one tool per line, indented four spaces."""
    lines = ["    " + json.dumps(t, ensure_ascii=False) for t in tools]
    return "[\n" + ",\n".join(lines) + "\n]"


def toolrm_system(tools: list[dict[str, Any]]) -> str:
    """Listing 1's system turn for ``tools``."""
    return TOOLRM_SYSTEM.replace("{tools}", tools_block(tools))


def toolrm_assistant(calls: list[ToolCall] | None, raw: str) -> str:
    """Listing 1's assistant turn: the calls as ```json [{name: args}, ...]``` (``raw`` when unparsed)."""
    if calls is None:
        return raw
    if not calls:
        return "```json\n[]\n```"  # no call (an irrelevance sample's correct output)
    lines = ["    " + json.dumps({c.name: c.arguments}, ensure_ascii=False) for c in calls]
    return "```json\n[\n" + ",\n".join(lines) + "\n]\n```"


def conversation_text(conversation: list[dict[str, Any]]) -> str:
    """The ``{query}`` of Listing 2: each turn as ``role: content``."""
    return "\n".join(f"{m.get('role', 'user')}: {m.get('content', '')}" for m in conversation)


def judge_prompt(
    tools: list[dict[str, Any]], conversation: list[dict[str, Any]], response_a: str, response_b: str
) -> str:
    """Listing 2 filled in."""
    values = {
        "{tool-library}": json.dumps(tools, ensure_ascii=False),
        "{query}": conversation_text(conversation),
        "{response-A}": response_a,
        "{response-B}": response_b,
    }
    return _PLACEHOLDER.sub(lambda m: values[m.group(0)], JUDGE_PROMPT)  # one pass: filled text is never re-read


def toolrm_messages(
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    output: str,
    tool_specs: list[ToolSpec] | None = None,
) -> list[dict[str, str]]:
    """Listing 1 as chat messages: system (instructions + catalog), the conversation, and the
    output as the final assistant turn; the model's chat template turns them into text."""
    msgs = [{"role": "system", "content": toolrm_system(tools)}]
    msgs += [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in conversation]
    msgs.append({"role": "assistant", "content": toolrm_assistant(output_calls(output, tool_specs), output)})
    return msgs
