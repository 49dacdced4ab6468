from datetime import date

from jinja2 import Template

SYSTEM = Template("Date: {{ today }}\n" + "Answer from the employee handbook only. " * 60)


def system_prompt():
    return SYSTEM.render(today=date.today().isoformat())  # label: PC501
