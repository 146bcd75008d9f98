"""Models for the trainers: an HF id or folder as is; a GGUF file dequantised once into an HF
folder; ``tiny``: a random-init Qwen2 built from a config with a byte-level BPE tokenizer trained
locally on the training texts (CPU smoke runs, nothing downloaded).

Trainers get a model *path or id*, never an in-memory model, so that TRL can load the KL reference
model the same way and checkpoints are ordinary HF folders (servable by vLLM).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from robustcall.core import MissingInputError

TINY = "tiny"
CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""Qwen2.5's ChatML layout without its default system prompt."""
SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


def tiny_tokenizer(texts: Iterable[str], vocab_size: int = 1024) -> object:
    """A byte-level BPE tokenizer trained on ``texts`` (deterministic), ChatML template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIALS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(texts), trainer=trainer)
    fast = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call,unused-ignore]
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None
    )
    fast.chat_template = CHATML_TEMPLATE
    return fast


def make_tiny_model(out: Path, texts: Iterable[str], seed: int = 0) -> Path:
    """Write a tiny random Qwen2 (2 layers, hidden 32) and its tokenizer into ``out``."""
    import torch
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, Qwen2Config

    tok = tiny_tokenizer(texts)
    assert isinstance(tok, PreTrainedTokenizerFast)
    config = Qwen2Config(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)  # type: ignore[no-untyped-call,unused-ignore]
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def dequantise_gguf(gguf: Path, out: Path) -> Path:
    """Load a GGUF file through transformers (``gguf_file=``), dequantised, and save an HF folder
    (once: an existing folder with a config is reused)."""
    if (out / "config.json").is_file():
        return out
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # the weights are dequantised already; transformers keeps its GGUF "quantizer" marker, which
    # refuses to serialise, so drop it and save a plain float model
    setattr(model, "hf_quantizer", None)  # noqa: B010
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def resolve_model(spec: str, work: Path, texts: Iterable[str] = (), seed: int = 0) -> str:
    """An HF id or path the trainers can load: ``tiny`` builds one under ``work/tiny-init``; a
    ``.gguf`` file is dequantised under ``work/<stem>-hf``; anything else is passed through."""
    if spec == TINY:
        return str(make_tiny_model(work / "tiny-init", texts, seed))
    if spec.endswith(".gguf"):
        path = Path(spec).expanduser()
        if not path.is_file():
            raise MissingInputError(f"{path}: no such GGUF file")
        return str(dequantise_gguf(path, work / f"{path.stem}-hf"))
    return spec
