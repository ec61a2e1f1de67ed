#!/usr/bin/python3
"""Event log of oauthlib (Debian python3-oauthlib 3.2.2), the OAuth 1 and
OAuth 2 / OpenID Connect request-signing and provider library, driven from
both ends in one process: oauthlib's client classes build the requests and
oauthlib's server-side endpoints answer them, no network involved.

    /usr/bin/python3 gen_oauthlib.py --out .deps/logs/oauthlib.csv.gz [--cases 2400] [--seed 1]
    /usr/bin/python3 gen_oauthlib.py --repo     # prints the directory to index

Indexed: the installed ``oauthlib`` directory
(``/usr/lib/python3/dist-packages/oauthlib``), all of it (the device-flow
client of ``oauth2/rfc8628`` and the MAC token helpers indexed, not run).

A case is one client application's authorization lifetime at a provider
made for the case.  The provider is a ``RequestValidator`` subclass of the
generator's (OAuth 2 and OpenID Connect: one class over ``oauthlib.openid``'s
validator; OAuth 1: one over ``oauthlib.oauth1``'s) backed by in-memory
dicts of clients, redirect URIs, scopes or realms, users, authorization
codes, access and refresh tokens, request tokens, verifiers and nonces, on a
clock of the case's own that the case moves on (so codes and tokens expire).
Each case draws the provider's behaviour: which pre-configured server
(``WebApplicationServer``, ``MobileApplicationServer``,
``LegacyApplicationServer``, ``BackendApplicationServer``, ``Server``,
``oauthlib.openid.Server``, some with the OpenID refresh grant wired in, or
OAuth 1's ``WebApplicationServer``, its endpoints one by one with a token
generator of the provider's, or a ``SignatureOnlyEndpoint``), the token
generator (oauthlib's, the provider's own, or oauthlib's
``signed_token_generator`` making RS256 JWT access tokens), token lifetimes
(fixed or per request), refresh-token rotation, ``catch_errors``, an
endpoint taken down for maintenance (``available = False``) for a step,
required PKCE, allowed CORS origins, the signature methods an OAuth 1
provider accepts, ``enforce_ssl``, and faults: a validator method that
raises on its n-th call (token store, client lookup, userinfo...), a sloppy
``validate_code`` that sets neither ``request.user`` nor
``request.scopes``, a userinfo answer without ``sub``, empty or of an
unknown type.

The client then lives its life, as the case's script draws it.  OAuth 2:
metadata discovery (``MetadataEndpoint``), then the authorization code flow
(``WebApplicationClient``; PKCE S256, plain, missing, wrong or required;
registered, default, foreign or relative redirect URIs; a consent page
(``validate_authorization_request``) where the user approves, narrows the
scopes or denies, its form sometimes edited before it is posted, or none
for a trusted client, whose request goes straight to
``create_authorization_response``; codes exchanged late, twice or with a
different redirect URI), the implicit flow (``MobileApplicationClient``),
the password grant (``LegacyApplicationClient``; wrong and unknown users)
or client credentials (``BackendApplicationClient``; Basic or body
authentication, wrong secrets, refused grant types and scopes), a failed
first attempt tried again in half the cases, then 2-8 steps (none or one
after no token) of protected-resource calls (header, query or body tokens, too
narrow, expired, revoked, tampered), refreshes (narrower and wider scopes,
revoked or rotated refresh tokens, wrong client), introspection by the
API's own client, revocation (with and without hints, unsupported hints)
and calls after it, and token requests with CORS ``Origin`` headers.
OpenID Connect: ``code``, ``id_token``, ``id_token token`` and the hybrid
``code id_token``, ``code token``, ``code id_token token`` responses,
nonces given or missing, ``prompt`` (``none`` with and without a session
or consent, ``login``, ``consent``, ``none login``), ``id_token_hint`` for
the right or another user, ``claims`` (well-formed or not), id tokens the
validator signs (RS256 or HS256) or mints itself, and ``/userinfo``.
OAuth 1: request token, authorization (``get_realms_and_credentials``,
``create_authorization_response`` to a callback or ``oob``), access token,
then 1-5 signed resource calls, with ``oauth1.Client`` signing by
HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, PLAINTEXT, RSA-SHA1 or RSA-SHA256 in
the header, the query or the body (some clients with ``decoding``), and
faults: wrong secrets or keys, unknown or badly formatted client keys,
unregistered callbacks, missing callbacks, stale timestamps, replayed
nonces, requests altered after signing, duplicate or scattered ``oauth_``
parameters, missing signatures, refused signature methods, plain-HTTP
endpoints, wrong verifiers, request tokens used twice, realms out of reach,
revoked access tokens.  Malformed requests are mixed in: unknown grant and
response types, duplicated or unparsable parameters, missing client ids,
GET token requests, query strings on POSTs, a ``ServiceApplicationClient``
JWT-bearer assertion the providers do not support.  The generator catches
what the endpoints raise, as a web framework would, and goes on.

Deployment settings: the providers are served over HTTPS URLs; a tenth of
the cases are a developer's set-up on ``http://127.0.0.1`` or
``http://localhost``, which sets ``OAUTHLIB_INSECURE_TRANSPORT=1`` for the
case as oauthlib's documentation says a test deployment must (a few
forget: the client then refuses the plain-HTTP URLs).  Clients that accept
a narrower scope than they asked for set ``OAUTHLIB_RELAX_TOKEN_SCOPE``.
oauthlib replaces every request's repr in its records by
``<oauthlib.Request SANITIZED>`` unless ``oauthlib.set_debug(True)``; a
third of the cases run the provider in that debug mode (then the repr holds
the URL, method, headers with ``Authorization`` masked, and the body with
password and token values masked, after oauthlib's own ``\\1<SANITIZED>``
substitution, which writes a ``\\x01`` byte before the mask).
Deterministic apart from what oauthlib draws itself (codes, nonces, its
default token generator) and object addresses in reprs: the same seed gives
the same workload.

Capture: ``_capture.py``'s handler on the ``oauthlib`` logger, which every
module's logger (``logging.getLogger(__name__)`` below ``oauthlib``, and
``oauthlib`` itself in ``common.py``) propagates to; the ``oauthlib``
logger does not propagate further (oauthlib's own ``NullHandler`` stays),
so nothing reaches the terminal.  Records emitted outside the indexed
directory are dropped; so are cases with fewer than 3 events.  No
wrappers: every call site logs through the stdlib logger directly.
"""
import argparse
import base64
import hmac
import json
import logging
import os
import random
import sys
import time
import urllib.parse as up
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import oauthlib  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(oauthlib.__file__)))
    sys.exit(0)

from oauthlib import common, oauth1, oauth2, openid  # noqa: E402
from oauthlib.oauth2.rfc6749 import parameters as o2params  # noqa: E402
from oauthlib.oauth2.rfc6749 import tokens as o2tokens  # noqa: E402
from oauthlib.openid.connect.core.grant_types import RefreshTokenGrant as OIDCRefreshGrant  # noqa: E402

try:
    import jwt  # noqa: E402
except ImportError:  # no signed tokens, RSA signatures or JWT assertions then
    jwt = None

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
ENV_INSECURE = "OAUTHLIB_INSECURE_TRANSPORT"
ENV_RELAX = "OAUTHLIB_RELAX_TOKEN_SCOPE"

ISSUERS = [(5, "https://auth.example.com"), (3, "https://login.bench.test/oauth2"),
           (2, "https://id.acme-corp.test"), (2, "https://sso.photos.example.org/o")]
DEV_ISSUERS = ["http://127.0.0.1:5000", "http://localhost:8000/oauth"]
APIS = ["https://api.example.com", "https://photos.bench.test", "https://calendar.acme-corp.test"]
APP_NAMES = ["photoprinter", "tripplanner", "calsync", "budgetbuddy", "newsreader", "fitlog",
             "mailmerge", "ci-bot", "backup-agent", "reportgen", "chatops", "kiosk"]
USERS = {"alice": ("wonderland", "Alice Liddell", "alice@example.org"),
         "bob": ("builder", "Bob Builder", "bob@example.net"),
         "carol": ("s3cret!", "Carol Danvers", "carol@example.org"),
         "dave": ("hunter2", "Dave Lister", "dave@red.dwarf.test"),
         "erin": ("correct horse battery staple", "Erin Hannon", "erin@example.com")}
SCOPES = ["profile", "email", "read", "write", "photos", "calendar", "offline_access"]
ROUTES = [("GET", "/v1/me", ["profile"]), ("GET", "/v1/me/email", ["email"]),
          ("GET", "/v1/photos", ["photos"]), ("POST", "/v1/photos", ["photos", "write"]),
          ("GET", "/v1/calendar/events", ["calendar"]), ("PUT", "/v1/calendar/events/7", ["calendar", "write"]),
          ("GET", "/v1/documents?page=2", ["read"]), ("DELETE", "/v1/admin/users/42", ["admin"]),
          ("GET", "/v1/status", [])]
ORIGINS = ["https://app.example.org", "https://evil.example", "http://localhost:3000"]
O1_REALMS = ["photos", "profile", "contacts", "admin"]
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def tok(r, n=30):
    return "".join(r.choice(ALNUM) for _ in range(n))


