"""The OpenAPI 3 document of the HTTP API, served at /api/openapi.json.

It states what the server enforces: every request body's required fields, types, enums and bounds,
and every status an operation can answer. tests/tables/test_tables_schemathesis.py holds the
server to it with schemathesis (a schema-valid request must never get a 400 for its shape, a
schema-violating one must never be accepted, every answer must match its documented schema).
"""

from __future__ import annotations

import copy
from typing import Any

from .clock import PACES
from .kinds import (
    ACTION_ID_PATTERN,
    ACTION_TYPES,
    CHAT_MAX,
    DECKS,
    LEVELS,
    NAME_MAX,
    TABLE_NAME_MAX,
    TAUNTS,
    VERSION_MAX,
)

ERROR_REF = {"$ref": "#/components/schemas/Error"}

#: What every error answer of /api/ looks like: {"error": code, "message": Spanish text}.
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["error", "message"], "properties": {
        "error": {"type": "string", "description": "a stable code, e.g. bad_json, csrf"},
        "message": {"type": "string", "description": "what to tell the person, in Spanish"},
        "state": {"type": "object", "description": "the table as the caller sees it now "
                  "(some 400/409 answers of an action)"}}}

#: A database that cannot be reached answers 503 with Retry-After (tables/web.py).
RETRY_AFTER = {"Retry-After": {"required": True, "description": "seconds to wait",
                               "schema": {"type": "string", "pattern": "^[0-9]+$"}}}


def _err(desc: str) -> dict[str, Any]:
    return {"description": desc, "content": {"application/json": {"schema": ERROR_REF}}}


def _ok(desc: str, schema: str) -> dict[str, Any]:
    return {"description": desc,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
#: Every POST needs the token of GET /api/csrf, sent with the session cookie that came with it.
CSRF = {"name": "X-CSRFToken", "in": "header", "required": True,
        "description": "the csrf_token of GET /api/csrf (with its session cookie); "
                       "missing, wrong or from another session: 400 csrf",
        "schema": {"type": "string", "minLength": 1}}
#: The id a page gives itself: its stream leaves out the changes of its own actions.
_PAGE_ID = {"type": "string", "description": "8-64 of A-Z a-z 0-9 _ - (a page's random id); "
                                             "anything else is ignored"}
PAGE_PARAM = {"name": "page", "in": "query", "required": False, "schema": _PAGE_ID,
              "description": "this page's id: a change made alone by an action that carried "
                             "the same id (X-Page-Id) from this device is not sent (its answer "
                             "brought it); the next patch is from the last event sent"}
PAGE_HEADER = {"name": "X-Page-Id", "in": "header", "required": False, "schema": _PAGE_ID,
               "description": "the calling page's id (its stream's `page`)"}
#: ``since``: at most 12 ASCII digits; empty is the same as absent.
SINCE = {"type": "integer", "minimum": 0, "maximum": 10**12 - 1}
#: One server-sent event as parsed from the stream (OpenAPI 3.0: a text/event-stream ``schema``
#: describes each event): ``hello`` carries the current version, ``state`` carries JSON (the
#: long-poll's answer) under the id of its version, ``patch`` (with ``?patch=1``) what changed
#: since the stream's previous event; heartbeat comments are not events.
STREAM_EVENT = {
    "type": "object", "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["hello", "state", "patch"]},
        "data": {"type": "string", "description": "hello: the version; state: StateAndLog "
                                                   "as JSON; patch: {base, version, patch, log} "
                                                   "as JSON, where patch turns the state of "
                                                   "version base (the stream's previous event) "
                                                   "into this version's (tables/patches.py)"},
        "id": {"type": "string", "pattern": "^[0-9]{1,12}$"},
        "retry": {"type": "integer", "minimum": 0}}}

#: A person's name: 1..24 characters once runs of white space are one space, no control or
#: format characters. The server also refuses (400 bad_name) names that read as blank, as a
#: robot's, or as another seated name (look-alike letters included): rules no schema states.
NAME = {"type": "string", "minLength": 1, "maxLength": NAME_MAX, "pattern": r"\S",
        "description": "1-24 characters after white space is collapsed; no control characters; "
                       "not blank, robot-like or confusable with another seat's name "
                       "(400 bad_name)"}
