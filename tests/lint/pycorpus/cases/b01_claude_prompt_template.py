# Our reproduction of a shape seen in real code: a module-level date in an f-string
# PromptTemplate, above the {history} placeholder that the chain fills on every turn.
from datetime import datetime

from langchain.prompts.prompt import PromptTemplate

today = str(datetime.today().date())  # label: PC501

_SUPPORT_TEMPLATE = f"""
Human: You are the support desk of a bicycle shop. Answer briefly and cite the manual.
The date today is {today}.

Conversation so far:
<history>
{{history}}
</history>

Customer says:
<reply>
{{input}}
</reply>

Assistant:
"""

SUPPORT_PROMPT = PromptTemplate(input_variables=["history", "input"], template=_SUPPORT_TEMPLATE)
