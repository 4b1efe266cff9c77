"""Every operation of a file store through the Python connector, against a running Roost."""
from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
import unittest
import urllib.request
from typing import Any
from pathlib import Path

import roost_client
from roost_client import RoostError
from tests.roost_server import TwoUsersTestCase, MAX_FILE_BYTES, server, unique


class FileStoreTest(TwoUsersTestCase):
    @staticmethod
    def connect(**options: Any) -> roost_client.FileStore:
        return server().filestore(**options)

    def setUp(self) -> None:
        # Each test works in a directory of its own, owned by alice.
        self.dir = unique("dir")
        self.alice.new_item("", self.dir, type="d")
        self.tmp = Path(tempfile.mkdtemp(prefix="roost-files-"))

    def tearDown(self) -> None:
        for p in self.tmp.iterdir():
            p.unlink()
        self.tmp.rmdir()

    def path(self, *names: str) -> str:
        return "/".join([self.dir, *names])

    def test_ping(self) -> None:
        self.assertEqual(server().filestore().ping(), {"result": 1})

    def test_new_item_get_item_read(self) -> None:
        self.assertEqual(
            self.alice.new_item(self.dir, "a.txt", contents="hello world", cache="max-age=60"),
            {"result": 1, "success": ["a.txt"]},
        )
        entry = self.bob.get_item(self.path("a.txt"))
        self.assertEqual(
            {k: entry[k] for k in ["name", "type", "size", "mime", "cache"]},
            {"name": "a.txt", "type": "f", "size": 11, "mime": "text/plain", "cache": "max-age=60"},
        )
        self.assertEqual(self.bob.read(self.path("a.txt")), b"hello world")
        self.assertEqual(self.bob.read(self.path("a.txt"), start=6), b"world")
        self.assertEqual(self.bob.read(self.path("a.txt"), start=0, end=4), b"hello")
        self.assertEqual(self.alice.getItem("")["type"], "d")

    def test_new_item_with_bytes_goes_base64(self) -> None:
        data = bytes(range(256)) * 4
        self.alice.newItem(self.dir, "bin.dat", contents=data, mime="application/x-test")
        self.assertEqual(self.alice.read(self.path("bin.dat")), data)
        self.assertEqual(self.alice.get_item(self.path("bin.dat"))["mime"], "application/x-test")

    def test_an_existing_name_and_a_missing_parent(self) -> None:
        self.alice.new_item(self.dir, "a.txt", contents="1")
        with self.assertRaises(RoostError) as exists:
            self.alice.new_item(self.dir, "a.txt", contents="2")
        self.assertEqual((exists.exception.status, exists.exception.fields), (422, [("name", "exists")]))
        with self.assertRaises(RoostError) as missing:
            self.alice.new_item(self.path("nowhere"), "a.txt")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "not_found"))

    def test_set_item_changes_meta_and_contents(self) -> None:
        self.alice.new_item(self.dir, "a.txt", contents="old")
        self.assertEqual(
            self.alice.set_item(self.path("a.txt"), mime="text/markdown", cache="public, max-age=3600"), {"result": 1}
        )
        self.assertEqual(self.alice.get_item(self.path("a.txt"))["mime"], "text/markdown")
        # New contents without a mime pick the type again (from the name).
        self.alice.setItem(self.path("a.txt"), contents=b"new bytes")
        entry = self.alice.get_item(self.path("a.txt"))
        self.assertEqual((entry["mime"], entry["cache"], entry["size"]), ("text/plain", "public, max-age=3600", 9))
        self.assertEqual(self.alice.read(self.path("a.txt")), b"new bytes")
        with self.assertRaises(RoostError) as other:
            self.bob.set_item(self.path("a.txt"), contents="mine now")
        self.assertEqual((other.exception.status, other.exception.code), (403, "not_allowed"))

    def test_write_creates_and_replaces(self) -> None:
        self.assertEqual(self.alice.write(self.path("w.json"), '{"a": 1}', mime="application/json"), {"result": True})
        self.assertEqual(self.alice.get_item(self.path("w.json"))["mime"], "application/json")
        self.alice.write(self.path("w.json"), iter([b'{"b":', b" 2}"]))
        self.assertEqual(self.alice.read(self.path("w.json")), b'{"b": 2}')
        self.alice.write(self.path("empty"), b"")
        self.assertEqual(self.alice.get_item(self.path("empty"))["size"], 0)
        with self.assertRaises(RoostError) as directory:
            self.alice.write(self.dir, b"x")
        self.assertEqual((directory.exception.status, directory.exception.code), (422, "not_a_file"))

    def test_upload_and_download_stream_a_large_file(self) -> None:
        source = self.tmp / "big.bin"
        with open(source, "wb") as out:
            for n in range(48):
                out.write(hashlib.sha256(str(n).encode()).digest() * 2048)  # 64 KiB each: 3 MiB
        self.assertEqual(self.alice.upload(self.path("big.bin"), source)["result"], True)
        self.assertEqual(self.alice.get_item(self.path("big.bin"))["size"], source.stat().st_size)
        target = self.tmp / "copy.bin"
        self.assertEqual(self.bob.download(self.path("big.bin"), target), source.stat().st_size)
        self.assertEqual(target.read_bytes(), source.read_bytes())
        buffer = io.BytesIO()
        self.bob.download(self.path("big.bin"), buffer)
        self.assertEqual(hashlib.sha256(buffer.getvalue()).digest(), hashlib.sha256(source.read_bytes()).digest())
        with self.bob.stream(self.path("big.bin")) as response:
            self.assertEqual(response.headers["content-length"], str(source.stat().st_size))
            self.assertTrue(response.headers["etag"])
            self.assertEqual(len(response.read(1000)), 1000)

    def test_resumable_upload_in_chunks_and_its_refusals(self) -> None:
        source = self.tmp / "tus.bin"
        source.write_bytes(b"".join(hashlib.sha256(str(n).encode()).digest() for n in range(10_000)))  # 320000 B
        seen: list[tuple[int, int]] = []
        answer = self.alice.upload(
            self.path("tus.bin"),
            source,
            mime="application/x-tus",
            resumable=True,
            chunk_size=100_000,
            on_progress=lambda sent, total: seen.append((sent, total)),
        )
        self.assertEqual(answer, {"result": True})
        self.assertEqual(seen, [(100_000, 320_000), (200_000, 320_000), (300_000, 320_000), (320_000, 320_000)])
        self.assertEqual(self.bob.read(self.path("tus.bin")), source.read_bytes())
        self.assertEqual(self.alice.get_item(self.path("tus.bin"))["mime"], "application/x-tus")
        # Refused at creation, before a byte: Bob may not replace Alice's file; nor a file over the limit.
        with self.assertRaises(RoostError) as refused:
            self.bob.upload(self.path("tus.bin"), io.BytesIO(b"mine"), resumable=True)
        self.assertEqual((refused.exception.status, refused.exception.code), (403, "not_allowed"))
        with self.assertRaises(RoostError) as large:
            self.alice.upload(self.path("l.bin"), io.BytesIO(bytes(MAX_FILE_BYTES + 1)), resumable=True)
        self.assertEqual((large.exception.status, large.exception.code), (413, "storage_limit"))

    def test_a_small_resumable_upload_is_one_request(self) -> None:
        def tus_requests(method: str) -> int:
            token = server().admin_token()
            request = urllib.request.Request(server().base_url + "/metrics", headers={"x-auth-token": token})
            with urllib.request.urlopen(request) as answer:
                text = answer.read().decode()
            pattern = rf'^roost_http_requests_total\{{method="{method}",route="/files/@uploads[^"]*"[^}}]*\}} (\d+)$'
            return sum(int(n) for n in re.findall(pattern, text, re.MULTILINE))

        before = (tus_requests("POST"), tus_requests("PATCH"))
        seen: list[tuple[int, int]] = []
        small = bytes(range(256)) * 200
        answer = self.alice.upload(
            self.path("small.bin"), io.BytesIO(small), resumable=True, on_progress=lambda *p: seen.append(p)
        )
        self.assertEqual(answer, {"result": True})
        self.assertEqual(self.bob.read(self.path("small.bin")), small)
        self.assertEqual(seen, [(len(small), len(small))])
        # Whole in the creating request (tus's creation-with-upload): one POST, no PATCH.
        self.assertEqual((tus_requests("POST"), tus_requests("PATCH")), (before[0] + 1, before[1]))

    def test_upload_from_an_open_file_and_a_pipe(self) -> None:
        with open(self.tmp / "f.txt", "wb") as f:
            f.write(b"from a file")
        with open(self.tmp / "f.txt", "rb") as f:
            self.alice.upload(self.path("f.txt"), f, mime="text/plain")
        self.assertEqual(self.alice.read(self.path("f.txt")), b"from a file")
        read_end, write_end = os.pipe()
        os.write(write_end, b"from a pipe")
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            self.alice.upload(self.path("p.txt"), pipe)
        self.assertEqual(self.alice.read(self.path("p.txt")), b"from a pipe")

    def test_a_file_over_the_limit_is_refused_and_the_old_contents_stay(self) -> None:
        self.alice.write(self.path("keep.bin"), b"old contents")
        with self.assertRaises(RoostError) as caught:
            self.alice.write(self.path("keep.bin"), b"x" * (MAX_FILE_BYTES + 1))
        self.assertEqual((caught.exception.status, caught.exception.code), (413, "storage_limit"))
        self.assertEqual(self.alice.read(self.path("keep.bin")), b"old contents")

    def test_failed_download_leaves_no_file(self) -> None:
        target = self.tmp / "missing.bin"
        with self.assertRaises(RoostError) as caught:
            self.alice.download(self.path("missing.bin"), target)
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))
        self.assertEqual(list(self.tmp.iterdir()), [])

    def test_move_and_remove_item(self) -> None:
        self.alice.new_item(self.dir, "sub", type="d")
        self.alice.new_item(self.path("sub"), "a.txt", contents="a")
        self.assertEqual(self.alice.move(self.path("sub"), f"/{self.dir}/moved"), {"result": True})
        self.assertEqual(self.alice.read(self.path("moved", "a.txt")), b"a")
        with self.assertRaises(RoostError) as gone:
            self.alice.get_item(self.path("sub"))
        self.assertEqual(gone.exception.status, 404)
        with self.assertRaises(RoostError) as not_empty:
            self.alice.remove_item(self.path("moved"))
        self.assertEqual((not_empty.exception.status, not_empty.exception.code), (422, "not_empty"))
        self.assertEqual(self.alice.removeItem(self.path("moved"), recursive=True), {"result": 2})
        self.assertEqual(self.alice.list(self.dir)["items"], [])

    def test_list_filters_sorts_and_pages(self) -> None:
        self.alice.new_item(self.dir, "d1", type="d")
        for name, size in [("a.txt", 3), ("b.txt", 1), ("c.txt", 2)]:
            self.alice.new_item(self.dir, name, contents="x" * size)
        files = self.bob.list(self.dir, type="f", sort="size", order=">", start=1, size=2)
        self.assertEqual([i["name"] for i in files["items"]], ["a.txt", "c.txt"])
        self.assertEqual((files["start"], files["size"], files["total"]), (1, 2, 3))
        self.assertEqual([i["name"] for i in self.bob.list(self.dir, type="d")["items"]], ["d1"])
        self.assertEqual(self.bob.list(self.dir)["total"], 4)
        with self.assertRaises(RoostError) as file:
            self.bob.list(self.path("a.txt"))
        self.assertEqual(file.exception.code, "not_a_directory")

    def test_owner_operations(self) -> None:
        self.alice.new_item(self.dir, "a.txt", contents="a")
        self.assertEqual(self.bob.get_owner(self.path("a.txt")), {"result": True, "owner": self.alice_name})
        with self.assertRaises(RoostError) as refused:
            self.alice.set_owner(self.path("a.txt"), self.bob_name)
        self.assertEqual(refused.exception.status, 403)
        self.assertEqual(self.admin.setOwner(self.path("a.txt"), self.bob_name), {"result": True})
        self.assertEqual(self.alice.getOwner(self.path("a.txt"))["owner"], self.bob_name)
        with self.assertRaises(RoostError) as unknown:
            self.admin.set_owner(self.path("a.txt"), unique("nobody"))
        self.assertEqual(unknown.exception.fields, [("owner", "unknown_user")])

    def test_allowed_under_a_path(self) -> None:
        self.alice.new_item(self.dir, "a.txt", contents="a")
        self.assertEqual(
            self.alice.allowed(["read", "write", "setOwner"], self.path("a.txt")),
            {"result": False, "read": True, "write": True, "setOwner": False},
        )
        self.assertEqual(self.bob.allowed("write", self.path("a.txt")), {"result": False, "write": False})
        self.assertEqual(server().filestore().allowed("ping"), {"result": True, "ping": True})

    def test_permissions_of_the_store(self) -> None:
        entries = {e["permission"]: e["groups"] for e in self.admin.get_permissions()["permissions"]}
        self.assertEqual(entries["move"], ["sys:owner", "admins"])
        changed = self.admin.set_permissions({"permission": "getOwner", "group": "sys:everyone"})
        self.assertIn("sys:everyone", {e["permission"]: e["groups"] for e in changed["permissions"]}["getOwner"])
        self.assertEqual(server().filestore().get_owner(self.dir)["owner"], self.alice_name)
        self.admin.setPermissions({"permission": "getOwner", "group": "sys:everyone", "action": "revoke"})
        with self.assertRaises(RoostError) as anonymous:
            server().filestore().get_owner(self.dir)
        self.assertEqual((anonymous.exception.status, anonymous.exception.code), (401, "not_signed_in"))
        self.assertNotIn(
            "sys:everyone",
            {e["permission"]: e["groups"] for e in self.admin.getPermissions()["permissions"]}["getOwner"],
        )
        with self.assertRaises(RoostError) as user:
            self.bob.set_permissions({"permission": "read", "group": "sys:everyone"})
        self.assertEqual(user.exception.status, 403)

    def test_hostile_paths_are_refused_not_followed(self) -> None:
        for path in [f"{self.dir}/../{self.dir}", f"{self.dir}/./a", f"{self.dir}/@getItem", f"{self.dir}/a\x00b"]:
            with self.subTest(path=path), self.assertRaises(RoostError) as caught:
                self.alice.write(path, b"x")
            self.assertEqual(caught.exception.code, "invalid_path")
        # Characters with a meaning in URLs are only a name.
        self.alice.write(self.path("a?b#c%d e.txt"), b"odd name")
        self.assertEqual(self.alice.read(self.path("a?b#c%d e.txt")), b"odd name")
        self.assertEqual(self.alice.url(self.path("x y")), f"{server().base_url}/files/{self.dir}/x%20y")


if __name__ == "__main__":
    unittest.main()
