"""Errors the CLI turns into clear messages and exit status 2."""
from __future__ import annotations

from pathlib import Path


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
