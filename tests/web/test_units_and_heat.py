"""The leaderboard writes accuracies as the report does (fractions) and wraps its heat strip by
component, so that all 22 types show without sideways scrolling."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from robustcall.web import create_app


def test_fractions_and_a_heat_strip_wrapped_by_component(lb_data: dict[str, Path], tmp_path: Path) -> None:
    with TestClient(create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}", paper_rows=False)) as client:
        sub = client.post("/api/submissions?model=first", content=lb_data["first_tool"].read_bytes()).json()
        index = client.get("/").text
        page = client.get(f"/submissions/{sub['id']}").text
    row = re.search(r"<tr>\s*<td>1</td>.*?</tr>", index, re.S)
    assert row is not None and "%" not in row.group(0)
    assert f"<b>{sub['pert_acc']:.3f}</b>" in row.group(0)  # Pert. Acc. as a fraction, like Table 2
    assert "overflow-x" not in page and "(pp)" not in page
    strip = page[page.index('id="heat"') :]
    tables = re.findall(r'<table class="heat">(.*?)</table>', strip, re.S)
    assert [re.search(r"<th[^>]*>(\w+)</th>", t).group(1) for t in tables] == [  # type: ignore[union-attr]
        "Observation",
        "Action",
        "Reward",
        "Transition",
    ]
    cells = [re.findall(r"<td [^>]*>([^<]*)</td>", t) for t in tables]
    assert [len(c) for c in cells] == [4, 6, 6, 6]  # 22 types, one wrap-able block per component
    assert all(re.fullmatch(r"0|-?\.\d\d|-?1\.00|—", text) for c in cells for text in c), cells
