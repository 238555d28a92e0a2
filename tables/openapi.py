"""The OpenAPI 3 document of the HTTP API, served at /api/openapi.json (a test keeps it true)."""

from __future__ import annotations

from typing import Any

from .clock import PACES
from .kinds import ACTION_TYPES, DECKS, LEVELS


def _err(desc: str) -> dict[str, Any]:
    return {"description": desc,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _ok(desc: str, schema: str) -> dict[str, Any]:
    return {"description": desc,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
CSRF = {"name": "X-CSRFToken", "in": "header", "required": True, "schema": {"type": "string"}}


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
    doc["paths"].update({p: dict(ops) for p, ops in _extra_paths.items()})
    doc["components"]["schemas"].update(_extra_schemas)
    return doc


def _core_document() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Corazones", "version": "1.0.0",
                 "description": "The HTTP API of a Corazones table (docs/API.md)."},
        "paths": {
            "/api/csrf": {"get": {
                "summary": "A CSRF token for the X-CSRFToken header",
                "responses": {"200": {"description": "the token", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "csrf_token": {"type": "string"}}}}}}}}},
            "/api/openapi.json": {"get": {
                "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3 document"}}}},
            "/api/tables": {"post": {
                "summary": "ABRIR MESA: create a table; the caller holds seat 0",
                "parameters": [CSRF],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/NewTable"}}}},
                "responses": {"201": _ok("created", "Created"), "400": _err("bad input"),
                              "429": _err("rate limited")}}},
            "/api/tables/{table_id}": {"get": {
                "summary": "The table's state for this viewer (and the log since `since`)",
                "parameters": [TABLE_ID, {"name": "since", "in": "query", "required": False,
                                          "schema": {"type": "integer", "minimum": 0}}],
                "responses": {"200": _ok("state", "StateAndLog"), "400": _err("bad since"),
                              "404": _err("no such table")}}},
            "/api/tables/{table_id}/poll": {"get": {
                "summary": "Long-poll: waits for a version above `since`",
                "parameters": [TABLE_ID, {"name": "since", "in": "query", "required": True,
                                          "schema": {"type": "integer", "minimum": 0}}],
                "responses": {"200": _ok("state and the log entries after `since`; when nothing "
                                         "changed before the time-out, only `version` and an "
                                         "empty `log` (no `state`)", "StateAndLog"),
                              "400": _err("bad since"), "404": _err("no such table")}}},
            "/api/tables/{table_id}/actions": {"post": {
                "summary": "One action (humans; robots use the same path in the server)",
                "parameters": [TABLE_ID, CSRF],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Action"}}}},
                "responses": {"200": _ok("applied (or a retry of an applied action_id)",
                                         "StateAndLog"),
                              "400": _err("malformed"), "403": _err("not allowed for you"),
                              "404": _err("no such table"),
                              "409": _err("stale version, wrong phase, not your turn, ..."),
                              "429": _err("rate limited (chat)")}}},
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error", "message"], "properties": {
                "error": {"type": "string"}, "message": {"type": "string"},
                "state": {"type": "object"}}},
            "NewTable": {"type": "object", "required": ["host_name"], "properties": {
                "host_name": {"type": "string", "minLength": 1, "maxLength": 24},
                "action_id": {"type": "string", "minLength": 16, "maxLength": 64,
                              "description": "makes a retried creation harmless"},
                "name": {"type": "string", "maxLength": 60},
                "target": {"type": "integer", "enum": [100, 50]},
                "renege": {"type": "string", "enum": ["impedido", "permitido"]},
                "deck": {"type": "string", "enum": list(DECKS)},
                "robot_level": {"type": "string", "enum": list(LEVELS)},
                "pace": {"type": "string", "enum": list(PACES)},
                "rated": {"type": "boolean", "default": True,
                          "description": "true: con clasificación; false: amistosa"}}},
            "Created": {"type": "object", "properties": {
                "table_id": {"type": "string"}, "url": {"type": "string"},
                "state": {"type": "object"}}},
            "StateAndLog": {"type": "object", "properties": {
                "state": {"type": "object"},
                "version": {"type": "integer", "description": "a poll's time-out: the table's "
                            "version, nothing new"},
                "log": {"type": "array", "items": {"type": "object"}}}},
            "Action": {"type": "object", "required": ["type"], "properties": {
                "type": {"type": "string", "enum": list(ACTION_TYPES)},
                "action_id": {"type": "string", "maxLength": 64},
                "version": {"type": "integer"},
                "name": {"type": "string"}, "seat": {"type": "integer"},
                "cards": {"type": "array", "items": {"type": "string"}},
                "card": {"type": "string"}, "accused": {"type": "integer"},
                "text": {"type": "string", "maxLength": 300},
                "taunt_id": {"type": "string"},
                "robot_level": {"type": "string", "enum": list(LEVELS)},
                "deck": {"type": "string", "enum": list(DECKS)}}},
        }},
    }
