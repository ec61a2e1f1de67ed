#!/usr/bin/python3
"""Event log of pysnmp (Debian python3-pysnmp4 4.4.12), an SNMP engine for
agents and managers: each case an agent and the managers talking to it over
UDP on the loopback, in one process.

    /usr/bin/python3 gen_pysnmp.py --out .deps/logs/pysnmp.csv.gz [--cases 450] [--seed 1] [--jobs 3]
    /usr/bin/python3 gen_pysnmp.py --repo     # prints the directory to index

Indexed: the whole installed ``pysnmp`` directory
(``/usr/lib/python3/dist-packages/pysnmp``): the engine, the message
processing, security and access control models, the asyncore transports,
the MIB builder, instrumentation and view, the bundled MIB modules
(``smi/mibs/*.py``, which the MIB builder executes from their real paths,
so ``SNMPv2-SMI.py`` logs like any module), the high-level API and the
legacy ``oneliner`` one; the transports and APIs for asyncio and for a
third-party event loop are indexed, not run (pysnmp 4.4.12's asyncio
modules use ``asyncio.coroutine``, gone in Python 3.11; the other event
loop is not installed).

pysnmp logs through a debug object of its own: ``pysnmp.debug.logger`` is 0
until the application installs a ``Debug`` with the categories it wants
(``io``, ``dsp``, ``msgproc``, ``secmod``, ``mibbuild``, ``mibview``,
``mibinstrum``, ``acl``, ``proxy``, ``app``, ``all``; a leading ``~``
turns one off), and every call site reads
``debug.logger & debug.flagX and debug.logger('text %s' % (...,))``: the
message is %-formatted before the call, often around a ``prettyPrint()``
of a whole message, PDU or table row (multi-line) or a hex dump.
``Debug.__call__`` hands it to a ``Printer``, whose ``__call__`` calls
``logging.getLogger('pysnmp').debug``.  pysnmp has no other logger.  The
generator installs one ``Printer`` (``Debug.defaultPrinter``, with a
``NullHandler``: pysnmp's default one adds a ``StreamHandler`` to the
logger each time) and a new ``Debug`` per case.

A case is one agent lifetime.  It draws the debug categories (one in most
cases, up to four; in a few, ``all`` less the two start-up floods and
sometimes a few more) and when the debug object goes in: before the engines
are built (their start-up: transports, the configuration written through
the MIB instrumentation, and with ``mibbuild`` the builder loading every
module) or once agent and managers are ready.  The agent is a
``SnmpEngine`` (a custom engine ID, whose boots pysnmp keeps in a directory
under the temp dir, or its own; sometimes a small ``maxMessageSize``) with a
UDP transport on a free port of 127.0.0.1 (sometimes also ``::1``), v1/v2c
communities (read-only, read-write, one bound to a second context) and
SNMPv3 USM users with random auth (none, MD5, SHA, SHA-224 to SHA-512) and
privacy protocols (none, DES, 3DES, AES-128, AES-192/256 in both key
localization variants: all work with Debian's pycryptodome), VACM groups,
access entries and views named after each principal (the whole tree, or the
tree less a small subtree), sometimes demanding a higher security level
than the user has; the command responders (GET, GETNEXT, GETBULK, SET; one
left out in some cases), a second context with a MIB tree of its own in some
cases, and a notification receiver on the same engine in half of them.
Its MIB is pysnmp's own (SNMPv2-MIB, the engine's tables) plus the case's
objects under enterprises.99999: scalars (one counting its reads, one
failing every read with ``GenError``, a Counter64 that SNMPv1 cannot carry,
an integer with a range, one whose writes fail at commit) and a table with a
``RowStatus`` column and initial rows written through the instrumentation.
The agent's dispatcher runs in a thread of the case, restarted when it
raises (pysnmp re-raises what a datagram broke, e.g. garbage that pyasn1
fails to decode with a ``TypeError``), as a supervisor would.  Then 3-15
manager operations through the blocking ``pysnmp.hlapi`` generators (the
legacy ``oneliner`` ``CommandGenerator`` in some cases) and batches of
``pysnmp.hlapi.asyncore`` requests with callbacks run together by the
manager's dispatcher: GET, GETNEXT, walks, GETBULK and bulk walks; SETs
allowed and refused (wrong types and values, read-only objects and
communities, rows created and destroyed, a commit that fails); wrong
communities, unknown users, wrong auth and privacy keys and protocols, a
user without its keys, unknown contexts; timeouts against a closed port
and a socket that never answers; unknown OIDs; names resolved through the
bundled MIBs, missing MIBs and symbols, and ``BENCH-MIB``, the generator's
ASN.1 for the case's objects, compiled by pysmi into the case's temp dir
(during the operations, or before them; pysmi needs the texts of the
modules a MIB imports, and Debian ships none, so the generator also writes
stubs of ``SNMPv2-SMI``/``SNMPv2-TC``/``SNMPv2-CONF`` defining just the
symbols it uses); traps (v1, v2c, v3 from a manager whose engine ID the
receiver knows) and informs, to the receiver or to an agent without one,
including ``BENCH-MIB``'s notification, whose OBJECTS pysnmp 4.4.12 fails
to resolve (a ``TypeError`` in ``NotificationType.resolveWithMib``); the
agent restarted on its port (its engine boots move on: v3 managers fall
out of the time window); the debug categories changed half-way (a new
``Debug``); and raw UDP datagrams from a plain socket (garbage, empty,
truncated BER, a bad version, unsolicited responses and reports, a v1
trap, bad and long communities, v3 headers with invalid flags, an unknown
security model, a discovery probe, unknown users).

Volume: a message crossing the engines makes 5-15 lines per category on
each side, so cases with talkative categories get fewer operations, and
walks read a few rows of the long subtrees.  Two floods are kept out:
a GETNEXT whose next object lies out of view makes pysnmp's agent test
every later object until one is in view, a line per object and category,
so views exclude small subtrees only; and ``mibinstrum`` logs every state
of every var-bind of every table write, the high-level API writing a
manager's tables at the first request of each credential and target, so a
case with it is one manager polling the agent with one credential,
configured before the debug object goes in.  A case that still logs more
than 2500 records is dropped whole and counted.

Capture: ``_capture.py``'s handler on the ``pysnmp`` logger.  Cases run
``--jobs`` at a time (3: they mostly wait on timeouts), each in a process
of its own (forks of the generator, each running one case after another),
so every record of a process belongs to its open case; the rows go back to
the main process, which writes the cases in order.  The debug object is
removed when the case ends.  Records whose emitter lies outside the
``pysnmp`` directory are dropped and counted (none are expected).  Each
case is given up after 120 s.

Determinism: each case draws from its own generator (``<seed>-<i>``) in a
process of its own, which also seeds Python's ``random`` (pysnmp draws
privacy salts and the first handle of each new engine from it; its
module-level request, message and state ids run on from case to case
within a process); the generator runs itself again with
``PYTHONHASHSEED=0`` (pysnmp's high-level API and config helpers name table
rows after ``hash()`` of strings, and messages show them); engine IDs are
the case's.  Two runs with one seed give the same cases with the same
operations; nine cases in ten log the same emitters in the same order, the
others differ where the agent's thread and the manager interleave or
timeouts race late answers (about 3% of the events).  Messages hold those
ids, ports, object addresses in reprs, times and engine times.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): ``Debug.__call__`` and ``Printer.__call__`` in ``debug.py``, which
only forward the message to the printer and to the stdlib logger, so every
record is wrapped.  ``Debug.__init__``'s own "running pysnmp version" and
"debug category ... enabled" lines are its records (the case's code builds
the debug object).
"""

