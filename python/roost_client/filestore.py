"""The connector of a file store (``/<store>/<path>/@<operation>``)."""
from __future__ import annotations

import base64
import contextlib
import os
import stat
import time
from http.client import HTTPConnection, HTTPResponse, HTTPSConnection
from typing import IO, Any, Callable, Iterable, Literal, Mapping, Sequence, Union
from urllib.parse import quote, urlsplit

from .errors import RoostError
from .transport import CHUNK, Answer, Body, Connector, Options, PermissionEntry, camel_case_aliases, permission_entries

Contents = Union[bytes, str, IO[bytes], Iterable[bytes]]
"""File contents: bytes, text (sent as UTF-8), a binary file or an iterable of bytes chunks."""
Permissions = Union[str, Sequence[str]]

_TUS = {"tus-resumable": "1.0.0"}
# Up to this size a resumable upload goes whole in its creation (as the TypeScript client does).
_WHOLE_IN_CREATION_BYTES = 4 * 1024 * 1024


@camel_case_aliases
class FileStore(Connector):
    """One method per operation of the file store ``name``, plus streamed upload and download.

    ``path`` is the file or directory the operation is about, from the store's root
    (``"docs/a.txt"``; ``""`` is the root; a leading or trailing ``/`` is ignored). :meth:`new_item`
    and :meth:`list` are called on a directory, everything else on the entry itself.
    """

    def __init__(self, name: str, options: Options) -> None:
        super().__init__(options)
        self.name = name

    def url(self, path: str = "", operation: str | None = None) -> str:
        """The address of ``path`` (a download link), or of one of its operations."""
        return self._transport.url(self._location(path, operation))

    def _location(self, path: str, operation: str | None) -> str:
        segments = [quote(s, safe="") for s in path.strip("/").split("/") if path.strip("/")]
        if operation:
            segments.append(f"@{operation}")
        return "/".join([f"/{self.name}", *segments])

    def _call(self, operation: str, path: str, values: Mapping[str, Any] | None = None) -> Answer:
        return self._transport.call(operation, self._location(path, operation), values)

    # Entries

    def get_item(self, path: str = "") -> Answer:
        """The entry: ``{name, type, size, mime, cache, header, mtime, ctime}``."""
        return self._call("getItem", path)

    def new_item(
        self,
        path: str,
        name: str,
        *,
        type: Literal["f", "d"] = "f",
        contents: bytes | str | None = None,
        mime: str | None = None,
        cache: str | None = None,
    ) -> Answer:
        """Create the file or directory ``name`` in the directory ``path``. Bytes are sent base64
        encoded (``decode: true``), text as it is. For large files create it with :meth:`upload`."""
        return self._call(
            "newItem", path, {"name": name, "type": type, "mime": mime, "cache": cache, **_contents(contents)}
        )

    def set_item(
        self, path: str, *, contents: bytes | str | None = None, mime: str | None = None, cache: str | None = None
    ) -> Answer:
        """Change a file's contents and/or its ``mime`` and ``cache`` (a directory takes ``cache``)."""
        return self._call("setItem", path, {"mime": mime, "cache": cache, **_contents(contents)})

    def move(self, path: str, newpath: str) -> Answer:
        """Move or rename the entry to ``newpath`` (from the store's root); a directory moves whole."""
        return self._call("move", path, {"newpath": newpath})

    def remove_item(self, path: str, *, recursive: bool = False) -> Answer:
        """Remove a file or directory (with entries only when ``recursive``); ``result`` counts them."""
        return self._call("removeItem", path, {"recursive": recursive or None})

    def list(
        self,
        path: str = "",
        *,
        type: Literal["f", "d", "all"] | None = None,
        sort: Literal["name", "type", "size", "mime", "mtime", "ctime"] | None = None,
        order: Literal["<", ">"] | None = None,
        start: int | None = None,
        size: int | None = None,
    ) -> Answer:
        """The entries of the directory: ``{items, start, size, total}``."""
        return self._call("list", path, {"type": type, "sort": sort, "order": order, "start": start, "size": size})

    # Contents

    def read(self, path: str, *, start: int | None = None, end: int | None = None) -> bytes:
        """The contents of a file, whole or the bytes ``start`` to ``end`` (inclusive)."""
        with self.stream(path, start=start, end=end) as response, self._transport.reading("read"):
            return response.read()

    def stream(self, path: str, *, start: int | None = None, end: int | None = None) -> HTTPResponse:
        """The open download of a file (read it in chunks, then close it; ``with`` works). Its
        headers carry ``Content-Type``, ``Content-Length``, ``ETag`` and ``Last-Modified``."""
        headers = {"accept": "*/*"}
        if start is not None or end is not None:
            headers["range"] = f"bytes={start or 0}-{'' if end is None else end}"
        return self._transport.send("read", "GET", self._location(path, "read"), None, headers)

    def download(self, path: str, target: str | os.PathLike[str] | IO[bytes]) -> int:
        """Stream a file into ``target`` (a file name or a binary file); returns the bytes written.
        A file name is written as ``<name>.part`` and renamed only when the download is complete."""
        with self.stream(path) as response:
            if hasattr(target, "write"):
                return self._copy(response, target)  # type: ignore[arg-type]
            partial = f"{os.fspath(target)}.part"
            try:
                with open(partial, "wb") as out:
                    written = self._copy(response, out)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.remove(partial)
                raise
            os.replace(partial, target)
            return written

    def _copy(self, response: HTTPResponse, out: IO[bytes]) -> int:
        written = 0
        while True:
            with self._transport.reading("read"):
                chunk = response.read(CHUNK)
            if not chunk:
                break
            out.write(chunk)
            written += len(chunk)
        if response.length:
            # http.client's read(amount) ends quietly when the connection breaks early.
            self._transport.fail(
                RoostError(f"the download broke off after {written} bytes", code="network_error", operation="read")
            )
        return written

    def write(self, path: str, contents: Contents, *, mime: str | None = None) -> Answer:
        """New contents for a file (created when missing), sent as the raw body of a PUT and
        streamed when ``contents`` is a file or an iterable. ``mime`` becomes the file's type;
        without it the server picks one from the name or the bytes."""
        headers = {"content-type": mime or "application/octet-stream"}
        body: Body
        if isinstance(contents, str):
            body = contents.encode("utf-8")
        elif isinstance(contents, (bytes, bytearray, memoryview)):
            body = bytes(contents)
        else:
            body = contents
            size = _size_of(contents)
            if size is not None:
                headers["content-length"] = str(size)
        response = self._transport.send("write", "PUT", self._location(path, "write"), body, headers)
        return self._transport.answer("write", response)

    def upload(
        self,
        path: str,
        source: str | os.PathLike[str] | IO[bytes],
        *,
        mime: str | None = None,
        resumable: bool = False,
        chunk_size: int = 8 * 1024 * 1024,
        on_progress: Callable[[int, int], None] | None = None,
        retries: int = 5,
    ) -> Answer:
        """Stream a local file (a file name or a binary file) to ``path``; see :meth:`write`.

        With ``resumable=True`` the file goes by the tus protocol (docs/filestore.md, "Resumable
        uploads") in requests of ``chunk_size`` bytes, ``on_progress(sent, total)`` after each:
        after a dropped connection (or a 409/423 while the cut request ends) it asks the server
        how far the upload got and sends the rest from there, up to ``retries`` times in a row.
        The binary file must be seekable."""
        if hasattr(source, "read"):
            if resumable:
                return self._resumable(path, source, mime, chunk_size, on_progress, retries)  # type: ignore[arg-type]
            return self.write(path, source, mime=mime)  # type: ignore[arg-type]
        with open(source, "rb") as file:
            if resumable:
                return self._resumable(path, file, mime, chunk_size, on_progress, retries)
            return self.write(path, file, mime=mime)

    def _resumable(
        self,
        path: str,
        file: IO[bytes],
        mime: str | None,
        chunk_size: int,
        on_progress: Callable[[int, int], None] | None,
        retries: int,
    ) -> Answer:
        self._location(path, "upload")  # refuses "." and ".." as every method does
        total = file.seek(0, os.SEEK_END)
        metadata = {"path": path.strip("/"), **({"filetype": mime} if mime else {})}
        headers = {
            **_TUS,
            "upload-length": str(total),
            "upload-metadata": ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in metadata.items()),
        }
        # A small file goes whole in the request that makes the upload (tus's creation-with-upload):
        # one request instead of two; if its connection drops, the file starts again.
        whole = b""
        if 0 < total <= min(_WHOLE_IN_CREATION_BYTES, chunk_size):
            file.seek(0)
            whole = file.read(total)
            headers["content-type"] = "application/offset+octet-stream"
        with self._transport.send("upload", "POST", f"/{quote(self.name, safe='')}/@uploads", whole, headers) as made:
            location = made.getheader("location") or ""
            offset = int(made.getheader("upload-offset") or 0)
        if offset and on_progress is not None:
            on_progress(offset, total)
        failures = 0
        while offset < total:
            try:
                file.seek(offset)
                chunk = file.read(min(chunk_size, total - offset))
                patch = {**_TUS, "upload-offset": str(offset), "content-type": "application/offset+octet-stream"}
                with self._transport.send("upload", "PATCH", location, chunk, patch) as sent:
                    offset = int(sent.getheader("upload-offset") or offset)
                failures = 0
                if on_progress is not None:
                    on_progress(offset, total)
            except RoostError as err:
                failures += 1
                if err.status not in (0, 409, 423) or failures > retries:
                    raise
                time.sleep(min(0.2 * 2**failures, 5))
                with contextlib.suppress(RoostError):
                    with self._transport.send("upload", "HEAD", location, None, _TUS) as state:
                        offset = int(state.getheader("upload-offset") or offset)
        return self._transport.succeed("upload", {"result": True})

    # Direct transfers with the store's S3 bucket (docs/filestore.md, "Direct uploads and downloads (S3)")

    def direct_upload(
        self, path: str, source: str | os.PathLike[str] | IO[bytes], *, mime: str | None = None
    ) -> Answer:
        """Send a local file (a file name or a binary file) straight to the store's S3 bucket.

        Roost signs a PUT of the file's size and type (``@directUpload``), the bytes are streamed
        to the bucket, then Roost checks the object and records the file (``@directFinish``),
        whose entry this returns. Only for a store whose ``direct`` setting takes uploads (else
        ``direct_not_enabled``). ``mime`` is the file's type; without it the server picks one
        from the name. A PUT the bucket refuses raises ``storage_refused`` with its status.
        """
        if not hasattr(source, "read"):
            with open(source, "rb") as file:
                return self.direct_upload(path, file, mime=mime)
        size = _size_of(source)
        if size is None:
            message = "a direct upload announces its size first: give a regular file"
            raise RoostError(message, code="invalid_source", operation="directUpload")
        ticket = self._call("directUpload", path, {"size": size, **({"mime": mime} if mime else {})})
        self._put_to_bucket(ticket, source, size)  # type: ignore[arg-type]
        return self._call("directFinish", path, {"upload": ticket["upload"]})

    def _put_to_bucket(self, ticket: Answer, source: IO[bytes], size: int) -> None:
        """The signed request of ``ticket``, its body streamed from ``source``."""
        parts = urlsplit(ticket["url"])
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection_class = HTTPSConnection if parts.scheme == "https" else HTTPConnection
        timeout = self._transport.options.timeout
        connection = connection_class(parts.hostname or "", parts.port, timeout=timeout, blocksize=CHUNK)
        headers = {**ticket["headers"], "content-length": str(size)}
        try:
            with self._transport.reading("directUpload", cleanup=connection.close):
                connection.request(ticket["method"], target, body=source, headers=headers)
                response = connection.getresponse()
                response.read()
        finally:
            connection.close()
        if response.status >= 300:
            message = f"the bucket refused the upload (HTTP {response.status})"
            self._transport.fail(
                RoostError(message, status=response.status, code="storage_refused", operation="directUpload")
            )

    def link(self, path: str) -> Answer:
        """``{"result": true, "url", "expires"}``: a short-lived presigned GET of the file, straight
        from the bucket (a store with ``direct.downloads``)."""
        return self._call("link", path)

    # Owners, permissions and service

    def get_owner(self, path: str) -> Answer:
        """``{"result": true, "owner": <user name>}``."""
        return self._call("getOwner", path)

    def set_owner(self, path: str, owner: str) -> Answer:
        """Give the entry to another user (a name or id; administrators)."""
        return self._call("setOwner", path, {"owner": owner})

    def allowed(self, permissions: Permissions, path: str = "") -> Answer:
        """Does the caller hold these permissions (under ``path``, ``sys:owner`` counts)?"""
        return self._call("allowed", path, {"permission": permissions})

    def get_permissions(self) -> Answer:
        """The store's permission entries (administrators)."""
        return self._call("getPermissions", "")

    def set_permissions(self, permissions: PermissionEntry | Sequence[PermissionEntry]) -> Answer:
        """Add, replace or revoke groups of the store's permission entries (administrators)."""
        return self._call("setPermissions", "", {"permissions": permission_entries(permissions)})

    def ping(self) -> Answer:
        """Health check: ``{"result": 1}``."""
        return self._call("ping", "")


def _contents(contents: bytes | str | None) -> dict[str, Any]:
    """``contents`` as JSON can carry it: text as is, bytes base64 with ``decode: true``."""
    if contents is None:
        return {}
    if isinstance(contents, str):
        return {"contents": contents}
    return {"contents": base64.b64encode(contents).decode("ascii"), "decode": True}


def _size_of(contents: Any) -> int | None:
    """The bytes left in a regular file, so it goes with a Content-Length instead of chunked."""
    try:
        info = os.fstat(contents.fileno())
        return info.st_size - contents.tell() if stat.S_ISREG(info.st_mode) else None
    except (AttributeError, OSError, ValueError):
        return None

