"""
The parts a prompt is made of: tools, system blocks, documents, messages and their content.

Every part is a frozen, slotted, keyword-only value. Its canonical bytes are computed once, the
first time they are needed, and never change: a part is a snapshot, so mutating a dict after
passing it in does not change what renders. Two parts are equal when their canonical bytes are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

import orjson

from ._canonical import canonical_bytes, chain_hash, json_path
from ._errors import InputError, shown, shown_name
from ._tokens import TokenCounter
from ._volatile import VolatileMatch, candidates

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "Content",
    "Doc",
    "DocumentPart",
    "ImagePart",
    "Message",
    "SystemBlock",
    "TextPart",
    "ThinkingPart",
    "Tool",
    "ToolResult",
    "ToolUse",
]


_Link = tuple[str, bytes, bytes, int, int]


class _Memo:
    """
    What a part works out about itself, each the first time it is needed. A part never changes,
    so neither do these. They are class defaults on a small separate object: a new part pays for
    one object instead of a slot write per value, and a frozen part can still fill them in.
    """

    data: bytes | None = None  # the canonical bytes
    link: tuple[TokenCounter, _Link] | None = None  # what its block needs, for one counter
    chain: tuple[bytes, bytes] | None = None  # the last (previous hash, chained hash) pair
    scan: tuple[VolatileMatch, ...] | None = None  # volatile-looking values, before recency
    pieces: dict[str, Any] | None = None  # what each request format writes for it, unmarked


class _Canonical:
    """
    Memoised canonical bytes, their digest and token count; equality by the bytes.

    The memo is a slot, not a dataclass field, so `dataclasses.fields`, `asdict` and `replace`
    see only what the caller gave. Subclasses that define `__post_init__` call this one first.
    """

    __slots__ = ("_memo",)
    _memo: _Memo

    def __post_init__(self) -> None:
        object.__setattr__(self, "_memo", _Memo())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy by the fields the caller gave; the copy works out its memo afresh."""
        given = fields(cast("DataclassInstance", self))  # every concrete part is a dataclass
        return (_rebuild, (type(self), {f.name: getattr(self, f.name) for f in given}))

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def canonical(self, path: str = "$") -> bytes:
        """The canonical JSON bytes of this part; `path` names it in any error."""
        memo = self._memo
        data = memo.data
        if data is None:
            data = memo.data = canonical_bytes(self.to_json(), path)
        return data

    def sorted_json(self) -> dict[str, Any]:
        """
        A fresh copy of `to_json()` with every object's keys in sorted order. Adapters hand this
        to the vendor SDKs, which serialise dicts in insertion order: a schema built with its keys
        in another order must still go out as the same bytes.
        """
        value: dict[str, Any] = orjson.loads(self.canonical())
        return value

    def link(self, counter: TokenCounter) -> _Link:
        """
        What a block of this part needs, computed once per part and counter: the role, the
        bytes, the role tag plus content digest that the hash chain folds in, the token count
        and the number of content blocks. Rendering a request is then one lookup per block.
        """
        memo = self._memo
        known = memo.link
        if known is not None and known[0] is counter:
            return known[1]
        role: str = getattr(self, "role", "")
        data = memo.data or self.canonical()
        content = getattr(self, "content", None)
        link = (
            role,
            data,
            role.encode() + b"\0" + hashlib.sha256(data).digest(),
            counter.count(data.decode("utf-8")),
            len(content) if isinstance(content, tuple) else 1,
        )
        memo.link = (counter, link)
        return link

    def chain(self, previous: bytes, link: bytes) -> bytes:
        """
        The chained hash of this part's block after a block hashed `previous`.

        The part remembers the last (previous, result) pair: a part reused by every request
        sits behind the same prefix every time, so the steady state costs a comparison instead
        of a SHA-256.
        """
        memo = self._memo
        known = memo.chain
        if known is not None and known[0] == previous:
            return known[1]
        result = chain_hash(previous, link)
        memo.chain = (previous, result)
        return result

    def volatile_candidates(self) -> tuple[VolatileMatch, ...]:
        """
        Values in this part that may be volatile (before the recency check), found once: the
        text of a text part, or the canonical JSON of anything else.
        """
        memo = self._memo
        found = memo.scan
        if found is None:
            text = getattr(self, "text", None)
            found = candidates(text if isinstance(text, str) else self.canonical().decode("utf-8"))
            memo.scan = found
        return found

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Canonical)
        return self.canonical() == other.canonical()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.canonical()))


