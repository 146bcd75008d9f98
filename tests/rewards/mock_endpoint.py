"""An OpenAI-compatible chat endpoint for the rm CLI tests: judge prompts get ``[VERDICT] [[A]]``;
other requests get one of ``replies`` chosen by the request's ``seed`` (0 without one), with a
log-probability when ``logprobs`` is asked for."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import completion, serve_chat


@contextmanager
def mock_endpoint(replies: list[str]) -> Iterator[str]:
    async def by_seed(body: dict[str, Any]) -> dict[str, Any]:
        seed = int(body.get("seed", 0))
        if "impartial judge" in body["messages"][-1]["content"]:
            return completion("[EXPLANATION]\nA is better.\n\n[VERDICT]\n[[A]]")
        logprob = -float(seed % 7) if body.get("logprobs") else None
        return completion(replies[seed % len(replies)], logprob)

    with serve_chat(by_seed) as url:
        yield url
