"""``make serve``: the production shape on this machine, the Procfile run by honcho.

Prepares what runs once (the PostgreSQL database made if missing, ``flask setup``), then *becomes*
``honcho start``: honcho starts each Procfile line in a process group of its own, shows their
output, stops them all on Ctrl-C or SIGTERM, and stops them all as soon as one ends (so a start
that fails, or a process that dies, leaves nothing behind).

Environment: DATABASE_URL (default: PostgreSQL database ``corazones`` on 127.0.0.1), REDIS_URL,
PORT (8000), GUNICORN_WORKERS, ROBOT_PROCESSES (robot processes, 1), and everything app.py and
gunicorn.conf.py read. A ``.env`` file next to the Procfile is read by honcho (its values win).
"""

from __future__ import annotations

import os
import shutil

from deploy.stack import BIN, PROCFILE, REDIS_URL, ROOT, SERVE_DATABASE_URL, prepare


def honcho_argv(port: int, robots: int) -> list[str]:
    honcho = str(BIN / "honcho") if (BIN / "honcho").exists() else shutil.which("honcho")
    if honcho is None:
        raise SystemExit("honcho is missing: pip install honcho (make venv installs it)")
    return [honcho, "--procfile", str(PROCFILE), "--app-root", str(ROOT), "start",
            "--port", str(port), "--concurrency", f"robots={robots}"]


def main() -> None:
    env = os.environ
    env.setdefault("DATABASE_URL", SERVE_DATABASE_URL)
    env.setdefault("REDIS_URL", REDIS_URL)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("PYTHONUNBUFFERED", "1")
    port = int(env.get("PORT") or 8000)
    robots = int(env.get("ROBOT_PROCESSES") or 1)
    argv = honcho_argv(port, robots)
    prepare(dict(env))
    print(f"Corazones: http://127.0.0.1:{port} ({env['DATABASE_URL'].split('@')[-1]}); "
          "Ctrl-C stops every process", flush=True)
    os.chdir(ROOT)
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
