#!/usr/bin/python3
"""Event log of invoke (Debian python3-invoke 2.0.0), the Python task
runner: one project's task-runner lifetime per case, in this process.

    /usr/bin/python3 gen_invoke.py --out .deps/logs/invoke.csv.gz [--cases 800] [--seed 1]
    /usr/bin/python3 gen_invoke.py --repo     # prints the directory to index

Indexed: the installed ``invoke`` directory
(``/usr/lib/python3/dist-packages/invoke``), its vendored copies of
``fluidity``, ``lexicon``, ``decorator`` and PyYAML (``invoke/vendor``)
included: invoke imports those (``invoke.util`` falls back to the
system-wide modules only when the vendored ones are missing). The vendored
modules log nothing.

A case is one made-up project driven by invoke's command-line machinery.
The case writes, in a scratch directory of its own:

- a tasks module (``tasks.py``, or another name picked with ``-c`` or with
  ``tasks.collection_name`` in the user or system config file) of 3-7
  tasks: 0-4 parameters each (strings, ints, booleans defaulting to
  ``False`` or ``True``, positional arguments without a default,
  optional-value flags, ``iterable`` lists and ``incrementable``
  counters), ``pre``/``post`` tasks (some through ``call(...)`` with
  arguments), aliases, help texts, a default task, ``autoprint``; the
  module exposes its tasks implicitly or through an explicit ``ns =
  Collection(...)`` with 1-2 sub-collections from other local modules
  (one sometimes nesting another), sub-collection default tasks and
  collection-level configuration (``ns.configure``);
- task bodies of 1-5 steps run with ``Context.run`` on real ``/bin/bash``
  commands (``echo``, ``printf``, ``true``, ``false`` with ``warn=True``,
  failing exits, ``head`` fed from an ``in_stream``, ``pty=True``, ``echo``,
  ``asynchronous`` runs joined later, ``sleep`` under a 0.2 s ``timeout``,
  prompts answered by a ``Responder`` or refused by a ``FailingResponder``),
  inside ``Context.cd`` and ``Context.prefix``, plus config reads and
  writes at run time (modifications and deletions), ``Exit`` raised with a
  message and a code, task return values and plain Python errors;
- config files at the system, user, project and runtime levels (each
  drawn as YAML, ``.yml``, JSON or a Python module; runtime ones named by
  ``-f`` or ``INVOKE_RUNTIME_CONFIG``), some broken: a runtime file of an
  unsupported type, a missing one, a Python config holding a module;
- environment variables (``INVOKE_RUN_ECHO``, ``INVOKE_TIMEOUTS_COMMAND``,
  a custom setting's variable, one for a list setting that invoke cannot
  cast...), and sometimes a ``Config`` subclass with another ``prefix``
  (``mytool``: files ``mytool.yaml``, variables ``MYTOOL_*``).

Then 1-3 invocations run, each a new ``Program``: the ``invoke`` program
(collection found from the working directory, a deeper directory or
``-r``), or a program with the collection bundled (``Program(namespace=...)``,
its own name, binary and version), handed an argv list, a string or
``None`` (``sys.argv``), with ``exit`` on or off. The argv draws core flags
(``-e``, ``-w``, ``-p``, ``--hide``, ``-R``, ``-T``, ``--no-dedupe``,
``-d``, ``-f``) and then either 1-3 task calls with their flags (long,
short, ``--x=y``, glued short values, ``--no-x``, ``-vvv``, repeated list
flags, positional values, a ``--`` remainder; sometimes a missing value,
an unknown flag, a missing positional argument, an unknown task, a core
flag among the task's), or ``--list`` (a namespace, a format, a depth),
``--help`` (bare, of a task, of an unknown name), ``--version``,
``--print-completion-script``, ``--complete`` with a partial command line,
no task at all, an unknown collection. Some invocations skip ``Program``
and drive an ``Executor`` (tasks by name, by ``(name, kwargs)``, with or
without dedupe) or walk a ``Config`` through its lifecycle (lazy loads,
project and runtime files, shell environment, modifications, deletions,
clones) by hand. Errors a case raises that ``Program.run`` lets through
(``Failure``, ``CommandTimedOut``, ``UncastableEnvVar``,
``UnknownFileType``...) and ``SystemExit`` are caught and the case goes
on; what invoke prints goes to a sink.

Determinism: each case draws from ``random.Random`` seeded with
``<seed>-<case index>`` and runs alone, its IO threads joined by invoke
before ``run`` returns. A seed thus gives the same activities apart from
timestamps and the scratch directory's name in the paths invoke prints
(``Found module: '/dev/shm/gen_invoke_XXXX/c00012/proj/tasks.py'``).

Capture: invoke logs only at DEBUG, through a module-level name in
``invoke/util.py`` bound to the ``invoke`` logger's method (``log =
logging.getLogger("invoke")``, then ``globals()["debug"] =
getattr(log, "debug")``), imported everywhere as ``from .util import
debug``. Messages are always rendered before the call, with
``str.format`` (``debug("Moving to context {!r}".format(name))``), often
from a template held in a local first (``msg = "..."``, ``err = "..."``,
then ``debug(msg.format(...))``); they carry reprs of invoke's objects
(parser contexts, arguments, calls, collections) and whole config dicts.
``debug`` is the logger's own bound method, so the record's frame is the
caller's and no wrapper is declared: ``code.wrapped`` is always 0. The
capture sets the ``invoke`` logger to DEBUG itself (invoke's own switches,
``INVOKE_DEBUG`` and ``--debug``, call ``logging.basicConfig``; ``-d`` is
still drawn, a ``NullHandler`` on the root logger makes that a no-op, and
the ``invoke`` logger does not propagate). Cases with fewer than 3 events
are dropped.
"""
import argparse
import contextlib
import io
import json
import logging
import os
import random
import shutil
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import invoke  # noqa: E402
import invoke.runners  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(invoke.__file__)))
    sys.exit(0)

