"""
The stability-ordered prompt and its rendering into hashed blocks.

A `Prompt` has five layers that always render in this order, whatever order the builder was
called in:

    tools < system < docs < history < tail

The first four are the cacheable prefix; the tail is the only place for per-request data (the
new question, the current time). Every builder call returns a new `Prompt`, so one base prompt can
be shared across threads and requests.

Rendering turns the prompt into `Block`s, one per tool, system block, document and message, each
with its canonical bytes, a token estimate, and a chained hash

    hash(i) = SHA-256(hash(i-1) || role || SHA-256(bytes(i)))

Each part hashes its own bytes once (parts are immutable and shared between requests), so
extending the chain costs the same for a 40 KB document as for a one-line message. The chain folds
in the role but not the layer: a question that moves from the tail into history
on the next turn is the same bytes on the wire, so it must keep the same hash, exactly as the
vendor's prefix cache sees it. Rendering is incremental: a prompt built from a rendered one reuses
the blocks in front of the layer that changed.
"""

from __future__ import annotations

import enum
import warnings
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ._canonical import json_path
from ._errors import InputError, VolatileContentError, VolatileContentWarning, shown
from ._parts import Doc, Message, Part, SystemBlock, Tool, part_from_json
from ._tokens import DEFAULT_COUNTER, TokenCounter
from ._volatile import VolatileMatch, recent

__all__ = ["Block", "Layer", "Prompt", "Rendered", "VolatilePolicy"]

VolatilePolicy = Literal["warn", "error", "ignore"]
_FORMAT = "promptcache.prompt/1"


class Layer(enum.IntEnum):
    """The five layers, in render order. Lower layers change less often."""

    TOOLS = 0
    SYSTEM = 1
    DOCS = 2
    HISTORY = 3
    TAIL = 4

    def __str__(self) -> str:
        return self.name.lower()


_LAYERS = tuple(Layer)  # iterating the enum class itself is several times slower
_NAMES = {layer: layer.name.lower() for layer in Layer}
_STABLE_GUARDED = (Layer.TOOLS, Layer.SYSTEM, Layer.DOCS)


