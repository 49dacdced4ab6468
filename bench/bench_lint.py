"""
Benchmark: `promptcache lint` on 1,000 templates of about 5 KB each, against jinja2 alone; and on
Python files (an application made of request-building modules, and the standard library's own
sources) against `ast.parse` of the same files.

    python bench/bench_lint.py [--files 1000] [--size 5000] [--repeat 3] [--python-copies 20]

The baseline is measured in the same run: read each file and `jinja2.Environment().parse` it.
Baseline and lint alternate run by run (baseline, lint, baseline, lint, ...), each pair giving
one ratio, so a noisy machine's slow spell lands on both sides of a pair. Times are this
process's CPU time (`time.process_time`), so other work on a shared machine counts less than in
wall-clock time (it still slows both sides through shared caches). Figures are
min / median / max over the runs. The target is a median ratio <= 2x. Not a timed test: it
prints the ratio. The Python section's baselines read each Python file and `ast.parse` it (with
the garbage collector running, and paused as the linter pauses it), run in turn with the lint.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import random
import shutil
import statistics
import sys
import sysconfig
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
    start = time.process_time()
    run()
    return time.process_time() - start


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


# -- Python files -------------------------------------------------------------------------------

PYCORPUS = Path(__file__).resolve().parents[1] / "tests" / "lint" / "pycorpus"


def write_python_app(folder: Path, copies: int, ordinary: list[Path] = ()) -> list[Path]:  # type: ignore[assignment]
    """
    `copies` packages, each a copy of the request-building corpus (real and synthetic files)
    and, as the rest of the application's code, copies of the `ordinary` modules.
    """
    for index in range(copies):
        package = folder / "app" / f"service{index:03d}"
        shutil.copytree(PYCORPUS, package, ignore=shutil.ignore_patterns("*.md", "__pycache__"))
        for number, module in enumerate(ordinary):
            shutil.copyfile(module, package / f"module{number:03d}.py")
        for sub in [package, *(p for p in package.rglob("*") if p.is_dir())]:
            (sub / "__init__.py").touch()
    return sorted(folder.rglob("*.py"))


def stdlib_files(count: int) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    readable = [p for p in files if _is_utf8(p)]
    return random.Random(7).sample(readable, min(count, len(readable)))


def _is_utf8(path: Path) -> bool:
    try:
        path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return False
    return True


def ast_parse_all(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(SyntaxError):
            ast.parse(path.read_text(encoding="utf-8"))


def interleaved(repeat: int, *runs: Callable[[], object]) -> list[list[float]]:
    """Run each of `runs` in turn, `repeat` rounds; the seconds of each run, per run."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, into in zip(runs, times, strict=True):
            start = time.process_time()
            run()
            into.append(time.process_time() - start)
    return times


def _spread(times: list[float]) -> str:
    return (
        f"min {min(times):.3f} s, median {statistics.median(times):.3f} s, max {max(times):.3f} s"
    )


def _parse_without_gc(paths: list[Path]) -> None:
    collecting = gc.isenabled()
    gc.disable()
    try:
        ast_parse_all(paths)
    finally:
        if collecting:
            gc.enable()


