"""Monitor().observe of something that is no request says so once, in JSON's words."""

from __future__ import annotations

import pytest

from promptcache import InputError, Monitor

_USAGE = {"usage": {"input_tokens": 1, "output_tokens": 1}}


@pytest.mark.parametrize(("request_", "kind"), [(None, "null"), ([], "list"), ("hi", "string")])
def test_observe_names_what_it_got(request_: object, kind: str) -> None:
    with pytest.raises(InputError) as caught:
        Monitor().observe(request_, _USAGE)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("the request must be a dict") and f"got {kind}" in message
    assert "request request" not in message
