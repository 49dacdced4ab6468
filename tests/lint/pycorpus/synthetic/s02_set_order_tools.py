from openai import OpenAI

client = OpenAI()
ENABLED = {"search", "calculator", "calendar", "weather"}


def answer(question, history):
    names = ", ".join(ENABLED)  # label: PC504
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"You may use these tools: {names}."},
            *history,
            {"role": "user", "content": question},
        ],
    )


def tool_specs(registry):
    wanted = set(registry) - {"debug"}
    return [registry[name] for name in wanted]  # label: PC504


def answer_with_tools(question, registry):
    return client.chat.completions.create(
        model="gpt-4o",
        tools=tool_specs(registry),
        messages=[{"role": "user", "content": question}],
    )
