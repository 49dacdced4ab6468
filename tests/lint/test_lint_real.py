"""
The classes of issue #10, each from a real-shaped template: what real projects ship.

The shapes reproduce real templates (Mistral and Firefunction chat templates, Llama 3.x and
gpt-oss dates, GraphRAG `str.format` prompts, SWE-agent and goose agent prompts, Home
Assistant's prompt with `now()` above a device list) in templates we wrote: inline below, and
files in tests/lint/cases/templates/ (the real files' provenance: bench/lint_corpus/legacy.toml).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_file, lint_paths, lint_source

from ._helpers import STATIC, codes, config

CASES = Path(__file__).parent / "cases" / "templates"

# -- 1. chat templates recognised by their structure ---------------------------------------------

# Mistral's function-calling template: no `add_generation_prompt`, tools before the last user turn.
MISTRAL_TOOLS = (
    "{{ bos_token }}{% set user_messages = messages | selectattr('role', 'equalto', 'user') "
    "| list %}{% for message in messages %}{% if message['role'] == 'user' %}"
    "{% if message == user_messages[-1] %}{% if tools %}{{ '[AVAILABLE_TOOLS]' + tools|string "
    "+ '[/AVAILABLE_TOOLS]' }}{% endif %}{% endif %}{{ '[INST]' + message['content'] + '[/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ ' ' + message['content'] + eos_token }}"
    "{% endif %}{% endfor %}"
)

# Firefunction v2: `datetime` joined to the system prompt, rendered with the first message.
FIREFUNCTION = (
    "{%- set loop_messages = messages -%}\n"
    "{%- set system_prompt_suffix = 'Available functions as JSON spec:\\n' + functions -%}\n"
    "{%- set system_prompt_suffix = system_prompt_suffix + '\\nToday is ' + datetime + '.' -%}\n"
    "{%- set ns = namespace(role='', content='') -%}\n"
    "{%- for message in loop_messages -%}\n"
    "  {%- set ns.role = message['role'] | lower -%}\n"
    "  {%- if loop.index0 == 0 -%}\n"
    "    {%- set ns.content = bos_token + '<|start_header_id|>system<|end_header_id|>\\n\\n'"
    " + system_prompt_suffix + '<|eot_id|>' -%}\n"
    "    {{- ns.content -}}\n"
    "  {%- endif -%}\n"
    "  {{- '<|start_header_id|>' + ns.role + '<|end_header_id|>\\n\\n' + message['content'] -}}\n"
    "{%- endfor -%}\n"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
)


def test_chat_template_without_add_generation_prompt_is_recognised() -> None:
    # A date before a Mistral-shaped messages loop: the conversation follows it, not 2 tokens.
    source = "{%- set today = strftime_now('%Y-%m-%d') %}[SYSTEM_PROMPT]{{ today }}" + MISTRAL_TOOLS
    found = lint_source(source, path="tool_chat_template_mistral3.jinja.txt")
    assert [f.code for f in found] == ["PC301", "PC302"]
    assert "whole conversation" in found[0].message


def test_firefunction_datetime_is_found_where_the_system_prompt_renders() -> None:
    (finding,) = lint_source(FIREFUNCTION)
    assert (finding.code, finding.line) == ("PC301", 9)
    assert "`ns.content` (set from the date variable `datetime` on line 3)" in finding.message
    assert "pass `datetime` with a value that changes once a day at most" in finding.message


def test_a_plain_prompt_mentioning_messages_is_not_a_chat_template() -> None:
    source = "Summarise the messages below.\n{% for m in messages %}{{ m }}\n{% endfor %}"
    assert codes(source) == []


# -- 2. history that moves -----------------------------------------------------------------------


def test_tools_attached_to_the_latest_user_message_move_every_turn() -> None:
    (finding,) = lint_source(MISTRAL_TOOLS)
    assert finding.code == "PC302"
    assert "`user_messages[-1]`" in finding.message


@pytest.mark.parametrize(
    "test",
    [
        "loop.last",
        "not loop.last",
        "loop.revindex0 == 0",
        "messages[-1].role == 'user' and message is messages[-1]",
        "loop.index0 == ns.last_user_index",
    ],
)
def test_any_output_that_depends_on_the_position_is_reported(test: str) -> None:
    source = (
        "{% for message in messages %}<|im_start|>{{ message.role }}\n"
        f"{{% if {test} %}}{{{{ system_reminder }}}}{{% endif %}}"
        "{{ message.content }}<|im_end|>{% endfor %}"
    )
    assert codes(source) == ["PC302"]


@pytest.mark.parametrize(
    "test",
    [
        "loop.last and add_generation_prompt",  # the generation prompt (granite-3.0)
        "(loop.last and add_generation_prompt) or not loop.last",  # ChatML in vLLM
        "loop.last or messages[loop.index0 + 1].role != 'tool'",  # closes a run of tool messages
        "loop.first",
        "loop.index0 == 0",
        "messages[loop.index0 - 1].role != 'tool'",  # look-behind: earlier messages do not move
    ],
)
def test_stable_position_tests_are_not_reported(test: str) -> None:
    source = (
        "{% for message in messages %}<|im_start|>{{ message.role }}\n"
        f"{{% if {test} %}}<|im_end|>{{% endif %}}{{{{ message.content }}}}{{% endfor %}}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    assert codes(source) == []


def test_a_separator_after_the_message_is_not_history_that_moves() -> None:
    # vLLM's Alpaca template: `\n\n\n` after a message when another one follows. Everything
    # before the separator renders the same on every turn.
    assert lint_file(CASES / "chat" / "separator_after_message.jinja") == []
    separator = (
        "{% for message in messages %}<|{{ message.role }}|>{{ message.content }}"
        "{% if not loop.last %}<|sep|>{% endif %}{% endfor %}"
    )
    assert codes(separator) == []


def test_content_attached_after_the_latest_message_still_moves() -> None:
    source = (
        "{% for message in messages %}<|{{ message.role }}|>{{ message.content }}"
        "{% if loop.last %}{{ tools | tojson }}{% endif %}{% endfor %}"
    )
    assert codes(source) == ["PC302"]


def test_loop_last_of_an_inner_loop_is_not_the_history() -> None:
    # vLLM's phi-4-mini and ToolACE templates separate tool calls with `not loop.last`.
    source = (
        "{% for message in messages %}<|{{ message.role }}|>{% for call in message.tool_calls %}"
        "{{ call.function.name }}{% if not loop.last %},{% endif %}{% endfor %}<|end|>"
        "{% endfor %}<|assistant|>"
    )
    assert codes(source) == []


# -- 3. date names, and a fix that fits the template ---------------------------------------------


def test_llama_date_string_is_pinnable() -> None:
    (finding,) = lint_file(CASES / "chat" / "date_string_default.jinja")
    assert (finding.code, finding.line) == ("PC301", 17)
    assert "pin `date_string` in the request" in finding.message


def test_gpt_oss_calls_strftime_now_itself() -> None:
    (finding,) = lint_file(CASES / "chat" / "strftime_in_macro.jinja")
    assert (finding.code, finding.line) == ("PC301", 8)
    assert "calls `strftime_now()` itself, so no request field can pin it" in finding.message
    assert "date_string" not in finding.message


@pytest.mark.parametrize("name", ["current_date", "run_date", "time", "datetime", "start_time"])
def test_date_names_in_chat_templates(name: str) -> None:
    source = (
        f"<|system|>Date: {{{{ {name} }}}}<|end|>{{% for m in messages %}}<|{{{{ m.role }}}}|>"
        "{{ m.content }}<|end|>{% endfor %}"
    )
    assert codes(source) == ["PC301"]


def test_date_names_in_prompt_files() -> None:
    assert codes("Today is {{ runtime_info.date }}.\n" + STATIC) == ["PC102"]
    assert codes("The current date is {{current_date_time}}.\n" + STATIC) == ["PC102"]
    assert codes("Now: {{ strftime_now('%H:%M') }}\n" + STATIC) == ["PC101"]


# -- 4. what follows counts: variables of unknown size -------------------------------------------


def test_now_above_a_device_list_is_reported_as_unknown_size() -> None:
    # Home Assistant's extended_openai_conversation prompt: little static text, a big list.
    (finding,) = lint_file(CASES / "prompts" / "now_above_device_list.j2")
    assert (finding.code, finding.line) == ("PC101", 4)
    assert "content of unknown size after it (`entity.entity_id`" in finding.message


def test_now_above_tools_tojson_is_reported() -> None:
    source = "Current time: {{ now() }}\n{{ tools | tojson }}\n{{ few_shot_examples }}"
    (finding,) = lint_source(source)
    assert finding.code == "PC101"
    assert "(`tools`, `few_shot_examples`)" in finding.message


def test_declared_sizes_count_instead() -> None:
    source = "Current time: {{ now() }}\nYou are {{ persona }}."
    assert codes(source) == ["PC101"]
    assert codes(source, config=config(sizes=(("persona", 10),))) == []
    assert codes(source, config=config(sizes=(("persona", 500),))) == ["PC101"]


def test_a_volatile_value_at_the_very_end_is_still_fine() -> None:
    assert codes("You are {{ persona }}.\n{{ tools | tojson }}\nNow: {{ now() }}") == []


# -- 5. per-request names, and strict mode --------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "problem_statement",
        "issue_body",
        "file_name",
        "old_content",
        "context_data",
        "memory_variables",
        "subagent_id",
        "retrieved_documents",
    ],
)
def test_real_per_request_names(name: str) -> None:
    assert codes(f"<task>\n{{{{ {name} }}}}\n</task>\n" + STATIC) == ["PC102"]


def test_swe_agent_problem_statement() -> None:
    (finding,) = lint_file(CASES / "prompts" / "problem_statement_above_instructions.j2")
    assert (finding.code, finding.line) == ("PC102", 7)


def test_strict_mode_suspects_every_name_not_declared_stable() -> None:
    source = "You are helping {{ customer_tier }} customers.\n" + STATIC
    assert codes(source) == []
    assert codes(source, config=config(strict=True)) == ["PC102"]
    stable = config(strict=True, stable=("customer_tier",))
    assert codes(source, config=stable) == []


# -- 6. str.format prompt files -------------------------------------------------------------------


def test_graphrag_format_file_with_doubled_braces_is_checked() -> None:
    (finding,) = lint_file(CASES / "prompts" / "format_context_data.txt")
    assert (finding.code, finding.line, finding.column) == ("PC105", 19, 1)
    assert "`{context_data}`" in finding.message


def test_format_file_with_only_stable_fields_is_clean() -> None:
    source = 'Answer as JSON: {{"points": []}}\nLimit: {max_length} words.\n' + STATIC
    assert codes(source) == []


def test_a_broken_jinja_template_is_still_a_parse_error() -> None:
    assert codes("{% if tools %}Use the tools." + STATIC) == ["PC001"]
    assert codes("You are {{ persona }.\n" + STATIC) == ["PC001"]


# -- 7. dict-order noise --------------------------------------------------------------------------


def test_chat_templates_iterate_request_json_in_its_own_order() -> None:
    for name in ("tools_in_system.jinja", "tool_run_lookahead.jinja"):
        assert lint_file(CASES / "chat" / name) == []


def test_app_mappings_and_literals_are_not_reported_but_strict_mode_does() -> None:
    source = "{% for host, port in runtime_info.available_hosts.items() %}{{ host }}{% endfor %}"
    assert codes(source + STATIC) == []
    assert codes(source + STATIC, config=config(strict=True)) == ["PC201"]


# -- 8. files that are not prompts ----------------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_folder_mode_skips_pages_generators_and_handlebars(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "site/index.html.j2": "<!DOCTYPE html><html>{{ now() }}" + STATIC + "</html>",
            "site/page.jinja": "{% extends 'base.html' %}{% block body %}{{ now() }}{% endblock %}",
            "deploy/nginx.conf.j2": "server { listen {{ port }}; }",
            "prompts/recipe.prompt": "---\nmodel: x\n---\n{{#if food}}{{food}}{{/if}}",
            "prompts/system.j2": "Now: {{ now() }}\n" + STATIC,
        },
    )
    found = lint_paths([tmp_path])
    shown = {(Path(f.path).name, f.code, f.severity) for f in found}
    assert shown == {
        ("index.html.j2", "PC003", "info"),
        ("page.jinja", "PC003", "info"),
        ("nginx.conf.j2", "PC003", "info"),
        ("recipe.prompt", "PC003", "info"),
        ("system.j2", "PC101", "warning"),
    }
    # Named on the command line, an HTML page is linted; Handlebars is never Jinja.
    assert [f.code for f in lint_paths([tmp_path / "site/index.html.j2"])] == ["PC101"]
    assert [f.code for f in lint_paths([tmp_path / "prompts/recipe.prompt"])] == ["PC003"]


def test_gitignore_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if subprocess.run(["git", "--version"], capture_output=True, check=False).returncode:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _tree(
        tmp_path,
        {
            ".gitignore": "build/\n*.generated.j2\n",
            "build/copy.j2": "Now: {{ now() }}\n" + STATIC,
            "prompts/x.generated.j2": "Now: {{ now() }}\n" + STATIC,
            "prompts/system.j2": "Now: {{ now() }}\n" + STATIC,
        },
    )
    found = lint_paths([tmp_path])
    assert [Path(f.path).name for f in found] == ["system.j2"]
    # The same from inside the work tree, with relative folders.
    monkeypatch.chdir(tmp_path)
    assert [f.path for f in lint_paths(["."])] == ["prompts/system.j2"]
    assert [f.path for f in lint_paths(["prompts"])] == ["prompts/system.j2"]


# -- 9. say what could not be checked -------------------------------------------------------------


def test_missing_include_is_an_info_finding(tmp_path: Path) -> None:
    _tree(tmp_path, {"main.j2": "{% include 'partials/header.j2' %}\n" + STATIC})
    (note,) = lint_file(tmp_path / "main.j2")
    assert (note.code, note.severity, note.line) == ("PC002", "info", 1)
    assert "could not check the included template 'partials/header.j2'" in note.message


def test_unknown_tag_asks_for_the_extension() -> None:
    (note,) = lint_source("{% now 'utc', '%a, %d %b %Y' %}\n" + STATIC)
    assert (note.code, note.severity) == ("PC002", "info")
    assert "`{% now %}`" in note.message and "`extensions`" in note.message


def test_extensions_are_loaded_from_the_config() -> None:
    # `jinja2.ext.debug` adds the `{% debug %}` tag: unknown until it is loaded.
    source = "{% debug %}\nNow: {{ now() }}\n" + STATIC
    assert codes(source) == ["PC002"]
    loaded = lint_source(source, config=config(extensions=("jinja2.ext.debug",)))
    # Loaded, the template is checked; what the tag itself renders is still said to be unknown.
    assert [f.code for f in loaded] == ["PC002", "PC101"]
    assert "the output of the `DebugExtension` extension's tag" in loaded[0].message


def test_an_extension_that_cannot_be_loaded_is_an_error_naming_it() -> None:
    from promptcache._errors import InputError

    with pytest.raises(InputError, match=r"no_such_package\.Ext"):
        lint_source("Hello", config=LintConfig(extensions=("no_such_package.Ext",)))


# -- 10. messages ---------------------------------------------------------------------------------


def test_a_set_chain_is_named_by_its_origin() -> None:
    source = (
        "{% set ts = now() %}{% set ts = 'At ' ~ ts %}{% set ts = ts ~ ':' %}"
        "{% set ts = ts ~ ' ' %}\n{{ ts }}\n" + STATIC
    )
    (finding,) = lint_source(source)
    assert "`ts` (set from volatile call `now()` on line 1)" in finding.message
    assert finding.message.count("set from") == 1


def test_one_finding_per_line_whatever_the_macro_path() -> None:
    source = (
        "{% macro stamp() %}{{ now() }}{% endmacro %}"
        "{% macro a() %}{{ stamp() }}{% endmacro %}{% macro b() %}{{ stamp() }}{% endmacro %}\n"
        "{{ a() }}{{ b() }}{{ stamp() }}\n" + STATIC
    )
    assert codes(source) == ["PC104"]