SEAT = {"type": "integer", "minimum": 0, "maximum": 3}
#: A card as the rules name it: rank 2-9 T J Q K A, suit C D H S (either case).
CARD_PATTERN = r"^[2-9TJQKAtjqka][CDHScdhs]$"
PASS_CARDS = {"type": "array", "minItems": 3, "maxItems": 3,
              "items": {"type": "string", "pattern": CARD_PATTERN}}
#: Every action carries these (the server checks them before the type's own fields).
ACTION_COMMON: dict[str, Any] = {
    "action_id": {"type": "string", "minLength": 1, "maxLength": 64, "nullable": True,
                  "pattern": ACTION_ID_PATTERN,
                  "description": "visible ASCII characters (a UUID); makes a retry harmless; "
                                 "another device or body with the same id: 409 "
                                 "action_id_reused"},
    "version": {"type": "integer", "format": "int32", "nullable": True,
                "minimum": 0, "maximum": VERSION_MAX,
                "description": "the table version the decision was made on (409 stale)"},
}
#: Each action type's own fields (required ones first in ``_ACTION_REQUIRED``).
ACTION_FIELDS: dict[str, dict[str, Any]] = {
    "sit": {"name": NAME},
    "add_robot": {"seat": SEAT}, "remove_robot": {"seat": SEAT},
    "reissue_link": {"seat": SEAT}, "standin": {"seat": SEAT},
    "start": {}, "leave": {}, "close_count": {}, "rematch": {}, "come_back": {},
    "choose_pass": {"cards": PASS_CARDS},
    "confirm_pass": {"cards": {**PASS_CARDS, "nullable": True}},
    "play": {"card": {"type": "string", "pattern": r"^(10|[2-9TJQKAtjqka])[CDHScdhs]$",
                      "maxLength": 3, "description": "e.g. QS, 10H (TH)"}},
    "accuse": {"accused": SEAT},
    "chat": {"text": {"type": "string", "minLength": 1, "maxLength": CHAT_MAX, "pattern": r"\S",
                      "description": "1-300 characters once trimmed; no control characters "
                                     "but line breaks"}},
    "taunt": {"taunt_id": {"type": "string", "enum": [t["id"] for t in TAUNTS]}},
    "set_level": {"robot_level": {"type": "string", "enum": list(LEVELS)}},
    "set_deck": {"deck": {"type": "string", "enum": list(DECKS)}},
    "deal_seed": {
        "game": {"type": "integer", "format": "int32", "minimum": 1, "maximum": VERSION_MAX,
                 "description": "`fair_deal.next.game`"},
        "hand": {"type": "integer", "format": "int32", "minimum": 1, "maximum": VERSION_MAX,
                 "description": "`fair_deal.next.hand`"},
        "seed": {"type": "string", "pattern": "^[0-9a-f]{64}$", "minLength": 64,
                 "maxLength": 64, "description": "the page's 32 random bytes, lowercase hex; "
                 "kept private until the hand's count closes (docs/FAIR_DEAL.md)"}},
}
_ACTION_REQUIRED = {"sit": ["name"], "add_robot": ["seat"], "remove_robot": ["seat"],
                    "reissue_link": ["seat"], "standin": ["seat"], "choose_pass": ["cards"],
                    "play": ["card"], "accuse": ["accused"], "chat": ["text"],
                    "taunt": ["taunt_id"], "set_level": ["robot_level"], "set_deck": ["deck"],
                    "deal_seed": ["game", "hand", "seed"]}
assert set(ACTION_FIELDS) == set(ACTION_TYPES)


def _action_schemas() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for kind in ACTION_TYPES:
        out[f"Action_{kind}"] = {
            "type": "object", "required": ["type", *_ACTION_REQUIRED.get(kind, [])],
            "properties": {"type": {"type": "string", "enum": [kind]}, **ACTION_COMMON,
                           **ACTION_FIELDS[kind]}}
    out["Action"] = {
        "oneOf": [{"$ref": f"#/components/schemas/Action_{k}"} for k in ACTION_TYPES],
        "discriminator": {"propertyName": "type", "mapping": {
            k: f"#/components/schemas/Action_{k}" for k in ACTION_TYPES}}}
    return out


