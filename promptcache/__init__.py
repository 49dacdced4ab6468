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
from ._learned import SharedPrefixes
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
from ._plan import Breakpoint, Plan, plan
from ._pricing import (
    Cost,
    MinTokenTable,
    PriceTable,
    Rates,
    cost,
    load_min_tokens,
    load_prices,
)
from ._prompt import Block, Layer, Prompt, Rendered, VolatilePolicy
from ._tokens import (
    DEFAULT_COUNTER,
    EstimateCounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokenCounter,
)
from ._usage import CacheDiagnosis, CacheUsage
from ._volatile import VolatileMatch, find_volatile
from ._wrap import wrap
from .adapters import get_adapter
from .debug import DiffResult, Invalidation, Monitor, diff

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_COUNTER",
    "Block",
    "Breakpoint",
    "CacheDiagnosis",
    "CacheUsage",
    "CanonicalError",
    "Content",
    "Cost",
    "DiffResult",
    "Doc",
    "DocumentPart",
    "EstimateCounter",
    "HFTokenizerCounter",
    "ImagePart",
    "InputError",
    "Invalidation",
    "Layer",
    "Message",
    "MinTokenTable",
    "MissingDependencyError",
    "Monitor",
    "Plan",
    "PriceTable",
    "Prompt",
    "PromptCacheError",
    "Rates",
    "Rendered",
    "SharedPrefixes",
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
    "cost",
    "diff",
    "find_volatile",
    "get_adapter",
    "load_min_tokens",
    "load_prices",
    "plan",
    "wrap",
]
