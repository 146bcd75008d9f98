"""Generated hostile model answers, and how one is parsed, scored and timed, for the parser fuzz test
(tests/formats/test_fuzz.py) and the large fuzz run (benchmarks/fuzz_parser.py, which runs without
pytest): fragments of every output format, broken and nested,
big numbers, and payloads that would leave a trace if anything ever executed them."""

from __future__ import annotations

import importlib.abc
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec
from robustcall.formats import parse_tool_calls, read_tool_calls
from robustcall.formats._parse import forget_texts
from robustcall.score import SampleScorer

CANARY_MODULE = "robustcall_fuzz_canary"
"""A module name only an executed payload would import (the fuzz run watches imports)."""
CANARY_FILE = Path(tempfile.gettempdir()) / "robustcall_fuzz_canary"
"""A file only an executed payload would create."""

_FORMATS = ("bfcl", "tool_call", "react", "json")

PAYLOADS = (
    f"__import__('os').system('touch {CANARY_FILE}')",
    f"__import__('{CANARY_MODULE}')",
    f"open('{CANARY_FILE}', 'w').write('x')",
    f'exec("import {CANARY_MODULE}")',
    f"eval(\"__import__('{CANARY_MODULE}')\")",
    f"(lambda: __import__('{CANARY_MODULE}'))()",
    f"[x for x in __import__('{CANARY_MODULE}').y]",
    f"f'{{__import__(\"{CANARY_MODULE}\")}}'",
    f"getattr(__builtins__, 'exec')('import {CANARY_MODULE}')",
    "__import__('pickle').loads(b'')",
    f"__import__('pickle').loads(b\"cos\\nsystem\\n(S'touch {CANARY_FILE}'\\ntR.\")",
    f"__import__('os').popen('touch {CANARY_FILE}')",
)

FRAGMENTS = (
    "[", "]", "(", ")", "{", "}", ",", ":", "=", "'", '"', "\\", "\n", " ", "  ", "\t",
    "f(", "g.h(", "get_weather(", "a=", "b=", "city=", '"Paris"', "'x'", "1", "-2", "3.5", "1e9",
    "1e999", "-1e999", "nan", "inf", "True", "False", "None", "null", "true", "//", "/", "*", "+",
    "%", "**", "0", "0x1f", "1_000", "...", "lambda x: x", "[f(a=1)]", "[f(a=1), g(b='2')]",
    '{"name": "f", "arguments": {"a": 1}}', '{"name": "f", "parameters": "{\\"a\\": 1}"}',
    '{"function": {"name": "f", "arguments": "{}"}}', '{"tool_calls": [', "<tool_call>",
    "</tool_call>", "<tool>f</tool>", '<tool name="f" parameters={"a": 1}/>', "<toolcall tool=\"f\">",
    "<think>", "</think>", "```", "```python\n", "```json\n", "Action: f\n", "Action Input: ",
    "ActionCode: f\n", "Thought: ", "Function: f\nParameters: ", "f?a=1&b=2", "func_name=\"f\"",
    "params={", "é", "\u202e", "\x00", "\ud7ff", "𝓍",
)  # fmt: skip


def _number(rng: random.Random) -> str:
    digits = rng.choice((1, 3, 20, 400, 4_299, 4_301, 5_000))
    body = "9" * digits if rng.random() < 0.5 else "".join(rng.choice("0123456789") for _ in range(digits))
    return rng.choice(("", "-")) + body + rng.choice(("", ".5", "e5", "e400", "/1", "//3", "*" + body[:50]))


def _nested(rng: random.Random) -> str:
    depth = rng.choice((10, 99, 101, 255, 300, 1_000, 3_000))
    opener = rng.choice(("[", '{"a": ', "(", "f(a=", "[f(a="))
    closer = {"[": "]", '{"a": ': "}", "(": ")", "f(a=": ")", "[f(a=": ")]"}[opener]
    inner = opener * depth + "1" + (closer * depth if rng.random() < 0.7 else "")
    return inner


def _repeated(rng: random.Random) -> str:
    unit = rng.choice(("[f(", "f(", "{", "[1,", "<tool_call>", "<think>", "'[f(", "<tool>f</tool>{", "Action: f\n"))
    return unit * rng.choice((10, 100, 1_000))


