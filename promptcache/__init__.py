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
from ._economics import (
    BreakEven,
    CacheTerms,
    Cascade,
    GeminiChoice,
    ModelSwitch,
    Prewarm,
    TtlChoice,
    WhatIf,
    Workload,
    break_even,
    cascade,
    choose_ttl,
    gemini_explicit_vs_implicit,
    model_switch,
    prewarm,
    ttl_options,
    what_if,
)
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
    PriceSource,
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
from .debug import DiffResult, Invalidation, Monitor, Recorder, RedisStore, StateStore, diff

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_COUNTER",
    "Block",
    "BreakEven",
    "Breakpoint",
    "CacheDiagnosis",
    "CacheTerms",
    "CacheUsage",
    "CanonicalError",
    "Cascade",
    "Content",
    "Cost",
    "DiffResult",
    "Doc",
    "DocumentPart",
    "EstimateCounter",
    "GeminiChoice",
    "HFTokenizerCounter",
    "ImagePart",
    "InputError",
    "Invalidation",
    "Layer",
    "Message",
    "MinTokenTable",
    "MissingDependencyError",
    "ModelSwitch",
    "Monitor",
    "Plan",
    "Prewarm",
    "PriceSource",
    "PriceTable",
    "Prompt",
    "PromptCacheError",
    "Rates",
    "Recorder",
    "RedisStore",
    "Rendered",
    "SharedPrefixes",
    "StateStore",
    "SystemBlock",
    "TextPart",
    "ThinkingPart",
    "TiktokenCounter",
    "TokenCounter",
    "Tool",
    "ToolResult",
    "ToolUse",
    "TtlChoice",
    "VolatileContentError",
    "VolatileContentWarning",
    "VolatileMatch",
    "VolatilePolicy",
    "WhatIf",
    "Workload",
    "__version__",
    "break_even",
    "canonical_bytes",
    "cascade",
    "choose_ttl",
    "cost",
    "diff",
    "find_volatile",
    "gemini_explicit_vs_implicit",
    "get_adapter",
    "load_min_tokens",
    "load_prices",
    "model_switch",
    "plan",
    "prewarm",
    "ttl_options",
    "what_if",
    "wrap",
]