class StoreError(Exception):
    """The provider's storage failing under a validator."""


# ---------------------------------------------------------------------------
# the provider's data
# ---------------------------------------------------------------------------
class User:
    def __init__(self, name):
        self.username = name
        self.password, self.full_name, self.email = USERS[name]
        self.sub = "u-%04d" % (sorted(USERS).index(name) * 37 + 1000)

    def __repr__(self):
        return "<User %s>" % self.username


class ClientApp:
    def __init__(self, client_id, secret, redirect_uris, grant_types, response_types, scopes,
                 default_scopes, pkce=False, origins=(), name=""):
        self.client_id = client_id
        self.secret = secret
        self.redirect_uris = list(redirect_uris)
        self.grant_types = set(grant_types)
        self.response_types = set(response_types)
        self.scopes = set(scopes)
        self.default_scopes = list(default_scopes)
        self.pkce = pkce
        self.origins = set(origins)
        self.name = name

    @property
    def confidential(self):
        return self.secret is not None

    def __repr__(self):
        return "<ClientApp %s>" % self.client_id


class Provider(openid.RequestValidator):
    """OAuth 2 and OpenID Connect validator over dicts, on the case's clock."""

    def __init__(self, case):
        super().__init__()
        self.case = case
        self.clients = {}
        self.codes = {}
        self.access = {}
        self.refresh = {}
        self.faults = {}        # method -> (call number that fails, exception)
        self.calls = {}
        self.sloppy_code = False
        self.rotate = True
        self.userinfo_mode = "dict"
        self.id_alg = "RS256"
        self.mint_id_token = False
        self.refresh_id = True
        self.session_user = None
        self.consented = set()

    # -- helpers ---------------------------------------------------------
    def _fault(self, name):
        f = self.faults.get(name)
        if f is None:
            return
        n = self.calls.get(name, 0) + 1
        self.calls[name] = n
        if n == f[0]:
            raise f[1]

    @staticmethod
    def _basic(request):
        auth = request.headers.get("Authorization", "")
        if not auth.lower().startswith("basic "):
            return None
        try:
            cid, _, sec = base64.b64decode(auth[6:].strip()).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return "", ""
        return up.unquote_plus(cid), up.unquote_plus(sec)

    def _now(self):
        return self.case.now

    # -- clients ---------------------------------------------------------
    def client_authentication_required(self, request, *args, **kwargs):
        if self._basic(request) is not None or request.client_secret:
            return True
        c = self.clients.get(request.client_id)
        return c is not None and c.confidential

    def authenticate_client(self, request, *args, **kwargs):
        self._fault("authenticate_client")
        b = self._basic(request)
        cid, sec = b if b is not None else (request.client_id, request.client_secret)
        c = self.clients.get(cid)
        if c is None or not c.confidential or not hmac.compare_digest(c.secret, sec or ""):
            return False
        request.client = c
        request.client_id = cid
        return True

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        c = self.clients.get(client_id)
        if c is None or c.confidential:
            return False
        request.client = c
        return True

    def validate_client_id(self, client_id, request, *args, **kwargs):
        self._fault("validate_client_id")
        c = self.clients.get(client_id)
        if c is None:
            return False
        request.client = c
        return True

    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        return redirect_uri in self.clients[client_id].redirect_uris

    def get_default_redirect_uri(self, client_id, request, *args, **kwargs):
        uris = self.clients[client_id].redirect_uris
        return uris[0] if len(uris) == 1 else None

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        return response_type in self.clients[client_id].response_types

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        c = client or self.clients.get(client_id)
        return c is not None and grant_type in c.grant_types

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        self._fault("validate_scopes")
        c = self.clients.get(client_id) or client
        return c is not None and set(scopes) <= c.scopes

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        c = self.clients.get(client_id)
        return list(c.default_scopes) if c else []

    def is_pkce_required(self, client_id, request):
        c = self.clients.get(client_id)
        return bool(c and c.pkce)

    def is_origin_allowed(self, client_id, origin, request, *args, **kwargs):
        c = self.clients.get(client_id)
        return bool(c and origin in c.origins)

    # -- users -----------------------------------------------------------
    def validate_user(self, username, password, client, request, *args, **kwargs):
        self._fault("validate_user")
        if username not in USERS or USERS[username][0] != password:
            return False
        request.user = User(username)
        return True

    # -- authorization codes ---------------------------------------------
    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        self._fault("save_authorization_code")
        self.codes[code["code"]] = {
            "client_id": client_id, "redirect_uri": request.redirect_uri,
            "default_redirect": getattr(request, "using_default_redirect_uri", False),
            "scopes": list(request.scopes or []), "user": request.user,
            "challenge": request.code_challenge, "method": request.code_challenge_method,
            "nonce": request.nonce, "claims": request.claims, "exp": self._now() + 600,
            "used": False}

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        self._fault("validate_code")
        rec = self.codes.get(code)
        if rec is None or rec["client_id"] != client_id:
            return False
        if rec["used"]:
            # a code used twice: revoke what it was exchanged for
            for t in self.access.values():
                if t.get("code") == code:
                    t["revoked"] = True
            for t in self.refresh.values():
                if t.get("code") == code:
                    t["revoked"] = True
            return False
        if rec["exp"] < self._now():
            return False
        if not self.sloppy_code:
            request.user = rec["user"]
            request.scopes = rec["scopes"]
            request.claims = rec["claims"]
        return True

    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
        rec = self.codes.get(code)
        if rec is None:
            return False
        if rec["default_redirect"] and getattr(request, "using_default_redirect_uri", False):
            return True
        return rec["redirect_uri"] == redirect_uri

    def get_code_challenge(self, code, request):
        rec = self.codes.get(code)
        return rec["challenge"] if rec else None

    def get_code_challenge_method(self, code, request):
        rec = self.codes.get(code)
        return rec["method"] if rec else None

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        if code in self.codes:
            self.codes[code]["used"] = True

    def get_authorization_code_scopes(self, client_id, code, redirect_uri, request):
        rec = self.codes.get(code)
        return rec["scopes"] if rec else []

    def get_authorization_code_nonce(self, client_id, code, redirect_uri, request):
        rec = self.codes.get(code)
        return rec["nonce"] if rec else None

    # -- tokens ----------------------------------------------------------
    def save_bearer_token(self, token, request, *args, **kwargs):
        self._fault("save_bearer_token")
        client_id = request.client_id or (request.client.client_id if request.client else None)
        scopes = token.get("scope", "").split() if token.get("scope") else list(request.scopes or [])
        code = request.code if request.grant_type == "authorization_code" else None
        self.access[token["access_token"]] = {
            "client_id": client_id, "user": request.user, "scopes": scopes, "code": code,
            "exp": self._now() + int(token.get("expires_in", 3600)), "revoked": False,
            "refresh": token.get("refresh_token")}
        rt = token.get("refresh_token")
        if rt and rt not in self.refresh:
            self.refresh[rt] = {"client_id": client_id, "user": request.user, "scopes": scopes,
                                "code": code, "revoked": False}
        old = request.refresh_token
        if old and old != rt and old in self.refresh:
            self.refresh[old]["revoked"] = True

    def rotate_refresh_token(self, request):
        return self.rotate

    def validate_bearer_token(self, token, scopes, request):
        self._fault("validate_bearer_token")
        rec = self.access.get(token or "")
        if rec is None or rec["revoked"] or rec["exp"] < self._now():
            return False
        if scopes and not set(scopes) <= set(rec["scopes"]):
            return False
        request.client = self.clients.get(rec["client_id"])
        request.user = rec["user"]
        request.scopes = rec["scopes"]
        return True

    def validate_jwt_bearer_token(self, token, scopes, request):
        keys = self.case.keys
        try:
            claims = jwt.decode(token, keys.provider[1], algorithms=["RS256"],
                                options={"verify_exp": False, "verify_aud": False})
        except jwt.PyJWTError:
            return False
        if claims.get("aud") not in (None, self.case.api):
            return False
        return self.validate_bearer_token(token, scopes, request)

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        self._fault("validate_refresh_token")
        rec = self.refresh.get(refresh_token)
        if rec is None or rec["revoked"] or rec["client_id"] != client.client_id:
            return False
        request.user = rec["user"]
        return True

    def get_original_scopes(self, refresh_token, request, *args, **kwargs):
        rec = self.refresh.get(refresh_token)
        return list(rec["scopes"]) if rec else []

    def revoke_token(self, token, token_type_hint, request, *args, **kwargs):
        self._fault("revoke_token")
        for table in ((self.refresh, self.access) if token_type_hint == "refresh_token"
                      else (self.access, self.refresh)):
            if token in table:
                table[token]["revoked"] = True
                return

    def introspect_token(self, token, token_type_hint, request, *args, **kwargs):
        self._fault("introspect_token")
        rec = self.access.get(token)
        kind = "access_token"
        if rec is None:
            rec, kind = self.refresh.get(token), "refresh_token"
        if rec is None or rec["revoked"] or rec.get("exp", self._now() + 1) < self._now():
            return None
        out = {"client_id": rec["client_id"], "scope": " ".join(rec["scopes"]), "token_type": kind}
        if rec["user"] is not None:
            out["sub"] = rec["user"].sub
            out["username"] = rec["user"].username
        if "exp" in rec:
            out["exp"] = int(rec["exp"])
        return out

    # -- OpenID Connect --------------------------------------------------
    def get_id_token(self, token, token_handler, request):
        if not self.mint_id_token:
            return None
        user = request.user
        return jwt.encode({"iss": self.case.issuer, "sub": user.sub, "aud": request.client_id,
                           "iat": int(self._now()), "exp": int(self._now()) + 600,
                           "nonce": request.nonce or ""},
                          self.case.keys.signing, algorithm="RS256")

    def finalize_id_token(self, id_token, token, token_handler, request):
        self._fault("finalize_id_token")
        id_token["iss"] = self.case.issuer
        id_token["sub"] = request.user.sub
        id_token["exp"] = id_token["iat"] + 600
        id_token["auth_time"] = int(self.case.login_time)
        if request.claims and "userinfo" not in (request.claims or {}):
            id_token["email"] = request.user.email
        if self.id_alg == "RS256":
            return jwt.encode(id_token, self.case.keys.signing, algorithm="RS256",
                              headers={"kid": "bench-2024"})
        client = self.clients.get(request.client_id)
        return jwt.encode(id_token, (client.secret if client and client.secret else "public-key-of-the-case"),
                          algorithm="HS256")

    def get_jwt_bearer_token(self, token, token_handler, request):
        return None

    def validate_silent_authorization(self, request):
        return request.client_id in self.consented

    def validate_silent_login(self, request):
        return self.session_user is not None

    def validate_user_match(self, id_token_hint, scopes, claims, request):
        if not id_token_hint:
            return True
        try:
            hint = jwt.decode(id_token_hint, options={"verify_signature": False})
        except jwt.PyJWTError:
            return False
        return self.session_user is not None and hint.get("sub") == self.session_user.sub

    def get_userinfo_claims(self, request):
        self._fault("get_userinfo_claims")
        u = request.user
        mode = self.userinfo_mode
        if mode == "none":
            return None
        if mode == "list":
            return [u.sub, u.email]
        claims = {"sub": u.sub, "name": u.full_name, "preferred_username": u.username}
        if "email" in request.scopes:
            claims["email"] = u.email
            claims["email_verified"] = True
        if mode == "nosub":
            del claims["sub"]
        if mode == "jwt":
            return jwt.encode(claims, self.case.keys.signing, algorithm="RS256")
        return claims

    def refresh_id_token(self, request):
        return self.refresh_id


