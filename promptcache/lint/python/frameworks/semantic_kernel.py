"""Semantic Kernel (Python): a system or developer message added to a `ChatHistory` is the system
prompt, and a prompt function's `prompt=` text is a template judged by the static text after
what varies (checked against microsoft/semantic-kernel's `contents/chat_history.py` and
`functions/kernel_function_from_prompt.py`). `ChatHistory(system_message=...)` and an agent's
`instructions=` are system prompts by their keywords.

A prompt function's template (`prompt=`, `PromptTemplateConfig(template=...)`, a YAML prompt's
`template:` read by `KernelFunctionFromPrompt.from_yaml`, in the `semantic-kernel` format,
`{{$name}}`, or `handlebars`, `{{name}}`, or `jinja2`, `{{ name }}`) is filled by name from
`KernelArguments` where it runs: `kernel.invoke(function, arguments)`, `function.invoke(kernel,
arguments)`, `kernel.invoke_prompt(prompt, arguments=...)` (their other keywords are arguments
too); each variable is judged by the static text after it (`functions/kernel_arguments.py`,
`kernel.py`, `prompt_template/prompt_template_config.py`)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="semantic-kernel",
    sinks=(
        # On a history kept on an object (`self.history.add_system_message(...)`) the call starts
        # that conversation: what it adds is fixed for it (`conversation`).
        Sink(
            api="Semantic Kernel system message",
            suffixes=("add_system_message", "add_developer_message"),
            positional=((0, "system"),),
            keywords=(("content", "system"),),
            conversation=True,
        ),
        Sink(
            api="Semantic Kernel prompt function",
            suffixes=("KernelFunctionFromPrompt", "add_function", "create_function_from_prompt"),
            keywords=(("prompt", "template"),),
            roots=("semantic_kernel",),
        ),
        Sink(
            api="Semantic Kernel YAML prompt",
            suffixes=("KernelFunctionFromPrompt.from_yaml",),
            roots=("semantic_kernel",),
        ),
        Sink(
            api="Semantic Kernel prompt template config",
            suffixes=("PromptTemplateConfig",),
            keywords=(("template", "template"),),
            roots=("semantic_kernel",),
        ),
        Sink(
            api="Semantic Kernel arguments",
            suffixes=("KernelArguments",),
            roots=("semantic_kernel",),
        ),
        # On the kernel, whatever it is called (often a parameter or `self.kernel`): a name only
        # it uses, or `add_function` given a `plugin_name=` (the kernel's own signature).
        Sink(
            api="Semantic Kernel kernel function",
            suffixes=("add_function",),
            keywords=(("prompt", "template"),),
        ),
        Sink(
            api="Semantic Kernel prompt",
            suffixes=("invoke_prompt", "invoke_prompt_stream"),
            positional=((0, "template"),),
            keywords=(("prompt", "template"),),
            answers=True,
        ),
    ),
)

# How each `template_format` writes the use of a variable (the default is `semantic-kernel`).
VARIABLE_SYNTAX = (
    ("semantic-kernel", r"\{\{[^}]*?\$([A-Za-z_][A-Za-z0-9_]*)"),
    ("handlebars", r"\{\{\{?~?\s*(?:#(?:each|if|unless|with)\s+)?(?!else\b|this\b)([A-Za-z_]\w*)"),
    (
        "jinja2",
        r"\{\{-?\s*([A-Za-z_]\w*)|\{%-?\s*(?:for\s+[\w\s,]*?\s+in|if|elif)\s+(?:not\s+)?([A-Za-z_]\w*)",
    ),
)
# Methods that run a prompt function: on the kernel (`kernel.invoke(function, arguments)`) or
# on the function itself (`function.invoke(kernel, arguments)`), or an agent
# (`agent.get_response(messages=..., arguments=...)`), whose arguments fill its instructions.
INVOKE_METHODS = frozenset({"invoke", "invoke_stream", "get_response"})
# Loads a plugin folder of prompt functions (`parent_directory/plugin_name/`: a folder per
# function with `skprompt.txt` and `config.json`, or YAML prompt files), read by `_sk_plugins`.
PLUGIN_LOADER = "add_plugin"
# Agents whose `instructions=` is a template (the system prompt) filled by `arguments=`, made
# with the agent or given where it runs (`agents/chat_completion/chat_completion_agent.py`).
AGENTS = ("ChatCompletionAgent",)
# Keywords of those calls and of `invoke_prompt` that are not the template's arguments.
NOT_ARGUMENTS = frozenset(
    {"function", "arguments", "function_name", "plugin_name", "metadata", "prompt",
     "template_format", "prompt_template_config", "kernel", "settings"}
)  # fmt: skip

# Classes whose object is a conversation's history, created with its system message
# (`self.history = ChatHistory(system_message=...)`): kept on an object, that message is fixed
# for the conversation, as a kept message list's is.
CONVERSATIONS = frozenset({"ChatHistory"})