def bench_python(name: str, paths: list[Path], folder: Path, repeat: int) -> None:
    config = LintConfig(root=folder, include=("*.py",))
    findings = lint_paths(paths, config=config)  # warm-up (imports, regex compilation)
    ast_parse_all(paths)
    # The linter pauses the cyclic garbage collector while it runs (it keeps every tree of the
    # project alive); the second baseline parses under the same condition.
    base, base_nogc, subj = interleaved(
        repeat,
        lambda: ast_parse_all(paths),
        lambda: _parse_without_gc(paths),
        lambda: lint_paths(paths, config=config),
    )
    size = sum(p.stat().st_size for p in paths) / 1024
    ratio = statistics.median(subj) / statistics.median(base)
    ratio_nogc = statistics.median(subj) / statistics.median(base_nogc)
    print(f"\n{name}: {len(paths)} Python files, {size:.0f} KB, {len(findings)} findings")
    print(f"read + ast.parse (baseline):       {_spread(base)}")
    print(f"read + ast.parse, GC paused:       {_spread(base_nogc)}")
    print(f"promptcache lint:                  {_spread(subj)}")
    print(
        f"ratio of medians lint / ast.parse: {ratio:.2f}x; against the GC-paused parse "
        f"{ratio_nogc:.2f}x (target <= 2.00x) {'OK' if max(ratio, ratio_nogc) <= 2.0 else 'OVER TARGET'}"
    )
    ratios = [s / b for b, s in zip(base, subj, strict=True)]
    print(f"ratio lint / ast.parse, run by run: min/median/max {spread(ratios, '{:.2f}x')}")


def bench_real_corpus(corpus: Path, repeat: int) -> None:
    """
    The real request-building files of `bench/lint_corpus/` (local copies, as `score_lint.py`
    lays them out), each project linted with its own folder as the root, as a team would lint
    its repository; against read + `ast.parse` of the same files. The held-out `fresh` split is
    left out (it is only scored, at the end).
    """
    projects = sorted(
        project
        for split in ("dev", "heldout", "fresh-dev")
        for project in (corpus / "python" / split).glob("*")
        if project.is_dir()
    )
    if not projects:
        raise SystemExit(f"no local copies under {corpus}/python/: see bench/lint_corpus/README.md")
    files = {project: sorted(project.rglob("*.py")) for project in projects}
    paths = [path for project in projects for path in files[project]]
    configs = {p: LintConfig(root=p, include=("*.py",)) for p in projects}

    def lint_all() -> None:
        for project in projects:
            lint_paths(files[project], config=configs[project])

    lint_all()  # warm-up
    base, subj = interleaved(repeat, lambda: ast_parse_all(paths), lint_all)
    size = sum(p.stat().st_size for p in paths) / 1024
    ratios = [s / b for b, s in zip(base, subj, strict=True)]
    print(
        f"\nreal request-building files: {len(paths)} files, {len(projects)} projects, {size:.0f} KB"
    )
    print(f"read + ast.parse (baseline):       {_spread(base)}")
    print(f"promptcache lint, per project:     {_spread(subj)}")
    ratio = statistics.median(ratios)
    print(
        f"ratio lint / ast.parse, run by run: min/median/max {spread(ratios, '{:.2f}x')} "
        f"(target <= 2.00x) {'OK' if ratio <= 2.0 else 'OVER TARGET'}"
    )


def main_python(copies: int, stdlib: int, repeat: int) -> None:
    library = stdlib_files(stdlib)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # An application: services that build requests among ordinary modules (standard
        # library sources stand in for the rest of the application's code).
        app = write_python_app(folder, max(copies // 2, 1), library[: stdlib // 10])
        bench_python("application (request building + ordinary modules)", app, folder, repeat)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        app = write_python_app(folder, copies)
        bench_python("request-building modules only (worst case)", app, folder, repeat)
    root = Path(sysconfig.get_paths()["stdlib"])
    bench_python("standard library sources", library, root, repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python-copies", type=int, default=20, help="copies of the corpus")
    parser.add_argument("--stdlib-files", type=int, default=400)
    parser.add_argument("--only", choices=["templates", "python"], help="run one section")
    parser.add_argument(
        "--real-corpus",
        type=Path,
        metavar="DIR",
        help="also time the real request-building files copied under DIR (bench/lint_corpus/)",
    )
    args = parser.parse_args(argv)
    if args.real_corpus is not None and args.only != "templates":
        bench_real_corpus(args.real_corpus, max(args.repeat, 3))
    if args.only != "templates":
        main_python(args.python_copies, args.stdlib_files, max(args.repeat, 3))
    if args.only == "python":
        return 0
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
