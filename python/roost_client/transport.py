"""Options and HTTP transport shared by the three connectors (standard library only:
http.client for the requests, http.cookiejar for cookie mode, json)."""
from __future__ import annotations

import http.client
import json
import re
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.client import HTTPResponse
from http.cookiejar import CookieJar
from typing import IO, Any, Callable, Iterable, Iterator, Mapping, NoReturn, TypeVar, Union

from .errors import RoostError

Answer = dict[str, Any]
"""A JSON answer of the server, as a dict."""
SuccessCallback = Callable[[str, Any], None]
"""Called as ``on_success(operation, result)`` after every successful operation."""
FailureCallback = Callable[[RoostError], None]
"""Called as ``on_failure(error)`` before the error is raised."""
Body = Union[bytes, IO[bytes], Iterable[bytes], None]

DEFAULT_TIMEOUT = 30.0
CHUNK = 64 * 1024

# Option names as the TypeScript connector spells them, accepted as aliases.
_ALIASES = {
    "baseUrl": "base_url",
    "onSuccess": "on_success",
    "onFailure": "on_failure",
    "apiKey": "api_key",
}
_OPTION_NAMES = {
    "base_url",
    "token",
    "api_key",
    "cookies",
    "credentials",
    "timeout",
    "headers",
    "on_success",
    "on_failure",
}


@dataclass
class Options:
    """The options of a connector.

    Attributes:
        base_url: where Roost answers, e.g. ``http://127.0.0.1:8080`` (required).
        token: the token of ``users.token()``, sent as ``x-auth-token``.
        api_key: an API key (``roost_...``) an administrator made for a program that calls Roost,
            sent as ``Authorization: Bearer``; what it may do is its scopes (docs/operations.md,
            "API keys"). A token, when both are given, is sent instead.
        cookies: a cookie jar for cookie mode: ``signin`` stores the ``auth`` cookie in it and
            every later request sends it, as a browser would. Pass the same jar to several
            connectors to share the sign-in. ``True`` makes a new jar.
        timeout: seconds to wait for the server (connect and each read).
        headers: extra headers sent with every request.
        on_success: called as ``on_success(operation, result)`` after each successful call.
        on_failure: called as ``on_failure(error)`` before a :class:`RoostError` is raised.
    """

    base_url: str
    token: str | None = None
    api_key: str | None = None
    cookies: CookieJar | None = None
    timeout: float = DEFAULT_TIMEOUT
    headers: dict[str, str] = field(default_factory=dict)
    on_success: SuccessCallback | None = None
    on_failure: FailureCallback | None = None


def parse_options(options: Mapping[str, Any] | Options | None, overrides: Mapping[str, Any]) -> Options:
    """Merge an options mapping (or :class:`Options`) and keyword arguments into :class:`Options`.

    ``baseUrl``, ``onSuccess`` and ``onFailure`` are accepted for the snake_case names, and
    ``credentials`` (``"include"``, ``"same-origin"`` or ``True``: cookie mode; ``"omit"``: none)
    as the TypeScript connector's name of cookie mode. Unknown names raise ``TypeError``.
    """
    if isinstance(options, Options):
        merged: dict[str, Any] = dict(options.__dict__)
    else:
        merged = {}
        for key, value in dict(options or {}).items():
            merged[_ALIASES.get(key, key)] = value
    for key, value in overrides.items():
        merged[_ALIASES.get(key, key)] = value
    unknown = sorted(set(merged) - _OPTION_NAMES)
    if unknown:
        raise TypeError(f"unknown connector option(s): {', '.join(unknown)}")
    base_url = merged.get("base_url")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise TypeError("the option base_url is required: an http:// or https:// address")
    credentials = merged.pop("credentials", None)
    cookies = merged.get("cookies")
    if cookies is True or (cookies is None and credentials in (True, "include", "same-origin")):
        merged["cookies"] = CookieJar()
    elif cookies is False:
        merged["cookies"] = None
    elif cookies is not None and not isinstance(cookies, CookieJar):
        raise TypeError("the option cookies is a http.cookiejar.CookieJar or True")
    timeout = merged.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise TypeError("the option timeout is a positive number of seconds")
    api_key = merged.get("api_key")
    if api_key is not None and (not isinstance(api_key, str) or not api_key.startswith("roost_")):
        raise TypeError("the option api_key is a key Roost made, starting with roost_")
    merged["timeout"] = float(timeout)
    merged["headers"] = dict(merged.get("headers") or {})
    merged["base_url"] = base_url.rstrip("/")
    return Options(**merged)


