# Our reproduction: `today` computed at import and formatted into the middle of a module prompt.
from datetime import date

today = date.today()  # label: PC501

system_prompt = f"""You find and summarise sources for a research step.

Your task:
- Search, open pages and extract what the step needs.

Instructions:
- Give your reasoning, then pick one action: search, open, extract or summarise.
- The current date is {today.strftime('%B %d, %Y')}; mind steps that depend on it.
---
Example answers:
"""
