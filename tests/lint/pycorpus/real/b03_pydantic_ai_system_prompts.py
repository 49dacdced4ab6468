# Origin: Addisu87/exploring-pydanticai, backend/examples/system_prompts.py (licence not stated in
# the index; a short excerpt of a documentation example).
from datetime import date

from pydantic_ai import Agent, RunContext

agent = Agent(
    "openai:gpt-4o",
    deps_type=str,
    system_prompt="Use the customer's name while replaying to them.",
)


@agent.system_prompt
def add_the_users_name(ctx: RunContext[str]) -> str:
    return f"The user's name is {ctx.deps}."  # label: PC502


@agent.system_prompt
def add_the_date() -> str:
    return f"The date is {date.today()}."  # label: PC501


result = agent.run_sync("What is the date?", deps="John")
print(result.data)
