"""
Benchmark: pricing one usage record, the way `promptcache report` prices every record of a log.

    .venv/bin/python bench/bench_pricing.py [--records 20000 --runs 7]

Subject: `cost(usage)` with the default price table (genai-prices first, then our table).
Baseline: the same call with `use_genai_prices=False` and the model's row in a user price file,
which is the table-only lookup promptcache did before genai-prices became the source. Runs are
interleaved (subject, baseline, subject, ...) and the ratio subject / baseline is printed as
min / median / max over runs. Each run prices `--records` records of varied sizes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import statistics
import tempfile
import time
from pathlib import Path

from promptcache import CacheUsage, PriceTable, cost, load_prices

MODEL = "claude-sonnet-4-6"
DAY = dt.date(2026, 11, 30)


def _records(count: int) -> list[CacheUsage]:
    return [
        CacheUsage(
            uncached_input=20 + i % 300,
            cache_read=(i * 977) % 150_000,
            cache_write=(i * 131) % 4_000,
            output=50 + i % 500,
            vendor="anthropic",
            model=MODEL,
        )
        for i in range(count)
    ]


def _run(records: list[CacheUsage], table: PriceTable) -> float:
    gc.disable()
    start = time.perf_counter()
    for usage in records:
        cost(usage, prices=table)
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    row = {"input": 3.0, "output": 15.0, "read": 0.3, "write_5m": 3.75, "write_1h": 6.0}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "prices.json"
        path.write_text(json.dumps({"vendors": {"anthropic": {MODEL: row}}}))
        baseline_table = load_prices(path, when=DAY, use_genai_prices=False)
        subject_table = load_prices(when=DAY)
        records = _records(args.records)
        _run(records[:500], subject_table), _run(records[:500], baseline_table)  # warm up
        ratios, subject, baseline = [], [], []
        for _ in range(args.runs):
            s = _run(records, subject_table)
            b = _run(records, baseline_table)
            subject.append(s / args.records * 1e6)
            baseline.append(b / args.records * 1e6)
            ratios.append(s / b)

    def line(values: list[float]) -> str:
        return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"

    print(f"records per run: {args.records}, runs: {args.runs}")
    print(f"genai-prices + table, us per record (min / median / max): {line(subject)}")
    print(f"table only (baseline), us per record (min / median / max): {line(baseline)}")
    print(f"ratio subject / baseline (min / median / max): {line(ratios)}")


if __name__ == "__main__":
    main()
