"""HTTP for «Te toca»: the service worker and manifest at the root, subscribe / unsubscribe,
page visibility and the host's reminder delay (docs/API.md, «Avisos»)."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, send_from_directory
from sqlalchemy import delete, select, update

from .. import errors, players
from ..db import db, write_transaction
from ..errors import ServiceError
from ..guards import json_object, refused
from ..identity import current_device_id
from ..kinds import SeatKind
from ..models import (
    DEFAULT_REMINDER_MINUTES,
    ENDPOINT_MAX,
    PushSubscription,
    PushTable,
    PushTurn,
    Seat,
    Table,
    utcnow,
)
from .delivery import REMINDER_CHOICES_HOURS
from .net import PUSH_HOSTS, endpoint_ok, normalize_hosts
from .vapid import b64url_decode

bp = Blueprint("push", __name__)

PRESENCE_SECONDS = 45


def _static(name: str, mimetype: str) -> Response:
    folder = current_app.static_folder
    assert folder is not None
    resp = send_from_directory(folder, name, mimetype=mimetype, max_age=0)
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/sw.js")
def service_worker() -> Response:
    resp = _static("sw.js", "text/javascript")
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    return _static("manifest.webmanifest", "application/manifest+json")


@bp.get("/t/<table_id>/manifest.webmanifest")
def table_manifest(table_id: str) -> Response | tuple[str, int]:
    """The manifest as seen from a table page: added to the home screen, the app opens this
    table (notify.js points the page's manifest link here)."""
    table = db.session.get(Table, table_id)
    if table is None:
        return "", 404
    folder = current_app.static_folder
    assert folder is not None
    with open(os.path.join(folder, "manifest.webmanifest"), encoding="utf-8") as f:
        doc = json.load(f)
    doc.update({"id": f"/t/{table_id}", "start_url": f"/t/{table_id}",
                "name": f"Corazones · {table.name}"})
    db.session.rollback()
    resp = current_app.response_class(json.dumps(doc, ensure_ascii=False),
                                      mimetype="application/manifest+json")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Robots-Tag"] = "noindex"
    return resp






def _my_seat(table_id: str) -> tuple[Table, Seat | None, int | None]:
    table = db.session.get(Table, table_id)
    if table is None:
        raise errors.NOT_FOUND.error()
    device_id = current_device_id()
    seat = None
    if device_id is not None:
        seat = db.session.execute(
            select(Seat).where(Seat.table_id == table_id, Seat.device_id == device_id,
                               Seat.kind == SeatKind.HUMAN, Seat.left.is_(False))
        ).scalars().first()
    return table, seat, device_id


def _status(table: Table, seat: Seat | None, device_id: int | None) -> dict[str, Any]:
    row = db.session.get(PushTable, table.id)
    minutes = row.reminder_minutes if row is not None else DEFAULT_REMINDER_MINUTES
    subscribed = False
    if seat is not None:
        subscribed = db.session.execute(
            select(PushSubscription.id).where(PushSubscription.table_id == table.id,
                                              PushSubscription.device_id == device_id)
        ).first() is not None
    return {
        "public_key": current_app.config.get("VAPID_PUBLIC_KEY", ""),
        "seat": seat.seat if seat is not None else None,
        "subscribed": subscribed,
        "reminder_hours": minutes / 60,
        "reminder_choices": list(REMINDER_CHOICES_HOURS),
        "is_host": device_id is not None and device_id == table.host_device_id,
    }


@bp.get("/api/push/key")
def api_key() -> Response:
    return jsonify({"public_key": current_app.config.get("VAPID_PUBLIC_KEY", "")})


@bp.get("/api/tables/<table_id>/push")
def api_status(table_id: str) -> Response | tuple[Response, int]:
    try:
        table, seat, device_id = _my_seat(table_id)
        out = _status(table, seat, device_id)
    except ServiceError as err:
        return refused(err)
    db.session.rollback()
    return jsonify(out)


def _subscription(body: dict[str, Any]) -> tuple[str, str, str]:
    sub = body.get("subscription")
    bad = errors.BAD_SUBSCRIPTION.error()
    if not isinstance(sub, dict) or not isinstance(sub.get("keys"), dict):
        raise bad
    endpoint, keys = sub.get("endpoint"), sub["keys"]
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    extra = normalize_hosts(str(current_app.config.get("PUSH_ENDPOINT_HOSTS", "")))
    if not endpoint_ok(endpoint, bool(current_app.config.get("PUSH_INSECURE_ENDPOINTS")), extra):
        raise errors.BAD_PUSH_ENDPOINT.error()
    if not isinstance(p256dh, str) or not isinstance(auth, str) \
            or len(p256dh) > 200 or len(auth) > 100:
        raise bad
    try:
        point, secret = b64url_decode(p256dh), b64url_decode(auth)
    except ValueError:
        raise bad from None
    if len(point) != 65 or point[0] != 4 or len(secret) != 16:
        raise bad
    return str(endpoint), p256dh, auth


@bp.post("/api/tables/<table_id>/push")
def api_subscribe(table_id: str) -> Response | tuple[Response, int]:
    """Subscribe this device's seat (the page calls it after the tap that granted permission)."""
    try:
        endpoint, p256dh, auth = _subscription(json_object())
        table, seat, device_id = _my_seat(table_id)
        if seat is None or device_id is None:
            raise errors.NOT_SEATED_FOR_PUSH.error()
        # One permission serves every table: the subscription is the device's, given to each
        # of its seats (this one included) and to the seats it takes later (tables/players.py).
        players.subscribe_device(device_id, endpoint, p256dh, auth)
        with write_transaction():
            db.session.execute(
                update(PushSubscription)
                .where(PushSubscription.table_id == table_id,
                       PushSubscription.device_id == device_id)
                .values(visible_until=utcnow() + timedelta(seconds=PRESENCE_SECONDS))
                .execution_options(synchronize_session=False))
        out = _status(table, seat, device_id)
    except ServiceError as err:
        return refused(err)
    db.session.rollback()
    return jsonify(out)


@bp.post("/api/tables/<table_id>/push/off")
def api_unsubscribe(table_id: str) -> Response | tuple[Response, int]:
    """Turn this device's notices for the table off (the menu's toggle)."""
    try:
        table, seat, device_id = _my_seat(table_id)
        if device_id is not None:
            with write_transaction():
                db.session.execute(delete(PushSubscription).where(
                    PushSubscription.table_id == table_id,
                    PushSubscription.device_id == device_id))
        out = _status(table, seat, device_id)
    except ServiceError as err:
        return refused(err)
    db.session.rollback()
    return jsonify(out)


@bp.post("/api/tables/<table_id>/push/presence")
def api_presence(table_id: str) -> Response | tuple[Response, int]:
    """The page is open and visible (a heartbeat) or not any more: no push while it is."""
    try:
        visible = json_object().get("visible")
        if not isinstance(visible, bool):
            raise errors.BAD_PRESENCE.error()
        device_id = current_device_id()
        if db.session.get(Table, table_id) is None:
            raise errors.NOT_FOUND.error()
        until = utcnow() + timedelta(seconds=PRESENCE_SECONDS) if visible else None
        if device_id is not None:
            with write_transaction():
                db.session.execute(
                    update(PushSubscription)
                    .where(PushSubscription.table_id == table_id,
                           PushSubscription.device_id == device_id)
                    .values(visible_until=until).execution_options(synchronize_session=False))
    except ServiceError as err:
        return refused(err)
    return jsonify({"visible": visible, "seconds": PRESENCE_SECONDS})


@bp.post("/api/tables/<table_id>/push/settings")
def api_settings(table_id: str) -> Response | tuple[Response, int]:
    """The host sets the reminder's delay (hours, one of ``reminder_choices``)."""
    try:
        hours = json_object().get("reminder_hours")
        table, seat, device_id = _my_seat(table_id)
        if device_id is None or device_id != table.host_device_id:
            raise errors.NOT_HOST.error()
        if isinstance(hours, bool) or hours not in REMINDER_CHOICES_HOURS:
            raise errors.BAD_REMINDER.error()
        minutes = int(hours) * 60
        with write_transaction():
            row = db.session.get(PushTable, table_id)
            if row is None:
                db.session.add(PushTable(table_id=table_id, reminder_minutes=minutes))
            else:
                row.reminder_minutes = minutes
            # Reminders not sent yet follow the new delay.
            for turn in db.session.execute(select(PushTurn).where(
                    PushTurn.table_id == table_id, PushTurn.reminded_at.is_(None))).scalars():
                turn.remind_at = turn.created_at + timedelta(minutes=minutes)
        out = _status(table, seat, device_id)
    except ServiceError as err:
        return refused(err)
    db.session.rollback()
    return jsonify(out)


def _device_status(device_id: int | None) -> dict[str, Any]:
    return {"public_key": current_app.config.get("VAPID_PUBLIC_KEY", ""),
            "subscribed": players.device_subscribed(device_id)}


@bp.get("/api/push/device")
def api_device_status() -> Response:
    """Whether this device gets «Te toca» notices (for every table where it sits)."""
    return jsonify(_device_status(current_device_id()))


@bp.post("/api/push/device")
def api_device_subscribe() -> Response | tuple[Response, int]:
    """Subscribe this device once: every seat it holds now and every seat it takes later."""
    try:
        endpoint, p256dh, auth = _subscription(json_object())
        device_id = current_device_id()
        if device_id is None:
            raise errors.NOT_SEATED_ANYWHERE.error()
        players.subscribe_device(device_id, endpoint, p256dh, auth)
    except ServiceError as err:
        return refused(err)
    return jsonify(_device_status(device_id))


@bp.post("/api/push/device/off")
def api_device_unsubscribe() -> Response:
    """No notices on this device, at any table."""
    device_id = current_device_id()
    if device_id is not None:
        players.unsubscribe_device(device_id)
    return jsonify(_device_status(device_id))


def openapi_paths() -> dict[str, Any]:
    """This blueprint's part of /api/openapi.json (tables/openapi.py merges it in and adds what
    every POST shares: the X-CSRFToken header, 400 csrf, 413, 503)."""
    tid = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
    csrf = {"name": "X-CSRFToken", "in": "header", "required": True,
            "schema": {"type": "string", "minLength": 1}}

    def err(desc: str) -> dict[str, Any]:
        return {"description": desc, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}}

    status = {"description": "this device's notices at the table", "content": {
        "application/json": {"schema": {"type": "object", "required": [
            "public_key", "seat", "subscribed", "reminder_hours", "reminder_choices", "is_host"],
            "properties": {
                "public_key": {"type": "string"},
                "seat": {"type": "integer", "minimum": 0, "maximum": 3, "nullable": True},
                "subscribed": {"type": "boolean"}, "reminder_hours": {"type": "number"},
                "reminder_choices": {"type": "array", "items": {"type": "integer"}},
                "is_host": {"type": "boolean"}}}}}}

    def body(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
        return {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": required, "properties": props}}}}

    # What the server accepts (_subscription): https on a known push service (or, by
    # configuration, PUSH_ENDPOINT_HOSTS / PUSH_INSECURE_ENDPOINTS), at most ENDPOINT_MAX
    # characters; p256dh an uncompressed P-256 point (65 bytes from 0x04), auth 16 bytes, both
    # base64url without padding.
    hosts = "|".join(h.replace(".", r"\.") for h in PUSH_HOSTS)
    subscription = {"type": "object", "required": ["endpoint", "keys"], "properties": {
        # net.endpoint_ok's rule: DNS labels (no IDN) before a push service's host, port 443 at
        # most written out, then printable ASCII but a backslash.
        "endpoint": {"type": "string", "minLength": 10, "maxLength": ENDPOINT_MAX,
                     "pattern": r"^https://((?!xn--)(?!-)[a-z0-9-]{1,63}(?<!-)\.){0,3}"
                                rf"({hosts})(:443)?([/?#][!-\[\]-~]*)?$"},
        "keys": {"type": "object", "required": ["p256dh", "auth"], "properties": {
            "p256dh": {"type": "string", "pattern": r"^B[A-P][A-Za-z0-9_-]{85}$"},
            "auth": {"type": "string", "pattern": r"^[A-Za-z0-9_-]{22}$"}}}}}
    device_status = {"description": "this device's notices, for all its tables", "content": {
        "application/json": {"schema": {"type": "object", "properties": {
            "public_key": {"type": "string"}, "subscribed": {"type": "boolean"}}}}}}
    return {
        "/api/push/device": {
            "get": {"summary": "Whether this device gets «Te toca» notices (every table)",
                    "responses": {"200": device_status}},
            "post": {"summary": "Subscribe this device once, for every seat it holds or takes",
                     "parameters": [csrf],
                     "requestBody": body({"subscription": subscription}, ["subscription"]),
                     "responses": {"200": device_status,
                                   "400": err("bad_json, bad_subscription, bad_push_endpoint, "
                                              "csrf"),
                                   "403": err("not_seated: no seat at any table")}}},
        "/api/push/device/off": {"post": {
            "summary": "No notices on this device, at any table",
            "parameters": [csrf], "responses": {"200": device_status, "400": err("csrf")}}},
        "/api/push/key": {"get": {
            "summary": "The VAPID public key (applicationServerKey)",
            "responses": {"200": {"description": "the key", "content": {"application/json": {
                "schema": {"type": "object", "required": ["public_key"], "properties": {
                    "public_key": {"type": "string"}}}}}}}}},
        "/api/tables/{table_id}/push": {
            "get": {"summary": "Whether this device gets «Te toca» notices here",
                    "parameters": [tid],
                    "responses": {"200": status, "404": err("no such table")}},
            "post": {"summary": "Subscribe this device's seat (PushSubscription.toJSON())",
                     "parameters": [tid, csrf],
                     "requestBody": body({"subscription": subscription}, ["subscription"]),
                     "responses": {"200": status,
                                   "400": err("bad_json, bad_subscription, csrf"),
                                   "403": err("not_seated"), "404": err("no such table")}}},
        "/api/tables/{table_id}/push/off": {"post": {
            "summary": "Turn this device's notices off at this table (no body)",
            "parameters": [tid, csrf],
            "responses": {"200": status, "400": err("csrf"), "404": err("no such table")}}},
        "/api/tables/{table_id}/push/presence": {"post": {
            "summary": "The page is visible (heartbeat) or hidden: no push while visible",
            "parameters": [tid, csrf],
            "requestBody": body({"visible": {"type": "boolean"}}, ["visible"]),
            "responses": {"200": {"description": "noted", "content": {"application/json": {
                "schema": {"type": "object", "required": ["visible", "seconds"], "properties": {
                    "visible": {"type": "boolean"}, "seconds": {"type": "integer"}}}}}},
                "400": err("bad_json, bad_presence, csrf"), "404": err("no such table")}}},
        "/api/tables/{table_id}/push/settings": {"post": {
            "summary": "Host: the reminder's delay in hours",
            "parameters": [tid, csrf],
            "requestBody": body({"reminder_hours": {"type": "integer",
                                                    "enum": list(REMINDER_CHOICES_HOURS)}},
                                ["reminder_hours"]),
            "responses": {"200": status, "400": err("bad_json, bad_reminder, csrf"),
                          "403": err("not_host"), "404": err("no such table")}}},
    }
