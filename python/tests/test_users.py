"""Every operation of the user service through the Python connector, against a running Roost."""
from __future__ import annotations

import unittest

import roost_client
from roost_client import RoostError
from tests.roost_server import ADMIN, ADMIN_ADDRESS, server, unique

SIGNUPS = ["signupDirect", "signupOptin", "signupReview", "signupSendpw", "signupUid"]


def setUpModule() -> None:
    admin = server().users()
    admin.token(ADMIN[0], ADMIN[2])
    admin.set_permissions([{"permission": p, "groups": ["sys:everyone"], "action": "replace"} for p in SIGNUPS])


def account(prefix: str) -> tuple[str, str, str]:
    name = unique(prefix)
    return name, f"{name}@example.com", f"{name}-password"


class AdminTestCase(unittest.TestCase):
    admin: roost_client.Users

    @classmethod
    def setUpClass(cls) -> None:
        cls.admin = server().users()
        cls.admin.token(ADMIN[0], ADMIN[2])


class ServiceTest(AdminTestCase):
    def test_ping(self) -> None:
        self.assertEqual(server().users().ping(), {"result": 1})

    def test_permissions_read_and_change(self) -> None:
        entries = {e["permission"]: e["groups"] for e in self.admin.get_permissions()["permissions"]}
        self.assertEqual(entries["signupDirect"], ["sys:everyone"])
        self.assertEqual(entries["getUser"], ["admins"])
        changed = self.admin.set_permissions({"permission": "message", "group": "sys:everyone"})
        groups = {e["permission"]: e["groups"] for e in changed["permissions"]}["message"]
        self.assertIn("sys:everyone", groups)
        self.admin.set_permissions({"permission": "message", "groups": ["sys:everyone"], "action": "revoke"})
        after = {e["permission"]: e["groups"] for e in self.admin.get_permissions()["permissions"]}
        self.assertEqual(after["message"], ["sys:authenticated"])

    def test_unknown_permission_fails_with_the_field(self) -> None:
        with self.assertRaises(RoostError) as caught:
            self.admin.set_permissions({"permission": "fly", "group": "admins"})
        self.assertEqual(caught.exception.code, "unknown_permission")
        self.assertEqual(caught.exception.fields, [("permission", "unknown_permission")])

    def test_permissions_need_an_administrator(self) -> None:
        _, _, token = server().new_user("plain")
        with self.assertRaises(RoostError) as caught:
            server().users(token=token).get_permissions()
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "not_allowed"))


class SignupTest(AdminTestCase):
    def test_signup_direct_then_token_and_identity(self) -> None:
        name, email, password = account("direct")
        users = server().users()
        self.assertEqual(users.signup_direct(name, email, password, realname="Direct D."), {"result": True})
        answer = users.token(name, password)
        self.assertEqual(users.options.token, answer["token"])
        self.assertGreater(answer["expires"], 0)
        identity = users.identity()
        self.assertEqual((identity["name"], identity["email"], identity["realname"]), (name, email, "Direct D."))
        self.assertEqual(identity["id"], identity["reference"])

    def test_token_without_keeping_it(self) -> None:
        name, email, password = account("unkept")
        users = server().users()
        users.signup_direct(name, email, password)
        answer = users.token(email, password, store=False)
        self.assertIsNone(users.options.token)
        self.assertEqual(server().users(token=answer["token"]).identity()["name"], name)
        with self.assertRaises(RoostError) as caught:
            users.token(name, "wrong-password")
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_credentials"))

    def test_validation_failure_raises_with_fields_although_http_200(self) -> None:
        with self.assertRaises(RoostError) as caught:
            server().users().signupDirect("al", "alice-at-example", "")
        error = caught.exception
        self.assertEqual((error.status, error.code), (200, "validation_failure"))
        self.assertEqual(error.fields, [("name", "too short"), ("email", "invalid_email"), ("password", "required")])
        self.assertEqual(error.messages, ["Some fields are missing or invalid."])
        self.assertEqual(error.operation, "signupDirect")

    def test_taken_name_and_email(self) -> None:
        name, email, password = account("taken")
        server().users().signup_direct(name, email, password)
        with self.assertRaises(RoostError) as caught:
            server().users().signup_direct(name.upper(), email.upper(), password)
        self.assertEqual(caught.exception.fields, [("name", "exists"), ("email", "exists")])

    def test_signup_optin_and_activate_with_the_mailed_token(self) -> None:
        name, email, password = account("optin")
        users = server().users()
        self.assertTrue(users.signup_optin(name, email, password)["result"])
        with self.assertRaises(RoostError) as pending:
            users.token(name, password)
        self.assertEqual((pending.exception.status, pending.exception.code), (401, "invalid_credentials"))
        token = server().mailed_token(email, "activation")
        self.assertEqual(users.activate(token), {"result": True})
        self.assertTrue(users.token(name, password)["token"])
        with self.assertRaises(RoostError) as used:
            users.activate(token)
        self.assertEqual(used.exception.code, "invalid_token")
        self.assertEqual(used.exception.fields, [("token", "invalid")])

    def test_signup_review_and_every_review_action(self) -> None:
        accounts = {
            action: account(f"review-{action}") for action in ["accept", "optin", "activate", "reject", "disable"]
        }
        for name, email, password in accounts.values():
            self.assertTrue(server().users().signup_review(name, email, password)["result"])
        notified = server().mails_where(
            lambda m: m["kind"] == "signup_notification"
            and m["to"] == ADMIN_ADDRESS
            and accounts["accept"][0] in m["text"]
        )
        self.assertTrue(any(accounts["accept"][0] in m["text"] for m in notified))
        for action, (name, _, _) in accounts.items():
            self.assertEqual(self.admin.review(name, action), {"result": True})  # type: ignore[arg-type]
        states = {action: self._state(name) for action, (name, _, _) in accounts.items()}
        self.assertEqual(
            states,
            {"accept": "active", "optin": "pending", "activate": "active", "reject": None, "disable": "disabled"},
        )
        server().last_mail(accounts["accept"][1], "welcome")
        self.assertTrue(server().users().activate(server().mailed_token(accounts["optin"][1], "activation"))["result"])
        with self.assertRaises(RoostError) as caught:
            self.admin.review(accounts["accept"][0], "accept")
        self.assertEqual(caught.exception.code, "not_pending")

    def _state(self, identity: str) -> str | None:
        try:
            return self.admin.get_user(identity)["state"]
        except RoostError as error:
            self.assertEqual((error.status, error.code), (404, "unknown_user"))
            return None

    def test_signup_sendpw_mails_a_working_password(self) -> None:
        name, email, _ = account("sendpw")
        self.assertTrue(server().users().signup_sendpw(name, email)["result"])
        text = server().last_mail(email, "password")["text"]
        password = text.split("this password: ")[1].split()[0]
        self.assertTrue(server().users().token(name, password)["token"])

    def test_signup_uid_answers_the_generated_name(self) -> None:
        _, email, password = account("uid")
        answer = server().users().signup_uid(password, email)
        self.assertEqual(len(answer["name"]), 30)
        self.assertTrue(server().users().token(answer["name"], password)["token"])


