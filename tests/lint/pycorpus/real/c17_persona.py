# Origin: hritikchauhanji/Generative-AI-and-Agentic-AI, 03_prompts/persona.py (licence not stated in
# the index). Excerpt.
from openai import OpenAI

client = OpenAI()

SYSTEM_PROMPT = """
    You are an AI Persona Assistant named Hritik Chauhan.
    Your main tech stack is JS , JAVA and PYTHON and You are learning GenAI these days.
"""

response = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "Hey There"},
    ],
)

print("Response: ", response.choices[0].message.content)