def _cols(k: int) -> str:
    return ", ".join(f"a{i}: {i}" for i in range(k))


PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    "hash_rule": lambda k: "[f(" + "#" * k + ")]",
    "hash_rule_spaced": lambda k: "[f(" + "# " * (k // 2) + ")]",
    "cut_off_comments": lambda k: "[f(a=1, " + "# ####\n" * (k // 7),
    "comma_comments": lambda k: "[f(a" + ",#" * (k // 2) + ")]",
    "name_comments": lambda k: "[f(" + "x #" * (k // 3) + ")]",
    "quote_brackets": lambda k: '"' + "[" * k,
    "apostrophe_braces": lambda k: "'" + "{" * k,
    "quoted_openers": lambda k: '["' * (k // 2),
    "colon_args_open": lambda k: "[f(" + _cols(k // 7),
    "colon_args": lambda k: "[f(" + _cols(k // 7) + ")]",
    "open_strings": lambda k: "[f(a=" + "'\\" * (k // 2),
    "triple_quotes": lambda k: "'''" * (k // 3),
    "action_blanks": lambda k: "Action: f" + " " * k + "x\nAction Input: {}",
    "function_blanks": lambda k: "Function: f" + "\t " * (k // 2) + "x\nParameters: {}",
    "query_pairs": lambda k: "f?" + "a=1&" * (k // 4),
    "unclosed_tags": lambda k: "<tool_call>" * (k // 11),
    "fences": lambda k: "```" * (k // 3),
    "many_calls": lambda k: "f(a=1) " * (k // 7),
    "call_list": lambda k: "[" + ", ".join(["f(a=1)"] * (k // 8)) + "]",
    "not_calls": lambda k: "[" + "x.y," * (k // 4) + "]",
    "nested_not_json": lambda k: "[" * 90 + "1," * (k // 2) + "x" + "]" * 90,
    "unreadable_argument": lambda k: "[f(a=" + "x+" * (k // 2) + "1)]",
}
"""Shapes that were slow on some reader (issue 30: a ``#`` rule inside a call backtracked for hours,
a quote before many ``[`` grew as n^1.5, long colon-separated calls tokenized in quadratic time),
or that make the readers do the most work per character, as functions of a length."""
PATHOLOGICAL_SIZES = (300, 3_000, 30_000, 99_000)


def _nest(kinds: str, depth: int, fill: str = "", close: bool = True) -> str:
    """``depth`` openers cycling through ``kinds``, ``fill``, then their closers (when ``close``)."""
    opens = "".join(kinds[i % len(kinds)] for i in range(depth))
    closes = "".join({"(": ")", "[": "]", "{": "}"}[c] for c in reversed(opens)) if close else ""
    return opens + fill + closes


_SPECIALS = ("NaN", "Infinity", "1e400")
"""Numbers Python's JSON decoder reads (JSON itself has none of them): NaN, inf and inf."""


def _special_call(chars: int) -> str:
    """A call whose argument is a list of :data:`_SPECIALS`, about ``chars`` characters of them."""
    return '{"name": "f", "arguments": {"a": [' + ", ".join(_SPECIALS[i % 3] for i in range(max(1, chars // 8))) + "]}}"


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "quote_braces": lambda k: "'" + _nest("{", k // 2),
    "dquote_braces": lambda k: '"' + _nest("{", k // 2),
    "dquote_brackets": lambda k: '"' + _nest("[", k // 2),
    "quote_parens": lambda k: "'" + _nest("(", k // 2),
    "kwarg_braces": lambda k: "It's f(k=" + _nest("{", k // 2 - 6) + ")",
    "kwarg_brackets": lambda k: "It's f(k=" + _nest("[", k // 2 - 6) + ")",
    "quote_every_kind": lambda k: "'" + _nest("([{", k // 2),
    "quote_every_kind_open": lambda k: "'" + _nest("{[(", k - 1, close=False),
    "digits": lambda k: "7" * k,
    "digits_in_call": lambda k: "[f(a=" + "7" * (k - 8) + ")]",
    "bracket_runs": lambda k: (
        "'" + ("[" * 3_000 + "]" * 3_000 + "{" * 3_000 + "}" * 3_000 + "(" * 3_000 + ")" * 3_000) * (k // 18_000 + 1)
    )[:k],
    "value_deep_inside": lambda k: "'" + _nest("[", k // 4, '{"name": "f", "arguments": {"a": 1}}'),
    "failure_deep_inside": lambda k: "'" + "[1, " * (k // 5) + "x+" + "]" * (k // 5),
    "nested_colons": lambda k: "'" + "{a: " * (k // 5) + "}" * (k // 5),
    "nested_hashes": lambda k: "'" + "[# " * (k // 4) + "]" * (k // 4),
    "nested_escapes": lambda k: "'" + '["\\' * (k // 5) + "]" * (k // 5),
    "nested_kwargs": lambda k: "'" + "f(a=" * (k // 5) + ")" * (k // 5),
    "nested_strings": lambda k: "'" + "{'a': [\"" * (k // 10) + "]}" * (k // 10),
    "name_subscripts": lambda k: "'" + "[x " * (k // 4) + "]" * (k // 4),
    "subscript_chains": lambda k: ("[x " * 99 + "]" * 99) * (k // 396),
    "dict_chains": lambda k: ("{'a': " * 99 + "1" + "}" * 99 + " x ") * (k // 700),
    "fenced_nesting": lambda k: "```json\n'" + _nest("{", k // 2 - 10) + "\n```",
    "tagged_nesting": lambda k: "<tool_call>'" + _nest("[", k // 2 - 14) + "</tool_call>",
    "tag_attr_nesting": lambda k: "<tool name='f' parameters=" + _nest("{", k // 2 - 20) + "/>",
    "react_nesting": lambda k: "Action: f\nAction Input: '" + _nest("{", k // 2 - 20),
    # at the bracket bound (MAX_BRACKETS: more brackets are refused unread), the rest dense tokens
    "bound_quote_tokens": lambda k: "'" + _nest("[", min(k // 4, 4_990), "1," * ((k - 2 * min(k // 4, 4_990)) // 2)),
    "bound_kwarg_prose": lambda k: (
        "It's f(k=" + _nest("{", min(k // 4, 4_990), " word" * ((k - 2 * min(k // 4, 4_990)) // 5)) + ")"
    ),
    "bound_fragments": lambda k: ('[f(a=1)] \'[{"a": ' * min(k // 17, 1_600) + " word" * k)[:k],
    # issue 43: a long value inside a span that fails at its last characters, read once (the
    # JSON decoder fails at the trailing comma; Python reads NaN as a name, 1e400 as inf)
    "json_specials_list": lambda k: (
        '{"name": "f", "arguments": {"a": [' + ", ".join(_SPECIALS[i % 3] for i in range((k - 40) // 8)) + ", ]}, x}"
    ),
    "json_specials_calls": lambda k: "[" + ", ".join([_special_call(60)] * min(k // 100, 999)) + ", }]",
    "repeated_keys_tag": lambda k: (
        '<tool_call>\n{"name": "f", "arguments": {' + '"a":1, ' * ((k - 60) // 7) + '"a": }}\n</tool_call>'
    ),
}
"""Shapes of issue 34 and its family: an opened, never closed quote (which hides the brackets after
it from the depth bound's scan) before deep nestings of every bracket kind, with colons, hashes,
escapes, digits, keyword arguments and strings inside, inside a code fence, a tag or a ReAct step;
values and failures far inside; chains of spans that each fail for a reason of their own; long
values (JSON ``NaN`` / ``Infinity`` / ``1e400`` in many calls, 12,500 repeated keys in a tag) inside
a span that fails at its end (issue 43). As
functions of a length (1 KB, 10 KB and 99 KB in the tests and the benchmark)."""
ADVERSARIAL_SIZES = (1_000, 10_000, 99_000)

PATHOLOGICAL.update(ADVERSARIAL)


def adversarial(rng: random.Random) -> str:
    """One of :data:`ADVERSARIAL` at one of :data:`ADVERSARIAL_SIZES`, now and then between fragments
    of another format (at most 99,900 characters)."""
    text = ADVERSARIAL[rng.choice(sorted(ADVERSARIAL))](rng.choice(ADVERSARIAL_SIZES))
    if rng.random() < 0.3:
        text = rng.choice(FRAGMENTS) + text + rng.choice(FRAGMENTS)
    return text[:99_900]


def pathological(rng: random.Random) -> str:
    """One of :data:`PATHOLOGICAL` at one of :data:`PATHOLOGICAL_SIZES`, now and then between
    fragments of another format (at most 100 KB: longer texts are refused unread)."""
    text = PATHOLOGICAL[rng.choice(sorted(PATHOLOGICAL))](rng.choice(PATHOLOGICAL_SIZES))
    if rng.random() < 0.3:
        text = rng.choice(FRAGMENTS) + text + rng.choice(FRAGMENTS)
    return text[:99_900]


def one_input(rng: random.Random) -> str:
    """One generated answer (mostly under 2 KB; now and then a big number, deep nesting, a repeat,
    or, one in a hundred each, a pathological or an adversarial shape of up to 100 KB)."""
    if rng.random() < 0.01:
        return pathological(rng)
    if rng.random() < 0.01:
        return adversarial(rng)
    kind = rng.random()
    if kind < 0.04:
        return _nested(rng)
    if kind < 0.07:
        return _repeated(rng)
    parts: list[str] = []
    for _ in range(rng.randint(1, 40)):
        r = rng.random()
        if r < 0.08:
            parts.append(rng.choice(PAYLOADS))
        elif r < 0.12:
            parts.append(_number(rng))
        else:
            parts.append(rng.choice(FRAGMENTS))
    text = "".join(parts)
    if rng.random() < 0.3:  # wrap as a call so the readers get far
        name = rng.choice(("f", "get_weather", "g.h"))
        text = f"[{name}(a={text})]" if rng.random() < 0.5 else f'{{"name": "{name}", "arguments": {{"a": {text}}}}}'
    return text


def inputs(seed: int, n: int) -> list[tuple[str, str]]:
    """``n`` (text, output format) pairs from ``seed`` (the same seed gives the same list)."""
    rng = random.Random(seed)
    return [(one_input(rng), rng.choice(_FORMATS)) for _ in range(n)]


class Canary(importlib.abc.MetaPathFinder):
    """Records any attempt to import the canary module (only executed model text would)."""

    def __init__(self) -> None:
        self.hits: list[str] = []

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if fullname.split(".")[0] == CANARY_MODULE:
            self.hits.append(fullname)
        return None


def fuzz_sample(fmt: str) -> Sample:
    tool = ToolSpec(
        name="f",
        description="f.",
        parameters={"type": "dict", "properties": {"a": {"type": "integer", "description": "a"}}, "required": ["a"]},
    )
    return Sample(
        id=f"fuzz_{fmt}",
        benchmark="bfcl_v3",
        category="simple",
        source=SourceInfo(original_id="fuzz", benchmark="bfcl_v3"),
        conversation=[Message(role="user", content="call f")],
        tools=[tool],
        golden_answers=[GoldenAnswer(name="f", parameters={"a": 1}, acceptable={"a": [1]})],
        eval_config=EvalConfig(method="bfcl_ast", output_format=fmt),  # type: ignore[arg-type]
    )


def check(text: str, fmt: Any, scorers: dict[str, SampleScorer]) -> float:
    """Parse and score one input as a new answer (the readers' tables of earlier texts dropped: an
    equal text parsed again would find its scans); returns the CPU seconds it took (this process's
    CPU time, so that other work on a shared machine does not count; raises whatever the parser
    raises).
    BFCL text goes through the batch scorer's reader (its fast paths first), the rest through
    ``parse_tool_calls``."""
    forget_texts()  # a new answer's cost: no bracket table kept from a parse of the same text
    t0 = time.process_time()
    scorer = scorers[fmt]
    if fmt == "bfcl":
        calls = read_tool_calls(text, fmt, scorer.sample.tools)
    else:
        got = parse_tool_calls(text, fmt, scorer.sample.tools)
        assert not (got.refused and got.calls)
        calls = [(c.name, c.arguments) for c in got.calls]
    scorer.judge(text, calls)
    return time.process_time() - t0
