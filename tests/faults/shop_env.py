"""A tiny JSON-speaking shop environment implementing the ``Env`` protocol, for fault tests.

Task ``<item>``: search the catalogue for the item, then buy the cheapest match. The expert policy
searches once and buys the cheapest id. Counts executed calls so tests can tell whether a fault
let the call run.
"""

from __future__ import annotations

import json

from robustcall.core import ToolCall, ToolSpec
from robustcall.envs import EnvReset, EnvStep

CATALOGUE = [
    {"id": "L1", "name": "desk lamp", "price": 24.5, "stock": 3},
    {"id": "L2", "name": "floor lamp", "price": 19.0, "stock": 1},
    {"id": "M1", "name": "coffee mug", "price": 7.25, "stock": 12},
    {"id": "M2", "name": "travel mug", "price": 11.0, "stock": 4},
]

TOOLS = [
    ToolSpec(
        name="search",
        description="Search the catalogue; returns matching items with id, name, price and stock.",
        parameters={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    ),
    ToolSpec(
        name="buy",
        description="Buy one item by id.",
        parameters={"type": "object", "properties": {"item_id": {"type": "string"}}, "required": ["item_id"]},
    ),
]


class ShopEnv:
    name = "shop"

    def __init__(self) -> None:
        self.executed: list[ToolCall] = []
        self._query = ""
        self._bought: str | None = None
        self._searched = False

    def task_ids(self) -> list[str]:
        return ["lamp", "mug"]

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        self._query, self._bought, self._searched = task_id, None, False
        self.executed = []
        return EnvReset(instruction=f"Buy the cheapest {task_id}.", observation="", tools=list(TOOLS))

    def _matches(self, query: str) -> list[dict[str, object]]:
        return [item for item in CATALOGUE if query in str(item["name"])]

    def step(self, call: ToolCall) -> EnvStep:
        self.executed.append(call)
        if call.name == "search" and set(call.arguments) == {"query"}:
            self._searched = True
            return EnvStep(observation=json.dumps(self._matches(str(call.arguments["query"]))))
        if call.name == "buy" and set(call.arguments) == {"item_id"}:
            item = next((i for i in CATALOGUE if i["id"] == call.arguments["item_id"]), None)
            if item is None:
                return EnvStep(observation=f"No item with id {call.arguments['item_id']!r}.", error=True)
            self._bought = str(item["id"])
            return EnvStep(
                observation=json.dumps({"order": "O-1", "item_id": item["id"], "total": item["price"]}), done=True
            )
        return EnvStep(observation=f"Invalid call {call.name}({', '.join(call.arguments)}).", error=True)

    def _cheapest(self) -> str:
        return str(min(self._matches(self._query), key=lambda i: float(str(i["price"])))["id"])

    def score(self) -> float:
        return 1.0 if self._bought == self._cheapest() else 0.0

    def expert_action(self) -> ToolCall | None:
        if self._bought is not None:
            return None
        if not self._searched:
            return ToolCall(name="search", arguments={"query": self._query})
        return ToolCall(name="buy", arguments={"item_id": self._cheapest()})
