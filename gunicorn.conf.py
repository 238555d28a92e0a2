"""Production web processes: ``gunicorn -c gunicorn.conf.py`` (see README, «Producción»).

Several gevent workers serve the pages and the API. They run neither robots nor timed work:
robots play in ``flask robots`` processes (as many as wanted, on any machine), timed work in
exactly one ``flask scheduler`` process. Live updates cross processes through Redis
(``REDIS_URL``), the database is PostgreSQL (``DATABASE_URL``).

Every setting can be overridden from the environment (``GUNICORN_*`` below) or the command line.
"""

from __future__ import annotations

import os

# gevent: one event loop per worker holds every open page (a server-sent event stream or a
# long-poll is a greenlet of a few kilobytes, not a thread), and the database and Redis calls of
# the requests in flight wait on that loop. The standard library is patched here, before anything
# else is imported, so that every lock, socket and thread of the app (imported below, in the
# master, and inherited by the forked workers) is gevent's: a primitive made before the patch
# would block the whole worker, or let two greenlets of one thread into the same critical section.
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
if worker_class == "gevent":
    from gevent import monkey

    monkey.patch_all()

import signal  # noqa: E402

from gunicorn.glogging import Logger  # noqa: E402

from tables.guards import redact  # noqa: E402
from tables.lifecycle import die_with_parent, rank_session  # noqa: E402

# The web processes leave robots and timed work to their own processes.
os.environ.setdefault("ROBOT_WORKER", "off")
os.environ.setdefault("SCHEDULER", "off")

wsgi_app = "app:create_app()"
# GUNICORN_BIND, else PORT (a Procfile runner such as honcho gives each process one), else 8000.
bind = os.environ.get("GUNICORN_BIND") or f"127.0.0.1:{os.environ.get('PORT') or 8000}"
# Each worker opens its own listening socket (SO_REUSEPORT), the master none: a server started
# again while a worker of the previous one still finishes its requests binds at once instead of
# failing with «Connection in use».
reuse_port = True
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
# gevent (above): ``worker_connections`` bounds the open connections of a worker (pages holding
# a stream or a long-poll, and keep-alive connections). GUNICORN_WORKER_CLASS=gthread gives the
# former shape, where ``threads`` bounded the pages a worker kept live at once (each long-poll held
# a thread: past 2 x 200 pages every change waited for a poll's time-out, 18 s with 400 pages).
threads = int(os.environ.get("GUNICORN_THREADS", "200"))
worker_connections = int(os.environ.get("GUNICORN_CONNECTIONS", "10000"))
# Longer than a long-poll, so a waiting page is never taken for a stuck worker.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "10"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "30"))
backlog = 2048
# No preload: each worker builds its own app (database pool, Redis listener) after the fork.
preload_app = False
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
# When each answer was logged, method, path, status and the time spent (microseconds): the load
# benchmark reads the last four of the answers logged within its window.
access_log_format = os.environ.get("GUNICORN_ACCESSLOG_FORMAT",
                                   '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(D)s')
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "warning")
proc_name = "corazones-web"
# Behind a TLS proxy on the same machine: trust its X-Forwarded-* headers.
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")


# People wait on every request the web serves: its scheduling group (the master's session, which
# the workers share) comes before the robots', the scheduler's and anything else's on the machine
# (tables.lifecycle.rank_session; needs CAP_SYS_NICE, else nothing changes: docs/DEPLOY.md).
# GUNICORN_GROUP_NICE=0 leaves the group as it is.
_group_nice = int(os.environ.get("GUNICORN_GROUP_NICE", "-10"))


def on_starting(server):  # type: ignore[no-untyped-def]
    """In the master, before the workers are forked: they inherit its scheduling group."""
    if _group_nice and not rank_session(_group_nice):
        server.log.warning("the web's scheduling group stays as it is (rank_session needs a "
                           "session of its own and CAP_SYS_NICE; docs/DEPLOY.md)")


def post_fork(server, worker):  # type: ignore[no-untyped-def]
    """A web worker dies with its master. A worker left behind by a killed master would keep its
    listening socket, take a share of the new connections and serve none of them while it drains
    its long-polls; killed at once, its clients retry on the server started in its place."""
    # gunicorn's own loop already checks the parent every second: no watchdog thread.
    die_with_parent(worker.ppid, signal.SIGKILL, watchdog=False)


class RedactingLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger with seat-link tokens cut out of the access log (the route is kept)."""

    def atoms(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U", "q", "f"):
            if isinstance(atoms.get(key), str):
                atoms[key] = redact(atoms[key])
        return atoms


logger_class = RedactingLogger
