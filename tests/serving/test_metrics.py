"""Engine /metrics parsing: vLLM, SGLang and llama.cpp counters; unknown is never 0."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from promptcache import InputError, cli
from promptcache.serving import interval, parse_metrics, scrape

VLLM = """\
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
vllm:prefix_cache_queries_total{engine="1",model_name="m"} 1000.0
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 600.0
vllm:prefix_cache_hits_total{engine="1",model_name="m"} 200.0
"""
SGLANG = """\
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="m"} 0.42
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{cache_source="device",model_name="m"} 300.0
sglang:cached_tokens_total{cache_source="host",model_name="m"} 100.0
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m"} 1000.0
"""
LLAMACPP = """\
# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed, excluding cached tokens
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 494
# TYPE llamacpp:prompt_tokens_cached_total counter
llamacpp:prompt_tokens_cached_total 478
"""


def test_vllm_counters_sum_over_engines() -> None:
    found = parse_metrics(VLLM)
    assert (found.engine, found.queried_tokens, found.hit_tokens) == ("vllm", 2000, 800)
    assert found.hit_rate == 0.4


def test_sglang_counters_and_gauge() -> None:
    found = parse_metrics(SGLANG)
    assert (found.engine, found.queried_tokens, found.hit_tokens) == ("sglang", 1000, 400)
    assert found.hit_rate_gauge == 0.42


def test_llamacpp_queried_adds_back_cached_tokens() -> None:
    found = parse_metrics(LLAMACPP)
    assert (found.queried_tokens, found.hit_tokens) == (494 + 478, 478)


def test_llamacpp_reading_more_cached_than_evaluated_is_a_warm_cache() -> None:
    # llama.cpp's prompt_tokens_total excludes the cached tokens, so a warm cache reads more
    # cached than "total" (2,424 against 2,050 on a real server); vLLM's check must not apply.
    text = LLAMACPP.replace(" 494", " 2050").replace(" 478", " 2424")
    counters = parse_metrics(text)
    assert (counters.hit_tokens, counters.queried_tokens) == (2424, 4474)


def test_missing_counters_are_unknown_not_zero() -> None:
    found = parse_metrics("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n")
    assert found.hit_rate is None and found.hit_tokens is None
    assert "vllm:prefix_cache_hits_total" in found.missing
    other = parse_metrics("# TYPE up gauge\nup 1\n")
    assert other.engine == "unknown" and other.hit_rate is None


def test_interval_is_the_delta_and_notices_a_restart() -> None:
    before = parse_metrics(VLLM)
    after = parse_metrics(VLLM.replace("1000.0", "1500.0").replace("600.0", "1000.0"))
    window = interval(before, after, 10.0)
    assert (window.queried_tokens, window.hit_tokens, window.hit_rate) == (1000, 400, 0.4)
    restarted = interval(after, before, 10.0)
    assert restarted.restarted and restarted.queried_tokens == 2000


def test_a_different_engine_on_the_second_scrape_is_no_delta() -> None:
    # vLLM at 2000 queried / 800 hit, then llama.cpp at the same URL at 9720 / 4780: the
    # counters are not one series, so their difference (7720 / 3980, both up) is no interval;
    # the second scrape stands alone.
    llama = LLAMACPP.replace(" 494", " 4940").replace(" 478", " 4780")
    window = interval(parse_metrics(VLLM), parse_metrics(llama), 10.0)
    assert window.restarted
    assert (window.engine, window.queried_tokens, window.hit_tokens) == ("llama.cpp", 9720, 4780)


def test_nothing_queried_is_unknown() -> None:
    window = interval(parse_metrics(VLLM), parse_metrics(VLLM), 5.0)
    assert window.queried_tokens == 0 and window.hit_rate is None


def test_garbage_is_refused() -> None:
    with pytest.raises(InputError, match="Prometheus"):
        parse_metrics("vllm:prefix_cache_hits_total{engine= 3\n")


def test_engine_stats_cli_unreachable_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["engine-stats", "http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach http://127.0.0.1:9/metrics" in err and "Traceback" not in err


def test_engine_stats_log_counts_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptcache._commands import engine_stats

    monkeypatch.setattr(engine_stats, "scrape", lambda url, **_: parse_metrics(VLLM))
    log = tmp_path / "log.jsonl"
    rows = [
        {
            "response": {
                "usage": {
                    "prompt_tokens": 100,
                    "completion_tokens": 1,
                    "prompt_tokens_details": {"cached_tokens": 80},
                }
            }
        },
        {"response": {"usage": {"prompt_tokens": 100, "completion_tokens": 1}}},
    ]
    log.write_text("\n".join(json.dumps(r) for r in rows))
    assert cli.main(["engine-stats", "http://vllm:8000", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "800 of 2,000 prompt tokens from cache (40.0%)" in out
    assert "2 requests, 80 of 100 prompt tokens from cache (80.0%)" in out
    assert "1 did not report caching" in out and "--enable-prompt-tokens-details" in out


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["127.0.0.1:9"], "http://"),
        (["notaurl"], "http://"),
        (["ftp://127.0.0.1:9"], "http://"),
        (["http://[::1"], "http://[::1"),
        (["--timeout", "nan", "http://127.0.0.1:9"], "--timeout"),
        (["--timeout", "0", "http://127.0.0.1:9"], "--timeout"),
        (["--interval", "nan", "http://127.0.0.1:9"], "--interval"),
        (["--interval", "inf", "http://127.0.0.1:9"], "--interval"),
    ],
    ids=[
        "no-scheme",
        "not-a-url",
        "ftp",
        "bad-ipv6",
        "timeout-nan",
        "timeout-0",
        "interval-nan",
        "interval-inf",
    ],
)
def test_engine_stats_refuses_a_url_or_number_it_cannot_use(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Were internal errors (ValueError from urllib or the socket timeout), or an unclear
    # "unknown url type" for a host:port without http://. Checked before any connection.
    assert cli.main(["engine-stats", *argv]) == 2
    err = capsys.readouterr().err
    assert named in err and "internal error" not in err and "cannot reach" not in err


@pytest.fixture
def no_metrics_url() -> Iterator[str]:
    """An engine on 127.0.0.1 that answers 404 on /metrics, as llama.cpp without --metrics."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_404_on_metrics_names_the_flag_that_turns_them_on(no_metrics_url: str) -> None:
    with pytest.raises(
        InputError,
        match=r"HTTP 404 \(llama\.cpp serves /metrics only when started with --metrics\)",
    ):
        scrape(no_metrics_url, timeout=5)


