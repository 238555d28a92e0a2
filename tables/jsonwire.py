"""JSON in and out of the service through orjson: the answers, the streams' events, the changes
passed between processes and the database's JSON columns (tables/db.py's engine options).

Every action is serialized several times (its answer, each open page's event, the change that
rides with its notice to the other processes) and read again in each of them; the standard
library's encoder took about 55 µs for a whole state where orjson takes 9 (docs/RELIABILITY_RUNS.md,
run Y). The text is the same as ``json.dumps(obj, separators=(",", ":"), ensure_ascii=False)``
(sorted keys for Flask's answers, as Flask sorts them); a value orjson refuses (an integer past 64
bits) falls back to the standard library, so nothing that serialized before fails now.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

_COMPACT = (",", ":")
_OPTIONS = orjson.OPT_NON_STR_KEYS
# Flask's own rules for dates (HTTP dates) and dataclasses stay: orjson hands them to ``default``.
_FLASK_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
                  | orjson.OPT_PASSTHROUGH_DATACLASS)


def dumps(obj: Any) -> str:
    """Compact JSON text, keys in their order, UTF-8 characters as they are."""
    try:
        return orjson.dumps(obj, option=_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError: e.g. an integer past 64 bits
        return json.dumps(obj, separators=_COMPACT, ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON provider with orjson for what the service answers: sorted keys and compact
    separators as Flask's, UTF-8 characters instead of ``\\u`` escapes. Calls with other
    arguments (``indent`` in debug mode) take Flask's own path."""

    ensure_ascii = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs.keys() <= {"separators"} and kwargs.get("separators", _COMPACT) == _COMPACT:
            try:
                return orjson.dumps(obj, default=self.default, option=_FLASK_OPTIONS).decode()
            except TypeError:
                pass
        return super().dumps(obj, **kwargs)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if kwargs:
            return super().loads(s, **kwargs)
        return orjson.loads(s)


__all__ = ["JSONProvider", "dumps", "loads"]