import argparse
import logging
import multiprocessing
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import pysnmp  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(pysnmp.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

warnings.simplefilter("ignore")  # asyncore's deprecation, pysnmp's own
from pyasn1.codec.ber import encoder as ber_encoder  # noqa: E402
from pyasn1.type import constraint, univ  # noqa: E402
from pysnmp import debug  # noqa: E402
from pysnmp import hlapi  # noqa: E402
from pysnmp.carrier.asyncore.dgram import udp, udp6  # noqa: E402
from pysnmp.carrier.asyncore.dispatch import AsyncoreDispatcher  # noqa: E402
from pysnmp.entity import config, engine  # noqa: E402
from pysnmp.entity.rfc3413 import cmdrsp, context, ntfrcv  # noqa: E402
from pysnmp.entity.rfc3413.oneliner import cmdgen as oneliner  # noqa: E402
from pysnmp.hlapi import asyncore as hl_async  # noqa: E402
from pysnmp.hlapi.varbinds import CommandGeneratorVarBinds  # noqa: E402
from pysnmp.proto import api as proto_api  # noqa: E402
from pysnmp.proto.mpmod import rfc3412 as mp3  # noqa: E402
from pysnmp.proto.secmod.rfc3414 import service as usm_service  # noqa: E402
from pysnmp.smi import builder, compiler, error as smi_error, instrum  # noqa: E402

WRAPPERS = {("pysnmp/debug.py", "__call__")}  # Debug.__call__ and Printer.__call__

FLAGS = [(3, "io"), (3, "dsp"), (3, "msgproc"), (3, "secmod"), (3, "app"), (2, "acl"),
         (2, "mibview"), (1.5, "proxy"), (0.6, "mibinstrum"), (0.35, "mibbuild")]

AUTH = {"none": hlapi.usmNoAuthProtocol, "md5": hlapi.usmHMACMD5AuthProtocol,
        "sha": hlapi.usmHMACSHAAuthProtocol, "sha224": hlapi.usmHMAC128SHA224AuthProtocol,
        "sha256": hlapi.usmHMAC192SHA256AuthProtocol, "sha384": hlapi.usmHMAC256SHA384AuthProtocol,
        "sha512": hlapi.usmHMAC384SHA512AuthProtocol}
PRIV = {"none": hlapi.usmNoPrivProtocol, "des": hlapi.usmDESPrivProtocol,
        "3des": hlapi.usm3DESEDEPrivProtocol, "aes": hlapi.usmAesCfb128Protocol,
        "aes192": hlapi.usmAesCfb192Protocol, "aes256": hlapi.usmAesCfb256Protocol,
        "aes192b": hlapi.usmAesBlumenthalCfb192Protocol,
        "aes256b": hlapi.usmAesBlumenthalCfb256Protocol}
AUTH_W = [(1, "none"), (3, "md5"), (3, "sha"), (1, "sha224"), (1.5, "sha256"), (1, "sha384"), (1, "sha512")]
PRIV_W = [(2, "none"), (2, "des"), (1, "3des"), (3, "aes"), (1, "aes192"), (1, "aes256"),
          (0.5, "aes192b"), (0.5, "aes256b")]
WALK_ROWS = [(2, 0), (4, 4), (3, 8)]  # 0: to the end of the subtree
VIEW_W = [(12, "full"), (2, "nostats"), (2, "noflaky"), (1, "nosnmp"), (1, "notable")]
WORDS = ["lab", "core", "edge", "rack7", "north", "backup", "ops", "west-dc", "probe", "spare"]

# the case's objects: BENCH-MIB, enterprises.99999
BENCH = (1, 3, 6, 1, 4, 1, 99999)
OBJ = BENCH + (1,)
NAME, LEVEL, COUNTER, FLAKY, OCTETS, LOCKED = (OBJ + (i,) for i in range(1, 7))
TABLE = OBJ + (7,)
ENTRY = TABLE + (1,)
COL_INDEX, COL_LABEL, COL_VALUE, COL_STATUS = (ENTRY + (i,) for i in range(1, 5))
ALARM = BENCH + (2, 1)
SYSTEM = (1, 3, 6, 1, 2, 1, 1)
# Read views, all of them the whole tree less a subtree.  A GETNEXT whose
# next object lies out of view makes pysnmp's agent test every later object
# until one is in view, a debug line per object and category: a view that
# ends early (a subtree only) floods the log with the rest of the agent's
# MIB, so the excluded parts are small.
VIEWS = {
    "full": [("included", (1, 3, 6, 1))],
    "nostats": [("included", (1, 3, 6, 1)), ("excluded", (1, 3, 6, 1, 6, 3, 15, 1, 1))],
    "noflaky": [("included", (1, 3, 6, 1)), ("excluded", FLAKY)],
    "nosnmp": [("included", (1, 3, 6, 1)), ("excluded", (1, 3, 6, 1, 2, 1, 11))],
    "notable": [("included", (1, 3, 6, 1)), ("excluded", TABLE)],
}

# The ASN.1 the case compiles with pysmi.  pysmi needs the texts of the
# modules a MIB imports to build its symbol table, and Debian ships none:
# the stubs define just the symbols BENCH-MIB uses (pysmi does not compile
# them, pysnmp has its own SNMPv2-SMI and SNMPv2-TC).
ASN1 = {
    "SNMPv2-SMI": """SNMPv2-SMI DEFINITIONS ::= BEGIN
org          OBJECT IDENTIFIER ::= { iso 3 }
dod          OBJECT IDENTIFIER ::= { org 6 }
internet     OBJECT IDENTIFIER ::= { dod 1 }
private      OBJECT IDENTIFIER ::= { internet 4 }
enterprises  OBJECT IDENTIFIER ::= { private 1 }
Integer32 ::= INTEGER (-2147483648..2147483647)
Counter32 ::= [APPLICATION 1] IMPLICIT INTEGER (0..4294967295)
Counter64 ::= [APPLICATION 6] IMPLICIT INTEGER (0..18446744073709551615)
END
""",
    "SNMPv2-TC": """SNMPv2-TC DEFINITIONS ::= BEGIN
DisplayString ::= OCTET STRING (SIZE (0..255))
RowStatus ::= INTEGER { active(1), notInService(2), notReady(3),
                        createAndGo(4), createAndWait(5), destroy(6) }
END
""",
    "SNMPv2-CONF": "SNMPv2-CONF DEFINITIONS ::= BEGIN\nEND\n",
    "BENCH-MIB": """BENCH-MIB DEFINITIONS ::= BEGIN

IMPORTS
    MODULE-IDENTITY, OBJECT-TYPE, NOTIFICATION-TYPE,
    Integer32, Counter32, Counter64, enterprises
        FROM SNMPv2-SMI
    DisplayString, RowStatus
        FROM SNMPv2-TC;

benchMib MODULE-IDENTITY
    LAST-UPDATED "202401010000Z"
    ORGANIZATION "pmrag bench"
    CONTACT-INFO "none"
    DESCRIPTION  "Objects of the agent that gen_pysnmp.py runs."
    ::= { enterprises 99999 }

benchObjects       OBJECT IDENTIFIER ::= { benchMib 1 }
benchNotifications OBJECT IDENTIFIER ::= { benchMib 2 }

benchName OBJECT-TYPE
    SYNTAX      DisplayString
    MAX-ACCESS  read-write
    STATUS      current
    DESCRIPTION "A name the manager may change."
    ::= { benchObjects 1 }

benchLevel OBJECT-TYPE
    SYNTAX      Integer32 (1..10)
    MAX-ACCESS  read-write
    STATUS      current
    DESCRIPTION "A level within a range."
    ::= { benchObjects 2 }

benchCounter OBJECT-TYPE
    SYNTAX      Counter32
    MAX-ACCESS  read-only
    STATUS      current
    DESCRIPTION "Counts its own reads."
    ::= { benchObjects 3 }

benchFlaky OBJECT-TYPE
    SYNTAX      Integer32
    MAX-ACCESS  read-only
    STATUS      current
    DESCRIPTION "Fails every read."
    ::= { benchObjects 4 }

benchOctets OBJECT-TYPE
    SYNTAX      Counter64
    MAX-ACCESS  read-only
    STATUS      current
    DESCRIPTION "A 64-bit counter."
    ::= { benchObjects 5 }

benchLocked OBJECT-TYPE
    SYNTAX      DisplayString
    MAX-ACCESS  read-write
    STATUS      current
    DESCRIPTION "Writes fail when committed."
    ::= { benchObjects 6 }

benchTable OBJECT-TYPE
    SYNTAX      SEQUENCE OF BenchEntry
    MAX-ACCESS  not-accessible
    STATUS      current
    DESCRIPTION "Rows the manager creates and destroys."
    ::= { benchObjects 7 }

benchEntry OBJECT-TYPE
    SYNTAX      BenchEntry
    MAX-ACCESS  not-accessible
    STATUS      current
    DESCRIPTION "A row."
    INDEX       { benchIndex }
    ::= { benchTable 1 }

BenchEntry ::= SEQUENCE {
    benchIndex   Integer32,
    benchLabel   DisplayString,
    benchValue   Integer32,
    benchStatus  RowStatus
}

benchIndex OBJECT-TYPE
    SYNTAX      Integer32 (1..100)
    MAX-ACCESS  read-create
    STATUS      current
    DESCRIPTION "The row's index."
    ::= { benchEntry 1 }

benchLabel OBJECT-TYPE
    SYNTAX      DisplayString
    MAX-ACCESS  read-create
    STATUS      current
    DESCRIPTION "The row's label."
    ::= { benchEntry 2 }

benchValue OBJECT-TYPE
    SYNTAX      Integer32
    MAX-ACCESS  read-create
    STATUS      current
    DESCRIPTION "The row's value."
    ::= { benchEntry 3 }

benchStatus OBJECT-TYPE
    SYNTAX      RowStatus
    MAX-ACCESS  read-create
    STATUS      current
    DESCRIPTION "The row's status."
    ::= { benchEntry 4 }

benchAlarm NOTIFICATION-TYPE
    OBJECTS     { benchName, benchLevel }
    STATUS      current
    DESCRIPTION "The level crossed a threshold."
    ::= { benchNotifications 1 }

END
""",
}

# named objects of the bundled MIBs a manager asks for
SYS_NAMES = [("SNMPv2-MIB", "sysDescr", 0), ("SNMPv2-MIB", "sysObjectID", 0), ("SNMPv2-MIB", "sysUpTime", 0),
             ("SNMPv2-MIB", "sysContact", 0), ("SNMPv2-MIB", "sysName", 0), ("SNMPv2-MIB", "sysLocation", 0),
             ("SNMPv2-MIB", "sysServices", 0), ("SNMPv2-MIB", "snmpInPkts", 0),
             ("SNMPv2-MIB", "snmpInBadCommunityNames", 0), ("SNMP-FRAMEWORK-MIB", "snmpEngineID", 0),
             ("SNMP-FRAMEWORK-MIB", "snmpEngineBoots", 0), ("SNMP-FRAMEWORK-MIB", "snmpEngineTime", 0),
             ("SNMP-USER-BASED-SM-MIB", "usmStatsUnknownUserNames", 0),
             ("SNMP-USER-BASED-SM-MIB", "usmStatsWrongDigests", 0), ("SNMPv2-MIB", "sysORDescr", 1)]
SYS_OIDS = ["1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.1.3.0", "1.3.6.1.2.1.1.5.0", "1.3.6.1.2.1.11.1.0",
            "1.3.6.1.6.3.10.2.1.1.0"]
BENCH_SYMS = ["benchName", "benchLevel", "benchCounter", "benchFlaky", "benchOctets", "benchLocked"]
MISSING_OIDS = ["1.3.6.1.4.1.99999.1.99.0", "1.3.6.1.2.1.1.1.5", "1.3.6.1.2.1.99.1.0",
                "1.3.6.1.4.1.99999.1.7.1.2.77", "1.3.6.1.4.1.12345.1.0", "1.3.6.1.2.1.1.9.1.2.99"]
BAD_NAMES = [("IF-MIB", "ifDescr", 1), ("SNMPv2-MIB", "sysNoSuchThing", 0), ("HOST-RESOURCES-MIB", "hrSystemUptime", 0),
             ("BENCH-MIB", "benchMissing", 0)]


def vb(oi, value=None):
    """A var-bind as the case holds it: made into the API's objects by cmd()."""
    return oi, value


def oid_str(t):
    return ".".join(str(x) for x in t)


# ---------------------------------------------------------------------------
# the agent's own objects
# ---------------------------------------------------------------------------
def bench_classes(mib_builder):
    """Instance classes over the agent's SNMPv2-SMI (each MIB builder loads
    its own copy of the module, so the classes are made per agent)."""
    MibScalarInstance, = mib_builder.importSymbols("SNMPv2-SMI", "MibScalarInstance")

    class CountingInstance(MibScalarInstance):
        reads = 0

        def getValue(self, name, idx):
            v = MibScalarInstance.getValue(self, name, idx)
            type(self).reads += 1
            return v.clone(int(v) + type(self).reads)

    class FlakyInstance(MibScalarInstance):
        def getValue(self, name, idx):
            # an SMI error: anything else would end the agent's dispatcher
            raise smi_error.GenError(idx=idx, name=name, msg="sensor bus did not answer")

    class LockedInstance(MibScalarInstance):
        def writeCommit(self, name, val, idx, acInfo):
            # the value is taken (and the old one kept for writeUndo), then
            # storing it fails: pysnmp undoes the write
            MibScalarInstance.writeCommit(self, name, val, idx, acInfo)
            raise smi_error.CommitFailedError(idx=idx, name=name, msg="configuration store is read-only")

    return MibScalarInstance, CountingInstance, FlakyInstance, LockedInstance


def export_bench(mib_builder, instr, plan, r):
    (MibScalar, MibTable, MibTableRow, MibTableColumn) = mib_builder.importSymbols(
        "SNMPv2-SMI", "MibScalar", "MibTable", "MibTableRow", "MibTableColumn")
    RowStatus, DisplayString = mib_builder.importSymbols("SNMPv2-TC", "RowStatus", "DisplayString")
    Inst, Counting, Flaky, Locked = bench_classes(mib_builder)
    v2c = proto_api.v2c
    level_syntax = v2c.Integer32().subtype(subtypeSpec=v2c.Integer32.subtypeSpec + constraint.ValueRangeConstraint(1, 10))
    syms = {
        "benchName": MibScalar(NAME, DisplayString()).setMaxAccess("readwrite"),
        "benchNameInst": Inst(NAME, (0,), DisplayString(plan["bench_name"])),
        "benchLevel": MibScalar(LEVEL, level_syntax).setMaxAccess("readwrite"),
        "benchLevelInst": Inst(LEVEL, (0,), level_syntax.clone(3)),
        "benchCounter": MibScalar(COUNTER, v2c.Counter32()).setMaxAccess("readonly"),
        "benchCounterInst": Counting(COUNTER, (0,), v2c.Counter32(r.randint(0, 1000))),
        "benchFlaky": MibScalar(FLAKY, v2c.Integer32()).setMaxAccess("readonly"),
        "benchFlakyInst": Flaky(FLAKY, (0,), v2c.Integer32(0)),
        "benchOctets": MibScalar(OCTETS, v2c.Counter64()).setMaxAccess("readonly"),
        "benchOctetsInst": Inst(OCTETS, (0,), v2c.Counter64(r.randint(2 ** 32, 2 ** 40))),
        "benchLocked": MibScalar(LOCKED, DisplayString()).setMaxAccess("readwrite"),
        "benchLockedInst": Locked(LOCKED, (0,), DisplayString("frozen")),
        "benchTable": MibTable(TABLE).setMaxAccess("notaccessible"),
        "benchEntry": MibTableRow(ENTRY).setMaxAccess("notaccessible").setIndexNames(
            (0, "__BENCH-MIB", "benchIndex")),
        "benchIndex": MibTableColumn(COL_INDEX, v2c.Integer32()).setMaxAccess("readcreate"),
        "benchLabel": MibTableColumn(COL_LABEL, DisplayString()).setMaxAccess("readcreate"),
        "benchValue": MibTableColumn(COL_VALUE, v2c.Integer32(0)).setMaxAccess("readcreate"),
        "benchStatus": MibTableColumn(COL_STATUS, RowStatus("notExists")).setMaxAccess("readcreate"),
    }
    mib_builder.exportSymbols("__BENCH-MIB", **syms)
    for i in plan["rows"]:
        try:
            instr.writeVars(((COL_INDEX + (i,), i), (COL_LABEL + (i,), "row-%d" % i),
                             (COL_VALUE + (i,), 10 * i), (COL_STATUS + (i,), "createAndGo")))
        except Exception:
            pass  # a row pysnmp will not create: the table is smaller


# ---------------------------------------------------------------------------
# the agent
# ---------------------------------------------------------------------------
class TrapSink:
    """The receiver's callback; a plain repr, since pysnmp logs it."""

    def __init__(self):
        self.n = 0

    def __call__(self, snmpEngine, stateReference, contextEngineId, contextName, varBinds, cbCtx):
        self.n += 1

    def __repr__(self):
        return "<TrapSink of the bench agent>"


class Agent:
    def __init__(self, plan, r):
        self.plan = plan
        self.r = r
        self.thread = None
        self.engine = None
        self.errors = 0

    def build(self):
        p = self.plan
        kw = {"maxMessageSize": p["max_msg"]}
        if p["engine_id"]:
            kw["snmpEngineID"] = univ.OctetString(hexValue=p["engine_id"])
        e = self.engine = engine.SnmpEngine(**kw)
        d = AsyncoreDispatcher()
        d.setTimerResolution(0.05)  # stop() is noticed soon
        e.registerTransportDispatcher(d)
        config.addTransport(e, udp.domainName, udp.UdpTransport().openServerMode(("127.0.0.1", p["port"])))
        if p["port6"]:
            config.addTransport(e, udp6.domainName, udp6.Udp6Transport().openServerMode(("::1", p["port6"])))
        for c in p["communities"]:
            config.addV1System(e, c["index"], c["name"], contextName=c["context"] or None)
            for model in (1, 2):
                self.vacm(model, c["index"], "noAuthNoPriv", c, c["context"])
        for u in p["users"]:
            config.addV3User(e, u["name"], AUTH[u["auth"]], u["authkey"], PRIV[u["priv"]], u["privkey"])
            if p["receiver"] and p["trap_engine"] and u["traps"]:
                # v3 traps are not discovered: the receiver knows the sender
                config.addV3User(e, u["name"], AUTH[u["auth"]], u["authkey"], PRIV[u["priv"]], u["privkey"],
                                 securityEngineId=univ.OctetString(hexValue=p["trap_engine"]))
            self.vacm(3, u["name"], u["vacm_level"], u, "")
            if p["ctx_bench"]:
                self.vacm(3, u["name"], u["vacm_level"], u, "bench")
        ctx = context.SnmpContext(e)
        instr = ctx.getMibInstrum()
        export_bench(instr.getMibBuilder(), instr, p, self.r)
        if p["ctx_bench"]:
            # a second tree: a bare MIB builder with the case's objects only
            b2 = builder.MibBuilder()
            i2 = instrum.MibInstrumController(b2)
            export_bench(b2, i2, dict(p, rows=p["rows"][:1], bench_name="context bench"), self.r)
            ctx.registerContextName(univ.OctetString("bench"), i2)
        for kind, cls in (("get", cmdrsp.GetCommandResponder), ("next", cmdrsp.NextCommandResponder),
                          ("bulk", cmdrsp.BulkCommandResponder), ("set", cmdrsp.SetCommandResponder)):
            if kind in p["responders"]:
                cls(e, ctx)
        if p["receiver"]:
            self.sink = TrapSink()
            ntfrcv.NotificationReceiver(e, self.sink)
        return self

    def vacm(self, model, sec_name, level, who, ctx_name):
        """Group, access entry and views of one principal, named after it
        (config.addVacmUser names them after hash(), which varies by run)."""
        e = self.engine
        group = "grp-%s-%d" % (sec_name, model)
        config.addContext(e, ctx_name)
        config.addVacmGroup(e, group, model, sec_name)
        rv, wv = "rv-%s" % group, ("wv-%s" % group if who["rw"] else "")
        config.addVacmAccess(e, group, ctx_name, model, level, "exact", rv, wv, "nv-%s" % group)
        for kind, sub in VIEWS[who["view"]]:
            config.addVacmView(e, rv, kind, sub, "")
        if wv:
            config.addVacmView(e, wv, "included", (1, 3, 6, 1), "")

    def start(self):
        d = self.engine.transportDispatcher
        d.jobStarted(1)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        d = self.engine.transportDispatcher
        while d.jobsArePending():
            try:
                d.runDispatcher()
            except Exception:
                # pysnmp re-raises what a request broke; a supervisor would
                # restart the agent: the loop goes on, that request is lost
                self.errors += 1
                if os.environ.get("GEN_DEBUG") == "2":
                    import traceback
                    traceback.print_exc()

    def stop(self):
        if self.thread is None:
            return
        d = self.engine.transportDispatcher
        d.jobFinished(1)
        self.thread.join(10)
        self.thread = None
        try:
            d.closeDispatcher()
        except Exception:
            pass


# ---------------------------------------------------------------------------
# the plan
# ---------------------------------------------------------------------------
def key(r, n=None):
    return "".join(r.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(n or r.randint(8, 16)))


def engine_id(r):
    # enterprise 20408 (the one pysnmp uses), format 5 (octets): the case's name
    return "80004fb805" + (r.choice(WORDS) + "-%d" % r.randint(1, 99)).encode().hex()


def make_plan(r):
    p = {}
    k = r.random()
    if k < 0.04:
        # everything but the two start-up floods, and only a few operations
        p["flags"] = ["all"] + [f for f in ("~mibbuild", "~mibinstrum", "~secmod", "~mibview", "~io")
                                if f in ("~mibbuild", "~mibinstrum") or r.random() < 0.4]
    else:
        n = pick(r, [(8, 1), (2.5, 2), (0.5, 3), (0.1, 4)])
        fl = []
        while len(fl) < n:
            f = pick(r, FLAGS)
            if f not in fl:
                fl.append(f)
        p["flags"] = fl
    if p["flags"] in (["proxy"], ["io"]):
        # alone these log little or nothing in most cases
        p["flags"].append(pick(r, [(w, f) for w, f in FLAGS if f not in ("proxy", "io", "mibinstrum")]))
    heavy = "mibbuild" in p["flags"] or "mibinstrum" in p["flags"]
    # The instrumentation logs every state of every var-bind of every write
    # to a MIB table, and the high-level API configures a manager by writing
    # its tables (users, targets) at the first request of each credential
    # and target: with that category, a case is one manager polling the
    # agent with one credential, configured before the debug object goes in
    p["steady"] = "mibinstrum" in p["flags"]
    # before the engines are built: their start-up output; kept to few cases
    # when it is the MIB builder's or the instrumentation's flood
    p["log_from"] = "start" if r.random() < (0.08 if heavy else 0.3) and not p["steady"] else "ops"
    p["engine_id"] = engine_id(r) if r.random() < 0.6 else None
    p["max_msg"] = pick(r, [(8, 65507), (1, 4096), (1, 1500), (0.5, 484)])
    p["port"] = _capture.free_port()
    p["port6"] = _capture.free_port() if HAVE_IPV6 and r.random() < 0.15 else None
    p["bench_name"] = "%s agent %d" % (r.choice(WORDS), r.randint(1, 40))
    p["rows"] = sorted(r.sample(range(1, 10), r.randint(0, 4)))
    p["receiver"] = r.random() < 0.5
    p["ctx_bench"] = r.random() < 0.2
    p["responders"] = {"get", "next", "bulk", "set"}
    if r.random() < 0.1:
        p["responders"].discard(r.choice(["next", "bulk", "set"]))
    comms = []
    if r.random() < 0.85:
        comms.append({"index": "ro-area", "name": "public", "rw": False,
                      "view": pick(r, VIEW_W), "context": ""})
        if r.random() < 0.7:
            comms.append({"index": "rw-area", "name": r.choice(["private", "s3cret", "write-me"]), "rw": True,
                          "view": pick(r, VIEW_W), "context": ""})
        if p["ctx_bench"] and r.random() < 0.7:
            comms.append({"index": "ctx-area", "name": "ctxcomm", "rw": True, "view": "full", "context": "bench"})
    p["communities"] = comms
    users = []
    for _ in range(pick(r, [(2, 0), (4, 1), (3, 2), (2, 3), (1, 4)]) if comms else r.randint(1, 4)):
        auth = pick(r, AUTH_W)
        priv = "none" if auth == "none" else pick(r, PRIV_W)
        name = "usr-%s-%s" % (auth, priv)
        if any(u["name"] == name for u in users):
            continue
        level = "noAuthNoPriv" if auth == "none" else ("authNoPriv" if priv == "none" else "authPriv")
        u = {"name": name, "auth": auth, "priv": priv,
             "authkey": key(r) if auth != "none" else None, "privkey": key(r) if priv != "none" else None,
             "level": level, "rw": r.random() < 0.6, "traps": r.random() < 0.8,
             "view": pick(r, VIEW_W)}
        # VACM demands more than the user can give in a few cases
        u["vacm_level"] = "authPriv" if level == "authNoPriv" and r.random() < 0.15 else level
        users.append(u)
    p["users"] = users
    p["trap_engine"] = engine_id(r) if users else None
    p["api"] = pick(r, [(8, "hlapi"), (2, "oneliner")])
    p["timeout"] = r.choice([0.3, 0.4, 0.6])
    p["bench_mib"] = pick(r, [(3, None), (2, "compile"), (1, "precompiled")])
    # a message crossing the engines makes 5-10 lines per category on
    # each side: the more talkative the categories, the fewer operations
    n_ops = pick(r, [(6, (3, 4)), (3, (4, 6)), (1, (7, 15))])
    if p["flags"][0] == "all" or heavy or len(set(p["flags"]) & {"dsp", "msgproc", "secmod", "acl"}) > 1:
        n_ops = (3, 4)
    p["n_ops"] = r.randint(*n_ops)
    return p


HAVE_IPV6 = False


def check_ipv6():
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.bind(("::1", 0))
        s.close()
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------
# the case: an agent and its managers
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, cid, r, cdir, stats):
        self.cid = cid
        self.r = r
        self.cdir = cdir
        self.stats = stats
        self.notes = []
        self.sockets = []
        self.engines = []
        self.ports = []
        self.targets = {}
        self.steady_cred = None
        self.bench_engines = set()
        self.cur_op = "setup"

    # -- helpers ------------------------------------------------------------
    def set_debug(self, flags):
        debug.setLogger(debug.Debug(*flags))

    def new_manager(self, engine_hex=None):
        kw = {}
        if engine_hex:
            kw["snmpEngineID"] = univ.OctetString(hexValue=engine_hex)
        m = hlapi.SnmpEngine(**kw)
        d = AsyncoreDispatcher()
        d.setTimerResolution(0.05)  # timeouts of a few tenths of a second
        m.registerTransportDispatcher(d)
        self.engines.append(m)
        return m

    def target(self, where="agent", timeout=None, retries=None):
        r = self.r
        p = self.plan
        t = timeout if timeout is not None else p["timeout"]
        n = retries if retries is not None else pick(r, [(5, 0), (2, 1)])
        if where == "agent" and self.steady_cred is not None:
            t, n = p["timeout"], 1  # the one target the steady manager polls
        elif where == "agent" and p["port6"] and r.random() < 0.4:
            where = "agent6"
        # one target object per address and timing, as an application keeps
        # them: the high-level API configures the engine's tables once each
        k = (where, t, n)
        if k not in self.targets:
            if where == "agent6":
                self.targets[k] = hlapi.Udp6TransportTarget(("::1", p["port6"]), timeout=t, retries=n)
            else:
                port = {"agent": p["port"], "closed": self.closed_port, "silent": self.silent_port}[where]
                self.targets[k] = hlapi.UdpTransportTarget(("127.0.0.1", port), timeout=t, retries=n)
        return self.targets[k]

    def cred(self, want_rw=False, v3=None):
        """Good credentials the agent knows (rw ones when asked, if any)."""
        r = self.r
        p = self.plan
        if self.steady_cred is not None:
            return self.steady_cred
        choices = []
        for c in p["communities"]:
            if c["context"] or (want_rw and not c["rw"]):
                continue
            choices.append((2, ("comm", c)))
        for u in p["users"]:
            if want_rw and not u["rw"]:
                continue
            choices.append((3, ("usm", u)))
        if v3 is not None:
            choices = [c for c in choices if (c[1][0] == "usm") == v3]
        if not choices:
            choices = [(1, ("comm", c)) for c in p["communities"] if not c["context"]] + \
                      [(1, ("usm", u)) for u in p["users"]]
        kind, what = pick(r, choices)
        if kind == "comm":
            return self.comm(what["name"], what["index"]), what
        return self.usm(what), what

    def comm(self, name, index=None, v1=None):
        r = self.r
        mp = (0 if r.random() < 0.3 else 1) if v1 is None else (0 if v1 else 1)
        return hlapi.CommunityData(index or name, name, mpModel=mp)

    def usm(self, u, authkey=None, privkey=None, auth=None, priv=None, name=None):
        a = auth or u["auth"]
        pv = priv or u["priv"]
        return hlapi.UsmUserData(name or u["name"],
                                 authKey=authkey or u["authkey"] if a != "none" else None,
                                 privKey=privkey or u["privkey"] if pv != "none" else None,
                                 authProtocol=AUTH[a], privProtocol=PRIV[pv])

    def ctx(self, name=""):
        return hlapi.ContextData(contextName=name)

    def bench_oi(self, sym, *idx, named=None):
        """A BENCH-MIB object by name (pysmi-compiled) or by OID."""
        p = self.plan
        if named is None:
            named = bool(p["bench_mib"]) and self.r.random() < 0.7
        if named:
            oi = hlapi.ObjectIdentity("BENCH-MIB", sym, *idx)
            oi.bench_named = True  # prep() hands it the ASN.1 sources if need be
            return oi
        base = {"benchName": NAME, "benchLevel": LEVEL, "benchCounter": COUNTER, "benchFlaky": FLAKY,
                "benchOctets": OCTETS, "benchLocked": LOCKED, "benchTable": TABLE, "benchLabel": COL_LABEL,
                "benchValue": COL_VALUE, "benchStatus": COL_STATUS, "benchIndex": COL_INDEX,
                "benchObjects": OBJ, "benchAlarm": ALARM}[sym]
        return hlapi.ObjectIdentity(oid_str(base + tuple(idx)))

    def prep(self, m, oi):
        """The first BENCH-MIB name an engine resolves brings the ASN.1
        sources: pysnmp then puts pysmi, set to compile into the case's
        dir, in place of the compiler it adds by default (which finds no
        sources)."""
        # vars(): ObjectIdentity's __getattr__ raises SmiError, not AttributeError
        if vars(oi).get("bench_named") and id(m) not in self.bench_engines:
            oi.addAsn1MibSource("file://" + self.asn1_dir, destination=self.mib_out)
            self.bench_engines.add(id(m))

    def read_oi(self):
        r = self.r
        k = r.random()
        if k < 0.35:
            return hlapi.ObjectIdentity(*r.choice(SYS_NAMES))
        if k < 0.45:
            return hlapi.ObjectIdentity(r.choice(SYS_OIDS))
        if k < 0.8:
            sym = r.choice(BENCH_SYMS + ["benchLabel", "benchValue", "benchStatus"])
            if sym in ("benchLabel", "benchValue", "benchStatus"):
                rows = self.plan["rows"] or [1]
                return self.bench_oi(sym, r.choice(rows + [42]))
            return self.bench_oi(sym, 0)
        return hlapi.ObjectIdentity(r.choice(MISSING_OIDS))

    def lookup(self):
        return self.r.random() < 0.7

    # -- running a command ----------------------------------------------------
    def cmd(self, kind, auth, target, ctx, var_binds, mgr=None, **opt):
        """One blocking command; walks run until the end of their subtree."""
        m = mgr or self.mgr
        for oi, _ in var_binds:
            self.prep(m, oi)
        if self.plan["api"] == "oneliner" and mgr is None and kind in ("get", "set", "next", "bulk"):
            return self.cmd_oneliner(kind, auth, target, ctx, var_binds, **opt)
        lookup = opt.pop("lookup", self.lookup())
        var_binds = [hlapi.ObjectType(oi) if v is None else hlapi.ObjectType(oi, v) for oi, v in var_binds]
        if kind == "get":
            g = hlapi.getCmd(m, auth, target, ctx, *var_binds, lookupMib=lookup)
        elif kind == "set":
            g = hlapi.setCmd(m, auth, target, ctx, *var_binds, lookupMib=lookup)
        elif kind in ("next", "walk"):
            g = hlapi.nextCmd(m, auth, target, ctx, *var_binds, lookupMib=lookup,
                              lexicographicMode=False, maxRows=opt.get("max_rows", 0))
        else:
            g = hlapi.bulkCmd(m, auth, target, ctx, opt.get("non_rep", 0), opt.get("max_rep", 10), *var_binds,
                              lookupMib=lookup, lexicographicMode=False, maxRows=opt.get("max_rows", 0))
        n = 0
        for err_ind, err_stat, err_idx, vbs in g:
            n += 1
            if err_ind or err_stat:
                self.stats_note(str(err_ind or err_stat.prettyPrint()))
                break
            if kind in ("next", "bulk") and not opt.get("walk"):
                break
            if n > 60:
                break
        return n

    def cmd_oneliner(self, kind, auth, target, ctx, var_binds, **opt):
        gen = oneliner.CommandGenerator(snmpEngine=self.mgr)
        names = [oi for oi, _ in var_binds]
        kw = {"contextName": ctx.contextName, "lookupMib": opt.get("lookup", self.lookup())}
        if kind == "get":
            res = gen.getCmd(auth, target, *names, **kw)
        elif kind == "set":
            res = gen.setCmd(auth, target, *var_binds, **kw)
        elif kind == "next":
            res = gen.nextCmd(auth, target, *names, maxRows=opt.get("max_rows", 20), **kw)
        else:
            res = gen.bulkCmd(auth, target, opt.get("non_rep", 0), opt.get("max_rep", 10), *names,
                              maxRows=opt.get("max_rows", 20), **kw)
        if res[0] or res[1]:
            self.stats_note(str(res[0] or res[1]))
        return 1

    def stats_note(self, what):
        k = "%s:%s" % (self.cur_op, what.split(":")[0][:40])
        self.notes.append("=" + k.replace(" ", "_"))
        self.stats["outcomes"][k] = self.stats["outcomes"].get(k, 0) + 1

    # -- the operations ----------------------------------------------------------
    def op_get(self):
        auth, _ = self.cred()
        vbs = [vb(self.read_oi()) for _ in range(pick(self.r, [(5, 1), (3, 2), (1, 4)]))]
        self.cmd("get", auth, self.target(), self.ctx(), vbs)

    def op_next(self):
        auth, _ = self.cred()
        vbs = [vb(self.read_oi()) for _ in range(pick(self.r, [(5, 1), (2, 2)]))]
        self.cmd("next", auth, self.target(), self.ctx(), vbs)

    def walk_root(self):
        r = self.r
        k = pick(r, [(3, "system"), (3, "bench"), (2, "table"), (1, "snmp"), (1, "usm")])
        self.root_kind = k
        if k == "system":
            return hlapi.ObjectIdentity("SNMPv2-MIB", "system") if r.random() < 0.5 else \
                hlapi.ObjectIdentity(oid_str(SYSTEM))
        if k == "bench":
            return self.bench_oi("benchObjects")
        if k == "table":
            return self.bench_oi(r.choice(["benchTable", "benchLabel", "benchStatus"]))
        if k == "snmp":
            return hlapi.ObjectIdentity("SNMPv2-MIB", "snmp")
        return hlapi.ObjectIdentity("SNMP-USER-BASED-SM-MIB", "usmStats")

    def op_walk(self):
        r = self.r
        auth, _ = self.cred()
        root = self.walk_root()
        self.cmd("next", auth, self.target(), self.ctx(), [vb(root)], walk=True, max_rows=self.walk_rows())

    def walk_rows(self):
        """How many rows a walk reads: to the end of a small subtree in some
        cases, a few rows of the long ones (a GETNEXT exchange per row)."""
        if self.root_kind in ("system", "snmp"):
            return pick(self.r, [(3, 3), (3, 5), (1, 8)])
        return pick(self.r, WALK_ROWS)

    def op_bulk(self):
        r = self.r
        auth, _ = self.cred()
        n = pick(r, [(4, 1), (2, 2), (1, 3)])
        vbs = [vb(self.read_oi() if i < n - 1 else self.walk_root()) for i in range(n)]
        walk = r.random() < 0.5
        self.cmd("bulk", auth, self.target(), self.ctx(), vbs, non_rep=r.randint(0, n - 1),
                 max_rep=pick(r, [(3, 1), (3, 3), (3, 5), (1, 10), (0.3, 25)]), walk=walk, max_rows=self.walk_rows())

    def op_set(self):
        r = self.r
        v2c = proto_api.v2c
        rw = r.random() < 0.75
        auth, _ = self.cred(want_rw=rw)
        k = pick(r, [(4, "name"), (2, "sys"), (2, "level"), (1, "wrongtype"), (1, "readonly"), (1, "locked"),
                     (3, "row"), (1, "missing"), (1, "multi")])
        if k == "name":
            vbs = [vb(self.bench_oi("benchName", 0), v2c.OctetString("%s %d" % (
                r.choice(WORDS), r.randint(1, 999))))]
        elif k == "sys":
            sym = r.choice(["sysContact", "sysName", "sysLocation"])
            vbs = [vb(hlapi.ObjectIdentity("SNMPv2-MIB", sym, 0),
                                    v2c.OctetString("%s@%s" % (r.choice(WORDS), r.choice(WORDS))))]
        elif k == "level":
            vbs = [vb(self.bench_oi("benchLevel", 0), v2c.Integer32(r.choice([1, 5, 9, 0, 11, 250])))]
        elif k == "wrongtype":
            vbs = [vb(hlapi.ObjectIdentity(oid_str(r.choice([LEVEL, NAME]) + (0,))),
                                    r.choice([v2c.OctetString("text"), v2c.IpAddress("10.0.0.1"),
                                              v2c.Counter32(5), v2c.Integer32(7)]))]
        elif k == "readonly":
            vbs = [vb(hlapi.ObjectIdentity(r.choice(["1.3.6.1.2.1.1.1.0", oid_str(COUNTER + (0,)),
                                                                   "1.3.6.1.2.1.1.3.0"])),
                                    v2c.OctetString("overwritten"))]
        elif k == "locked":
            vbs = [vb(self.bench_oi("benchLocked", 0), v2c.OctetString("thawed"))]
        elif k == "row":
            i = r.choice(self.plan["rows"] + [r.randint(10, 20)] * 2)
            act = pick(r, [(3, "createAndGo"), (1, "createAndWait"), (2, "destroy"), (2, "value"), (1, "active")])
            if act == "value":
                vbs = [vb(self.bench_oi("benchValue", i), v2c.Integer32(r.randint(-5, 500)))]
            else:
                status = {"createAndGo": 4, "createAndWait": 5, "destroy": 6, "active": 1}[act]
                vbs = []
                if act.startswith("create") and r.random() < 0.8:
                    vbs.append(vb(self.bench_oi("benchLabel", i), v2c.OctetString("made-%d" % i)))
                vbs.append(vb(self.bench_oi("benchStatus", i), v2c.Integer32(status)))
        elif k == "missing":
            vbs = [vb(hlapi.ObjectIdentity(r.choice(MISSING_OIDS)), v2c.Integer32(1))]
        else:
            vbs = [vb(self.bench_oi("benchName", 0), v2c.OctetString("multi")),
                   vb(self.bench_oi("benchLevel", 0), v2c.Integer32(r.choice([2, 99])))]
        self.kind_note("set-" + k)
        self.cmd("set", auth, self.target(), self.ctx(), vbs)

    def kind_note(self, k):
        self.notes.append(k)

    def op_badcomm(self):
        r = self.r
        name = r.choice(["pubic", "admin", "secret", "", "PUBLIC", "x" * 40])
        self.cmd("get", self.comm(name or "empty", "bad-area"), self.target(timeout=r.choice([0.2, 0.3]), retries=0),
                 self.ctx(), [vb(hlapi.ObjectIdentity(r.choice(SYS_OIDS)))])

    def op_unknown_user(self):
        r = self.r
        auth = pick(r, AUTH_W[1:])
        priv = pick(r, PRIV_W)
        u = {"name": r.choice(["ghost", "nobody", "admin", "usr-md5-des"]) + ("" if r.random() < 0.5 else "-2"),
             "auth": auth, "priv": priv, "authkey": key(r), "privkey": key(r)}
        m = self.spare()
        self.cmd("get", self.usm(u), self.target(), self.ctx(), [vb(self.read_oi())], mgr=m)

    def op_wrong_key(self):
        r = self.r
        users = [u for u in self.plan["users"] if u["auth"] != "none"]
        if not users:
            return self.op_unknown_user()
        u = r.choice(users)
        k = pick(r, [(3, "authkey"), (2, "privkey"), (1, "authproto"), (1, "privproto"), (1, "level")])
        if k == "privkey" and u["priv"] == "none":
            k = "authkey"
        if k == "privproto" and u["priv"] == "none":
            k = "level"
        if k == "authkey":
            auth = self.usm(u, authkey=key(r))
        elif k == "privkey":
            auth = self.usm(u, privkey=key(r))
        elif k == "authproto":
            auth = self.usm(u, auth=r.choice([a for a in AUTH if a not in ("none", u["auth"])]))
        elif k == "privproto":
            auth = self.usm(u, priv=r.choice([p for p in PRIV if p not in ("none", u["priv"])]))
        else:
            # asks for privacy the user does not have, or leaves it out
            if u["priv"] == "none":
                auth = self.usm(u, priv="des", privkey=key(r))
            else:
                auth = self.usm(u, priv="none")
        self.kind_note("wrong-" + k)
        self.cmd("get", auth, self.target(), self.ctx(), [vb(self.read_oi())], mgr=self.spare())

    def op_seclevel(self):
        """A noAuthNoPriv request for a user that has keys at the agent."""
        r = self.r
        users = [u for u in self.plan["users"] if u["auth"] != "none"]
        if not users:
            return self.op_unknown_user()
        u = r.choice(users)
        auth = hlapi.UsmUserData(u["name"])
        self.cmd("get", auth, self.target(), self.ctx(), [vb(self.read_oi())], mgr=self.spare())

    def op_timeout(self):
        r = self.r
        auth, _ = self.cred()
        where = r.choice(["closed", "silent"])
        self.kind_note("timeout-" + where)
        self.cmd(r.choice(["get", "next"]), auth, self.target(where, timeout=r.choice([0.2, 0.3]),
                                                              retries=r.choice([0, 0, 1])),
                 self.ctx(), [vb(self.read_oi())])

    def op_context(self):
        r = self.r
        p = self.plan
        if p["ctx_bench"] and r.random() < 0.7:
            cc = [c for c in p["communities"] if c["context"]]
            if cc and (not p["users"] or r.random() < 0.4):
                auth = self.comm(cc[0]["name"], cc[0]["index"])
                ctx = self.ctx()
            elif p["users"]:
                auth, _ = self.cred(v3=True)
                ctx = self.ctx("bench")
            else:
                return self.op_get()
            self.cmd(r.choice(["get", "next", "walk"]), auth, self.target(), ctx,
                     [vb(self.bench_oi(r.choice(["benchName", "benchCounter"]), 0))], walk=True)
            return
        if not p["users"]:
            return self.op_get()
        auth, _ = self.cred(v3=True)
        self.cmd("get", auth, self.target(), self.ctx(r.choice(["nowhere", "vrf-blue", "bench2"])),
                 [vb(self.read_oi())])

    def notification(self, m):
        r = self.r
        v2c = proto_api.v2c
        k = pick(r, [(3, "coldStart"), (2, "warmStart"), (1, "authenticationFailure"), (2, "bench"), (1, "oid")])
        if k == "bench":
            if self.plan["bench_mib"] and r.random() < 0.3:
                # the notification's OBJECTS filled in from the compiled MIB:
                # pysnmp 4.4.12's NotificationType.resolveWithMib fails on
                # them (a TypeError) after resolving the notification
                oi = self.bench_oi("benchAlarm", named=True)
                self.prep(m, oi)
                return hlapi.NotificationType(oi, instanceIndex=(0,), objects={
                    ("BENCH-MIB", "benchName"): v2c.OctetString(self.plan["bench_name"]),
                    ("BENCH-MIB", "benchLevel"): v2c.Integer32(r.randint(1, 10))})
            return hlapi.NotificationType(hlapi.ObjectIdentity(oid_str(ALARM))).addVarBinds(
                (oid_str(NAME + (0,)), v2c.OctetString(self.plan["bench_name"])),
                (oid_str(LEVEL + (0,)), v2c.Integer32(r.randint(1, 10))))
        if k == "oid":
            return hlapi.NotificationType(hlapi.ObjectIdentity("1.3.6.1.6.3.1.1.5.3")).addVarBinds(
                ("1.3.6.1.2.1.2.2.1.1.%d" % r.randint(1, 8), v2c.Integer32(r.randint(1, 8))))
        nt = hlapi.NotificationType(hlapi.ObjectIdentity("SNMPv2-MIB", k))
        if r.random() < 0.5:
            nt = nt.addVarBinds(("1.3.6.1.2.1.1.1.0", v2c.OctetString("bench manager %d" % r.randint(1, 9))))
        return nt

    def op_notify(self):
        r = self.r
        p = self.plan
        inform = r.random() < 0.4
        k = r.random()
        mgr = None
        if p["users"] and k < 0.4:
            users = [u for u in p["users"] if u["traps"]] or p["users"]
            u = r.choice(users)
            auth = self.usm(u)
            if not inform:
                mgr = self.trap_mgr  # its engine ID is configured at the receiver
        else:
            comm = p["communities"][0]["name"] if p["communities"] else "public"
            auth = self.comm(comm, "trap-area", v1=(not inform and r.random() < 0.35))
        kind = "inform" if inform else "trap"
        self.kind_note("%s-%s" % (kind, "v3" if isinstance(auth, hlapi.UsmUserData) else "v%d" % (
            auth.mpModel + 1)))
        m = mgr or self.mgr
        g = hlapi.sendNotification(m, auth, self.target(retries=0), self.ctx(), kind,
                                   self.notification(m), lookupMib=self.lookup())
        for err_ind, err_stat, err_idx, vbs in g:
            if err_ind or err_stat:
                self.stats_note(str(err_ind or err_stat.prettyPrint()))
            break
        if not inform:
            time.sleep(0.05)  # the receiver's records before the next operation

    def op_resolve(self):
        r = self.r
        auth, _ = self.cred()
        oi = hlapi.ObjectIdentity(*r.choice(BAD_NAMES))
        self.cmd("get", auth, self.target(), self.ctx(), [vb(oi)])

    def op_async(self):
        """A batch of callback-style requests, all in flight at once."""
        r = self.r
        done = []

        def cb_get(snmpEngine, handle, err_ind, err_stat, err_idx, vbs, cbCtx):
            done.append(handle)

        def cb_walk(snmpEngine, handle, err_ind, err_stat, err_idx, table, cbCtx):
            cbCtx["n"] += 1
            return not err_ind and not err_stat and cbCtx["n"] < 3

        for _ in range(r.randint(2, 4)):
            auth, _ = self.cred()
            k = pick(r, [(3, "get"), (2, "next"), (1, "bulk"), (1, "timeout")])
            tgt = self.target("silent" if k == "timeout" else "agent", retries=0)
            if k in ("get", "timeout"):
                hl_async.getCmd(self.mgr, auth, tgt, self.ctx(), self.ot(self.read_oi()), cbFun=cb_get,
                                lookupMib=self.lookup())
            elif k == "next":
                hl_async.nextCmd(self.mgr, auth, tgt, self.ctx(), self.ot(self.walk_root()),
                                 cbFun=cb_walk, cbCtx={"n": 0}, lookupMib=self.lookup())
            else:
                hl_async.bulkCmd(self.mgr, auth, tgt, self.ctx(), 0, r.choice([2, 5, 10]),
                                 self.ot(self.walk_root()), cbFun=cb_walk, cbCtx={"n": 0},
                                 lookupMib=self.lookup())
        self.mgr.transportDispatcher.runDispatcher()

    def ot(self, oi):
        self.prep(self.mgr, oi)
        return hlapi.ObjectType(oi)

    def op_debug(self):
        """The application changes the debug categories half-way."""
        p = self.plan
        fl = [f for w, f in FLAGS if f not in ("mibbuild", "mibinstrum")]
        new = self.r.sample(fl, self.r.randint(1, 3))
        if self.r.random() < 0.3:
            new = new + ["~" + self.r.choice(new)]
        p["flags"] = new
        self.set_debug(new)

    def op_restart(self):
        """The agent goes down and comes back on the same port."""
        self.agent.stop()
        time.sleep(0.05)
        self.agent = Agent(self.plan, self.r).build()
        self.agent.start()
        self.op_get()

    def op_raw(self):
        r = self.r
        p = self.plan
        k = pick(r, [(2, "garbage"), (2, "truncated"), (2, "badversion"), (1, "empty"), (2, "response"),
                     (1, "v1trap"), (2, "v3flags"), (2, "v3model"), (2, "v3discovery"), (1, "v3user"),
                     (1, "badcommunity"), (1, "report"), (1, "longcommunity")])
        self.kind_note("raw-" + k)
        data = raw_datagram(k, r, p)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.bind(("127.0.0.1", 0))
            s.settimeout(0.25)
            for _ in range(pick(r, [(5, 1), (1, 2)])):
                s.sendto(data, ("127.0.0.1", p["port"]))
                try:
                    s.recvfrom(65536)
                except OSError:
                    pass
        finally:
            s.close()

    def spare(self):
        """A manager engine of its own for a stranger's credentials (one
        engine holds one set of keys per user name)."""
        if self.spares:
            return self.spares.pop(0)
        return self.new_manager()

    # -- the case -----------------------------------------------------------------
    OPS = [("get", 6), ("next", 2), ("walk", 3), ("bulk", 3), ("set", 4), ("badcomm", 1.2), ("unknown_user", 1),
           ("wrong_key", 1.5), ("seclevel", 0.6), ("timeout", 1.2), ("context", 1), ("notify", 2.5),
           ("resolve", 0.7), ("async", 1.2), ("debug", 0.4), ("restart", 0.3), ("raw", 2.2)]

    def plan_ops(self):
        r = self.r
        p = self.plan
        table = []
        for name, w in self.OPS:
            if p["steady"] and name not in ("get", "next", "walk", "bulk", "set"):
                continue
            if name in ("unknown_user", "wrong_key", "seclevel") and not p["users"]:
                w = w / 3
            if name == "badcomm" and not p["communities"]:
                w = w / 2
            if name in ("debug", "restart") and p["flags"][0] == "all":
                w = 0
            table.append((w, name))
        return [pick(r, table) for _ in range(p["n_ops"])]

    def run(self):
        r = self.r
        self.plan = p = make_plan(r)
        self.ports = [p["port"]] + ([p["port6"]] if p["port6"] else [])
        self.closed_port = _capture.free_port()
        silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        silent.bind(("127.0.0.1", 0))
        self.sockets.append(silent)
        self.silent_port = silent.getsockname()[1]
        self.ports.append(self.closed_port)
        ops = self.plan_ops()
        self.notes.append("flags=%s from=%s ops=%s" % ("+".join(p["flags"]), p["log_from"], ",".join(ops)))
        self.asn1_dir = os.path.join(self.cdir, "asn1")
        self.mib_out = os.path.join(self.cdir, "mibs")
        os.makedirs(self.asn1_dir, exist_ok=True)
        for name, text in ASN1.items():
            with open(os.path.join(self.asn1_dir, name), "w") as fh:
                fh.write(text)
        if p["log_from"] == "start":
            self.set_debug(p["flags"])
        self.agent = Agent(p, r).build()
        self.mgr = self.new_manager()
        self.trap_mgr = self.new_manager(p["trap_engine"]) if p["trap_engine"] and "notify" in ops else None
        n_spares = sum(1 for o in ops if o in ("unknown_user", "wrong_key", "seclevel"))
        self.spares = [self.new_manager() for _ in range(n_spares)]
        if p["bench_mib"] == "precompiled":
            # compiled before the case's operations: they load it, pysmi has no work
            oi = hlapi.ObjectIdentity("BENCH-MIB", "benchName", 0).addAsn1MibSource(
                "file://" + self.asn1_dir, destination=self.mib_out)
            oi.resolveWithMib(CommandGeneratorVarBinds().getMibViewController(self.mgr))
            self.bench_engines.add(id(self.mgr))
        self.agent.start()
        if p["steady"]:
            self.steady_cred = self.cred(want_rw=True)
            self.cmd("get", self.steady_cred[0], self.target(), self.ctx(), [vb(hlapi.ObjectIdentity(SYS_OIDS[0]))])
        if p["log_from"] == "ops":
            self.set_debug(p["flags"])
        n0 = len(LOG._rows) if LOG else 0
        if LOG:
            self.notes.append("setup:%d" % n0)
        for op in ops:
            self.cur_op = op
            errs = self.agent.errors
            try:
                getattr(self, "op_" + op)()
            except Exception as e:  # pysnmp refusing a request, a name it cannot resolve
                k = "%s:%s" % (op, type(e).__name__)
                self.stats["step errors"][k] = self.stats["step errors"].get(k, 0) + 1
                if os.environ.get("GEN_DEBUG") == "2":
                    import traceback
                    traceback.print_exc()
            time.sleep(0.01)
            if self.agent.errors > errs:
                k = "%s:agent loop raised" % op
                self.stats["step errors"][k] = self.stats["step errors"].get(k, 0) + 1
            if LOG:
                self.notes.append("%s:%d" % (op, len(LOG._rows) - n0))
                n0 = len(LOG._rows)
        time.sleep(0.05)

    def close(self):
        try:
            if getattr(self, "agent", None):
                self.agent.stop()
        finally:
            debug.setLogger(0)
            for m in self.engines:
                try:
                    if m.transportDispatcher:
                        m.transportDispatcher.closeDispatcher()
                except Exception:
                    pass
            for s in self.sockets:
                s.close()
            _capture.release_ports(self.ports)