def test_engine_stats_reads_a_log_from_standard_input_and_says_how_for_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--log -` is standard input, as for every command that reads a log; a FIFO named to
    --log is refused with that fix, not with a bare "not a regular file"."""
    import io
    import os
    import sys

    from promptcache._commands import engine_stats

    monkeypatch.setattr(engine_stats, "scrape", lambda url, **_: parse_metrics(VLLM))
    usage = {"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 80}}
    line = json.dumps({"response": {"usage": usage}}).encode() + b"\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(line))))
    assert cli.main(["engine-stats", "http://vllm:8000", "--log", "-"]) == 0
    assert "1 requests, 80 of 100 prompt tokens from cache (80.0%)" in capsys.readouterr().out
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert cli.main(["engine-stats", "http://vllm:8000", "--log", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "is a FIFO" in err and "pass '-'" in err, err


def test_engine_stats_names_the_log_line_without_a_response_by_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptcache._commands import engine_stats

    monkeypatch.setattr(engine_stats, "scrape", lambda url, **_: parse_metrics(VLLM))
    log = tmp_path / "log.jsonl"
    log.write_text('{"request": {}}\n')
    assert cli.main(["engine-stats", "http://vllm:8000", "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert f"{log}:1: no response object" in err and "Source(" not in err, err