class Transport:
    """Sends requests to one Roost server with one set of options.

    ``token`` may be changed at any time; the next request uses the new value.
    """

    def __init__(self, options: Options) -> None:
        self.options = options

    @property
    def token(self) -> str | None:
        return self.options.token

    @token.setter
    def token(self, value: str | None) -> None:
        self.options.token = value

    def url(self, path: str) -> str:
        """The absolute address of ``path`` (which starts with ``/``)."""
        return self.options.base_url + path

    def call(self, operation: str, path: str, values: Mapping[str, Any] | None = None) -> Answer:
        """POST ``values`` as JSON to ``path`` and return the JSON answer, or raise :class:`RoostError`.

        ``None`` values are left out (the server treats them as absent anyway). An answer with
        ``result`` false (or 0) *and* an error ``code`` is a failure even with HTTP 200: the user
        service answers validation failures that way.
        """
        body = {k: v for k, v in (values or {}).items() if v is not None}
        data = json.dumps(body).encode("utf-8")
        response = self.send(operation, "POST", path, data, {"content-type": "application/json"})
        return self.answer(operation, response)

    def rest(self, operation: str, method: str, path: str, body: Any = None) -> Any:
        """A JSON route in the REST shape (the collections' ``/api/collections/...``): ``method`` on
        ``path`` with ``body`` as JSON (``None``: no body), returning the JSON answer, or ``None``
        for 204. Unlike :meth:`call`, ``None`` values stay (``null`` removes a record's field) and
        only the status tells a failure: a record may have fields named ``result`` and ``code``.
        """
        data = None if body is None else _json_bytes(body)
        headers = {} if data is None else {"content-type": "application/json"}
        response = self.send(operation, method, path, data, headers)
        if response.status == 204:
            with response, self.reading(operation):
                response.read()
            return self.succeed(operation, None)
        return self.succeed(operation, self._json(operation, response))

    def answer(self, operation: str, response: HTTPResponse) -> Answer:
        """Read the JSON answer of ``response`` (and close it); a failure body raises."""
        answer = self._json(operation, response)
        result = answer.get("result", True)
        if (result is False or result == 0) and isinstance(answer.get("code"), str):
            self.fail(RoostError.from_answer(operation, response.status, answer))
        return self.succeed(operation, answer)

    def send(
        self,
        operation: str,
        method: str,
        path: str,
        data: Body = None,
        headers: Mapping[str, str] | None = None,
    ) -> HTTPResponse:
        """Send one request and return the open response (status below 400).

        A failure status raises :class:`RoostError` built from the JSON error body. The caller
        closes the response (``with`` works). ``data`` may be bytes, a binary file or an iterable
        of bytes; a file or iterable without a ``content-length`` header is sent chunked, so
        uploads are streamed. When the server refuses an upload before its end (a file over the
        store's limit) and closes the connection, its answer is still read and raised.
        """
        all_headers = {"accept": "application/json", **self.options.headers, **(headers or {})}
        if self.options.token:
            all_headers["x-auth-token"] = self.options.token
        elif self.options.api_key:
            all_headers["authorization"] = f"Bearer {self.options.api_key}"
        # One connection per request, as urllib does; "close" lets the socket go with the response.
        all_headers["connection"] = "close"
        url = self.url(path)
        # A urllib Request only carries the cookies: CookieJar reads and fills it.
        cookie_request = urllib.request.Request(url, headers=all_headers, method=method)
        if self.options.cookies is not None:
            self.options.cookies.add_cookie_header(cookie_request)
        parts = urllib.parse.urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = connection_class(parts.hostname or "", parts.port, timeout=self.options.timeout, blocksize=CHUNK)
        with self.reading(operation, cleanup=connection.close):
            try:
                connection.request(method, target, body=data, headers=dict(cookie_request.header_items()))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server stopped reading the body early; its answer tells why
            response = connection.getresponse()
        if connection.sock is not None:
            # The server kept the connection open although asked not to: the socket closes with
            # the response, as it does otherwise (socket.close waits for the response's file).
            connection.sock.close()
            connection.sock = None
        if self.options.cookies is not None:
            self.options.cookies.extract_cookies(response, cookie_request)  # type: ignore[arg-type]
        if response.status >= 400:
            with response:
                self.fail(self._http_error(operation, response))
        return response

    @contextmanager
    def reading(self, operation: str, cleanup: Callable[[], None] | None = None) -> Iterator[None]:
        """Turn a timeout or a broken connection inside the block into :class:`RoostError`
        (``timeout`` or ``network_error``, status 0); ``cleanup`` runs first."""
        try:
            yield
        except (TimeoutError, OSError, http.client.HTTPException) as err:
            if cleanup is not None:
                cleanup()
            if isinstance(err, TimeoutError):
                self.fail(
                    RoostError(f"no answer within {self.options.timeout:g} s", code="timeout", operation=operation)
                )
            message = f"connection to {self.options.base_url} failed: {err}"
            self.fail(RoostError(message, code="network_error", operation=operation))

    def succeed(self, operation: str, result: Any) -> Any:
        """Report a success to ``on_success`` and hand the result back."""
        if self.options.on_success is not None:
            self.options.on_success(operation, result)
        return result

    def fail(self, error: RoostError) -> NoReturn:
        """Report a failure to ``on_failure``, then raise it."""
        if self.options.on_failure is not None:
            self.options.on_failure(error)
        raise error

    def _json(self, operation: str, response: HTTPResponse) -> Answer:
        with response, self.reading(operation):
            raw = response.read()
        try:
            answer = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            answer = None
        if not isinstance(answer, dict):
            message = "the answer is not a JSON object"
            self.fail(RoostError(message, status=response.status, code="invalid_answer", operation=operation))
        return answer

    @staticmethod
    def _http_error(operation: str, response: HTTPResponse) -> RoostError:
        try:
            body = json.loads(response.read().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, OSError, http.client.HTTPException):
            body = None
        if not isinstance(body, dict):
            body = {"message": f"{operation} failed with HTTP {response.status}"}
        error = RoostError.from_answer(operation, response.status, body)
        retry_after = response.headers.get("retry-after")
        if retry_after:
            error.body.setdefault("retryAfter", retry_after)
        return error

