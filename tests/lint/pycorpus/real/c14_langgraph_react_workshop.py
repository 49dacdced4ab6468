# Origin: krajit/langgraph-workshop, 02_react_langgraphDevelopmentFlow/agent.py (licence not stated
# in the index). Excerpt.
from langchain.chat_models import init_chat_model
from langchain_core.messages import SystemMessage
from langchain_core.tools import tool
from langgraph.graph import MessagesState

llm = init_chat_model("gpt-4o", model_provider="openai")


@tool
def add(a: int, b: int) -> int:
    """Adds a and b."""
    return a + b


sys_msg = SystemMessage(content="You are a helpful assistant. You have acces to web search tool and some arithmetic tool. Feel free to use these tools if you can not answer the question directly.")


def assistant(state: MessagesState):
    llm_with_tools = llm.bind_tools([add], parallel_tool_calls=False)
    return {"messages": [llm_with_tools.invoke([sys_msg] + state["messages"])]}