import importlib.util  # noqa: E402
import warnings  # noqa: E402

from invoke import Collection, Config, Executor, Program  # noqa: E402

TASK_NAMES = ["build", "test", "clean", "deploy", "lint", "docs", "release", "package", "serve", "migrate",
              "bootstrap", "check", "fmt", "install", "publish", "setup", "compile", "bench", "coverage",
              "sync", "backup", "restore", "rollback", "status", "provision", "seed_db", "watch", "tag_release",
              "upload_assets", "run_server", "gen_docs", "vendor_update"]
SUB_NAMES = ["docs", "db", "ci", "docker", "assets", "infra", "web", "data"]
PARAMS = ["target", "env", "name", "count", "verbose", "force", "dry_run", "tag", "level", "port", "host",
          "message", "clean_first", "jobs", "output", "branch", "region", "quiet", "retries", "extra",
          "timeout_s", "profile", "skip_tests", "path"]
WORDS = ["alpha", "beta", "prod", "staging", "main", "v1.2.3", "eu-west-1", "web01", "release notes",
         "api", "frontend", "x86_64", "nightly", "db-primary", "42", "7", "/srv/app", "hello world"]
DOCS = ["Build the project.", "Run the test suite.", "Remove build artifacts.", "Deploy to a target.",
        "Check code style.", "Render the documentation.", "Cut a release.", "Serve locally.", ""]
INVOKE_ENV = ("INVOKE_", "MYTOOL_")


# --------------------------------------------------------------------------
# The project a case writes.


class Param:
    def __init__(self, name, kind, default):
        self.name, self.kind, self.default = name, kind, default


class TaskSpec:
    def __init__(self, name):
        self.name = name
        self.params = []
        self.pre, self.post = [], []
        self.aliases = []
        self.default = False
        self.autoprint = False
        self.doc = ""
        self.body = []


def gen_params(r):
    out = []
    for name in r.sample(PARAMS, pick(r, [(3, 0), (4, 1), (4, 2), (2, 3), (1, 4)])):
        kind = pick(r, [(5, "str"), (2, "int"), (3, "bool"), (1, "booltrue"), (1, "pos"), (1, "opt"),
                        (1, "iter"), (1, "incr")])
        default = {"str": repr(r.choice(WORDS)), "int": str(r.randint(0, 9)), "bool": "False",
                   "booltrue": "True", "pos": None, "opt": "None", "iter": "None", "incr": "0"}[kind]
        out.append(Param(name, kind, default))
    # positional (no default) parameters first, as Python wants
    out.sort(key=lambda p: p.kind != "pos")
    return out


