import json

from openai import OpenAI

client = OpenAI()
ENABLED = {"search", "calculator"}


def answer(question, tools):
    catalog = {t.name: t.schema for t in tools}
    system = "Tools: " + json.dumps(catalog, sort_keys=True) + " Enabled: " + ", ".join(sorted(ENABLED))
    fixed = json.dumps({"format": "markdown", "max_words": 200})
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system + fixed}, {"role": "user", "content": question}],
    )
