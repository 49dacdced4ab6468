"""Chat templates: date injection (PC301) and history that re-renders (PC302)."""

from __future__ import annotations

import json
from pathlib import Path

from promptcache.lint import lint_file, lint_source

from ._helpers import codes

DATA = Path(__file__).parent / "data" / "chat"


def _codes(name: str) -> list[str]:
    return [f.code for f in lint_file(DATA / name)]


def test_llama31_date_injection_is_reported_where_rendered() -> None:
    (finding,) = lint_file(DATA / "llama31_date.jinja")
    assert (finding.code, finding.line) == ("PC301", 17)
    assert "strftime_now()" in finding.message
    assert "whole conversation" in finding.message


def test_date_rendered_after_the_history_is_fine() -> None:
    assert _codes("date_at_generation.jinja") == []


def test_plain_chatml_is_clean() -> None:
    assert _codes("chatml_clean.jinja") == []


def test_qwen3_reasoning_dropped_before_last_query() -> None:
    # QwenLM/Qwen3 #131/#112 (D4): reasoning kept only after the last user query.
    findings = lint_file(DATA / "qwen3_reasoning.jinja")
    assert [f.code for f in findings] == ["PC302", "PC302", "PC302"]
    lines = [f.line for f in findings]
    assert lines == [22, 26, 28]
    assert "position" in findings[1].message


def test_empty_think_literal_for_history_turns() -> None:
    # nibor1896/Crow#60 (D3): an empty think block for turns whose reasoning was omitted.
    source = (
        "{% for m in messages %}{% if m.role == 'assistant' %}"
        "{{ '<think>\\n\\n</think>' + m.content }}{% else %}{{ m.content }}{% endif %}"
        "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    assert codes(source) == ["PC302"]


def test_empty_think_at_the_generation_prompt_is_fine() -> None:
    source = (
        "{% for m in messages %}{{ m.content }}{% endfor %}"
        "{% if add_generation_prompt %}{{ '<think>\\n\\n</think>' }}{% endif %}"
    )
    assert codes(source) == []


def test_loop_first_is_stable() -> None:
    source = (
        "{% for m in messages %}{% if loop.first %}<think>sys</think>{% endif %}"
        "{{ m.content }}{% endfor %}{% if add_generation_prompt %}A:{% endif %}"
    )
    assert codes(source) == []


def test_chat_mode_does_not_use_prompt_per_request_names() -> None:
    # `user` and `query` are ordinary words in chat templates, not per-request variables.
    source = (
        "{% set user = 'user' %}{{ query }}{% for m in messages %}{{ m.content }}{% endfor %}"
        "{% if add_generation_prompt %}A:{% endif %}"
    )
    assert codes(source) == []


def test_date_string_variable_before_history() -> None:
    source = (
        "Today: {{ date_string }}\n{% for m in messages %}{{ m.content }}{% endfor %}"
        "{% if add_generation_prompt %}A:{% endif %}"
    )
    assert codes(source) == ["PC301"]


def test_generation_tag_parses() -> None:
    source = (
        "{% for m in messages %}{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}"
        "{% if add_generation_prompt %}A:{% endif %}"
    )
    assert codes(source) == []


def test_tokenizer_config_single_template(tmp_path: Path) -> None:
    template = (DATA / "llama31_date.jinja").read_text()
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps({"bos_token": "<s>", "chat_template": template}, indent=2))
    (finding,) = lint_file(path)
    assert finding.code == "PC301"
    assert finding.line == 3  # the line of the "chat_template" key
    assert finding.message.startswith("chat_template line 17: ")


def test_tokenizer_config_named_templates(tmp_path: Path) -> None:
    templates = [
        {"name": "default", "template": (DATA / "chatml_clean.jinja").read_text()},
        {"name": "tool_use", "template": (DATA / "qwen3_reasoning.jinja").read_text()},
    ]
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps({"chat_template": templates}))
    findings = lint_file(path)
    assert {f.code for f in findings} == {"PC302"}
    assert all(f.message.startswith("chat_template['tool_use']") for f in findings)


def test_tokenizer_config_without_template_or_broken(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps({"bos_token": "<s>"}))
    assert lint_file(path) == []
    path.write_text('{"chat_template": ')
    (finding,) = lint_file(path)
    assert finding.code == "PC001" and "invalid JSON" in finding.message


def test_chat_flag_forces_mode() -> None:
    source = "{{ strftime_now('%Y') }}{% for m in messages %}{{ m.content }}{% endfor %}"
    # No role test and no special token: not detected as a chat template. What follows is
    # content of unknown size, not a conversation.
    (plain,) = lint_source(source)
    assert plain.code == "PC101" and "content of unknown size" in plain.message
    assert "conversation" not in plain.message
    assert codes(source, chat=True) == ["PC301"]
    assert [f.code for f in lint_source(source, path="chat_template.jinja")] == ["PC301"]
