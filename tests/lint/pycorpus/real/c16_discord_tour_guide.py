# Origin: Jbragantino/discord_chat_tour, src/gpt/gepeto.py (licence not stated in the index). Excerpt.
import os

import openai

openai.api_key = os.getenv("OPENAI_API_KEY")

base_prompt = [{
    "role": "system",
    "content": (
        "You're a tour guide responsible for giving "
        "recommendations of places to visit, restaurants, "
        "historical facts, curiosities and much more."
    ),
}]


def generate_prompt(user_messages: list[dict]) -> str:
    response = openai.ChatCompletion.create(
        model="gpt-3.5-turbo",
        messages=base_prompt + user_messages,
        temperature=1,
        max_tokens=500,
    )
    return response["choices"][0]["message"]