def _need_str(value: object, what: str) -> None:
    if not isinstance(value, str):
        raise InputError(f"{what} must be str, got {shown(value)}")


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Tool(_Canonical):
    """A tool definition. `input_schema` is a JSON Schema object (a dict)."""

    role: ClassVar[str] = "tool"
    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})

    def __post_init__(self) -> None:
        _Canonical.__post_init__(self)
        _need_str(self.name, "Tool.name")
        _need_str(self.description, f"Tool({self.name!r}).description")
        if not self.name:
            raise InputError("Tool.name must not be empty; vendors reject unnamed tools")
        if not isinstance(self.input_schema, Mapping):
            raise InputError(
                f"Tool({self.name!r}).input_schema must be a dict (a JSON Schema object), "
                f"got {type(self.input_schema).__name__}"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "input_schema": self.input_schema,
            "name": self.name,
        }


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SystemBlock(_Canonical):
    """One block of system prompt text."""

    role: ClassVar[str] = "system"
    text: str

    def __post_init__(self) -> None:
        _Canonical.__post_init__(self)
        _need_str(self.text, "SystemBlock.text")

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "type": "text"}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Doc(_Canonical):
    """A reference document that many requests share (a manual, a code file, a RAG corpus)."""

    role: ClassVar[str] = "doc"
    text: str
    title: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _Canonical.__post_init__(self)
        _need_str(self.text, "Doc.text")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "type": "doc"}
        if self.title is not None:
            out["title"] = self.title
        if self.source is not None:
            out["source"] = self.source
        return out


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TextPart(_Canonical):
    text: str

    def __post_init__(self) -> None:
        _Canonical.__post_init__(self)
        _need_str(self.text, "TextPart.text")

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "type": "text"}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ImagePart(_Canonical):
    """An image given inline (`data`, base64) or by `url`."""

    media_type: str = "image/png"
    data: str | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        _Canonical.__post_init__(self)
        if (self.data is None) == (self.url is None):
            raise InputError("ImagePart needs exactly one of data= (base64) or url=")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"media_type": self.media_type, "type": "image"}
        out.update({"data": self.data} if self.data is not None else {"url": self.url})
        return out


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DocumentPart(_Canonical):
    """A file attached to a message (a PDF as base64 `data`, or plain `text`)."""

    media_type: str = "application/pdf"
    data: str | None = None
    text: str | None = None
    title: str | None = None

    def __post_init__(self) -> None:
        _Canonical.__post_init__(self)
        if (self.data is None) == (self.text is None):
            raise InputError("DocumentPart needs exactly one of data= (base64) or text=")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"media_type": self.media_type, "type": "document"}
        out.update({"data": self.data} if self.data is not None else {"text": self.text})
        if self.title is not None:
            out["title"] = self.title
        return out


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ToolUse(_Canonical):
    """A tool call the assistant made."""

    id: str
    name: str
    input: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "input": self.input, "name": self.name, "type": "tool_use"}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ToolResult(_Canonical):
    """The result of a tool call, sent back in a user turn."""

    tool_use_id: str
    content: str | tuple[TextPart | ImagePart, ...] = ""
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        content = self.content
        body: Any = content if isinstance(content, str) else [p.to_json() for p in content]
        out: dict[str, Any] = {
            "content": body,
            "tool_use_id": self.tool_use_id,
            "type": "tool_result",
        }
        if self.is_error:
            out["is_error"] = True
        return out


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ThinkingPart(_Canonical):
    """A reasoning block; vendors forbid cache markers on it and some drop it from old turns."""

    thinking: str
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"signature": self.signature, "thinking": self.thinking, "type": "thinking"}


