from datetime import datetime

from promptcache import Prompt

MANUAL = "Refunds within 30 days. " * 80


def build(question):
    return (
        Prompt()
        .add_system(f"Now: {datetime.now():%H:%M}. You are a support agent.")  # label: PC501
        .add_docs(MANUAL)
        .with_tail(question)
    )
