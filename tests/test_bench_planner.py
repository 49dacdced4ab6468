"""bench/bench_planner.py keeps its JSON contract: the last line maps each workload to its share."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_planner.py"


def test_last_line_is_one_json_object_with_a_share_per_workload() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--format", "json", "--only", "chat", "--only", "doc_qa"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert sorted(report) == ["chat", "doc_qa"]
    for workload in report.values():
        assert 0.0 < workload["share_of_oracle"] <= 1.0
        assert workload["savings"]["no_cache"] == 0.0
        assert workload["savings"]["oracle"] >= workload["savings"]["planner"]
