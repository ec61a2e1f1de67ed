#!/usr/bin/python3
"""Event log of ldap3 (Debian python3-ldap3), client side, against ldap3's own
in-memory mock DIT (MOCK_SYNC / MOCK_ASYNC strategies), fully offline.

    /usr/bin/python3 gen_ldap3.py --out .deps/logs/ldap3.csv.gz [--cases 2000] [--seed 1]
    /usr/bin/python3 gen_ldap3.py --repo      # prints the directory to index

A case is one connection's session.  A fresh Server (with or without an
offline schema: OpenLDAP, eDirectory, 389DS; sometimes inside a ServerPool)
holds a DIT populated with seeded random users, groups and service entries;
the connection (sync or async mock, lazy or not, auto-bind or explicit,
read-only, raise_exceptions, usage statistics, check_names on/off) binds
(simple ok / wrong password / unknown DN / anonymous / SASL, which the mock
refuses / rebind), then runs 1-10 operations: searches with varied filters,
scopes, attribute lists, size limits, typesOnly, paged searches (manual cookie
loop or the extend.standard.paged_search generator), add / modify / delete /
modify_dn / compare, extended operations (Who am I, getBindDN, password
modify, an unknown OID), abandon on async connections, LDIF/JSON dumps, the
abstract layer (ObjectDef, Reader queries, Writer commits, entry
move/rename/delete, attribute edits), and errors: no such object, invalid
filter, entry already exists, invalid attribute names, read-only violations,
and insufficient access (a small ACL is grafted onto the mock: a user may only
write its own entry), then unbind.

Logging: ldap3 logs everything through ``ldap3.utils.log.log(detail, message,
*args)``, which renders ``message % args``, prefixes the detail level name and
a colon (``'BASIC:'``, ``'PROTOCOL:'``, ``'NETWORK:'``, ``'EXTENDED:'``,
``'ERROR:'``), backslash-escapes non-ASCII, cuts at 4096 chars, and calls
``logger.log(DEBUG, text)`` on the 'ldap3' logger.  The detail level is set to
EXTENDED for the whole run.  ``log`` is a pure wrapper: every record is
attributed to its caller (code.wrapped=1); the activity is the rendered record
text, prefix included.  No other ldap3 helper only forwards to ``log``.
"""
import argparse
import contextlib
import io
import logging
import os
import random
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import ldap3  # noqa: E402

WRAPPERS = {("ldap3/utils/log.py", "log")}

if len(sys.argv) == 2 and sys.argv[1] == "--repo":
    print(os.path.dirname(os.path.realpath(ldap3.__file__)))
    sys.exit(0)

from ldap3 import (Server, ServerPool, Connection, MOCK_SYNC, MOCK_ASYNC, ALL_ATTRIBUTES,  # noqa: E402
                   ALL_OPERATIONAL_ATTRIBUTES, NO_ATTRIBUTES, BASE, LEVEL, SUBTREE, MODIFY_ADD,
                   MODIFY_DELETE, MODIFY_REPLACE, MODIFY_INCREMENT, ANONYMOUS, SIMPLE, SASL,
                   ROUND_ROBIN, FIRST, RANDOM, OFFLINE_SLAPD_2_4, OFFLINE_EDIR_9_1_4,
                   OFFLINE_DS389_1_3_3, AUTO_BIND_NONE, AUTO_BIND_NO_TLS, Reader, Writer, ObjectDef)
from ldap3.core import exceptions as lexc  # noqa: E402
from ldap3.strategy.mockSync import MockSyncStrategy  # noqa: E402
from ldap3.strategy.mockAsync import MockAsyncStrategy  # noqa: E402
from ldap3.utils import log as ldap_log  # noqa: E402

BASE_DN = "dc=example,dc=org"
ADMIN = "cn=admin," + BASE_DN
ADMIN_PW = "adm1n"
GIVEN = ["ann", "bob", "carla", "dave", "eve", "frank", "gina", "hugo", "ines", "jack", "kim", "lars",
         "mia", "nils", "olga", "pete", "rosa", "sam", "tina", "ugo", "vera", "walt", "xena", "yuri"]
