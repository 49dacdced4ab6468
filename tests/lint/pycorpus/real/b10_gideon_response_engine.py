# Origin: rapdevr/python-gideon, responseEngine_gen1/main.py (licence not stated in the index).
# Excerpt; the API key in the original is replaced by an environment lookup. Held out: added after
# the analysis was tuned, scored without changing it.
import os
from datetime import date, datetime

import openai

openai.api_key = os.environ.get("OPENAI_API_KEY")

now = datetime.now()  # label: PC501
DATE = date.today()  # label: PC501
TIME = now.strftime("%H:%M:%S")

response = openai.ChatCompletion.create(
    model="gpt-3.5-turbo",
    messages=[
        {"role": "system", "content": f"You are ChatGPT, a large language model trained by OpenAI. Answer as concisely as possible.\nKnowledge cutoff: 2021-09-01\nCurrent date: {DATE}\nCurrent time: {TIME}"},
        {"role": "user", "content": "How are you?"},
        {"role": "assistant", "content": "I am doing well"},
        {"role": "user", "content": "What is the tallest mountain in the world?"},
    ],
)
print(response)
