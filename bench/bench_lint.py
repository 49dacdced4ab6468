"""
Benchmark: `promptcache lint` on 1,000 templates of about 5 KB each, against jinja2 alone.

    python bench/bench_lint.py [--files 1000] [--size 5000] [--repeat 3]

The baseline is measured in the same run: read each file and `jinja2.Environment().parse` it.
Baseline and lint alternate run by run (baseline, lint, baseline, lint, ...), each pair giving
one ratio, so a noisy machine's slow spell lands on both sides of a pair. Figures are
min / median / max over the runs. The target is a median ratio <= 2x. Not a timed test: it
prints the ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import jinja2

from promptcache.lint import LintConfig, lint_paths

_PROSE = (
    "the agent must answer politely and cite the policy section that applies to each refund "
    "request including shipping damage warranty claims and store credit rules"
)
WORDS = _PROSE.split(" ")

BLOCKS: list[Callable[[random.Random], str]] = [
    lambda r: " ".join(r.choice(WORDS) for _ in range(r.randint(40, 120))) + ".\n\n",
    lambda r: "You are {{ persona }} working for {{ company.name }}.\n",
    lambda r: (
        "{% if tools %}Use the tools when needed:\n{% for t in tools %}- {{ t.name }}: "
        "{{ t.description }}\n{% endfor %}{% endif %}\n"
    ),
    lambda r: (
        "{% for name, spec in schema | dictsort %}{{ name }} = {{ spec | tojson }}\n{% endfor %}"
    ),
    lambda r: (
        "{% macro rule(n, text) %}Rule {{ n }}: {{ text | trim }}.{% endmacro %}"
        "{{ rule(1, 'be brief') }}\n{{ rule(2, 'be kind') }}\n"
    ),
    lambda r: "{% set region = config.region | default('eu') %}Region: {{ region | upper }}\n",
    lambda r: "{# reviewer note: keep this section stable #}\n",
    lambda r: "{% if user.is_admin %}Admins may override limits.{% endif %}\n",
    lambda r: "Current time: {{ now() }}\n",
    lambda r: "{% for k, v in extra.items() %}{{ k }}: {{ v }}\n{% endfor %}",
]
WEIGHTS = [30, 6, 6, 4, 4, 4, 3, 1, 1, 1]


def make_template(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    total = 0
    while total < size:
        block = rng.choices(BLOCKS, WEIGHTS)[0](rng)
        parts.append(block)
        total += len(block)
    if rng.random() < 0.5:
        parts.append("{# promptcache: tail #}\nQuestion: {{ question }}\n")
    return "".join(parts)


def write_corpus(folder: Path, files: int, size: int) -> list[Path]:
    rng = random.Random(42)
    paths = []
    for index in range(files):
        path = folder / f"t{index:04d}.j2"
        path.write_text(make_template(rng, size), encoding="utf-8")
        paths.append(path)
    return paths


def parse_all(paths: list[Path]) -> None:
    env = jinja2.Environment()
    for path in paths:
        env.parse(path.read_text(encoding="utf-8"))


def _once(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def paired(
    repeat: int, subject: Callable[[], object], baseline: Callable[[], object]
) -> tuple[list[float], list[float]]:
    """Subject and baseline times, run alternately `repeat` times each."""
    subjects, baselines = [], []
    for _ in range(repeat):
        baselines.append(_once(baseline))
        subjects.append(_once(subject))
    return subjects, baselines


def spread(values: list[float], fmt: str) -> str:
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_corpus(folder, args.files, args.size)
        total_kb = sum(p.stat().st_size for p in paths) / 1024
        config = LintConfig(root=folder)
        findings = lint_paths([folder], config=config)  # warm-up (imports, regex compilation)
        parse_all(paths)
        lints, baselines = paired(
            args.repeat, lambda: lint_paths([folder], config=config), lambda: parse_all(paths)
        )
    ratios = [lint / base for lint, base in zip(lints, baselines, strict=True)]
    ratio = statistics.median(ratios)
    print(
        f"corpus: {args.files} templates, {total_kb / args.files:.1f} KB average, "
        f"{len(findings)} findings; min / median / max over {args.repeat} alternating runs"
    )
    print(f"jinja2 read+parse (baseline): {spread(baselines, '{:.3f}')} s")
    print(f"promptcache lint:             {spread(lints, '{:.3f}')} s")
    print(
        f"ratio lint / jinja2 parse:    {spread(ratios, '{:.2f}x')}  (target median <= 2.00x) "
        f"{'OK' if ratio <= 2.0 else 'OVER TARGET'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