def _json_bytes(value: Any) -> bytes:
    """``value`` as JSON; NaN and the infinities, which JSON lacks, raise ``TypeError``."""
    try:
        return json.dumps(value, allow_nan=False).encode("utf-8")
    except ValueError as err:
        raise TypeError(f"not JSON: {err}") from err


class Connector:
    """What the three connectors share: their options, token and transport."""

    def __init__(self, options: Options) -> None:
        self._transport = Transport(options)

    @property
    def options(self) -> Options:
        """The connector's options; ``options.token`` (the token sent as ``x-auth-token``) and
        ``options.headers`` may be changed in place."""
        return self._transport.options

    @property
    def cookies(self) -> CookieJar | None:
        """The cookie jar of cookie mode, or ``None``."""
        return self._transport.options.cookies


PermissionEntry = Mapping[str, Any]
"""``{"permission": ..., "groups": [...] (or "group"), "action": "add" | "replace" | "revoke"}``."""


def permission_entries(permissions: PermissionEntry | Iterable[PermissionEntry]) -> list[dict[str, Any]]:
    """One permission entry or several, as a list of plain dicts (what ``setPermissions`` takes)."""
    if isinstance(permissions, Mapping):
        return [dict(permissions)]
    return [dict(p) for p in permissions]


C = TypeVar("C", bound=type)


def camel_case_aliases(cls: C) -> C:
    """Give every public snake_case method its camelCase name too (``get_item`` is also
    ``getItem``), so the seed's operation names work as written."""
    for name, value in list(vars(cls).items()):
        if callable(value) and not name.startswith("_") and "_" in name:
            setattr(cls, re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name), value)
    return cls
