"""Best-of-n inside an episode: a ``ChatModel`` that draws n answers per step and keeps one.

ToolRM's Table 2 reports Best-of-n on BFCL multi-turn: at every assistant step the generator is
sampled n times (T = 0.6) and the selection method picks the answer that is executed; the episode
is then judged by BFCL's own state and response checks (``envs.BfclMultiTurnEnv``). The methods are
the single-turn ones (``greedy``: one T = 0 answer, ``majority``, ``schema``, ``rm:<scorer>``); the
reward model scores each draw on Listing 1 built from the episode so far (system turn dropped, as
for R_ToolRM).

Drawing: an OpenAI-compatible endpoint in prompt mode (``openai:...``, ``local``) gets n requests of
the step's messages with ``temperature``, a seed from (seed, episode, step, index) and
``logprobs``; any other backend is asked n times through ``complete`` (its own settings apply).
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Callable
from typing import Any

from robustcall.core import Message, in_worker, seeded_rng
from robustcall.formats import render_calls, sample_format
from robustcall.models import BindsToEnv, ChatModel, ModelRequest, ModelResponse
from robustcall.rewards._bestofn import majority_vote, rm_pick, schema_pick
from robustcall.rewards._sampling import _endpoint, _post
from robustcall.rewards._scorers import OutputScorer

STEP_METHODS = ("greedy", "majority", "schema")
"""Selection methods without a reward model (``rm:<spec>`` adds one per scorer)."""


class BestOfNModel:
    """``inner`` answered n times per request, one answer kept by ``method``."""

    def __init__(
        self,
        inner: ChatModel,
        method: str,
        *,
        n: int,
        temperature: float = 0.6,
        seed: int = 0,
        scorer: OutputScorer | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if method not in STEP_METHODS and not (method.startswith("rm:") and scorer is not None):
            raise ValueError(f"unknown selection method {method!r}; valid: {', '.join(STEP_METHODS)}, rm:<scorer>")
        self.inner, self.method, self.n = inner, method, max(1, n)
        self.temperature, self.seed, self.scorer, self.max_tokens = temperature, seed, scorer, max_tokens
        self.name = f"{inner.name}+bon{self.n}:{method}"
        self.mode = inner.mode
        self._drawn = [0]  # shared with the copies ``bind`` makes
        self._scoring = threading.Lock()  # one scorer, one worker at a time (shared with the copies too)
        self.logprobs: list[float | None] = []

    @property
    def draws_made(self) -> int:
        return self._drawn[0]

    def bind(self, env: Any, seed: int) -> BestOfNModel:
        """This selection over ``inner`` bound to ``env`` (a generator that plays the environment)."""
        if not isinstance(self.inner, BindsToEnv):
            return self
        bound = copy.copy(self)
        bound.inner = self.inner.bind(env, seed)
        return bound

    async def _draws(self, req: ModelRequest) -> list[ModelResponse]:
        client = await _endpoint(self.inner)
        if client is not None and client.mode == "prompt":
            base, _ = client.request_body(req)
            key = f"{req.sample.id}/{len(req.messages)}"
            bodies = []
            for i in range(self.n):
                body = dict(base, temperature=self.temperature, logprobs=True)
                body["seed"] = seeded_rng(self.seed, key, str(i)).randrange(2**31)
                if self.max_tokens is not None:
                    body["max_tokens"] = min(int(body.get("max_tokens", self.max_tokens)), self.max_tokens)
                bodies.append(body)
            draws = await asyncio.gather(*(_post(client, b) for b in bodies))
            self.logprobs = [d.logprob for d in draws]
            return [
                ModelResponse(text=d.text, tool_calls=None, error=d.error, error_kind="infra" if d.error else None)
                for d in draws
            ]
        self.logprobs = [None] * self.n
        return [await self.inner.complete(req) for _ in range(self.n)]

    async def complete(self, req: ModelRequest) -> ModelResponse:
        if self.method == "greedy":
            return await self.inner.complete(req)
        answers = await self._draws(req)
        self._drawn[0] += len(answers)
        usable = [i for i, a in enumerate(answers) if a.error_kind != "infra"]
        if not usable:
            return answers[0]  # every draw failed: the endpoint's error ends the episode as infra
        fmt = sample_format(req.sample)
        texts = [answers[i].text if answers[i].tool_calls is None else render_calls(answers[i].tool_calls or [], fmt)
                 for i in usable]  # fmt: skip
        pick: Callable[[], int]
        if self.method == "majority":
            pick = lambda: majority_vote(texts, req.tools)  # noqa: E731
        elif self.method == "schema":
            logprobs = [self.logprobs[i] for i in usable]
            pick = lambda: schema_pick(texts, logprobs, req.tools)  # noqa: E731
        else:
            scorer = self.scorer
            assert scorer is not None
            conversation = [m for m in req.messages if m.role != "system"] or [Message(role="user", content="")]

            def pick() -> int:
                with self._scoring:
                    return rm_pick(scorer.score(conversation, req.tools, texts))

        # parsing and scoring the draws: in a worker, so that the other episodes' requests go on
        return answers[usable[await in_worker(pick, sum(map(len, texts)))]]

    async def aclose(self) -> None:
        await self.inner.aclose()
