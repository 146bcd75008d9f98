"""A tiny sequence-classification RM built from a config (no download) and a local word-level tokenizer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rm_pairs import make_pairs

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text)


@pytest.fixture(scope="session")
def tiny_rm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny Qwen2 sequence classifier + tokenizer directory (random init, seeded)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    from robustcall.rewards import pair_rows

    specials = ["[UNK]", "[PAD]", "<|im_start|>", "<|im_end|>"]
    vocab: dict[str, int] = {t: i for i, t in enumerate(specials)}
    rows: list[Any] = pair_rows(make_pairs())
    for row in rows:
        for m in row["prompt"] + row["chosen"] + row["rejected"]:
            for w in _words(m["role"] + " " + m["content"]):
                vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace()])
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="<|im_end|>", bos_token=None
    )
    fast.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = transformers.Qwen2Config(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        num_labels=1,
        pad_token_id=vocab["[PAD]"],
    )
    model = transformers.Qwen2ForSequenceClassification(config)
    path = tmp_path_factory.mktemp("tiny_rm")
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return Path(path)
