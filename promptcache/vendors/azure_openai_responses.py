"""
Azure OpenAI Responses (`AzureOpenAI(...).responses.create`): OpenAI's Responses format on
Azure. The SDK sends `/openai/responses?api-version=...` with no deployment segment; `model` in
the body is the deployment name. Caching as Azure's Chat Completions (`azure_openai`); usage
reading is OpenAI's (`input_tokens_details.cached_tokens`; that Azure fills it the same way is
not documented).
"""

from __future__ import annotations

from dataclasses import replace

from ._platform import on_platform
from .azure_openai import AZURE_RULES, no_breakpoints, openai_only_settings, unmarked
from .openai_responses import VENDOR as OPENAI_RESPONSES

__all__ = ["VENDOR"]

VENDOR = on_platform(
    OPENAI_RESPONSES,
    name="azure-openai-responses",
    title="Azure OpenAI Responses",
    aliases=("azure-responses",),
    table_key="azure-openai",
    detects=unmarked,
    supports_breakpoints=no_breakpoints,
    **AZURE_RULES,
)
VENDOR = replace(VENDOR, check_markers=openai_only_settings)
