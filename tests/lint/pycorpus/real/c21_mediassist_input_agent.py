# Origin: pramodhkp/mediassist, mediassist-backend/agents/input_agent.py (licence not stated in the
# index). Excerpt.
from config import API_BASE_URL, API_KEY
from langchain_community.chat_models import ChatLiteLLM
from langchain_core.messages import HumanMessage, SystemMessage

INPUT_AGENT_SYSTEM_PROMPT = """
You're responsible for taking inputs from the user and understand the intent behind it.

USER_INTENT: "input" || "question"
DETAILS: <user's prompt>
"""

input_agent_llm = ChatLiteLLM(model="gpt-4o", api_base=API_BASE_URL, api_key=API_KEY)

