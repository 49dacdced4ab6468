# Our reproduction of a clean shape: a module constant formatted into few-shot assistant turns.
from openai import OpenAI

client = OpenAI()
theme = "purple umbrellas"
messages = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What colour is the sky?"},
    {"role": "assistant", "content": f"The sky is full of {theme}."},
    {"role": "user", "content": "What should I wear?"},
]
completion = client.chat.completions.create(model="gpt-4o", messages=messages)
messages.append(completion.choices[0].message)
