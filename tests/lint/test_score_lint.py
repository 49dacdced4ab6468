"""
bench/score_lint.py: the corpus scorer reads manifests and local copies, never files it lacks.

The corpus here is our own: three small templates written by the test, with a manifest in the
real format. The real manifests (bench/lint_corpus/) must also load and agree with themselves.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from promptcache.lint import Finding

ROOT = Path(__file__).resolve().parents[2]


def _scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("score_lint", ROOT / "bench" / "score_lint.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["score_lint"] = module
    spec.loader.exec_module(module)
    return module


score_lint = _scorer()

BUSTER = "Today is {{ now() }}.\n" + "You answer questions about the refund policy.\n" * 30
CLEAN = "You answer questions about the refund policy.\n" * 30 + "Question: {{ question }}\n"
MISSED = "You answer questions.\n" + "Follow the style guide.\n" * 30


def _manifests(folder: Path, entries: str) -> Path:
    folder.mkdir()
    (folder / "python.toml").write_text("[meta]\n", encoding="utf-8")
    (folder / "templates.toml").write_text(entries, encoding="utf-8")
    (folder / "legacy.toml").write_text('[meta]\nsource_commit = "abc"\n', encoding="utf-8")
    return folder


ENTRIES = """
[[file]]
repo = "acme/bot"
commit = "1111111"
path = "prompts/system.j2"
split = "dev"
label = "buster"

[[file.buster]]
class = "clock"
lines = [1]
why = "now() above the instructions"

[[file]]
repo = "acme/bot"
commit = "1111111"
path = "prompts/missed.j2"
split = "dev"
label = "buster"

[[file.buster]]
class = "per-request"
lines = [2]
why = "a buster this linter cannot see (labelled on a static line)"

[[file]]
repo = "acme/bot"
commit = "1111111"
path = "prompts/user.j2"
split = "dev"
label = "clean"
"""


def _corpus(tmp_path: Path) -> Path:
    project = tmp_path / "corpus" / "templates" / "dev" / "acme+bot" / "prompts"
    project.mkdir(parents=True)
    (project / "system.j2").write_text(BUSTER, encoding="utf-8")
    (project / "missed.j2").write_text(MISSED, encoding="utf-8")
    (project / "user.j2").write_text(CLEAN, encoding="utf-8")
    return tmp_path / "corpus"


def test_found_missed_and_clean_are_counted(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    files = score_lint.load_corpus(corpus, _manifests(tmp_path / "m", ENTRIES))
    result = score_lint.score(files, score_lint.findings_by_file(files))
    assert (result.busters, result.found, result.clean, result.alarmed) == (2, 1, 1, 0)
    assert result.missed == ("acme/bot:prompts/missed.j2:2 (per-request)",)


def test_a_missing_copy_is_exit_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "templates" / "dev" / "acme+bot" / "prompts" / "user.j2").unlink()
    manifests = _manifests(tmp_path / "m", ENTRIES)
    assert score_lint.main(["--corpus", str(corpus), "--manifests", str(manifests)]) == 2
    out = capsys.readouterr().out
    assert "1 corpus file(s) are missing" in out and "user.j2" in out and "--fetch-list" in out


def test_a_label_without_busters_is_refused(tmp_path: Path) -> None:
    entries = ENTRIES.replace('label = "clean"', 'label = "buster"')
    with pytest.raises(score_lint.CorpusError, match="label 'buster' and 0 busters"):
        score_lint.load_corpus(_corpus(tmp_path), _manifests(tmp_path / "m", entries))


def test_the_real_manifests_load_and_are_large_enough(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)
    python = [f for f in files if f.kind == "python" and f.split in ("dev", "heldout")]
    templates = [f for f in files if f.kind == "templates" and f.split in ("dev", "heldout")]
    assert len(python) >= 150 and len({f.repo for f in python}) >= 60
    assert len(templates) >= 40
    assert {f.split for f in python} == {"dev", "heldout"}
    # The held-out third is chosen by the repository's hash, not by hand.
    assert all(f.split == score_lint_split(f.repo) for f in python + templates)


def score_lint_split(repo: str) -> str:
    import hashlib

    digest = hashlib.sha256(("promptcache-corpus-1:" + repo).encode()).hexdigest()
    return "heldout" if int(digest, 16) % 3 == 0 else "dev"


MACRO_BUSTER = (
    "{% macro header() %}\nToday is {{ now() }}.\n{% endmacro %}\n{{ header() }}\n"
    + "You answer questions about the refund policy.\n" * 30
)
MACRO_ENTRY = """
[[file]]
repo = "acme/bot"
commit = "1111111"
path = "prompts/macro.j2"
split = "dev"
label = "buster"

