# Our reproduction: per-request patient data in system messages, above the conversation; and a
# system f-string holding the patient id and retrieved context above the tool rules.
from typing import Optional

from langchain.agents import AgentExecutor, create_tool_calling_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate

BASE = "You assist nurses with wound-care questions. Rely on the chart when it is there."
TOOLS: list = []


async def answer(llm, message: str, history: list, long_context: str, rag_context: str) -> str:
    messages = [SystemMessage(content=BASE)]
    if long_context:
        messages.append(SystemMessage(content=f"Chart summary:\n{long_context}"))  # label: PC502
    if rag_context:
        messages.append(SystemMessage(content=f"Guideline excerpts:\n{rag_context}"))  # label: PC502
    for turn in history[-10:]:  # label: PC507
        cls = HumanMessage if turn["role"] == "user" else AIMessage
        messages.append(cls(content=turn["content"]))
    messages.append(HumanMessage(content=message))
    reply = await llm.ainvoke(messages)
    return reply.content


async def answer_with_tools(llm, message: str, patient_id: Optional[str], rag_context: str) -> str:
    system = f"""You assist nurses with wound-care questions.
Active patient: {patient_id or 'none'}
Guidelines: {rag_context[:500] if rag_context else 'none'}
Tool rules:
- For vitals call read_chart with patient_id="{patient_id or ''}".
- Answer in plain clinical language."""  # label@29: PC502 label@30: PC502 label@32: PC502
    prompt = ChatPromptTemplate.from_messages(
        [("system", system), ("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    )
    agent = create_tool_calling_agent(llm, TOOLS, prompt)
    executor = AgentExecutor(agent=agent, tools=TOOLS, max_iterations=4)
    result = await executor.ainvoke({"input": message})
    return result.get("output", "")
