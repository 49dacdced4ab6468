"""The standard library (and the few id/clock packages everyone uses): volatile calls."""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="stdlib",
    # Resolved names of calls whose result differs between requests.
    sources=(
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
        "*.now",
        "*.utcnow",
        "*.today",
        "now",
        "utcnow",
        "time.time",
        "time.time_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.localtime",
        "time.gmtime",
        "time.ctime",
        "time.asctime",
        "time.strftime",
        "uuid.uuid1",
        "uuid.uuid4",
        "uuid.uuid6",
        "uuid.uuid7",
        "uuid1",
        "uuid4",
        "random.random",
        "random.randint",
        "random.randrange",
        "random.choice",
        "random.choices",
        "random.sample",
        "random.uniform",
        "random.getrandbits",
        "random.randbytes",
        "random.gauss",
        "numpy.random.*",
        "secrets.*",
        "os.getpid",
        "os.urandom",
        "socket.gethostname",
        "shortuuid.uuid",
        "nanoid.generate",
    ),
    # Their result is their argument's text, reshaped: followed as it, not as an opaque call.
    pass_through=("textwrap.dedent", "inspect.cleandoc"),
    # What a command-line program reads from its user on each run.
    data=(
        DataSource(
            what="the user's input",
            calls=("input", "sys.stdin.read", "sys.stdin.readline"),
            names=("sys.argv", "sys.argv.*"),
        ),
    ),
)
