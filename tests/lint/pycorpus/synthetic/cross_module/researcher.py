from langchain_core.messages import HumanMessage, SystemMessage

from .prompts import RESEARCH_PROMPT
from .utils import get_today_str


async def researcher(state, model):
    system = RESEARCH_PROMPT.format(date=get_today_str(), topic=state["topic"])
    messages = [SystemMessage(content=system), *state["messages"]]  # label: PC501
    messages.append(HumanMessage(content=state["question"]))
    return await model.ainvoke(messages)
