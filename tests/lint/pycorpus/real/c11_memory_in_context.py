# Origin: AbhishekRP2002/llm-brain-dump-diy, llm-agent-memory-systems/01_add_memory_into_context.py
# (licence not stated in the index). Excerpt.
import json

from utils import client

agent_memory = {"human": "Name: Abhishek"}
system_prompt = (
    "You are an helpful AI assistant chatbot. "
    + "You have a section of your context called [MEMORY] "
    + "that contains information relevant to your conversation"
)

response = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[
        {"role": "system", "content": system_prompt + "[MEMORY]: \n" + json.dumps(agent_memory)},
        {"role": "user", "content": "What is my name?"},
    ],
    max_tokens=100,
    temperature=0.0,
)

print(response.choices[0].message.content)
