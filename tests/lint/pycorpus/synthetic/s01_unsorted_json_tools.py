import json

from anthropic import Anthropic

client = Anthropic()


def build_tool_catalog(tools):
    catalog = {}
    for tool in tools:
        catalog[tool.name] = {"description": tool.description, "schema": tool.schema}
    return catalog


def ask(question, tools, history):
    catalog = build_tool_catalog(tools)
    system = "You can call these tools:\n" + json.dumps(catalog, indent=2)  # label: PC503
    return client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        system=system,
        messages=[*history, {"role": "user", "content": question}],
    )
