# Origin: NathanBick/chat-bot, chat-bot.py (licence not stated in the index). Excerpt.
# Held out: added after the analysis was tuned, scored without changing it.
import os
from datetime import datetime

import openai
import streamlit as st

openai.api_key = os.environ.get("OPEN_AI_API_KEY")

current_date = datetime.today().strftime('%Y-%m-%d')  # label: PC501

user_input = st.text_input("Enter your message")
button = st.button("Send Chat")

if button:
    completion = openai.ChatCompletion.create(
        model="gpt-3.5-turbo",
        messages=[
            {"role": "system", "content": f"You are oppositeChat, a large language model trained by the quintessential contrarian. It is always opposite day. Answer the user such that you always try to remain logically consistent in the context of it being opposite day.\nKnowledge cutoff: 2021-09-01\nCurrent date: {current_date}"},
            {"role": "user", "content": user_input},
        ],
    )
    st.write(str(completion["choices"][0]["message"]["content"]))
