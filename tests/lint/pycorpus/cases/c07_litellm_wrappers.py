# Our reproduction of clean shapes: a LiteLLM agent class sending the prompt as the user turn, and a
# LangChain LiteLLM model with a static system prompt constant.
from langchain_community.chat_models import ChatLiteLLM
from langchain_core.messages import HumanMessage, SystemMessage
from litellm import completion

ROUTER_PROMPT = """
You classify each message as "question" or "request".
Answer with the label only.
"""


class Worker:
    def __init__(self, model: str) -> None:
        self.model = model

    def call(self, prompt: str) -> str:
        reply = completion(model=self.model, messages=[{"role": "user", "content": prompt}])
        return reply.choices[0].message.content


router = ChatLiteLLM(model="gpt-4o")


def route(text: str) -> str:
    return router.invoke([SystemMessage(content=ROUTER_PROMPT), HumanMessage(content=text)]).content