def gen_step(r, t):
    """One line (or block) of a task body, indented by 4."""
    strs = [p.name for p in t.params if p.kind in ("str", "pos")]
    kind = pick(r, [(8, "echo"), (2, "printf"), (2, "true"), (3, "warn"), (1, "fail"), (2, "cat"), (2, "pty"),
                    (1, "asynch"), (1, "timeout"), (2, "respond"), (1, "refuse"), (2, "cd"), (2, "prefix"),
                    (2, "setcfg"), (1, "delcfg"), (1, "readcfg"), (1, "exit"), (1, "boom"), (1, "echoflag"),
                    (1, "dry")])
    hide = r.choice(["True", "True", "True", "'out'", "'both'", "'err'"])
    if kind == "echo":
        arg = ("'{}: ' + str(%s)" % r.choice(strs)) if strs and r.random() < 0.6 else repr("%s ok" % t.name)
        return ["    c.run('echo ' + shlex.quote(%s), hide=%s)" % (arg, hide)]
    if kind == "printf":
        return ["    res = c.run(\"printf '%s\\\\n%s\\\\n'\", hide=True)" % (r.choice(WORDS[:8]), r.choice(WORDS[:8])),
                "    lines = res.stdout.splitlines()"]
    if kind == "true":
        return ["    c.run('true', hide=%s)" % hide]
    if kind == "warn":
        return ["    res = c.run('%s', warn=True, hide=True)" % r.choice(["false", "exit 3", "ls /nonexistent-dir"]),
                "    if res.failed:",
                "        c.run('echo recovered', hide=True)"]
    if kind == "fail":
        return ["    c.run('exit %d', hide=%s)" % (r.choice([1, 2, 127]), hide)]
    if kind == "cat":
        # head ends by itself: on a pty (run.pty from a config file, -p) the
        # process sees no end of file once the in_stream is drained
        return ["    c.run('head -n %d', in_stream=io.StringIO(%r), hide=True)"
                % (r.randint(1, 3), "\n".join(r.sample(WORDS, 3)) + "\n")]
    if kind == "pty":
        return ["    c.run('echo on a pty', pty=True, hide=True)"]
    if kind == "asynch":
        return ["    promise = c.run('echo background', asynchronous=True, hide=True)",
                "    c.run('true', hide=True)",
                "    promise.join()"]
    if kind == "timeout":
        if r.random() < 0.5:
            return ["    try:",
                    "        c.run('sleep 1', timeout=0.2, hide=True)",
                    "    except CommandTimedOut:",
                    "        pass"]
        return ["    c.run('sleep 1', timeout=0.2, hide=True)"]
    if kind == "respond":
        return ["    c.run(\"printf 'Password: '; read pw; echo got $pw\", hide=True, pty=%s," % r.choice(["False", "True"]),
                "          watchers=[Responder(pattern=r'Password:', response='s3cret\\n')])"]
    if kind == "refuse":
        lines = ["c.run(\"printf 'Password: '; read pw; echo Sorry, try again\", hide=True,",
                 "      watchers=[FailingResponder(pattern=r'Password:', response='wrong\\n', sentinel='Sorry')])"]
        if r.random() < 0.5:
            return ["    try:", "        " + lines[0], "        " + lines[1], "    except Failure:", "        pass"]
        return ["    " + lines[0], "    " + lines[1]]
    if kind == "cd":
        return ["    with c.cd(%r):" % r.choice(["/tmp", "..", "/", "sub"]),
                "        c.run('pwd', hide=True, warn=True)"]
    if kind == "prefix":
        return ["    with c.prefix('export STAGE=%s'):" % r.choice(["dev", "ci", "prod"]),
                "        c.run('echo $STAGE', hide=True)"]
    if kind == "setcfg":
        return [r.choice(["    c.config.run.echo = %s" % r.choice(["True", "False"]),
                          "    c.config['last_task'] = %r" % t.name,
                          "    c.config.run.env = {'STAGE': %r}" % r.choice(["dev", "ci"]),
                          "    c.config.setdefault('counters', {})['%s'] = 1" % t.name])]
    if kind == "delcfg":
        return ["    c.config.pop(%r, None)" % r.choice(["last_task", "deploy", "app"])]
    if kind == "readcfg":
        return ["    value = c.config.get('deploy', {}).get('target', 'nowhere')",
                "    c.run('echo deploying to ' + str(value), hide=True)"]
    if kind == "exit":
        return ["    raise Exit(%r, code=%d)" % (r.choice(["Refusing to continue", "Nothing to do", ""]),
                                               r.choice([0, 1, 2, 3]))]
    if kind == "boom":
        return ["    raise RuntimeError('broken task %s')" % t.name]
    if kind == "echoflag":
        return ["    c.run('echo echoed', echo=True, hide=True)"]
    return ["    c.run('rm -rf build', dry=True)"]


def task_source(t):
    deco = []
    pre, post = t.pre, t.post
    if pre:
        deco.append("pre=[%s]" % ", ".join(pre))
    if post:
        deco.append("post=[%s]" % ", ".join(post))
    if t.aliases:
        deco.append("aliases=%r" % (t.aliases,))
    if t.default:
        deco.append("default=True")
    if t.autoprint:
        deco.append("autoprint=True")
    helps = {p.name: "the %s to use" % p.name.replace("_", " ") for p in t.params if p.name in ("target", "env", "name", "tag")}
    if helps:
        deco.append("help=%r" % helps)
    for key, kinds in (("optional", ("opt",)), ("iterable", ("iter",)), ("incrementable", ("incr",))):
        ns = [p.name for p in t.params if p.kind in kinds]
        if ns:
            deco.append("%s=%r" % (key, ns))
    sig = ["c"] + [p.name if p.kind == "pos" else "%s=%s" % (p.name, p.default) for p in t.params]
    lines = ["@task(%s)" % ", ".join(deco) if deco else "@task",
             "def %s(%s):" % (t.name, ", ".join(sig))]
    if t.doc:
        lines.append("    %r" % t.doc)
    for p in t.params:
        if p.kind == "iter":
            lines.append("    for item in %s or []:" % p.name)
            lines.append("        c.run('echo item ' + shlex.quote(item), hide=True)")
        elif p.kind == "incr":
            lines.append("    if %s > 1:" % p.name)
            lines.append("        c.run('echo very verbose', hide=True)")
        elif p.kind in ("bool", "booltrue") and ("force" in p.name or "dry" in p.name):
            lines.append("    if %s:" % p.name)
            lines.append("        c.run('echo forced', hide=True)")
    for step in t.body:
        lines.extend(step)
    if t.autoprint:
        lines.append("    return %r" % ("%s done" % t.name))
    lines.append("    return None")
    return lines


