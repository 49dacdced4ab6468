# Our reproduction of a clean shape: a LangGraph prompt function formatting a template with values
# imported from the project's configuration, followed by the conversation.
from myapp.config import assistant_profile, instructions
from myapp.templates import SYSTEM_TEMPLATE


def create_prompt(state):
    return [
        {
            "role": "system",
            "content": SYSTEM_TEMPLATE.format(
                instructions=instructions["triage"],
                **assistant_profile,
            ),
        }
    ] + state["messages"]
