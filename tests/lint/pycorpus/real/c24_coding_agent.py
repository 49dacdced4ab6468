# Origin: gauravsiwach/coding-agent, 01agent.py (licence not stated in the index). Excerpt.
# Held out. Not a buster: the "{datetime.now()}" below is plain text (no f prefix), the same bytes
# on every request.
from datetime import datetime

from dotenv import load_dotenv
from openai import OpenAI

load_dotenv()
client = OpenAI()

SYSTEM_PROMPT = """
    You are a helpful AI assistant.
    Today Date is {datetime.now()}

"""
response = client.chat.completions.create(
    model="gpt-4.1-mini",
    messages=[
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "What is date time today?"},
    ],
)
print(response.choices[0].message.content)