HEADER = ["import io", "import shlex",
          "from invoke import task, call, Collection, Exit, Responder, FailingResponder",
          "from invoke.exceptions import CommandTimedOut, Failure", ""]


def gen_module(r, names):
    """Task specs of one module; pre/post point at tasks defined earlier."""
    specs = []
    for i, n in enumerate(names):
        t = TaskSpec(n)
        t.params = gen_params(r)
        t.doc = r.choice(DOCS)
        # a task with a positional parameter fails as a pre/post task (its
        # body misses the argument): few of them are picked
        earlier = [s for s in specs if not any(p.kind == "pos" for p in s.params) or r.random() < 0.15]
        if earlier and r.random() < 0.45:
            for e in r.sample(earlier, min(len(earlier), r.randint(1, 2))):
                simple = [p for p in e.params if p.kind in ("str", "int", "bool")]
                if simple and r.random() < 0.3:
                    p = r.choice(simple)
                    val = {"str": repr(r.choice(WORDS)), "int": str(r.randint(1, 5)), "bool": "True"}[p.kind]
                    t.pre.append("call(%s, %s=%s)" % (e.name, p.name, val))
                else:
                    t.pre.append(e.name)
        if earlier and r.random() < 0.2:
            t.post.append(r.choice(earlier).name)
        if r.random() < 0.15:
            t.aliases = [n[:2] + str(i)]
        t.autoprint = r.random() < 0.1
        t.body = [gen_step(r, t) for _ in range(pick(r, [(2, 1), (3, 2), (2, 3), (1, 4), (1, 5)]))]
        specs.append(t)
    if specs and r.random() < 0.3:
        r.choice(specs).default = True
    return specs


def module_text(specs, extra=()):
    names = set()
    lines = list(HEADER)
    for t in specs:
        names.add(t.name)
        # a pre entry is either a bare name or call(name, ...): keep those defined above
        t.pre = [p for p in t.pre if p.split("(")[-1].split(",")[0] in names]
        t.post = [p for p in t.post if p in names]
        lines.extend(task_source(t))
        lines.append("")
    lines.extend(extra)
    return "\n".join(lines) + "\n"


def to_yaml(d, ind=0):
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out.append(" " * ind + "%s:" % k)
            out.extend(to_yaml(v, ind + 2))
        elif isinstance(v, list):
            out.append(" " * ind + "%s:" % k)
            out.extend(" " * (ind + 2) + "- %s" % json.dumps(x) for x in v)
        elif isinstance(v, bool):
            out.append(" " * ind + "%s: %s" % (k, "true" if v else "false"))
        else:
            out.append(" " * ind + "%s: %s" % (k, json.dumps(v)))
    return out


def gen_config(r, level):
    d = {}
    if r.random() < 0.5:
        run = {}
        for k, vals in (("echo", [True, False]), ("warn", [True, False]), ("hide", [True, "out", "both", None]),
                        ("pty", [False, True]), ("shell", ["/bin/bash", "/bin/sh"])):
            if r.random() < 0.35:
                run[k] = r.choice(vals)
        if run:
            d["run"] = run
    if r.random() < 0.3:
        d["tasks"] = {"dedupe": r.random() < 0.6}
    if r.random() < 0.25:
        d["timeouts"] = {"command": r.choice([5, 30, 120])}
    if r.random() < 0.5:
        d["deploy"] = {"target": r.choice(WORDS[:6]), "hosts": r.sample(["web01", "web02", "db01"], 2)}
    if r.random() < 0.3:
        d["app"] = {"name": r.choice(["shop", "blog", "api"]), "port": r.choice([8000, 8080]),
                    "debug": r.random() < 0.5}
    if not d:
        d["%s_note" % level] = r.choice(WORDS)
    return d


def write_config(path_noext, d, fmt, broken=False):
    path = "%s.%s" % (path_noext, fmt)
    with open(path, "w") as fh:
        if fmt in ("yaml", "yml"):
            fh.write("\n".join(["# %s settings" % os.path.basename(path_noext)] + to_yaml(d)) + "\n")
        elif fmt == "json":
            json.dump(d, fh, indent=2)
        else:
            if broken:
                fh.write("import os\n")
            for k, v in d.items():
                fh.write("%s = %r\n" % (k, v))
    return path


# --------------------------------------------------------------------------
# One case.


def cancel_timers():
    """Cancels the command timers invoke left running. invoke 2.0.0's
    ``Local.stop`` does not call ``Runner.stop``, which cancels the timer
    ``start_timer`` made for a command with a timeout (``-T``,
    ``timeouts.command``, ``timeout=``): left alone, each fires after its
    command has ended and SIGKILLs a pid that may since have been reused."""
    n = 0
    for t in threading.enumerate():
        fn = getattr(t, "function", None)
        if isinstance(t, threading.Timer) and isinstance(getattr(fn, "__self__", None), invoke.runners.Runner):
            t.cancel()
            t.join()
            n += 1
    return n


