"""The one error type of the service: an HTTP status, a stable code and a Spanish message."""

from __future__ import annotations

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


def bad_request(code: str, message: str) -> ServiceError:
    return ServiceError(400, code, message)


NOT_FOUND = ("not_found", "Esa mesa no existe o ya expiró")
