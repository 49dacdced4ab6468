# Origin: uehaj/streamlit-article, chatai_util.py (licence not stated in the index). Whole file.
# Held out.
import os

from dotenv import load_dotenv
from openai import OpenAI

load_dotenv()

client = OpenAI(base_url=os.getenv("BASE_URL"), api_key=os.getenv("OPENAI_API_KEY"))

SYSTEM_PROMPT = {"role": "system", "content": "あなたは親切なAIチャットボットです。日本語で回答してください。"}


def chat_completion_stream(messages):
    response = client.chat.completions.create(
        model=os.getenv("MODEL"),
        messages=messages,
        stream=True,
    )
    return response
