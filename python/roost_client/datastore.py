"""The connector of a data store (``/<store>/api/<operation>``)."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Sequence, Union

from .transport import Answer, Connector, Options, PermissionEntry, camel_case_aliases, permission_entries

Value = Union[str, int, float]
"""An item's value: a string or a finite number."""
Item = Mapping[str, Any]
"""``{"key": ..., "value": ...}`` (or ``{"id": ...}``, optionally ``"owner"``)."""
Keys = Union[str, Sequence[str]]
Ids = Union[int, Sequence[int]]
Order = Literal["<", ">"]


@camel_case_aliases
class DataStore(Connector):
    """One method per operation of the data store ``name``; each returns the JSON answer.

    Writes are all or nothing: when one item of a call is refused, nothing of the call is
    stored and :class:`~roost_client.RoostError` is raised (``fields`` names the item, e.g.
    ``("items.1.value", "invalid")``).
    """

    def __init__(self, name: str, options: Options) -> None:
        super().__init__(options)
        self.name = name

    def _call(self, operation: str, values: Mapping[str, Any] | None = None) -> Answer:
        return self._transport.call(operation, f"/{self.name}/api/{operation}", values)

    # Items

    def get_item(self, key: Keys | None = None, *, id: Ids | None = None, owner: str | None = None) -> Answer:
        """Items by key or id (one or a list). One asked item answers its fields at the top level
        (and as ``items[0]``); a list answers ``items`` with the found ones. A missing single item
        raises ``RoostError`` 404 ``item_not_found``."""
        return self._call("getItem", {"key": key, "id": id, "owner": owner})

    def new_item(
        self, items: str | Item | Sequence[Item], value: Value | None = None, *, owner: str | None = None
    ) -> Answer:
        """Create items: ``new_item("color", "blue")``, ``new_item({"key": ..., "value": ...})`` or a
        list of such dicts. 409 ``item_exists`` when a key exists. ``success`` holds
        ``[key, id, timestamp, n]`` per item."""
        return self._call("newItem", _writes(items, value, None, owner))

    def set_item(
        self,
        items: str | Item | Sequence[Item] | None = None,
        value: Value | None = None,
        *,
        id: int | None = None,
        owner: str | None = None,
    ) -> Answer:
        """Create or replace items by key (like :meth:`new_item`), or replace one by ``id``
        (``set_item(id=7, value="teal")``). ``success`` holds ``[key or id, timestamp, n]``."""
        return self._call("setItem", _writes(items, value, id, owner))

    def remove_item(
        self,
        key: Keys | None = None,
        *,
        id: Ids | None = None,
        items: Sequence[Item] | None = None,
        owner: str | None = None,
    ) -> Answer:
        """Remove items by key, id or ``items`` (``[{"key": ...}, {"id": ...}]``); ``result``
        counts the removed ones (missing keys are not counted)."""
        return self._call("removeItem", {"key": key, "id": id, "items": _plain(items), "owner": owner})

    # Listing

    def list(
        self,
        *,
        key: Keys | None = None,
        owner: str | None = None,
        sort: Literal["key", "value", "timestamp"] | None = None,
        order: Order | None = None,
        start: int | None = None,
        size: int | None = None,
    ) -> Answer:
        """A page of items: ``{items, start, size, total}`` (``start`` is 1-based)."""
        return self._call(
            "list", {"key": key, "owner": owner, "sort": sort, "order": order, "start": start, "size": size}
        )

    def keys(
        self,
        *,
        owner: str | None = None,
        order: Order | None = None,
        start: int | None = None,
        size: int | None = None,
    ) -> Answer:
        """A page of keys in key order: ``{keys, start, size, total}``."""
        return self._call("keys", {"owner": owner, "order": order, "start": start, "size": size})

    # Owners

    def get_owner(self, key: Keys | None = None, *, id: Ids | None = None) -> Answer:
        """The owners of items: ``{key, owner, id, items}`` for one, ``{items}`` for a list."""
        return self._call("getOwner", {"key": key, "id": id})

    def set_owner(
        self,
        new_owner: str,
        key: Keys | None = None,
        *,
        id: Ids | None = None,
        items: Sequence[Item] | None = None,
        owner: str | None = None,
    ) -> Answer:
        """Give items to ``new_owner`` (a name, email or id); ``owner`` filters by the current owner."""
        return self._call(
            "setOwner", {"newOwner": new_owner, "key": key, "id": id, "items": _plain(items), "owner": owner}
        )

    # Permissions and service

    def allowed(self, permissions: Keys) -> Answer:
        """Does the caller hold these permissions? ``{"result": all held, <permission>: bool}``."""
        return self._call("allowed", {"permission": permissions})

    def get_permissions(self) -> Answer:
        """The store's permission entries (administrators)."""
        return self._call("getPermissions")

    def set_permissions(self, permissions: PermissionEntry | Sequence[PermissionEntry]) -> Answer:
        """Add, replace or revoke groups of the store's permission entries (administrators)."""
        return self._call("setPermissions", {"permissions": permission_entries(permissions)})

    def ping(self) -> Answer:
        """Health check: ``{"result": 1}``."""
        return self._call("ping")


def _writes(
    items: str | Item | Sequence[Item] | None, value: Value | None, id: int | None, owner: str | None
) -> dict[str, Any]:
    """The body of ``newItem`` / ``setItem`` from the forms the methods accept."""
    if isinstance(items, str):
        return {"key": items, "value": value, "owner": owner}
    if items is None:
        if id is None:
            raise TypeError("name the item: a key and a value, an item dict, a list of them, or id=")
        return {"id": id, "value": value, "owner": owner}
    if value is not None:
        raise TypeError("value goes with a key; put it into the item dicts otherwise")
    listed = [items] if isinstance(items, Mapping) else items
    return {"items": _plain(listed), "owner": owner}


def _plain(items: Sequence[Item] | None) -> list[dict[str, Any]] | None:
    return None if items is None else [dict(item) for item in items]
