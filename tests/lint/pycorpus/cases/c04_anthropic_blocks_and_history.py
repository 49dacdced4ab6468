# Our reproduction of clean shapes: an Anthropic system given as text blocks, and history built
# from the previous response.
import os

from anthropic import Anthropic

client = Anthropic(api_key=os.getenv("ANTHROPIC_API_KEY"))

SYSTEM = [{"type": "text", "text": "You are a patient cooking assistant."}]

first = client.messages.create(
    model="claude-3-5-haiku-latest",
    max_tokens=500,
    system=SYSTEM,
    messages=[{"role": "user", "content": "How long do I boil an egg?"}],
)
second = client.messages.create(
    model="claude-3-5-haiku-latest",
    max_tokens=500,
    system=SYSTEM,
    messages=[
        {"role": "user", "content": "How long do I boil an egg?"},
        {"role": first.role, "content": first.content},
        {"role": "user", "content": "And a soft one?"},
    ],
)
print(second.content)
