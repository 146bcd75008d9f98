"""card.html in a real browser (Debian's Chromium, driven by Playwright): it renders, every figure has
a caption, and nothing is fetched from anywhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from robustcall.card import CARD_HTML

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_the_page_is_self_contained(biased_card: Path) -> None:
    page = (biased_card / CARD_HTML).read_text(encoding="utf-8")
    for needle in ("<script", "<link", "src=", "@import", "url(", "http://", "https://"):
        assert needle not in page.replace("http://www.w3.org/2000/svg", ""), needle
    assert page.count("<figure>") == page.count("<figcaption>") == page.count("<svg ") == 5


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_the_page_renders_with_a_caption_under_every_figure_and_no_request(biased_card: Path, tmp_path: Path) -> None:
    from playwright.sync_api import Request, sync_playwright

    url = (biased_card / CARD_HTML).resolve().as_uri()
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu", "--no-first-run"]
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(120_000)  # bounds on a hang under a loaded CI machine, not timings
            page.set_default_navigation_timeout(120_000)

            def seen(req: Request) -> None:
                requests.append(req.url)

            page.on("request", seen)
            page.goto(url)
            page.wait_for_load_state("networkidle")
            assert page.title() == "Robustness card: scripted:name_biased"
            figures = page.locator("figure")
            assert figures.count() == 5
            for i in range(figures.count()):
                fig = figures.nth(i)
                box = fig.locator("svg").bounding_box()
                assert box is not None and box["width"] > 300 and box["height"] > 50  # drawn, not empty
                caption = fig.locator("figcaption").inner_text().strip()
                assert caption.startswith(f"Figure {i + 1}:") and len(caption) > 40
            assert page.locator("table").count() >= 3
            text = page.inner_text("body")
            assert "The most damaging perturbations" in text and "rank" in text
            page.screenshot(path=str(tmp_path / "card.png"), full_page=True)
        finally:
            browser.close()
    assert requests == [url]  # the page itself, nothing else
