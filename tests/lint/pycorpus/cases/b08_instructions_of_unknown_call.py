# Our reproduction: the date concatenated into a module prompt handed to the project's own agent
# factory as `instructions=`.
from datetime import datetime

from pydantic import BaseModel

from . import build_agent

today = datetime.today().strftime("%Y-%m-%d")  # label: PC501

PLANNER = (
    "You turn a question into web searches. "
    "Write between 3 and 8 distinct queries. "
    f"Note: today is {today}."
)


class Plan(BaseModel):
    queries: list[str]


planner = build_agent(name="Planner", instructions=PLANNER, output_type=Plan)
