# Our reproduction: a Streamlit chat page whose system message f-string carries the date,
# above the conversation kept in the session state.
import os
from datetime import datetime

import openai
import streamlit as st

openai.api_key = os.environ.get("OPENAI_API_KEY")
today = datetime.today().strftime("%Y-%m-%d")  # label: PC501

question = st.text_input("Ask the librarian")
if st.button("Send"):
    completion = openai.ChatCompletion.create(
        model="gpt-4o-mini",
        messages=[
            {
                "role": "system",
                "content": f"You are the town library's assistant. Today is {today}. Recommend books and opening hours.",
            },
            *st.session_state.history,
            {"role": "user", "content": question},
        ],
    )
    st.write(completion["choices"][0]["message"]["content"])
