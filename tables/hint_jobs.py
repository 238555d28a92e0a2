"""La Pista computed in the robot processes, not in the web process that answers it.

The hint route hands the seat's view over and waits a few seconds for the answer:

- a process that runs a robot worker (development, ``ROBOT_WORKER=thread``) gives it to its
  worker's hint thread;
- a web process that runs none puts a job on a Redis list; every ``flask robots`` process takes
  jobs first-come (a job past its deadline is dropped unanswered) and pushes the answer to the
  job's own reply key, which the web process waits on. No robot process answering in time:
  ``503 hint_late``, and nothing was computed in the web process;
- with neither a worker nor Redis (a bare development set-up), or with Redis down, no robot
  process can be reached, and the hint is computed in place, as before.

Whatever runs it, the hint is ``robots.hint(view)``: what Difícil would do, from that view only.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import redis
from flask import Flask, current_app

import robots

from . import live

QUEUE = "corazones:hints"
#: Seconds a reply waits in Redis for the web process that asked (it is gone by then).
REPLY_TTL = 30


def queue_key(app: Flask) -> str:
    """One hint list per database (tests and deployments sharing a Redis do not mix)."""
    url = str(app.config.get("SQLALCHEMY_DATABASE_URI", ""))
    return f"{QUEUE}:{hashlib.sha256(url.encode()).hexdigest()[:16]}"


def compute_hint(view: dict[str, Any]) -> dict[str, Any]:
    """``robots.hint(view)`` computed in this process."""
    return dict(robots.hint(view))


class HintServer:
    """A robot process's side: one thread takes hints, in the order they were asked, and has
    ``compute`` answer each (the robot worker's: in its search processes when it has any)."""

    def __init__(self, app: Flask,
                 compute: Callable[[dict[str, Any]], dict[str, Any]] = compute_hint) -> None:
        self.app = app
        self.compute = compute
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="corazones-hint")

    def submit(self, view: dict[str, Any]) -> Future[dict[str, Any]]:
        return self.pool.submit(self.compute, view)

    def serve_redis(self, url: str, stopping: Any) -> None:
        """Take hint jobs from Redis until ``stopping.is_set()``; answer each on its reply key."""
        key = queue_key(self.app)
        while not stopping.is_set():
            try:
                client = redis.Redis.from_url(url)
                while not stopping.is_set():
                    item = client.blpop([key], timeout=1)
                    if not item:
                        continue
                    job = json.loads(item[1])
                    if float(job.get("deadline", 0)) < time.time():
                        continue  # whoever asked has stopped waiting
                    try:
                        answer: dict[str, Any] = {"ok": self.compute(job["view"])}
                    except ValueError as err:
                        answer = {"error": str(err)}
                    reply = f"{key}:reply:{job['id']}"
                    pipe = client.pipeline(transaction=False)
                    pipe.rpush(reply, json.dumps(answer))
                    pipe.expire(reply, REPLY_TTL)
                    pipe.execute()
            except Exception:
                time.sleep(1.0)

    def stop(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def ask(view: dict[str, Any]) -> dict[str, Any]:
    """La Pista for ``view``, computed by a robot process. TimeoutError when none answered in
    ``HINT_TIMEOUT`` seconds; ValueError when the view has nothing to decide."""
    timeout = float(current_app.config.get("HINT_TIMEOUT", 8.0))
    worker = current_app.extensions.get("corazones_robots")
    server: HintServer | None = getattr(worker, "hints", None)
    if server is not None:
        return server.submit(view).result(timeout=timeout)
    if live._redis is None:
        return compute_hint(view)  # no robot process can be reached: compute it here
    key = queue_key(current_app)
    job_id = secrets.token_hex(12)
    reply = f"{key}:reply:{job_id}"
    job = {"id": job_id, "view": view, "deadline": time.time() + timeout}
    try:
        live._redis.rpush(key, json.dumps(job))
        item = live._redis.blpop([reply], timeout=max(1, math.ceil(timeout)))
    except redis.RedisError:  # Redis is down: no robot process can be reached either
        current_app.logger.warning("hint: Redis unreachable, computing the hint in place")
        return compute_hint(view)
    if not item:
        raise TimeoutError("no robot process answered the hint")
    answer = json.loads(item[1])
    if "error" in answer:
        raise ValueError(answer["error"])
    return dict(answer["ok"])


__all__ = ["HintServer", "ask", "queue_key"]
