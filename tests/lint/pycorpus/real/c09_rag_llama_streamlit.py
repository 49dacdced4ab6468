# Origin: SUPRAGNAK/rag-llama-streamlit, rag_chain.py (licence not stated in the index). Excerpt.
import streamlit as st
from openai import OpenAI

client = OpenAI(api_key=st.secrets["OPENAI_API_KEY"])


def query_llama_with_context(query, context_chunks):
    context = "\n".join(context_chunks)
    prompt = f"""Use the following context to answer the question.
If the context is not sufficient, say that politely.

Context:
{context}

Question: {query}

Answer:"""

    response = client.chat.completions.create(
        model="gpt-3.5-turbo",
        messages=[
            {"role": "system", "content": "You are a helpful assistant. You will repond to the the context, if required details are not available provide basic informtation through the genAI capabilities and do not hallucnate on the content created."},
            {"role": "user", "content": prompt},
        ],
    )

    return response.choices[0].message.content.strip()
