"""Routing keys, tenant salts, router hand-off and the consistent-hash fleet (no engine needed)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from promptcache import InputError, Prompt
from promptcache.adapters import get_adapter
from promptcache.serving import (
    Fleet,
    FleetError,
    HashRing,
    RouterAffinity,
    routing_key,
    tenant_salt,
)

SECRET = b"tenant-secret-0123456789"


def test_tenant_salt_is_a_keyed_hash_not_the_secret() -> None:
    salt = tenant_salt(SECRET)
    expected = hmac.new(SECRET, b"promptcache cache_salt v1", hashlib.sha256).digest()
    assert base64.urlsafe_b64decode(salt + "=") == expected
    assert len(salt) == 43 and SECRET.decode() not in salt
    assert tenant_salt(SECRET) == salt != tenant_salt(b"another-tenant-secret-xx")
    # vLLM's validator accepts it (no '/', '@', '\\', NUL; at most 128 characters).
    request = get_adapter("engine").to_request(
        Prompt().add_system("s").with_tail("q"), model="m", cache_salt=salt
    )
    assert request["extra_body"]["cache_salt"] == salt


@pytest.mark.parametrize("secret", [b"", b"short", "", 123])
def test_weak_or_wrong_secret_is_refused(secret: object) -> None:
    with pytest.raises(InputError, match="at least 16 bytes"):
        tenant_salt(secret)  # type: ignore[arg-type]


def _prompt(system: str, tail: str) -> Prompt:
    return Prompt().add_system(system).with_tail(tail)


def test_routing_key_follows_the_static_prefix_only() -> None:
    a = routing_key(_prompt("manual A", "q1"))
    assert a == routing_key(_prompt("manual A", "a different question"))
    assert a == routing_key(_prompt("manual A", "q").add_history())
    assert a != routing_key(_prompt("manual B", "q1"))
    assert len(a) == 32 and "manual" not in a


def test_routing_key_separates_tenants_and_sessions() -> None:
    prompt = _prompt("shared manual", "q")
    keys = {
        routing_key(prompt),
        routing_key(prompt, salt=tenant_salt(SECRET)),
        routing_key(prompt, salt=tenant_salt(b"other-tenant-secret-0001")),
        routing_key(prompt, salt=tenant_salt(SECRET), session="s1"),
        routing_key(prompt, salt=tenant_salt(SECRET), session="s2"),
    }
    assert len(keys) == 5


def test_routing_key_needs_a_static_prefix() -> None:
    with pytest.raises(InputError, match="no stable prefix"):
        routing_key(Prompt().with_tail("only a question"))


def test_router_headers_match_each_router() -> None:
    assert RouterAffinity("vllm-router", session_header="x-user-id").headers("k") == {
        "x-user-id": "k"
    }
    assert RouterAffinity("sglang-gateway").headers("k") == {"X-SMG-Routing-Key": "k"}
    llmd = RouterAffinity("llm-d")
    assert llmd.headers("k") == {}
    llmd.remember("k", {"Set-Cookie": "llm-d-session=ZGVmYXVsdC9wb2QtMQ==; Path=/; HttpOnly"})
    assert llmd.headers("k") == {"Cookie": "llm-d-session=ZGVmYXVsdC9wb2QtMQ=="}
    assert llmd.headers("other") == {}
    with pytest.raises(InputError, match="router must be one of"):
        RouterAffinity("nginx")  # type: ignore[arg-type]


def test_llmd_cookies_are_bounded() -> None:
    llmd = RouterAffinity("llm-d", max_keys=2)
    for key in ("a", "b", "c"):
        llmd.remember(key, {"set-cookie": f"llm-d-session={key}"})
    assert llmd.headers("a") == {} and llmd.headers("c") == {"Cookie": "llm-d-session=c"}


# -- the ring ---------------------------------------------------------------------------------

KEYS = [f"key-{i}" for i in range(4000)]
URLS = [f"http://10.0.0.{i}:8000" for i in range(1, 5)]


def test_ring_spreads_keys_evenly() -> None:
    ring = HashRing(URLS)
    homes = Counter(ring.order(k)[0] for k in KEYS)
    assert set(homes) == set(URLS)
    assert max(homes.values()) < 1.35 * len(KEYS) / len(URLS)


def test_adding_a_replica_moves_only_its_share() -> None:
    ring = HashRing(URLS)
    before = {k: ring.order(k)[0] for k in KEYS}
    ring.add("http://10.0.0.9:8000")
    after = {k: ring.order(k)[0] for k in KEYS}
    moved = [k for k in KEYS if before[k] != after[k]]
    assert all(after[k] == "http://10.0.0.9:8000" for k in moved)  # nothing shuffles elsewhere
    assert 0.1 < len(moved) / len(KEYS) < 0.3  # about 1/5


def test_removing_a_replica_moves_only_its_keys() -> None:
    ring = HashRing(URLS)
    before = {k: ring.order(k) for k in KEYS}
    ring.remove(URLS[0])
    for k in KEYS:
        if before[k][0] != URLS[0]:
            assert ring.order(k)[0] == before[k][0]
        else:
            assert ring.order(k)[0] == before[k][1]  # the next on the ring, as failover had it


def test_ring_refuses_duplicates_and_unknown_replicas() -> None:
    ring = HashRing(URLS[:1])
    with pytest.raises(InputError, match="already on the ring"):
        ring.add(URLS[0])
    with pytest.raises(InputError, match="not on the ring"):
        ring.remove(URLS[1])


# -- the fleet, against stub HTTP replicas on 127.0.0.1 ------------------------------------------


class _Stub:
    """A replica that answers JSON naming itself; `gate` holds requests to create load."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.gate = threading.Event()
        self.gate.set()
        self.seen = 0
        self.reply: bytes | None = None  # a body other than JSON (an SSE stream)
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200 if stub.status == 200 else 503)
                self.end_headers()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                stub.seen += 1
                stub.gate.wait(10)
                data = stub.reply or json.dumps({"from": stub.url}).encode()
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stubs() -> Iterator[list[_Stub]]:
    made = [_Stub() for _ in range(3)]
    yield made
    for stub in made:
        stub.close()


