"""
What the analysis knows about each library, one module per framework (see `_knowledge`).

Adding a framework is one module here declaring `FRAMEWORK`, listed in `FRAMEWORKS` below, and
its tests. Order matters only where two sinks share a dotted-name ending: the first listed wins.
"""

from __future__ import annotations

from .._knowledge import Framework
from . import (
    anthropic,
    autogen,
    bedrock,
    chainlit,
    cohere,
    crewai,
    discord,
    dspy,
    fastapi,
    flask,
    google_genai,
    gradio,
    haystack,
    http,
    instructor,
    jinja,
    langchain,
    litellm,
    llamaindex,
    mistral,
    ollama,
    openai,
    openai_agents,
    promptcache,
    promptflow,
    pydantic_ai,
    semantic_kernel,
    smolagents,
    stdlib,
    streamlit,
    telegram,
    vector_stores,
)

__all__ = ["FRAMEWORKS"]

FRAMEWORKS: tuple[Framework, ...] = (
    stdlib.FRAMEWORK,
    anthropic.FRAMEWORK,
    openai.FRAMEWORK,
    google_genai.FRAMEWORK,
    bedrock.FRAMEWORK,
    litellm.FRAMEWORK,
    langchain.FRAMEWORK,
    pydantic_ai.FRAMEWORK,
    openai_agents.FRAMEWORK,
    promptcache.FRAMEWORK,
    llamaindex.FRAMEWORK,
    smolagents.FRAMEWORK,
    dspy.FRAMEWORK,
    instructor.FRAMEWORK,
    promptflow.FRAMEWORK,
    jinja.FRAMEWORK,
    fastapi.FRAMEWORK,
    flask.FRAMEWORK,
    streamlit.FRAMEWORK,
    gradio.FRAMEWORK,
    chainlit.FRAMEWORK,
    vector_stores.FRAMEWORK,
    crewai.FRAMEWORK,
    haystack.FRAMEWORK,
    semantic_kernel.FRAMEWORK,
    mistral.FRAMEWORK,
    cohere.FRAMEWORK,
    ollama.FRAMEWORK,
    autogen.FRAMEWORK,
    http.FRAMEWORK,
    telegram.FRAMEWORK,
    discord.FRAMEWORK,
)
