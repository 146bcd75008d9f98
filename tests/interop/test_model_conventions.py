"""The usual model conventions: ``openai/<model>`` with ``--base-url`` or ``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, the proxy variables as the openai SDK reads them, ``robustcall --version``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from mock_servers import ChatServer, ProxyServer, self_signed_cert
from typer.testing import CliRunner

from robustcall import __version__
from robustcall.cli.main import app
from robustcall.models import DEFAULT_CONCURRENCY, OPENAI_DEFAULT_BASE_URL, make_model, resolve_base_url
from robustcall.models._proxy import proxy_for

runner = CliRunner()


def _run(bench: Path, out: Path, *args: str) -> list[dict[str, object]]:
    res = runner.invoke(app, ["run", "--bench", str(bench), "--out", str(out), "--types", "clean", *args])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def test_version_flag_and_version_command_agree() -> None:
    flag, command = runner.invoke(app, ["--version"]), runner.invoke(app, ["version"])
    assert (flag.exit_code, command.exit_code) == (0, 0)
    assert flag.output == command.output
    assert flag.output.startswith(f"robustcall {__version__} (scoring path: ")
    assert re.search(r"\(scoring path: (compiled \d+/\d+|pure Python \(.+\))", flag.output), flag.output


def test_openai_slash_model_with_base_url_flag_and_api_key(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    server = ChatServer()
    try:
        records = _run(tiny_bench, tmp_path / "r", "--model", "openai/qwen-7b", "--base-url", server.base_url)
    finally:
        server.stop()
    assert len(records) == len(server.seen) == 4
    assert {s.body["model"] for s in server.seen} == {"qwen-7b"}
    assert {s.headers["Authorization"] for s in server.seen} == {"Bearer sk-test-123"}
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert (meta["model"], meta["base_url"]) == ("openai/qwen-7b", server.base_url)


def test_openai_slash_model_reads_openai_base_url(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = ChatServer()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    try:
        _run(tiny_bench, tmp_path / "r", "--model", "openai/m")
    finally:
        server.stop()
    assert len(server.seen) == 4
    assert "Authorization" not in server.seen[0].headers


def test_colon_spec_still_works_and_spec_errors_are_one_line(tiny_bench: Path, tmp_path: Path) -> None:
    server = ChatServer()
    try:
        _run(tiny_bench, tmp_path / "r", "--model", f"openai:m@{server.base_url}")
        res = runner.invoke(
            app,
            ["run", "--bench", str(tiny_bench), "--out", str(tmp_path / "r2"), "--types", "clean",
             "--model", f"openai:m@{server.base_url}", "--base-url", "http://127.0.0.1:9/v1"],
        )  # fmt: skip
    finally:
        server.stop()
    assert len(server.seen) == 4
    assert res.exit_code != 0
    assert "namesitsownbaseURL" in "".join(c for c in res.output if c.isalnum())  # through rich's box


def test_spec_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_base_url("openai/gpt-4o") == ("gpt-4o", OPENAI_DEFAULT_BASE_URL)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.1:8000/v1")
    assert resolve_base_url("openai/org/model") == ("org/model", "http://10.0.0.1:8000/v1")
    assert resolve_base_url("openai/m", "http://h:1") == ("m", "http://h:1")
    assert resolve_base_url("openai:m@http://h:2/v1") == ("m", "http://h:2/v1")
    model = make_model("openai/m", base_url="http://h:3")
    assert (model.name, model.concurrency) == ("openai:m@http://h:3", DEFAULT_CONCURRENCY)  # type: ignore[attr-defined]
    for bad, message in (("openai/", "expected openai/<model>"), ("openai/m@x", "bad base URL")):
        with pytest.raises(ValueError, match=message):
            make_model(bad, base_url="ftp://x" if "@" in bad else None)
    with pytest.raises(ValueError, match="applies to openai/<model> specs"):
        make_model("scripted:oracle", base_url="http://h:1")


def test_proxy_variables_as_the_sdk_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://user:p%40ss@proxy.local:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example,127.0.0.1")
    p = proxy_for("https", "api.openai.com", 443)
    assert p is not None and (p.host, p.port, p.authorization) == ("proxy.local", 3128, "Basic dXNlcjpwQHNz")
    assert proxy_for("https", "gpu1.internal.example", 443) is None  # a suffix match
    assert proxy_for("https", "127.0.0.1", 8000) is None
    assert proxy_for("http", "api.openai.com", 80) is None  # no HTTP_PROXY
    monkeypatch.setenv("ALL_PROXY", "socks5://h:1080")
    with pytest.raises(ValueError, match="only http:// proxies"):
        proxy_for("http", "example.org", 80)


def test_http_endpoint_through_http_proxy_in_absolute_form(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, proxy = ChatServer(), ProxyServer()
    monkeypatch.setenv("HTTP_PROXY", f"http://u:pw@127.0.0.1:{proxy.port}")
    try:
        _run(tiny_bench, tmp_path / "r", "--model", "openai/m", "--base-url", server.base_url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        _run(tiny_bench, tmp_path / "r2", "--model", "openai/m", "--base-url", server.base_url)
    finally:
        server.stop()
        proxy.stop()
    assert len(server.seen) == 8
    assert len(proxy.log.requests) == 4  # the second run went direct
    assert set(proxy.log.requests) == {f"POST http://127.0.0.1:{server.port}/v1/chat/completions HTTP/1.1"}
    assert set(proxy.log.authorizations) == {"Basic dTpwdw=="}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl (to make a test certificate) not installed")
def test_https_endpoint_through_connect_tunnel(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = self_signed_cert(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the default context trusts our certificate
    server, proxy = ChatServer(tls=(cert, key)), ProxyServer()
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    try:
        records = _run(tiny_bench, tmp_path / "r", "--model", "openai/m", "--base-url", server.base_url)
    finally:
        server.stop()
        proxy.stop()
    assert len(server.seen) == 4 and all(r["prediction"].get("error") is None for r in records)  # type: ignore[union-attr]
    assert proxy.log.requests and set(proxy.log.requests) == {f"CONNECT 127.0.0.1:{server.port} HTTP/1.1"}


def test_model_and_base_url_are_one_spelling_for_the_audit_judge(tiny_bench: Path, tmp_path: Path) -> None:
    """``audit --model NAME --base-url URL`` is ``--judge-model`` / ``--judge-base-url`` (build's rewriter the same)."""
    from mock_servers import completion

    async def judge(body: dict[str, object]) -> dict[str, object]:
        return completion("4\nSame intent, minor loss.")

    server = ChatServer(judge)
    try:
        out = tmp_path / "audit.json"
        res = runner.invoke(
            app,
            ["audit", str(tiny_bench), "--model", "m", "--base-url", server.base_url, "--n", "2", "--json", str(out)],
        )
    finally:
        server.stop()
    assert res.exit_code == 0, res.output
    assert server.seen and {s.body["model"] for s in server.seen} == {"m"}
    assert json.loads(out.read_text())["realistic_typos"]["mean"] == 4.0
    build_help = " ".join(runner.invoke(app, ["build", "--help"]).output.split())
    assert "--llm-model, --model" in build_help and "--llm-base-url, --base-url" in build_help