#: Paths other parts of the service document themselves (push, the hint).
_extra_paths: dict[str, dict[str, Any]] = {}
_extra_schemas: dict[str, dict[str, Any]] = {}


def register_paths(
    paths: dict[str, dict[str, Any]], schemas: dict[str, dict[str, Any]] | None = None
) -> None:
    """Add OpenAPI path items (``{"/api/...": {"get": {...}}}``) and component schemas."""
    for path, ops in paths.items():
        _extra_paths.setdefault(path, {}).update(ops)
    _extra_schemas.update(schemas or {})


def openapi_document() -> dict[str, Any]:
    doc = _core_document()
    for path, ops in _extra_paths.items():
        doc["paths"].setdefault(path, {}).update(copy.deepcopy(ops))
    doc["components"]["schemas"].update(copy.deepcopy(_extra_schemas))
    for path, item in doc["paths"].items():
        for method, op in item.items():
            _common_answers(path, method, op)
    return doc


def _common_answers(path: str, method: str, op: dict[str, Any]) -> None:
    """What every operation of a kind can answer, whoever documented it:

    - every POST: the X-CSRFToken header (400 csrf without it) and 413 past 64 KiB;
    - every operation that reads the database: 503 with Retry-After when it cannot be reached;
    - every error answer is the Error object."""
    responses = op.setdefault("responses", {})
    if method == "post":
        params = op.setdefault("parameters", [])
        if not any(p.get("name") == CSRF["name"] for p in params):
            params.append(dict(CSRF))
        responses.setdefault("400", _err("bad input (csrf: the X-CSRFToken header is "
                                         "missing or not this session's)"))
        responses.setdefault("413", _err("the body is larger than 64 KiB"))
    if path.startswith("/api/tables"):
        responses.setdefault("503", {**_err("the database cannot be reached now: nothing "
                                            "changed, retry"), "headers": dict(RETRY_AFTER)})
    for status, answer in responses.items():
        if status[0] in "45" and "content" not in answer:
            answer["content"] = {"application/json": {"schema": ERROR_REF}}


