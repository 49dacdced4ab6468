import random

import litellm

GREETINGS = ["Hi!", "Hello!", "Hey there!"]


def chat(question, history):
    opener = random.choice(GREETINGS)  # label: PC501
    return litellm.completion(
        model="gpt-4o",
        messages=[{"role": "system", "content": f"Start with {opener} Be concise."},
                  *history,
                  {"role": "user", "content": question}],
    )
