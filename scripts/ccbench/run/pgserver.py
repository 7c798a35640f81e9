"""A private PostgreSQL server for the middle tier (bin/middletier; docs/middletier.md).

`private_server(parent)` is a context manager: it initdb's a fresh cluster in
a temporary directory under `parent` (results/pg/ in a workspace), starts it
on a free port, yields where to connect, and on the way out (normal end,
exception, Ctrl-C, SIGTERM) stops the server and removes the directory.

PostgreSQL's initdb and postgres refuse to run as root. As root (CI), the
server runs as an unprivileged system user: `postgres` (created by Debian's
postgresql-common, which scripts/install-deps.sh installs), else `nobody`;
CCBENCH_PG_USER names another. The data directory is chown'ed to that user;
where that user cannot traverse the directories above `parent` (a checkout
under /root), it goes under the system temporary directory
(/tmp/ccbench-pg/) instead. As any other user the server runs as that user.

A directory left by a process that was killed outright (SIGKILL: no cleanup
runs) is found by its owner.pid at the next start: its server is stopped and
the directory removed.

This module imports only the standard library.
"""
from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

SUPERUSER = "ccbench"          # the cluster's superuser (trust authentication, local connections only)
START_TIMEOUT_S = 60
OWNER_FILE = "owner.pid"

# Server settings: a private, throw-away cluster. synchronous_commit=off keeps
# commit latency off the disk (DBMS-X is an in-memory OLTP engine); fsync and
# the isolation machinery are untouched. max_connections covers the largest
# connection sweep.
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "300",
    "synchronous_commit": "off",
    "max_pred_locks_per_transaction": "256",
}


class PostgresUnavailable(Exception):
    """The private server cannot be started here; the message says why."""


@dataclass(frozen=True)
class Server:
    host: str        # the Unix-socket directory (127.0.0.1 where its path would be too long)
    port: int
    user: str = SUPERUSER
    database: str = "postgres"

    def flags(self) -> list[str]:
        """The middle tier's connection flags."""
        return [f"--pg_host={self.host}", f"--pg_port={self.port}", f"--pg_user={self.user}",
                f"--pg_database={self.database}"]


def find_bindir() -> Path:
    """The newest /usr/lib/postgresql/<version>/bin with initdb and pg_ctl (or $CCBENCH_PG_BINDIR)."""
    if os.environ.get("CCBENCH_PG_BINDIR"):
        candidates = [Path(os.environ["CCBENCH_PG_BINDIR"])]
    else:
        versions = Path("/usr/lib/postgresql").glob("*/bin")
        candidates = sorted(versions, key=lambda p: [int(x) for x in re.findall(r"\d+", p.parent.name)],
                            reverse=True)
    for bindir in candidates:
        if (bindir / "initdb").is_file() and (bindir / "pg_ctl").is_file():
            return bindir
    raise PostgresUnavailable("no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin; "
                              "install them with `make deps` (Debian package postgresql)")


def server_user() -> str | None:
    """The user the server runs as; None: this process's own (not root)."""
    if os.geteuid() != 0:
        return None
    for name in filter(None, [os.environ.get("CCBENCH_PG_USER"), "postgres", "nobody"]):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise PostgresUnavailable("running as root, and neither the user 'postgres' nor 'nobody' exists to run "
                              "the server (PostgreSQL refuses to run as root); set CCBENCH_PG_USER")


def _as_user(user: str | None, command: list[str]) -> list[str]:
    return command if user is None else ["runuser", "-u", user, "--", *command]


