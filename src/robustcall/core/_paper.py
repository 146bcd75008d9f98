"""The paper's 21 evaluated models (RobustBench-TC, paper 000), read from ``paper_models.yaml``.

One copy of the paper's per-model numbers: Table 15's serving settings (``--settings paper:<Model>``),
Table 2's values and half-widths and Tables 7-14's per-type accuracies (the reference rows of
``robustcall report`` and the leaderboard), Figure 5's Type column and Table 2's family order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

PAPER_MODELS_FILE = Path(__file__).with_name("paper_models.yaml")
TABLE2_STATS = ("clean", "pert_acc", "delta_obs", "delta_act", "delta_rew", "delta_trn")
"""Table 2's columns, in its order (``delta_obs`` .. ``delta_trn``: Δ per POMDP component)."""
DELTA_STATS = {"observation": "delta_obs", "action": "delta_act", "reward": "delta_rew", "transition": "delta_trn"}
ModelType = Literal["open", "fine-tuned", "closed"]
MODEL_TYPES: tuple[ModelType, ...] = ("open", "fine-tuned", "closed")
"""Figure 5's Type column (a leaderboard upload may declare one)."""


@dataclass(frozen=True)
class Serving:
    """One row of Table 15: how the paper served and queried a model."""

    hf_id: str | None
    """``None`` where the paper withholds it (its own checkpoints, the SFT baseline)."""
    gpus: int
    dtype: str
    max_len: int
    mode: Literal["fc", "prompt"]
    thinking: bool | None
    """``False``: Qwen3-style thinking disabled (``enable_thinking=False``); ``None``: "—" (no switch)."""
    temperature: float
    max_tokens: int


@dataclass(frozen=True)
class Printed:
    """A number as the paper prints it: value, 95% half-width, significance marker."""

    value: float
    ci95: float | None = None
    marker: str = ""


@dataclass(frozen=True)
class PaperModel:
    """One of the paper's 21 models."""

    name: str
    family: str
    """Table 2's group."""
    type: ModelType
    """Figure 5's Type column."""
    ours: bool
    serving: Serving | None
    """Table 15's row; ``None`` for o4-mini (OpenAI's API, no row)."""
    table2: dict[str, Printed]
    """``TABLE2_STATS`` -> Table 2's cell."""
    accuracy: dict[str, float]
    """``clean`` and each of the 22 type codes -> accuracy (Tables 7-14)."""
    drop: dict[str, float]
    """Each of the 22 type codes -> Tables 7-14's parenthesised drop from Clean, as printed (computed by the
    paper before rounding, so not always the difference of the printed accuracies)."""

    def vllm_command(self) -> str | None:
        """The ``vllm serve`` line Table 15 implies (FC rows: tools through vLLM's ``hermes`` parser);
        ``None`` without a row. A withheld checkpoint shows as ``<checkpoint of NAME>``."""
        s = self.serving
        if s is None:
            return None
        parts = [
            "vllm serve",
            s.hf_id or f"<checkpoint of {self.name}>",
            f"--dtype {s.dtype}",
            f"--max-model-len {s.max_len}",
        ]
        if s.gpus > 1:
            parts.append(f"--tensor-parallel-size {s.gpus}")
        if s.mode == "fc":
            parts.append("--enable-auto-tool-choice --tool-call-parser hermes")
        return " ".join(parts)

    def aliases(self) -> set[str]:
        """The names this model is matched by (lower case): its name, HF id and the id's last part."""
        keys = {self.name.lower()}
        if self.serving is not None and self.serving.hf_id:
            keys |= {self.serving.hf_id.lower(), self.serving.hf_id.rsplit("/", 1)[-1].lower()}
        return keys


@dataclass(frozen=True)
class PaperReference:
    """The paper's models and the record counts its tables rest on."""

    clean_records: int
    type_records: dict[str, int]
    """Type code -> records of that type (the counts Tables 7-14 imply; with Clean, Table 3's 3,721)."""
    families: tuple[str, ...]
    models: tuple[PaperModel, ...]

    def correct(self, model: PaperModel) -> dict[str, int]:
        """Records ``model`` answered correctly, ``clean`` and per type: accuracy × count, to the nearest
        record (every printed accuracy is a whole number of records; tests/metrics/test_table2_delta.py)."""
        counts = {"clean": self.clean_records, **self.type_records}
        return {t: round(model.accuracy[t] * n) for t, n in counts.items()}

    def pooled_accuracy(self, model: PaperModel, types: list[str]) -> float:
        """Accuracy over the pooled records of ``types`` (a component's, or all 22 for Pert. Acc.)."""
        correct = self.correct(model)
        return sum(correct[t] for t in types) / sum(self.type_records[t] for t in types)

    def find(self, name: str) -> PaperModel | None:
        """The model named ``name`` (its paper name, HF id or the id's last part; any case), else ``None``."""
        key = name.strip().lower()
        return next((m for m in self.models if key in m.aliases()), None)


def _printed(cell: list[Any]) -> Printed:
    value, ci, *marker = cell
    return Printed(float(value), float(ci), str(marker[0]) if marker else "")


def _model(raw: dict[str, Any], types: list[str], families: tuple[str, ...]) -> PaperModel:
    name = str(raw["name"])
    accuracy = [float(x) for x in raw["accuracy"]]
    drop = [float(x) for x in raw["drop"]]
    sizes_ok = len(accuracy) == len(types) + 1 and len(drop) == len(types)
    if not sizes_ok or raw["family"] not in families or set(raw["table2"]) != set(TABLE2_STATS):
        raise RuntimeError(f"{PAPER_MODELS_FILE}: model {name!r} is malformed")
    serving = raw.get("serving")
    return PaperModel(
        name=name,
        family=str(raw["family"]),
        type=raw["type"],
        ours=bool(raw.get("ours", False)),
        serving=Serving(**serving) if serving is not None else None,
        table2={k: _printed(raw["table2"][k]) for k in TABLE2_STATS},
        accuracy=dict(zip(["clean", *types], accuracy, strict=True)),
        drop=dict(zip(types, drop, strict=True)),
    )


@functools.cache
def paper_reference() -> PaperReference:
    """The paper's 21 models (read once from the package's ``paper_models.yaml``)."""
    import yaml  # here: a command that never reads the paper's models should not load a YAML parser

    raw = yaml.safe_load(PAPER_MODELS_FILE.read_text(encoding="utf-8"))
    types = list(raw["type_records"])
    families = tuple(raw["families"])
    return PaperReference(
        clean_records=int(raw["clean_records"]),
        type_records={t: int(n) for t, n in raw["type_records"].items()},
        families=families,
        models=tuple(_model(m, types, families) for m in raw["models"]),
    )