LAST = ["smith", "rossi", "meyer", "dubois", "garcia", "novak", "kowalski", "jensen", "silva", "brown"]
DEPTS = ["eng", "sales", "ops", "hr"]


# ---------------------------------------------------------------------------
# insufficient access: a tiny ACL grafted onto the mock strategies
# ---------------------------------------------------------------------------
def _denied(conn, dn):
    who = conn.strategy.bound
    if who is None or who == "<anonymous>":
        return True
    if who.lower() == ADMIN.lower():
        return False
    return dn.lower() != who.lower()


def _deny(msg):
    return {"resultCode": 50, "matchedDN": "", "diagnosticMessage": msg, "referral": None}


class AclMixin(object):
    def mock_add(self, request_message, controls):
        if _denied(self.connection, str(request_message["entry"])):
            return _deny("no write access to parent")
        return super().mock_add(request_message, controls)

    def mock_delete(self, request_message, controls):
        if _denied(self.connection, str(request_message)):
            return _deny("no write access to entry")
        return super().mock_delete(request_message, controls)

    def mock_modify(self, request_message, controls):
        if _denied(self.connection, str(request_message["object"])):
            return _deny("no write access to entry")
        return super().mock_modify(request_message, controls)

    def mock_modify_dn(self, request_message, controls):
        if _denied(self.connection, str(request_message["entry"])):
            return _deny("no write access to entry")
        return super().mock_modify_dn(request_message, controls)


class AclMockSync(AclMixin, MockSyncStrategy):
    pass


class AclMockAsync(AclMixin, MockAsyncStrategy):
    pass


