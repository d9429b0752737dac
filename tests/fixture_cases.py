"""The recorded streams in tests/fixtures and their hand-checked expected results."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"

# Folder name -> protocol name, as `tui-agent parse --protocol` takes it.
PROTOCOL_OF_FOLDER = {
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini-interactions": "gemini-interactions",
    "gemini-generatecontent": "gemini",
}


@dataclass(frozen=True)
class FixtureCase:
    protocol: str
    path: Path

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.stem}"

    @property
    def body(self) -> bytes:
        return self.path.read_bytes()

    @property
    def expected(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.path.with_suffix(".expected.json").read_text())
        return result


def fixture_cases() -> list[FixtureCase]:
    cases = []
    for folder, protocol in PROTOCOL_OF_FOLDER.items():
        for path in sorted((FIXTURES / folder).glob("*.sse")):
            cases.append(FixtureCase(protocol, path))
    return cases


CASES = fixture_cases()
