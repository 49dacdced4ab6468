import time

from openai import OpenAI

client = OpenAI()
TEMPLATE = "You are a billing assistant. Session started at {started}.\n" + "Follow the refund policy. " * 40


def reply(question, history):
    ctx = {"started": time.strftime("%H:%M:%S")}  # label: PC501
    system = TEMPLATE.format(**ctx)
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system}, *history, {"role": "user", "content": question}],
    )
