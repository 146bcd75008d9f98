"""The embedded model's own client defaults: its first byte is its last, so no first-byte timeout."""

from __future__ import annotations

from pathlib import Path

from robustcall.models import load_settings
from robustcall.models._factory import LOCAL_DEFAULTS


def test_local_defaults_lift_the_first_byte_timeout_and_a_settings_file_still_wins(tmp_path: Path) -> None:
    assert load_settings(None, "local", LOCAL_DEFAULTS).first_byte_timeout_s == 0.0
    assert load_settings(None, "local", LOCAL_DEFAULTS).timeout_s == 1800.0
    assert load_settings(None, "gpt-x").timeout_s == 120.0
    assert load_settings(None, "gpt-x").first_byte_timeout_s == 60.0
    path = tmp_path / "s.yaml"
    path.write_text("local:\n  first_byte_timeout_s: 30\n")
    assert load_settings(path, "local", LOCAL_DEFAULTS).first_byte_timeout_s == 30.0
    path.write_text("default:\n  max_tokens: 64\n")
    local = load_settings(path, "local", LOCAL_DEFAULTS)
    assert (local.first_byte_timeout_s, local.max_tokens) == (0.0, 64)