# ---------------------------------------------------------------------------
# OAuth 1 provider
# ---------------------------------------------------------------------------
class O1App:
    def __init__(self, key, secret, rsa_pub, callbacks, realms, default_realms):
        self.key = key
        self.secret = secret
        self.rsa_pub = rsa_pub
        self.callbacks = list(callbacks)
        self.realms = set(realms)
        self.default_realms = list(default_realms)


class O1Provider(oauth1.RequestValidator):
    DUMMY_CLIENT = "dummyclientkey0000000000"
    DUMMY_REQUEST = "dummyrequesttoken0000000"
    DUMMY_ACCESS = "dummyaccesstoken00000000"

    def __init__(self, case, methods, enforce_ssl):
        super().__init__()
        self.case = case
        self._methods = tuple(methods)
        self._enforce = enforce_ssl
        self.apps = {}
        self.request_tokens = {}
        self.access_tokens = {}
        self.nonces = set()
        self.faults = {}
        self.calls = {}

    _fault = Provider._fault

    @property
    def allowed_signature_methods(self):
        return self._methods

    @property
    def realms(self):
        return O1_REALMS

    @property
    def enforce_ssl(self):
        return self._enforce

    @property
    def dummy_client(self):
        return self.DUMMY_CLIENT

    @property
    def dummy_request_token(self):
        return self.DUMMY_REQUEST

    @property
    def dummy_access_token(self):
        return self.DUMMY_ACCESS

    def get_client_secret(self, client_key, request):
        app = self.apps.get(client_key)
        return app.secret if app else "dummy-secret"

    def get_rsa_key(self, client_key, request):
        app = self.apps.get(client_key)
        return app.rsa_pub if app and app.rsa_pub else self.case.keys.other[1]

    def validate_client_key(self, client_key, request):
        self._fault("validate_client_key")
        return client_key in self.apps

    def validate_timestamp_and_nonce(self, client_key, timestamp, nonce, request,
                                     request_token=None, access_token=None):
        k = (client_key, timestamp, nonce, request_token or access_token)
        if k in self.nonces:
            return False
        self.nonces.add(k)
        return True

    def get_default_realms(self, client_key, request):
        app = self.apps.get(client_key)
        return list(app.default_realms) if app else []

    def validate_requested_realms(self, client_key, realms, request):
        app = self.apps.get(client_key)
        return app is not None and set(realms) <= app.realms

    def validate_redirect_uri(self, client_key, redirect_uri, request):
        app = self.apps.get(client_key)
        return app is not None and redirect_uri in app.callbacks

    def save_request_token(self, token, request):
        self._fault("save_request_token")
        self.request_tokens[token["oauth_token"]] = {
            "client": request.client_key, "secret": token["oauth_token_secret"],
            "callback": request.redirect_uri, "realms": list(request.realms or []),
            "verifier": None, "user": None, "used": False}

    def verify_request_token(self, token, request):
        rec = self.request_tokens.get(token)
        return rec is not None and not rec["used"]

    def get_realms(self, token, request):
        rec = self.request_tokens.get(token)
        return list(rec["realms"]) if rec else []

    def verify_realms(self, token, realms, request):
        rec = self.request_tokens.get(token)
        return rec is not None and set(realms) <= set(rec["realms"])

    def save_verifier(self, token, verifier, request):
        rec = self.request_tokens[token]
        rec["verifier"] = verifier["oauth_verifier"]
        rec["user"] = self.case.o1_user

    def get_redirect_uri(self, token, request):
        return self.request_tokens[token]["callback"]

    def get_request_token_secret(self, client_key, token, request):
        rec = self.request_tokens.get(token)
        return rec["secret"] if rec else "dummy-request-secret"

    def validate_request_token(self, client_key, token, request):
        rec = self.request_tokens.get(token)
        return rec is not None and rec["client"] == client_key and not rec["used"]

    def validate_verifier(self, client_key, token, verifier, request):
        rec = self.request_tokens.get(token)
        return rec is not None and rec["verifier"] is not None and hmac.compare_digest(rec["verifier"], verifier)

    def invalidate_request_token(self, client_key, request_token, request):
        if request_token in self.request_tokens:
            self.request_tokens[request_token]["used"] = True

    def save_access_token(self, token, request):
        self._fault("save_access_token")
        rt = self.request_tokens.get(request.resource_owner_key, {})
        self.access_tokens[token["oauth_token"]] = {
            "client": request.client_key, "secret": token["oauth_token_secret"],
            "realms": list(request.realms or []), "user": rt.get("user"), "revoked": False}

    def validate_access_token(self, client_key, token, request):
        self._fault("validate_access_token")
        rec = self.access_tokens.get(token)
        return rec is not None and rec["client"] == client_key and not rec["revoked"]

    def get_access_token_secret(self, client_key, token, request):
        rec = self.access_tokens.get(token)
        return rec["secret"] if rec else "dummy-access-secret"

    def validate_realms(self, client_key, token, request, uri=None, realms=None):
        rec = self.access_tokens.get(token)
        return rec is not None and set(realms or []) <= set(rec["realms"])


# ---------------------------------------------------------------------------
# keys (made once per run; RSA key generation is not seedable)
# ---------------------------------------------------------------------------
class Keys:
    def __init__(self):
        self.ok = False
        try:
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import rsa
        except ImportError:
            return
        if jwt is None:
            return

        def make():
            k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            priv = k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()).decode()
            pub = k.public_key().public_bytes(serialization.Encoding.PEM,
                                              serialization.PublicFormat.SubjectPublicKeyInfo).decode()
            return priv, pub
        self.provider, self.client, self.other = make(), make(), make()
        # the provider's own signing key, loaded once (oauthlib's helpers take PEM text)
        self.signing = serialization.load_pem_private_key(self.provider[0].encode(), password=None)
        self.ok = True


# ---------------------------------------------------------------------------
# URL and form editing (tampering)
# ---------------------------------------------------------------------------
def qs_edit(s, drop=(), add=(), setv=None):
    pairs = [(k, v) for k, v in up.parse_qsl(s, keep_blank_values=True) if k not in drop]
    if setv:
        pairs = [(k, setv.get(k, v)) for k, v in pairs]
    pairs.extend(add)
    return up.urlencode(pairs)


def uri_edit(uri, drop=(), add=(), setv=None, raw_tail=None):
    p = up.urlsplit(uri)
    q = qs_edit(p.query, drop, add, setv)
    if raw_tail:
        q = q + raw_tail
    return up.urlunsplit((p.scheme, p.netloc, p.path, q, p.fragment))


def basic(cid, secret):
    raw = "%s:%s" % (up.quote_plus(cid), up.quote_plus(secret or ""))
    return "Basic " + base64.b64encode(raw.encode()).decode()


def scope_list(s):
    if not s:
        return []
    return s.split() if isinstance(s, str) else list(s)


