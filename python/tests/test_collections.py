"""A collection's records through the Python connector, against a running Roost with the
collections of packages/client/test/fixtures/collections.json (``posts`` and ``authors``)."""
from __future__ import annotations

import datetime
import unittest
from typing import Any

import roost_client
from roost_client import RoostError, build_filter
from tests.roost_server import TwoUsersTestCase, server, unique


class CollectionTest(TwoUsersTestCase):
    @staticmethod
    def connect(**options: Any) -> roost_client.Collection:
        return server().collection("posts", **options)

    def count(self, **query: Any) -> int:
        total: int = self.alice.list(total=True, per_page=1, **query)["total"]
        return total

    def test_create_get_update_replace_delete(self) -> None:
        made = self.alice.create({"title": "Road works", "priority": 2, "address": {"city": "Oslo"}})
        self.assertRegex(made["id"], r"^[0-9a-f]{8}-[0-9a-f]{4}-7")
        self.assertEqual((made["status"], made["created"]), ("open", made["updated"]), "the schema default")
        self.assertEqual(self.bob.get(made["id"]), made)
        changed = self.alice.update(made["id"], {"priority": None, "tags": ["a"]})
        self.assertNotIn("priority", changed, "None removes a field")
        self.assertEqual((changed["title"], changed["tags"]), ("Road works", ["a"]))
        replaced = self.alice.replace(made["id"], {"title": "Whole"})
        self.assertEqual(sorted(replaced), ["created", "id", "owner", "status", "title", "updated"])
        self.assertIsNone(self.alice.delete(made["id"]))
        with self.assertRaises(RoostError) as gone:
            self.alice.get(made["id"])
        self.assertEqual((gone.exception.status, gone.exception.code), (404, "record_not_found"))

    def test_a_refused_write_names_every_bad_field_and_stores_nothing(self) -> None:
        before = self.count()
        with self.assertRaises(RoostError) as caught:
            self.alice.create({"title": "", "priority": 9, "tags": "x", "address": {}, "extra": 1})
        error = caught.exception
        self.assertEqual((error.status, error.code), (422, "validation_failure"))
        self.assertEqual({f for f, _ in error.fields}, {"title", "priority", "tags", "address.city", "extra"})
        with self.assertRaises(TypeError):
            self.alice.create({"title": "x", "priority": float("nan")})
        self.assertEqual(self.count(), before)

    def test_callers_without_permission_and_hostile_ids_are_refused(self) -> None:
        with self.assertRaises(RoostError) as anonymous:
            server().collection().create({"title": "anon"})
        self.assertEqual((anonymous.exception.status, anonymous.exception.code), (401, "not_signed_in"))
        made = self.alice.create({"title": "alice only"})
        # The update and delete rules (owner = @request.auth.id) hide alice's record from bob.
        for attempt in (lambda: self.bob.update(made["id"], {"title": "bob"}), lambda: self.bob.delete(made["id"])):
            with self.assertRaises(RoostError) as hidden:
                attempt()
            self.assertEqual((hidden.exception.status, hidden.exception.code), (404, "record_not_found"))
        self.assertEqual(self.admin.get(made["id"])["title"], "alice only")
        for id in ["1' OR '1'='1", "../../etc/passwd", "x" * 100]:
            with self.assertRaises(RoostError) as bad:
                self.bob.get(id)
            self.assertEqual(bad.exception.status, 422, id)
        with self.assertRaises(RoostError) as unknown:
            server().collection("nothing").list()
        self.assertEqual((unknown.exception.status, unknown.exception.code), (404, "unknown_collection"))
        for name in ["Posts", "../users", "", 7]:
            with self.assertRaises(TypeError):
                roost_client.collection(name, base_url=server().base_url)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            self.bob.get("")

    def test_build_filter_keeps_values_values(self) -> None:
        tag = unique("tricky")
        titles = ['say "hi"', "it's", "back\\slash", "line\nbreak", '" || title != "', "é 😀 \u2028", "{:x}"]
        self.alice.batch([{"action": "create", "data": {"title": t, "tags": [tag]}} for t in titles])
        for title in titles:
            page = self.bob.list(filter=build_filter("title = {:t} && tags ?= {:tag}", {"t": title, "tag": tag}))
            self.assertEqual([p["title"] for p in page["items"]], [title], title)
        when = datetime.datetime(2026, 1, 2, 1, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
        self.assertEqual(
            build_filter("a = {:a} && b > {:b} && c = {:c} && d = {:d} && e >= {:e}", {
                "a": 'x"y', "b": -2.5, "c": True, "d": None, "e": when,
            }),
            'a = "x\\"y" && b > -2.5 && c = true && d = null && e >= "2026-01-02T00:00:00.000Z"',
        )
        for params, message in [
            ({}, "no value"),
            ({"a": float("nan")}, "finite"),
            ({"a": "nul\x00"}, "NUL"),
            ({"a": "half \ud800"}, "surrogate"),
            ({"a": [1]}, "list"),
            ({"a": datetime.datetime(2026, 1, 2)}, "naive"),
        ]:
            with self.assertRaisesRegex(TypeError, message):
                build_filter("x = {:a}", params)  # type: ignore[arg-type]

    def test_pages_by_cursor_with_sort_and_total_and_named_query_failures(self) -> None:
        tag = unique("page")
        self.alice.batch(
            [{"action": "create", "data": {"title": f"p{i}", "priority": i % 3, "tags": [tag]}} for i in range(7)]
        )
        query = {"filter": build_filter("tags ?= {:tag}", {"tag": tag}), "sort": ["-priority", "title"]}
        first = self.bob.list(per_page=3, total=True, **query)
        self.assertEqual(first["total"], 7)
        titles = [p["title"] for p in first["items"]]
        cursor = first["next"]
        while cursor:
            page = self.bob.list(per_page=3, cursor=cursor, **query)
            self.assertNotIn("total", page)
            titles += [p["title"] for p in page["items"]]
            cursor = page["next"]
        self.assertEqual(titles, ["p2", "p5", "p1", "p4", "p0", "p3", "p6"])
        self.assertEqual([p["title"] for p in self.bob.iterate(per_page=2, **query)], titles)
        for bad, code in [
            ({"filter": "priority ~ 2"}, "invalid_filter"),
            ({"sort": "nothing"}, "invalid_sort"),
            ({"cursor": "not-a-cursor"}, "invalid_cursor"),
            ({"per_page": 501}, "validation_failure"),
        ]:
            with self.assertRaises(RoostError) as caught:
                self.bob.list(**bad)
            self.assertEqual((caught.exception.status, caught.exception.code), (422, code), bad)
        self.assertEqual(caught.exception.fields, [("perPage", "a whole number from 1 to 500")])

    def test_a_batch_is_all_or_nothing_across_collections(self) -> None:
        made = self.alice.create({"title": "to delete"})
        name = unique("Ada")
        post, author, deleted = self.alice.batch([
            {"action": "create", "data": {"title": "batched"}},
            {"collection": "authors", "action": "create", "data": {"name": name}},
            {"action": "delete", "id": made["id"]},
        ])
        self.assertEqual((post and post["title"], author and author["name"], deleted), ("batched", name, None))
        before = self.count()
        with self.assertRaises(RoostError) as refused:
            self.alice.batch([{"action": "create", "data": {"title": "kept?"}}, {"action": "create", "data": {}}])
        self.assertEqual(refused.exception.fields, [("operations.1.title", "required")])
        with self.assertRaises(RoostError) as too_many:
            self.alice.batch([{"action": "create", "data": {"title": str(i)}} for i in range(101)])
        self.assertEqual((too_many.exception.status, too_many.exception.code), (413, "too_many_operations"))
        self.assertEqual(self.count(), before, "nothing of the refused batches is stored")
        with self.assertRaises(TypeError):
            self.alice.batch({"action": "create"})  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
