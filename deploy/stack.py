"""The Procfile's processes on one machine, each under the caller's control.

``make serve`` runs the Procfile with honcho (deploy/serve.py). The fault tests (tests/load/) and
the load benchmark (bench/load.py) need to kill one process of one kind and start it again, as a
service manager would, and to measure each kind apart: :class:`Stack` starts the very command
lines of the Procfile (through ``sh -c``, as honcho does), one process group each.

    web        gunicorn -c gunicorn.conf.py         (ROBOT_WORKER=off, SCHEDULER=off)
    robots     flask --app app robots   (x N)      (take kicks from Redis, sweep the database)
    scheduler  flask --app app scheduler (exactly one: a file lock in the instance folder)
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PROCFILE = ROOT / "Procfile"
REDIS_URL = "redis://127.0.0.1:6379/0"
SERVE_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/corazones"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_pg_database(url: str) -> None:
    """Create the PostgreSQL database of ``url`` if it does not exist yet."""
    import psycopg
    from sqlalchemy.engine import make_url

    u = make_url(url)
    with psycopg.connect(host=u.host or "127.0.0.1", port=u.port or 5432,
                         user=u.username or "postgres", password=u.password,
                         dbname="postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              (u.database,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{u.database}"')


def procfile(path: Path = PROCFILE) -> dict[str, str]:
    """The Procfile's command line of each kind of process (read by honcho's own parser)."""
    from honcho.environ import parse_procfile  # type: ignore[import-untyped]

    return dict(parse_procfile(path.read_text()).processes)


def prepare(env: dict[str, str]) -> None:
    """What runs once before the processes start: the PostgreSQL database made if missing, the
    instance folder and the migrations (``flask setup``)."""
    url = env.get("DATABASE_URL", "")
    if url.startswith("postgresql"):
        ensure_pg_database(url)
    subprocess.run([str(BIN / "flask"), "--app", "app", "setup"], cwd=ROOT,
                   env={**env, "ROBOT_WORKER": "off", "SCHEDULER": "off"}, check=True,
                   stdout=subprocess.DEVNULL)


def new_pg_schema(base: str) -> tuple[str, str]:
    """A fresh schema in ``base``'s database; returns (url with search_path, schema)."""
    import sqlalchemy as sa

    schema = "load_" + secrets.token_hex(5)
    engine = sa.create_engine(base)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    engine.dispose()
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}", schema


