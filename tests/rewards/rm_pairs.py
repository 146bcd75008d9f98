"""Hand-made RM pairs shared by the rewards tests."""

from __future__ import annotations

import json

from robustcall.rewards import RewardPair

TOOLS = [
    {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "dict",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    }
]


def make_pairs(n: int = 8) -> list[RewardPair]:
    cities = ["Paris", "Rome", "Oslo", "Bern", "Lima", "Kyiv", "Doha", "Riga"]
    out = []
    for i in range(n):
        city = cities[i % len(cities)]
        good = [{"name": "get_weather", "arguments": {"city": city, "days": i + 1}}]
        bad = [{"name": "get_weather", "arguments": {"city": city}}]
        out.append(
            RewardPair(
                tools=TOOLS,
                conversation=[{"role": "user", "content": f"Weather in {city} for {i + 1} days?"}],
                chosen_output=json.dumps(good),
                rejected_output=json.dumps(bad),
                error_type="Missing Optional Parameter",
                model_name="hand",
                test_category="simple",
                test_id=f"t{i}",
            )
        )
    return out