# ---------------------------------------------------------------------------
# raw datagrams
# ---------------------------------------------------------------------------
def v1v2_message(r, version, community, pdu_kind="get", oid=SYSTEM + (1, 0)):
    pmod = proto_api.protoModules[proto_api.protoVersion1 if version == 0 else proto_api.protoVersion2c]
    pdu = {"get": pmod.GetRequestPDU, "response": pmod.GetResponsePDU, "trap": getattr(pmod, "TrapPDU", None),
           "report": getattr(pmod, "ReportPDU", None)}[pdu_kind]()
    pmod.apiPDU.setDefaults(pdu) if pdu_kind != "trap" else pmod.apiTrapPDU.setDefaults(pdu)
    if pdu_kind == "trap":
        pmod.apiTrapPDU.setEnterprise(pdu, BENCH)
        pmod.apiTrapPDU.setGenericTrap(pdu, "coldStart")
    else:
        pmod.apiPDU.setRequestID(pdu, r.randint(1, 2 ** 30))
        pmod.apiPDU.setVarBinds(pdu, [(oid, pmod.Null(""))])
    msg = pmod.Message()
    pmod.apiMessage.setDefaults(msg)
    pmod.apiMessage.setCommunity(msg, community)
    pmod.apiMessage.setPDU(msg, pdu)
    return msg


