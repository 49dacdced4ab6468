from datetime import datetime

from anthropic import Anthropic

client = Anthropic()
SYSTEM = "You are a support agent. Follow the refund policy."


def ask(history, question):
    stamp = datetime.now().isoformat()
    return client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=512,
        system=SYSTEM,
        messages=[*history, {"role": "user", "content": f"[{stamp}] {question}"}],
    )