class Sink(io.StringIO):
    """Where what invoke and the tasks print goes (kept short). Its fileno()
    is the process's fd 1: the child ``pty.fork`` makes sizes its terminal
    with ``ioctl(sys.stdout.fileno(), TIOCSWINSZ)`` before its ``execve``,
    and there fd 1 is the pty."""

    def fileno(self):
        return 1

    def write(self, s):
        if self.tell() > 1 << 16:
            self.seek(0)
            self.truncate()
        return super().write(s)


class Case:
    def __init__(self, r, root, idx, counts):
        self.r = r
        self.root = root
        self.idx = idx
        self.counts = counts
        self.proj = os.path.join(root, "proj")
        self.deep = os.path.join(self.proj, "sub", "deeper")
        self.etc = os.path.join(root, "etc")
        self.home = os.path.join(root, "home")
        for d in (self.deep, self.etc, self.home, os.path.join(root, "empty")):
            os.makedirs(d, exist_ok=True)
        self.modnames = []

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    # -- writing the project ------------------------------------------------
    def write_project(self):
        r = self.r
        self.prefix = "mytool" if r.random() < 0.1 else "invoke"
        self.dash = r.random() < 0.85
        self.coll_name = "tasks" if r.random() < 0.8 else r.choice(["ops", "jobs", "make_tasks"])
        self.coll_via = None
        if self.coll_name != "tasks":
            self.coll_via = r.choice(["flag", "user", "system"])
        names = r.sample(TASK_NAMES, r.randint(3, 7))
        specs = gen_module(r, names)
        extra = []
        self.explicit = r.random() < 0.5
        subs = []
        if self.explicit:
            free = [n for n in SUB_NAMES if n not in names]
            for sname in r.sample(free, pick(r, [(2, 0), (3, 1), (2, 2)])):
                modname = "%s_tasks" % sname
                sspecs = gen_module(r, r.sample([n for n in TASK_NAMES if n not in names], r.randint(2, 4)))
                sub_extra = []
                if r.random() < 0.3:
                    inner = "%s_extra" % sname
                    ispecs = gen_module(r, r.sample(TASK_NAMES, 2))
                    self.write_module(inner, module_text(ispecs))
                    sub_extra = ["import %s" % inner,
                                 "ns = Collection(%s)" % ", ".join(t.name for t in sspecs),
                                 "ns.add_collection(Collection.from_module(%s), name='extra')" % inner]
                self.write_module(modname, module_text(sspecs, sub_extra))
                subs.append((sname, modname))
            extra.extend("import %s" % m for _, m in subs)
            extra.append("ns = Collection(%s)" % ", ".join(t.name for t in specs))
            for sname, modname in subs:
                if r.random() < 0.5:
                    extra.append("ns.add_collection(Collection.from_module(%s), name=%r)" % (modname, sname))
                else:
                    extra.append("ns.add_collection(%s, name=%r)" % (modname, sname))
            if r.random() < 0.5:
                conf = gen_config(r, "collection")
                if r.random() < 0.05:
                    conf["run_echo"] = True  # clashes with run.echo: AmbiguousEnvVar
                extra.append("ns.configure(%r)" % conf)
        self.write_module(self.coll_name, module_text(specs, extra))
        # a second collection beside it, reached with -c
        if r.random() < 0.2:
            self.write_module("alt", module_text(gen_module(r, r.sample(TASK_NAMES, 2))))

    def write_module(self, name, text):
        with open(os.path.join(self.proj, name + ".py"), "w") as fh:
            fh.write(text)
        self.modnames.append(name)

    def write_configs(self):
        r = self.r
        p = self.prefix
        fmt = lambda: pick(r, [(4, "yaml"), (1, "yml"), (3, "json"), (2, "py")])  # noqa: E731
        if r.random() < 0.3 or self.coll_via == "system":
            d = gen_config(r, "system")
            if self.coll_via == "system":
                d.setdefault("tasks", {})["collection_name"] = self.coll_name
            write_config(os.path.join(self.etc, p), d, fmt())
        if r.random() < 0.4 or self.coll_via == "user":
            d = gen_config(r, "user")
            if self.coll_via == "user":
                d.setdefault("tasks", {})["collection_name"] = self.coll_name
            write_config(os.path.join(self.home, "." + p), d, fmt())
        if r.random() < 0.6 or not self.dash:
            d = gen_config(r, "project")
            if not self.dash:
                d.setdefault("tasks", {})["auto_dash_names"] = False
            f = fmt()
            write_config(os.path.join(self.proj, p), d, f, broken=f == "py" and r.random() < 0.1)
            if r.random() < 0.15:  # a second file: only the first suffix found counts
                write_config(os.path.join(self.proj, p), gen_config(r, "project"), "py")
        self.runtime = None
        if r.random() < 0.35:
            kind = pick(r, [(8, "ok"), (1, "missing"), (1, "unsupported")])
            base = os.path.join(self.root, "runtime")
            if kind == "ok":
                self.runtime = write_config(base, gen_config(r, "runtime"), fmt())
            elif kind == "missing":
                self.runtime = base + ".yaml"
            else:
                self.runtime = base + ".ini"
                with open(self.runtime, "w") as fh:
                    fh.write("[run]\necho = true\n")

    def set_env(self):
        r = self.r
        pre = self.prefix.upper() + "_"
        env = {}
        for var, vals, w in (("RUN_ECHO", ["1", "0", ""], 0.15), ("RUN_HIDE", ["both", "out"], 0.1),
                             ("RUN_WARN", ["1", "0"], 0.1), ("TIMEOUTS_COMMAND", ["9", "60"], 0.1),
                             ("TASKS_DEDUPE", ["", "1"], 0.08), ("DEPLOY_TARGET", ["prod", "canary"], 0.15),
                             ("APP_PORT", ["9000", "notanint"], 0.06), ("RUN_WATCHERS", ["x"], 0.03),
                             ("RUN_SHELL", ["/bin/sh"], 0.05)):
            if r.random() < w:
                env[pre + var] = r.choice(vals)
        if self.runtime and r.random() < 0.4:
            env["INVOKE_RUNTIME_CONFIG"] = self.runtime
            self.runtime_by_env = True
        else:
            self.runtime_by_env = False
        for k, v in env.items():
            os.environ[k] = v

    def config_class(self):
        case = self

        class CaseConfig(Config):
            prefix = case.prefix

            @staticmethod
            def global_defaults():
                d = Config.global_defaults()
                d["run"]["in_stream"] = False  # never read the generator's stdin
                return d

            def __init__(self, *a, **kw):
                kw.setdefault("system_prefix", case.etc + "/")
                kw.setdefault("user_prefix", case.home + "/.")
                super().__init__(*a, **kw)

        return CaseConfig

    # -- planning argv from the collection ----------------------------------
    def load_plan(self):
        """The case's collection as invoke builds it, and the parser contexts
        of its tasks (for argv planning and the bundled-namespace program)."""
        sys.path.insert(0, self.proj)
        try:
            spec = importlib.util.spec_from_file_location("_plan_%s" % self.coll_name,
                                                          os.path.join(self.proj, self.coll_name + ".py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self.collection = Collection.from_module(mod, auto_dash_names=self.dash)
            self.contexts = self.collection.to_contexts()
        finally:
            sys.path.remove(self.proj)
            for m in self.modnames:
                sys.modules.pop(m, None)

    def task_tokens(self, ctx):
        r = self.r
        toks = [ctx.name if not ctx.aliases or r.random() < 0.7 else r.choice(list(ctx.aliases))]
        args = list(ctx.args.values())
        r.shuffle(args)
        for a in args:
            longs = [n for n in a.names if len(n) > 1]
            shorts = [n for n in a.names if len(n) == 1]
            flag = "--" + longs[0] if not shorts or r.random() < 0.6 else "-" + shorts[0]
            if a.positional:
                if r.random() < 0.93:
                    toks.append(r.choice(WORDS[:8]))
                continue
            if r.random() < 0.45:
                continue
            if a.kind is bool:
                if a.default is True and r.random() < 0.6:
                    toks.append("--no-" + longs[0])
                else:
                    toks.append(flag)
            elif a.incrementable:
                if shorts and r.random() < 0.5:
                    toks.append("-" + shorts[0] * r.randint(2, 3))
                else:
                    toks.extend([flag] * r.randint(1, 3))
            elif a.kind is list:
                for _ in range(r.randint(1, 3)):
                    toks.extend([flag, r.choice(WORDS[:8])])
            elif a.optional:
                toks.append(flag)
                if r.random() < 0.5:
                    toks.append(r.choice(WORDS[:6]))
            else:
                val = str(r.randint(1, 20)) if a.kind is int else r.choice(WORDS)
                if a.kind is int and r.random() < 0.04:
                    val = "many"
                form = r.random()
                if form < 0.25:
                    toks.append("%s=%s" % (flag, val))
                elif form < 0.35 and flag.startswith("-") and not flag.startswith("--"):
                    toks.append(flag + val.replace(" ", "_"))
                else:
                    toks.extend([flag, val])
        # mistakes and extras
        x = r.random()
        if x < 0.04:
            toks.append("--bogus-flag")
        elif x < 0.07:
            toks.append(r.choice(["-e", "-w", "--help"]))
        elif x < 0.09 and args:
            a = r.choice(args)
            if a.takes_value and not a.positional:
                toks.append("--" + [n for n in a.names if len(n) > 1][0])
        return toks

    def core_flags(self, bundled):
        r = self.r
        toks = []
        for flag, w in (("-e", 0.15), ("--echo", 0.05), ("-w", 0.15), ("-p", 0.05), ("-R", 0.08), ("-d", 0.08),
                        ("--no-dedupe", 0.08), ("--write-pyc", 0.02)):
            if r.random() < w and not (bundled and flag == "--no-dedupe"):
                toks.append(flag)
        if r.random() < 0.12:
            toks.extend(["--hide", r.choice(["both", "out", "err", "stdout"])])
        if r.random() < 0.08:
            toks.extend(["-T", r.choice(["5", "30"])])
        if r.random() < 0.1:
            toks.append("-ew")
        if self.runtime and not self.runtime_by_env and r.random() < 0.7:
            toks.extend([r.choice(["-f", "--config"]), self.runtime])
        if not bundled and self.coll_via == "flag":
            toks.extend(r.choice([["-c", self.coll_name], ["--collection=%s" % self.coll_name]]))
        return toks

    def plan_argv(self, bundled):
        r = self.r
        binary = "mytool" if bundled else r.choice(["invoke", "inv"])
        argv = [binary] + self.core_flags(bundled)
        mode = pick(r, [(60, "tasks"), (8, "list"), (8, "help"), (2, "version"), (2, "script"),
                        (7, "complete"), (3, "none"), (4, "unknown"), (2, "badcoll"), (2, "missingpos")])
        self.count("argv:" + mode)
        ctxs = list(self.contexts)
        if mode == "tasks" or mode == "missingpos":
            for _ in range(pick(r, [(5, 1), (3, 2), (1, 3)])):
                argv.extend(self.task_tokens(r.choice(ctxs)))
            if r.random() < 0.06:
                argv.extend(["--", "echo", "remainder"])
        elif mode == "list":
            argv.append(r.choice(["--list", "-l"]))
            subs = sorted(self.collection.collections)
            if subs and r.random() < 0.5:
                argv.append(r.choice(subs))
            elif r.random() < 0.1:
                argv.append("nosuch")
            if r.random() < 0.4:
                argv.extend(["-F", r.choice(["flat", "nested", "json"])])
            if r.random() < 0.2:
                argv.extend(["-D", "1"])
        elif mode == "help":
            k = r.random()
            if k < 0.3:
                argv.append("--help")
            elif k < 0.6:
                argv.extend(["--help", r.choice(ctxs).name])
            elif k < 0.85:
                argv.extend([r.choice(ctxs).name, r.choice(["--help", "-h"])])
            else:
                argv.extend(["-h", "nosuch"])
        elif mode == "version":
            argv.append(r.choice(["--version", "-V"]))
        elif mode == "script":
            argv.extend(["--print-completion-script", r.choice(["bash", "zsh", "fish", "tcsh"])])
        elif mode == "complete":
            partial = [argv[0]]
            if r.random() < 0.7:
                partial.extend(self.task_tokens(r.choice(ctxs)))
                partial = partial[:r.randint(1, len(partial))]
            tail = r.choice(["-", "--", "--ta", "-e", "", "", "-f", "--no-", "--hide", "-T"])
            if tail:
                partial.append(tail)
            argv = argv + ["--complete", "--"] + partial
        elif mode == "unknown":
            argv.extend([r.choice(["nosuch", "buidl", "docs.nope"])] + r.choice([[], ["--force"]]))
        elif mode == "badcoll" and not bundled:
            argv.extend(["-c", "no_such_collection", ctxs[0].name])
        return argv

    # -- the invocations ----------------------------------------------------
    def run_program(self):
        r = self.r
        bundled = r.random() < 0.15
        argv = self.plan_argv(bundled)
        CaseConfig = self.config_class()
        if bundled:
            prog = Program(namespace=self.collection, version=r.choice(["1.4.2", None]), name="Mytool",
                           binary="mytool", binary_names=["mytool", "mt"], config_class=CaseConfig)
        else:
            prog = Program(version=invoke.__version__, binary="inv[oke]", binary_names=["invoke", "inv"],
                           config_class=CaseConfig)
        start = pick(r, [(6, self.proj), (2, self.deep), (1, os.path.join(self.root, "empty"))])
        if start != self.proj and r.random() < 0.4 and not bundled:
            argv[1:1] = ["-r", self.proj if r.random() < 0.8 else os.path.join(self.root, "empty")]
        os.chdir(start)
        how = pick(r, [(8, "list"), (1, "str"), (1, "none")])
        if how == "str" and all(" " not in a for a in argv):
            given = " ".join(argv)
        elif how == "none":
            sys.argv = list(argv)
            given = None
        else:
            given = argv
        exit_ = r.random() < 0.6
        try:
            prog.run(given, exit=exit_)
            self.count("program: returned")
        except SystemExit:
            self.count("program: exit")
        except Exception as e:  # noqa: BLE001 (what Program.run lets through)
            self.count("program: %s" % type(e).__name__)

    def run_executor(self):
        try:
            self._run_executor()
            self.count("executor: returned")
        except Exception as e:  # noqa: BLE001 (config loading and task errors)
            self.count("executor: %s" % type(e).__name__)

    def _run_executor(self):
        r = self.r
        CaseConfig = self.config_class()
        cfg = CaseConfig(project_location=self.proj,
                         runtime_path=self.runtime if self.runtime and r.random() < 0.5 else None,
                         overrides={"run": {"hide": True}, "tasks": {"dedupe": r.random() < 0.7}})
        cfg.load_project()
        cfg.load_runtime()
        ex = Executor(self.collection, cfg)
        calls = []
        for _ in range(r.randint(0, 3)):
            ctx = r.choice(self.contexts)
            if r.random() < 0.5:
                calls.append(ctx.name)
            else:
                kw = {}
                for a in ctx.args.values():
                    if a.positional:
                        kw[a.name] = r.choice(WORDS[:6])
                    elif a.kind is str and r.random() < 0.4:
                        kw[a.name] = r.choice(WORDS[:6])
                calls.append((ctx.name, kw))
        if calls and r.random() < 0.3:
            calls.append(calls[0])
        os.chdir(self.proj)
        ex.execute(*calls)

    def run_config(self):
        r = self.r
        CaseConfig = self.config_class()
        try:
            cfg = CaseConfig(lazy=r.random() < 0.5, overrides={"run": {"echo": True}} if r.random() < 0.3 else None)
            cfg.load_base_conf_files()
            cfg.set_project_location(self.proj)
            cfg.load_project(merge=r.random() < 0.5)
            if self.runtime:
                cfg.set_runtime_path(self.runtime)
                cfg.load_runtime()
            if r.random() < 0.5:
                cfg.load_collection(self.collection.configuration())
            cfg.load_shell_env()
            for _ in range(r.randint(1, 3)):
                k = r.random()
                if k < 0.4:
                    cfg.run.echo = not cfg.run.echo
                elif k < 0.6:
                    cfg["scratch"] = {"n": r.randint(1, 9)}
                elif k < 0.8:
                    cfg.pop(r.choice(["deploy", "app", "scratch", "timeouts"]), None)
                else:
                    cfg.update({"extra": r.choice(WORDS)})
            if r.random() < 0.5:
                cfg.clone().merge()
            self.count("config: ok")
        except Exception as e:  # noqa: BLE001
            self.count("config: %s" % type(e).__name__)

    def run(self):
        r = self.r
        self.write_project()
        self.write_configs()
        self.set_env()
        self.load_plan()
        for _ in range(pick(r, [(5, 1), (3, 2), (1, 3)])):
            k = pick(r, [(80, "program"), (10, "executor"), (6, "config")])
            getattr(self, "run_" + k)()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=800)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    warnings.simplefilter("ignore")
    for k in list(os.environ):
        if k.startswith(INVOKE_ENV):
            del os.environ[k]
    root_logger = logging.getLogger()
    root_logger.addHandler(logging.NullHandler())  # invoke's enable_logging() (-d) is then a no-op
    log = _capture.EventLog(invoke, out, logger_names=["invoke"])
    logging.getLogger("invoke").propagate = False
    work = _capture.work_dir("invoke")
    here = os.getcwd()
    base_path = list(sys.path)
    base_argv = list(sys.argv)
    real_out, real_err = sys.stdout, sys.stderr
    counts = {}
    failed = []

    def hook(args):  # a timer that fired as its command ended: ProcessLookupError
        k = "thread error: %s" % type(args.exc_value).__name__
        counts[k] = counts.get(k, 0) + 1
    threading.excepthook = hook
    t0 = time.time()
    main_pid = os.getpid()
    slow = []
    try:
        for i in range(a.cases):
            tc = time.time()
            r = random.Random("%d-%d" % (a.seed, i))
            root = os.path.join(work, "c%05d" % i)
            os.makedirs(root)
            sink = Sink()
            case = None
            log.case_id = "invoke-%05d" % i
            try:
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    case = Case(r, root, i, counts)
                    case.run()
            except Exception as e:  # noqa: BLE001 (a case that could not run: counted, the others go on)
                failed.append((i, repr(e)))
            finally:
                if os.getpid() != main_pid:  # a pty child that failed before its execve
                    os._exit(127)
                log.end_case()
                counts["timers cancelled"] = counts.get("timers cancelled", 0) + cancel_timers()
                sys.stdout, sys.stderr = real_out, real_err
                os.chdir(here)
                sys.path[:] = base_path
                for m in (case.modnames if case else []) + ["mod"]:
                    sys.modules.pop(m, None)  # the case's task modules, and a Python config file's
                sys.argv[:] = base_argv
                sys.dont_write_bytecode = True
                for k in list(os.environ):
                    if k.startswith(INVOKE_ENV) or k == "INVOKE_RUNTIME_CONFIG":
                        del os.environ[k]
                shutil.rmtree(root, ignore_errors=True)
                slow.append((time.time() - tc, i))
    finally:
        log.finish()
        os.chdir(here)
        shutil.rmtree(work, ignore_errors=True)
    for i, e in failed[:8]:
        print("case %d failed: %s" % (i, e), file=sys.stderr)
    print("slowest cases: %s" % ", ".join("%d (%.1fs)" % (i, t) for t, i in sorted(slow)[-5:]), file=sys.stderr)
    print("outcomes: %s" % dict(sorted(counts.items())), file=sys.stderr)
    print(log.summary(), "; %d cases failed" % len(failed), "in %.1fs" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
