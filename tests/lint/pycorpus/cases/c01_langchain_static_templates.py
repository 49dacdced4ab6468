# Our reproduction of clean shapes: static LangChain system messages; per-request values only in
# the user turn; an assistant name that is configuration, not request data.
from langchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.output_parsers import StrOutputParser
from langchain_openai import ChatOpenAI

AGENT_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "You help with spreadsheets. Be brief."),
        ("user", "{input}"),
        MessagesPlaceholder(variable_name="agent_scratchpad"),
    ]
)

FEW_SHOT = ChatPromptTemplate.from_messages(
    [
        ("system", "You are a museum guide called {name}."),
        ("user", "When does the museum open?"),
        ("ai", "At nine, every day but Monday."),
        ("user", "{user_input}"),
    ]
)
greeting = FEW_SHOT.format_messages(name="Iris", user_input="Is there a cafe?")

QA = ChatPromptTemplate.from_messages(
    [
        ("system", "Answer only from the context and cite the section ids, e.g. [s2]."),
        ("user", "Context:\n{context}\n\nQuestion:\n{question}"),
    ]
)
chain = QA | ChatOpenAI(model="gpt-4.1-mini", temperature=0) | StrOutputParser()
