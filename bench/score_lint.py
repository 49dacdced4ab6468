"""
Score `promptcache lint` on the real-world corpus: recall on labelled cache busters and the
false-alarm rate on clean files, per split and per class, Python and templates apart.

    python bench/score_lint.py --corpus /work/corpus                # every split but `fresh`
    python bench/score_lint.py --corpus /work/corpus --split dev --details
    python bench/score_lint.py --corpus /work/corpus --split fresh  # corpus 2's held-out third
    python bench/score_lint.py --corpus /work/corpus --split c3     # corpus 3's held-out third
    python bench/score_lint.py --corpus /work/corpus --split c4     # corpus 4, held out whole
    python bench/score_lint.py --corpus /work/corpus --split c5     # corpus 5 (opened at stop 34)
    python bench/score_lint.py --corpus /work/corpus --split c6     # corpus 6, held out whole
    python bench/score_lint.py --fetch-list [--split fresh|c3|c4|c5|c6]  # what to copy where
    python bench/score_lint.py --split c5 --copy-python /work/.mirror  # template projects' Python
    python bench/score_lint.py --corpus /work/corpus --split c5 --with-python

The manifests (`bench/lint_corpus/{python,templates,legacy}.toml`) name each file by repository,
commit and path, with its split and the labels written by reading it; the files themselves are
not in this repository. `--corpus` is a folder holding local copies laid out as the manifests'
`copy_path` says. A buster is found when a warning or error finding lands on one of its labelled
lines (or on one of its `also` places in a sibling file of the same project), reported there or
naming it as where the value is written (`written_at`: a macro's body, where the fix goes, while
the finding stays where the macro renders it, since that position decides the risk); a clean file is a
false alarm when any warning or error finding is reported in it. Info findings ("could not
check", "skipped") are neither. Files labelled `part` hold half of a buster labelled in a sibling
file: they are linted (for the sibling's `also` places) but not scored as clean. Exit status: 0,
or 2 when a manifest is malformed or a copy is missing.

Corpus 2 comes from projects in no corpus-1 split (dev, heldout, legacy). It was split by a hash
of the project once it had been labelled, before anyone read a score of it per file:
`fresh` is its held-out third, which nobody tunes on. `--split all` leaves it out, so it is scored
only when asked for by name. `fresh-dev` is the rest, for tuning. A manifest that breaks these
rules is refused.

Corpus 3 comes from projects in neither corpus 1 nor corpus 2 (nor legacy), and its split was fixed
before any of it was labelled: `c3` when `sha256("promptcache-corpus-3:" + repo) % 3 == 0` (held
out, scored only by name), `c3-dev` otherwise (tuning material, scored by `--split all`).

Templates are labelled with the code that renders them, but the manifests name only the templates.
`--with-python` lints each template project the way a user runs `promptcache lint .`: its templates
together with every Python file of the project at the same commit, which `--copy-python MIRRORS`
copies beside the templates from the fetched snapshots (`MIRRORS/<owner>+<name>/repo`, a git
directory). Only the templates are scored; the Python files are context, not corpus.

Corpora 4, 5 and 6 were collected held out whole (`c4`, `c5`, `c6`: no hash, no tuning part,
scored only by name), each from projects in no earlier corpus. Corpora 2 to 5 have since been
opened for tuning (bench/lint_corpus/README.md says when and why); they are still scored only by
name, so that `--split all` keeps meaning corpus 1's and the tuning parts' figures.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tomllib
from rich.console import Console
from rich.table import Table

from promptcache.lint import Finding, LintConfig, lint_paths

MANIFESTS = Path(__file__).resolve().parent / "lint_corpus"
KINDS = ("python", "templates")
FRESH_DEV = "fresh-dev"  # corpus 2's tuning two thirds
C3_DEV = "c3-dev"  # corpus 3's tuning two thirds
SPLITS = ("dev", "heldout", "legacy", FRESH_DEV, C3_DEV)  # what `--split all` scores
FRESH = "fresh"  # corpus 2's held-out third: held out from every tuner, scored only when named
C3 = "c3"  # corpus 3's held-out third: likewise scored only when named
C4 = "c4"  # corpus 4, held out whole: likewise scored only when named
C5 = "c5"  # corpus 5, collected held out whole: likewise scored only when named
C6 = "c6"  # corpus 6, held out whole: likewise scored only when named
HELD_OUT = (FRESH, C3, C4, C5, C6)
CORPUS_1 = ("dev", "heldout", "legacy")
CORPUS_2 = (FRESH_DEV, FRESH)
CORPUS_3 = (C3_DEV, C3)
CORPUS_4 = (C4,)
CORPUS_5 = (C5,)
CORPUS_6 = (C6,)
# the splits python.toml and templates.toml may use
MANIFEST_SPLITS = ("dev", "heldout", *CORPUS_2, *CORPUS_3, *CORPUS_4, *CORPUS_5, *CORPUS_6)
# A parse error is not a buster found; on a clean file it is still a false alarm.
NOT_A_HIT = frozenset({"PC001", "PC500"})
# --copy-python leaves out a template project's Python beyond these sizes (an engine's fork):
MAX_PYTHON_FILES = 400
MAX_PYTHON_BYTES = 256_000
GIT_TIMEOUT_S = 60  # one git command reading a snapshot (a listing, one file)

console = Console()


class CorpusError(Exception):
    """A manifest that cannot be read, or a copy that is not where the manifest says."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Buster:
    klass: str
    lines: frozenset[int]
    also: tuple[tuple[str, int], ...]  # (path inside the project, line)
    code: str  # "" accepts any code; legacy Python labels name the rule they expect


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusFile:
    kind: str  # python | templates
    split: str  # dev | heldout | fresh-dev | fresh | c3-dev | c3 | c4 | c5 | c6 | legacy
    repo: str
    commit: str
    path: str  # inside the repository
    label: str  # clean | buster | part
    busters: tuple[Buster, ...]
    local: Path  # the copy under --corpus
    project: Path  # the folder the copy's project sits in (the linter's root)
    restore: str  # how to get the copy: a shell command


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    busters: int
    found: int
    clean: int
    alarmed: int
    missed: tuple[str, ...]
    noisy: tuple[str, ...]

    @property
    def recall(self) -> float | None:
        return self.found / self.busters if self.busters else None

    @property
    def false_alarm_rate(self) -> float | None:
        return self.alarmed / self.clean if self.clean else None


