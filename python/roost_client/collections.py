"""The connector of a collection's records (``/api/collections/<name>/records``, docs/collections.md)."""
from __future__ import annotations

import datetime
import json
import re
from typing import Any, Iterator, Mapping, Sequence, Union
from urllib.parse import quote, urlencode

from .transport import Answer, Connector, Options

FilterValue = Union[str, int, float, bool, None, datetime.datetime, datetime.date]
"""A value a filter compares with: text, a number, a boolean, ``None`` (null), a time or a date."""
Operation = Mapping[str, Any]
"""One write of a batch: ``{"action": "create" | "update" | "replace" | "delete", "id": ..., "data": ...}``,
with ``"collection"`` to write another collection than the connector's."""

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
_PLACEHOLDER = re.compile(r"\{:([A-Za-z_][A-Za-z0-9_]*)\}")
# A NUL or a surrogate (in a Python str, always half a pair): text the filter language refuses.
_UNWRITABLE = re.compile("[\x00\ud800-\udfff]")


def collection_name(name: Any) -> str:
    """``name`` when it is a collection's name as the server allows them, else ``TypeError``."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise TypeError("a collection name is 1-41 characters of a-z, 0-9 and _, starting with a letter")
    return name


def build_filter(template: str, params: Mapping[str, FilterValue] | None = None) -> str:
    """A filter with its values written as the filter language's literals
    (docs/collection-queries.md): each ``{:name}`` of ``template`` becomes ``params[name]`` quoted
    and escaped, so a value is never read as part of the expression, whatever it holds::

        posts.list(filter=build_filter("status = {:status} && priority >= {:min}", {"status": "open", "min": 2}))

    A placeholder without a value, or a value without a literal (NaN, a list, text with a NUL, a
    naive ``datetime``), raises ``TypeError``.
    """
    given = params or {}

    def literal(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in given:
            raise TypeError(f"the filter has {{:{name}}} but no value for it")
        return _literal(name, given[name])

    return _PLACEHOLDER.sub(literal, template)


def _literal(name: str, value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        try:
            return json.dumps(value, allow_nan=False)  # JSON's number syntax is the filter language's
        except ValueError:
            raise TypeError(f"{{:{name}}} is {value}: a filter takes finite numbers") from None
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise TypeError(f"{{:{name}}} is a naive datetime: give one with a timezone")
        utc = value.astimezone(datetime.timezone.utc)
        return json.dumps(utc.isoformat(timespec="milliseconds").replace("+00:00", "Z"))
    if isinstance(value, datetime.date):
        return json.dumps(value.isoformat())
    if isinstance(value, str):
        if _UNWRITABLE.search(value):
            raise TypeError(f"{{:{name}}} holds a NUL character or half of a surrogate pair, which a filter cannot")
        return json.dumps(value)  # JSON's escapes (\" \\ \n \uXXXX ...) are the filter language's
    raise TypeError(f"{{:{name}}} is a {type(value).__name__}: a filter compares text, numbers, booleans, None, times")


class Collection(Connector):
    """The records of the collection ``name``: one method per route, each returning the record
    or page the server answers as a dict, and raising :class:`~roost_client.RoostError` on a
    failure (a write the schema refuses: 422 ``validation_failure`` naming every bad field in
    ``fields``, and nothing stored)."""

    def __init__(self, name: str, options: Options) -> None:
        super().__init__(options)
        self.name = name

    def _path(self, id: str | None = None) -> str:
        base = f"/api/collections/{self.name}/records"
        if id is None:
            return base
        if not isinstance(id, str) or not id:
            raise TypeError("a record id is a non-empty string")
        return f"{base}/{quote(id, safe='')}"

    def list(
        self,
        *,
        filter: str | None = None,
        sort: str | Sequence[str] | None = None,
        per_page: int | None = None,
        cursor: str | None = None,
        total: bool = False,
    ) -> Answer:
        """A page: ``{"items": [...], "next": cursor or None}``, and ``"total"`` with ``total=True``.
        ``sort`` is one text (``"-priority,title"``) or a list of fields; pass ``next`` as
        ``cursor`` for the page after."""
        params: dict[str, str] = {}
        if filter is not None and filter.strip():
            params["filter"] = filter
        if sort is not None:
            params["sort"] = sort if isinstance(sort, str) else ",".join(sort)
        if per_page is not None:
            params["perPage"] = str(per_page)
        if cursor is not None:
            params["cursor"] = cursor
        if total:
            params["total"] = "true"
        query = f"?{urlencode(params)}" if params else ""
        return self._transport.rest("records_list", "GET", self._path() + query)

    def iterate(
        self, *, filter: str | None = None, sort: str | Sequence[str] | None = None, per_page: int | None = None
    ) -> Iterator[Answer]:
        """Every record the query matches, page after page by cursor (a page is asked when needed)."""
        cursor: str | None = None
        while True:
            page = self.list(filter=filter, sort=sort, per_page=per_page, cursor=cursor)
            yield from page["items"]
            cursor = page["next"]
            if cursor is None:
                return

    def get(self, id: str) -> Answer:
        """One record; 404 ``record_not_found`` when there is none (or the ``view`` rule hides it)."""
        return self._transport.rest("records_get", "GET", self._path(id))

    def create(self, data: Mapping[str, Any]) -> Answer:
        """Makes a record (its owner is the caller) and returns it as stored, defaults filled in."""
        return self._transport.rest("records_create", "POST", self._path(), dict(data))

    def update(self, id: str, patch: Mapping[str, Any]) -> Answer:
        """Changes the fields given (``None`` removes one); the whole record is checked again."""
        return self._transport.rest("records_merge", "PATCH", self._path(id), dict(patch))

    def replace(self, id: str, data: Mapping[str, Any]) -> Answer:
        """Replaces the record's fields with ``data``."""
        return self._transport.rest("records_replace", "PUT", self._path(id), dict(data))

    def delete(self, id: str) -> None:
        """Deletes the record."""
        self._transport.rest("records_delete", "DELETE", self._path(id))

    def batch(self, operations: Sequence[Operation]) -> list[Answer | None]:
        """Several writes, all or nothing (at most 100): each one's record, ``None`` for a
        deletion. An operation without ``"collection"`` writes this collection."""
        if isinstance(operations, (str, bytes, Mapping)):
            raise TypeError("a batch is a list of operations")
        writes = [{"collection": self.name, **dict(op)} for op in operations]
        answer = self._transport.rest("records_batch", "POST", "/api/collections/batch", {"operations": writes})
        results: list[Answer | None] = answer["results"]
        return results

