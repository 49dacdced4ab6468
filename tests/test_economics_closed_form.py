"""
The what-if prices evenly spaced requests in closed form (`cost --requests 1000000000000`
answers at once); the request-by-request replay stays as the reference, and the two agree on
every small workload hypothesis draws.
"""

from __future__ import annotations

import subprocess
import sys
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache._economics import (
    CacheTerms,
    RepeatedGaps,
    Workload,
    _replay,
    replay_requests,
)

_GAPS = st.sampled_from([0.0, 0.5, 1.0, 59.9, 60.0, 100.0, 299.0, 300.0, 301.0, 3600.0, 7200.5])
_TTLS = st.sampled_from([None, 60.0, 300.0, 3600.0, 0.1])


@settings(max_examples=400, deadline=None)
@given(
    requests=st.integers(min_value=1, max_value=60),
    gap=_GAPS,
    ttl=_TTLS,
    refresh=st.booleans(),
    storage=st.sampled_from([0.0, 0.001]),
    repeated=st.booleans(),
)
def test_the_closed_form_agrees_with_the_request_by_request_replay(
    requests: int, gap: float, ttl: float | None, refresh: bool, storage: float, repeated: bool
) -> None:
    terms = CacheTerms(
        name="t",
        input=1.0,
        write=1.25,
        read=0.1,
        ttl_seconds=ttl,
        refresh_on_read=refresh,
        storage_per_token_hour=storage,
    )
    gaps = RepeatedGaps(gap, requests - 1) if repeated else (gap,) * (requests - 1)
    workload = Workload(prefix_tokens=1000, requests=requests, gaps=gaps)
    reference = replay_requests(
        Workload(prefix_tokens=1000, requests=requests, gaps=(gap,) * (requests - 1)), terms
    )
    assert _replay(workload, terms) == reference
    no_gaps = Workload(prefix_tokens=1000, requests=requests)
    assert _replay(no_gaps, terms) == replay_requests(no_gaps, terms)


def test_a_trillion_requests_answer_at_once() -> None:
    argv = [
        "cost", "--prefix-tokens", "10000", "--tail-tokens", "200",
        "--requests", "1000000000000", "--write-multiplier", "1.25", "--read-multiplier", "0.1",
        "--ttl", "5m=1.25", "--ttl", "1h=2", "--gaps", "10m", "--format", "json",
    ]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "promptcache", *argv],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 30
    assert '"writes": 1000000000000' in done.stdout and '"count": 999999999999' in done.stdout
