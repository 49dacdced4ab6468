"""
A variable of unknown meaning renders above a long static block.

Why:
    A name that is neither a known per-request value nor declared `stable` (`{{ persona }}`,
    `{{ system_resources }}`, a loop over `variables.items()`, the `{field}` of a prompt file
    written for `str.format`) may be the same on every request,
    or it may change per user, per agent or per request. Above a long static block (ten times
    `threshold`: 1000 estimated tokens by default, about the smallest prompt OpenAI and
    Anthropic's larger models cache, so a prefix worth caching on its own) a value that changes
    costs all of that text on every request. The linter cannot tell which it is, so it asks:
    declare the name `stable` (or give its size with `sizes`) when it is the same for every
    request, or move it below the static text. Shorter blocks after it are not reported, nor is
    static text that only adds up to that size between other values (a persona config whose
    fields run through the whole prompt): one uninterrupted block must follow it. In a user
    turn, where a variable is the request's own data, one block of `threshold` tokens is enough;
    in a system prompt, which the whole conversation follows, a block of five times `threshold`
    (500 tokens) is. A `{field}` on a line of its own in a prompt file written for `str.format`
    is a section of data the call that sends the text fills, mostly the request's own: a block
    of three times `threshold` (300 tokens) after it is enough. A tool list (`tools`,
    `available_tools`, `functions`), a date the deployment fixes (`knowledge_cutoff_date`,
    `model_release_date`), a count (`{max_length}`) and a language (`language_code`,
    `target_language`: one of the few a deployment answers in) are never of unknown meaning.
    A section of data, a value the prompt presents as the material it works on, is the
    request's own data, as a variable of a user turn is: one block of `threshold` tokens after
    it is enough, and so is the conversation the prompt writes after it. The prompt says so by
    a markdown heading or a label line over a value that opens its line, naming such material
    (`# Document:`, `Code changes (input):` also in markdown emphasis, `## Sample rows`,
    `参考资料：`; not `## Schema` nor `## Context`, as often the answer's shape or a standing
    description, nor a label that names the output's format, an example or the rules), or by
    the value's own name (`feed_json`, `unmatched_text`, `doc_content`, `sample_rows`: its last
    word; of an attribute, its object's: `document.text`, not `offer.summary`; not `example_json`
    nor `output_text`, whatever their heading).

Bad:
    {{ system_resources }}
    Stay in character: speak softly, tease a little, never lecture the user, and keep replies short.

Good:
    Stay in character: speak softly, tease a little, never lecture the user, and keep replies short.
    {# promptcache: tail #}
    {{ system_resources }}
"""

from __future__ import annotations

import re

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC106",
    name="unknown-variable-above-long-prefix",
    severity="warning",
    fix=(
        "declare it in `stable` in [tool.promptcache.lint] if it is the same on every request, "
        "else render it at the end of the template or below `{# promptcache: tail #}`"
    ),
)

# How many times `threshold` of static text must follow a name of unknown meaning: 1000 tokens at
# the default threshold, about the smallest prompt OpenAI and Anthropic's larger models cache.
LONG_PREFIX_FACTOR = 10
# In a system prompt the conversation follows the static block too, so a value that changes
# costs the block and every turn after it: half the block is enough to report it.
SYSTEM_PROMPT_FACTOR = 5

# A `{field}` on a line of its own in a prompt file written for `str.format` is a section of data
# that the very call sending the text fills (`.format(...)`, a LangChain `PromptTemplate`), mostly
# with that request's own, where a Jinja variable of a system prompt is as often configuration
# and a field inside a sentence a setting (`Answer in a {tone} tone.`): a block of three times
# `threshold` (about a dozen lines) is enough, in a user turn one of `threshold` still is.
FORMAT_FIELD_FACTOR = 3

# A tool list (`tools`, `available_tools`, `toolset.schema`, `functions`) is what a deployment gives the model,
# the most stable part of a prompt, never a value of unknown meaning; a count of the tools
# (`max_tools`, `tool_count`) is a setting, not the list.
_TOOL_WORDS = frozenset({"tool", "tools", "toolset", "toolbox", "functions"})
_COUNT_WORDS = frozenset({"max", "min", "num", "count", "number", "limit", "budget", "n"})


def is_tool_list(name: str) -> bool:
    """Whether a name is the tools (`available_tools`, `tools.schema`), not a count of them."""
    words = _words(name)
    return not words.isdisjoint(_TOOL_WORDS) and words.isdisjoint(_COUNT_WORDS)


def is_count(name: str) -> bool:
    """Whether a name holds a count or a limit (`max_length`, `maxPages`): a setting."""
    return not _words(name).isdisjoint(_COUNT_WORDS)


