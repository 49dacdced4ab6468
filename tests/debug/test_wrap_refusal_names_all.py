"""wrap()'s refusal of an unknown client names every kind it takes, boto3's included."""

from __future__ import annotations

import pytest

from promptcache import InputError, Monitor, wrap


def test_refusal_names_the_boto3_and_cloud_clients() -> None:
    with pytest.raises(InputError) as caught:
        wrap(object(), monitor=Monitor())
    message = str(caught.value)
    assert "boto3 'bedrock-runtime'" in message and "Vertex AI" in message and "Azure" in message
