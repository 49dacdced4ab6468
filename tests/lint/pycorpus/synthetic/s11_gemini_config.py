from datetime import date

from google import genai
from google.genai import types

client = genai.Client()


def ask(question):
    config = types.GenerateContentConfig(
        system_instruction=f"Today is {date.today()}. You are a translator.",  # label: PC501
    )
    return client.models.generate_content(model="gemini-2.5-flash", contents=question, config=config)
