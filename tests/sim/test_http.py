"""An emulator served over HTTP on 127.0.0.1, for clients that bring their own HTTP stack."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from promptcache import Prompt, get_adapter
from promptcache.sim import AnthropicEmulator


def test_the_real_sdk_over_loopback_reads_what_it_wrote() -> None:
    anthropic = pytest.importorskip("anthropic")
    emulator = AnthropicEmulator()
    prompt = Prompt().add_system("You are the support agent. " * 300).with_tail("Hi")
    request = get_adapter("anthropic").to_request(prompt, model="claude-sonnet-4-6")
    with emulator.http_server() as server:
        assert server.url.startswith("http://127.0.0.1:")
        client = anthropic.Anthropic(base_url=server.url, api_key="emulated-no-key", max_retries=0)
        first = client.messages.create(**request)
        second = client.messages.create(**request)
    assert first.usage.cache_creation_input_tokens > 0 and first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert emulator.requests == 2


def test_a_body_that_is_not_json_gets_the_vendor_s_400_and_close_frees_the_port() -> None:
    server = AnthropicEmulator().http_server()
    post = urllib.request.Request(f"{server.url}/v1/messages", data=b"{not json", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(post, timeout=10)
    assert refused.value.code == 400
    assert "emulated" in refused.value.headers["x-promptcache-emulation"]
    assert json.loads(refused.value.read())["type"] == "error"
    server.close()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(post, timeout=10)