class OwnAccountTest(AdminTestCase):
    def setUp(self) -> None:
        self.name, self.email, self.password = account("own")
        self.users = server().users()
        self.users.signup_direct(self.name, self.email, self.password)
        self.users.token(self.name, self.password)

    def test_name_profile_authenticated_allowed(self) -> None:
        self.assertEqual(self.users.name(), {"name": self.name, "realname": ""})
        profile = self.users.profile()
        self.assertEqual((profile["name"], profile["active"], profile["groups"]), (self.name, True, []))
        self.assertTrue(self.users.authenticated())
        self.assertFalse(self.users.authenticated("admins"))
        self.assertTrue(self.admin.authenticated(["editors", "admins"]))
        self.assertFalse(server().users().authenticated())
        self.assertEqual(
            self.users.allowed(["profile", "update", "getUser"]),
            {"result": False, "profile": True, "update": True, "getUser": False},
        )
        self.assertEqual(self.users.allowed("profile"), {"result": True, "profile": True})

    def test_update_keeps_data_as_json_text(self) -> None:
        self.assertTrue(self.users.update(realname="Own O.", notify=True, data={"theme": "dark"})["result"])
        profile = self.users.profile()
        self.assertEqual(
            (profile["realname"], profile["notify"], profile["data"]), ("Own O.", True, '{"theme":"dark"}')
        )
        with self.assertRaises(RoostError) as caught:
            self.users.update(data="x" * 10_001)
        self.assertEqual(caught.exception.fields, [("data", "too long")])

    def test_update_password_keeps_this_session_and_changes_the_password(self) -> None:
        other = server().users()
        other.token(self.name, self.password)
        self.assertTrue(self.users.update_password(self.password, "a-new-password-1")["result"])
        self.assertEqual(self.users.identity()["name"], self.name)
        with self.assertRaises(RoostError) as revoked:
            other.profile()
        self.assertEqual((revoked.exception.status, revoked.exception.code), (401, "not_signed_in"))
        with self.assertRaises(RoostError) as wrong:
            self.users.updatePassword("nope", "another-password-2")
        self.assertEqual(wrong.exception.fields, [("password", "invalid")])
        self.assertTrue(server().users().token(self.name, "a-new-password-1")["token"])

    def test_update_email_is_for_administrators(self) -> None:
        with self.assertRaises(RoostError) as caught:
            self.users.update_email(f"x-{self.email}")
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "not_allowed"))
        self.assertTrue(self.admin.update_mail(ADMIN[1])["result"])
        self.assertTrue(self.admin.update_email(ADMIN[1])["result"])
        with self.assertRaises(RoostError) as invalid:
            self.admin.update_email("root-at-example")
        self.assertEqual(invalid.exception.fields, [("email", "invalid_email")])

    def test_verify_email_in_two_steps(self) -> None:
        new_email = f"new-{self.email}"
        self.assertTrue(self.users.verify_email(new_email)["result"])
        self.assertEqual(self.users.profile()["email"], self.email)
        token = server().mailed_token(new_email, "verify_email")
        self.assertTrue(server().users().verify_email2(token)["result"])
        self.assertEqual(self.users.profile()["email"], new_email)
        with self.assertRaises(RoostError) as used:
            server().users().verifyEmail2(token)
        self.assertEqual(used.exception.code, "invalid_token")

    def test_reset_password_in_two_steps(self) -> None:
        self.assertTrue(server().users().reset_password(self.name)["result"])
        self.assertTrue(server().users().reset_password(f"nobody-{self.name}")["result"])
        token = server().mailed_token(self.email, "reset")
        with self.assertRaises(RoostError) as short:
            server().users().reset_password2(token, "short")
        self.assertEqual(short.exception.fields, [("newpassword", "too short")])
        self.assertTrue(server().users().resetPassword2(token, "reset-password-1")["result"])
        with self.assertRaises(RoostError) as revoked:
            self.users.profile()
        self.assertEqual(revoked.exception.status, 401)
        self.assertTrue(server().users().token(self.name, "reset-password-1")["token"])

    def test_message_reaches_the_administrator_address(self) -> None:
        text = f"Hello from {self.name}"
        self.assertTrue(self.users.message(text)["result"])
        mails = server().mails_where(lambda m: m["kind"] == "message" and text in m["text"])
        self.assertEqual([m["to"] for m in mails], [ADMIN_ADDRESS])
        with self.assertRaises(RoostError) as long:
            self.users.message("m" * 5001)
        self.assertEqual(long.exception.fields, [("message", "too long")])

    def test_signout_revokes_the_token(self) -> None:
        token = self.users.options.token
        self.assertTrue(self.users.signout()["result"])
        self.assertIsNone(self.users.options.token)
        with self.assertRaises(RoostError) as caught:
            server().users(token=token).profile()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "not_signed_in"))

    def test_disable_keeps_the_name_taken(self) -> None:
        self.assertTrue(self.users.disable()["result"])
        with self.assertRaises(RoostError) as caught:
            server().users().token(self.name, self.password)
        self.assertEqual(caught.exception.code, "invalid_credentials")
        self.assertEqual(self.admin.get_user(self.name)["state"], "disabled")

    def test_delete_frees_the_name(self) -> None:
        self.assertTrue(self.users.delete()["result"])
        self.assertTrue(server().users().signup_direct(self.name, self.email, self.password)["result"])