[[file.buster]]
class = "clock"
lines = [2]
why = "now() written in the macro's body (line 2), rendered at the top (line 4)"
"""


def test_a_buster_labelled_in_a_macro_body_is_found_at_the_call(tmp_path: Path) -> None:
    project = tmp_path / "corpus" / "templates" / "dev" / "acme+bot" / "prompts"
    project.mkdir(parents=True)
    (project / "macro.j2").write_text(MACRO_BUSTER, encoding="utf-8")
    files = score_lint.load_corpus(tmp_path / "corpus", _manifests(tmp_path / "m", MACRO_ENTRY))
    by_file = score_lint.findings_by_file(files)
    assert [f.line for f in score_lint.problems(next(iter(by_file.values())))] == [4]
    assert score_lint.score(files, by_file).found == 1


FRESH_ENTRY = """
[[file]]
repo = "{repo}"
commit = "2222222"
path = "prompts/fresh.j2"
split = "fresh"
label = "clean"
"""


def test_a_fresh_entry_from_a_corpus_1_project_is_refused(tmp_path: Path) -> None:
    # Same project as a dev entry (case aside): the fresh set would not be held out.
    entries = ENTRIES + FRESH_ENTRY.format(repo="ACME/bot")
    with pytest.raises(score_lint.CorpusError, match="already in corpus 1: ACME/bot"):
        score_lint.load_corpus(_corpus(tmp_path), _manifests(tmp_path / "m", entries))


def test_fresh_is_scored_only_when_named_and_laid_out_under_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifests = _manifests(tmp_path / "m", ENTRIES + FRESH_ENTRY.format(repo="other/bot"))
    corpus = tmp_path / "corpus"
    assert (
        score_lint.main(["--fetch-list", "--corpus", str(corpus), "--manifests", str(manifests)])
        == 0
    )
    assert "fresh.j2" not in capsys.readouterr().out  # `all` is corpus 1 only
    args = [
        "--fetch-list",
        "--split",
        "fresh",
        "--corpus",
        str(corpus),
        "--manifests",
        str(manifests),
    ]
    assert score_lint.main(args) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 1 and "templates/fresh/other+bot/prompts/fresh.j2" in listed[0]


def test_fresh_dev_is_scored_by_all_and_the_hash_decides_the_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tuning = FRESH_ENTRY.format(repo="other/app").replace('split = "fresh"', 'split = "fresh-dev"')
    manifests = _manifests(tmp_path / "m", ENTRIES + tuning)
    args = ["--fetch-list", "--corpus", str(tmp_path / "c"), "--manifests", str(manifests)]
    assert score_lint.main(args) == 0
    assert "templates/fresh-dev/other+app/prompts/fresh.j2" in capsys.readouterr().out
    # The side is the hash's, not the collector's: other/app belongs to the tuning two thirds.
    chosen = FRESH_ENTRY.format(repo="other/app")
    with pytest.raises(score_lint.CorpusError, match="its hash puts it in 'fresh-dev'"):
        score_lint.load_corpus(tmp_path, _manifests(tmp_path / "m2", ENTRIES + chosen))


def test_an_unknown_split_is_refused(tmp_path: Path) -> None:
    entries = ENTRIES.replace('split = "dev"', 'split = "frsh"', 1)
    with pytest.raises(score_lint.CorpusError, match="split 'frsh'"):
        score_lint.load_corpus(_corpus(tmp_path), _manifests(tmp_path / "m", entries))


def test_the_real_fresh_entries_come_from_projects_outside_corpus_1(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)  # load_corpus refuses a reused project itself
    corpus_1 = {f.repo.lower() for f in files if f.split in ("dev", "heldout", "legacy")}
    fresh = [f for f in files if f.split in ("fresh", "fresh-dev")]
    assert {f.split for f in fresh} == {"fresh", "fresh-dev"}, "corpus 2 is in the manifests"
    assert not {f.repo.lower() for f in fresh} & corpus_1
    python = [f for f in fresh if f.kind == "python"]
    assert len(python) >= 60 and len({f.repo for f in python}) >= 30


C3_ENTRY = """
[[file]]
repo = "{repo}"
commit = "3333333"
path = "prompts/c3.j2"
split = "{split}"
label = "clean"
"""


def corpus_3_split(repo: str) -> str:
    import hashlib

    digest = hashlib.sha256(("promptcache-corpus-3:" + repo).encode()).hexdigest()
    return "c3" if int(digest, 16) % 3 == 0 else "c3-dev"


def test_the_corpus_3_hash_rule() -> None:
    # Worked by hand from the rule in the README, so the scorer cannot drift from it.
    assert [corpus_3_split(r) for r in ("third/bot", "c3/one", "other/app", "c3/two")] == [
        "c3",
        "c3",
        "c3-dev",
        "c3-dev",
    ]
    for repo in ("third/bot", "c3/one", "other/app", "c3/two", "acme/bot"):
        assert score_lint.corpus_3_split(repo) == corpus_3_split(repo)


def test_c3_dev_is_scored_by_all_and_c3_only_when_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = (
        ENTRIES
        + C3_ENTRY.format(repo="third/bot", split="c3")
        + C3_ENTRY.format(repo="other/app", split="c3-dev")
    )
    manifests = _manifests(tmp_path / "m", entries)
    base = ["--fetch-list", "--corpus", str(tmp_path / "c"), "--manifests", str(manifests)]
    assert score_lint.main(base) == 0
    listed = capsys.readouterr().out
    assert "templates/c3-dev/other+app/prompts/c3.j2" in listed
    assert "third+bot" not in listed  # `all` leaves the held-out third out
    assert score_lint.main([*base, "--split", "c3"]) == 0
    listed = capsys.readouterr().out
    assert listed.splitlines() == [line for line in listed.splitlines() if "c3.j2" in line]
    assert "templates/c3/third+bot/prompts/c3.j2" in listed and "other+app" not in listed
    assert score_lint.main([*base, "--split", "c3-dev"]) == 0
    assert "templates/c3-dev/other+app/prompts/c3.j2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("repo", "split", "expected"),
    [("third/bot", "c3-dev", "'c3'"), ("other/app", "c3", "'c3-dev'")],
)
def test_a_corpus_3_entry_on_the_wrong_side_of_its_hash_is_refused(
    tmp_path: Path, repo: str, split: str, expected: str
) -> None:
    entries = ENTRIES + C3_ENTRY.format(repo=repo, split=split)
    with pytest.raises(score_lint.CorpusError, match=f"its hash puts it in {expected}"):
        score_lint.load_corpus(tmp_path, _manifests(tmp_path / "m", entries))


def test_a_corpus_3_entry_from_an_earlier_corpus_is_refused(tmp_path: Path) -> None:
    # acme/bot is a corpus-1 (dev) project; other/bot a corpus-2 (fresh) one. Case aside.
    c2 = FRESH_ENTRY.format(repo="other/bot")
    for repo, earlier in (("ACME/bot", ""), ("Other/Bot", c2)):
        entries = ENTRIES + earlier + C3_ENTRY.format(repo=repo, split=corpus_3_split(repo))
        with pytest.raises(score_lint.CorpusError, match=f"corpus 2 or legacy: {repo}"):
            score_lint.load_corpus(tmp_path, _manifests(tmp_path / f"m{repo[0]}", entries))


def test_the_real_corpus_3_entries_are_new_projects_split_by_the_hash(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)  # load_corpus refuses a reused project itself
    earlier = {f.repo.lower() for f in files if f.split not in ("c3", "c3-dev")}
    corpus_3 = [f for f in files if f.split in ("c3", "c3-dev")]
    assert {f.split for f in corpus_3 if f.kind == "python"} == {"c3", "c3-dev"}
    assert not {f.repo.lower() for f in corpus_3} & earlier
    assert all(f.split == corpus_3_split(f.repo) for f in corpus_3)
    python = [f for f in corpus_3 if f.kind == "python"]
    assert len(python) >= 90 and len({f.repo for f in python}) >= 45


C4_ENTRY = """
[[file]]
repo = "{repo}"
commit = "4444444"
path = "app/chat.py"
split = "c4"
label = "clean"
"""
C3_DEV_ENTRY = C3_ENTRY.format(repo="other/app", split="c3-dev")
LEGACY = '[meta]\nsource_commit = "abc"\n\n[[file]]\nrepo = "old/bot"\nkind = "python"\n'
LEGACY += 'name = "bot.py"\ncopy_of = "tests/bot.py"\nlabel = "clean"\n'


def test_c4_is_held_out_whole_scored_and_listed_only_when_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Corpus 4 has no hash and no tuning part: every project of it is c4, whatever its hash.
    entries = ENTRIES + C4_ENTRY.format(repo="third/bot") + C4_ENTRY.format(repo="other/web")
    manifests = _manifests(tmp_path / "m", entries)
    base = ["--fetch-list", "--corpus", str(tmp_path / "c"), "--manifests", str(manifests)]
    assert score_lint.main(base) == 0
    assert "chat.py" not in capsys.readouterr().out  # `all` leaves corpus 4 out
    assert score_lint.main([*base, "--split", "c4"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2
    assert "templates/c4/third+bot/app/chat.py" in listed[0]
    assert "templates/c4/other+web/app/chat.py" in listed[1]


def test_the_real_corpus_4_entries_are_new_projects(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)  # load_corpus refuses a reused project itself
    earlier = {f.repo.lower() for f in files if f.split != "c4"}
    corpus_4 = [f for f in files if f.split == "c4"]
    assert not {f.repo.lower() for f in corpus_4} & earlier
    python = [f for f in corpus_4 if f.kind == "python"]
    assert len(python) >= 80 and len({f.repo for f in python}) >= 40
    assert any(f.label == "buster" for f in python) and any(f.label == "clean" for f in python)


C5_ENTRY = C4_ENTRY.replace('"4444444"', '"5555555"').replace('"c4"', '"c5"')


def test_c5_is_held_out_whole_scored_and_listed_only_when_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Corpus 5, like corpus 4, has no hash and no tuning part: `all` and `c4` leave it out.
    entries = ENTRIES + C4_ENTRY.format(repo="fourth/bot") + C5_ENTRY.format(repo="fifth/bot")
    entries += C5_ENTRY.format(repo="fifth/web")
    manifests = _manifests(tmp_path / "m", entries)
    base = ["--fetch-list", "--corpus", str(tmp_path / "c"), "--manifests", str(manifests)]
    assert score_lint.main(base) == 0
    assert "fifth+" not in capsys.readouterr().out
    assert score_lint.main([*base, "--split", "c4"]) == 0
    assert "fifth+" not in capsys.readouterr().out
    assert score_lint.main([*base, "--split", "c5"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2
    assert "templates/c5/fifth+bot/app/chat.py" in listed[0]
    assert "templates/c5/fifth+web/app/chat.py" in listed[1]
    assert "5555555" in listed[0]


def test_the_real_corpus_5_entries_are_new_projects_held_out_whole(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)  # load_corpus refuses a reused project itself
    earlier = {f.repo.lower() for f in files if f.split != "c5"}
    corpus_5 = [f for f in files if f.split == "c5"]
    assert not {f.repo.lower() for f in corpus_5} & earlier
    python = [f for f in corpus_5 if f.kind == "python"]
    labelled = [f for f in python if f.label != "part"]
    assert len(labelled) >= 70 and len({f.repo for f in python}) >= 40
    assert any(f.label == "buster" for f in python) and any(f.label == "clean" for f in python)


def test_the_real_corpus_5_templates_are_new_projects_held_out_whole(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)  # load_corpus refuses a reused project itself
    python_5 = {f.repo.lower() for f in files if f.split == "c5" and f.kind == "python"}
    templates = [f for f in files if f.split == "c5" and f.kind == "templates"]
    assert not {f.repo.lower() for f in templates} & python_5  # one collector per project
    assert len(templates) >= 95 and len({f.repo for f in templates}) >= 38
    assert {f.label for f in templates} == {"buster", "clean"}


C6_ENTRY = C4_ENTRY.replace('"4444444"', '"6666666"').replace('"c4"', '"c6"')


def test_c6_is_held_out_whole_scored_and_listed_only_when_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = ENTRIES + C5_ENTRY.format(repo="fifth/bot") + C6_ENTRY.format(repo="sixth/bot")
    manifests = _manifests(tmp_path / "m", entries)
    base = ["--fetch-list", "--corpus", str(tmp_path / "c"), "--manifests", str(manifests)]
    for split in ([], ["--split", "c5"]):
        assert score_lint.main([*base, *split]) == 0
        assert "sixth+" not in capsys.readouterr().out
    assert score_lint.main([*base, "--split", "c6"]) == 0
    (listed,) = capsys.readouterr().out.splitlines()
    assert "templates/c6/sixth+bot/app/chat.py" in listed and "6666666" in listed


def test_the_real_corpus_6_entries_are_new_projects_held_out_whole(tmp_path: Path) -> None:
    files = score_lint.load_corpus(tmp_path)  # load_corpus refuses a reused project itself
    earlier = {f.repo.lower() for f in files if f.split != "c6"}
    corpus_6 = [f for f in files if f.split == "c6"]
    assert not {f.repo.lower() for f in corpus_6} & earlier
    python = {f.repo.lower() for f in corpus_6 if f.kind == "python"}
    templates = [f for f in corpus_6 if f.kind == "templates"]
    assert not {f.repo.lower() for f in templates} & python  # one collector per project
    assert len(python) >= 60 and len(templates) >= 75
    assert {f.label for f in corpus_6 if f.kind == "python"} == {"buster", "clean", "part"}


RENDERED_EMPTY = "Known facts: {{ question }}\n" + "You answer questions about refunds.\n" * 30
RENDERER = """\
from pathlib import Path

