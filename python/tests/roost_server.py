"""A real Roost server for the connector tests: one process for the whole suite.

It runs ``node packages/server/bin/roost.js serve`` on SQLite in a temporary data directory,
with the first administrator made by ``roost user add``, and stops when the test process ends.
Mails land in the outbox (``<dataDir>/outbox/*.json``), where the tests read tokens from.
"""
from __future__ import annotations

import atexit
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
import uuid
from pathlib import Path
from typing import Any, Callable

import roost_client

REPO = Path(__file__).resolve().parents[2]
ROOST = REPO / "packages" / "server" / "bin" / "roost.js"
ADMIN = ("admin", "admin@example.com", "admin-password-1")
ADMIN_ADDRESS = "postmaster@example.com"
MAX_FILE_BYTES = 4 * 1024 * 1024
START_SECONDS = 60

# The collections of the TypeScript connector's tests, one definition for both connectors.
COLLECTIONS = json.loads((REPO / "packages" / "client" / "test" / "fixtures" / "collections.json").read_text())

CONFIG: dict[str, Any] = {
    "logLevel": "info",
    "mail": {"adminAddress": ADMIN_ADDRESS},
    # The suite signs up and signs in more often than a person would.
    "rateLimit": {"max": 10_000},
    "dataStores": {"data": {}, "notes": {"maxBatch": 2}},
    "fileStores": {"files": {"maxFileBytes": MAX_FILE_BYTES}},
    "collections": COLLECTIONS,
}


class RoostServer:
    """One Roost process and its data directory."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="roost-python-"))
        self.data_dir = self.dir / "data"
        self.config_file = self.dir / "roost.config.json"
        self.config_file.write_text(json.dumps(config or CONFIG))
        self.env = {
            **os.environ,
            "ROOST_CONFIG": str(self.config_file),
            "ROOST_DATA_DIR": str(self.data_dir),
            "ROOST_PORT": "0",
        }
        self.env.pop("ROOST_DATABASE_URL", None)
        self.process: subprocess.Popen[str] | None = None
        self.base_url = ""
        self.log: list[str] = []

    def start(self) -> None:
        name, email, password = ADMIN
        subprocess.run(
            ["node", str(ROOST), "user", "add", "--name", name, "--email", email]
            + ["--password", password, "--group", "admins"],
            cwd=self.dir, env=self.env, check=True, capture_output=True, text=True, timeout=START_SECONDS,
        )
        self.process = subprocess.Popen(
            ["node", str(ROOST), "serve"],
            cwd=self.dir, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        listening = threading.Event()

        def drain() -> None:
            # Keep reading, so the server never blocks on a full pipe; the address is in one line.
            assert self.process is not None and self.process.stdout is not None
            for line in self.process.stdout:
                self.log.append(line)
                found = re.search(r"Roost listens on (http://[^\s\"]+)", line)
                if found and not self.base_url:
                    self.base_url = found.group(1)
                    listening.set()
            listening.set()

        self._drain = threading.Thread(target=drain, daemon=True)
        self._drain.start()
        if not listening.wait(START_SECONDS) or not self.base_url:
            self.stop()
            raise RuntimeError("Roost did not start:\n" + "".join(self.log[-30:]))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self._drain.join(5)
            if self.process.stdout is not None:
                self.process.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # Connectors

    def users(self, **options: Any) -> roost_client.Users:
        return roost_client.users(base_url=self.base_url, **options)

    def datastore(self, name: str = "data", **options: Any) -> roost_client.DataStore:
        return roost_client.datastore(name, base_url=self.base_url, **options)

    def filestore(self, name: str = "files", **options: Any) -> roost_client.FileStore:
        return roost_client.filestore(name, base_url=self.base_url, **options)

    def collection(self, name: str = "posts", **options: Any) -> roost_client.Collection:
        return roost_client.collection(name, base_url=self.base_url, **options)

    def admin_token(self) -> str:
        users = self.users()
        return users.token(ADMIN[0], ADMIN[2])["token"]

    def new_user(self, prefix: str = "user") -> tuple[str, str, str]:
        """An active account made by the administrator: ``(name, password, token)``."""
        name = unique(prefix)
        password = f"{name}-password"
        admin = self.users(token=self.admin_token())
        admin.set_permissions({"permission": "signupDirect", "groups": ["sys:everyone"], "action": "add"})
        self.users().signup_direct(name, f"{name}@example.com", password)
        return name, password, self.users().token(name, password)["token"]

    # Mails

    def outbox(self) -> list[dict[str, Any]]:
        folder = self.data_dir / "outbox"
        if not folder.is_dir():
            return []
        return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]

    def mails_where(self, matches: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> list[dict[str, Any]]:
        """The outbox mails that match, once there is at least one: Roost delivers mails from a
        queue after it has answered (packages/server/src/mail/mail-queue.ts), so a mail may land
        a moment after the call that sent it."""
        deadline = time.monotonic() + timeout
        while True:
            mails = [m for m in self.outbox() if matches(m)]
            if mails or time.monotonic() > deadline:
                return mails
            time.sleep(0.02)

    def last_mail(self, to: str, kind: str) -> dict[str, Any]:
        mails = self.mails_where(lambda m: m["to"] == to and m["kind"] == kind)
        if not mails:
            raise AssertionError(f"no {kind} mail to {to}")
        return mails[-1]

    def mailed_token(self, to: str, kind: str) -> str:
        text = self.last_mail(to, kind)["text"]
        found = re.search(r"token=([A-Za-z0-9_-]+)", text)
        if not found:
            raise AssertionError(f"no token in the {kind} mail: {text}")
        return found.group(1)


def unique(prefix: str) -> str:
    """A name no other test uses (names are 3-40 letters, digits, '.', '_', '-')."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class SmsGateway:
    """A gateway for texts on 127.0.0.1 (Roost's HTTP sender posts each as JSON): the texts it got."""

    def __init__(self) -> None:
        self.texts: list[dict[str, Any]] = []
        texts = self.texts

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                length = int(self.headers.get("content-length", "0"))
                texts.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/sms"

    def code(self, to: str, nth: int, timeout: float = 10.0) -> str:
        """The code of the ``nth`` text to ``to`` (from 1), waiting for it: a sign-in's text goes after its answer."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            mine = [t for t in self.texts if t["to"] == to]
            if len(mine) >= nth:
                return re.findall(r"\d{6}", mine[nth - 1]["text"])[0]
            time.sleep(0.05)
        raise AssertionError(f"no text {nth} to {to}")


_server: RoostServer | None = None
gateway = SmsGateway()


def server() -> RoostServer:
    """The suite's server, started on first use and stopped when the process exits."""
    global _server
    if _server is None:
        sms = {"sender": {"url": gateway.url}, "resendSeconds": 0}
        started = RoostServer({**CONFIG, "users": {"sms": sms}})
        started.start()
        atexit.register(started.stop)
        _server = started
    return _server


class TwoUsersTestCase(unittest.TestCase):
    """Connectors of one store for two users, alice and bob, and for the administrator.

    A subclass says which store with ``connect(**options)``.
    """

    alice: Any
    bob: Any
    admin: Any
    alice_name: str
    bob_name: str

    @staticmethod
    def connect(**options: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def setUpClass(cls) -> None:
        cls.alice_name, _, alice_token = server().new_user("alice")
        cls.bob_name, _, bob_token = server().new_user("bob")
        cls.alice = cls.connect(token=alice_token)
        cls.bob = cls.connect(token=bob_token)
        cls.admin = cls.connect(token=server().admin_token())
