"""Errors the CLI turns into clear messages and exit status 2."""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Iterable


class ConfigError(Exception):
    """One or more problems in a configuration file.

    Each problem is (file, field path, message) and prints as
    ``configs/figures/testbed/ycsb-theta.yaml: plot.kind: 'pie' is not allowed; ...``.
    """

    def __init__(self, file: Path | str, field_path: str, message: str):
        self.problems: list[tuple[str, str, str]] = [(str(file), field_path, message)]
        super().__init__(self._text())

    @classmethod
    def many(cls, problems: list[tuple[str, str, str]]) -> "ConfigError":
        error = cls(*problems[0])
        error.problems = list(problems)
        error.args = (error._text(),)
        return error

    def _text(self) -> str:
        return "\n".join(f"{file}: {path}: {message}" if path else f"{file}: {message}"
                         for file, path, message in self.problems)

    def __str__(self) -> str:
        return self._text()


class UsageError(Exception):
    """A bad command line (unknown figure id, unknown profile, ...)."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """'; did you mean X?' naming the names of `known` closest to a misspelt `word` (difflib), or ''."""
    close = difflib.get_close_matches(word, list(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def unknown_name(word: str, known: Iterable[str], what: str, separator: str = "|") -> str:
    """"'silp' is not a protocol; did you mean silo?; allowed: ...": the closest names first, then all."""
    known = list(known)
    return f"{word!r} is not a {what}{did_you_mean(word, known)}; allowed: {separator.join(known)}"
