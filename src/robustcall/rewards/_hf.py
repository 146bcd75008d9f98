"""Sequence-classifier reward models through ``transformers`` (ToolRM, RewardBench RMs).

The input is Listing 1 rendered by the model's own chat template; the score is the classifier's
single logit (``num_labels = 1``; for a two-label head, the last logit). torch and transformers are
imported only here, on first use.
"""

from __future__ import annotations

from typing import Any

from robustcall.core import Message, ToolSpec
from robustcall.rewards._prompts import toolrm_messages


def conversation_dicts(conversation: list[Message]) -> list[dict[str, Any]]:
    return [{"role": m.role, "content": m.content} for m in conversation]


def tool_dicts(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json") for t in tools]


class HFClassifierScorer:
    """A ``transformers`` sequence classifier as an :class:`OutputScorer`."""

    def __init__(
        self,
        path: str,
        *,
        model: Any = None,
        tokenizer: Any = None,
        gguf_file: str | None = None,
        batch_size: int = 4,
        max_length: int = 4096,
        device: str | None = None,
    ) -> None:
        self.name = f"hf:{path}"
        self.batch_size = max(1, batch_size)
        self.max_length = max_length
        if model is None or tokenizer is None:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer

            kw: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
            tokenizer = tokenizer or AutoTokenizer.from_pretrained(path, **kw)
            model = model or AutoModelForSequenceClassification.from_pretrained(path, num_labels=1, **kw)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        if getattr(model.config, "pad_token_id", None) is None:
            model.config.pad_token_id = tokenizer.pad_token_id
        self.tokenizer = tokenizer
        self.model = model.to(device) if device else model
        self.model.eval()

    def texts(self, conversation: list[dict[str, Any]], tools: list[dict[str, Any]], outputs: list[str]) -> list[str]:
        specs = [ToolSpec.model_validate(t) for t in tools]
        return [
            str(self.tokenizer.apply_chat_template(toolrm_messages(conversation, tools, o, specs), tokenize=False))
            for o in outputs
        ]

    def score_texts(self, texts: list[str]) -> list[float]:
        import torch

        out: list[float] = []
        device = next(self.model.parameters()).device
        for i in range(0, len(texts), self.batch_size):
            batch = self.tokenizer(
                texts[i : i + self.batch_size],
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=self.max_length,
                add_special_tokens=False,
            ).to(device)
            with torch.no_grad():
                logits = self.model(**batch).logits
            out += [float(v) for v in logits[:, -1].float().cpu().tolist()]
        return out

    def score_raw(
        self, conversation: list[dict[str, Any]], tools: list[dict[str, Any]], outputs: list[str]
    ) -> list[float]:
        return self.score_texts(self.texts(conversation, tools, outputs))

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        return self.score_raw(conversation_dicts(conversation), tool_dicts(tools), outputs)
