"""Live changes as an iterator of events (docs/realtime.md).

Server-sent events are read from ``GET /api/realtime`` with the token in a header; a dropped or
silent connection is opened again with ``Last-Event-ID``, so what was missed arrives once (or a
``reload`` event when the server no longer has it). The parsing follows the HTML standard's
event stream format; the standard library has no parser of it and this package adds no
dependency (docs/decisions.md).
"""
from __future__ import annotations

import json
import random
import time
import urllib.parse
from dataclasses import dataclass, field
from http.client import HTTPResponse
from typing import Any, Iterator

from .errors import RoostError
from .transport import Options, Transport

MAX_DELAY = 30.0


@dataclass
class LiveEvent:
    """One event of a subscription.

    Attributes:
        topic: the subscription it belongs to, as written (``items/data``, ``account``, ...);
            ``""`` for a ``reload``, which concerns every topic.
        kind: ``item.created``, ``file.moved``, ``account.changed``, ..., or ``reload``.
        event_id: what a reconnection resumes after.
        data: the event's members: ``store``, ``key`` and ``item`` (as ``get_item`` answers),
            ``path``, ``to`` and ``entry`` (as the listing shows), ``user`` (the profile), ``reason``.
    """

    topic: str
    kind: str
    event_id: str
    data: dict[str, Any] = field(default_factory=dict)


class Realtime:
    """Live changes of one Roost server, with the options of the other connectors."""

    def __init__(self, options: Options) -> None:
        self.transport = Transport(options)

    def events(self, *topics: str, last_event_id: str | None = None, reconnect: bool = True) -> Iterator[LiveEvent]:
        """The events of ``topics``, as they happen, for as long as the caller iterates.

        Topics: ``items/<store>`` (``?keys=a,b`` or ``?prefix=p`` to narrow), ``files/<store>/<dir>``
        (``/**`` for the subtree), ``account``. ``last_event_id`` resumes after an event of an
        earlier iteration. A refusal (a topic the caller may not read, a limit) raises
        :class:`RoostError`; so does a lost connection when ``reconnect`` is false.

        Example::

            live = roost_client.realtime(base_url="http://127.0.0.1:8080", token=token)
            for change in live.events("items/data?prefix=todo/"):
                print(change.kind, change.data["key"])
        """
        if not topics or not all(isinstance(t, str) and t for t in topics):
            raise TypeError("events() takes one or more topics, each a non-empty string")
        resume = last_event_id
        delay = 2.0
        while True:
            try:
                for event in self._stream(topics, resume):
                    resume = event.event_id or resume
                    if event.kind == "connect":
                        delay = event.data.get("retry", 2.0)
                    elif event.kind == "close":
                        # The server ends the stream; signed out, coming back would not help.
                        if event.data.get("code") == "signed_out":
                            raise _signed_out(event)
                    else:
                        yield event
            except RoostError as err:
                if not reconnect or err.code == "signed_out" or (err.status not in (0, 408, 429) and err.status < 500):
                    raise
            else:
                if not reconnect:
                    return
            time.sleep(delay + random.random() / 4)
            delay = min(delay * 2, MAX_DELAY)

    def _stream(self, topics: tuple[str, ...], last_event_id: str | None) -> Iterator[LiveEvent]:
        query = urllib.parse.urlencode([("topic", t) for t in topics])
        headers = {"accept": "text/event-stream"}
        if last_event_id:
            headers["last-event-id"] = last_event_id
        response = self.transport.send("realtime", "GET", f"/api/realtime?{query}", None, headers)
        with response:
            yield from _parse(self.transport, response)


def _parse(transport: Transport, response: HTTPResponse) -> Iterator[LiveEvent]:
    """The events of an event stream, one per blank-line-ended block (comments skipped)."""
    event_id = ""
    name = ""
    data: list[str] = []
    retry: float | None = None
    while True:
        with transport.reading("realtime"):
            raw = response.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data or name:
                yield _event(name or "message", event_id, "\n".join(data), retry)
            name, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue
        field_name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field_name == "data":
            data.append(value)
        elif field_name == "event":
            name = value
        elif field_name == "id" and "\0" not in value:
            event_id = value
        elif field_name == "retry" and value.isdigit():
            retry = int(value) / 1000


def _signed_out(event: LiveEvent) -> RoostError:
    message = str(event.data.get("message") or "The session of this stream ended.")
    return RoostError(message, status=401, code="signed_out", operation="realtime", body=event.data)


def _event(name: str, event_id: str, text: str, retry: float | None) -> LiveEvent:
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        data = {"text": text}
    if not isinstance(data, dict):
        data = {"value": data}
    if name == "connect":
        if retry is not None:
            data["retry"] = retry
        return LiveEvent("", "connect", event_id, data)
    if name == "reload":
        return LiveEvent("", "reload", event_id, data)
    if name == "close":
        return LiveEvent("", "close", event_id, data)
    return LiveEvent(name, str(data.get("event", name)), event_id, data)
