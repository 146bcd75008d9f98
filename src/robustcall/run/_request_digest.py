"""One digest of every request a planned run sends first: the figures README quotes hold only while
the main job asks exactly what it asked when they were measured.

For each work item, in the run's order: its key (sample id, type), the JSON body of its first
request as the embedded model's client sends it in prompt mode (model file, rendered messages,
temperature, the gold output budget) and the perturbation record (which names a transition type's
injected error, the one part of pass 2 that does not depend on the answer). A change to a prompt,
a rewriter, the build's composition, the order or a default setting changes the digest."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from robustcall.core import canonical_json
from robustcall.formats import render_messages
from robustcall.models import ModelRequest, ModelSettings, OpenAIChatModel
from robustcall.run._budget import GoldBudget
from robustcall.run._plan import WorkItem


def request_digest(
    items: Sequence[WorkItem], budget: GoldBudget | None, model_file: str, settings: ModelSettings | None = None
) -> str:
    """The sha256 (hex) of the first request of every item, in order (see the module's docstring)."""
    settings = settings or ModelSettings()
    client = OpenAIChatModel(model_file, "http://127.0.0.1:9/v1", settings, mode="prompt", api_key="")  # never sent
    h = hashlib.sha256()
    for it in items:
        s = it.sample
        req = ModelRequest(
            messages=render_messages(s, "prompt"),
            tools=s.tools,
            sample=s,
            max_tokens=budget(s) if budget is not None else None,
        )
        body, _ = client.request_body(req)
        line = {"key": [s.id, it.type], "request": body, "perturbation": s.perturbation.model_dump(mode="json")}
        h.update(canonical_json(line).encode("utf-8") + b"\n")
    return h.hexdigest()
