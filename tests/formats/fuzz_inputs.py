"""Generated hostile model answers for the parser fuzz test (tests/formats/test_fuzz.py) and the
large fuzz run (benchmarks/fuzz_parser.py): fragments of every output format, broken and nested,
big numbers, and payloads that would leave a trace if anything ever executed them."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

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
)

_FRAGMENTS = (
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


def one_input(rng: random.Random) -> str:
    """One generated answer (mostly under 2 KB; now and then a big number, deep nesting, a repeat)."""
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
            parts.append(rng.choice(_FRAGMENTS))
    text = "".join(parts)
    if rng.random() < 0.3:  # wrap as a call so the readers get far
        name = rng.choice(("f", "get_weather", "g.h"))
        text = f"[{name}(a={text})]" if rng.random() < 0.5 else f'{{"name": "{name}", "arguments": {{"a": {text}}}}}'
    return text


def inputs(seed: int, n: int) -> list[tuple[str, str]]:
    """``n`` (text, output format) pairs from ``seed`` (the same seed gives the same list)."""
    rng = random.Random(seed)
    return [(one_input(rng), rng.choice(_FORMATS)) for _ in range(n)]
