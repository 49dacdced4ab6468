"""Which SDK method sends a request of each adapter: one table, for the demo and the assertions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["send"]

_CALLS: dict[str, Callable[[Any, Mapping[str, Any]], Any]] = {
    "anthropic": lambda client, request: client.messages.create(**request),
    "openai": lambda client, request: client.chat.completions.create(**request),
    "openai-responses": lambda client, request: client.responses.create(**request),
    "engine": lambda client, request: client.chat.completions.create(**request),
    "gemini": lambda client, request: client.models.generate_content(**request),
    "bedrock-converse": lambda client, request: client.converse(**request),
}


def send(client: Any, adapter: str, request: Mapping[str, Any]) -> Any:
    """Send the keyword arguments `request` (made by adapter `adapter`) through the SDK `client`."""
    from ..vendors import get_vendor

    return _CALLS[get_vendor(adapter).name](client, request)
