"""Issue 30's leaderboard items against the app, on SQLite and PostgreSQL: look-alike names, the
last 500s, security headers, JSONL split on ``\\n`` only, and uploads marked as what they are."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from robustcall.core import PredictionRecord, dump_record
from robustcall.web import create_app, name_key

VICTIM = "victim-tok"
LOOK_ALIKES = {
    "capital V": "Victim-tok",
    "U+2010 hyphen": "victim\u2010tok",
    "Cyrillic o": "victim-t\u043ek",
    "full-width v": "\uff56ictim-tok",
}


def _client(lb_data: dict[str, Path], db_url: str) -> TestClient:
    return TestClient(create_app(lb_data["bench"], db_url, admin_token="s3cret"))


def test_look_alike_names_share_a_key() -> None:
    assert {name_key(n) for n in LOOK_ALIKES.values()} == {name_key(VICTIM)}
    assert name_key("victim-tok-2") != name_key(VICTIM)
    assert name_key("llama-3-8b") != name_key("llama-3-70b")
    assert name_key("gpt-4o") == name_key("gpt-40")  # TR39: "0" and "o" are confusable


def test_a_look_alike_of_a_held_name_is_refused(lb_data: dict[str, Path], db_url: str) -> None:
    data = lb_data["partial"].read_bytes()
    owner = {"Authorization": "Bearer the-victims-own-token-123"}
    other = {"Authorization": "Bearer somebody-elses-token-456"}
    with _client(lb_data, db_url) as client:
        assert client.post(f"/api/submissions?model={VICTIM}", content=data, headers=owner).status_code == 201
        for form, name in LOOK_ALIKES.items():
            for headers in ({}, other):
                r = client.post("/api/submissions", params={"model": name}, content=data, headers=headers)
                assert r.status_code == 409, (form, r.text)
                assert f"looks like {VICTIM!r}" in r.json()["error"], r.text
        # the holder keeps its own name; anonymous names are shared, but not their look-alikes
        assert client.post(f"/api/submissions?model={VICTIM}", content=data, headers=owner).status_code == 201
        assert client.post("/api/submissions?model=open-model", content=data).status_code == 201
        assert client.post("/api/submissions?model=open-model", content=data).status_code == 201
        assert client.post("/api/submissions?model=Open-Model", content=data).status_code == 409
        names = [r["model"] for r in client.get("/api/submissions").json()]
        page = client.get("/").text
    assert sorted(names) == ["open-model", "open-model", VICTIM, VICTIM]
    assert page.count(f">{VICTIM}</a>") == 2
    assert all(name not in page for name in LOOK_ALIKES.values())


@pytest.mark.parametrize("name", ["nul\x00name", "line\nbreak", "tab\there", "\u200b\u200b"])
def test_names_with_control_characters_or_nothing_visible_are_400(
    lb_data: dict[str, Path], db_url: str, name: str
) -> None:
    with _client(lb_data, db_url) as client:
        r = client.post("/api/submissions", params={"model": name}, content=lb_data["partial"].read_bytes())
        assert r.status_code == 400, r.text
        assert client.get("/api/submissions").json() == []


INVISIBLE = {
    "right-to-left override": ("\u202ekot-mitciv", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    "left-to-right isolate": ("victim-tok\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    "zero-width space": ("victim-tok\u200b", "U+200B ZERO WIDTH SPACE"),
    "zero-width joiner": ("victim\u200d-tok", "U+200D ZERO WIDTH JOINER"),
    "soft hyphen": ("vic\u00adtim-tok", "U+00AD SOFT HYPHEN"),
    "byte order mark": ("\ufeffvictim-tok", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
}


@pytest.mark.parametrize("form", list(INVISIBLE))
def test_names_with_invisible_format_characters_are_400_beside_an_owned_name(
    lb_data: dict[str, Path], db_url: str, form: str
) -> None:
    """Unicode category Cf is refused outright, whoever asks: ``%E2%80%AEkot-mitciv`` shows as
    "victim-tok" in a browser (it was accepted with 201 beside an owned ``victim-tok``)."""
    name, named = INVISIBLE[form]
    data = lb_data["partial"].read_bytes()
    owner = {"Authorization": "Bearer the-victims-own-token-123"}
    with _client(lb_data, db_url) as client:
        assert client.post(f"/api/submissions?model={VICTIM}", content=data, headers=owner).status_code == 201
        for headers in ({}, owner):
            r = client.post("/api/submissions", params={"model": name}, content=data, headers=headers)
            assert r.status_code == 400, (form, r.text)
            assert r.json()["error"] == (
                f"rejected: a model name cannot contain invisible format characters ({named}; "
                "bidirectional controls, zero-width characters, soft hyphens)"
            )
        if form == "right-to-left override":  # as a browser's address bar sends it
            r = client.post("/api/submissions?model=%E2%80%AEkot-mitciv", content=data, headers=owner)
            assert r.status_code == 400, r.text
        assert [r["model"] for r in client.get("/api/submissions").json()] == [VICTIM]


def test_odd_numbers_in_urls_are_400_or_404_never_500(lb_data: dict[str, Path], db_url: str) -> None:
    """TestClient re-raises a server error, so a 500 fails here with its traceback. Old main: 9
    such requests answered 500; on PostgreSQL ids from 2^31 up did too (a 32-bit id column)."""
    huge = "9" * 5000
    gets = {
        f"/?page={huge}": 400,
        "/?page=%C2%B2": 400,  # "²": str.isdigit() says yes, int() says no
        "/?page=%D9%A3": 400,  # Arabic-Indic three
        f"/api/submissions?offset={huge}": 400,
        f"/api/submissions?limit={huge}": 400,
        "/api/submissions?offset=%C2%B2": 400,
        "/api/submissions?limit=%C2%B2": 400,
        f"/api/submissions/{huge}": 400,
        f"/submissions/{huge}": 400,
        f"/api/submissions/{huge}/verdicts": 400,
        "/api/submissions/%C2%B2": 404,
        "/submissions/%C2%B2": 404,
        "/api/submissions/%C2%B2/verdicts": 404,
        f"/api/submissions/{2**31}": 404,
        f"/api/submissions/{2**32 + 1}/verdicts": 404,
        f"/submissions/{2**63 - 1}": 404,
        f"/api/submissions/{2**63 - 1}": 404,
    }
    admin = {"Authorization": "Bearer s3cret"}
    with _client(lb_data, db_url) as client:
        for url, status in gets.items():
            assert client.get(url).status_code == status, url[:80]
        for sid, status in ((huge, 400), ("%C2%B2", 404), (str(2**31), 404), (str(2**63 - 1), 404)):
            assert client.delete(f"/api/submissions/{sid}", headers=admin).status_code == status, sid[:40]
        assert client.post("/api/submissions?model=a%00b", content=lb_data["partial"].read_bytes()).status_code == 400


def test_every_response_carries_the_security_headers(lb_data: dict[str, Path], tmp_path: Path) -> None:
    with _client(lb_data, f"sqlite:///{tmp_path / 'lb.db'}") as client:
        responses = [
            client.get("/"),
            client.get("/api/submissions"),
            client.get("/submissions/12345"),  # 404
            client.post("/api/submissions?model=m", content=b"{oops"),  # 400
        ]
    for r in responses:
        csp = r.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["referrer-policy"] == "no-referrer"


def test_predictions_with_unicode_line_separators_upload(lb_data: dict[str, Path], tmp_path: Path) -> None:
    """robustcall writes U+2028 and U+0085 inside strings as they are; old main split the upload
    at them (``str.splitlines``) and refused our own file."""
    records = [PredictionRecord.model_validate_json(line) for line in lb_data["oracle"].read_text().splitlines()]
    for sep in ("\u2028", "\u0085", "\u2029"):
        records[0].prediction.raw_output = f"before{sep}after"
        text = "".join(dump_record(r) + "\n" for r in records)
        assert sep in text  # written raw, not escaped
        with _client(lb_data, f"sqlite:///{tmp_path / f'lb{ord(sep)}.db'}") as client:
            r = client.post("/api/submissions?model=m", content=text.encode())
            assert r.status_code == 201, (repr(sep), r.text[:300])
            assert r.json()["pert_acc"] == 1.0


def test_rows_are_marked_uploaded(lb_data: dict[str, Path], tmp_path: Path) -> None:
    with _client(lb_data, f"sqlite:///{tmp_path / 'lb.db'}") as client:
        sid = client.post("/api/submissions?model=m", content=lb_data["oracle"].read_bytes()).json()["id"]
        page = client.get("/").text
        row = client.get("/api/submissions").json()[0]
        detail = client.get(f"/submissions/{sid}").text
    assert row["origin"] == "uploaded"
    assert '<span class="badge src">uploaded</span>' in page.split('<table id="leaderboard">')[1]
    assert "nothing shows that" in page and "server-run" in page
    assert '<span class="badge src">uploaded</span>' in detail
    doc = (Path(__file__).parents[2] / "docs" / "leaderboard.md").read_text()
    assert "## What the board can verify" in doc and "1.000" in doc
