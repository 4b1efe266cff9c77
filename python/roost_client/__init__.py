"""Roost connector for Python: the user service, data stores, file stores, collections and live changes.

Standard library only (urllib, json). Each factory takes the options as a mapping and/or as
keyword arguments::

    import roost_client

    users = roost_client.users(base_url="http://127.0.0.1:8080")
    users.token("alice", "alice-password-1")          # keeps the token
    data = roost_client.datastore("data", base_url="http://127.0.0.1:8080", token=users.options.token)
    data.new_item("color", "blue")
    posts = roost_client.collection("posts", base_url="http://127.0.0.1:8080", token=users.options.token)
    posts.list(filter=roost_client.build_filter("status = {:s}", {"s": "open"}), sort="-priority")

Every failure raises :class:`RoostError`.
"""
from __future__ import annotations

from typing import Any, Mapping

from .collections import Collection, build_filter, collection_name
from .datastore import DataStore
from .errors import RoostError
from .filestore import FileStore
from .realtime import LiveEvent, Realtime
from .transport import Answer, Options, parse_options
from .users import Users, second_factor_challenge

__all__ = [
    "Answer",
    "Collection",
    "DataStore",
    "FileStore",
    "LiveEvent",
    "Options",
    "Realtime",
    "RoostError",
    "Users",
    "build_filter",
    "collection",
    "datastore",
    "filestore",
    "realtime",
    "second_factor_challenge",
    "users",
]
__version__ = "0.1.0"

OptionsArg = Mapping[str, Any] | Options | None


def users(options: OptionsArg = None, **kwargs: Any) -> Users:
    """The connector of the user service. Its name is fixed (``users``): a ``name`` option is
    refused with ``TypeError``."""
    given = dict(options.__dict__ if isinstance(options, Options) else options or {})
    if "name" in given or "name" in kwargs:
        raise TypeError("the user service is always called 'users': it takes no name option")
    return Users(parse_options(options, kwargs))


def datastore(name: str, options: OptionsArg = None, **kwargs: Any) -> DataStore:
    """The connector of the data store ``name`` (``data`` out of the box)."""
    return DataStore(_store_name(name), parse_options(options, kwargs))


def filestore(name: str, options: OptionsArg = None, **kwargs: Any) -> FileStore:
    """The connector of the file store ``name`` (``files`` out of the box)."""
    return FileStore(_store_name(name), parse_options(options, kwargs))


def collection(name: str, options: OptionsArg = None, **kwargs: Any) -> Collection:
    """The records of the collection ``name`` (docs/collections.md): ``list``, ``get``,
    ``create``, ``update``, ``replace``, ``delete``, ``batch``."""
    return Collection(collection_name(name), parse_options(options, kwargs))


def realtime(options: OptionsArg = None, **kwargs: Any) -> Realtime:
    """Live changes: ``realtime(...).events(topic, ...)`` iterates over the events of the topics."""
    return Realtime(parse_options(options, kwargs))


def _store_name(name: str) -> str:
    if not isinstance(name, str) or not name or "/" in name:
        raise TypeError("a store name is a non-empty string without '/'")
    return name