def v3_message(r, flags=b"\x04", model=3, user=b"", engine=b"", max_size=65507):
    pmod = proto_api.protoModules[proto_api.protoVersion2c]
    pdu = pmod.GetRequestPDU()
    pmod.apiPDU.setDefaults(pdu)
    pmod.apiPDU.setRequestID(pdu, r.randint(1, 2 ** 30))
    pmod.apiPDU.setVarBinds(pdu, [(SYSTEM + (1, 0), pmod.Null(""))])
    msg = mp3.SNMPv3Message()
    msg.setComponentByPosition(0, 3)
    hdr = msg.setComponentByPosition(1).getComponentByPosition(1)
    hdr.setComponentByPosition(0, r.randint(1, 2 ** 30))
    hdr.setComponentByPosition(1, max_size)
    hdr.setComponentByPosition(2, flags)
    hdr.setComponentByPosition(3, model)
    sp = usm_service.UsmSecurityParameters()
    sp.setComponentByPosition(0, engine)
    sp.setComponentByPosition(1, 0)
    sp.setComponentByPosition(2, 0)
    sp.setComponentByPosition(3, user)
    sp.setComponentByPosition(4, b"\x00" * 12 if flags[0] & 1 else b"")
    sp.setComponentByPosition(5, b"")
    msg.setComponentByPosition(2, ber_encoder.encode(sp))
    scoped = mp3.ScopedPDU()
    scoped.setComponentByPosition(0, engine)
    scoped.setComponentByPosition(1, b"")
    scoped.setComponentByPosition(2)
    scoped.getComponentByPosition(2).setComponentByType(pdu.tagSet, pdu)
    data = msg.setComponentByPosition(3).getComponentByPosition(3)
    data.setComponentByType(scoped.tagSet, scoped)
    return msg


