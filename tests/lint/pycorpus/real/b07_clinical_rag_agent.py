# Origin: a public GitHub file, rag-agent/main.py of a clinical RAG service (the code index names no
# repository for it: index id 55871485565; licence unknown). Short excerpt of two functions.
from typing import Optional

from langchain.agents import AgentExecutor, create_tool_calling_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate

SYSTEM_PROMPT = """Eres un asistente clínico especializado en diabetes y retinopatía diabética.
Basa tus respuestas en evidencia clínica y datos reales del paciente cuando estén disponibles."""
AGENT_TOOLS: list = []


async def _standard_response(llm, message: str, history: list, rag_context: str, long_context: str) -> str:
    messages = [SystemMessage(content=SYSTEM_PROMPT)]

    if long_context:
        messages.append(SystemMessage(content=f"Historial previo del paciente:\n{long_context}"))  # label: PC502
    if rag_context:
        messages.append(SystemMessage(content=f"Contexto clínico relevante:\n{rag_context}"))  # label: PC502

    for turn in history[-10:]:
        if turn["role"] == "user":
            messages.append(HumanMessage(content=turn["content"]))
        else:
            messages.append(AIMessage(content=turn["content"]))

    messages.append(HumanMessage(content=message))
    response = await llm.ainvoke(messages)
    return response.content


async def _agentic_response(llm, message: str, history: list, patient_id: Optional[str],
                            rag_context: str, long_context: str) -> str:
    system = f"""Eres un asistente clínico especializado en diabetes y retinopatía diabética.
Tienes acceso a herramientas reales — ÚSALAS para responder, no inventes datos.

Paciente activo ID: {patient_id or 'no especificado'}
Contexto RAG: {rag_context[:600] if rag_context else 'Sin contexto adicional'}
{"Historial previo: " + long_context[:400] if long_context else ""}

Reglas de uso de herramientas (OBLIGATORIAS):
- "observaciones", "glucosa", "historial FHIR" → llama a query_fhir con patient_id="{patient_id or ''}"
- Responde siempre en español con lenguaje clínico preciso."""  # label@38: PC502 label@39: PC502 label@40: PC502

    prompt = ChatPromptTemplate.from_messages([
        ("system", system),
        ("human", "{input}"),
        ("placeholder", "{agent_scratchpad}"),
    ])
    agent = create_tool_calling_agent(llm, AGENT_TOOLS, prompt)
    executor = AgentExecutor(agent=agent, tools=AGENT_TOOLS, max_iterations=6)
    result = await executor.ainvoke({"input": message})
    return result.get("output", "")
