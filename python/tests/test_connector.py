"""The connector itself: options, cookie mode, callbacks, transport failures, names."""
from __future__ import annotations

import json
import os
import re
import socket
import tempfile
import threading
import unittest
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import roost_client
from roost_client import RoostError
from tests.roost_server import ADMIN, REPO, server, unique


class OptionsTest(unittest.TestCase):
    def test_options_as_mapping_keywords_or_typescript_names(self) -> None:
        base_url = server().base_url
        self.assertEqual(roost_client.users({"base_url": base_url}).ping(), {"result": 1})
        self.assertEqual(roost_client.users({"baseUrl": base_url + "/"}).options.base_url, base_url)
        data = roost_client.datastore("data", {"baseUrl": base_url}, timeout=5)
        self.assertEqual((data.options.timeout, data.ping()), (5.0, {"result": 1}))
        self.assertEqual(roost_client.filestore("files", data.options).ping(), {"result": 1})

    def test_the_user_service_takes_no_name(self) -> None:
        with self.assertRaisesRegex(TypeError, "always called 'users'"):
            roost_client.users(base_url=server().base_url, name="people")
        with self.assertRaisesRegex(TypeError, "always called 'users'"):
            roost_client.users({"base_url": server().base_url, "name": "people"})

    def test_bad_options_are_refused(self) -> None:
        with self.assertRaisesRegex(TypeError, "base_url"):
            roost_client.users()
        with self.assertRaisesRegex(TypeError, "base_url"):
            roost_client.users(base_url="ftp://example.com")
        with self.assertRaisesRegex(TypeError, "unknown connector option"):
            roost_client.users(base_url=server().base_url, auth="x")
        with self.assertRaisesRegex(TypeError, "timeout"):
            roost_client.users(base_url=server().base_url, timeout=0)
        with self.assertRaisesRegex(TypeError, "cookies"):
            roost_client.users(base_url=server().base_url, cookies="yes")
        with self.assertRaises(TypeError):
            roost_client.datastore("", base_url=server().base_url)
        with self.assertRaises(TypeError):
            roost_client.filestore("a/b", base_url=server().base_url)

    def test_headers_go_with_every_request(self) -> None:
        name, _, token = server().new_user("bearer")
        users = server().users(headers={"Authorization": f"Bearer {token}"})
        self.assertEqual(users.identity()["name"], name)

    def test_token_can_be_set_later(self) -> None:
        name, _, token = server().new_user("later")
        users = server().users()
        self.assertFalse(users.authenticated())
        users.options.token = token
        self.assertEqual(users.name()["name"], name)


class CookieModeTest(unittest.TestCase):
    def test_signin_sets_the_cookie_shared_by_connectors_and_signout_clears_it(self) -> None:
        name, password, _ = server().new_user("cookie")
        jar = CookieJar()
        users = server().users(cookies=jar)
        files = server().filestore(cookies=jar)
        self.assertEqual(users.signin(name, password), {"result": True})
        self.assertIsNone(users.options.token)
        self.assertEqual([c.name for c in jar], ["auth"])
        self.assertEqual(users.identity()["name"], name)
        folder = unique("cookie-dir")
        self.assertEqual(files.new_item("", folder, type="d")["result"], 1)
        self.assertEqual(files.get_owner(folder)["owner"], name)
        self.assertTrue(users.signout()["result"])
        self.assertEqual(list(jar), [])
        with self.assertRaises(RoostError) as caught:
            users.identity()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "not_signed_in"))

    def test_credentials_include_makes_a_jar(self) -> None:
        name, password, _ = server().new_user("include")
        users = server().users(credentials="include")
        self.assertIsInstance(users.cookies, CookieJar)
        users.signin(name, password)
        self.assertEqual(users.profile()["name"], name)
        self.assertIsNone(server().users(credentials="omit").cookies)

    def test_a_wrong_password_sets_no_cookie(self) -> None:
        name, _, _ = server().new_user("wrong")
        users = server().users(cookies=True)
        with self.assertRaises(RoostError) as caught:
            users.signin(name, "not-the-password")
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_credentials"))
        self.assertEqual(list(users.cookies or []), [])


class CallbackTest(unittest.TestCase):
    def test_success_and_failure_callbacks(self) -> None:
        seen: list[tuple[str, Any]] = []
        users = server().users(
            on_success=lambda operation, result: seen.append(("ok", operation, result)),  # type: ignore[arg-type]
            onFailure=lambda error: seen.append(("failed", error.operation, error.code)),  # type: ignore[arg-type]
        )
        users.ping()
        with self.assertRaises(RoostError):
            users.profile()
        self.assertEqual(seen, [("ok", "ping", {"result": 1}), ("failed", "profile", "not_signed_in")])