def raw_datagram(k, r, p):
    comm = p["communities"][0]["name"] if p["communities"] else "public"
    eid = bytes.fromhex(p["engine_id"]) if p["engine_id"] else b"\x80\x00\x4f\xb8\x05unknown"
    if k == "garbage":
        return bytes(r.getrandbits(8) for _ in range(r.randint(1, 80)))
    if k == "empty":
        return b""
    if k == "truncated":
        data = ber_encoder.encode(v1v2_message(r, 1, comm))
        return data[:r.randint(3, len(data) - 2)]
    if k == "badversion":
        data = bytearray(ber_encoder.encode(v1v2_message(r, 1, comm)))
        data[4] = r.choice([2, 4, 7, 99])  # the version INTEGER's value octet
        return bytes(data)
    if k == "response":
        return ber_encoder.encode(v1v2_message(r, r.choice([0, 1]), comm, "response"))
    if k == "report":
        return ber_encoder.encode(v1v2_message(r, 1, comm, "report"))
    if k == "v1trap":
        return ber_encoder.encode(v1v2_message(r, 0, comm, "trap"))
    if k == "badcommunity":
        return ber_encoder.encode(v1v2_message(r, r.choice([0, 1]), r.choice(["guest", "root", "\u00e9t\u00e9"])))
    if k == "longcommunity":
        return ber_encoder.encode(v1v2_message(r, 1, "c" * r.choice([300, 1400])))
    if k == "v3flags":
        # privacy without authentication (invalid), or reportable with auth for nobody
        return ber_encoder.encode(v3_message(r, flags=r.choice([b"\x02", b"\x06", b"\x07", b"\x01"]),
                                             user=b"nobody", engine=eid))
    if k == "v3model":
        # security models pysnmp does not have (the schema refuses those below 3)
        return ber_encoder.encode(v3_message(r, model=r.choice([4, 99, 1234]), engine=eid))
    if k == "v3discovery":
        # what a manager sends first: no engine ID, no user
        return ber_encoder.encode(v3_message(r, max_size=r.choice([65507, 1500, 484])))
    return ber_encoder.encode(v3_message(r, user=r.choice([b"intruder", b"usr-md5-none", b""]), engine=eid))