# -- manifests ------------------------------------------------------------------------------------


def load_corpus(corpus: Path, manifests: Path = MANIFESTS) -> list[CorpusFile]:
    files: list[CorpusFile] = []
    for kind in KINDS:
        files += _files_of(_read(manifests / f"{kind}.toml"), kind, corpus)
    files += _legacy_files(_read(manifests / "legacy.toml"), corpus)
    check_fresh_projects(files)
    check_corpus_3_projects(files)
    check_new_projects(files, CORPUS_4, later=(*CORPUS_5, *CORPUS_6), earlier="1, 2, 3")
    check_new_projects(files, CORPUS_5, later=CORPUS_6, earlier="1, 2, 3, 4")
    check_new_projects(files, CORPUS_6, later=(), earlier="1, 2, 3, 4, 5")
    return files


def check_fresh_projects(files: Sequence[CorpusFile]) -> None:
    """A corpus-2 entry's project must be in no corpus-1 split, and sit on its hash's side."""
    seen = {f.repo.lower() for f in files if f.split in CORPUS_1}
    reused = sorted({f.repo for f in files if f.split in CORPUS_2 and f.repo.lower() in seen})
    if reused:
        raise CorpusError(
            f"fresh entries come from projects already in corpus 1: {', '.join(reused)}; "
            "take corpus-2 files from other projects"
        )
    for file in files:
        if file.split in CORPUS_2 and file.split != corpus_2_split(file.repo):
            raise CorpusError(
                f"{file.repo}: split {file.split!r}, but its hash puts it in "
                f"{corpus_2_split(file.repo)!r} (corpus 2 is split by project, not by choice)"
            )


