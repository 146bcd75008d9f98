"""Wordle: find a hidden five-letter word in six guesses, from word lists the user gives.

``WordleEnv(answers_file, guesses_file)``: the answers list picks the hidden words (task
``wordle-<k>`` is the k-th answer of a seeded shuffle); a guess must be in either list. Feedback per
letter: ``G`` right letter in the right place, ``Y`` in the word elsewhere, ``-`` not in the word
(repeated letters counted as in the official game).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from robustcall.core import ToolCall, ToolSpec
from robustcall.envs._protocol import EnvReset, EnvStep

MAX_GUESSES = 6


def feedback(guess: str, answer: str) -> str:
    """The official colouring: greens first, then yellows while unmatched letters remain."""
    marks = ["-"] * len(guess)
    left = Counter(a for g, a in zip(guess, answer, strict=True) if g != a)
    for i, (g, a) in enumerate(zip(guess, answer, strict=True)):
        if g == a:
            marks[i] = "G"
        elif left[g] > 0:
            marks[i] = "Y"
            left[g] -= 1
    return "".join(marks)


def _words(path: Path) -> list[str]:
    words = [w.strip().lower() for w in path.read_text().splitlines()]
    return [w for w in words if len(w) == 5 and w.isalpha()]


class WordleEnv:
    """The Env protocol over Wordle games."""

    name = "wordle"

    def __init__(self, answers_file: Path, guesses_file: Path | None = None, tasks: int = 25, seed: int = 0) -> None:
        answers = _words(answers_file)
        if not answers:
            raise ValueError(f"{answers_file}: no five-letter words")
        self._valid = set(answers) | (set(_words(guesses_file)) if guesses_file else set())
        picked = sorted(answers)
        random.Random(seed).shuffle(picked)
        self._answers = {f"wordle-{k}": w for k, w in enumerate(picked[:tasks])}
        self.size_note: str | None = None
        if len(picked) < tasks:
            self.size_note = f"{answers_file.name} holds {len(picked)} five-letter answers"
        self._vocab = sorted(set(answers))
        self._answer = ""
        self._history: list[tuple[str, str]] = []

    def task_ids(self) -> list[str]:
        return list(self._answers)

    def vocabulary(self) -> list[str]:
        """Every word a guess may be, sorted."""
        return sorted(self._valid)

    def answer_words(self) -> list[str]:
        """The words the hidden word is drawn from, sorted: the short list, like the vocabulary
        AgentGym's Wordle server draws its word from and serves its clients."""
        return list(self._vocab)

    def tools(self) -> list[ToolSpec]:
        params = {
            "type": "object",
            "properties": {"word": {"type": "string", "description": "A five-letter English word."}},
            "required": ["word"],
        }
        return [ToolSpec(name="guess", description="Guess the hidden five-letter word.", parameters=params)]

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        self._answer = self._answers[task_id]
        self._history = []
        instruction = (
            f"Find the hidden five-letter word in at most {MAX_GUESSES} guesses. After each guess you get one "
            "mark per letter: G = right letter, right place; Y = in the word, elsewhere; - = not in the word."
        )
        return EnvReset(instruction, "", self.tools())

    def step(self, call: ToolCall) -> EnvStep:
        if call.name != "guess":
            return EnvStep(f"Invalid action {call.name!r}. Valid action: guess.", error=True)
        word = str(call.arguments.get("word", "")).strip().lower()
        if len(word) != 5 or word not in self._valid:
            return EnvStep(f"'{word}' is not a valid five-letter word; try another.", error=True)
        marks = feedback(word, self._answer)
        self._history.append((word, marks))
        if marks == "GGGGG":
            return EnvStep(f"{word.upper()} {marks}: solved in {len(self._history)} guesses.", done=True)
        if len(self._history) >= MAX_GUESSES:
            return EnvStep(f"{word.upper()} {marks}. No guesses left; the word was {self._answer.upper()}.", done=True)
        return EnvStep(f"{word.upper()} {marks}. {MAX_GUESSES - len(self._history)} guesses left.")

    def score(self) -> float:
        return 1.0 if self._history and self._history[-1][1] == "GGGGG" else 0.0

    def expert_action(self) -> ToolCall | None:
        """The first answer word consistent with every feedback so far (solves within six guesses
        on the official lists; the hidden word itself is never read except through feedback)."""
        if self.score() == 1.0 or len(self._history) >= MAX_GUESSES:
            return None
        for w in self._vocab:
            if all(feedback(g, w) == m for g, m in self._history):
                return ToolCall(name="guess", arguments={"word": w})
        return None
