"""
promptcache: make LLM prompt caching work, and make its failures visible.

    from promptcache import Prompt, Tool, Message

    base = Prompt().add_tools(Tool(name="search", input_schema={...})).add_system("You are ...")
    request = base.add_history(*turns).with_tail("Where is my order?")
    for block in request.render():
        print(block.path, block.tokens, block.digest)
"""

from __future__ import annotations

from ._canonical import canonical_bytes
from ._errors import (
    CanonicalError,
    InputError,
    MissingDependencyError,
    PromptCacheError,
    VolatileContentError,
    VolatileContentWarning,
)
from ._parts import (
    Content,
    Doc,
    DocumentPart,
    ImagePart,
    Message,
    SystemBlock,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from ._prompt import Block, Layer, Prompt, Rendered, VolatilePolicy
from ._tokens import (
    DEFAULT_COUNTER,
    EstimateCounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokenCounter,
)
from ._usage import CacheUsage
from ._volatile import VolatileMatch, find_volatile

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_COUNTER",
    "Block",
    "CacheUsage",
    "CanonicalError",
    "Content",
    "Doc",
    "DocumentPart",
    "EstimateCounter",
    "HFTokenizerCounter",
    "ImagePart",
    "InputError",
    "Layer",
    "Message",
    "MissingDependencyError",
    "Prompt",
    "PromptCacheError",
    "Rendered",
    "SystemBlock",
    "TextPart",
    "ThinkingPart",
    "TiktokenCounter",
    "TokenCounter",
    "Tool",
    "ToolResult",
    "ToolUse",
    "VolatileContentError",
    "VolatileContentWarning",
    "VolatileMatch",
    "VolatilePolicy",
    "__version__",
    "canonical_bytes",
    "find_volatile",
]