# ---------------------------------------------------------------------------
# the generator
# ---------------------------------------------------------------------------
class Gen:
    def __init__(self):
        self.rng = random.Random(0)
        # offline schema/DSA info, loaded once and attached to each case's Server
        self.infos = {}
        for name, g in (("slapd", OFFLINE_SLAPD_2_4), ("edir", OFFLINE_EDIR_9_1_4), ("389", OFFLINE_DS389_1_3_3)):
            s = Server("template-" + name, get_info=g)
            self.infos[name] = (s.info, s.schema)

    # -- the DIT -------------------------------------------------------------
    def plan_dit(self):
        """Seeded random entries for this case's DIT: [(dn, attributes)]."""
        r = self.rng
        plan = [(BASE_DN, {"objectClass": ["dcObject", "organization"], "dc": "example", "o": "Example"}),
                (ADMIN, {"objectClass": ["organizationalRole", "simpleSecurityObject"],
                         "userPassword": ADMIN_PW, "description": "directory manager"})]
        for ou in ("people", "groups", "services"):
            plan.append(("ou=%s,%s" % (ou, BASE_DN), {"objectClass": "organizationalUnit", "ou": ou}))
        self.users, self.groups = [], []
        names = set()
        for i in range(r.randint(3, 18)):
            fn, ln = r.choice(GIVEN), r.choice(LAST)
            uid = "%s.%s" % (fn, ln)
            if uid in names:
                continue
            names.add(uid)
            dn = "uid=%s,ou=people,%s" % (uid, BASE_DN)
            attrs = {"objectClass": ["inetOrgPerson"], "cn": "%s %s" % (fn.title(), ln.title()),
                     "sn": ln.title(), "givenName": fn.title(), "uid": uid,
                     "mail": "%s@example.org" % uid, "userPassword": "pw-" + fn,
                     "employeeNumber": str(1000 + i), "departmentNumber": r.choice(DEPTS)}
            if r.random() < 0.5:
                attrs["telephoneNumber"] = "+39 06 %07d" % r.randint(0, 9999999)
            if r.random() < 0.3:
                attrs["description"] = r.choice(["contractor", "on leave", "team lead", "intern"])
            plan.append((dn, attrs))
            self.users.append((dn, "pw-" + fn, uid))
        for d in r.sample(DEPTS, r.randint(1, len(DEPTS))):
            members = [u[0] for u in self.users if r.random() < 0.4] or [ADMIN]
            dn = "cn=%s,ou=groups,%s" % (d, BASE_DN)
            plan.append((dn, {"objectClass": "groupOfNames", "cn": d, "member": members}))
            self.groups.append(dn)
        for s in r.sample(["mail", "vpn", "wiki", "ci"], r.randint(0, 3)):
            plan.append(("cn=%s,ou=services,%s" % (s, BASE_DN),
                         {"objectClass": ["applicationProcess"], "cn": s, "description": "service " + s}))
        return plan

    # -- connection ------------------------------------------------------------
    def make_server(self):
        r = self.rng
        k = r.random()
        host = "ldap%d.example.test" % r.randint(1, 3)
        if k < 0.1:
            srv = Server(host)  # no schema: values are stored as given
            schema = False
        else:
            kind = r.choice(["slapd", "slapd", "slapd", "edir", "389"])
            srv = Server(host, port=r.choice([389, 389, 1389]), use_ssl=False, get_info=ldap3.NONE)
            info, sch = self.infos[kind]
            srv.attach_dsa_info(info)
            srv.attach_schema_info(sch)
            schema = True
        if r.random() < 0.08:
            other = Server("ldap-backup.example.test")
            pool = ServerPool([srv, other], r.choice([ROUND_ROBIN, FIRST, RANDOM]), active=False)
            return pool, srv, schema
        return srv, srv, schema

    def credentials(self):
        """Bind credentials chosen before the Connection is made -> (kwargs, expected identity)."""
        r = self.rng
        k = r.random()
        if k < 0.3:
            return {"user": ADMIN, "password": ADMIN_PW}, ADMIN
        if k < 0.58 and self.users:
            dn, pw, uid = r.choice(self.users)
            return {"user": dn, "password": pw}, dn
        if k < 0.68 and self.users:
            return {"user": r.choice(self.users)[0], "password": "wrong-password"}, None
        if k < 0.74:
            return {"user": "uid=ghost,ou=people," + BASE_DN, "password": "x"}, None
        if k < 0.8:
            return {"user": ADMIN, "password": ""}, None  # empty password: refused by the client
        if k < 0.88:
            mech = r.choice([ldap3.PLAIN, ldap3.PLAIN, ldap3.EXTERNAL, ldap3.DIGEST_MD5])
            creds = {ldap3.PLAIN: (None, "admin", ADMIN_PW), ldap3.EXTERNAL: None,
                     ldap3.DIGEST_MD5: (None, "admin", ADMIN_PW, None)}[mech]
            return {"authentication": SASL, "sasl_mechanism": mech, "sasl_credentials": creds}, None
        return {"authentication": ANONYMOUS}, None

    def connect(self):
        r = self.rng
        target, srv, schema = self.make_server()
        self.schema = schema
        plan = self.plan_dit()
        self.async_ = r.random() < 0.25
        kw = dict(client_strategy=MOCK_ASYNC if self.async_ else MOCK_SYNC,
                  raise_exceptions=r.random() < 0.15,
                  read_only=r.random() < 0.06,
                  collect_usage=r.random() < 0.12,
                  check_names=schema and r.random() < 0.85,
                  lazy=r.random() < 0.1,
                  return_empty_attributes=r.random() < 0.15,
                  auto_range=r.random() < 0.8)
        creds, self.who_if_ok = self.credentials()
        kw.update(creds)
        if not self.async_ and r.random() < 0.12:
            kw["auto_bind"] = r.choice([AUTO_BIND_NO_TLS, AUTO_BIND_NONE, ldap3.AUTO_BIND_TLS_BEFORE_BIND])
        if schema and r.random() < 0.1:
            kw["pool_name"] = "bench-pool"
        self.conn = None
        self.conn = Connection(target, **kw)
        # the DIT lives on the Server (mock strategies); the ACL is grafted on the strategy
        self.conn.strategy.__class__ = AclMockAsync if self.async_ else AclMockSync
        for dn, attrs in plan:
            self.conn.strategy.add_entry(dn, attrs)
        if isinstance(target, ServerPool):  # every server of the pool serves the same DIT
            for s in target.servers:
                s.dit = self.conn.server.dit
        return self.conn

    def result(self, mid):
        """Sync: the operation's return value; async: fetch the response of message id mid."""
        if not self.async_:
            return mid
        if isinstance(mid, bool) or not isinstance(mid, int):  # deferred (lazy) or refused
            return mid
        return self.conn.get_response(mid)

    # -- bind ------------------------------------------------------------------
    def bind(self):
        r = self.rng
        c = self.conn
        if r.random() < 0.1:
            try:
                c.start_tls()  # the mock answers unwillingToPerform
            except Exception:  # noqa: BLE001 (LDAPStartTLSError; AttributeError without a Tls object)
                pass
        res = self.result(c.bind())
        self.who = self.who_if_ok if c.bound else None
        if r.random() < 0.1 and self.users:
            dn, pw, uid = r.choice(self.users)
            ok = c.rebind(user=dn, password=pw if r.random() < 0.8 else "nope",
                          authentication=SIMPLE if r.random() < 0.9 else ANONYMOUS)
            if ok:
                self.who = dn
        return res

    # -- operations ------------------------------------------------------------
    def some_dn(self, existing=0.8):
        r = self.rng
        if r.random() < existing and self.users:
            return r.choice(self.users)[0]
        return r.choice(["uid=nobody,ou=people," + BASE_DN, "cn=zz,ou=groups," + BASE_DN,
                         "ou=nowhere," + BASE_DN, "uid=x,ou=missing,dc=other,dc=org"])

    def a_filter(self):
        r = self.rng
        u = r.choice(self.users)[2] if self.users else "nobody"
        return r.choice([
            "(objectClass=*)", "(objectClass=inetOrgPerson)", "(uid=%s)" % u, "(sn=%s*)" % r.choice(LAST)[:2].title(),
            "(&(objectClass=inetOrgPerson)(departmentNumber=%s))" % r.choice(DEPTS),
            "(|(uid=%s)(cn=%s*))" % (u, r.choice(GIVEN).title()), "(!(description=*))",
            "(employeeNumber>=1005)", "(employeeNumber<=1003)", "(mail=*@example.org)",
            "(&(objectClass=groupOfNames)(member=%s))" % (self.users[0][0] if self.users else ADMIN),
            "(cn~=%s)" % r.choice(GIVEN), "(telephoneNumber=*)", "(uid=%s)" % r.choice(["x(y", "a*b", "caf\u00e9"]),
            "(&(uid=*)(|(sn=Rossi)(sn=Smith))(!(departmentNumber=ops)))",
            # invalid / unusual filters
            "(uid=%s" % u, "uid=%s" % u, "(&(uid=a)", "(nosuchattr=1)", "()",
        ])

    def op_search(self):
        r = self.rng
        c = self.conn
        base = r.choice([BASE_DN, BASE_DN, "ou=people," + BASE_DN, "ou=groups," + BASE_DN,
                         "ou=services," + BASE_DN, "ou=nowhere," + BASE_DN, self.some_dn(0.9), ""])
        scope = r.choice([SUBTREE, SUBTREE, LEVEL, BASE])
        attrs = r.choice([None, [ALL_ATTRIBUTES], [ALL_ATTRIBUTES, ALL_OPERATIONAL_ATTRIBUTES], ["cn", "mail"],
                          ["uid", "sn", "givenName", "telephoneNumber"], [NO_ATTRIBUTES], ["member"],
                          ["cn", "bogusAttr"], ["entryDN"]])
        kw = {}
        if r.random() < 0.1:
            kw["size_limit"] = r.randint(1, 3)
        if r.random() < 0.08:
            kw["types_only"] = True
        if r.random() < 0.05:
            kw["dereference_aliases"] = ldap3.DEREF_ALWAYS
        k = r.random()
        if k < 0.15 and not self.async_:
            entries = c.extend.standard.paged_search(base, self.a_filter(), scope, attributes=attrs,
                                                      paged_size=r.randint(1, 5), generator=r.random() < 0.5)
            for _ in entries:
                pass
            return
        if k < 0.3:
            size = r.randint(1, 4)
            cookie = None
            flt = self.a_filter()
            for _ in range(6):
                self.result(c.search(base, flt, scope, attributes=attrs, paged_size=size, paged_cookie=cookie,
                                     paged_criticality=r.random() < 0.2, **kw))
                if r.random() < 0.05:  # a bad cookie
                    cookie = b"bogus"
                    continue
                try:
                    cookie = c.result["controls"]["1.2.840.113556.1.4.319"]["value"]["cookie"]
                except (KeyError, TypeError):
                    cookie = None
                if not cookie:
                    break
            return
        self.result(c.search(base, self.a_filter(), scope, attributes=attrs, **kw))
        if r.random() < 0.1 and not self.async_:
            k2 = r.random()
            if k2 < 0.5:
                c.response_to_json(raw=r.random() < 0.5)
            elif k2 < 0.9:
                c.response_to_ldif()
            else:  # builds an ObjectDef (one record per attribute) from the response
                for e in c.entries[:3]:
                    e.entry_to_json()

    def op_add(self):
        r = self.rng
        c = self.conn
        k = r.random()
        fn, ln = r.choice(GIVEN), r.choice(LAST)
        uid = "%s.%s%d" % (fn, ln, r.randint(0, 99))
        if k < 0.55:
            dn = "uid=%s,ou=people,%s" % (uid, BASE_DN)
            attrs = {"cn": "%s %s" % (fn, ln), "sn": ln, "mail": uid + "@example.org",
                     "userPassword": "pw-" + fn}
            if r.random() < 0.3:
                attrs["employeeNumber"] = str(r.randint(2000, 2999))
            self.result(c.add(dn, "inetOrgPerson", attrs))
            if r.random() < 0.2:  # the same again: entryAlreadyExists
                self.result(c.add(dn, "inetOrgPerson", attrs))
            else:
                self.users.append((dn, "pw-" + fn, uid))
        elif k < 0.65 and self.users:
            dn = r.choice(self.users)[0]  # exists already
            self.result(c.add(dn, ["inetOrgPerson"], {"cn": "dup", "sn": "dup"}))
        elif k < 0.75:
            dn = "cn=%s,ou=groups,%s" % (r.choice(["qa", "dev", "admins"]), BASE_DN)
            members = [u[0] for u in self.users[:r.randint(1, 4)]] or [ADMIN]
            self.result(c.add(dn, "groupOfNames", {"member": members, "description": "new group"}))
        elif k < 0.85:
            dn = "uid=%s,ou=people,%s" % (uid, BASE_DN)
            self.result(c.add(dn, "inetOrgPerson", {"sn": ln, "shoeSize": "44"}))  # unknown attribute
        elif k < 0.93:
            dn = "uid=%s,ou=people,%s" % (uid, BASE_DN)
            self.result(c.add(dn, "noSuchClass", {"sn": ln}))
        else:
            self.result(c.add("not a dn", "inetOrgPerson", {"sn": ln}))

    def op_modify(self):
        r = self.rng
        c = self.conn
        dn = self.who if (self.who and r.random() < 0.35) else self.some_dn()
        k = r.random()
        if k < 0.3:
            changes = {"description": [(MODIFY_REPLACE, [r.choice(["updated", "moved desk", "remote"])])]}
        elif k < 0.45:
            changes = {"telephoneNumber": [(MODIFY_ADD, ["+1 555 %04d" % r.randint(0, 9999)])],
                       "mail": [(MODIFY_ADD, ["alias%d@example.org" % r.randint(0, 9)])]}
        elif k < 0.55:
            changes = {"telephoneNumber": [(MODIFY_DELETE, [])]}
        elif k < 0.62:
            changes = {"description": [(MODIFY_DELETE, ["no such value"])]}
        elif k < 0.7:
            changes = {"employeeNumber": [(MODIFY_INCREMENT, [r.choice([1, 10])])]}
        elif k < 0.76:
            changes = {"uid": [(MODIFY_REPLACE, ["renamed"])]}  # the rdn
        elif k < 0.82:
            changes = {"shoeSize": [(MODIFY_REPLACE, ["44"])]}  # unknown attribute
        elif k < 0.88:
            changes = {"sn": [(MODIFY_REPLACE, ["A", "B"])]}
        elif k < 0.93:
            changes = {"description": (MODIFY_REPLACE, "old style")}
        else:
            changes = {"description": [("bogus", ["x"])]}
        self.result(c.modify(dn, changes))

    def op_delete(self):
        r = self.rng
        c = self.conn
        k = r.random()
        if k < 0.6 and self.users:
            i = r.randrange(len(self.users))
            dn = self.users[i][0]
            self.result(c.delete(dn))
            if c.result and c.result.get("result") == 0:
                self.users.pop(i)
        elif k < 0.8:
            self.result(c.delete(self.some_dn(0.0)))
        else:
            self.result(c.delete(r.choice(["ou=people," + BASE_DN, "cn=%s,ou=groups,%s" % (r.choice(DEPTS), BASE_DN)])))

    def op_modify_dn(self):
        r = self.rng
        c = self.conn
        dn = self.some_dn(0.85)
        k = r.random()
        if k < 0.5:
            self.result(c.modify_dn(dn, "uid=%s%d" % (r.choice(GIVEN), r.randint(100, 999)),
                                    delete_old_dn=r.random() < 0.8))
        elif k < 0.8:
            self.result(c.modify_dn(dn, dn.split(",")[0],
                                    new_superior=r.choice(["ou=services," + BASE_DN, "ou=groups," + BASE_DN])))
        else:
            self.result(c.modify_dn(dn, ""))

    def op_compare(self):
        r = self.rng
        c = self.conn
        dn = self.some_dn()
        attr, val = r.choice([("sn", r.choice(LAST).title()), ("departmentNumber", r.choice(DEPTS)),
                              ("mail", "x@example.org"), ("description", "intern"), ("shoeSize", "44"),
                              ("userPassword", "pw-ann")])
        self.result(c.compare(dn, attr, val))

    def op_extended(self):
        r = self.rng
        c = self.conn
        k = r.random()
        if k < 0.4:
            c.extend.standard.who_am_i()
        elif k < 0.55:
            c.extend.novell.get_bind_dn()
        elif k < 0.75:
            c.extend.standard.modify_password(self.some_dn(), "old", "new%d" % r.randint(0, 9))
        else:
            self.result(c.extended(r.choice(["1.3.6.1.4.1.1466.20037", "1.2.3.4.5", "1.3.6.1.4.1.4203.1.11.3"])))

    def op_abandon(self):
        c = self.conn
        if self.async_:
            mid = c.search(BASE_DN, "(objectClass=*)", attributes=["cn"])
            c.abandon(mid)
            try:
                c.get_response(mid)
            except lexc.LDAPException:
                pass
        else:
            c.abandon(self.rng.choice([0, 999]))

    def op_abstract(self):
        r = self.rng
        c = self.conn
        if not self.schema:
            return
        # (one AttrDef record per attribute of the class: inetOrgPerson has 51, so it is rarer)
        od = ObjectDef(r.choice(["person", "person", "groupOfNames", "groupOfNames", "applicationProcess",
                                 ["person", "organizationalPerson"], "inetOrgPerson"]), c)
        if r.random() < 0.15:
            od += "nosuchAttr"
        q = r.choice([None, "sn: %s" % r.choice(LAST).title(), "departmentNumber: eng, sales",
                      "employeeNumber: >=1004", "cn: %s*" % r.choice(GIVEN).title()])
        rd = Reader(c, od, r.choice(["ou=people," + BASE_DN, BASE_DN, "ou=groups," + BASE_DN]), q,
                    sub_tree=r.random() < 0.8, get_operational_attributes=r.random() < 0.2)
        k = r.random()
        if k < 0.4:
            rd.search()
        elif k < 0.55:
            rd.search_level()
        elif k < 0.7:
            rd.search_subtree(attributes=r.choice([None, ["cn"]]))
        elif k < 0.85:
            for _ in rd.search_paged(r.randint(1, 3)):
                pass
        else:
            rd.search_object(self.some_dn())
        if r.random() < 0.3:
            rd.match(r.choice(["cn", "sn"]), r.choice(GIVEN))
        if not rd.entries or r.random() < 0.3:
            return
        w = Writer.from_cursor(rd)
        e = r.choice(w.entries)
        k = r.random()
        if k < 0.35:
            if "description" in e.entry_attributes or r.random() < 0.5:
                e.description = r.choice(["via writer", "abstract layer"])
            else:
                e.description += "added value"
            if r.random() < 0.3:
                e.telephoneNumber.add("+44 20 %07d" % r.randint(0, 9999999))
            if r.random() < 0.2:
                e.cn.delete(str(e.cn.value) if e.cn.value and not isinstance(e.cn.value, list) else "missing")
            if r.random() < 0.15:
                e.entry_discard_changes()
            w.commit()
        elif k < 0.5:
            e.entry_delete()
            w.commit()
        elif k < 0.62:
            e.entry_move(r.choice(["ou=services," + BASE_DN, "ou=people," + BASE_DN]))
            e.entry_commit_changes()
        elif k < 0.72:
            e.entry_rename("uid=renamed%d" % r.randint(0, 99))
            e.entry_commit_changes()
        elif k < 0.85:
            ne = w.new("uid=w%d,ou=people,%s" % (r.randint(0, 999), BASE_DN))
            ne.sn = "Writer"
            if "cn" in ne.entry_definition._attributes:
                ne.cn = "writer made"
            w.commit()
        else:
            e.nonexistent_attr = "x"

    def run_case(self):
        r = self.rng
        self.who = None
        try:
            c = self.connect()
        except Exception:  # noqa: BLE001 (auto-bind failures)
            if self.conn is not None:
                self.conn.unbind()
            return
        try:
            if r.random() < 0.05:  # abandon right away
                c.unbind()
                return
            if r.random() < 0.92:
                self.bind()
            ops = [(self.op_search, 30), (self.op_add, 10), (self.op_modify, 12), (self.op_delete, 6),
                   (self.op_modify_dn, 5), (self.op_compare, 7), (self.op_extended, 5), (self.op_abandon, 2),
                   (self.op_abstract, 6)]
            fns, weights = zip(*ops)
            for _ in range(r.randint(1, 10)):
                try:
                    r.choices(fns, weights)[0]()
                except Exception:  # noqa: BLE001 (ldap3, pyasn1 and mock errors alike)
                    pass
                if r.random() < 0.03:  # the client gives up mid-session
                    break
            if c.usage and r.random() < 0.5:
                str(c.usage)
        except Exception:  # noqa: BLE001
            pass
        finally:
            try:
                if r.random() < 0.93:
                    c.unbind()
            except Exception:  # noqa: BLE001
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    random.seed(a.seed)
    ldap_log.set_library_log_detail_level(ldap_log.EXTENDED)
    log = _capture.EventLog(ldap3, a.out, logger_names=["ldap3"], wrappers=WRAPPERS)
    g = Gen()
    t0 = time.time()
    for i in range(a.cases):
        log.case_id = "ldap-%05d" % i
        try:
            g.rng = random.Random("%d-%d" % (a.seed, i))
            with contextlib.redirect_stdout(io.StringIO()):
                g.run_case()
        finally:
            log.end_case()
    log.finish()
    print(log.summary(), "in %.1fs" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