def frag_or_query(location):
    p = up.urlsplit(location or "")
    return dict(up.parse_qsl(p.fragment or p.query, keep_blank_values=True))


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, r, keys):
        self.r = r
        self.keys = keys
        self.now = time.time()
        self.login_time = self.now
        self.o1_user = None
        self.failures = 0

    # -- framework -------------------------------------------------------
    def http(self, fn, *a, **kw):
        """The provider's web framework around an endpoint: its answer, or
        None after an exception (rendered as an error page)."""
        try:
            return fn(*a, **kw)
        except Exception:  # noqa: BLE001 -- a framework renders every failure
            self.failures += 1
            return None

    def client_side(self, fn, *a, **kw):
        """The client application: oauthlib's client raising (a refused
        transport, an error response, a state mismatch) ends the step."""
        try:
            return fn(*a, **kw)
        except (Exception, Warning):  # noqa: BLE001
            return None

    def later(self, kind):
        r = self.r
        self.now += {"moment": r.uniform(1, 30), "minutes": r.uniform(60, 500),
                     "code_expired": r.uniform(700, 2000), "hours": r.uniform(4000, 9000),
                     "days": r.uniform(90000, 400000)}[kind]

    # -- plan ------------------------------------------------------------
    def run(self):
        r = self.r
        oauthlib.set_debug(r.random() < 0.33)
        dev = r.random() < 0.1
        self.relax = r.random() < 0.5
        if dev:
            self.base = r.choice(DEV_ISSUERS)
            self.api = self.base.rsplit("/oauth", 1)[0] + "/api"
            if r.random() < 0.15:  # forgot to allow plain HTTP
                os.environ.pop(ENV_INSECURE, None)
            else:
                os.environ[ENV_INSECURE] = "1"
        else:
            self.base = pick(r, ISSUERS)
            self.api = r.choice(APIS)
            os.environ.pop(ENV_INSECURE, None)
        if self.relax:
            os.environ[ENV_RELAX] = "1"
        else:
            os.environ.pop(ENV_RELAX, None)
        self.issuer = self.base
        kind = pick(r, [(26, "web"), (10, "mobile"), (11, "legacy"), (12, "backend"),
                        (20, "oidc"), (13, "oauth1"), (4, "oauth1_2leg")])
        if kind == "oidc" and not self.keys.ok:
            kind = "web"
        if kind.startswith("oauth1"):
            self.run_oauth1(kind == "oauth1_2leg")
        else:
            self.run_oauth2(kind)

    # ======================================================================
    # OAuth 2
    # ======================================================================
    def make_clients(self, kind):
        r = self.r
        app = r.choice(APP_NAMES)
        cid = "%s-%s" % (app, tok(r, 6).lower())
        confidential = kind in ("web", "legacy", "backend", "oidc") and r.random() < 0.8
        if kind == "mobile":
            confidential = r.random() < 0.1
        secret = tok(r, 32) if confidential else None
        host = "https://%s.example.org" % app
        n_redirect = pick(r, [(6, 1), (3, 2), (1, 3)])
        redirects = ["%s/oauth/callback" % host, "%s/cb/%s" % (host, tok(r, 4).lower()),
                     "com.example.%s:/oauth2redirect" % app][:n_redirect]
        if self.base.startswith("http://"):
            redirects[0] = "http://localhost:3000/callback"
        grants = {"web": ["authorization_code", "refresh_token"], "mobile": [],
                  "legacy": ["password", "refresh_token"], "backend": ["client_credentials"],
                  "oidc": ["authorization_code", "refresh_token"]}[kind]
        if r.random() < 0.1:
            grants = grants[:1]  # no refresh_token grant
        if r.random() < 0.06:
            grants = ["authorization_code"] if kind != "web" else ["password"]
        rtypes = {"web": ["code"], "mobile": ["token"], "legacy": [], "backend": [],
                  "oidc": ["code", "id_token", "id_token token", "code id_token", "code token",
                           "code id_token token"]}[kind]
        if r.random() < 0.08 and rtypes:
            rtypes = rtypes[1:] or ["none"]
        scopes = set(r.sample(SCOPES, r.randint(2, len(SCOPES))))
        if kind == "oidc" or (kind == "web" and r.random() < 0.3):
            scopes.add("openid")
        default_scopes = r.sample(sorted(scopes), 1) if r.random() < 0.7 else []
        pkce = kind in ("web", "mobile", "oidc") and r.random() < 0.2
        origins = [o for o in ORIGINS if r.random() < 0.4]
        me = ClientApp(cid, secret, redirects, grants, rtypes, scopes, default_scopes, pkce, origins, app)
        # the API's own client (introspection), and another application
        api = ClientApp("resource-server", "rs-" + tok(r, 24), [], ["client_credentials"], [],
                        ["read"], [], name="api")
        other = ClientApp("other-" + tok(r, 6).lower(), tok(r, 32), ["https://other.example.net/cb"],
                          ["authorization_code", "refresh_token", "client_credentials", "password"],
                          ["code", "token"], set(SCOPES), ["read"], name="other")
        return me, api, other

    def make_server(self, kind, v):
        r = self.r
        table = {"web": [(5, "WebApplicationServer"), (3, "Server"), (2, "openid.Server")],
                 "mobile": [(5, "MobileApplicationServer"), (2, "Server"), (2, "openid.Server")],
                 "legacy": [(5, "LegacyApplicationServer"), (2, "Server"), (1, "openid.Server")],
                 "backend": [(5, "BackendApplicationServer"), (2, "Server"), (1, "openid.Server")],
                 "oidc": [(1, "openid.Server")]}[kind]
        name = pick(r, table)
        if name == "openid.Server" and not self.keys.ok:
            name = "Server"
        cls = {"WebApplicationServer": oauth2.WebApplicationServer, "Server": oauth2.Server,
               "MobileApplicationServer": oauth2.MobileApplicationServer,
               "LegacyApplicationServer": oauth2.LegacyApplicationServer,
               "BackendApplicationServer": oauth2.BackendApplicationServer,
               "openid.Server": openid.Server}[name]
        kw = {}
        g = pick(r, [(5, "default"), (3, "own"), (2 if self.keys.ok else 0, "signed")])
        if g == "own":
            seed = r.getrandbits(32)
            rg = random.Random(seed)
            kw["token_generator"] = lambda request, refresh_token=False: tok(rg, 40)
        elif g == "signed":
            kw["token_generator"] = o2tokens.signed_token_generator(self.keys.provider[0], iss=self.issuer,
                                                                   aud=self.api)
            seed = r.getrandbits(32)
            rg = random.Random(seed)
            kw["refresh_token_generator"] = lambda request, refresh_token=False: "rt." + tok(rg, 36)
        e = pick(r, [(5, None), (3, "short"), (2, "per_scope")])
        if e == "short":
            kw["token_expires_in"] = r.choice([300, 600, 900])
        elif e == "per_scope":
            kw["token_expires_in"] = lambda request: 600 if "write" in (request.scopes or []) else 7200
        server = cls(v, **kw)
        server.catch_errors = r.random() < 0.4
        if hasattr(server, "refresh_grant"):
            server.refresh_grant.issue_new_refresh_tokens = r.random() < 0.85
        if name == "openid.Server" and r.random() < 0.5:
            server.grant_types["refresh_token"] = OIDCRefreshGrant(v)
        self.server_name = name
        return server

    def run_oauth2(self, kind):
        r = self.r
        v = Provider(self)
        self.v = v
        me, api, other = self.make_clients(kind)
        for c in (me, api, other):
            v.clients[c.client_id] = c
        self.me, self.api_client, self.other = me, api, other
        v.rotate = r.random() < 0.6
        v.sloppy_code = r.random() < 0.07
        v.userinfo_mode = pick(r, [(12, "dict"), (2, "jwt"), (1, "nosub"), (1, "none"), (1, "list")])
        v.id_alg = pick(r, [(3, "RS256"), (1, "HS256")])
        v.mint_id_token = r.random() < 0.12
        v.refresh_id = r.random() < 0.7
        if r.random() < 0.22:
            meth = r.choice(["validate_client_id", "authenticate_client", "validate_scopes",
                             "save_authorization_code", "validate_code", "save_bearer_token",
                             "validate_bearer_token", "validate_refresh_token", "revoke_token",
                             "introspect_token", "get_userinfo_claims", "validate_user",
                             "finalize_id_token"])
            exc = r.choice([StoreError("%s: connection to token store lost" % meth),
                            TimeoutError("database timeout after 5.0s"),
                            KeyError("client_registry"),
                            RuntimeError("validator misconfigured: %s" % meth)])
            v.faults[meth] = (r.randint(1, 3), exc)
        server = self.make_server(kind, v)
        self.server = server
        self.urls = {k: self.base + p for k, p in (
            ("authorize", "/authorize"), ("token", "/token"), ("revoke", "/revoke"),
            ("introspect", "/introspect"), ("userinfo", "/userinfo"),
            ("meta", "/.well-known/openid-configuration" if kind == "oidc"
             else "/.well-known/oauth-authorization-server"))}
        self.maint = r.random() < 0.06
        self.token = None
        self.id_token = None
        self.granted = []
        if r.random() < 0.3:
            self.discovery()
        self.skip_consent = r.random() < 0.25
        flow = {"web": lambda: self.flow_code(openid_flow=False), "mobile": self.flow_implicit,
                "legacy": self.flow_password, "backend": self.flow_client_credentials,
                "oidc": self.flow_oidc}[kind]
        flow()
        if not self.token and r.random() < 0.5:
            self.later("moment")  # the user (or the operator) tries again
            flow()
        steps = r.randint(2, 8) if self.token else (1 if r.random() < 0.3 else 0)
        for _ in range(steps):
            self.lifetime_step(kind)

    # -- discovery ---------------------------------------------------------
    def discovery(self):
        r = self.r
        s = self.server
        claims = {"issuer": self.issuer, "scopes_supported": sorted(self.me.scopes | {"openid"}),
                  "jwks_uri": self.base + "/jwks.json", "service_documentation": self.base + "/docs"}
        if isinstance(s, oauth2.AuthorizationEndpoint):
            claims["authorization_endpoint"] = self.urls["authorize"]
        if isinstance(s, oauth2.TokenEndpoint):
            claims["token_endpoint"] = self.urls["token"]
        claims["revocation_endpoint"] = self.urls["revoke"]
        claims["introspection_endpoint"] = self.urls["introspect"]
        try:
            meta = oauth2.MetadataEndpoint([s], claims=claims, raise_errors=r.random() < 0.8)
        except ValueError:  # an http issuer refused by the validation of the claims
            return
        if r.random() < 0.15:
            meta.available = False
        self.http(meta.create_metadata_response, self.urls["meta"])

    def maybe_maintenance(self):
        """Takes the server down for one step, sometimes."""
        if self.maint and self.r.random() < 0.3:
            self.server.available = False
            return True
        return False

    def end_maintenance(self):
        self.server.available = True

    def client_auth(self, body, headers, how=None, client=None, secret=None):
        """Adds the client's authentication to a token-endpoint request."""
        c = client or self.me
        secret = c.secret if secret is None else secret
        headers = dict(headers)
        if not c.confidential and secret is None:
            return qs_edit(body, drop=("client_id",), add=[("client_id", c.client_id)]), headers
        how = how or self.auth_style
        if how == "basic":
            headers["Authorization"] = basic(c.client_id, secret)
        else:
            body = qs_edit(body, drop=("client_id",), add=[("client_id", c.client_id), ("client_secret", secret)])
        return body, headers

    def ghost(self, secret=None):
        """A client the provider does not know (public unless given a secret)."""
        return ClientApp("ghost-" + tok(self.r, 6).lower(), secret, [], [], [], [], [])

    def wrong_secret(self):
        return "x" + tok(self.r, 31)

    # -- authorization code ----------------------------------------------
    def auth_request_uri(self, client, scopes, rtype="code", extra=None):
        r = self.r
        me = self.me
        red = pick(r, [(7, "registered"), (2, "omitted"), (1, "foreign"), (0.4, "relative")])
        redirect = {"registered": me.redirect_uris[-1], "omitted": None,
                    "foreign": "https://evil.example/steal", "relative": "/oauth/callback"}[red]
        state = tok(r, 20) if r.random() < 0.85 else None
        kwargs = dict(extra or {})
        pk = pick(r, [(5, None), (4 if rtype == "code" or "code" in rtype.split() else 0, "S256"), (1, "plain")])
        verifier = None
        if pk:
            verifier = client.create_code_verifier(r.choice([43, 64, 128]))
            kwargs["code_challenge"] = client.create_code_challenge(verifier, pk)
            kwargs["code_challenge_method"] = pk
            if r.random() < 0.05:
                kwargs["code_challenge_method"] = "S512"
        if r.random() < 0.05:
            kwargs["response_mode"] = r.choice(["form_post", "web_message"])
        elif r.random() < 0.1:
            kwargs["response_mode"] = r.choice(["query", "fragment"])
        uri = o2params.prepare_grant_uri(self.urls["authorize"], me.client_id, rtype, redirect_uri=redirect,
                                         scope=scopes, state=state, **kwargs)
        uri = self.tamper_auth(uri, scopes, 40)
        return uri, redirect, state, verifier

    def tamper_auth(self, uri, scopes, clean):
        """A hand-edited authorization request (clean: weight of none)."""
        r = self.r
        t = pick(r, [(clean, None), (1.5, "dup"), (1, "no_client"), (1.5, "unknown_client"), (1, "no_rtype"),
                     (1, "bad_rtype"), (0.7, "bad_hex"), (1, "scope_admin")])
        if t == "dup":
            p = r.choice(["scope", "state", "client_id", "redirect_uri", "response_type"])
            val = dict(up.parse_qsl(up.urlsplit(uri).query)).get(p, "x")
            uri = uri_edit(uri, add=[(p, val)])
        elif t == "no_client":
            uri = uri_edit(uri, drop=("client_id",))
        elif t == "unknown_client":
            uri = uri_edit(uri, setv={"client_id": "ghost-" + tok(r, 6).lower()})
        elif t == "no_rtype":
            uri = uri_edit(uri, drop=("response_type",))
        elif t == "bad_rtype":
            uri = uri_edit(uri, setv={"response_type": r.choice(["magic", "device_code", "code id"])})
        elif t == "bad_hex":
            uri = uri + "&x=%zz"
        elif t == "scope_admin":
            uri = uri_edit(uri, setv={"scope": " ".join((scopes or []) + ["admin"])})
        return uri

    def want_scopes(self, extra=()):
        r = self.r
        me = self.me
        if r.random() < 0.12:
            return None  # the client's default scopes
        pool = sorted(me.scopes - {"openid"})
        s = r.sample(pool, r.randint(1, min(3, len(pool)))) if pool else []
        if r.random() < 0.07:
            s.append(r.choice([x for x in SCOPES if x not in me.scopes] or ["admin"]))
        return list(extra) + s

    def consent(self, uri, ask_user=True):
        """The consent page: validate, then the user's decision; returns
        (granted scopes or None, user) or None when the request failed."""
        r = self.r
        s = self.server
        if self.skip_consent and ask_user:
            # a trusted (first-party) client, or consent remembered: no page
            user = self.v.session_user or User(r.choice(sorted(USERS)))
            self.v.session_user = user
            return None, user
        res = self.http(s.validate_authorization_request, uri)
        if res is None or len(res) != 2:  # an exception, or the 503/500 of catch_errors
            return None
        scopes, info = res
        if not ask_user:
            return scopes, self.v.session_user
        d = pick(r, [(12, "approve"), (2, "narrow"), (1, "deny")])
        if d == "deny":
            return "deny", None
        user = self.v.session_user or User(r.choice(sorted(USERS)))
        self.v.session_user = user
        self.login_time = self.now
        granted = list(scopes)
        if d == "narrow" and len(granted) > 1:
            granted = granted[:-1]
        self.v.consented.add(self.me.client_id)
        return granted, user

    def authorize(self, uri, granted, user):
        s = self.server
        if not self.skip_consent and self.r.random() < 0.04:
            uri = self.tamper_auth(uri, granted, 0)  # the consent form, edited before it is posted
        down = self.maybe_maintenance()
        res = self.http(s.create_authorization_response, uri, scopes=granted, credentials={"user": user})
        if down:
            self.end_maintenance()
        if res is None:
            return None
        headers, body, status = res
        return headers.get("Location")

    def flow_code(self, openid_flow):
        r = self.r
        me = self.me
        self.auth_style = pick(r, [(3, "basic"), (2, "body")])
        wc = oauth2.WebApplicationClient(me.client_id)
        scopes = self.want_scopes(["openid"] if openid_flow else ())
        built = self.client_side(self.auth_request_uri, wc, scopes)
        if built is None:  # the client refuses a plain-HTTP provider
            return
        uri, redirect, state, verifier = built
        got = self.consent(uri)
        if got is None:
            return
        granted, user = got
        if granted == "deny":
            loc = common.add_params_to_uri(redirect or me.redirect_uris[0],
                                           [("error", "access_denied"), ("state", state or "")])
            self.client_side(wc.parse_request_uri_response, loc, state=state)
            return
        loc = self.authorize(uri, granted, user)
        if not loc:
            return
        if r.random() < 0.03:
            loc = uri_edit(loc, setv={"state": "forged" + tok(r, 8)})
        if self.client_side(wc.parse_request_uri_response, loc, state=state) is None or not wc.code:
            return
        self.granted = list(granted or scopes or [])
        if r.random() < 0.1:
            self.later("code_expired")
        else:
            self.later("moment")
        self.exchange_code(wc, wc.code, redirect, verifier)
        if self.token and r.random() < 0.12:
            self.later("moment")
            self.exchange_code(wc, wc.code, redirect, verifier, replay=True)

    def exchange_code(self, wc, code, redirect, verifier, replay=False):
        r = self.r
        me = self.me
        t = None if replay else pick(r, [(30, None), (2, "bad_secret"), (1.5, "bad_verifier"),
                                          (1.5, "no_verifier"), (1.5, "redirect_mismatch"), (1, "no_code"),
                                          (1, "other_client"), (1, "grant_type"), (1, "get"),
                                          (1, "query_on_post"), (1, "dup"), (1, "ghost")])
        send_redirect = redirect
        if t == "redirect_mismatch":
            send_redirect = me.redirect_uris[0] + "/x" if redirect else me.redirect_uris[0] + "?next=1"
        body = wc.prepare_request_body(code=None if t == "no_code" else code, redirect_uri=send_redirect,
                                       include_client_id=True,
                                       code_verifier=None if t == "no_verifier" else
                                       ("w" * 43 if t == "bad_verifier" else verifier))
        headers = dict(FORM)
        if r.random() < 0.25:
            headers["Origin"] = r.choice(ORIGINS)
        if t == "other_client":
            body, headers = self.client_auth(body, headers, client=self.other)
        elif t == "ghost":
            body, headers = self.client_auth(body, headers, client=self.ghost())
        else:
            body, headers = self.client_auth(body, headers,
                                             secret=self.wrong_secret() if t == "bad_secret" and me.confidential
                                             else None)
        method, url = "POST", self.urls["token"]
        if t == "grant_type":
            body = qs_edit(body, setv={"grant_type": r.choice(["authorization-code", "code", "implicit"])})
        elif t == "get":
            method = "GET"
        elif t == "query_on_post":
            url = url + "?client_id=" + me.client_id
        elif t == "dup":
            body = body + "&grant_type=authorization_code"
        self.token_request(wc, url, method, body, headers)

    def token_request(self, client, url, method, body, headers, scope=None):
        down = self.maybe_maintenance()
        res = self.http(self.server.create_token_response, url, method, body, headers)
        if down:
            self.end_maintenance()
        if res is None:
            return None
        h, b, status = res
        if status != 200:
            self.client_side(client.parse_request_body_response, b or "{}")
            return None
        tokd = self.client_side(client.parse_request_body_response, b, scope=scope)
        if tokd is None:
            try:
                tokd = json.loads(b)  # the client relaxes: takes what it got
            except ValueError:
                return None
        self.token = dict(tokd)
        if "id_token" in tokd:
            self.id_token = tokd["id_token"]
        self.wc = client
        return tokd

    # -- implicit --------------------------------------------------------
    def flow_implicit(self):
        r = self.r
        me = self.me
        self.auth_style = "body"
        mc = oauth2.MobileApplicationClient(me.client_id)
        scopes = self.want_scopes()
        built = self.client_side(self.auth_request_uri, mc, scopes, rtype="token")
        if built is None:
            return
        uri, redirect, state, _ = built
        got = self.consent(uri)
        if got is None:
            return
        granted, user = got
        if granted == "deny":
            return
        loc = self.authorize(uri, granted, user)
        if not loc:
            return
        tokd = self.client_side(mc.parse_request_uri_response, loc, state=state, scope=scopes)
        if tokd is None:
            tokd = frag_or_query(loc)
            if "access_token" not in tokd:
                return
        self.token = dict(tokd)
        self.wc = mc
        self.granted = list(granted or scopes or [])

    # -- password ----------------------------------------------------------
    def flow_password(self):
        r = self.r
        me = self.me
        self.auth_style = pick(r, [(3, "basic"), (2, "body")])
        lc = oauth2.LegacyApplicationClient(me.client_id)
        for attempt in range(r.randint(1, 3)):
            name = r.choice(sorted(USERS)) if r.random() < 0.9 else "mallory"
            pw = USERS.get(name, ("nope",))[0]
            t = pick(r, [(12, None), (3, "wrong_pw"), (1, "no_pw"), (1, "dup_user"), (1, "bad_secret"),
                         (1, "grant"), (0.7, "ghost")])
            if t == "wrong_pw":
                pw = pw[::-1] + "1"
            scopes = self.want_scopes()
            body = lc.prepare_request_body(username=name, password="" if t == "no_pw" else pw, scope=scopes,
                                           include_client_id=not me.confidential)
            if t == "dup_user":
                body = body + "&username=" + r.choice(sorted(USERS))
            elif t == "grant":
                body = qs_edit(body, setv={"grant_type": "passwd"})
            if t == "ghost":
                body, headers = self.client_auth(body, FORM, client=self.ghost())
            else:
                body, headers = self.client_auth(body, FORM, secret=self.wrong_secret()
                                                 if t == "bad_secret" and me.confidential else None)
            if self.token_request(lc, self.urls["token"], "POST", body, headers, scope=scopes):
                self.granted = scope_list(self.token.get("scope"))
                return
            self.later("moment")

    # -- client credentials ----------------------------------------------
    def flow_client_credentials(self):
        r = self.r
        me = self.me
        if not me.confidential:
            me.secret = tok(r, 32)
        self.auth_style = pick(r, [(3, "basic"), (2, "body")])
        bc = oauth2.BackendApplicationClient(me.client_id)
        for attempt in range(r.randint(1, 2)):
            t = pick(r, [(12, None), (2, "bad_secret"), (1, "unknown"), (1, "no_grant"), (1, "dup_scope"),
                         (1, "jwt_bearer" if self.keys.ok else "no_grant")])
            scopes = self.want_scopes()
            if t == "jwt_bearer":
                sc = oauth2.ServiceApplicationClient(me.client_id, private_key=self.keys.client[0],
                                                     subject="svc@" + me.name, issuer=me.client_id,
                                                     audience=self.urls["token"])
                body = sc.prepare_request_body(scope=scopes)
                self.token_request(sc, self.urls["token"], "POST", body, dict(FORM))
                continue
            body = bc.prepare_request_body(scope=scopes)
            if t == "no_grant":
                body = qs_edit(body, drop=("grant_type",))
            elif t == "dup_scope":
                body = body + "&scope=read"
            if t == "unknown":
                body, headers = self.client_auth(body, FORM, client=self.ghost(tok(r, 32)))
            else:
                body, headers = self.client_auth(body, FORM, secret=self.wrong_secret() if t == "bad_secret" else None)
            if self.token_request(bc, self.urls["token"], "POST", body, headers, scope=scopes):
                self.granted = scope_list(self.token.get("scope"))
                return
            self.later("moment")

    # -- OpenID Connect ----------------------------------------------------
    def flow_oidc(self):
        r = self.r
        me = self.me
        self.auth_style = pick(r, [(3, "basic"), (2, "body")])
        if r.random() < 0.3:
            self.v.session_user = User(r.choice(sorted(USERS)))
            if r.random() < 0.5:
                self.v.consented.add(me.client_id)
        rtype = pick(r, [(8, "code"), (2, "id_token"), (2, "id_token token"), (2, "code id_token"),
                         (1, "code token"), (1, "code id_token token"), (1, "token")])
        extra = {}
        if r.random() < 0.88:
            extra["nonce"] = tok(r, 16)
        prompt = pick(r, [(10, None), (3, "none"), (2, "login"), (2, "consent"), (1, "none login"),
                          (1, "select_account")])
        if prompt:
            extra["prompt"] = prompt
        if r.random() < 0.15:
            extra["claims"] = r.choice(['{"userinfo": {"email": {"essential": true}}}',
                                        '{"id_token": {"auth_time": {"essential": true}}}', "{claims:"])
        if r.random() < 0.2:
            extra["login_hint"] = r.choice(sorted(USERS)) + "@example.org"
        if r.random() < 0.15:
            extra["ui_locales"] = r.choice(["en-GB fr", "de", "it-IT en"])
        if r.random() < 0.1:
            extra["display"] = r.choice(["page", "popup", "touch"])
        if r.random() < 0.1 and self.v.session_user is not None:
            other = User(r.choice(sorted(USERS)))
            extra["id_token_hint"] = jwt.encode({"sub": other.sub, "iss": self.issuer, "aud": me.client_id},
                                                self.keys.signing, algorithm="RS256")
        wc = oauth2.WebApplicationClient(me.client_id)
        scopes = ["openid"] + (self.want_scopes() or [])
        built = self.client_side(self.auth_request_uri, wc, scopes, rtype=rtype, extra=extra)
        if built is None:
            return
        uri, redirect, state, verifier = built
        got = self.consent(uri, ask_user=prompt not in ("none",))
        if got is None:
            return
        granted, user = got
        if granted == "deny":
            return
        if user is None:
            return  # prompt=none without a session: the page was the error
        loc = self.authorize(uri, granted, user)
        if not loc:
            return
        params = frag_or_query(loc)
        if state and params.get("state") not in (None, state):
            return
        self.granted = list(granted or scopes or [])
        if "id_token" in params:
            self.id_token = params["id_token"]
        if "access_token" in params:
            self.token = {"access_token": params["access_token"], "token_type": params.get("token_type", "Bearer")}
            self.wc = oauth2.MobileApplicationClient(me.client_id, token=self.token)
        if "code" in params:
            self.later("moment")
            self.exchange_code(wc, params["code"], redirect, verifier)
        if self.token and r.random() < 0.8:
            self.userinfo()

    def userinfo(self):
        r = self.r
        tokv = self.token.get("access_token", "")
        how = pick(r, [(6, "header"), (1, "query"), (1, "post"), (1, "bad"), (0.5, "none")])
        headers, url, method, body = {}, self.urls["userinfo"], "GET", None
        if how == "header":
            headers["Authorization"] = "Bearer " + tokv
        elif how == "query":
            url = url + "?access_token=" + up.quote(tokv)
        elif how == "post":
            method, body, headers = "POST", "access_token=" + up.quote(tokv), dict(FORM)
        elif how == "bad":
            headers["Authorization"] = "Bearer " + tokv[:-4] + "AAAA"
        down = self.maybe_maintenance()
        self.http(self.server.create_userinfo_response, url, method, body, headers)
        if down:
            self.end_maintenance()

    # -- the rest of the lifetime -----------------------------------------
    def lifetime_step(self, kind):
        r = self.r
        has_refresh = bool(self.token and self.token.get("refresh_token"))
        choices = [(7, "api"), (3 if has_refresh else 0.3, "refresh"), (1.5, "introspect"), (1.2, "revoke"),
                   (1.5, "wait"), (0.8, "probe")]
        if isinstance(self.server, openid.Server) and self.token:
            choices.append((2, "userinfo"))
        step = pick(r, choices)
        if step == "wait":
            self.later(pick(r, [(3, "minutes"), (2, "hours"), (1, "days")]))
            step = "api"
        if not self.token and step in ("api", "introspect", "revoke", "userinfo", "refresh"):
            step = "probe"
        if step in ("probe", "refresh") and not isinstance(self.server, oauth2.TokenEndpoint):
            step = "api" if self.token else "wait"
        if step == "wait":
            self.later("minutes")
            return
        getattr(self, "step_" + step)()

    def step_api(self):
        r = self.r
        for _ in range(r.randint(1, 3)):
            method, path, need = r.choice(ROUTES)
            url = self.api + path
            placement = pick(r, [(8, "auth_header"), (1, "query"), (1 if method != "GET" else 0, "body")])
            body = "title=holiday&album=7" if method in ("POST", "PUT") else None
            headers = dict(FORM) if body is not None else {}
            tokv = self.token.get("access_token")
            t = pick(r, [(20, None), (1, "tampered"), (1, "scheme"), (1, "missing")])
            if t == "tampered":
                tokv = tokv[:-3] + "zzz"
            client = oauth2.WebApplicationClient(self.me.client_id, token={"access_token": tokv,
                                                                           "token_type": "Bearer"})
            res = self.client_side(client.add_token, url, http_method=method, body=body, headers=headers,
                                   token_placement=placement)
            if res is None:
                return
            url, headers, body = res
            if t == "scheme":
                headers["Authorization"] = "Token " + tokv
            elif t == "missing":
                headers.pop("Authorization", None)
            down = self.maybe_maintenance()
            self.http(self.server.verify_request, url, method, body, headers, scopes=need)
            if down:
                self.end_maintenance()

    def step_refresh(self):
        r = self.r
        me = self.me
        rt = self.token.get("refresh_token") or ("rt-" + tok(r, 20))
        t = pick(r, [(12, None), (2, "narrow"), (2, "wider"), (1, "bad_secret"), (1, "other_client"),
                     (1, "unknown"), (1, "missing"), (0.7, "ghost")])
        scope = None
        if t == "narrow" and self.granted:
            scope = self.granted[:1]
        elif t == "wider":
            scope = list(self.granted) + ["admin" if r.random() < 0.5 else "write"]
        if t == "unknown":
            rt = tok(r, 30)
        client = oauth2.WebApplicationClient(me.client_id)
        body = client.prepare_refresh_body(refresh_token=None if t == "missing" else rt, scope=scope)
        headers = dict(FORM)
        if r.random() < 0.2:
            headers["Origin"] = r.choice(ORIGINS)
        if t == "other_client":
            body, headers = self.client_auth(body, headers, client=self.other)
        elif t == "ghost":
            body, headers = self.client_auth(body, headers, client=self.ghost())
        else:
            body, headers = self.client_auth(body, headers, secret=self.wrong_secret()
                                             if t == "bad_secret" and me.confidential else None)
        old = self.token
        got = self.token_request(client, self.urls["token"], "POST", body, headers, scope=scope)
        if got and "refresh_token" not in got and old.get("refresh_token"):
            self.token["refresh_token"] = old["refresh_token"]
        if got:
            self.granted = scope_list(got.get("scope")) or self.granted

    def step_introspect(self):
        r = self.r
        which = pick(r, [(5, "access_token"), (2, "refresh_token"), (1, "unknown")])
        tokv = self.token.get(which) if which != "unknown" else tok(r, 30)
        if not tokv:
            tokv = self.token.get("access_token")
        body = "token=" + up.quote(tokv)
        if r.random() < 0.6:
            body += "&token_type_hint=" + r.choice(["access_token", "refresh_token", "id_token"])
        t = pick(r, [(10, "api"), (1, "bad_secret"), (1, "anonymous"), (1, "self")])
        headers = dict(FORM)
        if t == "api":
            headers["Authorization"] = basic(self.api_client.client_id, self.api_client.secret)
        elif t == "bad_secret":
            headers["Authorization"] = basic(self.api_client.client_id, "guess")
        elif t == "self":
            body, headers = self.client_auth(body, headers)
        down = self.maybe_maintenance()
        self.http(self.server.create_introspect_response, self.urls["introspect"], "POST", body, headers)
        if down:
            self.end_maintenance()

    def step_revoke(self):
        r = self.r
        me = self.me
        which = pick(r, [(3, "access_token"), (2, "refresh_token")])
        tokv = self.token.get(which) or self.token.get("access_token")
        client = oauth2.WebApplicationClient(me.client_id)
        hint = pick(r, [(5, which), (1, None), (1, "id_token"), (0.5, "bogus_hint")])
        res = self.client_side(client.prepare_token_revocation_request, self.urls["revoke"], tokv,
                               token_type_hint=hint)
        if res is None:
            return
        url, headers, body = res
        if r.random() < 0.1:
            body = qs_edit(body, drop=("token",))
        body, headers = self.client_auth(body, headers, secret=self.wrong_secret()
                                         if r.random() < 0.08 and me.confidential else None)
        if r.random() < 0.05:
            url = url + "?token=" + up.quote(tokv)
        self.http(self.server.create_revocation_response, url, "POST", body, headers)
        # then the client goes on using what it has, and fails

    def step_userinfo(self):
        self.userinfo()

    def step_probe(self):
        """A malformed request at the token endpoint."""
        r = self.r
        me = self.me
        kind = pick(r, [(3, "grant"), (2, "no_grant"), (1, "garbage"), (1, "bad_hex"), (1, "empty")])
        body = {"grant": "grant_type=%s&scope=read" % r.choice(["urn:ietf:params:oauth:grant-type:device_code",
                                                                  "magic", "implicit", "token"]),
                "no_grant": "code=%s&redirect_uri=%s" % (tok(r, 20), up.quote(me.redirect_uris[0] if me.redirect_uris
                                                                                else "https://x.test")),
                "garbage": "\x00\x01binary",
                "bad_hex": "grant_type=client_credentials&scope=%zz",
                "empty": ""}[kind]
        body, headers = self.client_auth(body, FORM)
        self.http(self.server.create_token_response, self.urls["token"], "POST", body, headers)

    # ======================================================================
    # OAuth 1
    # ======================================================================
    def run_oauth1(self, two_legged):
        r = self.r
        keys = self.keys
        methods = [oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_HMAC_SHA256, oauth1.SIGNATURE_HMAC_SHA512,
                   oauth1.SIGNATURE_PLAINTEXT]
        if keys.ok:
            methods += [oauth1.SIGNATURE_RSA_SHA1, oauth1.SIGNATURE_RSA_SHA256]
        allowed = methods if r.random() < 0.7 else r.sample(methods, r.randint(1, len(methods)))
        enforce = not self.base.startswith("http://") or r.random() < 0.3
        v = O1Provider(self, allowed, enforce)
        self.o1 = v
        app_name = r.choice(APP_NAMES)
        key = tok(r, r.randint(20, 30))
        secret = tok(r, 30)
        host = "https://%s.example.org" % app_name
        callbacks = ["%s/oauth/return" % host]
        if r.random() < 0.3:
            callbacks.append("oob")
        realms = r.sample(O1_REALMS[:3], r.randint(1, 3))
        app = O1App(key, secret, keys.client[1] if keys.ok else None, callbacks, realms, realms[:1])
        v.apps[key] = app
        if r.random() < 0.08:
            v.faults[r.choice(["validate_client_key", "save_request_token", "save_access_token",
                               "validate_access_token"])] = (r.randint(1, 2), StoreError("oauth1 store offline"))
        meth = pick(r, [(6, oauth1.SIGNATURE_HMAC_SHA1), (3, oauth1.SIGNATURE_HMAC_SHA256),
                        (1, oauth1.SIGNATURE_HMAC_SHA512), (1.5, oauth1.SIGNATURE_PLAINTEXT),
                        (1.5 if keys.ok else 0, oauth1.SIGNATURE_RSA_SHA1),
                        (1.5 if keys.ok else 0, oauth1.SIGNATURE_RSA_SHA256)])
        self.o1_conf = {
            "key": key, "secret": secret, "method": meth,
            "sigtype": pick(r, [(6, oauth1.SIGNATURE_TYPE_AUTH_HEADER), (2, oauth1.SIGNATURE_TYPE_QUERY),
                                (2, oauth1.SIGNATURE_TYPE_BODY)]),
            "decoding": "utf-8" if r.random() < 0.15 else None,
            "rsa": keys.client[0] if keys.ok else None}
        self.o1_user = User(r.choice(sorted(USERS)))
        self.o1_base = self.base
        api = self.api
        if two_legged:
            ep = oauth1.SignatureOnlyEndpoint(v)
            for _ in range(r.randint(2, 6)):
                m, path, _need = r.choice(ROUTES)
                self.o1_call(ep.validate_request, api + path, m)
            return
        if r.random() < 0.5:
            srv = oauth1.WebApplicationServer(v)
            eps = (srv, srv, srv, srv)
        else:
            rg = random.Random(r.getrandbits(32))
            gen = lambda: tok(rg, 30)  # noqa: E731
            eps = (oauth1.RequestTokenEndpoint(v, token_generator=gen),
                   oauth1.AuthorizationEndpoint(v, token_generator=gen),
                   oauth1.AccessTokenEndpoint(v, token_generator=gen), oauth1.ResourceEndpoint(v))
        req_ep, auth_ep, acc_ep, res_ep = eps
        # 1. request token
        callback = callbacks[-1] if r.random() < 0.9 else "https://evil.example/oauth"
        want = realms if r.random() < 0.7 else None
        if r.random() < 0.06:
            want = ["admin"]
        rt = None
        for attempt in range(r.randint(1, 2)):
            res = self.o1_call(req_ep.create_request_token_response, self.o1_base + "/oauth/request_token", "POST",
                               callback=None if r.random() < 0.04 else callback,
                               realm=" ".join(want) if want else None, handler_kind="token")
            if res and res[2] == 200:
                rt = dict(up.parse_qsl(res[1]))
                break
        if not rt:
            return
        # 2. the user authorizes
        self.later("moment")
        auth_uri = self.o1_base + "/oauth/authorize?oauth_token=" + rt["oauth_token"]
        if r.random() < 0.05:
            auth_uri = self.o1_base + "/oauth/authorize?oauth_token=" + tok(r, 24)
        got = self.http(auth_ep.get_realms_and_credentials, auth_uri)
        if got is None:
            return
        realms_ok, _creds = got
        grant = list(realms_ok)
        if r.random() < 0.1:
            grant = grant + ["admin"]
        elif r.random() < 0.15 and len(grant) > 1:
            grant = grant[:1]
        res = self.http(auth_ep.create_authorization_response, auth_uri, realms=grant)
        if res is None:
            return
        h, b, status = res
        ver = dict(up.parse_qsl(up.urlsplit(h["Location"]).query)) if "Location" in h else dict(up.parse_qsl(b))
        verifier = ver.get("oauth_verifier")
        if not verifier:
            return
        if r.random() < 0.07:
            verifier = tok(r, 30)
        # 3. access token
        self.later("moment")
        at = None
        for attempt in range(1 if r.random() < 0.9 else 2):
            res = self.o1_call(acc_ep.create_access_token_response, self.o1_base + "/oauth/access_token", "POST",
                               owner=(rt["oauth_token"], rt["oauth_token_secret"]), verifier=verifier,
                               handler_kind="token")
            if res and res[2] == 200:
                at = dict(up.parse_qsl(res[1]))
        if not at:
            return
        # 4. resource calls
        for _ in range(r.randint(1, 5)):
            if r.random() < 0.06:
                for rec in v.access_tokens.values():
                    rec["revoked"] = True
            m, path, need = r.choice(ROUTES)
            need_realms = [x for x in need if x in O1_REALMS][:1] or realms[:1]
            self.o1_call(res_ep.validate_protected_resource_request, api + path, m,
                         owner=(at["oauth_token"], at["oauth_token_secret"]), realms=need_realms)
            self.later("moment")

    def o1_call(self, fn, url, method, callback=None, realm=None, owner=None, verifier=None, realms=None,
                handler_kind=None):
        """Signs one request with oauth1.Client (tampered at times) and hands
        it to the endpoint function."""
        r = self.r
        conf = self.o1_conf
        t = pick(r, [(40, None), (2, "bad_secret"), (1.5, "unknown_key"), (0.7, "short_key"), (1, "stale"),
                     (1.5, "replay"), (1.5, "alter"), (0.7, "dup_param"), (0.7, "two_places"),
                     (0.7, "no_sig"), (0.5, "version"), (0.8, "insecure"), (0.6, "method"),
                     (0.8 if conf["method"].startswith("RSA") else 0, "rsa_other")])
        key = conf["key"]
        secret = conf["secret"]
        rsa = conf["rsa"]
        if t == "bad_secret":
            secret = secret[::-1]
        elif t == "unknown_key":
            key = tok(r, 24)
        elif t == "short_key":
            key = "k" + tok(r, 6)
        elif t == "rsa_other":
            rsa = self.keys.other[0]
        meth = conf["method"]
        if t == "method":
            meth = r.choice([m for m in (oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_PLAINTEXT,
                                         oauth1.SIGNATURE_HMAC_SHA256) if m != meth])
        sigtype = conf["sigtype"]
        body = None
        headers = {}
        if handler_kind == "token":
            if sigtype == oauth1.SIGNATURE_TYPE_BODY:
                body, headers = "", dict(FORM)  # the oauth_ parameters are the whole form
        elif method in ("POST", "PUT"):
            body = "note=%s&count=%d" % (r.choice(["hello", "summer+photos", "q3"]), r.randint(1, 9))
            headers = dict(FORM)
        elif sigtype == oauth1.SIGNATURE_TYPE_BODY:
            sigtype = oauth1.SIGNATURE_TYPE_AUTH_HEADER  # no form body to carry the signature
        if t == "insecure":
            url = url.replace("https://", "http://", 1)
        ts = str(int(time.time()) - r.choice([3600, 86400])) if t == "stale" else None
        client = oauth1.Client(key, client_secret=secret,
                               resource_owner_key=owner[0] if owner else None,
                               resource_owner_secret=owner[1] if owner else None,
                               callback_uri=callback, signature_method=meth, signature_type=sigtype,
                               rsa_key=rsa if meth.startswith("RSA") else None, verifier=verifier,
                               realm=realm, decoding=conf["decoding"], timestamp=ts)
        signed = self.client_side(client.sign, url, method, body, headers)
        if signed is None:
            return None
        uri, headers, body = signed
        if conf["decoding"]:
            uri = uri.decode()
            body = body.decode() if body else body
            headers = {k.decode(): v.decode() for k, v in headers.items()}
        headers = dict(headers)
        if t == "alter":
            if body and "count=" in body:
                body = body.replace("count=", "count=1")
            else:
                uri = uri_edit(uri, add=[("page", "2")])
        elif t == "dup_param":
            if sigtype == oauth1.SIGNATURE_TYPE_QUERY:
                uri = uri + "&oauth_nonce=" + tok(r, 24)
            elif "Authorization" in headers:
                headers["Authorization"] += ', oauth_nonce="%s"' % tok(r, 24)
        elif t == "two_places":
            uri = uri_edit(uri, add=[("oauth_version", "1.0")]) if sigtype != oauth1.SIGNATURE_TYPE_QUERY \
                else uri
            if sigtype == oauth1.SIGNATURE_TYPE_QUERY:
                headers["Authorization"] = 'OAuth oauth_consumer_key="%s"' % key
        elif t == "no_sig":
            if "Authorization" in headers:
                headers["Authorization"] = ", ".join(p for p in headers["Authorization"].split(", ")
                                                     if not p.startswith("oauth_signature="))
            elif sigtype == oauth1.SIGNATURE_TYPE_QUERY:
                uri = uri_edit(uri, drop=("oauth_signature",))
            elif body:
                body = qs_edit(body, drop=("oauth_signature",))
        elif t == "version":
            if "Authorization" in headers:
                headers["Authorization"] = headers["Authorization"].replace('oauth_version="1.0"',
                                                                            'oauth_version="2.0"')
        kwargs = {}
        if realms is not None:
            kwargs["realms"] = realms
        res = self.http(fn, uri, method, body, headers, **kwargs)
        if t == "replay":
            res = self.http(fn, uri, method, body, headers, **kwargs)
        return res


# ---------------------------------------------------------------------------
def run_case(log, cid, r, keys):
    log.case_id = cid
    try:
        Case(r, keys).run()
    finally:
        oauthlib.set_debug(False)
        log.end_case()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    warnings.simplefilter("ignore")  # oauthlib's DeprecationWarnings, scope-change Warnings
    keys = Keys()
    log = _capture.EventLog(oauthlib, a.out, logger_names=["oauthlib"])
    logging.getLogger("oauthlib").propagate = False
    t0 = time.time()
    failed = 0
    for i in range(a.cases):
        # per-case stream: one case's choices do not shift the next one's
        try:
            run_case(log, "oauth-%05d" % i, random.Random("%d-%d" % (a.seed, i)), keys)
        except Exception as e:  # a case that could not run: reported, the others go on
            failed += 1
            print("oauth-%05d: %r" % (i, e), file=sys.stderr)
            if os.environ.get("GEN_TRACE"):
                import traceback
                traceback.print_exc()
    log.finish()
    print(log.summary(), "; %d cases failed" % failed, "in %.1fs" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
