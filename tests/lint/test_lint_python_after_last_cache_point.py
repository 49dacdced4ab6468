"""
Content after a request's last explicit cache point is never read from the cache, whatever it
holds: a clock in an Anthropic system block after the last `cache_control` mark (or a Bedrock
system block after its last `cachePoint`), with no later mark in the history and no automatic
caching (a top-level `cache_control=`), changes nothing the cache keeps. It was reported as
PC501 "the whole conversation that follows it is prefilled again", which is not true there.
"""

from __future__ import annotations

from pathlib import Path

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source

ANTHROPIC = """
from datetime import datetime
import anthropic
client = anthropic.Anthropic()
RULES = "Answer from the refund policy only, citing its section. " * 200
def ask(history, question):
    system = [
        {"type": "text", "text": RULES, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": f"The time is {datetime.now().isoformat()}."},
    ]
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=512, system=system,
        messages=[*history, {"role": "user", "content": question}])
"""
CLOCK_BLOCK = '        {"type": "text", "text": f"The time is {datetime.now().isoformat()}."},\n'
MARKED_BLOCK = '        {"type": "text", "text": RULES, "cache_control": {"type": "ephemeral"}},\n'


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_python_source(source)]


def test_a_clock_after_the_last_cache_point_is_quiet() -> None:
    assert _codes(ANTHROPIC) == []


def test_a_clock_before_the_marked_block_is_reported() -> None:
    before = ANTHROPIC.replace(MARKED_BLOCK + CLOCK_BLOCK, CLOCK_BLOCK + MARKED_BLOCK)
    assert _codes(before) == [(8, "PC501")]


def test_a_clock_in_the_marked_block_is_reported() -> None:
    inside = ANTHROPIC.replace(
        MARKED_BLOCK + CLOCK_BLOCK,
        '        {"type": "text", "text": RULES + f"The time is {datetime.now()}.",\n'
        '         "cache_control": {"type": "ephemeral"}},\n',
    )
    assert _codes(inside) == [(8, "PC501")]


def test_automatic_caching_marks_the_newest_turn_so_the_clock_is_reported() -> None:
    # A top-level `cache_control=` puts a mark on the last block: the conversation is cached.
    automatic = ANTHROPIC.replace(
        "max_tokens=512,", 'max_tokens=512, cache_control={"type": "ephemeral"},'
    )
    assert _codes(automatic) == [(9, "PC501")]


def test_a_mark_in_the_history_makes_the_clock_reported() -> None:
    # A second mark on the newest turn: the conversation is cached up to it, after the clock.
    marked = ANTHROPIC.replace(
        '{"role": "user", "content": question}',
        '{"role": "user", "content": [{"type": "text", "text": question,'
        ' "cache_control": {"type": "ephemeral"}}]}',
    )
    assert _codes(marked) == [(9, "PC501")]


def test_a_request_whose_options_are_spread_keeps_the_clock_reported() -> None:
    # `**options` may carry `cache_control` (automatic caching): what is cached is unknown.
    spread = ANTHROPIC.replace("max_tokens=512,", "max_tokens=512, **options,").replace(
        "def ask(history, question):", "def ask(history, question, options):"
    )
    assert _codes(spread) == [(9, "PC501")]


BEDROCK = """
from datetime import datetime
import boto3
client = boto3.client("bedrock-runtime")
RULES = "Answer from the refund policy only, citing its section. " * 200
def ask(history, question):
    system = [{"text": RULES}, {"cachePoint": {"type": "default"}},
              {"text": f"The time is {datetime.now().isoformat()}."}]
    return client.converse(modelId="anthropic.claude-sonnet-4-5", system=system,
        messages=[*history, {"role": "user", "content": [{"text": question}]}])
"""


def test_a_clock_after_bedrocks_last_cache_point_is_quiet() -> None:
    assert _codes(BEDROCK) == []
    before = BEDROCK.replace(
        '[{"text": RULES}, {"cachePoint": {"type": "default"}},\n',
        '[{"text": RULES},\n',
    ).replace('.isoformat()}."}]', '.isoformat()}."}, {"cachePoint": {"type": "default"}}]')
    assert _codes(before) == [(8, "PC501")]


def _lint_project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    return sorted((Path(f.path).name, f.line, f.code) for f in found if f.code != "PC506")


# A helper of the project's own marks the newest turn: the mark is not in the module that sends
# the request, but the history is cached all the same, so the clock before it costs the cache.
MARKS_HISTORY = """
def with_breakpoint(messages):
    last = messages[-1]
    last["content"] = [{"type": "text", "text": last["content"],
                        "cache_control": {"type": "ephemeral"}}]
    return messages
"""


def test_a_history_marked_by_a_helper_in_another_module_keeps_the_clock_reported(
    tmp_path: Path,
) -> None:
    chat = ANTHROPIC.replace(
        "import anthropic\n", "import anthropic\nfrom caching import with_breakpoint\n"
    ).replace(
        'messages=[*history, {"role": "user", "content": question}])',
        'messages=with_breakpoint([*history, {"role": "user", "content": question}]))',
    )
    found = _lint_project(tmp_path, {"chat.py": chat, "caching.py": MARKS_HISTORY})
    assert ("chat.py", 10, "PC501") in found
