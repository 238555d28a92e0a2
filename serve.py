"""``python -m serve --port 5001``: a threaded server for tests and quick local runs.

Production runs gunicorn with gevent workers (gunicorn.conf.py); this is the same app with
Werkzeug's threaded server (a server-sent event stream holds one of its threads).
"""

from __future__ import annotations

import argparse

from werkzeug.serving import run_simple


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    from app import create_app

    app = create_app()
    run_simple(args.host, args.port, app, threaded=True, use_reloader=False)


if __name__ == "__main__":
    main()
