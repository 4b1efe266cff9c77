"""The two-step sign-in with an authenticator app, recovery codes and sessions, through the Python connector."""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import struct
import time
import unittest

import roost_client
from roost_client import RoostError, second_factor_challenge
from tests.roost_server import ADMIN, gateway, server


def totp_code(secret: str, at: float) -> str:
    """RFC 6238 with the parameters Roost gives (SHA-1, 6 digits, 30 s): what an authenticator app shows."""
    key = base64.b32decode(secret)
    digest = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{number % 1_000_000:06d}"


class SecondFactorTest(unittest.TestCase):
    def test_enrol_two_steps_recovery_codes_and_sessions(self) -> None:
        name, password, token = server().new_user("tf")
        me = server().users(token=token)
        self.assertEqual(
            me.second_factor(),
            {
                "result": True,
                "totp": False,
                "recoveryCodes": 0,
                "required": False,
                "providers": [],
                "passkeys": 0,
                "sms": False,
            },
        )
        setup = me.totp_enrol()
        self.assertTrue(setup["uri"].startswith("otpauth://totp/"))
        codes = me.totp_confirm(totp_code(setup["secret"], time.time()), password)["recoveryCodes"]
        self.assertEqual(len(codes), 10)

        # The password alone no longer gives a token: the failure carries the challenge.
        phone = server().users()
        with self.assertRaises(RoostError) as caught:
            phone.token(name, password)
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "second_factor_required"))
        step = second_factor_challenge(caught.exception)
        assert step is not None
        self.assertEqual(step["methods"], ["totp", "recovery"])
        self.assertFalse(step["enrol"])
        self.assertIsNone(second_factor_challenge(RoostError("other")))
        # A wrong code is refused and the challenge stays; the next step's code signs in.
        right = totp_code(setup["secret"], time.time() + 30)
        with self.assertRaises(RoostError) as wrong:
            phone.token2(step["challenge"], code="000000" if right != "000000" else "111111")
        self.assertEqual((wrong.exception.status, wrong.exception.code), (401, "invalid_code"))
        phone.token2(step["challenge"], code=right)
        self.assertEqual(phone.identity()["name"], name)

        # A recovery code signs in once.
        laptop = server().users()
        with self.assertRaises(RoostError) as again:
            laptop.token(name, password)
        challenge = second_factor_challenge(again.exception)
        assert challenge is not None
        laptop.token2(challenge["challenge"], recovery_code=codes[0])
        with self.assertRaises(RoostError) as used:
            laptop.token(name, password)
        second = second_factor_challenge(used.exception)
        assert second is not None
        with self.assertRaises(RoostError) as reused:
            laptop.token2(second["challenge"], recovery_code=codes[0], store=False)
        self.assertEqual(reused.exception.code, "invalid_code")

        # Sessions: three (the setup's, the phone's, the laptop's); end the phone's, then the others.
        sessions = me.sessions()["sessions"]
        self.assertEqual(sorted(s["method"] for s in sessions), ["password", "recovery", "totp"])
        self.assertEqual([s["method"] for s in sessions if s["current"]], ["password"])
        phone_session = next(s["id"] for s in sessions if s["method"] == "totp")
        me.revoke_session(phone_session)
        with self.assertRaises(RoostError) as ended:
            phone.identity()
        self.assertEqual(ended.exception.status, 401)
        me.revoke_other_sessions()
        self.assertEqual(len(me.sessions()["sessions"]), 1)

        self.assertEqual(len(me.recovery_codes(password=password)["recoveryCodes"]), 10)
        admin = server().users()
        admin.token(ADMIN[0], ADMIN[2])
        self.assertTrue(admin.user_factors(name)["totp"])
        self.assertEqual(len(admin.user_sessions(name)["sessions"]), 1)
        admin.reset_second_factor(name)
        self.assertFalse(me.second_factor()["totp"])
        admin.revoke_user_sessions(name)
        with self.assertRaises(RoostError):
            me.identity()
        # Without the factor the password alone signs in again; then remove what is not there.
        me.token(name, password)
        with self.assertRaises(RoostError) as none:
            me.totp_remove(password=password)
        self.assertEqual(none.exception.code, "no_factor")

    def test_sign_in_by_mail(self) -> None:
        name, _, _ = server().new_user("mail")
        admin = server().users()
        admin.token(ADMIN[0], ADMIN[2])
        admin.set_permissions({"permission": "signinMail", "groups": ["sys:everyone"], "action": "replace"})
        me = server().users()
        self.assertEqual(me.signin_mail(f"{name}@example.com"), {"result": True})
        text = server().last_mail(f"{name}@example.com", "signin_code")["text"]
        found = re.search(r"sign-in code is (\d{6})", text)
        assert found is not None
        me.signin_mail2(identity=name, code=found.group(1))
        self.assertEqual(me.identity()["name"], name)
        with self.assertRaises(RoostError) as reused:
            me.signin_mail2(identity=name, code=found.group(1))
        self.assertEqual(reused.exception.code, "invalid_code")
        # The second mail lands after the answer: wait for it, not the first.
        me.signin_mail(name)
        to = f"{name}@example.com"
        mails = server().mails_where(lambda m: m["to"] == to and m["kind"] == "signin_code" and m["text"] != text)
        link = re.search(r"token=([A-Za-z0-9_-]+)", mails[-1]["text"])
        assert link is not None
        self.assertIn("token", server().users().signin_mail2(token=link.group(1)))

    def test_unknown_session_and_bad_input(self) -> None:
        _, _, token = server().new_user("tf")
        me = server().users(token=token)
        with self.assertRaises(RoostError) as caught:
            me.revoke_session("no-such-session")
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "unknown_session"))
        with self.assertRaises(RoostError) as bad:
            roost_client.users(base_url=server().base_url).token2("x" * 500, code="123456")
        self.assertEqual(bad.exception.code, "validation_failure")