def check_corpus_3_projects(files: Sequence[CorpusFile]) -> None:
    """A corpus-3 entry's project must be in no earlier corpus, and sit on its hash's side."""
    seen = {
        f.repo.lower() for f in files if f.split not in (*CORPUS_3, *CORPUS_4, *CORPUS_5, *CORPUS_6)
    }
    reused = sorted({f.repo for f in files if f.split in CORPUS_3 and f.repo.lower() in seen})
    if reused:
        raise CorpusError(
            f"corpus-3 entries come from projects already in corpus 1, corpus 2 or legacy: "
            f"{', '.join(reused)}; take corpus-3 files from other projects"
        )
    for file in files:
        if file.split in CORPUS_3 and file.split != corpus_3_split(file.repo):
            raise CorpusError(
                f"{file.repo}: split {file.split!r}, but its hash puts it in "
                f"{corpus_3_split(file.repo)!r} (corpus 3 is split by project, not by choice)"
            )


def check_new_projects(
    files: Sequence[CorpusFile], corpus: tuple[str, ...], *, later: tuple[str, ...], earlier: str
) -> None:
    """A corpus held out whole (4, 5, 6) must come from projects in no earlier corpus."""
    number = corpus[0].removeprefix("c")
    seen = {f.repo.lower() for f in files if f.split not in (*corpus, *later)}
    reused = sorted({f.repo for f in files if f.split in corpus and f.repo.lower() in seen})
    if reused:
        raise CorpusError(
            f"corpus-{number} entries come from projects already in corpus {earlier} or legacy: "
            f"{', '.join(reused)}; take corpus-{number} files from other projects"
        )


def corpus_3_split(repo: str) -> str:
    """Corpus 3's held-out third, fixed by a hash of the project before any file was labelled."""
    digest = hashlib.sha256(f"promptcache-corpus-3:{repo}".encode()).hexdigest()
    return C3 if int(digest, 16) % 3 == 0 else C3_DEV


def corpus_2_split(repo: str) -> str:
    """Corpus 2's held-out third, fixed by a hash of the project after collection, before scoring."""
    digest = hashlib.sha256(f"promptcache-corpus-2:{repo}".encode()).hexdigest()
    return FRESH if int(digest, 16) % 3 == 0 else FRESH_DEV


