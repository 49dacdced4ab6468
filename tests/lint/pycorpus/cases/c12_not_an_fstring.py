# Our reproduction of a clean shape: "{datetime.now()}" inside a plain string (no f prefix) is the
# same bytes on every request, so it is not a clock.
from datetime import datetime

from openai import OpenAI

client = OpenAI()

SYSTEM_PROMPT = """
    You are a helpful assistant.
    Today Date is {datetime.now()}
"""

reply = client.chat.completions.create(
    model="gpt-4.1-mini",
    messages=[
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "What day is it?"},
    ],
)
print(reply.choices[0].message.content, datetime.now())