def test_same_key_same_replica(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs])
    answers = {fleet.post("/v1/chat/completions", {}, key="tenant-a").url for _ in range(5)}
    assert answers == {fleet.replica_for("tenant-a")}


def test_bounded_load_spills_a_hot_key_to_the_next_replica(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs], load_factor=1.0)
    home = fleet.replica_for("hot")
    for stub in stubs:
        stub.gate.clear()  # every replica holds its requests: three in flight at once
    results: list[str] = []
    threads = [
        threading.Thread(target=lambda: results.append(fleet.post("/x", {}, key="hot").url))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for _ in range(500):
        if sum(stub.seen for stub in stubs) == 3:
            break
        threading.Event().wait(0.01)
    # Bound ceil(1.0 · (in flight + 1) / 3): the second request finds home full, the third both.
    assert [stub.seen for stub in stubs] == [1, 1, 1]
    assert fleet.candidates("hot")[0] == home  # all equally loaded again: home first
    for stub in stubs:
        stub.gate.set()
    for thread in threads:
        thread.join(10)
    assert sorted(results) == sorted(s.url for s in stubs)


def test_without_load_a_hot_key_stays_home(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs], load_factor=1.0)
    home = fleet.replica_for("hot")
    assert {fleet.post("/x", {}, key="hot").url for _ in range(4)} == {home}


def test_failover_on_refused_connection_and_5xx(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs], retry_after=60)
    order = fleet.candidates("k")
    first = next(s for s in stubs if s.url == order[0])
    second = next(s for s in stubs if s.url == order[1])
    first.close()  # connection refused
    second.status = 503  # overloaded
    answer = fleet.post("/x", {}, key="k")
    assert answer.url == order[2] and answer.status == 200
    assert [url for url, _ in answer.failed] == order[:2]
    assert "HTTP 503" in answer.failed[1][1]
    assert set(fleet.down) == set(order[:2])
    assert fleet.post("/x", {}, key="k").failed == ()  # down replicas are skipped


def test_client_errors_are_returned_not_retried(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs])
    target = next(s for s in stubs if s.url == fleet.replica_for("k"))
    target.status = 400
    answer = fleet.post("/x", {}, key="k")
    assert (answer.url, answer.status, answer.failed) == (target.url, 400, ())


def test_every_replica_down_is_a_clear_error(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs], retry_after=60)
    for stub in stubs:
        stub.close()
    with pytest.raises(FleetError, match="no replica answered /x"):
        fleet.post("/x", {}, key="k")
    with pytest.raises(FleetError, match="all down"):
        fleet.replica_for("k")


def test_a_recovered_replica_takes_its_keys_back(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs], retry_after=0)
    home = fleet.replica_for("k")
    stub = next(s for s in stubs if s.url == home)
    stub.status = 503
    assert fleet.post("/x", {}, key="k").url != home
    stub.status = 200
    assert fleet.post("/x", {}, key="k").url == home


def test_replicas_come_and_go(stubs: list[_Stub]) -> None:
    fleet = Fleet([s.url for s in stubs[:2]])
    fleet.add(stubs[2].url)
    assert stubs[2].url in fleet.replicas
    moved = [k for k in KEYS[:300] if fleet.replica_for(k) == stubs[2].url]
    assert moved
    fleet.remove(stubs[2].url)
    assert all(fleet.replica_for(k) != stubs[2].url for k in moved)


def test_an_answer_that_is_not_json_is_returned_not_a_dead_replica(stubs: list[_Stub]) -> None:
    # A streamed reply (SSE) is an answer: before, every replica was marked down in turn and the
    # request was replayed on each, ending in "no replica answered".
    stream = b'data: {"choices": []}\n\ndata: [DONE]\n\n'
    for stub in stubs:
        stub.reply = stream
    fleet = Fleet([s.url for s in stubs])
    answer = fleet.post("/v1/chat/completions", {"stream": True}, key="tenant-a")
    assert answer.status == 200 and answer.body == stream.decode()
    assert answer.failed == () and fleet.down == ()
    assert sum(stub.seen for stub in stubs) == 1


@pytest.mark.parametrize(
    ("option", "value"),
    [("timeout", 0.0), ("timeout", -1.0), ("retry_after", -1.0), ("load_factor", float("inf"))],
)
def test_fleet_refuses_settings_it_cannot_run_with(option: str, value: float) -> None:
    # timeout=0 made every request fail at once and marked every replica down; a negative one
    # raised a bare ValueError from urllib on the first request.
    with pytest.raises(InputError, match=option):
        Fleet(["http://127.0.0.1:9"], **{option: value})
