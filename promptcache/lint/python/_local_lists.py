"""
Message lists a function makes, grows and sends itself: `conversation = [{"role": "system", ...}]`,
then `conversation.append(user_turn)`, then `client.chat.completions.create(messages=conversation)`.

A system message that ends the list literal it is written in is judged there as if the whole
conversation followed it, since the list may be kept and grown into one. When the function only
appends to the list and sends it to an SDK call, what follows the system message is known where the
list is sent, and the sink judges it there (`Findings.messages`); so is a system message the
function appends to such a list (`messages.append(SystemMessage(content=notes))`). A send in a
tool loop, which appends only the model's answers and the tools' results before sending again,
is one request's; a loop that appends anything else grows a conversation. Pure syntax over the
function's own body; no state.
"""

from __future__ import annotations

import ast

from ._handed import parents_of

__all__ = ["MODEL_RUNS", "appended_where_sent", "sent_where_grown"]

# A chat model's (or chain's) runs (LangChain), handed the list of turns as their one argument.
MODEL_RUNS = frozenset({"invoke", "ainvoke", "stream", "astream"})
# The SDK calls a message list is sent to as `messages=`, named by their last attributes.
_SENDS = (
    ("chat", "completions", "create"),
    ("messages", "create"),
    ("completion",),
    ("acompletion",),
)


def sent_where_grown(function: ast.AST | None, literal: ast.List) -> bool:
    """Whether `literal` is bound to a local name of `function` that the function only grows
    (`append`), renames and sends as `messages=` to an SDK call: never returned, stored, passed
    on, iterated, nor used in a loop that sends it again."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    return _judged_at_send(function, id(literal))


def appended_where_sent(function: ast.AST | None, message: ast.expr) -> bool:
    """Whether `message` is appended (`messages.append(message)`) to a list that `function`
    makes itself (bound to a list literal) and only grows and sends, as `sent_where_grown`
    asks of the literal: the turns that follow the message are known where the list is sent,
    and judged there (a tool loop's own turns after it included)."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    parents = parents_of(function)
    call = parents.get(id(message))
    if not (
        isinstance(call, ast.Call)
        and call.args == [message]
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
    ):
        return False
    listed = call.func.value.id
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.List)
            and any(isinstance(t, ast.Name) and t.id == listed for t in _assigned(node))
        ):
            return _only_newest_after(function, listed, call, parents) and _judged_at_send(
                function, id(node.value), parents, annotated=True
            )
    return False


def _only_newest_after(
    function: ast.AST, listed: str, appended: ast.Call, parents: dict[int, ast.AST]
) -> bool:
    """Whether what `function` appends to `listed` after `appended` is more system messages and
    the user's turn, outside any loop, or a tool loop's turns in a loop that sends the list:
    nothing that replays a history (`for turn in history: messages.append(...)`)."""
    for node in ast.walk(function):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == listed
            and len(node.args) == 1
            and (node.lineno, node.col_offset) > (appended.lineno, appended.col_offset)
        ):
            continue
        loop = _loop_of(node, parents, function)
        if loop is None:
            if _role_of(node.args[0]) not in ("system", "developer", "user"):
                return False
        elif not _in_a_sending_loop(loop, listed, parents, function):
            return False  # a loop that only appends: a history replayed into the list
    return True


def _in_a_sending_loop(
    loop: ast.AST, listed: str, parents: dict[int, ast.AST], function: ast.AST
) -> bool:
    """Whether `loop`, or a loop around it, sends the list (a tool loop's inner loop over the
    tool calls appends their results for the send of the loop around it)."""
    current: ast.AST | None = loop
    while current is not None:
        if _sends_in(current, listed):
            return True
        current = _loop_of(current, parents, function)
    return False


def _sends_in(loop: ast.AST, listed: str) -> bool:
    """Whether `loop` sends the list (as `messages=`, or as a chat model's run's argument)."""
    for node in ast.walk(loop):
        if not isinstance(node, ast.Call):
            continue
        if any(
            k.arg == "messages" and isinstance(k.value, ast.Name) and k.value.id == listed
            for k in node.keywords
        ):
            return True
        run = node.args[0] if len(node.args) == 1 else None
        if isinstance(run, ast.Name) and run.id == listed and _run_on(node, run):
            return True
    return False


def _role_of(turn: ast.expr) -> str:
    """The role of a message written as a dict literal or a LangChain message call ("": unknown)."""
    if isinstance(turn, ast.Dict):
        for key, value in zip(turn.keys, turn.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "role":
                return (
                    value.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str)
                    else ""
                )
        return ""
    if isinstance(turn, ast.Call):
        func = turn.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return _MESSAGE_ROLES.get(name, "")
    return ""


# LangChain's message classes, by the role each writes.
_MESSAGE_ROLES = {
    "SystemMessage": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
}


