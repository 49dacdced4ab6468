# Our reproduction: `import datetime` module form, the date in bold inside a tool-agent prompt.
import datetime

today = datetime.datetime.today().strftime("%A, %B %d, %Y")  # label: PC501

system_prompt = f"""
You are a market analyst who gathers evidence before answering.

**Today:** {today}

Tools:
1. **search** - finds pages.
2. **read** - returns the text of one page.
Return every result as plain text.
"""

tool_names = ["search", "read"]
