"""The paper's 21 models on the leaderboard: merged into the ranking page by page (checked against
a whole-table merge), shown as the paper's with Figure 5's Type; a gold upload ranks above them all,
a broken one below."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from robustcall.web import create_app
from robustcall.web._reference import ReferenceRow, merged_page, reference_rows


@dataclass(frozen=True)
class Sub:
    name: str
    pert_acc: float | None


def _whole(subs: list[Sub], refs: list[ReferenceRow]) -> list[str]:
    """Every row in rank order: a paper row goes before a submission it ties or beats."""
    out, i = [], 0
    for ref in refs:
        while i < len(subs) and subs[i].pert_acc is not None and subs[i].pert_acc > ref.pert_acc:  # type: ignore[operator]
            out.append(subs[i].name)
            i += 1
        out.append(ref.name)
    return out + [s.name for s in subs[i:]]


def _ref(name: str, pert: float) -> ReferenceRow:
    return ReferenceRow(name, "open", pert, 0.5, {})


@pytest.mark.parametrize("seed", range(40))
def test_pages_agree_with_a_whole_table_merge(seed: int) -> None:
    rng = random.Random(seed)
    values = [None, 0.0, 0.25, 0.5, 0.75, 1.0]
    subs = [Sub(f"s{i}", rng.choice(values)) for i in range(rng.randrange(0, 30))]
    order = {v: k for k, v in enumerate([1.0, 0.75, 0.5, 0.25, 0.0, None])}
    subs.sort(key=lambda s: order[s.pert_acc])  # the store's ranking (stable: earlier first)
    refs = sorted(
        (_ref(f"r{j}", rng.choice(values[1:])) for j in range(rng.randrange(0, 6))), key=lambda r: -r.pert_acc
    )
    whole = _whole(subs, refs)
    size = rng.randrange(1, 7)
    seen: list[str] = []
    for page in range(1, len(whole) // size + 3):
        got = merged_page(lambda o, n: subs[o : o + n], refs, page, size)
        assert [rank for rank, _ in got.entries] == list(range(len(seen) + 1, len(seen) + 1 + len(got.entries)))
        seen += [row.name for _, row in got.entries]
        assert got.more == (len(seen) < len(whole)), (page, seen, whole)
        assert got.no_submissions == (page == 1 and not subs)
    assert seen == whole


def test_reference_rows_are_figure_5s_order_and_numbers() -> None:
    rows = reference_rows()
    assert len(rows) == 21
    assert [r.name for r in rows[:3]] == ["Qwen3-14B", "MUA-RL-32B", "Qwen3-32B"]  # Figure 5's first three
    top = rows[0]
    assert (top.type, round(top.pert_acc, 4), round(top.clean_acc, 4)) == ("open", 0.5292, 0.7487)
    assert {c: round(v, 4) for c, v in top.components.items()} == {
        "observation": 0.7098,
        "action": 0.6053,
        "reward": 0.2845,
        "transition": 0.4983,
    }


def test_a_gold_upload_ranks_above_the_paper_and_a_broken_one_below(lb_data: dict[str, Path], tmp_path: Path) -> None:
    broken = []
    for line in lb_data["oracle"].read_text().splitlines():
        rec = json.loads(line)
        rec["prediction"] |= {"raw_output": "", "tool_calls": [], "pass1_raw_output": "", "pass1_tool_calls": []}
        broken.append(json.dumps(rec))
    app = create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}")
    with TestClient(app) as client:
        empty = client.get("/").text
        assert "No submissions yet" in empty and "Qwen3-14B" in empty
        assert client.post("/api/submissions?model=gold", content=lb_data["oracle"].read_bytes()).status_code == 201
        assert client.post("/api/submissions?model=broken", content="\n".join(broken).encode()).status_code == 201
        page = client.get("/").text
        paper = client.get("/api/paper").json()
    assert "No submissions yet" not in page
    rows = page[page.index("<tbody>") : page.index("</tbody>")].split("<tr")[1:]
    assert len(rows) == 23
    assert ">gold</a>" in rows[0] and "<td>1</td>" in rows[0]
    assert ">broken</a>" in rows[22] and "<td>23</td>" in rows[22]  # below SFT-Clean-4k-3B (0.267)
    # the paper's rows: marked, not links, with Figure 5's Type and numbers (fractions, 3 digits)
    assert "Qwen3-14B" in rows[1] and 'class="badge src paper"' in rows[1] and "<td>open</td>" in rows[1]
    assert "<b>0.529</b>" in rows[1] and "/submissions/" not in rows[1]
    assert all('class="badge src paper"' in r for r in rows[1:22])
    assert [r["name"] for r in paper][:2] == ["Qwen3-14B", "MUA-RL-32B"] and len(paper) == 21
    assert paper[0]["type"] == "open" and round(paper[0]["pert_acc"], 4) == 0.5292


def test_paper_rows_can_be_left_out(lb_data: dict[str, Path], tmp_path: Path) -> None:
    app = create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}", paper_rows=False)
    with TestClient(app) as client:
        page = client.get("/").text
    assert "No submissions yet" in page and "Qwen3-14B" not in page


def test_an_upload_declares_its_type_or_shows_a_dash(lb_data: dict[str, Path], tmp_path: Path) -> None:
    """Issue 35 item 9: the Type column of an upload is what its uploader declared, "—" otherwise."""
    data = lb_data["oracle"].read_bytes()
    app = create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}", paper_rows=False)
    with TestClient(app) as client:
        made = client.post("/api/submissions?model=gold&type=fine-tuned", content=data)
        assert made.status_code == 201 and made.json()["type"] == "fine-tuned"
        assert client.post("/api/submissions?model=plain", content=data).json()["type"] is None
        bad = client.post("/api/submissions?model=odd&type=weights", content=data)
        assert bad.status_code == 400
        assert bad.json()["error"] == "rejected: type must be one of open, fine-tuned, closed or none, got 'weights'"
        fields = {"model": "formed", "type": "closed"}
        form = client.post("/submit", data=fields, files={"file": ("p.jsonl", data)}, follow_redirects=False)
        assert form.status_code == 303
        page = client.get("/").text
    rows = {r.split("</a>")[0].rsplit(">", 1)[-1]: r for r in page.split("<tr")[2:]}
    assert "<td>fine-tuned</td>" in rows["gold"] and "<td>closed</td>" in rows["formed"]
    assert "<td>—</td>" in rows["plain"] and "odd" not in rows


def test_a_store_without_the_type_column_gets_it(tmp_path: Path) -> None:
    from sqlalchemy import create_engine, inspect, text

    from robustcall.web._store import Store

    url = f"sqlite:///{tmp_path / 'old.db'}"
    Store(url).engine.dispose()
    engine = create_engine(url)
    with engine.begin() as conn:  # a table made before the column existed
        conn.execute(text("ALTER TABLE submissions DROP COLUMN model_type"))
    engine.dispose()
    store = Store(url)
    assert "model_type" in {c["name"] for c in inspect(store.engine).get_columns("submissions")}