# ---------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------
class Seen(logging.Filter):
    """Counts the records of the open case (those the capture keeps or drops)."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def filter(self, record):
        self.n += 1
        return True


RUNAWAY = 2500  # a case logging more records than this is dropped whole
LOG = None
SEEN = None
ARGS = None


def init_worker(seed, top):
    global LOG, SEEN, ARGS, HAVE_IPV6
    ARGS = (seed, top)
    d = os.path.join(top, "w%d" % os.getpid())
    os.makedirs(d, exist_ok=True)
    # engines with a custom ID keep their boots under the temp dir; pysmi's
    # default destination is under HOME: both inside the generator's dir
    tempfile.tempdir = d
    compiler.defaultDest = os.path.join(d, "home-mibs")
    LOG = _capture.EventLog(pysnmp, os.devnull, logger_names=["pysnmp"], wrappers=WRAPPERS)
    logging.getLogger("pysnmp").propagate = False
    SEEN = Seen()
    LOG.addFilter(SEEN)
    # one printer for every Debug object: pysnmp's default Printer would add
    # a StreamHandler to the logger each time
    debug.Debug.defaultPrinter = debug.Printer(logger=logging.getLogger("pysnmp"), handler=logging.NullHandler())
    HAVE_IPV6 = check_ipv6()
    warnings.simplefilter("ignore")
    sys.unraisablehook = lambda args: None


def run_case(i):
    seed, top = ARGS
    cid = "pysnmp-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    # pysnmp draws privacy salts and each new engine's first handle from it
    random.seed("%d-%d-pysnmp" % (seed, i))
    stats = {"errors": {}, "step errors": {}, "outcomes": {}, "outside": 0, "runaway": 0}
    cdir = tempfile.mkdtemp(prefix="case", dir=tempfile.tempdir)
    case = Case(cid, r, cdir, stats)
    LOG._rows = []
    SEEN.n = 0
    LOG.case_id = cid
    t = time.time()
    try:
        try:
            case.run()
        finally:
            case.close()
    except BaseException as e:  # a broken case must not stop the generation
        stats["errors"][type(e).__name__] = 1
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
    finally:
        LOG.case_id = None
        debug.setLogger(0)
        rows, LOG._rows = LOG._rows, []
        stats["outside"] = SEEN.n - len(rows)
        if len(rows) > RUNAWAY:
            # a flood (an out-of-view GETNEXT across the agent's whole MIB,
            # the instrumentation writing the managers' tables) would
            # outweigh every other case
            stats["runaway"] = 1
            rows = []
        shutil.rmtree(cdir, ignore_errors=True)
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s %d events %.2fs\n" % (cid, " ".join(case.notes), len(rows), time.time() - t))
    return i, cid, rows, stats


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":
        # pysnmp's high-level API and config helpers name table rows after
        # hash() of strings (the manager's target and VACM entries): a fixed
        # hash seed keeps those names, which messages show, from run to run
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=450)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=3,
                    help="cases run side by side, each in a process (they mostly wait)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gen_pysnmp_")
    # the main process only writes: its capture listens to no logger
    log = _capture.EventLog(pysnmp, a.out, logger_names=["pysnmp.bench-unused"], wrappers=WRAPPERS)
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    totals = {"errors": {}, "step errors": {}, "outcomes": {}, "outside": 0, "runaway": 0}
    try:
        ctx = multiprocessing.get_context("fork")
        # a fresh process every 40 cases: sockets or memory a case leaks do
        # not pile up
        with ctx.Pool(max(1, a.jobs), initializer=init_worker, initargs=(a.seed, tmp), maxtasksperchild=40) as pool:
            pending = [(i, pool.apply_async(run_case, (i,))) for i in todo]
            for i, res in pending:
                try:
                    i, cid, rows, stats = res.get(timeout=120)
                except multiprocessing.TimeoutError:  # its process died: the case is lost
                    totals["errors"]["lost"] = totals["errors"].get("lost", 0) + 1
                    continue
                log.write_case(cid, rows)
                for k in ("errors", "step errors", "outcomes"):
                    for kk, v in stats[k].items():
                        totals[k][kk] = totals[k].get(kk, 0) + v
                totals["outside"] += stats["outside"]
                totals["runaway"] += stats["runaway"]
        log.finish()
        sys.stderr.write("%s; dropped: %d records emitted outside pysnmp, %d runaway cases (over %d records); "
                         "case exceptions: %s; operation errors: %s; outcomes: %s; %.0fs\n"
                         % (log.summary(), totals["outside"], totals["runaway"], RUNAWAY, totals["errors"] or "none",
                            dict(sorted(totals["step errors"].items())) or "none",
                            dict(sorted(totals["outcomes"].items(), key=lambda kv: -kv[1])[:12]),
                            time.time() - t0))
        if log.cases_written == 0:
            sys.exit("gen_pysnmp: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
