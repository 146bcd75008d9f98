"""A reward model behind an HTTP endpoint: vLLM's pooling API (``vllm serve <rm> --runner pooling``).

Each output is sent as Listing 1 in chat form (``{"model", "messages"}`` to ``<base_url>/pooling``);
the server applies the reward model's own chat template, as :class:`HFClassifierScorer` does
locally, and answers ``{"data": [{"data": ...}]}``. The score is the last number of that data (a
one-label classifier gives one number; a per-token reward output ends with the last token's).

What the number is depends on how the model is served: the classifier's logit (the default, as
``hf:`` reads it; serve with the pooler's activation off) or its sigmoid (``#sigmoid``). Both land on
the same R_ToolRM, since 6σ(r) − 3 is the [0, 1] range mapped linearly onto [-3, 3].

Failed requests are retried (429 / 5xx / connection errors, with backoff); a request that still
fails raises :class:`RewardEndpointError` naming the endpoint and its answer: an unreachable reward
model stops training, it is never scored as a bad output.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from robustcall.core import DEFAULTS, Message, RunFailed, ToolSpec
from robustcall.models import backoff_s, retry_after_s, retryable_status
from robustcall.rewards._hf import conversation_dicts, tool_dicts
from robustcall.rewards._prompts import toolrm_messages


class RewardEndpointError(RunFailed):
    """The reward-model endpoint failed after its retries (an infrastructure error, exit 3)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=3)


def _last_number(data: Any) -> float:
    while isinstance(data, list) and data:
        data = data[-1]
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise ValueError(f"expected a number or a list of numbers, got {json.dumps(data)[:80]}")
    return float(data)


class PoolingScorer:
    """An :class:`OutputScorer` on ``<base_url>/pooling``; ``sigmoid``: the server returns σ(logit)."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        sigmoid: bool = False,
        api_key: str | None = None,
        timeout_s: float = DEFAULTS.timeout_s,
        max_retries: int = DEFAULTS.max_retries,
        backoff_base_s: float = DEFAULTS.backoff_base_s,
    ) -> None:
        self.name = f"pooling:{model}@{base_url}"
        self.model = model
        root = base_url.rstrip("/")
        self.url = (root[: -len("/v1")] if root.endswith("/v1") else root) + "/pooling"
        self.score_range = (0.0, 1.0) if sigmoid else None
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s

    def _post(self, body: bytes) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        reason = ""
        for attempt in range(self.max_retries + 1):
            wait = backoff_s(attempt, self.backoff_base_s, DEFAULTS.backoff_max_s)
            try:
                req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    return json.loads(resp.read())
            except urllib.error.HTTPError as exc:
                reason = f"HTTP {exc.code}: {exc.read()[:200].decode('utf-8', 'replace')}"
                if not retryable_status(exc.code):
                    break
                wait = max(wait, min(retry_after_s(exc.headers.get("Retry-After")) or 0.0, DEFAULTS.backoff_max_s))
            except (urllib.error.URLError, OSError) as exc:
                reason = str(getattr(exc, "reason", exc))
            except ValueError as exc:  # not JSON
                reason = f"not a JSON answer ({exc})"
                break
            if attempt < self.max_retries:
                time.sleep(wait)
        raise RewardEndpointError(f"reward model at {self.url} failed: {reason}")

    def score_one(self, messages: list[dict[str, str]]) -> float:
        answer = self._post(json.dumps({"model": self.model, "messages": messages}).encode())
        try:
            return _last_number(answer["data"][0]["data"])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise RewardEndpointError(f"reward model at {self.url}: unexpected answer ({exc})") from None

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        conv, specs = conversation_dicts(conversation), tool_dicts(tools)
        return [self.score_one(toolrm_messages(conv, specs, o, tools)) for o in outputs]
