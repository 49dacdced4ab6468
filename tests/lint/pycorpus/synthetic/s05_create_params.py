import uuid

from anthropic import Anthropic

client = Anthropic()


def call(question, history):
    params = {"model": "claude-sonnet-4-5", "max_tokens": 512}
    params["system"] = f"Trace {uuid.uuid4()}. You are a support agent."  # label: PC501
    params["messages"] = [*history, {"role": "user", "content": question}]
    return client.messages.create(**params)