def _run(user: str | None, command: list[str], what: str, timeout_s: float = START_TIMEOUT_S) -> None:
    try:
        done = subprocess.run(_as_user(user, command), capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PostgresUnavailable(f"{what} failed: {error}") from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip().splitlines()
        raise PostgresUnavailable(f"{what} failed (exit {done.returncode}): " + " / ".join(output[-5:]))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _stop_and_remove(bindir: Path, user: str | None, data: Path) -> None:
    if (data / "cluster" / "postmaster.pid").exists():
        with contextlib.suppress(PostgresUnavailable):
            _run(user, [str(bindir / "pg_ctl"), "-D", str(data / "cluster"), "-m", "immediate", "-w", "stop"],
                 "pg_ctl stop", timeout_s=30)
    shutil.rmtree(data, ignore_errors=True)


def remove_stale(parent: Path, bindir: Path, user: str | None) -> list[Path]:
    """Stop and remove the servers of owners that died without cleaning up."""
    removed = []
    for data in sorted(parent.glob("pg-*")):
        try:
            owner = int((data / OWNER_FILE).read_text())
        except (OSError, ValueError):
            owner = None
        if owner is not None and _pid_alive(owner):
            continue
        _stop_and_remove(bindir, user, data)
        removed.append(data)
    return removed


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt here, so the cleanup of `with` runs as for
    Ctrl-C (only in the main thread, and only where nobody handles SIGTERM yet)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _new_data_directory(parent: Path, bindir: Path, user: str | None) -> Path | None:
    """A fresh pg-XXXX under parent, owned by the server's user; None if that user cannot reach it."""
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale(parent, bindir, user)
    data = Path(tempfile.mkdtemp(prefix="pg-", dir=parent))
    (data / OWNER_FILE).write_text(str(os.getpid()))
    if user is None:
        return data
    entry = pwd.getpwnam(user)
    os.chown(data, entry.pw_uid, entry.pw_gid)
    os.chmod(data, 0o700)
    if subprocess.run(["runuser", "-u", user, "--", "test", "-w", str(data)], capture_output=True).returncode == 0:
        return data
    shutil.rmtree(data, ignore_errors=True)
    return None


def _data_directory(parent: Path, bindir: Path, user: str | None) -> Path:
    """Under parent (results/pg/); where the server's user cannot traverse a
    directory above it (a checkout under /root, mode 0700), under the system
    temporary directory instead."""
    data = _new_data_directory(parent, bindir, user)
    if data is None:
        fallback = Path(tempfile.gettempdir()) / "ccbench-pg"
        data = _new_data_directory(fallback, bindir, user)
        if data is None:
            raise PostgresUnavailable(f"the server's user '{user}' can reach neither {parent} nor {fallback}")
    return data


@contextlib.contextmanager
def private_server(parent: Path) -> Iterator[Server]:
    """Start a fresh PostgreSQL cluster under parent; stop and remove it on exit.
    Raises PostgresUnavailable (before yielding) when it cannot be started."""
    bindir = find_bindir()
    user = server_user()
    data = _data_directory(parent, bindir, user)
    with _sigterm_as_interrupt():
        try:
            cluster = data / "cluster"
            _run(user, [str(bindir / "initdb"), "-D", str(cluster), "-U", SUPERUSER, "--auth=trust",
                        "-E", "UTF8", "--locale=C", "--no-sync"], "initdb")
            port = free_port()
            # The socket's path must fit in sun_path (107 bytes); in a deep checkout, TCP on 127.0.0.1 only.
            socket_ok = len(f"{data}/.s.PGSQL.{port}.lock") < 100
            settings = {**SETTINGS, "port": str(port), "unix_socket_directories": f"'{data}'" if socket_ok else "''"}
            with open(cluster / "postgresql.conf", "a", encoding="utf-8") as conf:
                conf.write("\n# ccbench private server (scripts/ccbench/run/pgserver.py)\n")
                conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
            log = data / "server.log"
            try:
                _run(user, [str(bindir / "pg_ctl"), "-D", str(cluster), "-l", str(log), "-w",
                            "-t", str(START_TIMEOUT_S), "start"], "pg_ctl start", timeout_s=START_TIMEOUT_S + 10)
            except PostgresUnavailable as error:   # the log goes with the directory: keep its end
                tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
                raise PostgresUnavailable(" / ".join([str(error), *tail])) from None
            yield Server(host=str(data) if socket_ok else "127.0.0.1", port=port)
        finally:
            _stop_and_remove(bindir, user, data)
