"""Helpers of the load and fault tests: the production stack on a fresh PostgreSQL schema behind a
TCP proxy the test can cut, player-like clients (bench/load.py) and the log audit."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402
from load_audit import Audit, audit_database, privacy_audit  # noqa: E402

from deploy.stack import Stack, drop_pg_schema, new_pg_schema  # noqa: E402

#: The production stack runs on PostgreSQL: these tests always use it (not DATABASE_URL).
PG_BASE = os.environ.get("LOAD_TEST_DATABASE_URL",
                         "postgresql+psycopg://postgres@127.0.0.1:5432/test")

__all__ = ["PG_BASE", "Audit", "Stack", "TcpProxy", "audit_database", "drop_pg_schema",
           "new_pg_schema", "play_in_background", "privacy_audit", "via_proxy"]


class TcpProxy:
    """127.0.0.1:<port> -> PostgreSQL. ``cut()`` drops every connection and refuses new ones
    (as a database restart or a network drop would), ``restore()`` lets them through again."""

    def __init__(self, target: tuple[str, int] = ("127.0.0.1", 5432)) -> None:
        self.target = target
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = int(self.listener.getsockname()[1])
        self.up = threading.Event()
        self.up.set()
        self.closed = False
        self.lock = threading.Lock()
        self.pairs: set[tuple[socket.socket, socket.socket]] = set()
        threading.Thread(target=self._accept, daemon=True, name="pg-proxy").start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            pair = (client, upstream)
            with self.lock:
                self.pairs.add(pair)
            threading.Thread(target=self._pump, args=(client, upstream, pair), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, pair), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket,
              pair: tuple[socket.socket, socket.socket]) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            self._drop(pair)

    def _drop(self, pair: tuple[socket.socket, socket.socket]) -> None:
        with self.lock:
            self.pairs.discard(pair)
        for s in pair:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def cut(self) -> None:
        self.up.clear()
        with self.lock:
            pairs = list(self.pairs)
        for pair in pairs:
            self._drop(pair)

    def restore(self) -> None:
        self.up.set()

    def close(self) -> None:
        self.closed = True
        self.cut()
        self.listener.close()


def via_proxy(url: str, port: int) -> str:
    """``url`` (a PostgreSQL URL, maybe with a search_path option) through 127.0.0.1:port."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(host="127.0.0.1", port=port).render_as_string(hide_password=False)


def play_in_background(url: str, specs: list[tuple[str, bool]], duration: float,
                       think: tuple[float, float] = (0.02, 0.1), seed: int = 1) -> Any:
    """Player-like clients (bench/load.py) for ``duration`` s in a thread; ``.result()``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["out"] = asyncio.run(load._clients(url, specs, duration, think, seed))
        except BaseException as err:  # noqa: BLE001 - handed to the test
            box["err"] = err

    th = threading.Thread(target=run, daemon=True)
    th.start()

    class Handle:
        started = time.time()

        def result(self, timeout: float = 120) -> dict[str, Any]:
            th.join(timeout)
            assert not th.is_alive(), "the clients did not finish"
            if "err" in box:
                raise box["err"]
            return dict(box["out"])

    return Handle()
