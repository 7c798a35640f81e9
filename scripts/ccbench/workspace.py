"""Where things live: configs, the result store, figure output, the engine."""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS_DIR = Path(__file__).resolve().parents[1]
# The engine command; {cc} is replaced by the protocol. The default is built
# by `make CC=<cc>`; any other command (CCBENCH_ENGINE, --engine) is used as is.
DEFAULT_ENGINE = "bin/rundb-{cc}"


@dataclass(frozen=True)
class Workspace:
    root: Path
    configs_dir: Path
    results_dir: Path
    figures_dir: Path
    engine: str = DEFAULT_ENGINE

    @classmethod
    def create(cls, root: Path | None = None, configs_dir: Path | None = None, results_dir: Path | None = None,
               figures_dir: Path | None = None, engine: str | None = None) -> "Workspace":
        root = (root or REPOSITORY_ROOT).resolve()
        return cls(root=root,
                   configs_dir=(configs_dir or root / "configs").resolve(),
                   results_dir=(results_dir or root / "results").resolve(),
                   figures_dir=(figures_dir or root / "paper_figures").resolve(),
                   engine=engine or os.environ.get("CCBENCH_ENGINE") or DEFAULT_ENGINE)

    @property
    def profiles_dir(self) -> Path:
        return self.configs_dir / "profiles"

    @property
    def figure_configs_dir(self) -> Path:
        return self.configs_dir / "figures"

    @property
    def runs_dir(self) -> Path:
        return self.results_dir / "runs"

    def tables_dir(self, profile: str) -> Path:
        return self.results_dir / "tables" / profile

    def images_dir(self, profile: str) -> Path:
        return self.figures_dir / profile

    @property
    def builds_engine(self) -> bool:
        """Only the default engine is built with make; a custom command is taken as given."""
        return self.engine == DEFAULT_ENGINE

    def binary_path(self, cc: str) -> Path:
        return self.root / DEFAULT_ENGINE.replace("{cc}", cc)

    def engine_argv(self, cc: str) -> list[str]:
        if self.builds_engine:
            return [str(self.binary_path(cc))]
        return shlex.split(self.engine.replace("{cc}", cc))
