"""The one exception the connector raises: :class:`RoostError`."""
from __future__ import annotations

from typing import Any, Mapping


class RoostError(Exception):
    """A failed operation, whatever went wrong.

    Attributes:
        status: the HTTP status (200 for the user service's validation failures, which the
            server answers with ``result: false``), or 0 when no answer came at all.
        code: the server's stable error code (``validation_failure``, ``not_signed_in``, ...),
            or ``network_error`` / ``timeout`` / ``invalid_answer`` for failures of the transport.
        message: the human-readable text of the failure.
        messages: every text message of the answer (the status message first).
        fields: the ``(field, reason)`` pairs of invalid fields, e.g. ``("email", "exists")``.
        operation: the operation that failed (``"signupDirect"``, ``"@write"``, ...).
        body: the whole parsed answer (an empty dict when there was none).
    """

    status: int
    code: str
    message: str
    messages: list[str]
    fields: list[tuple[str, str]]
    operation: str
    body: dict[str, Any]

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: str = "error",
        messages: list[str] | None = None,
        fields: list[tuple[str, str]] | None = None,
        operation: str = "",
        body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.messages = messages if messages is not None else [message]
        self.fields = fields if fields is not None else []
        self.operation = operation
        self.body = body if body is not None else {}

    @classmethod
    def from_answer(cls, operation: str, status: int, body: Mapping[str, Any]) -> RoostError:
        """Build the error from a failure body ``{result, code, message, messages, invalid}``."""
        raw_messages = body.get("messages")
        texts = [m for m in raw_messages if isinstance(m, str)] if isinstance(raw_messages, list) else []
        message = body.get("message")
        if not isinstance(message, str) or not message:
            message = texts[0] if texts else f"{operation} failed with HTTP {status}"
        if not texts:
            texts = [message]
        return cls(
            message,
            status=status,
            code=str(body.get("code") or f"http_{status}"),
            messages=texts,
            fields=_pairs(body.get("invalid")),
            operation=operation,
            body=dict(body),
        )

    def __str__(self) -> str:
        where = f"{self.operation}: " if self.operation else ""
        status = f" (HTTP {self.status}, {self.code})" if self.status else f" ({self.code})"
        fields = f" {self.fields}" if self.fields else ""
        return f"{where}{self.message}{status}{fields}"

    def __repr__(self) -> str:
        return f"RoostError({self.message!r}, status={self.status}, code={self.code!r}, fields={self.fields!r})"


def _pairs(value: Any) -> list[tuple[str, str]]:
    """The ``[field, reason]`` pairs of ``invalid``, skipping anything of another shape."""
    if not isinstance(value, list):
        return []
    return [
        (str(pair[0]), str(pair[1]))
        for pair in value
        if isinstance(pair, (list, tuple)) and len(pair) == 2
    ]