class Block(NamedTuple):
    """
    One rendered unit: a tool, a system block, a document or a message.

    A named tuple rather than a dataclass because a request renders hundreds of these on every
    call, and tuple construction is several times cheaper; it is just as immutable.
    """

    layer: Layer
    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: the layer position
    role: str
    data: bytes
    tokens: int
    parts: int
    hash: bytes

    @property
    def path(self) -> str:
        """Where the block sits in the prompt, such as `tools[3]` or `history[12]`."""
        return f"{_NAMES[self.layer]}[{self.index}]"

    @property
    def digest(self) -> str:
        """The first 12 hex digits of the chained hash."""
        return self.hash.hex()[:12]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rendered:
    """A rendered prompt: its blocks in order, and the counter that sized them."""

    blocks: tuple[Block, ...]
    counter: str
    # What is worked out from the blocks (an adapter's request pieces, the running token sums),
    # by name: (a list aligned with the blocks, or a record like `adapters._pieces.Flat`; how many
    # leading blocks it holds for). A rendering grown from this one inherits them as it inherits
    # the blocks, so nothing is worked out twice for a block that did not change.
    _aligned: dict[str, tuple[Any, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def aligned(self, name: str, extend: Callable[[list[Any]], object]) -> list[Any]:
        """
        The list called `name` with one entry per block, made once per rendering. `extend` gets
        the entries inherited from the rendering this one grew from (a fresh list, for the
        leading blocks that did not change) and appends those of the remaining blocks; it may
        also clear the list and start again. Callers must not change the list they get back:
        later renderings share it.
        """
        known = self._aligned.get(name)
        if known is not None and known[1] == len(known[0]) == len(self.blocks):
            done: list[Any] = known[0]
            return done
        values: list[Any] = known[0][: known[1]] if known is not None else []
        extend(values)
        if len(values) != len(self.blocks):
            raise AssertionError(f"{name}: {len(values)} entries for {len(self.blocks)} blocks")
        self._aligned[name] = (values, len(values))
        return values

    @property
    def tokens(self) -> int:
        return sum(block.tokens for block in self.blocks)

    def layer_tokens(self, layer: Layer) -> int:
        return sum(block.tokens for block in self.blocks if block.layer == layer)

    @property
    def prefix(self) -> tuple[Block, ...]:
        """The cacheable blocks: everything in front of the tail."""
        return self.blocks[: last_through(self.blocks, Layer.HISTORY) + 1]

    @property
    def static(self) -> tuple[Block, ...]:
        """The blocks in front of the history (tools, system, docs): what every turn shares."""
        return self.blocks[: last_through(self.blocks, Layer.DOCS) + 1]

    @property
    def prefix_hash(self) -> bytes:
        """The chained hash at the end of the cacheable prefix (empty when there is none)."""
        prefix = self.prefix
        return prefix[-1].hash if prefix else b""

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)


def last_through(blocks: Sequence[Block], layer: Layer) -> int:
    """The index of the last block in `layer` or an earlier one (-1: none); blocks render in order."""
    return bisect_right(blocks, layer, key=lambda block: block.layer) - 1


_LayerParts = tuple[Part, ...]
_Layers = tuple[_LayerParts, _LayerParts, _LayerParts, _LayerParts, _LayerParts]
_NO_LAYERS: _Layers = ((), (), (), (), ())
# What a prompt knows of its rendering: the counter, the last `Rendered` of this prompt or of one
# it grew from, and how many of its leading blocks are still valid here. Builder calls only lower
# that count; `render` slices once, so a chain of builder calls copies no blocks.
_Known = tuple[TokenCounter, Rendered, int]
_set = object.__setattr__


class Prompt:
    """
    A prompt laid out in stability order. Build it with the `add_*` and `with_tail` methods:

        base = Prompt().add_tools(*tools).add_system("You are a support agent.").add_docs(manual)
        request = base.add_history(*turns).with_tail("Where is my order?")
        rendered = request.render()

    `volatile` says what happens when text in the tools, system or docs layer looks like it
    changes per request: "warn" (the default) issues a `VolatileContentWarning`, "error" raises
    `VolatileContentError`, "ignore" skips the check. The layer keywords are shorthand for the
    builder: `Prompt(system=["..."], tail=["..."])` checks and guards its parts just the same.

    A prompt is immutable and compares by identity; compare `render()` results for content.
    """

    __slots__ = ("_known", "_layers", "pin_tool_order", "volatile")

    _layers: _Layers
    pin_tool_order: bool
    volatile: VolatilePolicy
    _known: _Known | None

    def __init__(
        self,
        *,
        tools: Iterable[Tool | Mapping[str, Any]] = (),
        system: Iterable[str | SystemBlock] = (),
        docs: Iterable[str | Doc] = (),
        history: Iterable[Message] = (),
        tail: Iterable[str | Message] = (),
        pin_tool_order: bool = False,
        volatile: VolatilePolicy = "warn",
    ) -> None:
        if volatile not in ("warn", "error", "ignore"):
            raise InputError(f"volatile must be 'warn', 'error' or 'ignore', got {volatile!r}")
        _set(self, "_layers", _NO_LAYERS)
        _set(self, "pin_tool_order", bool(pin_tool_order))
        _set(self, "volatile", volatile)
        _set(self, "_known", None)
        if tools or system or docs or history or tail:
            built = (
                self.add_tools(*tools)
                .add_system(*system)
                .add_docs(*docs)
                .add_history(*history)
                .with_tail(*tail)
            )
            _set(self, "_layers", built._layers)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"Prompt is immutable (setting {name!r}); the builder methods return a new one"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Prompt is immutable (deleting {name!r})")

    def __repr__(self) -> str:
        sizes = ", ".join(f"{_NAMES[layer]}={len(self._layers[layer])}" for layer in _LAYERS)
        return f"<Prompt {sizes}, pin_tool_order={self.pin_tool_order}, volatile={self.volatile!r}>"

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools in the order they were added (`layer(Layer.TOOLS)` gives render order)."""
        return self._layers[Layer.TOOLS]  # type: ignore[return-value]

    @property
    def system(self) -> tuple[SystemBlock, ...]:
        return self._layers[Layer.SYSTEM]  # type: ignore[return-value]

    @property
    def docs(self) -> tuple[Doc, ...]:
        return self._layers[Layer.DOCS]  # type: ignore[return-value]

    @property
    def history(self) -> tuple[Message, ...]:
        return self._layers[Layer.HISTORY]  # type: ignore[return-value]

    @property
    def tail(self) -> tuple[Message, ...]:
        return self._layers[Layer.TAIL]  # type: ignore[return-value]

    # -- builder --------------------------------------------------------------------------

    def add_tools(self, *tools: Tool | Mapping[str, Any]) -> Prompt:
        """Add tool definitions (`Tool`s, or dicts with name, description and input_schema)."""
        have = self.tools
        new = tuple(_as_tool(t, json_path("tools", len(have) + i)) for i, t in enumerate(tools))
        merged = have + new
        _check_unique_names(merged)
        return self._extend(Layer.TOOLS, merged)

    def add_system(self, *blocks: str | SystemBlock) -> Prompt:
        """Add system prompt blocks (plain strings or `SystemBlock`s)."""
        new = tuple(b if isinstance(b, SystemBlock) else SystemBlock(text=b) for b in blocks)
        return self._extend(Layer.SYSTEM, self.system + new)

    def add_docs(self, *docs: str | Doc) -> Prompt:
        """Add shared reference documents (plain strings or `Doc`s)."""
        new = tuple(d if isinstance(d, Doc) else Doc(text=d) for d in docs)
        return self._extend(Layer.DOCS, self.docs + new)

    def add_history(self, *messages: Message) -> Prompt:
        """Append finished turns to the conversation history."""
        return self._extend(Layer.HISTORY, self.history + _as_messages(messages))

    def with_tail(self, *messages: str | Message) -> Prompt:
        """Replace the volatile tail: the new question and anything that changes per request."""
        return self._extend(Layer.TAIL, _as_messages(messages), replaced=True)

    def commit_tail(self, *replies: str | Message) -> Prompt:
        """
        Close the turn: move the tail into history, append the replies, and empty the tail.

        String replies are assistant messages. The moved messages keep their hashes, so the next
        request's prefix matches this one's up to and including the old tail.
        """
        # One copy of the history, not two: it is the only part of a turn that grows with it
        # (unpacking all three would copy it into a list and then into the tuple).
        new = (*self.tail, *_as_messages(replies, "assistant"))
        history = self.history + new
        return self._extend(Layer.HISTORY, history, clear_tail=True)

    def pinned(self, pin: bool = True) -> Prompt:
        """Keep tools in the order they were added instead of sorting them by name."""
        return self._derive(self._layers, None, pin_tool_order=pin)

    # -- rendering ------------------------------------------------------------------------

    def render(self, counter: TokenCounter | None = None) -> Rendered:
        """Render to blocks; reuses every block already rendered for a prompt this grew from."""
        counter = counter or DEFAULT_COUNTER
        layers = self._layers
        start: tuple[Block, ...] = ()
        known = self._known
        if known is not None and known[0] is counter:
            done, valid = known[1].blocks, known[2]
            if valid == len(done) == sum(map(len, layers)):
                return known[1]
            start = done if valid == len(done) else done[:valid]
        blocks: list[Block] = []
        previous = start[-1].hash if start else b""
        # The loop every request runs: flat and positional; each part memoises its link and hash.
        append, new = blocks.append, tuple.__new__
        skip = len(start)
        for layer in _LAYERS:
            parts = layers[layer]
            size = len(parts)
            if skip >= size:  # rendered already: not even the tools need sorting again
                skip -= size
                continue
            if layer is Layer.TOOLS:
                parts = self._sorted_tools()
            for index in range(skip, size):
                part = parts[index]
                role, data, link, tokens, count = part.link(counter)
                previous = part.chain(previous, link)  # SHA-256(previous || link), memoised
                append(new(Block, (layer, index, role, data, tokens, count, previous)))
            skip = 0
        result = start + tuple(blocks)
        rendered = Rendered(blocks=result, counter=counter.name)
        if start and known is not None and known[1]._aligned:
            valid = len(start)
            # dict() copies in one C call: another thread may be adding to the parent's lists.
            inherited = dict(known[1]._aligned)
            rendered._aligned.update(
                (name, (values, min(count, valid))) for name, (values, count) in inherited.items()
            )
        _set(self, "_known", (counter, rendered, len(result)))
        return rendered

    def layer(self, layer: Layer) -> _LayerParts:
        """The parts of one layer, in render order."""
        if layer is Layer.TOOLS:
            return self._sorted_tools()
        return self._layers[layer]

    def volatile_values(self) -> list[tuple[str, VolatileMatch]]:
        """
        Every value in the tools, system and docs layers that looks volatile now, with the path
        of its block in render order (`system[1]`), whatever this prompt's `volatile` policy.
        """
        return [
            (f"{_NAMES[layer]}[{index}]", match)
            for layer in _STABLE_GUARDED
            for index, part in enumerate(self.layer(layer))
            for match in recent(part.volatile_candidates())
        ]

    # -- dump / load ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The prompt as plain JSON data; `Prompt.from_json` reads it back."""
        return {
            "format": _FORMAT,
            "pin_tool_order": self.pin_tool_order,
            **{_NAMES[layer]: [p.to_json() for p in self._layers[layer]] for layer in _LAYERS},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, volatile: VolatilePolicy = "warn") -> Prompt:
        """Rebuild a prompt from `to_json` output."""
        if data.get("format") != _FORMAT:
            raise InputError(
                f"not a dumped Prompt: 'format' is {data.get('format')!r}, expected {_FORMAT!r}"
            )
        kinds: dict[str, type[Part]] = {
            "tools": Tool,
            "system": SystemBlock,
            "docs": Doc,
            "history": Message,
            "tail": Message,
        }
        layers: dict[str, tuple[Any, ...]] = {}
        for name, kind in kinds.items():
            items = data.get(name, [])
            if not isinstance(items, list):
                raise InputError(f"{name}: expected a list, got {type(items).__name__}")
            layers[name] = tuple(
                part_from_json(item, json_path(name, i), kind) for i, item in enumerate(items)
            )
        return cls(
            **layers, pin_tool_order=bool(data.get("pin_tool_order", False)), volatile=volatile
        )

    # -- internals ------------------------------------------------------------------------

    def _derive(self, layers: _Layers, known: _Known | None, *, pin_tool_order: bool) -> Prompt:
        """A prompt with these layers and this prompt's policy, built without re-validating."""
        new = object.__new__(Prompt)
        _set(new, "_layers", layers)
        _set(new, "pin_tool_order", pin_tool_order)
        _set(new, "volatile", self.volatile)
        _set(new, "_known", known)
        return new

    def _extend(
        self, layer: Layer, parts: _LayerParts, *, replaced: bool = False, clear_tail: bool = False
    ) -> Prompt:
        """
        A new prompt whose `layer` holds `parts`: the old parts plus new ones at the end, or,
        when `replaced`, all new ones. Only the new parts are checked.
        """
        layers = self._layers
        self._check(layer, parts, start=0 if replaced else len(layers[layer]))
        changed = list(layers)
        changed[layer] = parts
        if clear_tail:
            changed[Layer.TAIL] = ()
        known = self._known
        if known is not None:
            # Blocks follow the parts in layer order: the valid ones are those of the earlier
            # layers (and of this layer when it only grew, unless sorting may have moved a new
            # tool in among the old ones), as far as rendering had got.
            appended = not replaced and (layer is not Layer.TOOLS or self.pin_tool_order)
            keep = sum(map(len, layers[: layer + 1 if appended else layer]))
            known = (known[0], known[1], min(known[2], keep))
        new_layers: _Layers = tuple(changed)  # type: ignore[assignment]
        return self._derive(new_layers, known, pin_tool_order=self.pin_tool_order)

    def _check(self, layer: Layer, parts: _LayerParts, start: int) -> None:
        """Validate the new parts (from `start` on) and guard them when the layer is stable."""
        name = _NAMES[layer]
        guarded = layer in _STABLE_GUARDED and self.volatile != "ignore"
        for index in range(start, len(parts)):
            part = parts[index]
            if part._memo.data is None:  # parts are validated once, on first use
                part.canonical(f"{name}[{index}]")
            if guarded:
                self._guard(layer, index, part)

    def _guard(self, layer: Layer, index: int, part: Part) -> None:
        for match in recent(part.volatile_candidates()):
            # Tools render sorted by name, so their index here (the order they were added) is
            # not their block's: name the tool instead.
            block = f"tool {part.name!r}" if isinstance(part, Tool) else f"block {index}"
            message = (
                f"{layer}[{index}] (layer {layer!s}, {block}) contains {match.described} "
                f"{match.value!r} at offset {match.offset}. A value that changes per request in a "
                f"stable layer breaks the cache for everything after it; move it to the tail "
                f"with Prompt.with_tail(...)."
            )
            if self.volatile == "error":
                raise VolatileContentError(message)
            warnings.warn(VolatileContentWarning(message), stacklevel=5)

    def _sorted_tools(self) -> tuple[Tool, ...]:
        if self.pin_tool_order:
            return self.tools
        return tuple(sorted(self.tools, key=lambda tool: tool.name))


def _as_tool(value: Tool | Mapping[str, Any], path: str) -> Tool:
    if isinstance(value, Tool):
        return value
    if not isinstance(value, Mapping):
        raise InputError(f"{path}: expected a Tool or a dict, got {type(value).__name__}")
    schema = value.get("input_schema", value.get("parameters", {"type": "object"}))
    unknown = set(value) - {"name", "description", "input_schema", "parameters"}
    if unknown:
        raise InputError(
            f"{path}: unknown tool keys {sorted(unknown)}; expected name, description, input_schema"
        )
    return Tool(
        name=value.get("name", ""), description=value.get("description", ""), input_schema=schema
    )


def _as_messages(
    messages: Iterable[str | Message], role: Literal["user", "assistant"] = "user"
) -> tuple[Message, ...]:
    """The messages as `Message`s; a plain string becomes a text message from `role`."""
    out = []
    for message in messages:
        if isinstance(message, str):
            message = Message(role=role, content=message)
        elif not isinstance(message, Message):
            raise InputError(f"expected a Message or str, got {shown(message)}")
        out.append(message)
    return tuple(out)


def _check_unique_names(tools: tuple[Tool, ...]) -> None:
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise InputError(f"two tools are named {tool.name!r}; tool names must be unique")
        seen.add(tool.name)