Content = TextPart | ImagePart | DocumentPart | ToolUse | ToolResult | ThinkingPart
_CONTENT_TYPES = (TextPart, ImagePart, DocumentPart, ToolUse, ToolResult, ThinkingPart)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Message(_Canonical):
    """
    One conversation turn. `content` may be a str (one text part) or a sequence of parts.

        Message.user("What changed?")
        Message(role="assistant", content=[TextPart(text="Let me look."), ToolUse(...)])
    """

    role: Literal["user", "assistant"]
    content: tuple[Content, ...]

    def __init__(self, *, role: Literal["user", "assistant"], content: str | Sequence[Content]):
        if role not in ("user", "assistant"):
            raise InputError(
                f"Message.role must be 'user' or 'assistant', got {role!r}; "
                "system text belongs in Prompt.add_system()"
            )
        memo = _Memo()
        if isinstance(content, str):
            parts: tuple[Content, ...] = (TextPart(text=content),)
            memo.data = _text_message_bytes(role, content)
        else:
            parts = tuple(content)
            for index, part in enumerate(parts):
                if not isinstance(part, _CONTENT_TYPES):
                    raise InputError(
                        f"Message content[{index}] must be a content part (TextPart, "
                        f"ImagePart, ...), got {shown(part)}"
                    )
        object.__setattr__(self, "role", role)
        object.__setattr__(self, "content", parts)
        object.__setattr__(self, "_memo", memo)

    @classmethod
    def user(cls, content: str | Sequence[Content]) -> Message:
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str | Sequence[Content]) -> Message:
        return cls(role="assistant", content=content)

    @property
    def text(self) -> str:
        """The message's text parts joined by newlines."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))

    def to_json(self) -> dict[str, Any]:
        return {"content": [part.to_json() for part in self.content], "role": self.role}


Part = Tool | SystemBlock | Doc | Message


def _rebuild(kind: type[_Canonical], values: dict[str, Any]) -> _Canonical:
    return kind(**values)


def _text_message_bytes(role: str, text: str) -> bytes | None:
    """
    The canonical bytes of a message that is one text part, assembled around the one value that
    needs encoding: most messages are plain text, and this is several times cheaper than
    building `to_json()` and serialising it. The bytes are the same (a property test holds them
    so). None when orjson refuses the text (a lone surrogate): the general path then names it.
    """
    try:
        encoded = orjson.dumps(text)
    except orjson.JSONEncodeError:
        return None
    return b'{"content":[{"text":' + encoded + b',"type":"text"}],"role":"' + role.encode() + b'"}'


def part_from_json(data: Any, path: str, kind: type[Part]) -> Part:
    """Rebuild a part from the neutral JSON that `to_json` writes (used by `Prompt.from_json`)."""
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected an object, got {type(data).__name__}")
    try:
        if kind is Message:
            content = [
                _content_from_json(c, json_path(path, i)) for i, c in enumerate(data["content"])
            ]
            return Message(role=data["role"], content=content)
        fields = {k: v for k, v in data.items() if k != "type"}
        return kind(**fields)
    except (KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a valid {kind.__name__}: {exc}") from None


_CONTENT_BY_TYPE: dict[str, type[Content]] = {
    "text": TextPart,
    "image": ImagePart,
    "document": DocumentPart,
    "tool_use": ToolUse,
    "tool_result": ToolResult,
    "thinking": ThinkingPart,
}


def _content_from_json(data: Any, path: str) -> Content:
    if not isinstance(data, dict) or data.get("type") not in _CONTENT_BY_TYPE:
        kind = data.get("type") if isinstance(data, dict) else None
        what = f"type {shown_name(kind)}" if isinstance(kind, str) else shown(data)
        raise InputError(f"{path}: unknown content part {what}")
    kind = _CONTENT_BY_TYPE[data["type"]]
    fields = {k: v for k, v in data.items() if k != "type"}
    if kind is ToolResult and isinstance(fields.get("content"), list):
        fields["content"] = tuple(
            _content_from_json(c, json_path(json_path(path, "content"), i))
            for i, c in enumerate(fields["content"])
        )
    return kind(**fields)