if __name__ == "__main__":
    unittest.main()


class ProvidersAndPasskeysTest(unittest.TestCase):
    """The operations around provider sign-in and passkeys (their ceremonies need a browser)."""

    def test_answers_and_refusals(self) -> None:
        _, password, token = server().new_user("pk")
        me = server().users(token=token)
        self.assertEqual(server().users().providers(), {"result": True, "providers": []})
        self.assertEqual(me.provider_links(), {"result": True, "providers": []})
        self.assertEqual(me.passkeys(), {"result": True, "passkeys": []})
        # The session alone does not start a passkey's registration: the password again.
        with self.assertRaises(RoostError) as alone:
            me.passkey_options()
        refused = (alone.exception.code, alone.exception.fields)
        self.assertEqual(refused, ("validation_failure", [("password", "required")]))
        options = me.passkey_options(password=password)["options"]
        self.assertEqual(options["authenticatorSelection"]["residentKey"], "required")
        self.assertTrue(server().users().passkey_signin_options()["options"]["challenge"])
        with self.assertRaises(RoostError) as grant:
            server().users().signin_provider2("g" * 43)
        self.assertEqual(grant.exception.code, "invalid_token")
        fake = {"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": {"clientDataJSON": "e30"}}
        with self.assertRaises(RoostError) as passkey:
            server().users().passkey_token(fake)
        self.assertEqual((passkey.exception.status, passkey.exception.code), (401, "invalid_passkey"))
        for call, code in (
            (lambda: me.unlink_provider("github", password=password), "not_linked"),
            (lambda: me.rename_passkey("P" * 20, "x"), "unknown_passkey"),
            (lambda: me.remove_passkey("P" * 20, password=password), "unknown_passkey"),
        ):
            with self.assertRaises(RoostError) as caught:
                call()
            self.assertEqual((caught.exception.status, caught.exception.code), (404, code))
        with self.assertRaises(RoostError) as anonymous:
            server().users().provider_links()
        self.assertEqual(anonymous.exception.status, 401)


class SmsCodesTest(unittest.TestCase):
    """Codes by SMS through the connector, the texts read from a gateway on 127.0.0.1."""

    def test_add_confirm_second_step_signin_and_remove(self) -> None:
        name, password, token = server().new_user("sms")
        me = server().users(token=token)
        added = me.sms_add("+49 151 2345 6789", password=password)
        self.assertEqual((added["phone"], added["delivery"]), ("+4915123456789", "sent"))
        self.assertEqual(len(me.sms_confirm(gateway.code("+4915123456789", 1))["recoveryCodes"]), 10)
        self.assertEqual(me.sms_phone(), {"result": True, "phone": "+4915123456789", "pending": None})

        device = server().users()
        with self.assertRaises(RoostError) as caught:
            device.token(name, password)
        step = second_factor_challenge(caught.exception)
        assert step is not None
        self.assertEqual(step["methods"], ["recovery", "sms-code"])
        device.sms_challenge(step["challenge"])
        device.token2(step["challenge"], sms_code=gateway.code("+4915123456789", 2))
        self.assertEqual(device.identity()["name"], name)

        admin = server().users(token=server().admin_token())
        admin.set_permissions([{"permission": "smsSignin", "groups": ["sys:everyone"], "action": "replace"}])
        guest = server().users()
        guest.sms_signin("+4915123456789")
        guest.sms_signin2("+4915123456789", gateway.code("+4915123456789", 3))
        self.assertEqual(guest.identity()["name"], name)
        with self.assertRaises(RoostError) as used:
            server().users().sms_signin2("+4915123456789", gateway.code("+4915123456789", 3))
        self.assertEqual((used.exception.status, used.exception.code), (401, "invalid_code"))
        me.sms_remove(password=password)
        self.assertFalse(me.second_factor()["sms"])
