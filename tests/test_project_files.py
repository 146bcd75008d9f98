"""What a project people build on ships: LICENSE as pyproject says, CITATION.cff naming the four papers
and the release the CLI reports, CHANGELOG.md with an Unreleased section on top."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from robustcall.cli.main import app

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds"


def test_the_license_file_is_the_apache_license_pyproject_names() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == {"text": "Apache-2.0"}
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:5] == ["Apache", "License", "Version", "2.0,", "January"]
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text


def test_the_citation_names_the_release_the_cli_reports() -> None:
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "Apache-2.0" and cff["authors"]
    res = CliRunner().invoke(app, ["version"])
    assert res.exit_code == 0 and res.output.startswith(f"robustcall {cff['version']} ")
    for ref in cff["references"]:
        assert ref["title"] and ref["authors"] and ref["type"]


def test_the_citation_names_the_four_papers_as_they_print_their_titles() -> None:
    if not SEEDS.is_dir():
        pytest.skip(f"the papers are not at {SEEDS}")
    titles = {" ".join(r["title"].split()) for r in yaml.safe_load((REPO / "CITATION.cff").read_text())["references"]}
    for paper in sorted(SEEDS.glob("00*.txt")):
        first = next(line for line in paper.read_text(encoding="utf-8").splitlines() if line.strip())
        assert " ".join(first.split()) in titles, paper.name


def test_the_changelog_opens_with_this_rounds_unreleased_changes() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0].startswith("Unreleased") and any(h.startswith("0.1.0") for h in headings)
    assert "### Moves figures" in text.split("## 0.1.0")[0]