class AdministratorTest(AdminTestCase):
    def test_get_set_list_identities_remove(self) -> None:
        name, email, password = account("managed")
        server().users().signup_direct(name, email, password)
        user = self.admin.get_user(email)
        self.assertEqual((user["name"], user["state"]), (name, "active"))
        self.assertEqual(self.admin.getUser(user["id"])["email"], email)
        self.assertTrue(self.admin.set_user(name, {"groups": ["editors"], "realname": "Managed M."})["result"])
        self.assertEqual(self.admin.get_user(name)["groups"], ["editors"])
        with self.assertRaises(RoostError) as unknown_value:
            self.admin.set_user(name, {"colour": "blue"})
        self.assertEqual(unknown_value.exception.fields, [("values", "invalid")])

        listed = self.admin.list(search=name, active=True)
        self.assertEqual([u["name"] for u in listed["users"]], [name])
        self.assertEqual(listed["total"], 1)
        page = self.admin.list(sort="name", order="<", start=1, size=2)
        self.assertEqual((page["start"], page["size"], len(page["users"])), (1, 2, 2))
        identities = self.admin.identities(group="editors")
        self.assertIn(
            {"name": name, "realname": "Managed M.", "email": email, "id": user["id"], "reference": user["id"]},
            identities["users"],
        )

        self.assertTrue(self.admin.remove_user(name)["result"])
        with self.assertRaises(RoostError) as gone:
            self.admin.remove_user(name)
        self.assertEqual((gone.exception.status, gone.exception.code), (404, "unknown_user"))
        self.assertEqual(gone.exception.fields, [("identity", "unknown_user")])

    def test_set_user_disables_and_reactivates(self) -> None:
        name, token_holder, password = account("toggled")
        server().users().signup_direct(name, token_holder, password)
        self.assertTrue(self.admin.setUser(name, {"active": False})["result"])
        with self.assertRaises(RoostError):
            server().users().token(name, password)
        self.assertTrue(self.admin.set_user(name, {"active": True})["result"])
        self.assertTrue(server().users().token(name, password)["token"])

    def test_a_user_cannot_call_administrator_functions(self) -> None:
        _, _, token = server().new_user("nosy")
        nosy = server().users(token=token)
        for call in (
            lambda: nosy.list(),
            lambda: nosy.identities(),
            lambda: nosy.get_user(ADMIN[0]),
            lambda: nosy.remove_user(ADMIN[0]),
        ):
            with self.assertRaises(RoostError) as caught:
                call()
            self.assertEqual((caught.exception.status, caught.exception.code), (403, "not_allowed"))


if __name__ == "__main__":
    unittest.main()
