"""
The `promptcache` command line.

Each subcommand lives in its own module under `promptcache._commands` and exposes
`register(subparsers)`, which adds its parser and sets `handler` to a function taking the parsed
arguments and returning an exit code. Exit codes, one scheme for every command (as pytest keeps
"you called it wrong" and "the tool broke" apart; ruff and mypy give both 2):

    0    clean: nothing found
    1    findings: the command did its work and found what it reports (a lint finding, a lost
         cache, a gate that failed)
    2    usage or input error: a bad flag, a missing or unreadable path, a bad configuration, an
         input of the wrong shape, an output that could not be written; the message names it
    3    internal error: a bug in promptcache; one line names the exception and where it was
         raised, never its text (it may quote a prompt), nor a traceback unless
         PROMPTCACHE_DEBUG=1 asks for one
    130  interrupted (Ctrl-C);  141  the reader of stdout went away (`| head`)
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import pkgutil
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from . import __version__, _commands
from ._errors import InternalError, PromptCacheError, check_hash_key
from ._outputs import write_failure

__all__ = ["EXIT_ERROR", "EXIT_FINDINGS", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_ERROR = EXIT_USAGE  # the name before internal errors had a code of their own


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors exit 2 through `main` instead of raising SystemExit deep down."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise _UsageError(f"{self.prog}: error: {message}")


class _UsageError(Exception):
    pass


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """
    The parser of every subcommand, or, given the `command` being run, of that one alone: each
    command's module imports what it runs (the linter, the simulators, the price tables), and a
    `report` need not pay for the linter's imports. Help and unknown commands get them all.
    """
    parser = _Parser(
        prog="promptcache",
        description="Make LLM prompt caching work, and make its failures visible.",
    )
    parser.add_argument("--version", action="version", version=f"promptcache {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    modules = sorted(
        m.name for m in pkgutil.iter_modules(_commands.__path__) if not m.name.startswith("_")
    )
    wanted = None if command is None else command.replace("-", "_")
    for module in [wanted] if wanted in modules else modules:
        importlib.import_module(f"{_commands.__name__}.{module}").register(subparsers)
    return parser


def _command(argv: Sequence[str] | None) -> str | None:
    """The subcommand `argv` names (its first word: the top level has only options that exit)."""
    args = sys.argv[1:] if argv is None else argv
    return args[0] if args and not args[0].startswith("-") else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with `argv` (default: sys.argv[1:]) and return the exit code."""
    try:
        parser = build_parser(_command(argv))
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        check_hash_key()  # before any input is read: else every line would be skipped for it
        status = int(args.handler(args))
        sys.stdout.flush()  # inside the try: a full disk or a closed pipe is handled below
        return status
    except BrokenPipeError:
        return _closed_pipe()
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version
        if isinstance(exc.__context__, BrokenPipeError):  # rich's Console.on_broken_pipe
            return _closed_pipe()
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except PromptCacheError as exc:
        print(f"promptcache: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            return _closed_pipe()
        if exc.errno not in _WRITE_FAILURES:
            return _internal_error(exc)
        _silence_stdout()
        print(
            f"promptcache: error: {write_failure(exc.filename or 'standard output', exc)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("promptcache: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        return _internal_error(exc)


def _internal_error(exc: BaseException) -> int:
    """
    A bug: exit 3 with one line naming the exception's type and the place in promptcache that
    raised it. Its text is left out (a KeyError's is the key, which may be a prompt's words);
    PROMPTCACHE_DEBUG=1 prints the whole traceback, still exiting 3: an uncaught exception
    would exit 1, which a CI job reads as findings.
    """
    if os.environ.get("PROMPTCACHE_DEBUG"):
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        return EXIT_INTERNAL
    doing = ""
    if isinstance(exc, InternalError) and exc.__cause__ is not None:
        doing, exc = f" while {exc.doing}", exc.__cause__
    print(
        f"promptcache: internal error: {type(exc).__name__} at {_raised_at(exc)}{doing}. This is a bug "
        "in promptcache, not in your input or command: please report it to the promptcache "
        "issue tracker with the traceback PROMPTCACHE_DEBUG=1 prints (read it first: it may "
        "quote your input).",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _raised_at(exc: BaseException) -> str:
    """The innermost frame of promptcache's own code the exception passed, as `module.py:line`."""
    package = Path(__file__).resolve().parent
    place = "an unknown place"
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(package):
            place = f"{path.relative_to(package.parent).as_posix()}:{frame.lineno}"
    return place


# A write the disk or device refused: the output is incomplete, so the run fails, clearly.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
# What a process killed by SIGPIPE reports (128 + 13): the reader stopped, the output is cut.
EXIT_CLOSED_PIPE = 141


def _closed_pipe() -> int:
    """The reader of stdout went away (`| head`): nothing to say, and nobody to say it to."""
    _silence_stdout()
    return EXIT_CLOSED_PIPE


def _silence_stdout() -> None:
    """
    Point stdout at /dev/null: what is still in its buffer would fail again when Python flushes
    it at exit, and print "Exception ignored" after our message.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a real descriptor (a test's stand-in): nothing will flush it


if __name__ == "__main__":
    sys.exit(main())
