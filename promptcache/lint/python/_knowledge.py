"""
The shape of framework knowledge: what one library contributes to the analysis, as data.

Each module of `frameworks/` declares one `Framework`: its sinks (calls whose arguments reach a
request, with the position each argument reaches), its sources (calls whose result differs
between requests), its per-request data (`DataSource`: where a request's own data comes from, a
model's answer, retrieved documents, the incoming request) and its pass-through functions (calls whose result is their first argument's
value, followed as such rather than as an opaque call). The analysis reads only these tables, as
taint engines keep sources, sinks and propagators apart from the engine that follows them.

Roles (the request position an argument reaches): `system` (system prompt, instructions, docs:
the whole conversation follows it), `tools`, `messages` (every turn but the last counts), `input`
(a string is the new turn; a list is `messages`), `config` (a dict or config object with
`system_instruction` and `tools`), `body` (a JSON body with `system`, `messages` and `tools`),
`template` (a prompt template's text, judged by how much static text follows), `chat_template`
(LangChain message specs), `prompt` (a prompt text in which sections follow one another, judged
as a template).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DataSource", "Framework", "HistoryRead", "Sink", "TemplateFill"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sink:
    api: str
    suffixes: tuple[str, ...]  # dotted-name endings that select it (after import resolution)
    keywords: tuple[tuple[str, str], ...] = ()
    positional: tuple[tuple[int, str], ...] = ()
    roots: tuple[str, ...] = ()  # when set, the resolved name must start with one of them
    chained: tuple[str, ...] = ()  # keywords that attach earlier turns kept by the server
    answers: bool = False  # the call returns the model's answer: per-request data
    # A method that adds to a history: on one kept beyond the call (`self.history.add_...(...)`)
    # it starts that conversation, whose values are fixed for it, rather than building a request.
    conversation: bool = False
    # Keys that mark an explicit cache point in this API's request (`cache_control`): where every
    # one of a module's marks is in the system prompt or tools, the history is never cached, so
    # a window over it drops nothing the cache held.
    cache_points: tuple[str, ...] = ()
    # Its input given as a list of parts that are not turns (texts, files, images) is ONE user
    # turn, in that order (Gemini's `generate_content([pdf_part, PROMPT])`), not a conversation.
    parts: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class DataSource:
    """
    Where per-request data comes from, whatever it is named (`postman_reply`, `docs`): what a
    value holds depends on where it was made, not on its name.

    `calls`: resolved-name globs of functions whose result is per-request (`input`,
    `streamlit.chat_input`). `methods`: method names whose result is, when called on an object
    the analysis cannot read (`retriever.invoke(q)`, `store.similarity_search(q)`; never on a
    module or a regex); with `varying`, only when an argument varies (a retrieval for a
    constant query is the same every time). `names`: resolved names whose value, and anything
    read from it, is the incoming request (`flask.request`). `handlers`: decorator globs (by
    dotted name, its first name resolved: `chainlit.on_message`, `*.post` for `@app.post(...)`)
    of a framework's request handlers, whose parameters are the request's data;
    `registrations`: calls that register a handler passed to them (`gradio.ChatInterface`,
    `*.add_node` of a LangGraph graph, whose node functions get the run's state).
    """

    what: str  # how a finding names the value: "retrieved documents", "the request body"
    calls: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    varying: bool = False
    names: tuple[str, ...] = ()
    handlers: tuple[str, ...] = ()
    registrations: tuple[str, ...] = ()
    first_only: bool = False  # only a registered handler's first parameter is the request's
    # Registrations (and this source's `handlers`) count only in a module importing one of
    # these (`.click`, `.submit` are common method names: a thread pool's `submit(fn)`
    # registers no request handler; `@client.event` is a bot's only where it imports the bot).
    imported: tuple[str, ...] = ()
    answers: bool = False  # what it gives is a model's answer (a turn of the conversation)
    # Parameters of this source's handlers that the framework fills with its own objects, by
    # name (Slack Bolt's `say`, `ack`, `client`; a bound Celery task's `self`): not the request.
    given: tuple[str, ...] = ()
    # Entry points no decorator marks, by their leading parameter names: `(event, context)` is an
    # AWS Lambda handler, whose first parameter is the invocation's event (the rest are given).
    signatures: tuple[tuple[str, ...], ...] = ()
    # Parameter types that are the incoming request wherever they appear (`HttpRequest`).
    types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TemplateFill:
    """
    A call that runs the prompt template it is handed on every request and fills some of its
    variables itself: `create_stuff_documents_chain(llm, prompt)` puts the documents retrieved
    for this request in `{context}`, whatever the code around it calls them. The variables are
    judged where the template places them (a `{context}` closing the system prompt, with the
    history after it, breaks the cache) as if the code had filled them with per-request data.

    `calls`: dotted-name endings (after import resolution). `template`: where the call takes the
    template, tried in order: a positional index (`"1"`), a keyword (`"prompt"`), a keyword of a
    dict keyword (`"chain_type_kwargs.prompt"`), or a chain holding it (`LLMChain(prompt=...)`).
    `renamed_by`: the keyword that names the filled variable instead (`document_variable_name`).
    """

    calls: tuple[str, ...]
    template: tuple[str, ...]
    variables: tuple[str, ...]
    what: str  # how a finding names what fills them: "the documents retrieved for this request"
    renamed_by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryRead:
    """
    A chat platform's read of a channel's newest messages (discord.py's `channel.history(limit=
    20)`): once the channel holds more than n, the messages it returns start later on every
    request, a window that slides (PC507) wherever they are sent as the conversation.

    `methods`: method names, counted only in a module importing one of `imported`. `limit`: the
    keyword that gives n, `position` its index when given by position (-1: keyword only).
    `default`: n when no limit is given (0: the whole history, or the newest message alone, is
    read: no window; so is a limit of None, 0 or 1 given). `anchors`:
    keywords that, given anything but None or False, read from a fixed point or oldest first
    (`after=message`, `oldest_first=True`): the same messages every time, no window;
    `anchor_positions` their indexes when given by position.
    """

    methods: tuple[str, ...]
    imported: tuple[str, ...]
    default: int = 0
    limit: str = "limit"
    position: int = -1
    anchors: tuple[str, ...] = ()
    anchor_positions: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Framework:
    name: str
    sinks: tuple[Sink, ...] = ()
    sources: tuple[str, ...] = ()  # resolved-name globs of volatile calls (case-sensitive)
    pass_through: tuple[str, ...] = ()  # resolved names whose result is their first argument
    # Classes that make one user turn from its text (`HumanMessage(content=text)`), by the last
    # name of their resolved name: the turn is followed as its text (first argument or
    # `content=`), so that what follows a value in it is known.
    user_turns: tuple[str, ...] = ()
    data: tuple[DataSource, ...] = ()  # where per-request data comes from (see DataSource)
    # Methods of its objects that fill a prompt without being sinks (`crew.kickoff(inputs=)`):
    # their calls are scanned for wherever they are named (a name only this framework uses),
    # or, written `"Class().method"`, in a module that names the class.
    fills: tuple[str, ...] = ()
    # Packages whose objects send requests (`openai.OpenAI()`): a call the analysis cannot read
    # that is handed one of them and a history window sends that window.
    clients: tuple[str, ...] = ()
    # Resolved names whose result is a sliding window of their first argument's turns (PC507).
    windows: tuple[str, ...] = ()
    # Resolved names of memories that keep only a window of a chain's history (PC507 where made).
    window_memories: tuple[str, ...] = ()
    # Dotted-name endings of chat engines and chains that put what they retrieve for each turn
    # above the history they are handed, or read that history only into the one question they
    # rewrite: its turns are never read from the cache, so a window memory handed only to them
    # (as `memory=`) drops nothing the cache held. `"factory(keyword=value)"`: a factory that
    # makes one when given that constant (`as_chat_engine(chat_mode=context)`).
    context_engines: tuple[str, ...] = ()
    # Calls that fill a template's variables themselves, on every request (see TemplateFill).
    template_fills: tuple[TemplateFill, ...] = ()
    # Methods the framework calls, on a subclass of its base, with the conversation it sends
    # ("Base.method": a custom chat model's `_generate(messages)`): that first parameter is the
    # caller's request, judged where the caller builds it (PC508 does not ask about it).
    conversation_hooks: tuple[str, ...] = ()
    # Chat platforms' reads of a channel's newest messages (see HistoryRead).
    history_reads: tuple[HistoryRead, ...] = ()
    # Dotted-name endings of calls that make a query engine: it retrieves for each text it is
    # asked (`engine.query(text)`, by `query_methods`) and places that text in its template
    # after what it retrieved, so the text sits after per-request content.
    query_engines: tuple[str, ...] = ()
    query_methods: tuple[str, ...] = ()
