from anthropic import Anthropic

client = Anthropic()


def ask(question, tools):
    ordered = sorted(tools, key=lambda tool: hash(tool["name"]))  # label: PC505
    return client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=512,
        tools=ordered,
        messages=[{"role": "user", "content": question}],
    )
