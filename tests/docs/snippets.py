"""Run one Markdown page's ```python blocks in order, as one script, and check shown output.

    python tests/docs/snippets.py PAGE.md RESULT.json

Each block runs in one shared namespace (a page is one script); what a block prints is compared
with the ```text block that follows it directly (only blank lines between), when there is one.
Sockets may reach loopback only. The result file holds one JSON object: {"ok": bool, "error": str}.
Run in a fresh interpreter by tests/docs/test_snippets.py, in a temporary working directory.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

_FENCE = re.compile(r"^```(\w*)")
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True, slots=True, kw_only=True)
class Snippet:
    """A ```python block of a page, and the output the page shows for it (None: not shown)."""

    line: int  # 1-based line of the block's first code line
    code: str
    expected: str | None


def fences(text: str) -> list[tuple[str, int, int, str]]:
    """Every fenced block: (language, first content line, line after the closing fence, body)."""
    lines = text.splitlines()
    found: list[tuple[str, int, int, str]] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"line {i + 1}: a ``` fence is never closed")
        found.append((match.group(1), i + 2, end + 1, "\n".join(lines[i + 1 : end])))
        i = end + 1
    return found


def snippets(text: str) -> list[Snippet]:
    """The page's Python blocks in order, each with the ```text block right after it, if any."""
    lines = text.splitlines()
    blocks = fences(text)
    out: list[Snippet] = []
    for k, (language, first, after, body) in enumerate(blocks):
        if language != "python":
            continue
        expected = None
        if k + 1 < len(blocks) and blocks[k + 1][0] == "text":
            between = lines[after : blocks[k + 1][1] - 2]
            if all(not line.strip() for line in between):
                expected = blocks[k + 1][3]
        out.append(Snippet(line=first, code=body, expected=expected))
    return out


def _normalised(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _offline(event: str, args: tuple[object, ...]) -> None:
    if event != "socket.connect":
        return
    address = args[1]
    host = address[0] if isinstance(address, tuple) else address
    remote = isinstance(host, str) and host not in _LOOPBACK and not host.startswith("127.")
    if remote and "/" not in host:  # a unix socket path is local
        raise OSError(f"a docs snippet tried to reach the network: {address!r}")


def run_page(page: Path) -> str | None:
    """Run the page; None when every block ran and printed what the page shows, else why not."""
    namespace: dict[str, object] = {"__name__": "__main__"}
    for snippet in snippets(page.read_text(encoding="utf-8")):
        printed = io.StringIO()
        where = f"{page.name}:{snippet.line}"
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(snippet.code, where, "exec"), namespace)
        except BaseException:
            return f"the block at {where} raised:\n{traceback.format_exc(limit=-3)}"
        if snippet.expected is not None:
            got, want = _normalised(printed.getvalue()), _normalised(snippet.expected)
            if got != want:
                return f"the block at {where} printed:\n{got}\nbut the page shows:\n{want}"
    return None


def main(argv: list[str]) -> int:
    page, result = Path(argv[0]), Path(argv[1])
    sys.addaudithook(_offline)
    error = run_page(page)
    result.write_text(json.dumps({"ok": error is None, "error": error or ""}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
