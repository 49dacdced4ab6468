# Origin: mmjiang2019/deeplearning_ai-lang_graph, agent/prompt.py (licence not stated in the index).
# Whole file.
from lang_graph_project.constants.prompt_templates import agent_system_prompt_template
from lang_graph_project.constants.variables import profile, prompt_instructions


def create_prompt(state):
    return [
        {
            "role": "system",
            "content": agent_system_prompt_template.format(
                instructions=prompt_instructions["agent_instructions"],
                **profile,
            ),
        }
    ] + state["messages"]
