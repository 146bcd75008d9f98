"""Issue 43 item 7: a span's literal reading is reused, never changed. A tag's body is read in place
in the whole text (``_bounds.note_slice``), and the lists and dicts a failed literal reading read
whole are kept as their own spans' readings (``_literalreader._failed_at``). Both only skip work:
with them turned off, every text parses to the same calls, variant, drops and refusal."""

from __future__ import annotations

import random

import pytest
from fuzz_inputs import ADVERSARIAL, FRAGMENTS, one_input

import robustcall.formats._bounds as bounds
import robustcall.formats._literalreader as literalreader
import robustcall.formats._tags as tags
from robustcall.formats import OUTPUT_FORMATS, parse_tool_calls
from robustcall.formats._parse import forget_texts


def _texts() -> list[str]:
    rng = random.Random(43)
    out = [one_input(rng) for _ in range(1_500)]
    for shape in ("json_specials_list", "json_specials_calls", "repeated_keys_tag", "value_deep_inside"):
        out += [ADVERSARIAL[shape](k) for k in (1_000, 10_000)]
    out += [
        '{"name": "f", "arguments": {"a": [1, {"b": [2, 3]}, "x"], "c": {"d": 1}}, x}',
        '<tool_call>\n{"name": "f", "arguments": {"a": [1, 2], "b": {"c": 3},}}\n</tool_call> and {"k": [1, 2]} x',
        '<tool_call>{"name": "f", "arguments": {"a": [NaN, 1e400]}} }</tool_call><tool_call>[{"a": 1}, x]</tool_call>',
        '[{"a": [1, 2]}, {"b": (1)}, {"c": [3]}]',
        "{'a': [1, 2], 'b': f(x=[3, 4], y={'z': 5}), 'c': 1(}",
        '{"a": 1(, "b": [2]}',
        *(f"{a} {b}" for a in FRAGMENTS[:6] for b in FRAGMENTS[:6]),
    ]
    return out


def _parse_all(texts: list[str]) -> list[tuple[object, ...]]:
    out = []
    for text in texts:
        for fmt in OUTPUT_FORMATS:
            forget_texts()
            got = parse_tool_calls(text, fmt)
            out.append((repr(got.calls), got.variant, tuple(got.dropped), got.refused))
    return out


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
def test_reusing_span_readings_changes_no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    with_reuse = _parse_all(texts)
    monkeypatch.setattr(tags, "note_slice", lambda part, text, offset: None)
    monkeypatch.setattr(literalreader, "span_memo", lambda: None)
    assert _parse_all(texts) == with_reuse


def test_a_failed_reading_keeps_the_brackets_it_read_whole() -> None:
    text = '{"name": "f", "arguments": {"a": [1, 2], "b": {"c": 3},}, x}'
    outer = bounds.start_work(len(text))
    try:
        got, at = literalreader.read_literal_at(text, 0, len(text))
        memo = bounds.span_memo()
        assert memo is not None
        kept = {(start, stop): reading for (key, start, stop), (_, reading) in memo.items() if key == id(text)}
    finally:
        bounds.end_work(outer)
    assert got is None and at == text.index("x}") + 1  # the key x is read; the closer is no ":"
    assert kept == {
        (33, 39): (([1, 2],), -1),
        (46, 54): (({"c": 3},), -1),
        (27, 56): (({"a": [1, 2], "b": {"c": 3}},), -1),
    }
    for (start, stop), reading in kept.items():  # each is what the span read alone gives
        assert literalreader.read_literal_at(text, start, stop) == reading