_WORD_BREAK = re.compile(r"[._]|(?<=[a-z0-9])(?=[A-Z])")  # `max_pages`, `tools.schema`, `maxPages`


def _words(name: str) -> set[str]:
    return {word.lower() for word in _WORD_BREAK.split(name)}


# A section of data: the words of a heading or a label line (`# Document V1:`, `Code changes
# (input):`, `## 参考资料`) that say the value under it is the material the prompt works on, a
# document, the input, code and its changes, a transcript or a log, rows of data, an earlier
# step's plan or results; Latin-script words match whole, the CJK ones (Chinese, Japanese,
# Korean) wherever they stand. Not `schema` nor `json`, as often the answer's shape (`## Schema`
# over the output's JSON schema), nor `context` or `reference`, as often a company's standing
# description or a style guide.
DATA_LABEL_WORDS = frozenset(
    {"document", "documents", "text", "texts", "input", "inputs", "data", "content"}
    | {"contents", "code", "diff", "diffs", "patch", "changes", "sql", "transcript", "article"}
    | {"excerpt", "excerpts", "snippet", "snippets", "report", "log", "logs", "results", "rows"}
    | {"records", "plan", "blueprint", "outline", "draft", "comments", "material", "materials"}
)
DATA_LABEL_CJK = (
    "资料", "資料", "数据", "數據", "文本", "文档", "文檔", "内容", "內容", "代码", "代碼",
    "输入", "輸入", "大纲", "大綱", "データ", "テキスト", "文書", "コード", "入力", "데이터",
    "문서", "텍스트", "코드", "입력", "내용", "자료",
)  # fmt: skip
# ... unless the label (or the value's name) names what the answer must look like or how to work
# (`Output schema:`, `Example input:`, `## Input format`, `Content policy:`, `输出格式`), or
# boilerplate: the prompt's own fixed text, not its data.
NOT_DATA_WORDS = frozenset(
    {"output", "response", "respond", "reply", "answer", "return", "format", "example"}
    | {"examples", "template", "style", "tone", "instruction", "instructions", "rule", "rules"}
    | {"guideline", "guidelines", "policy", "policies", "constraints", "requirements"}
    | {"persona", "system", "prompt"}
    # boilerplate a deployment writes the same way every time (`disclaimer_text`, `intro_text`,
    # `company_data`), not material of the request
    | {"intro", "introduction", "welcome", "greeting", "header", "footer", "closing"}
    | {"disclaimer", "signature", "default", "base", "static", "fixed", "company", "brand"}
)
NOT_DATA_CJK = (
    "输出", "輸出", "格式", "示例", "范例", "範例", "规则", "規則", "要求", "说明", "說明", "出力",
    "形式", "指示", "ルール", "출력", "형식", "예시", "규칙", "지침",
)  # fmt: skip
# The last word of a value's name that says it is such material (`feed_json`, `doc_content`,
# `sample_rows`, `architecture_plan`); not `code` (`language_code` is a setting), nor `context`
# (`skill_context` is a catalogue; PC102 knows the retrieved ones), nor `schema`.
DATA_NAME_WORDS = frozenset(
    {"text", "texts", "json", "document", "documents", "content", "contents", "diff", "sql"}
    | {"transcript", "excerpt", "snippet", "rows", "records", "plan", "outline", "draft"}
    | {"summary", "comments", "changes", "data", "input"}
)


def names_data(label: str) -> bool | None:
    """
    What a heading or a label line says of the value under it: True when it names the material
    the prompt works on, False when it names the output's format, an example or the rules
    (whatever else it names), None when it names neither.
    """
    words = {w.lower() for w in _LABEL_WORD.findall(label)}
    if not words.isdisjoint(NOT_DATA_WORDS) or any(w in label for w in NOT_DATA_CJK):
        return False
    if not words.isdisjoint(DATA_LABEL_WORDS) or any(w in label for w in DATA_LABEL_CJK):
        return True
    return None


def is_data_name(name: str) -> bool | None:
    """
    What a value's name says of it: True when it is the material the prompt works on
    (`unmatched_text`), False when it is the output's format, an example or the rules
    (`example_json`, `output_schema`: whatever its heading says), None when neither.
    """
    words = [w.lower() for w in _WORD_BREAK.split(name) if w]
    if not NOT_DATA_WORDS.isdisjoint(words):
        return False
    # An attribute names a part of its object, in the form it has (`offer.summary`,
    # `document.text`): the object says whether that is the material, by its own last word.
    said = [w.lower() for w in _WORD_BREAK.split(name.split(".", 1)[0]) if w]
    return True if said and said[-1] in DATA_NAME_WORDS else None


_LABEL_WORD = re.compile(r"[A-Za-z]+")