def _read(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CorpusError(f"cannot read the manifest {path}: {error}") from error


def _entries(data: dict[str, object], source: str) -> list[dict[str, object]]:
    entries = data.get("file", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise CorpusError(f"{source}: expected [[file]] tables")
    return entries


def _files_of(data: dict[str, object], kind: str, corpus: Path) -> list[CorpusFile]:
    files = []
    for entry in _entries(data, f"{kind}.toml"):
        repo, path, split = _text(entry, "repo"), _text(entry, "path"), _text(entry, "split")
        commit = _text(entry, "commit")
        if split not in MANIFEST_SPLITS:
            raise CorpusError(f"{kind}.toml: {path!r} has split {split!r}, not {MANIFEST_SPLITS}")
        project = corpus / kind / split / repo.replace("/", "+")
        owner_name = repo.replace("/", "+")
        files.append(
            CorpusFile(
                kind=kind,
                split=split,
                repo=repo,
                commit=commit,
                path=path,
                label=_label(entry),
                busters=_busters(entry),
                local=project / path,
                project=project,
                restore=(
                    f"git --git-dir=<mirror of github:{repo}> show {commit}:'{path}' "
                    f"> '{corpus / kind / split / owner_name / path}'"
                ),
            )
        )
    return files


def _legacy_files(data: dict[str, object], corpus: Path) -> list[CorpusFile]:
    meta = data.get("meta")
    source = meta.get("source_commit") if isinstance(meta, dict) else None
    if not isinstance(source, str) or not source:
        raise CorpusError("legacy.toml: [meta] needs source_commit")
    files = []
    for entry in _entries(data, "legacy.toml"):
        kind, name = _text(entry, "kind"), _text(entry, "name")
        if kind not in KINDS:
            raise CorpusError(f"legacy.toml: kind {kind!r} of {name!r} is not one of {KINDS}")
        local = corpus / "legacy" / kind / name
        files.append(
            CorpusFile(
                kind=kind,
                split="legacy",
                repo=_text(entry, "repo"),
                commit=str(entry.get("commit", "")),
                path=name,
                label=_label(entry),
                busters=_busters(entry),
                local=local,
                project=local.parent,
                restore=f"git show {source}:'{_text(entry, 'copy_of')}' > '{local}'",
            )
        )
    return files


def _text(entry: dict[str, object], key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or (not value and key != "commit"):
        raise CorpusError(f"manifest entry {entry.get('path') or entry.get('name')!r}: no {key}")
    return value


def _label(entry: dict[str, object]) -> str:
    label = _text(entry, "label")
    if label not in ("clean", "buster", "part"):
        raise CorpusError(f"{entry.get('path')!r}: label {label!r} is not clean, buster or part")
    busters = entry.get("buster", [])
    if (label == "buster") != bool(busters):
        raise CorpusError(f"{entry.get('path')!r}: label {label!r} and {len(busters)} busters")
    return label


def _busters(entry: dict[str, object]) -> tuple[Buster, ...]:
    raw = entry.get("buster", [])
    if not isinstance(raw, list):
        raise CorpusError(f"{entry.get('path')!r}: [[file.buster]] must be tables")
    return tuple(_buster(item, entry) for item in raw)


def _buster(item: object, entry: dict[str, object]) -> Buster:
    if not isinstance(item, dict) or not isinstance(item.get("lines"), list) or not item["lines"]:
        raise CorpusError(f"{entry.get('path')!r}: a buster needs class and lines")
    also = []
    for place in item.get("also", []):
        path, _, line = str(place).rpartition(":")
        if not path or not line.isdigit():
            raise CorpusError(f"{entry.get('path')!r}: also {place!r} is not 'path:line'")
        also.append((path, int(line)))
    return Buster(
        klass=str(item.get("class", "")),
        lines=frozenset(int(line) for line in item["lines"]),
        also=tuple(also),
        code=str(item.get("code", "")),
    )


# -- linting and scoring ------------------------------------------------------------------------


def check_copies(files: Iterable[CorpusFile]) -> None:
    missing = [f for f in files if not f.local.is_file()]
    if missing:
        shown = "\n".join(f"  {f.local}" for f in missing[:5])
        more = f"\n  ... and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise CorpusError(
            f"{len(missing)} corpus file(s) are missing under the corpus folder:\n{shown}{more}\n"
            "Run `python bench/score_lint.py --fetch-list` for where each one comes from."
        )


def findings_by_file(
    files: Sequence[CorpusFile], *, with_python: bool = False
) -> dict[Path, list[Finding]]:
    """Lint each project once (its files together, so imports between them resolve).

    With `with_python`, a template project is linted with the Python files `--copy-python` put
    beside its templates, as `promptcache lint .` would lint it.
    """
    projects: dict[Path, list[CorpusFile]] = defaultdict(list)
    for file in files:
        projects[file.project].append(file)
    result: dict[Path, list[Finding]] = defaultdict(list)
    for project, members in projects.items():
        paths = [m.local for m in members]
        if with_python and members[0].kind == "templates" and members[0].split != "legacy":
            paths += sorted(set(project.rglob("*.py")) - set(paths))
        for finding in _lint_project(project, paths):
            result[Path(finding.path).resolve()].append(finding)
    return result


def copy_python(files: Sequence[CorpusFile], mirrors: Path) -> list[str]:
    """Copy each template project's Python files at its commit from its fetched snapshot.

    Returns one line per project: how many files were copied, or why none were. A file already
    there is left as it is; a project whose snapshot is missing is said, not skipped silently.
    """
    lines = []
    projects: dict[Path, CorpusFile] = {}
    for file in files:
        if file.kind == "templates" and file.split != "legacy":
            projects.setdefault(file.project, file)
    for project, first in sorted(projects.items()):
        commits = {f.commit for f in files if f.project == project}
        mirror = mirrors / first.repo.replace("/", "+") / "repo"
        if not mirror.is_dir():
            lines.append(f"{first.repo}: no snapshot at {mirror}; fetch it first")
            continue
        if len(commits) > 1:
            lines.append(f"{first.repo}: templates read at {len(commits)} commits; not copied")
            continue
        listing = _git(mirror, "ls-tree", "-r", "-l", first.commit)
        if listing is None:
            lines.append(f"{first.repo}: could not list commit {first.commit} in the snapshot")
            continue
        python, large = [], 0
        for row in listing.decode().splitlines():
            meta, _, path = row.partition("\t")
            mode, kind, _, size = meta.split()
            if not path.endswith(".py") or kind != "blob" or mode == "120000":
                continue  # a link's blob is its target's name, not Python
            if int(size) > MAX_PYTHON_BYTES:
                large += 1
            else:
                python.append(path)
        if len(python) > MAX_PYTHON_FILES:
            lines.append(f"{first.repo}: {len(python)} Python files, over {MAX_PYTHON_FILES}")
            continue
        copied = 0
        for path in python:
            target = project / path
            if target.exists():
                continue
            blob = _git(mirror, "show", f"{first.commit}:{path}")
            if blob is None:
                lines.append(f"{first.repo}: could not read {path}")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
            copied += 1
        left = f" ({large} over {MAX_PYTHON_BYTES:,} bytes left out)" if large else ""
        lines.append(f"{first.repo}: {copied} of {len(python)} Python files copied{left}")
    return lines


def _git(git_dir: Path, *args: str) -> bytes | None:
    """What git prints, or None when it fails or runs past GIT_TIMEOUT_S (a snapshot on a
    stalled disk: said as "could not read", never waited on for ever)."""
    try:
        done = subprocess.run(
            ["git", "--git-dir", str(git_dir), *args], capture_output=True, timeout=GIT_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return None
    return done.stdout if done.returncode == 0 else None


def _lint_project(project: Path, paths: list[Path]) -> list[Finding]:
    try:
        return lint_paths(paths, config=LintConfig(root=project))
    except Exception as error:  # a crash must show in the score, not stop it
        # Never a silent pass: the crash is an error finding on every file of the project.
        return [
            Finding(
                path=str(path),
                line=0,
                column=0,
                code="CRASH",
                message=f"the linter raised {type(error).__name__}: {error}",
                severity="error",
            )
            for path in paths
        ]


def problems(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity in ("warning", "error")]


def is_found(buster: Buster, file: CorpusFile, by_file: dict[Path, list[Finding]]) -> bool:
    places = [(file.local, line) for line in buster.lines]
    places += [(file.project / path, line) for path, line in buster.also]
    # A finding reported in another file of the project counts where it names the value as
    # made or written there (`made_at`: a window cut by a helper in the labelled file, reported
    # where it enters the module that sends it; `written_in`: a template's placeholder there).
    root = file.project.resolve()
    made = [
        (Path(place[0]).resolve(), place[1], f)
        for key, found in by_file.items()
        if key.is_relative_to(root)
        for f in problems(found)
        for place in (f.made_at, f.written_in)
        if place is not None
    ]
    for path, line in places:
        for finding in problems(by_file.get(path.resolve(), [])):
            right_code = not buster.code or finding.code == buster.code
            at_line = line in (finding.line, finding.written_at)
            if at_line and finding.code not in NOT_A_HIT and right_code:
                return True
        for made_path, made_line, finding in made:
            right_code = not buster.code or finding.code == buster.code
            at_made = (made_path, made_line) == (path.resolve(), line)
            if at_made and finding.code not in NOT_A_HIT and right_code:
                return True
    return False


def score(files: Sequence[CorpusFile], by_file: dict[Path, list[Finding]]) -> Score:
    busters = found = clean = alarmed = 0
    missed: list[str] = []
    noisy: list[str] = []
    for file in files:
        if file.label == "clean":
            clean += 1
            hits = problems(by_file.get(file.local.resolve(), []))
            if hits:
                alarmed += 1
                codes = ", ".join(sorted({f"{f.code}@{f.line}" for f in hits}))
                noisy.append(f"{file.repo}:{file.path}: {codes}")
        for buster in file.busters:
            busters += 1
            if is_found(buster, file, by_file):
                found += 1
            else:
                lines = ",".join(str(n) for n in sorted(buster.lines))
                missed.append(f"{file.repo}:{file.path}:{lines} ({buster.klass})")
    return Score(
        busters=busters,
        found=found,
        clean=clean,
        alarmed=alarmed,
        missed=tuple(missed),
        noisy=tuple(noisy),
    )


def by_class(files: Sequence[CorpusFile], by_file: dict[Path, list[Finding]]) -> dict[str, Score]:
    classes = sorted({b.klass for f in files for b in f.busters})
    result = {}
    for klass in classes:
        subset = [
            CorpusFile(
                **{**_fields(f), "busters": tuple(b for b in f.busters if b.klass == klass)},
            )
            for f in files
            if f.label != "clean"
        ]
        result[klass] = score(subset, by_file)
    return result


def _fields(file: CorpusFile) -> dict[str, object]:
    return {name: getattr(file, name) for name in CorpusFile.__dataclass_fields__}


# -- output ---------------------------------------------------------------------------------------


def _ratio(part: int, whole: int, value: float | None) -> str:
    return "-" if value is None else f"{part}/{whole} = {value:.2f}"


def report(
    files: Sequence[CorpusFile], splits: Sequence[str], details: bool, *, with_python: bool = False
) -> None:
    by_file = findings_by_file(files, with_python=with_python)
    for kind in KINDS:
        table = Table(title=f"{kind}: recall on busters, false alarms on clean files")
        for column in ("set", "files", "busters found", "clean files alarmed"):
            table.add_column(column)
        sets = [
            (split, [f for f in files if f.kind == kind and f.split == split]) for split in splits
        ]
        new = [f for f in files if f.kind == kind and f.split in ("dev", "heldout")]
        if "dev" in splits and "heldout" in splits:
            sets.append(("dev + heldout", new))
        for name, subset in sets:
            result = score(subset, by_file)
            table.add_row(
                name,
                str(len(subset)),
                _ratio(result.found, result.busters, result.recall),
                _ratio(result.alarmed, result.clean, result.false_alarm_rate),
            )
        console.print(table)
        _report_classes(kind, files, splits, by_file)
        if details:
            _report_details(kind, files, splits, by_file)


def _report_classes(
    kind: str,
    files: Sequence[CorpusFile],
    splits: Sequence[str],
    by_file: dict[Path, list[Finding]],
) -> None:
    table = Table(title=f"{kind}: recall by class")
    table.add_column("class")
    for split in splits:
        table.add_column(split)
    per_split = {
        split: by_class([f for f in files if f.kind == kind and f.split == split], by_file)
        for split in splits
    }
    for klass in sorted({k for scores in per_split.values() for k in scores}):
        cells = []
        for split in splits:
            result = per_split[split].get(klass)
            cells.append(
                "-" if result is None else _ratio(result.found, result.busters, result.recall)
            )
        table.add_row(klass, *cells)
    console.print(table)


def _report_details(
    kind: str,
    files: Sequence[CorpusFile],
    splits: Sequence[str],
    by_file: dict[Path, list[Finding]],
) -> None:
    for split in splits:
        result = score([f for f in files if f.kind == kind and f.split == split], by_file)
        for line in result.missed:
            console.print(f"  [{split}] missed {line}", markup=False)
        for line in result.noisy:
            console.print(f"  [{split}] false alarm {line}", markup=False)


def print_fetch_list(files: Iterable[CorpusFile]) -> None:
    for file in files:
        console.print(file.restore, markup=False, highlight=False, soft_wrap=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--manifests", type=Path, default=MANIFESTS, help=argparse.SUPPRESS)
    parser.add_argument(
        "--split",
        choices=(*SPLITS, *HELD_OUT, "all"),
        default="all",
        help=(
            "all: corpus 1 (dev, heldout, legacy), fresh-dev and c3-dev; "
            "fresh, c3, c4, c5 and c6 only when named"
        ),
    )
    parser.add_argument("--details", action="store_true", help="list misses and false alarms")
    parser.add_argument(
        "--fetch-list", action="store_true", help="print where each copy comes from"
    )
    parser.add_argument(
        "--copy-python",
        type=Path,
        metavar="MIRRORS",
        help="copy each template project's Python files from MIRRORS/<owner>+<name>/repo",
    )
    parser.add_argument(
        "--with-python",
        action="store_true",
        help="lint each template project with its Python files, as `promptcache lint .` does",
    )
    args = parser.parse_args(argv)
    splits = SPLITS if args.split == "all" else (args.split,)
    try:
        files = [f for f in load_corpus(args.corpus.resolve(), args.manifests) if f.split in splits]
        if args.fetch_list:
            print_fetch_list(files)
            return 0
        check_copies(files)
    except CorpusError as error:
        console.print(f"score_lint: {error}", markup=False, style="red")
        return 2
    if args.copy_python:
        for line in copy_python(files, args.copy_python.resolve()):
            console.print(line, markup=False, highlight=False)
        return 0
    report(files, splits, args.details, with_python=args.with_python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
