# Our reproduction: Pydantic AI system-prompt functions adding the caller's name and the date,
# in an agent whose later runs carry the conversation so far.
from datetime import date

from pydantic_ai import Agent, RunContext

concierge = Agent(
    "openai:gpt-4o",
    deps_type=str,
    system_prompt="Greet the guest by name and keep answers short.",
)


@concierge.system_prompt
def guest_name(ctx: RunContext[str]) -> str:
    return f"The guest is called {ctx.deps}."  # label: PC502


@concierge.system_prompt
def todays_date() -> str:
    return f"Today is {date.today()}."  # label: PC501


reply = concierge.run_sync("Is the pool open?", deps="Dana")
print(reply.output)
reply = concierge.run_sync("And the spa?", deps="Dana", message_history=reply.all_messages())
print(reply.output)
