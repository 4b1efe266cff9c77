"""Live changes through the Python connector: an iterator of events, resume, refusals."""
from __future__ import annotations

import threading
import unittest
from typing import Iterator

import roost_client
from roost_client import LiveEvent, RoostError
from tests.roost_server import server, unique


class RealtimeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.name, _, self.token = server().new_user("live")
        self.live = roost_client.realtime(base_url=server().base_url, token=self.token)
        self.data = server().datastore(token=self.token)
        self.prefix = unique("rt")

    def opened(self, events: Iterator[LiveEvent]) -> None:
        """Writes under ``<prefix>/ping/`` until the iterator yields one: the stream is then open."""
        stop = threading.Event()

        def ping() -> None:
            i = 0
            while not stop.wait(0.1):
                self.data.set_item(f"{self.prefix}/ping/{i}", i)
                i += 1

        thread = threading.Thread(target=ping, daemon=True)
        thread.start()
        try:
            first = next(events)
            self.assertIn("/ping/", first.data["key"])
        finally:
            stop.set()
            thread.join()

    def next_real(self, events: Iterator[LiveEvent]) -> LiveEvent:
        for event in events:
            if "/ping/" not in str(event.data.get("key", "")):
                return event
        raise AssertionError("the stream ended")

    def test_events_carry_the_item_as_get_item_answers_it(self) -> None:
        events = self.live.events(f"items/data?prefix={self.prefix}/")
        try:
            self.opened(events)
            self.data.new_item(f"{self.prefix}/color", "blue")
            created = self.next_real(events)
            self.assertEqual(created.kind, "item.created")
            self.assertEqual(created.topic, f"items/data?prefix={self.prefix}/")
            answer = self.data.get_item(f"{self.prefix}/color")
            self.assertEqual(created.data["item"], answer["items"][0])
            self.data.remove_item(f"{self.prefix}/color")
            removed = self.next_real(events)
            self.assertEqual((removed.kind, removed.data["key"]), ("item.removed", f"{self.prefix}/color"))
            self.assertNotIn("item", removed.data)
        finally:
            events.close()  # type: ignore[attr-defined]

    def test_resume_after_an_event_gets_what_came_since_once(self) -> None:
        events = self.live.events(f"items/data?prefix={self.prefix}/")
        self.opened(events)
        self.data.set_item(f"{self.prefix}/a", 1)
        seen = self.next_real(events)
        events.close()  # type: ignore[attr-defined]
        self.data.set_item(f"{self.prefix}/b", 2)
        self.data.set_item(f"{self.prefix}/c", 3)
        again = self.live.events(f"items/data?prefix={self.prefix}/", last_event_id=seen.event_id)
        try:
            keys = [next(again).data["key"] for _ in range(2)]
            self.assertEqual(keys, [f"{self.prefix}/b", f"{self.prefix}/c"])
        finally:
            again.close()  # type: ignore[attr-defined]

    def test_account_events_and_signing_out_ends_the_iteration(self) -> None:
        events = self.live.events("account", f"items/data?prefix={self.prefix}/")
        self.opened(events)
        server().users(token=self.token).update(realname="Live Reader")
        changed = self.next_real(events)
        self.assertEqual((changed.topic, changed.kind), ("account", "account.changed"))
        self.assertEqual(changed.data["user"]["realname"], "Live Reader")
        server().users(token=self.token).signout()
        with self.assertRaises(RoostError) as caught:
            while True:
                self.next_real(events)
        self.assertEqual(caught.exception.code, "signed_out")

    def test_refusals_raise(self) -> None:
        anonymous = roost_client.realtime(base_url=server().base_url)
        with self.assertRaises(RoostError) as caught:
            next(anonymous.events("items/data"))
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "not_signed_in"))
        with self.assertRaises(RoostError) as caught:
            next(self.live.events("items/data/x"))
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "validation_failure"))
        with self.assertRaises(TypeError):
            next(self.live.events())


if __name__ == "__main__":
    unittest.main()
