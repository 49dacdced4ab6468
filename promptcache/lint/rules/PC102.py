"""
A per-request variable renders in the cacheable prefix.

Why:
    Variables such as `user.name`, `request_id`, `question`, `problem_statement` or
    `context_data` change from one request to the next. Rendered near the top, they make every
    request's prefix unique, so the content after them is never read from the cache. The
    defaults cover who is asking (a user, player, customer, student or patient), request and run identifiers, dates, the question, its answer
    (also qualified: `original_query`, `resolved_question`) and other task inputs, the round,
    turn or step of a multi-round run, the feedback on the last attempt and an earlier step's
    output (`*_output`), retrieved context,
    issues and file contents, and memory and the conversation so far, also under a qualified name (`memory_context`, `conversation_history`); names and glob patterns are configurable (`per-request`, `extend-per-request`, `stable`), and a camelCase name (`userQuery`) matches as its snake_case spelling does. With
    `strict = true` every variable not declared `stable` is treated as per-request.
    A value of any name that the prompt's own heading or label says is the user's or today's
    (`## About the user` over a profile of fields, `The user's request:` on the line above,
    `Today's reading: {{ passage }}`, inside `<user_request>`; also in Chinese, Japanese and
    Korean) is the request's
    data too, reported when static text follows it, as a date is; a line of prose ends what a
    heading or label covers. A date or time the template formats from a value the caller passes
    (`stamp.strftime('%H:%M')`, `when.isoformat()`) is per-request too: a time of day per turn,
    a date (or a format that does not say) once a day.
    A system prompt (a file named `system*`, `*_system*`, or whose text opens with "You are",
    "Act as", not "You are given"/"You are tasked with", and holds neither the user's question
    nor the answer it grades) opens every request, so a value that changes from turn to turn there, a clock
    (`time`, `now`, `current_time`) or a per-turn value (`memory`, `context`,
    `retrieved_*`, `question`, `round`, `weather`, `*_so_far`), has the whole conversation after
    it and is reported whatever static text follows it in the file, as are the newest items of
    any list (`moves[-3:]`); a date (once a day) and a value fixed for a conversation (who is
    asking and what describes them, `user_level` as much as `user_name`; the session; the task;
    not an `instruction`, there the system prompt's own text, of unknown meaning)
    are reported when enough static text follows them, on the static text or the tools after
    them, not on other content of unknown size. A prompt that
    writes the model's turn delimiters itself (`[INST]`, `<|im_start|>`), or a system prompt that
    writes the history itself (`{{ chat_history }}`), is one whole request, followed by no
    conversation. In a user turn (`user*.j2`, `human*.j2`), where per-request values belong, only one block of
    `threshold` tokens of instructions after a value counts, not labels between data fields,
    and its other variables are the request's data, as in a prompt that holds the user's
    question or the graded answer (one whole request); outside a system prompt a labelled field
    (`Users online: {{ count }}`) is data of the request too. A date the deployment fixes
    (`knowledge_cutoff_date`, `model_release_date`, `build_date`) is not per-request. In a message whose text says it
    follows the conversation ("the messages above") only per-turn values are reported. A loop
    over the history that writes each item's role (a `.prompty` chat prompt) is the
    conversation: a per-turn value above it is reported, one fixed per conversation is not.

Bad:
    Hello {{ user.name }}, session {{ session_id }}.
    {{ product_catalogue }}

Good:
    {{ product_catalogue }}
    {# promptcache: tail #}
    Hello {{ user.name }}, session {{ session_id }}.
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC102",
    name="per-request-variable",
    severity="warning",
    fix="render it at the end of the template or below `{# promptcache: tail #}`",
)

# The person the request is for, by the names other domains give the user (their name, id and
# profile; not every `customer_*`: `customer_tier` is a segment, not a person).
_PEOPLE = tuple(
    f"{person}{part}"
    for person in ("player", "customer", "student", "patient")
    for part in ("", "_name", "_id", "_profile", "_info")
)
# Identifiers of a session, conversation, thread, run or agent: fixed for a conversation.
_SESSIONS = (
    "session",
    "session_id",
    "conversation_id",
    "thread_id",
    "run_id",
    "agent_id",
    "subagent_id",
    "instance_id",
)
# The task an agent run was given, and the issue it works on.
_TASKS = ("task", "task_*", "instruction", "problem_statement", "issue", "issue_*")

# What a system prompt is made of: in one, a value with this name is the deployment's own text
# (a mode's extra rules, a strictness setting rendered from another file), of unknown meaning,
# not the task a request gives; elsewhere `instruction` is the task (Alpaca's `### Instruction:`).
SYSTEM_PROMPTS_OWN = frozenset({"instruction", "instructions"})

DEFAULT_PER_REQUEST = (
    # who is asking, and identifiers of this request, run or session
    "user",
    "user_*",
    "username",
    "request",
    "request_id",
    *_SESSIONS,
    "trace_id",
    "message_id",
    "call_id",
    "*_uuid",
    *_PEOPLE,
    # dates and times
    "timestamp",
    "*_timestamp",
    "date",
    "today",
    "now",
    "time",
    "datetime",
    "current_*",
    "*_date",
    "*_time",
    "*_datetime",
    # the question and other task inputs
    "question",
    "query",
    "*_question",
    "*_query",
    "user_query",
    "user_input",
    "user_message",
    "input",
    "inputs",
    "task",
    "task_*",
    "instruction",
    "problem_statement",
    "observation",
    # the progress of a multi-round run: which round, turn, step or attempt this request is
    "round",
    "round_num*",
    "round_index",
    "round_id",
    "turn",
    "turn_num*",
    "turn_index",
    "turn_id",
    "step",
    "step_num*",
    "step_index",
    "step_id",
    "iteration",
    "iteration_num*",
    "attempt",
    "attempt_num*",
    # the answer being graded or shown back (an evaluation prompt's last field)
    "answer",
    "*_answer",
    # a pipeline step's inputs: the feedback on the last attempt, an earlier step's output
    "feedback",
    "*_feedback",
    "*_output",
    # retrieved context (not every `*_context`: `skill_context` is a catalogue of skills)
    "context",
    "contexts",
    "context_data",
    "context_str",
    "rag_context",
    "retrieval_context",
    "search_context",
    "web_context",
    "doc_context",
    "docs_context",
    "document_context",
    "documents_context",
    "relevant_context",
    "search_results",
    "retrieved_*",
    "chunks",
    "*_chunks",
    "documents",
    "passages",
    # issues, files and their contents
    "issue",
    "issue_*",
    "pr",
    "pr_*",
    "pull_request",
    "pull_request_*",
    "file_name",
    "file_path",
    "filename",
    "file_content*",
    "old_content",
    "new_content",
    "diff",
    "patch",
    # memory and conversation state, also under a qualified name (`memory_context`,
    # `long_term_memory`, `conversation_history`)
    "memory",
    "memories",
    "memory_*",
    "*_memory",
    "*_memories",
    "chat_history",
    "history",
    "conversation_history",
    "dialogue_history",
    "dialog_history",
    "message_history",
    "messages_history",
    # what has happened so far and what the person's day holds, refreshed for each request
    "*_so_far",
    "recent_*",
    "weather",
    "calendar",
    "todos",
    "todo_list",
    "reminders",
    "notifications",
)

# Per-request names fixed for a whole conversation: who is asking, the session, the task an
# agent run was given. Every other per-request name but a date changes from one turn to the next
# (the question, retrieved context, memory, the round, a clock). At the end of a system prompt a
# per-turn value still has the conversation after it; a value fixed per conversation has only
# that conversation's own turns after it, and in a message that follows the conversation it
# does not change at all.
PER_CONVERSATION = (
    "user",
    "user_name",
    "username",
    "user_id",
    "user_type",
    "user_role",
    "user_profile",
    "user_info",
    "user_language",
    "user_locale",
    "user_timezone",
    "user_email",
    *_SESSIONS,
    *_PEOPLE,
    *_TASKS,
)

# What a `user_*` name holds when it is not the person asking: their turn, what was retrieved or
# remembered for it, what they just did or feel. Any other `user_*` name (`user_level`,
# `user_tier`, `user_expertise`) describes the person, fixed for a conversation as `user_role` is.
USERS_TURN_WORDS = frozenset(
    {"query", "question", "input", "message", "msg", "messages", "request", "prompt", "text"}
    | {"utterance", "turn", "content", "reply", "response", "answer", "answers", "said"}
    | {"memory", "memories", "context", "history", "state", "data", "notes", "facts"}
    | {"mood", "emotion", "intent", "feedback", "action", "choice", "selection", "upload"}
    | {"file", "files", "image", "attachment", "attachments", "recent", "latest", "last"}
    | {"current", "new", "now", "today", "date", "time", "timestamp", "location", "position"}
)

# Date names count wherever they appear in a dotted name (`runtime_info.date`).
DATE_NAMES = (
    "date",
    "today",
    "now",
    "time",
    "datetime",
    "timestamp",
    "*_date",
    "*_time",
    "*_datetime",
    "*_timestamp",
    "current_date*",
    "current_time*",
)

# A date the deployment fixes, not today's: the model's knowledge cutoff, its training, the build
# (`knowledge_cutoff_date`, `model_training_date`, `build_date`, `model_release_date`). Set once, the
# same on every request. Only date names count: a `cutoff_time` is often the clock's, per request.
# A bare `release_date` or `launch_date` in a prompt file may be a product's, the request's data;
# in a chat template (rendered with the serving configuration's values) it is the model's.
DEPLOYMENT_DATE_WORDS = frozenset({"knowledge", "build", "built"})
# `training` and `cutoff` alone are as often the request's (a client's `training_date`, a search's
# `cutoff_date`): the model's only beside a word that says so (`model_cutoff_date`).
MODEL_DATE_WORDS = frozenset({"cutoff", "training", "trained"})
MODEL_WORDS = frozenset({"model", "knowledge", "data", "llm"})
RELEASE_WORDS = frozenset({"release", "released", "launch", "launched"})


def is_deployment_date(name: str, *, chat: bool = False) -> bool:
    """Whether a date name says the deployment fixes it (`knowledge_cutoff_date`)."""
    words = set(name.rsplit(".", 1)[-1].lower().split("_"))
    if "date" not in words:
        return False
    released = not words.isdisjoint(RELEASE_WORDS) and (chat or "model" in words)
    said = words & (MODEL_DATE_WORDS | MODEL_WORDS)
    models = not words.isdisjoint(MODEL_DATE_WORDS) and len(said) >= 2
    return released or models or not words.isdisjoint(DEPLOYMENT_DATE_WORDS)


# Variable names that hold the time of the request itself (not a date: that changes once a day).
CLOCK_NAMES = (
    "time",
    "now",
    "datetime",
    "timestamp",
    "current_time",
    "current_datetime",
    "current_timestamp",
    "time_now",
    "local_time",
    "utc_now",
)
# File names of system prompt templates: what they render opens every conversation.
SYSTEM_TEMPLATE_NAME = r"(?i)(?:^|[_.\-])system(?:$|[_.\-])"
# Where a system prompt's clock belongs: its end still comes before the whole conversation.
SYSTEM_CLOCK_FIX = (
    "pass it in the newest user message (or promptcache's `Prompt.with_tail`): the end of a "
    "system prompt still comes before the whole conversation"
)

# Words of a prompt's heading or label that say the values under it are the request's data,
# whatever their names (`## About the user`, `The user's request:`, `Today's reading:`): whose
# they are, the person asking, or when, today. Latin-script words match whole; the CJK ones
# (Chinese, Japanese, Korean) wherever they stand, as those scripts write no spaces between words.
REQUEST_LABEL_WORDS = (
    "user",
    "users",
    "user's",
    "users'",
    "today",
    "today's",
    "usuario",
    "usuário",
    "utilisateur",
    "benutzer",
    "nutzer",
    "hoy",
    "hoje",
    "aujourd'hui",
    "heute",
)
REQUEST_LABEL_CJK = ("用户", "用戶", "使用者", "ユーザー", "사용자", "유저", "今天", "今日", "오늘")
