"""A real browser (Debian's Chromium, driven by Playwright) uploads a file through the page."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")


FITS_JS = """(() => {
  const h = document.getElementById('heat');
  return [h.scrollWidth, h.clientWidth, document.documentElement.scrollWidth, window.innerWidth];
})()"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(lb_data: dict[str, Path], tmp_path: Path) -> Iterator[str]:
    import uvicorn

    from robustcall.web import create_app

    port = _free_port()
    app = create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}", admin_token="s3cret")
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


def test_upload_through_the_page_shows_the_row(server: str, lb_data: dict[str, Path], tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            # bounds on a hang, not timings: a fully loaded 2-core CI machine once took over the
            # default 30 s to load the page (alone it takes 1 s)
            page.set_default_timeout(120_000)
            page.set_default_navigation_timeout(120_000)
            page.goto(server + "/")
            assert "No submissions yet" in page.inner_text("#leaderboard")
            page.fill("input[name=model]", "Oracle-7B")
            page.set_input_files("input[name=file]", str(lb_data["oracle"]))
            page.click("button[type=submit]")
            page.wait_for_selector("#model")
            assert "Oracle-7B" in page.inner_text("#model")
            page.screenshot(path=str(tmp_path / "submission.png"), full_page=True)
            for width in (1280, 760):  # the heat strip's 22 types fit without sideways scrolling
                page.set_viewport_size({"width": width, "height": 900})
                fits = page.evaluate(FITS_JS)
                assert fits[0] <= fits[1] and fits[2] <= fits[3], (width, fits)
                assert page.locator("#heat td").count() == 22
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(server + "/")
            row = page.inner_text("#leaderboard tbody tr")
            assert "Oracle-7B" in row and "1.000" in row  # fractions, as in the report and `score`
            # a bad file is refused on the page, and the table is unchanged
            bad = tmp_path / "bad.jsonl"
            bad.write_text("{oops\n")
            page.fill("input[name=model]", "Broken")
            page.set_input_files("input[name=file]", str(bad))
            page.click("button[type=submit]")
            assert "line 1: not JSON" in page.inner_text("#upload-error")
            assert "Broken" not in page.inner_text("#leaderboard")
            page.screenshot(path=str(tmp_path / "index.png"), full_page=True)
        finally:
            browser.close()
