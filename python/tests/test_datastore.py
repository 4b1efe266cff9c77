"""Every operation of a data store through the Python connector, against a running Roost."""
from __future__ import annotations

import unittest
from typing import Any

import roost_client
from roost_client import RoostError
from tests.roost_server import TwoUsersTestCase, server, unique


class DataStoreTest(TwoUsersTestCase):
    @staticmethod
    def connect(**options: Any) -> roost_client.DataStore:
        return server().datastore(**options)

    def setUp(self) -> None:
        self.prefix = unique("k")

    def key(self, name: str) -> str:
        return f"{self.prefix}-{name}"

    def test_ping(self) -> None:
        self.assertEqual(server().datastore().ping(), {"result": 1})

    def test_new_item_get_item_round_trip(self) -> None:
        answer = self.alice.new_item(
            [{"key": self.key("color"), "value": "blue"}, {"key": self.key("answer"), "value": 42}]
        )
        self.assertEqual(answer["result"], 2)
        self.assertEqual([s[0] for s in answer["success"]], [self.key("color"), self.key("answer")])
        one = self.bob.get_item(self.key("color"))
        self.assertEqual((one["key"], one["value"], one["owner"]), (self.key("color"), "blue", self.alice_name))
        self.assertEqual(one["items"][0]["id"], one["id"])
        by_id = self.bob.getItem(id=one["id"])
        self.assertEqual(by_id["value"], "blue")
        several = self.bob.get_item([self.key("answer"), self.key("color"), self.key("missing")])
        self.assertEqual(
            [(i["key"], i["value"]) for i in several["items"]], [(self.key("answer"), 42), (self.key("color"), "blue")]
        )

    def test_new_item_single_forms(self) -> None:
        self.assertEqual(self.alice.new_item(self.key("a"), "x")["result"], 1)
        self.assertEqual(self.alice.newItem({"key": self.key("b"), "value": 1.5})["result"], 1)
        self.assertEqual(self.alice.get_item(self.key("b"))["value"], 1.5)
        with self.assertRaises(TypeError):
            self.alice.new_item({"key": self.key("c"), "value": 1}, 2)

    def test_new_item_of_an_existing_key_stores_nothing(self) -> None:
        self.alice.new_item(self.key("color"), "blue")
        with self.assertRaises(RoostError) as caught:
            self.bob.new_item([{"key": self.key("size"), "value": "L"}, {"key": self.key("color"), "value": "red"}])
        error = caught.exception
        self.assertEqual((error.status, error.code), (409, "item_exists"))
        self.assertEqual(error.fields, [(self.key("color"), "exists")])
        self.assertEqual(error.body["success"], [])
        with self.assertRaises(RoostError) as missing:
            self.bob.get_item(self.key("size"))
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "item_not_found"))

    def test_invalid_items_name_the_field(self) -> None:
        with self.assertRaises(RoostError) as caught:
            self.alice.new_item([{"key": "", "value": "x"}, {"key": self.key("obj"), "value": {"a": 1}}])
        self.assertEqual(caught.exception.status, 422)
        self.assertEqual(caught.exception.fields, [("items.0.key", "required"), ("items.1.value", "invalid")])

    def test_batch_limit_of_the_store(self) -> None:
        notes = server().datastore("notes", token=self.alice.options.token)
        with self.assertRaises(RoostError) as caught:
            notes.new_item([{"key": self.key(str(n)), "value": n} for n in range(3)])
        self.assertEqual((caught.exception.status, caught.exception.code), (413, "too_many_items"))

    def test_anonymous_writes_are_refused(self) -> None:
        with self.assertRaises(RoostError) as caught:
            server().datastore().new_item(self.key("anon"), 1)
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "not_signed_in"))

    def test_set_item_creates_replaces_and_checks_the_owner(self) -> None:
        answer = self.alice.set_item(
            [{"key": self.key("color"), "value": "green"}, {"key": self.key("shape"), "value": "round"}]
        )
        self.assertEqual(answer["result"], 2)
        item = self.alice.get_item(self.key("color"))
        self.assertEqual(self.alice.set_item(self.key("color"), "teal")["result"], 1)
        self.assertEqual(self.alice.setItem(id=item["id"], value="navy")["success"][0][0], item["id"])
        replaced = self.bob.get_item(self.key("color"))
        self.assertEqual((replaced["value"], replaced["id"], replaced["owner"]), ("navy", item["id"], self.alice_name))
        with self.assertRaises(RoostError) as caught:
            self.bob.set_item(self.key("color"), "red")
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "not_allowed"))
        with self.assertRaises(TypeError):
            self.alice.set_item()

    def test_remove_item_by_key_id_and_items(self) -> None:
        self.alice.new_item([{"key": self.key(n), "value": n} for n in ["a", "b", "c", "d"]])
        self.assertEqual(self.alice.remove_item(self.key("a")), {"result": 1, "success": [self.key("a")]})
        b_id = self.alice.get_item(self.key("b"))["id"]
        self.assertEqual(self.alice.removeItem(id=b_id)["result"], 1)
        answer = self.alice.remove_item(
            items=[{"key": self.key("c")}, {"key": self.key("d")}, {"key": self.key("never")}]
        )
        self.assertEqual(answer, {"result": 2, "success": [self.key("c"), self.key("d")]})
        self.assertEqual(self.alice.list(key=[self.key(n) for n in "abcd"])["items"], [])

    def test_list_and_keys_page_sort_and_filter(self) -> None:
        self.alice.new_item([{"key": self.key("1"), "value": "zebra"}, {"key": self.key("2"), "value": 7}])
        self.bob.new_item(self.key("3"), "apple")
        keys = [self.key(n) for n in "123"]
        listed = self.bob.list(key=keys, sort="value", order=">", start=1, size=2)
        self.assertEqual([i["value"] for i in listed["items"]], ["zebra", "apple"])
        self.assertEqual((listed["start"], listed["size"], listed["total"]), (1, 2, 3))
        mine = self.bob.list(owner=self.bob_name, key=keys)
        self.assertEqual([i["key"] for i in mine["items"]], [self.key("3")])
        page = self.alice.keys(owner=self.alice_name, order="<", start=1, size=500)
        self.assertIn(self.key("1"), page["keys"])
        self.assertNotIn(self.key("3"), page["keys"])
        self.assertEqual(page["keys"], sorted(page["keys"]))
        with self.assertRaises(RoostError) as caught:
            self.alice.list(sort="colour")  # type: ignore[arg-type]
        self.assertEqual((caught.exception.status, caught.exception.fields), (422, [("sort", "invalid")]))

    def test_get_owner_and_set_owner(self) -> None:
        self.alice.new_item(self.key("gift"), "book")
        owner = self.bob.get_owner(self.key("gift"))
        self.assertEqual((owner["key"], owner["owner"]), (self.key("gift"), self.alice_name))
        self.assertEqual(self.bob.getOwner(id=owner["id"])["owner"], self.alice_name)
        with self.assertRaises(RoostError) as refused:
            self.alice.set_owner(self.bob_name, self.key("gift"))
        self.assertEqual((refused.exception.status, refused.exception.code), (403, "not_allowed"))
        self.assertEqual(self.admin.set_owner(self.bob_name, self.key("gift"))["result"], 1)
        self.assertEqual(self.bob.get_owner([self.key("gift")])["items"][0]["owner"], self.bob_name)
        self.assertEqual(self.admin.setOwner(self.alice_name, id=owner["id"], owner=self.bob_name)["result"], 1)
        with self.assertRaises(RoostError) as unknown:
            self.admin.set_owner(unique("nobody"), self.key("gift"))
        self.assertEqual(unknown.exception.fields, [("newOwner", "unknown_user")])

    def test_allowed(self) -> None:
        self.assertEqual(
            self.bob.allowed(["getItem", "setItem", "setOwner"]),
            {"result": False, "getItem": True, "setItem": True, "setOwner": False},
        )
        self.assertEqual(server().datastore().allowed("ping"), {"result": True, "ping": True})

    def test_permissions_of_the_store(self) -> None:
        notes = server().datastore("notes", token=self.admin.options.token)
        entries = {e["permission"]: e["groups"] for e in notes.get_permissions()["permissions"]}
        self.assertEqual(entries["setOwner"], ["admins"])
        changed = notes.set_permissions({"permission": "setOwner", "group": "sys:owner"})
        self.assertIn("sys:owner", {e["permission"]: e["groups"] for e in changed["permissions"]}["setOwner"])
        notes.setPermissions([{"permission": "setOwner", "groups": ["sys:owner"], "action": "revoke"}])
        self.assertEqual(
            {e["permission"]: e["groups"] for e in notes.getPermissions()["permissions"]}["setOwner"], ["admins"]
        )
        with self.assertRaises(RoostError) as user:
            self.alice.get_permissions()
        self.assertEqual(user.exception.status, 403)
        with self.assertRaises(RoostError) as unknown:
            notes.set_permissions({"permission": "fly", "group": "admins"})
        self.assertEqual((unknown.exception.status, unknown.exception.code), (422, "unknown_permission"))

    def test_unknown_store(self) -> None:
        with self.assertRaises(RoostError) as caught:
            server().datastore("nowhere").ping()
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))


if __name__ == "__main__":
    unittest.main()
