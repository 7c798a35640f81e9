"""Atomic file writes and strict YAML loading.

Every file the harness produces is written to a temporary file in the same
directory and renamed into place, so an interrupted harness never leaves a
half-written result, table, plot or report behind.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable

import yaml

from ccbench.errors import ConfigError

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS_DIR = Path(__file__).resolve().parents[1]
TEMP_PREFIX = ".tmp-"


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(temp_path)``, then rename the temporary file onto ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=path.suffix)
    os.close(fd)
    temp_path = Path(temp_name)
    try:
        write(temp_path)
        with open(temp_path, "rb") as f:
            os.fsync(f.fileno())
        os.replace(temp_path, path)
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise


def write_text_atomically(path: Path, text: str) -> None:
    write_atomically(path, lambda temp: temp.write_text(text, encoding="utf-8"))


def write_json_atomically(path: Path, document: object) -> None:
    write_text_atomically(path, json.dumps(document, indent=1, sort_keys=True) + "\n")


def remove_stale_temp_files(directory: Path) -> int:
    """Delete temporary files left by a process killed in the middle of a write."""
    if not directory.is_dir():
        return 0
    stale = list(directory.glob(TEMP_PREFIX + "*"))
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys instead of keeping the last one."""


def _construct_mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict[object, yaml.Mark] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None,
                f"duplicate key {key!r} (first defined on line {seen[key].line + 1})",
                key_node.start_mark)
        seen[key] = key_node.start_mark
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                              _construct_mapping_without_duplicates)


def load_yaml(path: Path) -> object:
    """Parse a YAML file; any problem becomes a ConfigError naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(path, "", f"cannot read the file: {error.strerror}") from error
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(path, where, f"invalid YAML: {problem}") from error
