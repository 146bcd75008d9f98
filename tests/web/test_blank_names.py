"""Issue 43, item 11: names padded with characters that render blank (U+2800 BRAILLE PATTERN BLANK
and the like), or carrying combining marks, are look-alikes of the name they show as."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient

from robustcall.web import create_app, name_key
from robustcall.web._names import name_problem, renders_blank

VICTIM = "victim-tok"
BLANK_PADDED = {
    "braille blank after": "victim-tok\u2800",
    "braille blank before": "\u2800victim-tok",
    "braille blanks both ends": "\u2800\u2800victim-tok\u2800",
    "hangul filler": "victim-tok\u3164",
    "halfwidth hangul filler": "victim-tok\uffa0",
    "hangul choseong filler": "victim-tok\u115f",
    "musical null notehead": "victim-tok\U0001d159",
    "ideographic space": "victim-tok\u3000",
    "no-break space": "victim-tok\u00a0",
    "em space": "\u2003victim-tok",
}
MARKED = {
    "combining acute": "victim-tok\u0301",
    "precomposed o acute": "victim-t\u00f3k",
    "enclosing circle": "victim-tok\u20dd",
    "stacked marks": "v\u0300\u0301\u0302ictim-tok",
}


def test_blank_rendering_characters_and_combining_marks_leave_the_key_as_shown() -> None:
    assert {name_key(n) for n in (*BLANK_PADDED.values(), *MARKED.values())} == {name_key(VICTIM)}
    assert name_key(VICTIM) == "victirn-tok"  # TR39: "m" and "rn" are confusable
    # a blank inside a name reads as one space, whatever its kind and however many
    assert name_key("victim\u2800tok") == name_key("victim tok") == name_key("victim\u2800\u3000 tok") == "victirn tok"
    assert name_key("victim tok") != name_key(VICTIM)
    assert name_key("caf\u00e9-7b") == name_key("cafe-7b") == "cafe-7b"


def test_which_characters_render_blank() -> None:
    assert [
        c for c in "\u2800\u3164\uffa0\u115f\u1160\U0001d159 \u00a0\u2003\u3000\u2028" if not renders_blank(c)
    ] == []
    assert [c for c in "a-_.\u2801\u00b7\u0301" if renders_blank(c)] == []


@pytest.mark.parametrize("name", ["\u2800", "\u2800\u3164\u3000", "\u0301\u20dd"])
def test_a_name_of_blanks_or_marks_only_has_nothing_visible(name: str) -> None:
    assert name_problem(name) == "rejected: a model name needs a visible character"


def test_line_and_paragraph_separators_are_refused_as_line_breaks() -> None:
    for sep in "\u2028\u2029":
        assert name_problem(f"victim{sep}tok") == (
            "rejected: a model name cannot contain control characters (NUL, line breaks, tabs)"
        )


def test_blank_padded_and_marked_names_are_refused_beside_an_owned_name(lb_data: dict[str, Path], db_url: str) -> None:
    data = lb_data["partial"].read_bytes()
    owner = {"Authorization": "Bearer the-victims-own-token-123"}
    other = {"Authorization": "Bearer somebody-elses-token-456"}
    with TestClient(create_app(lb_data["bench"], db_url)) as client:
        assert client.post(f"/api/submissions?model={VICTIM}", content=data, headers=owner).status_code == 201
        for form, name in {**BLANK_PADDED, **MARKED}.items():
            for headers in ({}, other):
                r = client.post("/api/submissions", params={"model": name}, content=data, headers=headers)
                assert r.status_code == 409, (form, r.text)
                if name.strip() == VICTIM:  # Python's white space is stripped from a name first
                    assert r.json()["error"] == f"rejected: the name {VICTIM!r} is on the board under another uploader"
                    continue
                assert r.json()["error"] == (
                    f"rejected: the name {name!r} looks like {VICTIM!r}, which is on the board "
                    "(names are compared after Unicode NFKC, case folding and TR39 confusable skeletons, "
                    "with blank-looking characters as one space and without combining marks)"
                )
        r = client.post("/api/submissions", params={"model": "\u2800\u2800"}, content=data)
        assert (r.status_code, r.json()["error"]) == (400, "rejected: a model name needs a visible character")
        assert [row["model"] for row in client.get("/api/submissions").json()] == [VICTIM]


def test_rows_stored_under_an_older_key_are_rekeyed_at_start(lb_data: dict[str, Path], db_url: str) -> None:
    """A board made before this rule stored ``victim-tók`` under a key with its mark; at start the
    key is recomputed, so the owned name now blocks ``victim-tok\\u2800``."""
    data = lb_data["partial"].read_bytes()
    owner = {"Authorization": "Bearer the-victims-own-token-123"}
    with TestClient(create_app(lb_data["bench"], db_url)) as client:
        assert client.post("/api/submissions?model=victim-t%C3%B3k", content=data, headers=owner).status_code == 201
    engine = create_engine(db_url)
    with engine.begin() as conn:  # what the older key function stored
        conn.execute(text("UPDATE submissions SET name_key = 'victirn-to\u0301k'"))
    engine.dispose()
    with TestClient(create_app(lb_data["bench"], db_url)) as client:
        r = client.post("/api/submissions", params={"model": "victim-tok\u2800"}, content=data)
        assert r.status_code == 409, r.text
    engine = create_engine(db_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name_key FROM submissions")).scalars().all() == ["victirn-tok"]
    engine.dispose()