def _core_document() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Corazones", "version": "1.0.0",
                 "description": "The HTTP API of a Corazones table (docs/API.md). Every POST "
                                "needs the X-CSRFToken header from GET /api/csrf together with "
                                "that answer's session cookie. A device is the corazones_device "
                                "cookie, made by the first request that needs one."},
        "paths": {
            "/api/csrf": {"get": {
                "summary": "A CSRF token for the X-CSRFToken header",
                "responses": {"200": {"description": "the token (and the session cookie)",
                                      "content": {"application/json": {"schema": {
                                          "type": "object", "required": ["csrf_token"],
                                          "properties": {"csrf_token": {"type": "string"}}}}}}}}},
            "/api/openapi.json": {"get": {
                "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3 document", "content": {
                    "application/json": {"schema": {"type": "object",
                                                    "required": ["openapi", "paths"]}}}}}}},
            "/api/tables": {"post": {
                "summary": "ABRIR MESA: create a table; the caller holds seat 0",
                "parameters": [CSRF],
                "requestBody": _body({"$ref": "#/components/schemas/NewTable"}),
                "responses": {"201": _ok("created (or a retry of the same action_id: the "
                                         "same table)", "Created"),
                              "400": _err("bad input: bad_json, bad_name, bad_target, "
                                          "bad_renege, bad_deck, bad_level, bad_pace, csrf"),
                              "413": _err("the body is larger than 64 KiB"),
                              "429": _err("too many tables from this address")}}},
            "/api/tables/{table_id}": {"get": {
                "summary": "The table's state for this viewer (and the log since `since`)",
                "parameters": [TABLE_ID, {"name": "since", "in": "query", "required": False,
                                          "allowEmptyValue": True, "schema": SINCE}],
                "responses": {"200": _ok("state (and `log` when `since` is given)",
                                         "StateAndLog"),
                              "400": _err("bad_since: not 1-12 ASCII digits"),
                              "404": _err("no such table")}}},
            "/api/tables/{table_id}/poll": {"get": {
                "summary": "Long-poll: waits for a version above `since` (absent: 0)",
                "parameters": [TABLE_ID, {"name": "since", "in": "query", "required": False,
                                          "allowEmptyValue": True, "schema": SINCE}],
                "responses": {"200": _ok("state and the log entries after `since`; when nothing "
                                         "changed before the time-out, only `version` and an "
                                         "empty `log` (no `state`)", "StateAndLog"),
                              "400": _err("bad_since: not 1-12 ASCII digits"),
                              "404": _err("no such table")}}},
            "/api/tables/{table_id}/stream": {"get": {
                "summary": "Server-sent events: `hello` (the current version), then one `state` "
                           "event (id = version, data = state and log after the previous one) "
                           "per change, `: ping` comments as heartbeat; the answer ends after "
                           "STREAM_MAX s and the page reconnects with Last-Event-ID; with "
                           "`patch=1`, every event after the first is a `patch`",
                "parameters": [TABLE_ID, {"name": "since", "in": "query", "required": False,
                                          "allowEmptyValue": True, "schema": SINCE},
                               {"name": "patch", "in": "query", "required": False,
                                "description": "1: the events after the first carry only what "
                                               "changed; anything else: whole states",
                                "schema": {"type": "string"}},
                               PAGE_PARAM],
                "responses": {"200": {"description": "an event stream",
                                      "content": {"text/event-stream": {
                                          "schema": STREAM_EVENT}}},
                              "400": _err("bad_since: not 1-12 ASCII digits"),
                              "404": _err("no such table")}}},
            "/api/tables/{table_id}/actions": {"post": {
                "summary": "One action (humans; robots use the same path in the server)",
                "parameters": [TABLE_ID, CSRF, PAGE_HEADER],
                "requestBody": _body({"$ref": "#/components/schemas/Action"}),
                "responses": {"200": _ok("applied (or a retry of an applied action_id)",
                                         "StateAndLog"),
                              "400": _err("malformed: bad_json, bad_action, bad_action_id, "
                                          "bad_version, bad_name, bad_seat, bad_pass, "
                                          "bad_card, bad_chat, chat_too_long, bad_taunt, "
                                          "bad_level, bad_deck, csrf"),
                              "403": _err("not allowed for you: not_host, not_seated, "
                                          "no_device, not_winner"),
                              "404": _err("no such table"),
                              "409": _err("stale version, wrong phase, not your turn, "
                                          "table full, action_id_reused, ..."),
                              "413": _err("the body is larger than 64 KiB"),
                              "429": _err("too many chat lines, taunts or deck changes, "
                                          "or too much lobby churn")}}},
        },
        "components": {"schemas": {
            "Error": ERROR_SCHEMA,
            "NewTable": {"type": "object", "required": ["host_name"], "properties": {
                "host_name": NAME,
                "action_id": {"description": "a string of 16-64 visible ASCII characters "
                                             "makes a retried creation answer the table it "
                                             "made; any other value is ignored"},
                "name": {"type": "string", "maxLength": TABLE_NAME_MAX, "nullable": True,
                         "pattern": r"^$|\S",
                         "description": "the table's name (1-60 characters, the rules of a "
                                        "person's name); absent, null or empty: «Mesa de …»"},
                "target": {"type": "integer", "enum": [100, 50]},
                "renege": {"type": "string", "enum": ["impedido", "permitido"]},
                "deck": {"type": "string", "enum": list(DECKS)},
                "robot_level": {"type": "string", "enum": list(LEVELS)},
                "pace": {"type": "string", "enum": [*PACES, "", None], "nullable": True,
                         "description": "absent, null or empty: sin_reloj"},
                "rated": {"type": "boolean", "default": True,
                          "description": "true: con clasificación; false: amistosa"}}},
            "Created": {"type": "object", "required": ["table_id", "url", "state"],
                        "properties": {"table_id": {"type": "string"},
                                       "url": {"type": "string"},
                                       "state": {"type": "object"}}},
            "StateAndLog": {"type": "object", "properties": {
                "state": {"type": "object"},
                "version": {"type": "integer", "description": "a poll's time-out: the table's "
                            "version, nothing new"},
                "log": {"type": "array", "items": {"type": "object"}}}},
            **_action_schemas(),
        }},
    }