def drop_pg_schema(base: str, schema: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(base)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    engine.dispose()


def _stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name (state first), None when there is no such pid."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, ended and waiting to be reaped, does not)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def proc_children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        fields = _stat(int(d))
        if fields is not None and int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            out.append(int(d))
    return out


def descendants(pid: int) -> list[int]:
    """Every live process started by ``pid``, by its children, and so on."""
    out: list[int] = []
    todo = [pid]
    while todo:
        kids = proc_children(todo.pop())
        out.extend(kids)
        todo.extend(kids)
    return out


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pg_connections(pid: int, port: int = 5432) -> int:
    """The open TCP connections of process ``pid`` to a PostgreSQL server on ``port`` (its
    sockets matched with the kernel's table of established connections, the network
    namespace's: the same for every process here)."""
    tag = f":{port:04X} "
    established = set()
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/net/{table}") as f:
                next(f)
                for line in f:
                    if tag not in line:
                        continue
                    cols = line.split()
                    if cols[3] == "01" and int(cols[2].rsplit(":", 1)[1], 16) == port:
                        established.add(cols[9])
        except OSError:
            pass
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # gone
        return 0
    count = 0
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed while we looked
            continue
        if target.startswith("socket:[") and target[8:-1] in established:
            count += 1
    return count


def peak_rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Stack:
    """gunicorn + robot processes + one scheduler over one database, on a local port: the
    Procfile's command lines, each started (and killed, and started again) on its own."""

    def __init__(self, database_url: str, instance: Path, *, web_workers: int = 2,
                 threads: int = 200, robot_procs: int = 1, robot_threads: int = 2,
                 scheduler: bool = True, redis_url: str = REDIS_URL, port: int | None = None,
                 env: dict[str, str] | None = None, log_dir: Path | None = None) -> None:
        self.database_url = database_url
        self.instance = Path(instance)
        self.instance.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.web_workers = web_workers
        self.robot_procs = robot_procs
        self.scheduler_wanted = scheduler
        self.log_dir = Path(log_dir or self.instance)
        self.commands = procfile()
        self.env = dict(os.environ)
        self.env.update({
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "DATABASE_URL": database_url, "CORAZONES_INSTANCE": str(self.instance),
            "REDIS_URL": redis_url, "SECRET_KEY": self.env.get("SECRET_KEY")
            or secrets.token_hex(32),
            "GUNICORN_BIND": f"127.0.0.1:{self.port}", "GUNICORN_WORKERS": str(web_workers),
            "GUNICORN_THREADS": str(threads), "ROBOT_THREADS": str(robot_threads),
            "ROBOT_WORKER": "off", "SCHEDULER": "off",
            "RATELIMIT_KEY_PREFIX": "load" + secrets.token_hex(6),
            "PYTHONUNBUFFERED": "1",
        })
        # ROBOT_SEARCH_PROCS and ROBOT_NICE: the Procfile's defaults unless the environment (or
        # ``env``) says otherwise.
        self.env.update(env or {})
        self.web: subprocess.Popen[bytes] | None = None
        self.robots: list[subprocess.Popen[bytes]] = []
        self.sched: subprocess.Popen[bytes] | None = None
        self.dead_cpu = {"web": 0.0, "robots": 0.0, "scheduler": 0.0}
        self.peak_mb = {"web": 0.0, "robots": 0.0, "scheduler": 0.0}

    # ------------------------------------------------------------------ processes

    def _popen(self, kind: str, name: str) -> subprocess.Popen[bytes]:
        """The Procfile's ``kind`` line in a process group of its own, as honcho starts it (its
        lines ``exec`` the command: the pid is the command's own)."""
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - owned by the process
        try:
            return subprocess.Popen(["/bin/sh", "-c", self.commands[kind]], cwd=ROOT,
                                    env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        finally:
            log.close()  # the child has its own copy

    def flask(self, *args: str) -> list[str]:
        return [str(BIN / "flask"), "--app", "app", *args]

    def setup(self) -> None:
        prepare(self.env)

    def start_web(self, timeout: float = 60.0) -> None:
        self.web = self._popen("web", "web")
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float = 60.0) -> None:
        import urllib.error
        import urllib.request

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.web is not None and self.web.poll() is not None:
                raise RuntimeError(f"gunicorn exited: see {self.log_dir / 'web.log'}")
            try:
                with urllib.request.urlopen(self.url + "/api/csrf", timeout=2) as r:
                    if r.status == 200 and len(self.web_pids()) > self.web_workers:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn did not answer on {self.url}")

    def start_robots(self, n: int | None = None) -> None:
        for _ in range(self.robot_procs if n is None else n):
            self.robots.append(self._popen("robots", f"robots{len(self.robots)}"))

    def start_scheduler(self) -> None:
        self.sched = self._popen("scheduler", "scheduler")

    def start(self) -> Stack:
        """Every part; if one fails to start, what was already started is stopped again."""
        try:
            self.setup()
            self.start_robots()
            if self.scheduler_wanted:
                self.start_scheduler()
            self.start_web()
        except BaseException:
            self.stop()
            raise
        return self

    def web_pids(self) -> list[int]:
        if self.web is None or self.web.poll() is not None:
            return []
        return [self.web.pid, *proc_children(self.web.pid)]

    def _note_before_death(self, part: str, pids: list[int]) -> None:
        self.dead_cpu[part] += sum(cpu_seconds(p) for p in pids)
        self.peak_mb[part] = max(self.peak_mb[part], sum(peak_rss_mb(p) for p in pids))

    def pids(self) -> list[int]:
        """Every live process of the stack (search processes and resource trackers included)."""
        roots = [p.pid for p in (self.web, self.sched, *self.robots)
                 if p is not None and p.poll() is None]
        return [pid for root in roots for pid in (root, *descendants(root))]

    def kill_web(self, sig: int = signal.SIGKILL) -> None:
        """SIGKILL the gunicorn master and its workers at once (a crash of the web server)."""
        if self.web is None:
            return
        self._note_before_death("web", self.web_pids())
        try:
            os.killpg(self.web.pid, sig)
        except ProcessLookupError:
            pass
        self.web.wait(timeout=30)
        self.web = None

    def stop_scheduler(self, sig: int = signal.SIGKILL) -> None:
        if self.sched is None:
            return
        self._note_before_death("scheduler", [self.sched.pid])
        _stop(self.sched, sig)
        self.sched = None

    def robot_pids(self) -> list[int]:
        """The robot processes and their children (the search processes)."""
        return [pid for p in self.robots if p.poll() is None
                for pid in (p.pid, *proc_children(p.pid))]

    def stop_robots(self, sig: int = signal.SIGTERM) -> None:
        self._note_before_death("robots", self.robot_pids())
        for p in self.robots:
            _stop(p, sig)
        self.robots = []

    def stop(self) -> None:
        if self.web is not None:
            self._note_before_death("web", self.web_pids())
            _stop(self.web, signal.SIGTERM)
            self.web = None
        self.stop_robots()
        self.stop_scheduler(signal.SIGTERM)

    # ------------------------------------------------------------------ measures

    def cpu(self) -> dict[str, float]:
        """CPU seconds spent so far by each part (processes killed earlier included)."""
        out = dict(self.dead_cpu)
        out["web"] += sum(cpu_seconds(p) for p in self.web_pids())
        out["robots"] += sum(cpu_seconds(p) for p in self.robot_pids())
        if self.sched is not None:
            out["scheduler"] += cpu_seconds(self.sched.pid)
        return out

    def peak_memory_mb(self) -> dict[str, float]:
        """Peak resident memory (sum over each part's processes), in MiB."""
        out = dict(self.peak_mb)
        out["web"] = max(out["web"], sum(peak_rss_mb(p) for p in self.web_pids()))
        out["robots"] = max(out["robots"], sum(peak_rss_mb(p) for p in self.robot_pids()))
        if self.sched is not None:
            out["scheduler"] = max(out["scheduler"], peak_rss_mb(self.sched.pid))
        return out

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _stop(p: subprocess.Popen[bytes], sig: int) -> None:
    """``sig`` to the process group of ``p`` (SIGKILL after 15 s), and ``p`` reaped."""
    try:
        os.killpg(p.pid, sig)
        p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    except ProcessLookupError:  # the whole group is gone already
        p.wait()
