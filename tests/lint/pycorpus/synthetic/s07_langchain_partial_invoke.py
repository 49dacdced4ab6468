from datetime import datetime

from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_openai import ChatOpenAI

prompt = ChatPromptTemplate.from_messages([
    ("system", "You are a travel agent for {user_name}. Today is {date}. Follow the booking rules."),
    MessagesPlaceholder("history"),
    ("human", "{question}"),
])
dated = prompt.partial(date=datetime.now().strftime("%Y-%m-%d"))  # label: PC501
chain = dated | ChatOpenAI(model="gpt-4o")


def run(user_name, question, history):
    return chain.invoke({"user_name": user_name, "question": question, "history": history})  # label: PC502
