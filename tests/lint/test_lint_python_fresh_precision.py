"""
False alarms met on fresh, unseen request-building code (issue #21, `pyfa`), each reproduced in a
case of our own with its twin that must still be reported. The real files are listed in the
engineer's scratch manifest outside the repository; these are the mechanisms, not the files.
"""

from __future__ import annotations

import pytest

from ._helpers import python_line_codes

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    return python_line_codes(source, LONG)


# A stored config dict gets a clock under one key (`updated_at`); the system prompt read from it
# under another key does not carry that clock. Storing the clock under the key that is read
# (or reading the dict whole) still is a buster.
KEYED_CASES = [
    (
        "clock-stored-under-another-key",
        """
        from datetime import datetime
        from openai import OpenAI
        CONFIGS = {}
        def update(config_id, changes, question, history):
            config = CONFIGS[config_id].copy()
            config.update(changes)
            config["updated_at"] = datetime.utcnow().isoformat()
            CONFIGS[config_id] = config
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": config.get("system_prompt")},
                    *history,
                    {"role": "user", "content": question},
                ],
            )
        """,
        [],
    ),
    (
        "clock-stored-under-another-key-read-by-subscript",
        """
        from datetime import datetime
        from openai import OpenAI
        CONFIGS = {}
        def update(config_id, question, history):
            config = CONFIGS[config_id].copy()
            config["updated_at"] = datetime.utcnow().isoformat()
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": config["system_prompt"]},
                    *history,
                    {"role": "user", "content": question},
                ],
            )
        """,
        [],
    ),
    (
        "clock-stored-under-the-key-that-is-read",
        """
        from datetime import datetime
        from openai import OpenAI
        CONFIGS = {}
        def update(config_id, question, history):
            config = CONFIGS[config_id].copy()
            config["system_prompt"] = f"Now: {datetime.utcnow().isoformat()}. " + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": config.get("system_prompt")},
                    *history,
                    {"role": "user", "content": question},
                ],
            )
        """,
        [(7, "PC501")],
    ),
    (
        "clock-in-the-dict-the-key-is-read-from",
        """
        from datetime import datetime
        from openai import OpenAI
        def update(stored, question, history):
            config = {**stored, "system_prompt": stored["system_prompt"]}
            config.update({"system_prompt": f"Now: {datetime.utcnow()}. " + LONG})
            config["updated_at"] = "never"
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": config["system_prompt"]},
                    *history,
                    {"role": "user", "content": question},
                ],
            )
        """,
        [(6, "PC501")],
    ),
    (
        "clock-merged-in-whole-before-a-key-is-stored",
        """
        from datetime import datetime
        from openai import OpenAI
        def update(stored, question, history):
            config = dict(stored)
            config.update(stamp(datetime.utcnow()))
            config["updated_at"] = "never"
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": config.get("system_prompt") + LONG},
                    *history,
                    {"role": "user", "content": question},
                ],
            )
        """,
        [(6, "PC501")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(source, expected, id=name) for name, source, expected in KEYED_CASES],
)
def test_a_value_stored_under_one_key_is_not_read_under_another(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected


# A system message inserted into a request's list at a known place is followed by the turns after
# that place: before the newest turn alone, only that turn follows it (a single-turn request).
INSERTED_CASES = [
    (
        "context-inserted-before-the-only-user-turn",
        """
        import httpx
        async def analyze(prompt, context=None):
            messages = [
                {"role": "system", "content": "You are a data analysis assistant."},
                {"role": "user", "content": prompt},
            ]
            if context:
                messages.insert(1, {"role": "system", "content": context})
            async with httpx.AsyncClient() as client:
                return await client.post(
                    "https://api.openai.com/v1/chat/completions",
                    json={"model": "gpt-4", "messages": messages},
                )
        """,
        [],
    ),
    (
        "context-inserted-before-the-history",
        """
        import httpx
        async def analyze(prompt, history, context=None):
            messages = [
                {"role": "system", "content": "You are a data analysis assistant."},
                *history,
                {"role": "user", "content": prompt},
            ]
            if context:
                messages.insert(1, {"role": "system", "content": context})
            async with httpx.AsyncClient() as client:
                return await client.post(
                    "https://api.openai.com/v1/chat/completions",
                    json={"model": "gpt-4", "messages": messages},
                )
        """,
        [(10, "PC502")],
    ),
    (
        "context-inserted-into-a-list-of-unknown-length",
        """
        import httpx
        async def analyze(prompt, messages, context=None):
            messages.append({"role": "user", "content": prompt})
            if context:
                messages.insert(1, {"role": "system", "content": context})
            async with httpx.AsyncClient() as client:
                return await client.post(
                    "https://api.openai.com/v1/chat/completions",
                    json={"model": "gpt-4", "messages": messages},
                )
        """,
        [(6, "PC502")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(source, expected, id=name) for name, source, expected in INSERTED_CASES],
)
def test_an_inserted_system_message_is_followed_by_the_turns_after_it(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected


# `json.dumps` of a dict or list comprehension over a dict literal of the code (a taxonomy in a
# module or a settings class): its key order is the code's, as the literal's is. The same
# comprehension over a set, or over data from outside the code, still has an order to fix.
TAXONOMY = """
        import json
        from openai import OpenAI
        class Settings:
            TAXONOMY = {"Fire": {"forest": 1, "urban": 2}, "Flood": {"river": 1}}
        settings = Settings()
        TABLE = {"Fire": {"forest": 1}, "Flood": {"river": 1}}
        def system_prompt(source):
            keys = KEYS
            return "Classify the incident. Taxonomy: " + json.dumps(keys, indent=2) + LONG
        def run(image, history, source=None):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": system_prompt(source)},
                    *history,
                    {"role": "user", "content": image},
                ],
            )
"""
ORDER_CASES = [
    (
        "comprehension-over-a-settings-literal",
        "{k: list(v) for k, v in settings.TAXONOMY.items()}",
        [],
    ),
    ("comprehension-over-a-module-literal", "{k: sorted(v) for k, v in TABLE.items()}", []),
    ("list-comprehension-over-a-literal", "[list(v.keys()) for v in TABLE.values()]", []),
    ("comprehension-over-a-set", "{k: 1 for k in set(TABLE)}", [(10, "PC503")]),
    (
        "comprehension-over-outside-data",
        "{k: v for k, v in json.loads(source).items()}",
        [(10, "PC503")],
    ),
    (  # each element is a dict literal: its keys are in the code's order, whatever the list's
        "list-of-dict-literals-over-outside-data",
        "[{'id': a['id'], 'start': a['start']} for a in json.loads(source)]",
        [],
    ),
    (
        "list-of-outside-dicts",
        "[json.loads(a) for a in source]",
        [(10, "PC503")],
    ),
]


@pytest.mark.parametrize(
    ("keys", "expected"),
    [pytest.param(keys, expected, id=name) for name, keys, expected in ORDER_CASES],
)
def test_json_of_a_comprehension_over_a_literal_keeps_the_code_s_order(
    keys: str, expected: list[tuple[int, str]]
) -> None:
    got = findings(TAXONOMY.replace("KEYS", keys))
    assert [(line, code) for line, code in got if code in ("PC503", "PC504")] == expected


# A list made with the system message alone, to which the newest user turn is appended before it
# is sent in the same function: the request's own turns follow the system message, judged where
# the list is sent. Kept as a conversation (a loop, a list returned or stored), it is reported.
SINGLETON_CASES = [
    (
        "system-list-then-the-user-turn",
        """
        import openai
        def send(message, context):
            config = [{"role": "system", "content": f"Help with the screen: {context}. Be short."}]
            conversation = config
            conversation.append({"role": "user", "content": message})
            response = openai.chat.completions.create(model="gpt-4o-mini", messages=conversation)
            conversation.append({"role": "assistant", "content": response.choices[0].message.content})
            return response.choices[0].message.content
        """,
        [],
    ),
    (
        "system-list-kept-as-a-conversation-in-a-loop",
        """
        import openai
        def chat(context):
            conversation = [{"role": "system", "content": f"Help with the screen: {context}. Be short."}]
            while True:
                conversation.append({"role": "user", "content": input()})
                response = openai.chat.completions.create(model="gpt-4o-mini", messages=conversation)
                conversation.append({"role": "assistant", "content": response.choices[0].message.content})
        """,
        [(4, "PC502")],
    ),
    (
        "system-list-returned-to-the-caller",
        """
        import openai
        def start(context):
            conversation = [{"role": "system", "content": f"Help with the screen: {context}. Be short."}]
            return conversation
        def send(conversation, message):
            conversation.append({"role": "user", "content": message})
            return openai.chat.completions.create(model="gpt-4o-mini", messages=conversation)
        """,
        [(4, "PC502")],
    ),
    (
        "system-list-sent-through-a-call-the-analysis-cannot-see",
        """
        from somewhere import send_chat
        def send(message, context):
            conversation = [{"role": "system", "content": f"Help with the screen: {context}. Be short."}]
            conversation.append({"role": "user", "content": message})
            return send_chat(messages=conversation)
        """,
        [(4, "PC502")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(source, expected, id=name) for name, source, expected in SINGLETON_CASES],
)
def test_a_system_message_list_is_judged_where_it_is_sent(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected


# A message appended to a history the function did not make (an object's list, a module's list,
# or a parameter's list the reply to a request is kept in) joins the end of that conversation:
# later requests repeat it where it was put, whatever role it names, so it opens no prefix. The
# same message appended to a list the function makes itself, or by a helper to the list its
# caller passes, may be that list's first turn: a system prompt opening every request.
APPENDED_CASES = [
    (
        "reply-kept-under-the-system-role",
        """
        from openai import OpenAI
        client = OpenAI()
        def ask(question, turns):
            sent = turns + [{"role": "user", "content": question}]
            answer = client.chat.completions.create(model="gpt-4o", messages=sent)
            kept = {"role": "system", "content": answer.choices[0].message.content}
            turns.append(kept)
            return kept["content"]
        """,
        [],
    ),
    (
        "clock-note-appended-to-an-object-s-history",
        """
        from datetime import datetime
        from openai import OpenAI
        class Desk:
            def __init__(self):
                self.log = [{"role": "system", "content": LONG}]
            def answer(self, text):
                self.log.append({"role": "system", "content": f"Checked at {datetime.now()}."})
                self.log.append({"role": "user", "content": text})
                return OpenAI().chat.completions.create(model="gpt-4o", messages=self.log)
        """,
        [],
    ),
    (
        "clock-note-appended-to-a-fresh-list",
        """
        from datetime import datetime
        from openai import OpenAI
        def answer(text, earlier):
            log = []
            log.append({"role": "system", "content": f"Checked at {datetime.now()}." + LONG})
            log.extend(earlier)
            log.append({"role": "user", "content": text})
            return OpenAI().chat.completions.create(model="gpt-4o", messages=log)
        """,
        [(6, "PC501")],
    ),
    (
        "clock-note-appended-by-a-helper-to-its-caller-s-list",
        """
        from datetime import datetime
        from openai import OpenAI
        def open_with_note(log, text):
            log.append({"role": "system", "content": f"Checked at {datetime.now()}." + LONG})
            log.append({"role": "user", "content": text})
        def answer(text):
            log = []
            open_with_note(log, text)
            return OpenAI().chat.completions.create(model="gpt-4o", messages=log)
        """,
        [(5, "PC501")],
    ),
    (
        "clock-note-appended-to-an-attribute-made-here",
        """
        from datetime import datetime
        from openai import OpenAI
        class Desk:
            def answer(self, text, earlier):
                self.log = []
                self.log.append({"role": "system", "content": f"Checked at {datetime.now()}." + LONG})
                self.log.extend(earlier)
                self.log.append({"role": "user", "content": text})
                return OpenAI().chat.completions.create(model="gpt-4o", messages=self.log)
        """,
        [(7, "PC501")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(source, expected, id=name) for name, source, expected in APPENDED_CASES],
)
def test_a_message_appended_to_a_kept_history_opens_no_prefix(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected
