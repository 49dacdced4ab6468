"""
A parameter of unknown origin opens a long system prompt or first turn.

Why:
    A function's parameter that is neither named as per-request data nor as a stable setting
    (`language`, `persona`, `model`, `tools`, `schema`, `config`: see `stable`), and that no call
    in the project fills with a constant, may be the same on every request or may change per
    user or per request: the analysis cannot tell. Placed in the system prompt (or the first
    turn) with a long block of static instructions after it (ten times `threshold`: 1000
    estimated tokens by default, as PC106 asks of a template's variable of unknown meaning), or
    with the conversation following the system prompt, a value that changes costs all of that on
    every request. The rule asks, as PC106 does for templates: declare the name `stable` when it
    is the same for every request, or move it after the static instructions (into the user turn).
    Quiet: a parameter with a constant default; one whose function is called in its own module
    (the calls say what it holds, and PC502 reports per-request data passed there); one every
    call in the project's other files passes a constant for (a literal, a name bound only to
    literals, a module constant; test files aside, and a file the reading cannot open or a
    project past 5,000 files leaves the question asked, its note saying which call or file
    stopped the proof); one used only as an object (its own methods called, piped as
    a runnable); one a PC502 finding of the function already covers (a run context, the code of
    a model's answer); the conversation a framework hands a custom model's method (a LangChain
    chat model's `_generate(self, messages)`, a LlamaIndex `CustomLLM`'s `chat`), judged where
    its caller builds it; a name the config or PC502 declares stable; a system message that
    nothing follows in the request that sends it; and shorter static text after it. A parameter
    written into the newest turn is not asked about: where no call in the project makes its
    function, PC502 reports it by default as its request's data.
    Opt-in: `select = ["PC", "PC508"]` in [tool.promptcache.lint], or `--select PC,PC508`, runs
    it. Measured on 319 real held-out files (issue #21), it found no buster the other rules
    missed and warned on two clean files, so it does not run by default.

Bad:
    HANDBOOK = "Cite the policy section you rely on; never promise a refund the policy denies."


    def answer(client, account_summary, question):
        system = "Account: " + account_summary + ". " + HANDBOOK
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
        )

Good:
    HANDBOOK = "Cite the policy section you rely on; never promise a refund the policy denies."


    def answer(client, account_summary, question):
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": HANDBOOK},
                {"role": "user", "content": "Account: " + account_summary + ". " + question},
            ],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC508",
    name="unknown-origin-above-long-prefix",
    severity="warning",
    fix=(
        "if it changes per request, move it after the static instructions, into the last user "
        "message; if it is the same on every request, declare its name in `stable` in "
        "[tool.promptcache.lint]"
    ),
)

# Names of settings that stay the same between requests (matched as words of the parameter's
# name): a parameter so named is not asked about.
STABLE_WORDS = frozenset(
    {
        "agent",
        "bot",
        "cfg",
        "config",
        "conf",
        "format",
        "instruction",
        "instructions",
        "lang",
        "language",
        "llm",
        "model",
        "name",
        "options",
        "persona",
        "prompt",
        "role",
        "rules",
        "schema",
        "settings",
        "style",
        "template",
        "tone",
        "tool",
        "tools",
    }
)
