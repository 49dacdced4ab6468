# Our reproduction of clean shapes: retrieved context and the question placed in the user turn,
# after a static system prompt.
from openai import OpenAI

from search import top_passages

client = OpenAI()


def answer(query: str) -> str:
    context = top_passages(query)
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "Answer in one or two sentences, strictly from the context."},
            {"role": "user", "content": f"Question: {query}\n\nContext: {context}"},
        ],
    )
    return reply.choices[0].message.content


def answer_with_chunks(query: str, chunks: list[str]) -> str:
    joined = "\n".join(chunks)
    prompt = f"""Use the context to answer. Say so politely when it is not enough.

Context:
{joined}

Question: {query}
Answer:"""
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "You are a careful research assistant."},
            {"role": "user", "content": prompt},
        ],
    )
    return reply.choices[0].message.content.strip()
