# Our reproduction of a clean shape: json.dumps of a dict literal (its key order is written in the
# source) appended to a static system prompt.
import json

from openai import OpenAI

client = OpenAI()
memory = {"human": "Name: Robin", "persona": "A friendly assistant"}
system_prompt = "You are a chatbot with a [MEMORY] section. " + "Use it when it helps the answer."

reply = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[
        {"role": "system", "content": system_prompt + "[MEMORY]:\n" + json.dumps(memory)},
        {"role": "user", "content": "What is my name?"},
    ],
)
print(reply.choices[0].message.content)
