# Origin: a public GitHub file, default_bot.py of PyHC-Chat (the code index names no repository for
# it: index id 27329818955; licence unknown). Short excerpt.
from config import model_name
from langchain.chat_models import ChatOpenAI
from langchain.schema import HumanMessage, SystemMessage


def get_other_pyhc_packages():
    return ["AFINO", "CCSDSPy", "dbprocessing", "enlilviz", "GeospaceLAB", "OMMBV", "pyDARN"]


def let_pyhc_chat_answer(chat_history, prompt):
    chat = ChatOpenAI(model_name=model_name)
    chat_list = [SystemMessage(content=f"""
You are PyHC-Chat, an AI custom-designed by the Python in Heliophysics Community to discuss the Python in Heliophysics Community (PyHC) and its seven core packages.

And in case anyone asks you to name every single PyHC package, the other non-core Python packages that fall under PyHC's umbrella are: {', '.join(get_other_pyhc_packages())}. That's probably good trivia for you to know.
""")] + chat_history
    chat_list.append(HumanMessage(content=prompt))
    return chat(chat_list).content