def _assigned(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _judged_at_send(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    literal: int,
    parents: dict[int, ast.AST] | None = None,
    *,
    annotated: bool = False,
) -> bool:
    names = _local_names(function, literal, annotated=annotated)
    if not names:
        return False
    parents = parents_of(function) if parents is None else parents
    sends = 0
    for node, parent in _loads(function, parents):
        if node.id not in names:
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "append":
            continue
        if isinstance(parent, ast.Assign) and parent.value is node:
            continue  # a rename: its target is among the names
        if isinstance(parent, ast.keyword) and parent.arg == "messages":
            sends += 1
            continue
        if _run_on(parent, node):  # `model.invoke(messages)`
            sends += 1
            continue
        return False
    return sends > 0 and not _sent_in_a_loop(function, names, parents)


def _run_on(parent: ast.AST, node: ast.Name) -> bool:
    """`model.invoke(messages)`: the list handed as a chat model's run's one argument."""
    return (
        isinstance(parent, ast.Call)
        and parent.args == [node]
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in MODEL_RUNS
    )


def _local_names(
    function: ast.FunctionDef | ast.AsyncFunctionDef, literal: int, *, annotated: bool = False
) -> set[str]:
    """The name the literal is bound to, and the names bound to that name (`a = b`); with
    `annotated`, by an annotated assignment too (`messages: list[BaseMessage] = [...]`)."""
    names: set[str] = set()
    kinds = (ast.Assign, ast.AnnAssign) if annotated else (ast.Assign,)
    for node in ast.walk(function):
        if isinstance(node, ast.Global | ast.Nonlocal):
            return set()
        if isinstance(node, kinds) and len(_assigned(node)) == 1:
            target = _assigned(node)[0]
            if not isinstance(target, ast.Name) or node.value is None:
                continue
            if id(node.value) == literal or (
                isinstance(node.value, ast.Name) and node.value.id in names
            ):
                names.add(target.id)
    return names


def _loads(function: ast.AST, parents: dict[int, ast.AST]) -> list[tuple[ast.Name, ast.AST]]:
    return [
        (node, parents.get(id(node), function))
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    ]


def _sent_in_a_loop(function: ast.AST, names: set[str], parents: dict[int, ast.AST]) -> bool:
    """Whether a send of the list sits in a loop that grows it into a conversation, or the call
    it is sent to is not one of the SDK calls the analysis judges a list at. A tool loop, which
    appends only the model's answers and the tools' results before it sends the list again, is
    one request's own: each of its sends repeats the prefix the one before it sent."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            value = keyword.value
            sent = keyword.arg == "messages" and isinstance(value, ast.Name) and value.id in names
            if sent and not _is_send(node.func):
                return True
            if sent and _grown_by_its_loop(node, names, parents, function):
                return True
        run = node.args[0] if len(node.args) == 1 else None
        if (
            isinstance(run, ast.Name)
            and run.id in names
            and _run_on(node, run)
            and _grown_by_its_loop(node, names, parents, function)
        ):
            return True
    return False


def _grown_by_its_loop(
    send: ast.Call, names: set[str], parents: dict[int, ast.AST], function: ast.AST
) -> bool:
    """Whether a loop around `send` appends anything but a tool loop's turns to the list."""
    loop = _loop_of(send, parents, function)
    if loop is None:
        return False
    answers = _answers_in(loop)
    for node in ast.walk(loop):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        target = node.func.value
        if not (isinstance(target, ast.Name) and target.id in names):
            continue
        if node.func.attr != "append" or len(node.args) != 1:
            return True  # `extend`, `insert`, `+=`: turns of unknown kind
        if not _tool_loop_turn(node.args[0], answers):
            return True
    return False


def _loop_of(node: ast.AST, parents: dict[int, ast.AST], function: ast.AST) -> ast.AST | None:
    current = parents.get(id(node))
    while current is not None and current is not function:
        if isinstance(current, ast.For | ast.AsyncFor | ast.While):
            return current
        current = parents.get(id(current))
    return None


def _answers_in(loop: ast.AST) -> set[str]:
    """The names a loop binds to a send's result, or to what is read from one
    (`result = model.invoke(messages)`, `message = result.choices[0].message`)."""
    answers: set[str] = set()
    for _ in range(3):  # a reading of a reading of the result
        for node in ast.walk(loop):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0]
            if isinstance(target, ast.Name) and _from_a_send(node.value, answers):
                answers.add(target.id)
    return answers


def _from_a_send(value: ast.expr, answers: set[str]) -> bool:
    if isinstance(value, ast.Await):
        value = value.value
    while isinstance(value, ast.Attribute | ast.Subscript):
        value = value.value
    if isinstance(value, ast.Name):
        return value.id in answers
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and (value.func.attr in MODEL_RUNS or value.func.attr in _SEND_NAMES)
    )


def _tool_loop_turn(turn: ast.expr, answers: set[str]) -> bool:
    """A turn a tool loop appends: the model's answer (a name bound to a send's result), a
    tool's result (`{"role": "tool", ...}`, `ToolMessage(...)`), or the assistant's turn."""
    if isinstance(turn, ast.Name):
        return turn.id in answers
    return _role_of(turn) in _LOOP_ROLES


_SEND_NAMES = frozenset(send[-1] for send in _SENDS)
_LOOP_ROLES = frozenset({"assistant", "tool", "function"})


def _is_send(func: ast.expr) -> bool:
    chain: list[str] = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        chain.append(func.id)
    chain.reverse()
    return any(tuple(chain[-len(send) :]) == send for send in _SENDS)
