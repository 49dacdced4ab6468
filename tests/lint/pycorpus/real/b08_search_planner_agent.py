# Origin: wiseman/smarter-websearch-mcp, planner_agent.py (licence not stated in the index). Excerpt.
from datetime import datetime

from pydantic import BaseModel

from . import make_agent

today = datetime.today().strftime("%Y-%m-%d")  # label: PC501

PROMPT = (
    "You are a search query planning assistant. Given a user's query, "
    "generate a set of diverse and effective web search queries to gather comprehensive information. "
    "Output between 3 and 10 search terms. "
    f"Additional info: today is {today}."
)


class SearchPlan(BaseModel):
    searches: list[str]


search_planner_agent = make_agent(
    name="SearchPlannerAgent",
    instructions=PROMPT,
    output_type=SearchPlan,
)