import jinja2
from openai import OpenAI

env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "prompts"))
client = OpenAI()


def answer(text: str) -> str:
    system = env.get_template("system.j2").render()
    reply = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": text}],
    )
    return reply.choices[0].message.content or ""
"""


def _snapshot(folder: Path, files: dict[str, str]) -> str:
    """A fetched snapshot as the mirrors hold it: a git directory at folder/repo."""
    work = folder / "work"
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "snapshot"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(folder / "repo")], check=True)
    done = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_with_python_lints_a_template_project_with_the_python_that_renders_it(
    tmp_path: Path,
) -> None:
    # The template alone looks like a per-request value above the instructions; the project's
    # Python renders it with no values at all, so `promptcache lint .` finds it clean.
    commit = _snapshot(
        tmp_path / "mirrors" / "acme+bot",
        {"prompts/system.j2": RENDERED_EMPTY, "app/main.py": RENDERER, "README.md": "bot\n"},
    )
    entry = f'[[file]]\nrepo = "acme/bot"\ncommit = "{commit}"\npath = "prompts/system.j2"\n'
    entry += 'split = "c4"\nlabel = "clean"\n'
    manifests = _manifests(tmp_path / "m", entry)
    corpus = tmp_path / "c"
    (copy := corpus / "templates" / "c4" / "acme+bot" / "prompts" / "system.j2").parent.mkdir(
        parents=True
    )
    copy.write_text(RENDERED_EMPTY, encoding="utf-8")
    files = score_lint.load_corpus(corpus, manifests)

    alone = score_lint.score(files, score_lint.findings_by_file(files))
    assert (alone.clean, alone.alarmed) == (1, 1)
    assert score_lint.copy_python(files, tmp_path / "mirrors") == [
        "acme/bot: 1 of 1 Python files copied"
    ]
    assert (copy.parent.parent / "app" / "main.py").read_text(encoding="utf-8") == RENDERER
    whole = score_lint.score(files, score_lint.findings_by_file(files, with_python=True))
    assert (whole.clean, whole.alarmed) == (1, 0)
    # the Python is context, not corpus: nothing in it is scored, and a second copy copies nothing
    assert score_lint.copy_python(files, tmp_path / "mirrors") == [
        "acme/bot: 0 of 1 Python files copied"
    ]


def test_copy_python_says_which_snapshot_is_missing(tmp_path: Path) -> None:
    manifests = _manifests(tmp_path / "m", C4_ENTRY.format(repo="fourth/bot"))
    files = score_lint.load_corpus(tmp_path / "c", manifests)
    (line,) = score_lint.copy_python(files, tmp_path / "mirrors")
    assert line.startswith("fourth/bot: no snapshot at ") and "fetch it first" in line


# What an earlier corpus holds, a project of it named as a later corpus would name it, and which
# corpus it is (0: legacy). A corpus held out whole (4, 5, 6) must refuse each earlier one.
EARLIER = [
    ("", "ACME/Bot", 1),  # dev
    (FRESH_ENTRY.format(repo="other/bot"), "Other/BOT", 2),
    (C3_DEV_ENTRY, "OTHER/app", 3),
    (C4_ENTRY.format(repo="fourth/bot"), "Fourth/BOT", 4),
    (C5_ENTRY.format(repo="fifth/bot"), "FIFTH/bot", 5),
    ("", "Old/Bot", 0),
]
HELD_OUT_WHOLE = {4: C4_ENTRY, 5: C5_ENTRY, 6: C6_ENTRY}


@pytest.mark.parametrize(
    ("corpus", "earlier", "repo"),
    [
        (corpus, earlier, repo)
        for corpus in HELD_OUT_WHOLE
        for earlier, repo, number in EARLIER
        if number < corpus
    ],
)
def test_an_entry_of_a_corpus_held_out_whole_from_an_earlier_corpus_is_refused(
    tmp_path: Path, corpus: int, earlier: str, repo: str
) -> None:
    entry = HELD_OUT_WHOLE[corpus].format(repo=repo)
    manifests = _manifests(tmp_path / "m", ENTRIES + earlier + entry)
    (manifests / "legacy.toml").write_text(LEGACY, encoding="utf-8")
    before = ", ".join(str(n) for n in range(1, corpus))
    with pytest.raises(score_lint.CorpusError, match=f"corpus {before} or legacy: {repo};"):
        score_lint.load_corpus(tmp_path, manifests)


def _made_elsewhere(
    tmp_path: Path, made_line: int, field: str = "made_at"
) -> tuple[Any, dict[Path, list[Finding]]]:
    """A buster labelled on a helper's line (window.py:3) and a finding reported in the module
    that sends the value (bot.py:9), naming that line as where the value is made (`made_at`) or
    written (`written_in`)."""
    project = tmp_path / "acme+bot"
    buster = score_lint.Buster(klass="history-window", lines=frozenset({3}), also=(), code="")
    file = score_lint.CorpusFile(
        kind="python", split="c5", repo="acme/bot", commit="1", path="store/window.py",
        label="buster", busters=(buster,), local=project / "store" / "window.py",
        project=project, restore="",
    )  # fmt: skip
    finding = Finding(
        path=str(project / "bot.py"), line=9, column=15, code="PC507", message="a window",
        severity="warning", **{field: (str(project / "store" / "window.py"), made_line)},
    )  # fmt: skip
    return file, {(project / "bot.py").resolve(): [finding]}


@pytest.mark.parametrize("field", ["made_at", "written_in"])
def test_a_finding_elsewhere_that_names_the_labelled_line_as_made_there_is_found(
    tmp_path: Path, field: str
) -> None:
    file, by_file = _made_elsewhere(tmp_path, 3, field)
    assert score_lint.is_found(file.busters[0], file, by_file)


@pytest.mark.parametrize("field", ["made_at", "written_in"])
def test_a_finding_elsewhere_made_on_another_line_is_not_found(tmp_path: Path, field: str) -> None:
    file, by_file = _made_elsewhere(tmp_path, 2, field)
    assert not score_lint.is_found(file.busters[0], file, by_file)


def test_a_git_command_that_runs_past_its_time_reads_as_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A snapshot git cannot read in time is said like one it cannot read, never waited on.
    def stalled(command: list[str], **kwargs: Any) -> Any:
        raise subprocess.TimeoutExpired(command, kwargs.get("timeout") or 0)

    monkeypatch.setattr(score_lint.subprocess, "run", stalled)
    assert score_lint._git(tmp_path, "ls-tree", "HEAD") is None


def test_a_git_command_that_answers_in_time_gives_what_it_printed(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert score_lint._git(tmp_path / ".git", "rev-parse", "--git-dir") is not None


def test_copy_python_says_how_many_large_files_it_left_out_and_copies_no_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _snapshot(
        tmp_path / "mirrors" / "acme+bot",
        {
            "prompts/system.j2": RENDERED_EMPTY,
            "app/main.py": RENDERER,
            "app/big.py": "x = 1\n" * 400,
        },
    )
    work = tmp_path / "mirrors" / "acme+bot" / "work"
    (work / "app" / "alias.py").symlink_to("main.py")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(work)]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a link"], check=True)
    subprocess.run(
        [
            *git,
            "push",
            "-q",
            str(tmp_path / "mirrors" / "acme+bot" / "repo"),
            "HEAD:refs/heads/linked",
        ],
        check=True,
    )
    linked = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    assert linked.stdout.strip() != commit
    entry = f'[[file]]\nrepo = "acme/bot"\ncommit = "{linked.stdout.strip()}"\n'
    entry += 'path = "prompts/system.j2"\nsplit = "c4"\nlabel = "clean"\n'
    files = score_lint.load_corpus(tmp_path / "c", _manifests(tmp_path / "m", entry))
    monkeypatch.setattr(score_lint, "MAX_PYTHON_BYTES", 2_000)  # RENDERER fits, big.py not
    assert score_lint.copy_python(files, tmp_path / "mirrors") == [
        "acme/bot: 1 of 1 Python files copied (1 over 2,000 bytes left out)"
    ]
    project = tmp_path / "c" / "templates" / "c4" / "acme+bot" / "app"
    assert sorted(p.name for p in project.iterdir()) == ["main.py"]
