"""The connector of the user identity service (``/users/api/<operation>``)."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Sequence, Union

from .errors import RoostError
from .transport import Answer, Connector, PermissionEntry, camel_case_aliases, permission_entries

Permissions = Union[str, Sequence[str]]
ReviewAction = Literal["accept", "optin", "activate", "reject", "disable"]


@camel_case_aliases
class Users(Connector):
    """One method per operation of the user service; each returns the JSON answer as a dict.

    Failures raise :class:`~roost_client.RoostError` (validation failures too, although the
    server answers them with HTTP 200). The service name is always ``users``.
    """

    def _call(self, operation: str, values: Mapping[str, Any] | None = None) -> Answer:
        return self._transport.call(operation, f"/users/api/{operation}", values)

    def _issuing(self, operation: str, values: Mapping[str, Any], store: bool) -> Answer:
        """An operation that answers a new session's token: kept (and sent from now on) with ``store``."""
        answer = self._call(operation, values)
        if store:
            self._transport.token = answer.get("token")
        return answer

    # Service

    def ping(self) -> Answer:
        """Health check: ``{"result": 1}``."""
        return self._call("ping")

    def challenge(self) -> Answer:
        """A proof-of-work challenge (ALTCHA) and ``required``: whether sign-ins and sign-ups ask for it now.

        Send its solution as the ``X-Roost-Proof`` header (docs/users.md, ``challenge``).
        """
        return self._call("challenge")

    # Tokens and sessions

    def token(self, identity: str, password: str, *, store: bool = True) -> Answer:
        """Exchange identity (name or email) and password for ``{"token", "expires"}``.

        With ``store`` (the default) the connector keeps the token and sends it from now on.
        """
        return self._issuing("token", {"identity": identity, "password": password}, store)

    def token2(
        self,
        challenge: str,
        *,
        code: str | None = None,
        recovery_code: str | None = None,
        sms_code: str | None = None,
        store: bool = True,
    ) -> Answer:
        """The second step of :meth:`token` for an account with a second factor.

        ``token`` raised ``second_factor_required``; :func:`second_factor_challenge` reads its
        challenge. Give it with a ``code`` of the authenticator app, a ``recovery_code``, or the
        ``sms_code`` :meth:`sms_challenge` sent.
        The answer is ``token``'s (plus ``recoveryCodes`` when the sign-in also set up a new
        authenticator); with ``store`` the connector keeps the token.
        """
        proof = _given(challenge=challenge, code=code, recoveryCode=recovery_code, smsCode=sms_code)
        return self._issuing("token2", proof, store)

    def signin2(self, challenge: str, *, code: str | None = None, recovery_code: str | None = None) -> Answer:
        """The second step of :meth:`signin` (cookie mode): as :meth:`token2`, the jar keeps the cookie."""
        return self._call("signin2", _given(challenge=challenge, code=code, recoveryCode=recovery_code))

    def sessions(self) -> Answer:
        """``{"sessions": [...]}``: method, device, address, created, lastUsed, expires, current."""
        return self._call("sessions")

    def revoke_session(self, session: str) -> Answer:
        """End one of the own sessions by its ``id`` (from :meth:`sessions`)."""
        return self._call("revokeSession", {"session": session})

    def revoke_other_sessions(self) -> Answer:
        """End every own session but this connector's."""
        return self._call("revokeOtherSessions")

    # Sign-in providers and passkeys (a browser does their ceremonies; these are the operations)

    def providers(self) -> Answer:
        """``{"providers": [{"id", "label"}]}``: the enabled sign-in providers."""
        return self._call("providers")

    def signin_provider2(self, grant: str, *, store: bool = True) -> Answer:
        """A token for the one-time ``grant`` a provider sign-in handed to an app (``roost_signin``)."""
        return self._issuing("signinProvider2", {"grant": grant}, store)

    def provider_links(self) -> Answer:
        """``{"providers": [...]}``: the providers linked to the own account."""
        return self._call("providerLinks")

    def unlink_provider(self, provider: str, *, password: str | None = None, code: str | None = None) -> Answer:
        """Unlink a sign-in provider from the own account (the password or a current code again)."""
        return self._call("unlinkProvider", {"provider": provider, **_given(password=password, code=code)})

    def passkey_options(self, *, password: str | None = None, code: str | None = None) -> Answer:
        """``{"options"}``: WebAuthn options for a browser to make a passkey of the own account.

        A passkey is a way in of its own: the password or a current code again.
        """
        return self._call("passkeyOptions", _given(password=password, code=code))

    def passkey_register(self, response: Mapping[str, Any], name: str | None = None) -> Answer:
        """Store a browser's answer to :meth:`passkey_options` as a passkey, with an optional name."""
        return self._call("passkeyRegister", {"response": response, **_given(name=name)})

    def passkeys(self) -> Answer:
        """``{"passkeys": [{"id", "name", "created", "lastUsed"}]}``: the own passkeys."""
        return self._call("passkeys")

    def rename_passkey(self, id: str, name: str) -> Answer:  # noqa: A002 - the operation's field
        """Give one of the own passkeys another name."""
        return self._call("renamePasskey", {"id": id, "name": name})

    def remove_passkey(  # noqa: A002 - the operation's field
        self, id: str, *, password: str | None = None, code: str | None = None
    ) -> Answer:
        """Remove one of the own passkeys (the password or a current code again)."""
        return self._call("removePasskey", {"id": id, **_given(password=password, code=code)})

    def passkey_signin_options(self, challenge: str | None = None) -> Answer:
        """``{"options"}`` for a passkey sign-in; with a sign-in's ``challenge``, for its second step."""
        return self._call("passkeySigninOptions", _given(challenge=challenge))

    def passkey_token(self, response: Mapping[str, Any], *, store: bool = True) -> Answer:
        """A token for a browser's answer to :meth:`passkey_signin_options`."""
        return self._issuing("passkeyToken", {"response": response}, store)

    def passkey_signin(self, response: Mapping[str, Any]) -> Answer:
        """As :meth:`passkey_token`, in cookie mode: the jar keeps the cookie."""
        return self._call("passkeySignin", {"response": response})

    # Second factor

    def second_factor(self) -> Answer:
        """``{"totp", "recoveryCodes", "required"}`` of the signed-in account."""
        return self._call("secondFactor")

    def totp_enrol(self, challenge: str | None = None) -> Answer:
        """A new authenticator secret: ``{"secret", "uri", "qrSvg"}``; confirm it with :meth:`totp_confirm`.

        With the ``challenge`` of a sign-in that must set one up (``enrol``), for that account:
        the first code then goes to :meth:`token2`.
        """
        return self._call("totpEnrol", {} if challenge is None else {"challenge": challenge})

    def totp_confirm(self, code: str, password: str) -> Answer:
        """Confirm the new authenticator with its first code and the password.

        Answers ``{"recoveryCodes": [...]}``, shown this once.
        """
        return self._call("totpConfirm", {"code": code, "password": password})

    def totp_remove(self, *, password: str | None = None, code: str | None = None) -> Answer:
        """Remove the authenticator and the recovery codes (the password or a current code again)."""
        return self._call("totpRemove", _given(password=password, code=code))

    def recovery_codes(self, *, password: str | None = None, code: str | None = None) -> Answer:
        """New recovery codes in place of the old ones (the password or a current code again)."""
        return self._call("recoveryCodes", _given(password=password, code=code))

    def signin_mail(self, identity: str) -> Answer:
        """Sign-in by mail (when an administrator turned it on): mails the account a one-time code and link."""
        return self._call("signinMail", {"identity": identity})

    def signin_mail2(
        self,
        *,
        identity: str | None = None,
        code: str | None = None,
        token: str | None = None,
        store: bool = True,
    ) -> Answer:
        """A token for a mailed sign-in: ``identity`` with the mailed ``code``, or the link's ``token``."""
        return self._issuing("signinMail2", _given(identity=identity, code=code, token=token), store)

    # Codes by SMS

    def sms_add(self, phone: str, *, password: str | None = None, code: str | None = None) -> Answer:
        """Add a phone number: a code is sent to it for :meth:`sms_confirm` (the password or a current app code again).

        Answers ``{"phone", "expires", "delivery"}``: the number in E.164, and ``retrying`` when the gateway failed.
        """
        return self._call("smsAdd", {"phone": phone, **_given(password=password, code=code)})

    def sms_confirm(self, code: str) -> Answer:
        """Confirm the number being added with its code; answers ``{"recoveryCodes": [...]}``, shown this once."""
        return self._call("smsConfirm", {"code": code})

    def sms_remove(self, *, password: str | None = None, code: str | None = None) -> Answer:
        """Remove the own phone number (the password or a current app code again)."""
        return self._call("smsRemove", _given(password=password, code=code))

    def sms_phone(self) -> Answer:
        """``{"phone", "pending"}``: the own confirmed number and the one being added, or ``None``."""
        return self._call("smsPhone")

    def sms_signin(self, phone: str) -> Answer:
        """Sign-in by SMS (when an administrator granted ``smsSignin``): a code to the number's account."""
        return self._call("smsSignin", {"phone": phone})

    def sms_signin2(self, phone: str, code: str, *, store: bool = True) -> Answer:
        """A token for the number with the code it got: answers as :meth:`token`."""
        return self._issuing("smsSignin2", {"phone": phone, "code": code}, store)

    def sms_challenge(self, challenge: str) -> Answer:
        """Send a sign-in's second-step code to the challenged account's phone; :meth:`token2` takes ``sms_code``."""
        return self._call("smsChallenge", {"challenge": challenge})

    def signin(self, identity: str, password: str) -> Answer:
        """Sign in with the cookie ``auth``: in cookie mode the jar keeps it (a browser's way)."""
        return self._call("signin", {"identity": identity, "password": password})

    def signout(self) -> Answer:
        """Revoke the token of this connector (header or cookie) and forget it."""
        answer = self._call("signout")
        self._transport.token = None
        return answer

    # The signed-in user

    def identity(self) -> Answer:
        """``{name, realname, email, id, reference}`` of the signed-in user."""
        return self._call("identity")

    def name(self) -> Answer:
        """``{name, realname}`` (``name`` holds the email under the identity policy ``email``)."""
        return self._call("name")

    def profile(self) -> Answer:
        """The profile of the signed-in user."""
        return self._call("profile")

    def authenticated(self, groups: Permissions | None = None) -> bool:
        """Signed in (and, with ``groups``, a member of at least one of them)?"""
        return bool(self._call("authenticated", {"groups": groups}).get("result"))

    def allowed(self, permissions: Permissions) -> Answer:
        """Does the caller hold these permissions? ``{"result": all held, <permission>: bool, ...}``."""
        return self._call("allowed", {"permission": permissions})

    # Sign-up and activation

    def signin_anonymous(self, *, store: bool = True) -> Answer:
        """A new anonymous account and its session: ``{"token", "expires", "id", "name"}``.

        Kept and sent from now on with ``store``; :meth:`upgrade_anonymous` makes it a full account.
        """
        return self._issuing("signinAnonymous", {}, store)

    def upgrade_anonymous(self, name: str, password: str, **profile: Any) -> Answer:
        """The signed-in anonymous account becomes a full one with the same id (``email``, ``realname``, ``data``)."""
        return self._call("upgradeAnonymous", {"name": name, "password": password, **profile})

    def signin_id_token(self, provider: str, id_token: str, nonce: str, *, store: bool = True) -> Answer:
        """A session for an ID token an app got on the device (Sign in with Apple, Google): answers as :meth:`token`."""
        return self._issuing("signinIdToken", {"provider": provider, "idToken": id_token, "nonce": nonce}, store)

    def signup_direct(self, name: str, email: str, password: str, **profile: Any) -> Answer:
        """Sign up, active at once. ``profile`` may hold ``realname``, ``notify``, ``data``."""
        return self._call("signupDirect", {"name": name, "email": email, "password": password, **profile})

    def signup_optin(self, name: str, email: str, password: str, **profile: Any) -> Answer:
        """Sign up, pending until the mailed activation token is used (:meth:`activate`)."""
        return self._call("signupOptin", {"name": name, "email": email, "password": password, **profile})

    def signup_review(self, name: str, email: str, password: str, **profile: Any) -> Answer:
        """Sign up, pending until an administrator reviews the account (:meth:`review`)."""
        return self._call("signupReview", {"name": name, "email": email, "password": password, **profile})

    def signup_sendpw(self, name: str, email: str, **profile: Any) -> Answer:
        """Sign up, active, with a generated password sent by mail."""
        return self._call("signupSendpw", {"name": name, "email": email, **profile})

    def signup_uid(self, password: str, email: str | None = None, **profile: Any) -> Answer:
        """Sign up with a generated name, answered as ``name``."""
        return self._call("signupUid", {"password": password, "email": email, **profile})

    def activate(self, token: str) -> Answer:
        """Activate a pending account with its mailed token."""
        return self._call("activate", {"token": token})

    # Changing the own account

    def update(self, *, realname: str | None = None, notify: bool | None = None, data: Any = None) -> Answer:
        """Change realname, notify or data (an object is stored as its JSON text)."""
        return self._call("update", {"realname": realname, "notify": notify, "data": data})

    def update_password(self, password: str, newpassword: str) -> Answer:
        """Change the password; other sessions of the user are revoked."""
        return self._call("updatePassword", {"password": password, "newpassword": newpassword})

    def update_email(self, email: str) -> Answer:
        """Change the email at once, without verification (administrators by default)."""
        return self._call("updateEmail", {"email": email})

    def verify_email(self, email: str) -> Answer:
        """Mail a verification token to a new address."""
        return self._call("verifyEmail", {"email": email})

    def verify_email2(self, token: str) -> Answer:
        """Take the new address with its verification token."""
        return self._call("verifyEmail2", {"token": token})

    def reset_password(self, identity: str) -> Answer:
        """Mail a reset token (answers the same whether or not the account exists)."""
        return self._call("resetPassword", {"identity": identity})

    def reset_password2(self, token: str, newpassword: str) -> Answer:
        """Set a new password with the reset token."""
        return self._call("resetPassword2", {"token": token, "newpassword": newpassword})

    def message(self, message: str) -> Answer:
        """Mail a message (at most 5000 characters) to the administrator."""
        return self._call("message", {"message": message})

    def disable(self) -> Answer:
        """Disable the own account and sign out."""
        answer = self._call("disable")
        self._transport.token = None
        return answer

    def delete(self) -> Answer:
        """Remove the own account for good."""
        answer = self._call("delete")
        self._transport.token = None
        return answer

    # Administrator functions

    def review(self, identity: str, action: ReviewAction) -> Answer:
        """Review a pending sign-up: ``accept``, ``optin``, ``activate``, ``reject`` or ``disable``."""
        return self._call("review", {"identity": identity, "action": action})

    def get_user(self, identity: str) -> Answer:
        """A profile (plus ``state`` and ``created``) by name, email or id."""
        return self._call("getUser", {"identity": identity})

    def set_user(self, identity: str, values: Mapping[str, Any]) -> Answer:
        """Change a user: ``values`` may hold realname, email, name, notify, data, groups,
        password, active and pending."""
        return self._call("setUser", {"identity": identity, "values": dict(values)})

    def remove_user(self, identity: str) -> Answer:
        """Remove a user; name and email become free."""
        return self._call("removeUser", {"identity": identity})

    def list(self, **search: Any) -> Answer:
        """Users with their profiles: ``{users, start, size, total}``.

        Search: ``active``, ``pending``, ``name``, ``email``, ``search``, ``group``; paging:
        ``start`` (1-based), ``size``, ``sort``, ``order`` (``<`` or ``>``).
        """
        return self._call("list", search)

    def identities(self, **search: Any) -> Answer:
        """Users as identities (name, realname, email, id); the parameters of :meth:`list`."""
        return self._call("identities", search)

    def user_factors(self, identity: str) -> Answer:
        """A user's second factor, by name, email or id."""
        return self._call("userFactors", {"identity": identity})

    def reset_second_factor(self, identity: str) -> Answer:
        """Remove a user's authenticator and recovery codes (a lost phone)."""
        return self._call("resetSecondFactor", {"identity": identity})

    def user_sessions(self, identity: str) -> Answer:
        """A user's sessions, by name, email or id."""
        return self._call("userSessions", {"identity": identity})

    def revoke_user_sessions(self, identity: str, session: str | None = None) -> Answer:
        """End one session of a user (``session``), or all of them."""
        values = {"identity": identity} if session is None else {"identity": identity, "session": session}
        return self._call("revokeUserSessions", values)

    def get_permissions(self) -> Answer:
        """``{"result": true, "permissions": [{permission, groups}, ...]}``."""
        return self._call("getPermissions")

    def set_permissions(self, permissions: PermissionEntry | Sequence[PermissionEntry]) -> Answer:
        """Add, replace or revoke groups of permission entries; answers the entries after it."""
        return self._call("setPermissions", {"permissions": permission_entries(permissions)})

    # The original connectors' name of ``updateEmail`` (the server answers both).
    update_mail = update_email


