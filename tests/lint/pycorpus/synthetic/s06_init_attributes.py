import datetime

from openai import OpenAI


class Assistant:
    def __init__(self, persona):
        self.client = OpenAI()
        self.system_prompt = f"{persona} Today is {datetime.date.today():%B %d}."  # label: PC501

    def ask(self, history, question):
        return self.client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": self.system_prompt}, *history,
                      {"role": "user", "content": question}],
        )
