# Our reproduction of clean shapes: literal multi-turn messages, a persona constant, a system prompt
# built in the function that sends it, a module-level base prompt plus the caller's messages.
from openai import OpenAI

client = OpenAI()

PERSONA = """
    You are Ada, a tutor for first-year statistics.
    You explain with small worked examples.
"""

BASE = [{"role": "system", "content": "You recommend hiking trails and huts in the Alps."}]


def ask_tutor(question: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": PERSONA}, {"role": "user", "content": question}],
    )
    return reply.choices[0].message.content


def extract_details(text: str) -> str:
    system_prompt = """You list the places and dates a traveller mentions, one per line.
    Say nothing else."""
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": text}],
    )
    return reply.choices[0].message.content


def plan(user_messages: list[dict]) -> str:
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=BASE + user_messages)
    return reply.choices[0].message.content


history = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Who painted the Night Watch?"},
        {"role": "assistant", "content": "Rembrandt, in 1642."},
        {"role": "user", "content": "Where is it now?"},
    ],
)