class TransportFailureTest(unittest.TestCase):
    def test_nobody_listening_is_a_network_error(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with self.assertRaises(RoostError) as caught:
            roost_client.users(base_url=f"http://127.0.0.1:{port}").ping()
        self.assertEqual(
            (caught.exception.status, caught.exception.code, caught.exception.operation), (0, "network_error", "ping")
        )

    def test_a_server_that_never_answers_times_out(self) -> None:
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(1)
            port = silent.getsockname()[1]
            with self.assertRaises(RoostError) as caught:
                roost_client.datastore("data", base_url=f"http://127.0.0.1:{port}", timeout=0.3).ping()
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "timeout"))

    def test_a_download_cut_short_raises_and_leaves_no_file(self) -> None:
        # A server that promises 1000 bytes and hangs up after 10: the connection breaks mid-body.
        with socket.socket() as listener, tempfile.TemporaryDirectory() as folder:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)

            def answer_short() -> None:
                connection, _ = listener.accept()
                with connection:
                    connection.recv(65536)
                    connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n0123456789")

            thread = threading.Thread(target=answer_short)
            thread.start()
            files = roost_client.filestore("files", base_url=f"http://127.0.0.1:{listener.getsockname()[1]}", timeout=5)
            with self.assertRaises(RoostError) as caught:
                files.download("a.bin", Path(folder, "a.bin"))
            thread.join()
            self.assertEqual((caught.exception.status, caught.exception.code), (0, "network_error"))
            self.assertEqual(os.listdir(folder), [])

    def test_anonymous_and_oversized_requests(self) -> None:
        with self.assertRaises(RoostError) as caught:
            server().users().update_password("x", "y" * 300)
        self.assertEqual(caught.exception.status, 401)
        with self.assertRaises(RoostError) as huge:
            server().users(token=server().admin_token()).update(data="x" * 2_000_000)
        self.assertEqual((huge.exception.status, huge.exception.code), (413, "body_too_large"))

    def test_error_text_names_operation_status_and_fields(self) -> None:
        with self.assertRaises(RoostError) as caught:
            server().users().signup_direct("al", "nope", "pw")
        text = str(caught.exception)
        self.assertIn("signupDirect: Some fields are missing or invalid. (HTTP 200, validation_failure)", text)
        self.assertIn("('name', 'too short')", text)


class NamesTest(unittest.TestCase):
    """Every operation the service docs list has a method, under the seed's name and in snake_case."""

    def check(self, doc: str, cls: type, extra: set[str]) -> None:
        text = Path(REPO, "docs", doc).read_text()
        operations = set(re.findall(r"^### `(\w+)`", text, re.MULTILINE)) | extra
        self.assertGreater(len(operations), 10)
        for operation in sorted(operations):
            snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), operation)
            with self.subTest(operation=operation):
                self.assertTrue(callable(getattr(cls, operation, None)), operation)
                self.assertIs(getattr(cls, operation), getattr(cls, snake))

    def test_users(self) -> None:
        self.check("users.md", roost_client.Users, {"updateMail"})

    def test_datastore(self) -> None:
        self.check("datastore.md", roost_client.DataStore, set())

    def test_filestore(self) -> None:
        self.check("filestore.md", roost_client.FileStore, set())


if __name__ == "__main__":
    unittest.main()


class ApiKeyTest(unittest.TestCase):
    """Issue 42, item 4: an API key as the ``api_key`` option, sent as ``Authorization: Bearer``."""

    def make_key(self, scopes: list[dict[str, Any]]) -> dict[str, Any]:
        request = urllib.request.Request(
            server().base_url + "/api/keys",
            data=json.dumps({"name": unique("key"), "scopes": scopes}).encode(),
            headers={"content-type": "application/json", "x-auth-token": server().admin_token()},
            method="POST",
        )
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)

    def test_a_key_works_within_its_scopes_and_is_refused_outside_and_once_revoked(self) -> None:
        made = self.make_key([{"kind": "store", "name": "data", "access": ["read", "write"]}])
        data = server().datastore("data", api_key=made["token"])
        key = unique("from-a-key")
        self.assertEqual(data.new_item(key, "hello")["result"], 1)
        self.assertEqual(data.get_item(key)["value"], "hello")
        with self.assertRaises(RoostError) as refused:
            server().filestore("files", apiKey=made["token"]).list("/")
        self.assertEqual((refused.exception.status, refused.exception.code), (403, "not_allowed"))
        with self.assertRaisesRegex(TypeError, "api_key"):
            server().datastore("data", api_key="not-a-key")

        revoke = urllib.request.Request(
            server().base_url + "/api/keys/" + made["key"]["id"],
            headers={"x-auth-token": server().admin_token()},
            method="DELETE",
        )
        urllib.request.urlopen(revoke).close()
        with self.assertRaises(RoostError) as revoked:
            data.get_item(key)
        self.assertEqual((revoked.exception.status, revoked.exception.code), (401, "invalid_api_key"))
