# Origin: surajvkothari/ai-coding, Part_1/first_task/poc_bot.py (licence not stated in the index).
# Excerpt.
from openai import OpenAI


def bot(msg):
    client = OpenAI()

    system_prompt = """You are an assistant that produces a list of the user's personal details (example: the city they live in, how old they are, their name, etc.),
    or the user's personal preferences that are mentioned in their message.
    """

    response = client.chat.completions.create(
        model="gpt-3.5-turbo",
        messages=[
            {"role": "system", "content": system_prompt},
            {"role": "user", "content": msg},
        ],
    )

    return response.choices[0].message.content
