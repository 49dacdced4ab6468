# Origin: KSHDestiny/Long-Term-Agentic-Memory-With-LangGraph, langgraph/prompts.py (licence not
# stated in the index). Whole file. Held out.
from prompts import agent_system_prompt
from setup import profile, prompt_instructions


def create_prompt(state):
    return [
        {
            "role": "system",
            "content": agent_system_prompt.format(
                instructions=prompt_instructions["agent_instructions"],
                **profile
            ),
        }
    ] + state["messages"]
