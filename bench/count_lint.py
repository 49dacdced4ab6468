"""
Benchmark by instruction count: `promptcache lint` of Python files against read + `ast.parse` of
the same files, each counted by valgrind's callgrind, which the load of a shared machine does not
sway (the CPU-time ratios of `bench_lint.py` swing by a third there).

    python bench/count_lint.py --workload real --real-corpus DIR   # bench/lint_corpus/ copies
    python bench/count_lint.py --workload synth                    # 880 small request modules
    python bench/count_lint.py --workload stdlib                   # 400 standard-library files

Each side runs in a process of its own under `valgrind --tool=callgrind`, once as a warm-up
(imports, regex compilation, the process-wide memos) and then once counted: collection is on only
inside `operator.call(...)` of the counted run, with a fixed PYTHONHASHSEED (so that two counts
of one tree agree). The workloads are `bench_lint.py`'s. Prints both
counts and their ratio (the target is <= 2.00x, as for the CPU time). Needs valgrind; a run takes
minutes (the programs run about 50 times slower under it). Not a timed test.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import operator
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lint  # from this folder, put on the path above

from promptcache.lint import LintConfig, lint_paths

_COLLECTED = re.compile(r"Collected\s*:\s*([\d,]+)")
WORKLOADS = ("real", "synth", "stdlib")


def collected(valgrind_output: str) -> int:
    """The instructions callgrind counted, from its summary line (`==12== Collected : 1,234`)."""
    found = _COLLECTED.findall(valgrind_output)
    if not found:
        raise ValueError("callgrind printed no 'Collected' count: did it run?")
    return int(found[-1].replace(",", ""))


def _groups(workload: str, corpus: Path | None, folder: Path) -> list[tuple[Path, list[Path]]]:
    """(root, files) per project to lint, as `bench_lint.py` lays each workload out."""
    if workload == "real":
        if corpus is None:
            raise SystemExit("--workload real needs --real-corpus DIR (bench/lint_corpus/)")
        projects = sorted(
            project
            for split in ("dev", "heldout", "fresh-dev")
            for project in (corpus / "python" / split).glob("*")
            if project.is_dir()
        )
        return [(project, sorted(project.rglob("*.py"))) for project in projects]
    if workload == "synth":
        return [(folder, bench_lint.write_python_app(folder, 20))]
    return [(Path(sysconfig.get_paths()["stdlib"]), bench_lint.stdlib_files(400))]


def _child(side: str, workload: str, corpus: Path | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        groups = _groups(workload, corpus, Path(tmp))
        configs = [LintConfig(root=root, include=("*.py",)) for root, _ in groups]

        def lint() -> None:
            for (_, files), config in zip(groups, configs, strict=True):
                lint_paths(files, config=config)

        def parse() -> None:
            for _, files in groups:
                for path in files:
                    with contextlib.suppress(SyntaxError):
                        ast.parse(path.read_text(encoding="utf-8"))

        run: Callable[[], None] = lint if side == "lint" else parse
        run()  # warm-up, not counted
        operator.call(run)  # counted: callgrind collects inside `_operator_call` only


def _count(side: str, workload: str, corpus: Path | None) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        "--toggle-collect=_operator_call",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--child",
        side,
        "--workload",
        workload,
        *(["--real-corpus", str(corpus)] if corpus is not None else []),
    ]
    # String hashes are salted per process unless the seed is fixed: set and dict orders, and
    # with them the count, then move by a few million between two runs of the same tree.
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    if done.returncode != 0:
        raise SystemExit(f"valgrind failed ({done.returncode}): {done.stderr[-2000:]}")
    return collected(done.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--workload", choices=WORKLOADS, default="synth")
    parser.add_argument("--real-corpus", type=Path, metavar="DIR")
    parser.add_argument("--child", choices=("lint", "parse"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child(args.child, args.workload, args.real_corpus)
        return 0
    if shutil.which("valgrind") is None:
        print("count_lint.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    if args.workload == "real" and args.real_corpus is None:
        print("--workload real needs --real-corpus DIR (bench/lint_corpus/)", file=sys.stderr)
        return 2
    parse = _count("parse", args.workload, args.real_corpus)
    lint = _count("lint", args.workload, args.real_corpus)
    ratio = lint / parse
    print(f"{args.workload}: read + ast.parse {parse:,} instructions, lint {lint:,}")
    print(
        f"ratio lint / ast.parse: {ratio:.2f}x (target <= 2.00x) "
        f"{'OK' if ratio <= 2.0 else 'OVER TARGET'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
