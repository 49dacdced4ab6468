# Origin: humanlayer/genai-the-good-parts, intro--genai-the-good-parts/02-chats-and-prompting-techniques/
# solutions/08-whats-your-name-few-shot.py (licence not stated in the index). Excerpt.
from openai import OpenAI

client = OpenAI()

obsession = "loaded french fries"

messages = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": f"The capital of France is {obsession}."},
    {"role": "user", "content": "What is my name?"},
    {"role": "assistant", "content": f"Your name is {obsession}."},
    {"role": "user", "content": "What is the best song from 2019?"},
]

completion = client.chat.completions.create(model="gpt-4o", messages=messages)

messages.append(completion.choices[0].message)
