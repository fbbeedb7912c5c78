"""The error the lobby and rooms raise for a request they refuse."""

from __future__ import annotations


class ApiError(Exception):
    """A refused request: HTTP ``status``, stable ``code`` and a human message."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        """HTTP headers of the answer (``Retry-After``)."""

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}
