"""Static files under content-hashed URLs, and compressed responses.

Pages name their CSS, scripts and icons through ``asset_url('js/table.js')``, which gives
``/static/v/<digest>/js/table.js``. The digest is a hash of every file under the static folder,
so the whole tree moves to a new URL when any file changes; relative module imports
(``import ... from './api.js'``) and ``new URL('../css/x.css', import.meta.url)`` stay inside the
same version. Such a URL is served with a year-long ``immutable`` cache: a repeat visit asks the
server for nothing but the page and its state. A URL with an older digest (a page loaded before a
deploy) still gets the current file, but ``no-cache``, so no browser keeps it under the wrong name.

The plain ``/static/<file>`` route stays as Flask serves it (revalidated on every use): the service
worker's icons, the manifest's icons and the preview page use it.

Compression is Flask-Compress (zstd, brotli or gzip as the browser accepts): pages, JSON, CSS,
scripts, SVG (a static file is small: compressing it per request costs about a millisecond).
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
import threading
from pathlib import Path

from flask import Flask, Response, abort, request, url_for
from flask_compress import Compress
from werkzeug.security import safe_join

ENDPOINT = "assets"
#: One year: the URL changes whenever the content does.
IMMUTABLE = "public, max-age=31536000, immutable"

compress = Compress()


class _Digest:
    """The static tree's content hash, recomputed only when a file's size or time changed."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._stamp: tuple[tuple[str, int, int], ...] = ()
        self._value = ""

    def _files(self) -> list[Path]:
        root = Path(self.folder)
        return sorted(p for p in root.rglob("*") if p.is_file())

    def value(self) -> str:
        files = self._files()
        stamp = tuple((str(p), st.st_size, st.st_mtime_ns) for p in files
                      for st in (p.stat(),))
        with self._lock:
            if stamp != self._stamp:
                h = hashlib.sha256()
                root = Path(self.folder)
                for p in files:
                    h.update(str(p.relative_to(root)).encode() + b"\0")
                    h.update(p.read_bytes())
                self._value = h.hexdigest()[:12]
                self._stamp = stamp
            return self._value


def init_assets(app: Flask) -> None:
    """Register the versioned static route, ``asset_url`` for templates, and compression."""
    folder = app.static_folder
    if folder is None:  # pragma: no cover - this app always has one
        raise RuntimeError("the app has no static folder")
    digest = _Digest(folder)
    # In production the tree does not change: hash it once. While developing, follow edits.
    fixed: str | None = None if app.debug else digest.value()

    def current() -> str:
        return fixed if fixed is not None else digest.value()

    def asset_url(filename: str) -> str:
        return url_for(ENDPOINT, version=current(), filename=filename)

    def serve(version: str, filename: str) -> Response:
        path = safe_join(folder, filename)
        if path is None or not os.path.isfile(path):
            abort(404)
        with open(path, "rb") as f:
            data = f.read()
        mimetype = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        text = mimetype.startswith("text/") or mimetype in ("application/javascript",
                                                            "image/svg+xml")
        resp = Response(data, content_type=f"{mimetype}; charset=utf-8" if text else mimetype)
        if version == current():
            resp.headers["Cache-Control"] = IMMUTABLE
        else:
            # Not the content this name promised: serve it, never keep it.
            resp.headers["Cache-Control"] = "no-cache"
            resp.add_etag()
            resp.make_conditional(request)
        return resp

    app.add_url_rule("/static/v/<version>/<path:filename>", ENDPOINT, serve)
    app.jinja_env.globals["asset_url"] = asset_url
    app.extensions["corazones_asset_version"] = current

    compress.init_app(app)


__all__ = ["ENDPOINT", "IMMUTABLE", "compress", "init_assets"]
