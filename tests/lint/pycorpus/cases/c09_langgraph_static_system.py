# Our reproduction of clean shapes: a LangGraph node with a static SystemMessage before the state's
# messages, and a system f-string filled from a function that returns a constant list.
from langchain.chat_models import init_chat_model
from langchain.schema import HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.graph import MessagesState

llm = init_chat_model("gpt-4o", model_provider="openai")


@tool
def multiply(a: int, b: int) -> int:
    """Multiplies a and b."""
    return a * b


sys_msg = SystemMessage(content="You do arithmetic with the tools and explain each step.")


def assistant(state: MessagesState):
    bound = llm.bind_tools([multiply])
    return {"messages": [bound.invoke([sys_msg] + state["messages"])]}


def partner_libraries() -> list[str]:
    return ["astropy", "sunpy", "spacepy"]


def ask_catalogue(chat_history: list, prompt: str) -> str:
    turns = [
        SystemMessage(
            content=f"""You answer questions about our software catalogue.
If asked for the partner libraries, they are: {", ".join(partner_libraries())}.
"""
        )
    ] + chat_history
    turns.append(HumanMessage(content=prompt))
    return llm.invoke(turns).content
