"""No cassette may hold a credential: not a header that carries one, nor a key's text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

CASSETTES = Path(__file__).resolve().parents[1] / "cassettes"
CREDENTIAL_HEADERS = {
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "proxy-authorization",
}
# Key shapes of the three vendors (and the fake keys the recorder uses).
KEY_PATTERNS = re.compile(r"sk-ant-[\w-]+|\bsk-[A-Za-z0-9_-]{8,}|AIza[\w-]{8,}|Bearer\s+\S+")


def credentials_in(text: str) -> list[str]:
    """Every credential header or key-shaped string in one cassette's YAML text."""
    found = [m.group(0) for m in KEY_PATTERNS.finditer(text)]
    for interaction in (yaml.safe_load(text) or {}).get("interactions", []):
        for part in ("request", "response"):
            headers = interaction.get(part, {}).get("headers", {}) or {}
            found += [name for name in headers if name.lower() in CREDENTIAL_HEADERS]
    return found


def _cassettes() -> list[Path]:
    return sorted(CASSETTES.rglob("*.yaml"))


def test_there_are_cassettes() -> None:
    assert len(_cassettes()) >= 10


@pytest.mark.parametrize("path", _cassettes(), ids=lambda p: str(p.relative_to(CASSETTES)))
def test_cassette_holds_no_credential(path: Path) -> None:
    assert credentials_in(path.read_text()) == []


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("authorization", "Bearer sk-FAKE-0000"),
        ("x-api-key", "sk-ant-FAKE-0000"),
        ("X-Goog-Api-Key", "AIza-FAKE-0000"),
    ],
)
def test_the_scan_finds_a_planted_credential(header: str, value: str) -> None:
    planted = yaml.safe_dump(
        {"interactions": [{"request": {"headers": {header: [value]}}, "response": {"headers": {}}}]}
    )
    assert header in credentials_in(planted)
    assert credentials_in(planted.replace(header, "x-other")) != []  # the value alone is caught too