def second_factor_challenge(error: Exception) -> dict[str, Any] | None:
    """The challenge of a ``second_factor_required`` failure of ``token`` or ``signin``, else None.

    A dict with ``challenge``, ``expires`` (ms), ``methods`` (``totp``, ``recovery``, ``passkey``,
    ``sms-code``: :meth:`Users.sms_challenge` sends its code) and
    ``enrol`` (set up an authenticator first, with :meth:`Users.totp_enrol`)::

        try:
            users.token("alice", password)
        except RoostError as error:
            step = second_factor_challenge(error)
            if step is None:
                raise
            users.token2(step["challenge"], code=input("Code: "))
    """
    if not isinstance(error, RoostError) or error.code != "second_factor_required":
        return None
    challenge = error.body.get("challenge")
    if not isinstance(challenge, str):
        return None
    methods = error.body.get("methods")
    return {
        "challenge": challenge,
        "expires": error.body.get("expires", 0),
        "methods": [m for m in methods if m in ("totp", "recovery", "passkey", "sms-code")]
        if isinstance(methods, list)
        else [],
        "enrol": error.body.get("enrol") is True,
    }


def _given(**values: str | None) -> dict[str, str]:
    """The values that were given: an option left out is not sent."""
    return {key: value for key, value in values.items() if value is not None}
