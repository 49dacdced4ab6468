# Our reproduction: date and time taken at import, both in the system message of a few-shot chat,
# above its style guide.
import os
from datetime import date, datetime

import openai

openai.api_key = os.environ.get("OPENAI_API_KEY")

now = datetime.now()  # label: PC501
TODAY = date.today()  # label: PC501
CLOCK = now.strftime("%H:%M:%S")
STYLE = "Answer in one sentence. Name your source. Never guess a figure you do not know. " * 12

response = openai.ChatCompletion.create(
    model="gpt-4o-mini",
    messages=[
        {"role": "system", "content": f"You are a terse assistant.\nDate: {TODAY}\nTime: {CLOCK}\n{STYLE}"},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Which river is longest?"},
    ],
)
print(response)
