"""Every refusal the service gives, in one catalogue: an HTTP status, a stable code a program can
switch on, and the Spanish sentence a person reads (``{name}``-style fields filled in when raised).

The rules' own refusals (``must_follow``, ``not_your_turn``…) come from ``rules.RulesError`` with
their messages; :meth:`ServiceError.from_rules` gives them their status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules import RulesError

#: Rules codes that mean "what you sent is malformed" (400); the others are conflicts (409).
BAD_INPUT_CODES = frozenset({"bad_card", "bad_pass", "bad_seat", "bad_action", "bad_deck"})


class ServiceError(Exception):
    def __init__(self, status: int, code: str, message: str, with_state: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.with_state = with_state

    @classmethod
    def from_rules(cls, err: RulesError) -> ServiceError:
        status = 400 if err.code in BAD_INPUT_CODES else 409
        return cls(status, err.code, err.message, with_state=True)

    def body(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}


@dataclass(frozen=True)
class Refusal:
    """One entry of the catalogue. ``with_state``: the answer carries the viewer's state (the
    refusal was about the game, so the page redraws what is true now)."""

    status: int
    code: str
    message: str
    with_state: bool = False

    def error(self, **fields: Any) -> ServiceError:
        message = self.message.format(**fields) if fields else self.message
        return ServiceError(self.status, self.code, message, self.with_state)


# -------------------------------------------------------------------- 400: what was sent is wrong
BAD_JSON = Refusal(400, "bad_json", "La solicitud no es un objeto JSON válido")
JSON_TOO_DEEP = Refusal(400, "bad_json", "La solicitud anida demasiados niveles: no es válida")
BAD_ACTION = Refusal(400, "bad_action", "Acción desconocida")
BAD_ACTION_ID = Refusal(400, "bad_action_id", "El identificador de la acción no es válido")
BAD_VERSION = Refusal(400, "bad_version", "La versión no es válida")
BAD_SINCE = Refusal(400, "bad_since", "La versión no es válida")
NAME_LENGTH = Refusal(400, "bad_name", "Escribe un nombre (hasta {limit} letras)")
NAME_CHARACTERS = Refusal(400, "bad_name", "El nombre tiene caracteres no permitidos")
NAME_INVISIBLE = Refusal(400, "bad_name", "Ese nombre no se ve: escribe letras o números")
NAME_OF_A_ROBOT = Refusal(400, "bad_name", "Ese nombre es de un robot: elige otro")
NAME_TAKEN = Refusal(400, "name_taken",
                     "En la mesa ya hay alguien llamado «{shown}»: elige otro nombre")
BAD_TARGET = Refusal(400, "bad_target", "El juego llega a 100 o a 50 puntos")
BAD_RENEGE = Refusal(400, "bad_renege", "El renuncio es «impedido» o «permitido»")
BAD_DECK = Refusal(400, "bad_deck", "Esa baraja no existe")
BAD_LEVEL = Refusal(400, "bad_level", "El nivel de los robots es Fácil, Normal o Difícil")
BAD_PACE = Refusal(400, "bad_pace", "El ritmo es «sin reloj», «por turnos» (1, 12 o 24 horas) "
                                    "o «en vivo»")
BAD_SEAT = Refusal(400, "bad_seat", "Ese asiento no existe")
BAD_PASS = Refusal(400, "bad_pass", "Elige exactamente 3 cartas para pasar")
BAD_CARD = Refusal(400, "bad_card", "Esa carta no existe")
BAD_CHAT = Refusal(400, "bad_chat", "Escribe un mensaje")
CHAT_TOO_LONG = Refusal(400, "chat_too_long", "El mensaje es muy largo (hasta {limit} letras)")
BAD_TAUNT = Refusal(400, "bad_taunt", "Esa pulla no existe")
BAD_SUBSCRIPTION = Refusal(400, "bad_subscription", "La suscripción a los avisos no es válida")
BAD_PUSH_ENDPOINT = Refusal(400, "bad_push_endpoint",
                            "La dirección de avisos de este navegador no es de un servicio de "
                            "avisos conocido: no se guardó la suscripción")
BAD_PRESENCE = Refusal(400, "bad_presence", "Falta indicar si la página está a la vista")
BAD_REMINDER = Refusal(400, "bad_reminder",
                       "El recordatorio va de 1 a 48 horas: elige una de las opciones")
CSRF = Refusal(400, "csrf", "Falta el código de seguridad (CSRF) o venció: recarga la página")
BAD_REQUEST = Refusal(400, "bad_request", "La solicitud no es válida")

# -------------------------------------------------------------------- 403: not yours to do
NOT_HOST = Refusal(403, "not_host", "Solo quien arma la mesa puede hacer eso")
NOT_SEATED = Refusal(403, "not_seated", "No tienes lugar en esta mesa")
NOT_SEATED_FOR_HINT = Refusal(403, "not_seated",
                              "Solo quien juega en esta mesa puede pedir una pista")
NOT_SEATED_FOR_PUSH = Refusal(403, "not_seated",
                              "Solo quien tiene lugar en la mesa puede recibir avisos")
NO_DEVICE = Refusal(403, "no_device", "Tu dispositivo no está identificado")
ROBOTS_NEVER_ACCUSE = Refusal(403, "robots_never_accuse", "Los robots no acusan")
NOT_WINNER = Refusal(403, "not_winner", "Solo los ganadores pueden picar a los demás")
CROSS_SITE = Refusal(403, "cross_site",
                     "La solicitud viene de otro sitio: abre Corazones directamente")

# -------------------------------------------------------------------- 404
NOT_FOUND = Refusal(404, "not_found", "Esa mesa no existe o ya expiró")
PAGE_NOT_FOUND = Refusal(404, "not_found", "No existe")
BAD_LINK = Refusal(404, "bad_link", "Ese enlace de lugar ya no vale")

# -------------------------------------------------------------------- 405, 409: not now
METHOD_NOT_ALLOWED = Refusal(405, "method_not_allowed", "Método no permitido")
STALE = Refusal(409, "stale", "La mesa cambió mientras decidías: mira cómo quedó",
                with_state=True)
ACTION_ID_REUSED = Refusal(409, "action_id_reused", "Ese identificador de acción ya se usó")
GAME_STARTED = Refusal(409, "game_started", "La partida ya empezó", with_state=True)
TABLE_FULL = Refusal(409, "table_full", "La mesa está llena: puedes mirar", with_state=True)
SEAT_TAKEN = Refusal(409, "seat_taken", "Ese lugar está ocupado", with_state=True)
NOT_ROBOT = Refusal(409, "not_robot", "Ahí no hay un robot", with_state=True)
NOT_FULL = Refusal(409, "not_full", "Faltan jugadores: se necesitan cuatro", with_state=True)
HOST_CANNOT_LEAVE = Refusal(409, "host_cannot_leave",
                            "Quien arma la mesa no puede dejarla antes de empezar")
NOT_HUMAN = Refusal(409, "not_human", "Ese lugar no es de una persona", with_state=True)
WRONG_PHASE = Refusal(409, "wrong_phase", "La partida no está en juego", with_state=True)
HUMANS_CLOSE = Refusal(409, "humans_close", "La cuenta la cierra una persona")
NOT_FINISHED = Refusal(409, "not_finished", "La partida todavía no terminó", with_state=True)
NOT_STANDIN = Refusal(409, "not_standin", "Ningún robot está jugando por ti")
ALREADY_SEATED = Refusal(409, "already_seated", "Este dispositivo ya tiene otro lugar en la mesa")
SELF_STANDIN = Refusal(409, "self_standin",
                       "No puedes pedir un robot para ti: juega o toca ABANDONAR", with_state=True)
ALREADY_STANDIN = Refusal(409, "already_standin", "Un robot ya juega por {name}", with_state=True)
NOT_WAITING = Refusal(409, "not_waiting", "No se está esperando a {name}", with_state=True)
TIME_LEFT = Refusal(409, "time_left", "A {name} todavía le queda tiempo", with_state=True)
NOT_STARTED = Refusal(409, "no_decision", "La partida todavía no empezó")
NO_DECISION = Refusal(409, "no_decision", "Ahora no tienes nada que decidir")

# -------------------------------------------------------------------- 413, 429, 5xx
TOO_LARGE = Refusal(413, "too_large", "La solicitud es demasiado grande")
RATE_LIMITED = Refusal(429, "rate_limited", "Demasiadas solicitudes: espera un momento")
SERVER_ERROR = Refusal(500, "server_error", "Algo salió mal en el servidor")
NOT_SET_UP = Refusal(500, "not_set_up", "La base de datos del servidor no está preparada: quien "
                                        "lo administra debe ejecutar «flask --app app setup».")
UNAVAILABLE = Refusal(503, "unavailable", "El servidor perdió un momento la conexión con la base "
                                          "de datos. Inténtalo de nuevo en unos segundos.")

#: The answer to an HTTP error werkzeug raised, by status.
BY_HTTP_STATUS: dict[int, Refusal] = {
    r.status: r for r in (BAD_REQUEST, PAGE_NOT_FOUND, METHOD_NOT_ALLOWED, TOO_LARGE,
                          RATE_LIMITED, SERVER_ERROR)
}


# -------------------------------------------------------------------- players
MOVE_LINK_USED = Refusal(404, "bad_move_link",
                         "Este enlace para llevar el perfil ya no sirve: se usó o se cambió por "
                         "otro. Pide uno nuevo en «Mis mesas» del otro teléfono.")
MOVE_SAME_DEVICE = Refusal(409, "move_same_device",
                           "Este enlace es para abrirlo en el otro teléfono: tu perfil ya está "
                           "en este.")
MOVE_RECEIVER_BUSY = Refusal(409, "move_receiver_busy",
                             "Este teléfono ya juega mesas sin terminar como {name}: termina o "
                             "abandona esas partidas antes de traer otro perfil. No cambió nada.")
NO_PROFILE = Refusal(403, "no_profile",
                     "Este dispositivo todavía no tiene perfil: siéntate en una mesa o abre una.")
NOT_SEATED_ANYWHERE = Refusal(403, "not_seated",
                              "Los avisos son para quienes tienen lugar en alguna mesa: siéntate "
                              "en una o abre una.")

# -------------------------------------------------------------------- ratings
BAD_RATED = Refusal(400, "bad_rated",
                    "La mesa se juega «con clasificación» o «amistosa»: elige una de las dos")
PLAYER_NOT_FOUND = Refusal(404, "player_not_found", "Ese jugador no existe")

# -------------------------------------------------------------------- records (tables/records.py)
GAME_NOT_FOUND = Refusal(404, "game_not_found", "Esa partida no existe o todavía no terminó")
BAD_RECORD_FORMAT = Refusal(400, "bad_format",
                            "Ese formato no existe: pide «json» u «openspiel»")
NOT_SEATED_FOR_REVIEW = Refusal(403, "not_seated",
                                "Solo quien juega en esta partida puede repasar sus manos")
NO_GAME_TO_REVIEW = Refusal(409, "no_game",
                            "No hay una partida en juego: todavía no hay manos para repasar")
GAME_OVER_REVIEW = Refusal(409, "game_over",
                           "La partida terminó: mira su repetición, con las cuatro manos")

# -------------------------------------------------------------------- the fair deal (fair_deal.py)
BAD_SEED = Refusal(400, "bad_seed",
                   "La semilla tiene que ser 64 cifras hexadecimales (0-9, a-f), con el número "
                   "de partida y de mano")
SEED_TOO_LATE = Refusal(409, "seed_too_late", "Esa mano ya se repartió")
SEED_TOO_EARLY = Refusal(409, "seed_too_early",
                         "Esa mano todavía no se baraja: falta el compromiso del servidor")
SEED_ALREADY_SENT = Refusal(409, "seed_already_sent", "Ya mandaste tu semilla para esta mano")
DEAL_NOT_REVEALED = Refusal(404, "deal_not_revealed",
                            "Este reparto se muestra cuando se cierra la cuenta de la mano")


# -------------------------------------------------------------------- Jugar en vivo (matchmaking)
NOT_IN_QUEUE = Refusal(404, "not_in_queue",
                       "No estás buscando mesa en vivo: toca JUGAR EN VIVO para buscar una")
PUBLIC_TABLE_SIT = Refusal(409, "public_table",
                           "Esta es una mesa en vivo: aquí solo se mira. Para jugar, toca JUGAR "
                           "EN VIVO en el inicio", with_state=True)
LIVE_NEEDS_NAME = Refusal(400, "bad_name", "Escribe tu nombre: así te ven en la mesa en vivo")
PUBLIC_NO_REMATCH = Refusal(409, "public_table",
                            "Las mesas en vivo son de una partida: para jugar otra, toca JUGAR EN "
                            "VIVO en el inicio", with_state=True)


# -------------------------------------------------------------------- Análisis (tables/analysis.py)
NOT_PLAYER_FOR_ANALYSIS = Refusal(403, "not_player",
                                  "Solo quien jugó esta partida puede pedir su análisis")
ANALYSIS_TABLE_GONE = Refusal(409, "table_gone",
                              "La mesa de esta partida ya expiró: no queda registro de quién "
                              "jugó cada lugar, y el análisis ya no se puede pedir")

# ------------------------------------------------------------ La Pista (tables/hint_jobs.py)
HINT_LATE = Refusal(503, "hint_late",
                    "La pista tarda más de lo normal: inténtalo de nuevo en un momento")
