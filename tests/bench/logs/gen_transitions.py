#!/usr/bin/python3
"""Event log of transitions (Debian python3-transitions 0.9.0), the
lightweight state machine library: one state machine's lifetime per case,
in this process.

    /usr/bin/python3 gen_transitions.py --out .deps/logs/transitions.csv.gz [--cases 300] [--seed 1]
    /usr/bin/python3 gen_transitions.py --repo     # prints the directory to index

Indexed: the installed ``transitions`` directory
(``/usr/lib/python3/dist-packages/transitions``: the core, the nesting,
locking, asyncio, state-mixin, markup, factory and diagram extensions, and
the ``.pyi`` stubs Debian ships beside them). The diagram extension
(``GraphMachine`` and its variants) is indexed but never run: it needs the
``graphviz`` or ``pygraphviz`` Python module even to build a machine
(without one, ``GraphMachine(...)`` raises "AGraph diagram requires
graphviz"), and Debian's packages of both depend on the graphviz binaries.

A case is one state machine's lifetime. It draws:

- the flavour: core ``Machine``, ``LockedMachine``, ``HierarchicalMachine``,
  ``LockedHierarchicalMachine``, ``AsyncMachine``,
  ``HierarchicalAsyncMachine``, or ``MarkupMachine`` /
  ``HierarchicalMarkupMachine`` (core and nested machines that also keep a
  markup dictionary, read now and then); sometimes decorated with
  ``add_state_features`` and state mixins of
  ``transitions.extensions.states``: ``Timeout`` (``timeout`` and
  ``on_timeout``), ``Volatile`` (a scratch object on the model while in the
  state), ``Retry`` (``retries`` and ``on_failure`` for reflexive
  re-entries), ``Error`` (``accepted`` final states; unaccepted states
  without exits raise) or ``Tags``; the asyncio flavours take
  ``AsyncTimeout`` and ``Tags`` instead;
- the machine's options: a name (none, the empty string, or a word such as
  ``door`` or ``order-1234``: transitions prefixes its messages with
  ``name + ": "``), ``queued`` (``True``, and ``'model'`` for the asyncio
  machines), ``send_event``, ``ignore_invalid_triggers`` (on the machine or
  on single states), ``auto_transitions`` (mostly on), a custom
  ``model_attribute``, ``ordered_transitions``, machine-level
  ``prepare_event``, ``before_state_change``, ``after_state_change``,
  ``finalize_event`` (some raising) and ``on_exception`` handlers (some
  raising themselves);
- the models: the machine as its own model (a subclass of the flavour with
  the callback methods), one model object, or several (some added later with
  an initial state of their own); model classes with ``on_enter_<state>`` /
  ``on_exit_<state>`` methods that transitions binds by name, and now and
  then an attribute that collides with a trigger, ``is_<state>``,
  ``may_<trigger>`` or ``to`` (the machine then skips the binding and logs
  it);
- 3-8 states (nested machines: 2-5 top-level states, compound states with
  2-3 children and an initial substate or none, parallel states whose
  regions are entered together, transitions declared inside a compound
  state, sometimes a whole child ``HierarchicalMachine`` embedded with a
  ``remap``), given as names, dicts or state objects, some with ``on_enter``
  / ``on_exit`` callbacks and mixin arguments;
- 3-8 triggers with 1-3 transitions each: sources that are states, lists or
  the ``*`` wildcard, destinations that are states, ``=`` (reflexive) or
  ``None`` (internal), ``conditions`` and ``unless`` that pass, fail, flip
  a coin or raise (also model attributes that are not callable), and
  ``prepare`` / ``before`` / ``after`` callbacks; most states left without
  a way out get one more transition; ``add_ordered_transitions`` in some
  cases.

Callbacks are given as model method names, plain functions, callable hook
objects, ``functools.partial`` objects, bound methods of a model, dotted
import paths (``__main__.audit_trail``) or, in a few cases, a name that
resolves to nothing. Per case, each callback name behaves as a no-op, a
callback that raises now and then, or one that fires another trigger on the
model (bounded per step); in the asyncio flavours many are coroutines.

Then 5-40 steps run, drawn with weights: valid triggers (through the model's
trigger method, ``model.trigger(name)``, ``machine.dispatch`` for all models
or ``machine.events[name].trigger(model)``, with or without arguments),
triggers that are not valid from the current state, unknown trigger names,
auto transitions ``to_<state>``, ``may_<trigger>`` checks (0.9.0 has them),
``model.to(path)`` in the synchronous nested machines (0.9.0's
``HierarchicalAsyncMachine`` inherits a ``to_state`` that never awaits its
transition, so the asyncio ones skip it), states, transitions and callbacks
added at run time (``add_states``, ``add_transition``,
``machine.on_enter_<state>(...)``), ``remove_transition``,
``add_ordered_transitions``, models added and removed, machine-level
callbacks replaced, waits that let timeout states fire, triggers fired from
a helper thread (locked flavours), markup reads, and in the asyncio
flavours a trigger left waiting in a callback that a newer trigger on the
same model cancels. Errors a step raises (``MachineError``,
``AttributeError``, callback failures) are caught and the case goes on.

Determinism: each case draws from ``random.Random`` seeded with
``<seed>-<case index>``, callbacks included, and runs alone. The threads
``Timeout`` states start (``threading.Timer``, looked up in the states
module) are replaced by a ``Timer`` subclass whose thread fires only when a
wait step of the case releases it, one timer at a time while the case
waits for it, so ``on_timeout`` never runs beside the case's own steps
(timers cancelled by leaving the state never fire; at the end of a case the
rest are cancelled and joined). Helper-thread triggers are joined before
the next step. The asyncio flavours run on an event loop with a virtual
clock (its selector advances the clock instead of sleeping), so
``AsyncTimeout`` tasks, sleeping callbacks and cancellations happen in the
same order every run. A seed thus gives the same activities apart from
timestamps and the addresses in the reprs of functions and partials that
transitions prints (``Executed callback '<function ... at 0x...>'``).

Capture: transitions logs through module loggers (``_LOGGER =
logging.getLogger(__name__)`` with a ``NullHandler``) in ``core.py``,
``extensions/nesting.py``, ``extensions/asyncio.py``,
``extensions/states.py`` and the diagram modules, calling them directly
with ``%``-style arguments, the machine's name prefix passed as the first
argument (``"%sEntering state %s. ..."``), two warnings built into a local
first (``msg = "%sCan't trigger event %s from state %s!" % ...``). No
function only forwards a message its caller hands it: ``Machine.callbacks``
logs its own ``Executed callback`` line, the ``Timeout``/``Retry`` mixins
theirs, so no wrapper is declared and ``code.wrapped`` is always 0.
The same template is logged at several sites, the one that runs chosen by
the case's flavour: state enter/exit and the transition steps
(``Initiating transition...``, ``Executed callbacks before conditions.``,
``Executed callback before/after transition.``) in ``core.py`` and again in
``extensions/asyncio.py``; ``Executed machine preparation callbacks before
conditions.`` and ``Executed machine finalize callbacks`` at four sites each
(core event, nested event or machine, asyncio event, nested asyncio event
or machine), the finalize-error line at three; the timeout lines in
``Timeout`` and ``AsyncTimeout``. The invalid-trigger warning (core:
``Can't trigger event X from state Y!``, nested: ``Can't trigger event 'X'
from state(s) Y!``) and the failed-condition line (core names the
condition, asyncio does not) differ between the variants.
``_capture.py``'s handler sits on the ``transitions`` logger (set to DEBUG,
not propagating) so every site can log; records from timer threads go to
the case that is open. Records logged outside the indexed directory are
dropped (there are none); so are cases with fewer than 3 events.
"""
import argparse
import asyncio
import contextvars
import functools
import inspect
import logging
import os
import random
import selectors
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import transitions  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(transitions.__file__)))
    sys.exit(0)

import transitions.extensions.states as tstates  # noqa: E402
from transitions import Machine, MachineError  # noqa: E402
from transitions.core import EventData  # noqa: E402
from transitions.extensions import HierarchicalMachine, LockedHierarchicalMachine, LockedMachine  # noqa: E402
from transitions.extensions.asyncio import AsyncMachine, AsyncTimeout, HierarchicalAsyncMachine  # noqa: E402
from transitions.extensions.markup import HierarchicalMarkupMachine, MarkupMachine  # noqa: E402
from transitions.extensions.states import Error, Retry, Tags, Timeout, Volatile, add_state_features  # noqa: E402

STATES = ["idle", "ready", "running", "paused", "stopped", "waiting", "loading", "open", "closed", "locked",
          "heating", "cooling", "sleeping", "charging", "failed", "done", "draft", "review", "published",
          "archived", "connecting", "connected", "offline", "standby", "armed", "alarm", "empty", "full",
          "green", "yellow", "red", "boot", "shutdown", "checkout", "shipped", "cancelled"]
TRIGGERS = ["start", "stop", "pause", "resume", "fail", "reset", "finish", "advance", "toggle", "open_door",
            "close_door", "lock", "unlock", "heat", "cool", "wake", "sleep", "submit", "approve", "reject",
            "publish", "archive", "connect", "disconnect", "arm", "disarm", "trip", "fill", "drain", "tick",
            "ship", "cancel", "boot_up", "power_off", "retry", "refresh"]
NAMES = ["door", "turnstile", "order-1234", "Player", "traffic light", "job#7", "conn", "pump", "elevator",
         "vending", "matter", "kettle", "doc:42", "Workflow", "session"]
MODEL_CLASSES = ["Door", "Order", "Lamp", "Robot", "Account", "Document", "Connection", "Pump", "Task",
                 "Heater", "Player", "Ticket"]
MACHINE_CLASSES = ["DoorMachine", "OrderFlow", "Turnstile", "JobRunner", "LampController"]
CB_NAMES = ["log_step", "notify", "audit", "refresh_cache", "persist", "emit_metric", "flush", "reload",
            "beep", "record", "send_mail", "update_ui", "charge", "release_lock"]
COND_NAMES = ["is_ready", "has_credit", "is_valid", "can_proceed", "check_quota", "is_authorized",
              "within_limits", "has_power", "is_empty", "is_stale"]
PROP_CONDS = ["enabled", "armed_flag", "online"]
HOOK_NAMES = ["metrics", "tracer", "journal", "webhook", "bell"]
CHILD_STATES = ["fetch", "parse", "store", "verify", "notify", "done"]

HOLD = contextvars.ContextVar("hold", default=None)  # gate a held asyncio trigger's callbacks wait on
CURRENT = [None]  # the running Case (for module-level callbacks reached through a dotted path)


class CallbackError(RuntimeError):
    """What the generator's failing callbacks raise."""


# ---------------------------------------------------------------------------
# timers and clocks
# ---------------------------------------------------------------------------
class GatedTimer(threading.Timer):
    """The Timer transitions' Timeout state starts: a real thread that fires
    only once the case releases it (a wait step), while the case waits for
    it; cancelled timers never fire."""

    registry = []
    lock = threading.Lock()

    def __init__(self, interval, function, args=None, kwargs=None):
        super().__init__(interval, function, args=args, kwargs=kwargs)
        self.gate = threading.Event()
        self.born = time.monotonic()
        with GatedTimer.lock:
            GatedTimer.registry.append(self)

    def run(self):
        self.gate.wait()
        left = self.interval - (time.monotonic() - self.born)
        if left > 0:
            self.finished.wait(left)
        if not self.finished.is_set():
            self.function(*self.args, **self.kwargs)
        self.finished.set()

    @classmethod
    def pending(cls):
        with cls.lock:
            return [t for t in cls.registry if not t.gate.is_set() and not t.finished.is_set()]

    @classmethod
    def release_all(cls, fire):
        """End of a case: cancel (unless fire) and join every timer left."""
        with cls.lock:
            timers, cls.registry = cls.registry, []
        for t in timers:
            if not fire:
                t.cancel()
            t.gate.set()
        for t in timers:
            t.join(5)


tstates.Timer = GatedTimer


class _VirtualSelector:
    """A selector that does not sleep: a select that would wait advances the
    loop's virtual clock by the timeout instead."""

    def __init__(self, clock):
        self._real = selectors.DefaultSelector()
        self._clock = clock

    def select(self, timeout=None):
        if timeout is None:
            return self._real.select(0.05)
        if timeout > 0:
            self._clock[0] += timeout
        return self._real.select(0)

    def __getattr__(self, name):
        return getattr(self._real, name)


class VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop on a virtual clock: timers fire in order, without waiting."""

    def __init__(self):
        self._vclock = [1000.0]
        super().__init__(_VirtualSelector(self._vclock))

    def time(self):
        return self._vclock[0]


async def maybe(x):
    if inspect.isawaitable(x):
        return await x
    return x


def drive(coro):
    """Runs a coroutine that never suspends (the script of a synchronous machine)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("synchronous case suspended")


def flat(state):
    if isinstance(state, (list, tuple)):
        out = []
        for s in state:
            out.extend(flat(s))
        return out
    return [state.name if hasattr(state, "name") else state]


# module-level callbacks, reached through a dotted path ("__main__.audit_trail")
def audit_trail(*args, **kwargs):
    case = CURRENT[0]
    if case is not None:
        case.calls += 1


def stamp(*args, **kwargs):
    case = CURRENT[0]
    if case is not None:
        case.calls += 1
        if case.r.random() < case.raise_p / 2:
            raise CallbackError("stamp failed")


class Hook:
    """A callable object with a readable repr (a metrics sink, a webhook...)."""

    def __init__(self, case, name, is_async):
        self.case = case
        self.name = name
        self.is_async = is_async

    def __call__(self, *args, **kwargs):
        if self.is_async:
            return self.case.acb("hook:" + self.name, None, args)
        return self.case.cb("hook:" + self.name, None, args)

    def __repr__(self):
        return "Hook(%r)" % self.name


class Scratch:
    """The object a Volatile state puts on its model."""

    def __init__(self):
        self.items = []


class ModelBase:
    _case = None

    def __init__(self, label):
        self.label = label
        for p in PROP_CONDS:
            setattr(self, p, self._case.prop_values[p])

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.label)


# ---------------------------------------------------------------------------
# one case
# ---------------------------------------------------------------------------
FLAVOURS = [(22, "core"), (8, "locked"), (22, "nested"), (5, "locked_nested"), (13, "async"),
            (11, "nested_async"), (4, "markup"), (3, "markup_nested")]
BASES = {"core": Machine, "locked": LockedMachine, "nested": HierarchicalMachine,
         "locked_nested": LockedHierarchicalMachine, "async": AsyncMachine,
         "nested_async": HierarchicalAsyncMachine, "markup": MarkupMachine,
         "markup_nested": HierarchicalMarkupMachine}


class Case:
    def __init__(self, r):
        self.r = r
        self.flavour = pick(r, FLAVOURS)
        self.is_async = self.flavour in ("async", "nested_async")
        self.nested = self.flavour in ("nested", "locked_nested", "nested_async", "markup_nested")
        self.locked = self.flavour in ("locked", "locked_nested")
        self.calls = 0
        self.errors = {}
        self.raise_p = 0.0 if r.random() < 0.55 else r.choice([0.05, 0.1, 0.2, 0.35])
        self.budget = 0
        self.machine = None
        self.models = []
        self.removed = []
        self.state_names = []
        self.label_n = 0
        self.prop_values = {p: r.random() < 0.7 for p in PROP_CONDS}

    # -- callbacks -------------------------------------------------------------
    def plan_callbacks(self):
        r = self.r
        self.cb_kind = {}
        for n in CB_NAMES + HOOK_NAMES:
            self.cb_kind[n] = pick(r, [(7, "noop"), (2 if self.raise_p else 0, "raise"), (1.5, "chain")])
        self.cond_kind = {}
        for n in COND_NAMES:
            self.cond_kind[n] = pick(r, [(4, "yes"), (2, "no"), (3, "coin"), (0.4 if self.raise_p else 0, "raise")])
        # which model methods are coroutines (asyncio flavours)
        self.async_names = set()
        if self.is_async:
            for n in CB_NAMES + COND_NAMES + HOOK_NAMES:
                if r.random() < 0.5:
                    self.async_names.add(n)
        self.hooks = {n: Hook(self, n, n in self.async_names) for n in HOOK_NAMES}
        self.free_funcs = {}
        for n in CB_NAMES[:6]:
            self.free_funcs[n] = self._free_func(n)
        self.missing_ok = r.random() < 0.06

    def _free_func(self, name):
        case = self
        if name in self.async_names:
            async def afunc(*args, **kwargs):
                return await case.acb(name, None, args)
            afunc.__name__ = afunc.__qualname__ = "on_" + name
            return afunc

        def func(*args, **kwargs):
            return case.cb(name, None, args)
        func.__name__ = func.__qualname__ = "on_" + name
        return func

    def _tagged(self, tag, *args, **kwargs):
        """The target of functools.partial callbacks."""
        kind = tag.split(":")[0]
        if self.is_async and kind in self.async_names:
            return self.acb(kind, None, args)
        return self.cb(kind, None, args)

    def _model_of(self, model, args):
        if model is not None:
            return model
        if args and isinstance(args[0], EventData):
            return args[0].model
        return self.models[0] if self.models else None

    def _chain_target(self, model):
        trigs = [t for t in self.user_triggers() if t in self.machine.events]
        if not trigs or model is None:
            return None
        return self.r.choice(trigs)

    def _act(self, name, model, args):
        """What callback name does: raise, or name the model and trigger it
        fires next (None, None: nothing)."""
        kind = self.cb_kind.get(name.split(":")[-1], "noop")
        if kind == "raise" and self.r.random() < self.raise_p:
            raise CallbackError("%s failed" % name)
        if kind == "chain" and self.budget > 0 and self.r.random() < 0.5:
            self.budget -= 1
            model = self._model_of(model, args)
            t = self._chain_target(model)
            if t is not None:
                return model, t
        return None, None

    def cb(self, name, model, args):
        self.calls += 1
        model, t = self._act(name, model, args)
        return model.trigger(t) if t is not None else None

    async def acb(self, name, model, args):
        self.calls += 1
        gate = HOLD.get()
        if gate is not None:
            await gate.wait()
        elif self.r.random() < 0.3:
            await asyncio.sleep(self.r.choice([0, 0.001, 0.005]))
        model, t = self._act(name, model, args)
        return await model.trigger(t) if t is not None else None

    def cond(self, name):
        kind = self.cond_kind[name]
        if kind == "yes":
            return True
        if kind == "no":
            return False
        if kind == "raise" and self.r.random() < 0.5:
            raise CallbackError("condition %s could not be evaluated" % name)
        return self.r.random() < 0.6

    async def acond(self, name):
        if self.r.random() < 0.2:
            await asyncio.sleep(0)
        return self.cond(name)

    def cb_ref(self, allow_missing=True):
        r = self.r
        k = r.random()
        name = r.choice(CB_NAMES)
        if k < 0.45:
            return name
        if k < 0.58:
            return self.free_funcs[r.choice(sorted(self.free_funcs))]
        if k < 0.68:
            return functools.partial(self._tagged, "%s:%d" % (name, r.randint(1, 9)))
        if k < 0.78:
            return self.hooks[r.choice(HOOK_NAMES)]
        if k < 0.86 and self.models:
            return getattr(r.choice(self.models), name)
        if k < 0.97 or not (allow_missing and self.missing_ok):
            return "%s.%s" % (__name__, r.choice(["audit_trail", "stamp"]))
        return "missing_handler"

    def cond_ref(self):
        r = self.r
        k = r.random()
        name = r.choice(COND_NAMES)
        if k < 0.55:
            return name
        if k < 0.7:
            return r.choice(PROP_CONDS)
        if k < 0.85:
            return functools.partial(self._cond_partial, name)
        case = self
        if name in self.async_names:
            async def acheck(*args, **kwargs):
                return await case.acond(name)
            acheck.__name__ = acheck.__qualname__ = "check_" + name
            return acheck

        def check(*args, **kwargs):
            return case.cond(name)
        check.__name__ = check.__qualname__ = "check_" + name
        return check

    def _cond_partial(self, name, *args, **kwargs):
        if name in self.async_names:
            return self.acond(name)
        return self.cond(name)

    def refs(self, maker, lo=0, hi=2, p=0.5):
        if self.r.random() >= p:
            return None
        n = self.r.randint(max(lo, 1), hi)
        out = [maker() for _ in range(n)]
        return out[0] if n == 1 and self.r.random() < 0.5 else out

    # -- classes ---------------------------------------------------------------------
    def methods(self, extra_names):
        case = self
        d = {"_case": case}

        def make_cb(name):
            if name in case.async_names:
                async def m(self, *args, **kwargs):
                    return await case.acb(name, self, args)
            else:
                def m(self, *args, **kwargs):
                    return case.cb(name, self, args)
            m.__name__ = m.__qualname__ = name
            return m

        def make_cond(name):
            if name in case.async_names:
                async def m(self, *args, **kwargs):
                    return await case.acond(name)
            else:
                def m(self, *args, **kwargs):
                    return case.cond(name)
            m.__name__ = m.__qualname__ = name
            return m

        for n in CB_NAMES:
            d[n] = make_cb(n)
        for n in COND_NAMES:
            d[n] = make_cond(n)
        for n in extra_names:
            d[n] = make_cb(n if n in CB_NAMES else "record")
        d["handle_error"] = make_cb("handle_error")
        d["finalize"] = make_cb("finalize")
        return d

    def dynamic_names(self):
        """on_enter_<state>/on_exit_<state> methods and colliding attributes."""
        r = self.r
        names = []
        for s in self.state_names:
            if r.random() < 0.15:
                names.append(("on_enter_" if r.random() < 0.6 else "on_exit_") + s)
        if r.random() < 0.12 and self.trig_names:
            names.append(r.choice(self.trig_names))
        if r.random() < 0.08 and self.state_names:
            names.append("is_" + r.choice(self.state_names))
        if r.random() < 0.06 and self.trig_names:
            names.append("may_" + r.choice(self.trig_names))
        if self.nested and r.random() < 0.06:
            names.append("to")
        return names

    def new_model(self):
        self.label_n += 1
        return self.model_cls("m%d" % self.label_n)

    # -- states ----------------------------------------------------------------------
    def feature_kwargs(self, name):
        r = self.r
        kw = {}
        f = self.features
        if (Timeout in f or AsyncTimeout in f) and r.random() < 0.3:
            kw["timeout"] = r.choice([0.005, 0.01, 0.02, 0.04])
            others = [s for s in self.top_names if s != name] or [name]
            to = self.auto_name(r.choice(others)) if self.auto else r.choice(CB_NAMES)
            kw["on_timeout"] = pick(r, [(4, to), (2, self.cb_ref(False)), (1, [r.choice(CB_NAMES), to])])
        if Volatile in f and r.random() < 0.3:
            kw["volatile"] = Scratch
            kw["hook"] = r.choice(["scope", "scratch", "tmp"])
        if Retry in f and r.random() < 0.3:
            kw["retries"] = r.randint(1, 3)
            others = [s for s in self.top_names if s != name] or [name]
            kw["on_failure"] = self.auto_name(r.choice(others)) if self.auto else r.choice(CB_NAMES)
            self.retry_states.append(name)
        if Error in f and r.random() < 0.4:
            kw["accepted"] = r.random() < 0.5
        if (Tags in f or Error in f) and r.random() < 0.3:
            kw["tags"] = r.sample(["final", "busy", "safe", "user"], r.randint(1, 2))
        return kw

    def auto_name(self, state):
        if self.model_attr == "state":
            return "to_" + state
        return "to_%s_%s" % (self.model_attr, state)

    def state_spec(self, name, flat_name):
        r = self.r
        spec = {"name": name}
        if r.random() < 0.35:
            spec["on_enter"] = self.refs(self.cb_ref, p=1.0)
        if r.random() < 0.3:
            spec["on_exit"] = self.refs(self.cb_ref, p=1.0)
        if r.random() < 0.08:
            spec["ignore_invalid_triggers"] = r.random() < 0.7
        spec.update(self.feature_kwargs(flat_name))
        return spec

    def core_states(self):
        r = self.r
        names = r.sample(STATES, r.randint(3, 8))
        self.top_names = list(names)
        out = []
        for n in names:
            spec = self.state_spec(n, n)
            k = r.random()
            if len(spec) == 1 and k < 0.5:
                out.append(n)
            elif k < 0.8 or self.flavour.startswith("markup"):
                out.append(spec)
            else:
                out.append(self.state_cls_of()(**spec))
        self.state_names = list(names)
        return out

    def state_cls_of(self):
        return self.mcls.state_cls

    def nested_states(self, depth, prefix, count, in_parallel=False, names=None):
        r = self.r
        names = names or r.sample(STATES, count)
        out = []
        for n in names:
            path = prefix + [n]
            gname = "_".join(path)
            self.state_names.append(gname)
            spec = self.state_spec(n, gname)
            kind = "leaf"
            if depth < 2:
                kind = pick(r, [(6, "leaf"), (2.5, "compound"), (1 if depth == 0 else 0.3, "parallel")])
            if kind == "compound":
                children = self.nested_states(depth + 1, path, r.randint(2, 3))
                spec["children"] = children
                if in_parallel or r.random() < 0.75:
                    spec["initial"] = r.choice(children)["name"]
                if r.random() < 0.25:
                    a, b = r.sample([c["name"] for c in children], 2)
                    spec["transitions"] = [{"trigger": r.choice(["step", "next_step", "back"]), "source": a,
                                            "dest": b, "after": self.refs(self.cb_ref, p=0.5)}]
            elif kind == "parallel":
                spec["parallel"] = self.nested_states(depth + 1, path, r.randint(2, 3), in_parallel=True)
            out.append(spec)
        return out

    def child_machine(self):
        """A HierarchicalMachine embedded as a state's children, with a remap."""
        r = self.r
        names = r.sample(CHILD_STATES[:-1], 3) + ["done"]
        cls = HierarchicalAsyncMachine if self.is_async else HierarchicalMachine
        child = cls(states=names, initial=names[0], auto_transitions=False, model=None,
                    transitions=[["step", names[0], names[1]], ["step", names[1], names[2]],
                                 ["step", names[2], "done"], ["abort", "*", "done"]])
        return child

    # -- transitions ----------------------------------------------------------------------
    def transitions_spec(self):
        r = self.r
        trigs = r.sample(TRIGGERS, r.randint(3, 8))
        self.trig_names = list(trigs)
        out = []
        for t in trigs:
            for _ in range(pick(r, [(5, 1), (3, 2), (1, 3)])):
                out.append(self.one_transition(t))
        for s in self.retry_states:
            out.append({"trigger": "retry", "source": s, "dest": "="})
            if "retry" not in self.trig_names:
                self.trig_names.append("retry")
        # most dead ends get a way out (a state, or in nested machines one of its parents, as a source)
        sources = set()
        for spec in out:
            src = spec["source"] if isinstance(spec, dict) else spec[1]
            if src == "*":
                return out
            sources.update(src if isinstance(src, list) else [src])
        for s in self.state_names:
            path = s.split("_")
            if any("_".join(path[:i]) in sources for i in range(1, len(path) + 1)):
                continue
            if r.random() < 0.85:
                out.append({"trigger": r.choice(trigs), "source": s, "dest": r.choice(self.state_names),
                            "after": self.refs(self.cb_ref, p=0.3)})
                sources.add(s)
        return out

    def one_transition(self, trig):
        r = self.r
        names = self.state_names
        k = r.random()
        if k < 0.12:
            src = "*"
        elif k < 0.3:
            src = r.sample(names, min(len(names), r.randint(2, 3)))
        else:
            src = r.choice(names)
        k = r.random()
        if k < 0.1:
            dest = "="
            if self.nested and src == "*" and r.random() < 0.5:
                src = r.choice(names)
        elif k < 0.18:
            dest = None
        else:
            dest = r.choice(names)
        spec = {"trigger": trig, "source": src, "dest": dest}
        for key, maker, p in (("conditions", self.cond_ref, 0.35), ("unless", self.cond_ref, 0.15),
                              ("prepare", self.cb_ref, 0.2), ("before", self.cb_ref, 0.35),
                              ("after", self.cb_ref, 0.4)):
            v = self.refs(maker, p=p)
            if v is not None:
                spec[key] = v
        if r.random() < 0.2:
            return [spec.pop("trigger"), spec.pop("source"), spec.pop("dest")] + \
                [spec.get(k) for k in ("conditions", "unless", "before", "after", "prepare")]
        return spec

    # -- build -----------------------------------------------------------------------
    def build(self):
        r = self.r
        base = BASES[self.flavour]
        self.features = []
        if self.is_async:
            if r.random() < 0.4:
                # Tags first: behind AsyncTimeout, NestedAsyncState would come before it in the MRO
                self.features = ([Tags] if r.random() < 0.4 else []) + [AsyncTimeout]
        elif not self.flavour.startswith("markup") and r.random() < 0.5:
            pool = [Timeout, Volatile, Retry]
            self.features = [f for f in pool if r.random() < 0.45]
            k = r.random()
            if k < 0.3:
                self.features.append(Error)
            elif k < 0.5:
                self.features.append(Tags)
            if not self.features:
                self.features = [Timeout]
        self.mcls = type("Case" + base.__name__, (base,), {})
        if self.features:
            self.mcls = add_state_features(*self.features)(self.mcls)
        self.auto = r.random() < 0.85
        self.model_attr = "state"
        if r.random() < 0.08 and not self.nested:
            self.model_attr = r.choice(["status", "phase"])
        self.retry_states = []
        self.plan_callbacks()
        # models first need the state and trigger names: draw the structure
        if self.nested:
            self.top_names = r.sample(STATES, r.randint(2, 5))  # also the timeout and failure targets
            self.state_names = []
            states = self.nested_states(0, [], 0, names=self.top_names)
            if r.random() < 0.15:
                cname = r.choice([n for n in ("job", "pipeline", "sub") if n not in self.top_names])
                remap = {"done": r.choice(self.top_names)}
                child = self.child_machine()
                states.append({"name": cname, "children": child, "remap": remap})
                self.top_names.append(cname)
                self.state_names.append(cname)
                self.state_names.extend(cname + "_" + c for c in child.states if c != "done")
        else:
            states = self.core_states()
        trans = self.transitions_spec()
        extra = self.extra = self.dynamic_names()
        mode = pick(r, [(3, "self"), (5, "one"), (2, "many"), (0.6, "later")])
        self.as_self = mode == "self"
        if self.as_self:
            d = self.methods(extra)
            d["__repr__"] = lambda s: "<%s>" % type(s).__name__
            d.update(self.prop_values)
            self.model_cls = None
            cls = type(r.choice(MACHINE_CLASSES), (self.mcls,), d)
        else:
            self.model_cls = type(r.choice(MODEL_CLASSES), (ModelBase,), self.methods(extra))
            cls = self.mcls
        kw = {}
        name_k = r.random()
        if name_k < 0.45:
            kw["name"] = r.choice(NAMES)
        elif name_k < 0.55:
            kw["name"] = ""
        if r.random() < 0.7 or not self.nested:
            initial = r.choice(self.top_names if self.nested else self.state_names)
            if self.nested and r.random() < 0.2:
                initial = r.choice(self.state_names)
            kw["initial"] = initial
        queued = r.random() < 0.25
        if queued:
            kw["queued"] = "model" if self.is_async and r.random() < 0.4 else True
        if r.random() < 0.3:
            kw["send_event"] = True
        if r.random() < 0.3:
            kw["ignore_invalid_triggers"] = True
        if not self.auto:
            kw["auto_transitions"] = False
        if self.model_attr != "state":
            kw["model_attribute"] = self.model_attr
        if r.random() < 0.06 and len(self.state_names) >= 2:
            kw["ordered_transitions"] = True
        for key, p in (("prepare_event", 0.15), ("before_state_change", 0.2), ("after_state_change", 0.25),
                       ("finalize_event", 0.2)):
            if r.random() < p:
                kw[key] = self.refs(self.cb_ref, p=1.0)
        if r.random() < 0.35:
            kw["on_exception"] = pick(r, [(3, "handle_error"), (1, self.hooks["journal"]),
                                          (1, [self.free_funcs["log_step"], "handle_error"])])
        if self.locked and r.random() < 0.3:
            kw["machine_context"] = [threading.RLock()]
        later = []
        if self.as_self:
            model = Machine.self_literal
        elif mode == "one":
            model = self.new_model()
        elif mode == "many":
            model = [self.new_model() for _ in range(r.randint(2, 4))]
        else:
            model = None
            later = [self.new_model() for _ in range(r.randint(1, 3))]
        self.machine = cls(model=model, states=states, transitions=trans, **kw)
        if self.as_self:
            self.models = [self.machine]
        else:
            self.models = list(self.machine.models)
        for m in later:
            self.add_model(m)
        if self.nested:
            self.state_names = self.machine.get_nested_state_names()
        else:
            self.state_names = list(self.machine.states)
        if r.random() < 0.12 and len(self.state_names) >= 2:
            self.ordered()

    def add_model(self, m):
        r = self.r
        init = None
        if r.random() < 0.4:
            init = r.choice(self.state_names)
        self.machine.add_model(m, initial=init) if init else self.machine.add_model(m)
        self.models.append(m)

    def ordered(self):
        r = self.r
        kw = {}
        if r.random() < 0.5:
            kw["trigger"] = r.choice(["next_state", "cycle", "go_on"])
        if r.random() < 0.3:
            kw["loop"] = False
        if r.random() < 0.2:
            kw["loop_includes_initial"] = False
        if r.random() < 0.3:
            kw["conditions"] = self.cond_ref()
        if r.random() < 0.3:
            kw["after"] = self.cb_ref()
        if r.random() < 0.3:
            kw["states"] = r.sample(self.state_names, min(len(self.state_names), r.randint(2, 4)))
        self.machine.add_ordered_transitions(**kw)
        t = kw.get("trigger", "next_state")
        if t not in self.trig_names:
            self.trig_names.append(t)

    # -- helpers for steps ---------------------------------------------------------------------
    def state_of(self, model):
        return getattr(model, self.model_attr, None)

    def triggers_from(self, model):
        try:
            return sorted(set(self.machine.get_triggers(*flat(self.state_of(model)))))
        except Exception:  # noqa: BLE001 (a model left in a removed state...)
            return []

    def user_triggers(self):
        return [t for t in self.trig_names]

    def args(self):
        r = self.r
        k = r.random()
        if k < 0.6:
            return (), {}
        if k < 0.8:
            return (r.randint(1, 99),), {}
        return (), {r.choice(["amount", "user", "reason"]): r.choice([3, "bob", "timeout", 12.5])}

    def note(self, e):
        key = type(e).__name__
        if os.environ.get("GEN_DEBUG") and not isinstance(e, (MachineError, CallbackError)):
            key = "%s: %s" % (key, str(e)[:100])
        self.errors[key] = self.errors.get(key, 0) + 1

    async def fire(self, thunk, hold=None):
        """Runs one trigger (sync: at once; asyncio: as a task of its own, in a
        fresh context so that transitions can cancel it)."""
        self.budget = 3
        if not self.is_async:
            return thunk()
        ctx = contextvars.Context()
        if hold is not None:
            ctx.run(HOLD.set, hold)
        loop = asyncio.get_running_loop()
        task = loop.create_task(maybe(thunk()), context=ctx)
        if hold is not None:
            return task
        return await task

    def pick_model(self):
        r = self.r
        if self.removed and r.random() < 0.05:
            return r.choice(self.removed)
        return r.choice(self.models) if self.models else None

    # -- steps -----------------------------------------------------------------------
    async def step(self):
        r = self.r
        model = self.pick_model()
        acts = [(10, "valid"), (2.5, "invalid"), (0.8, "unknown"), (2 if self.auto else 0, "auto"),
                (1.8, "may"), (0.6, "add_state"), (0.7, "add_transition"), (0.35, "remove_transition"),
                (0.2, "ordered"), (0.4, "add_model"), (0.3 if len(self.models) > 1 else 0, "remove_model"),
                (0.4, "callbacks"), (0.3, "state_callback")]
        if len(self.models) > 1:
            acts.append((1.2, "dispatch"))
        if self.nested and not self.is_async:
            # HierarchicalAsyncMachine.to_state is not a coroutine in 0.9.0: it never awaits the transition
            acts.append((1.2, "to"))
        if self.locked:
            acts.append((2, "thread"))
        if self.flavour.startswith("markup"):
            acts.append((0.5, "markup"))
        if self.is_async:
            acts.append((1.5, "cancel"))
            if self.features:
                acts.append((2, "wait"))
        elif GatedTimer.pending():
            acts.append((4, "wait"))
        act = pick(r, acts)
        if model is None and act in ("valid", "invalid", "unknown", "auto", "may", "to", "thread", "cancel"):
            act = "add_model"
        try:
            await self.do(act, model)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as e:  # noqa: BLE001 (MachineError, AttributeError, failing callbacks...)
            self.note(e)
        return act

    async def do(self, act, model):
        r = self.r
        m = self.machine
        a, kw = self.args()
        if act in ("valid", "invalid", "auto", "thread", "cancel"):
            valid = self.triggers_from(model)
            user = [t for t in valid if not t.startswith("to_")]
            auto = [t for t in valid if t.startswith("to_")]
            if act == "auto":
                pool = auto or user
            elif act == "invalid":
                pool = [t for t in m.events if t not in valid and not t.startswith("to_")] or \
                    [t for t in m.events if t not in valid]
            else:
                pool = user or auto
            if not pool:
                pool = list(m.events) or ["start"]
            trig = r.choice(sorted(pool))
            if act == "thread":
                return self.in_thread(lambda: getattr(model, trig)(*a, **kw))
            if act == "cancel":
                return await self.cancel_step(model, trig, valid)
            how = pick(r, [(6, "method"), (2, "trigger"), (0.4 if not self.nested else 0, "event")])
            if how == "method" and hasattr(model, trig):
                return await self.fire(lambda: getattr(model, trig)(*a, **kw))
            if how == "event" and trig in m.events:
                return await self.fire(lambda: m.events[trig].trigger(model, *a, **kw))
            return await self.fire(lambda: model.trigger(trig, *a, **kw))
        if act == "unknown":
            bogus = r.choice(["explode", "fly", "teleport", "frobnicate", "to_nowhere"])
            return await self.fire(lambda: model.trigger(bogus, *a, **kw))
        if act == "may":
            trig = r.choice(sorted(set(self.user_triggers()) | set(list(m.events)[:3])))
            f = getattr(model, "may_" + trig, None)
            if f is None:
                return None
            return await self.fire(lambda: f(*a, **kw))
        if act == "dispatch":
            trig = r.choice(self.user_triggers())
            return await self.fire(lambda: m.dispatch(trig, *a, **kw))
        if act == "to":
            dest = r.choice(self.state_names)
            return await self.fire(lambda: model.to(dest, *a, **kw))
        if act == "wait":
            return await self.wait()
        if act == "add_state":
            return self.add_state()
        if act == "add_transition":
            spec = self.one_transition(r.choice(self.trig_names + [r.choice(TRIGGERS)]))
            if isinstance(spec, list):
                m.add_transition(*spec)
                t = spec[0]
            else:
                m.add_transition(**spec)
                t = spec["trigger"]
            if t not in self.trig_names:
                self.trig_names.append(t)
            return None
        if act == "remove_transition":
            trig = r.choice(self.trig_names)
            k = r.random()
            if k < 0.4:
                m.remove_transition(trig)
            elif k < 0.8:
                m.remove_transition(trig, source=r.choice(self.state_names))
            else:
                m.remove_transition(trig, dest=r.choice(self.state_names))
            if trig not in m.events and trig in self.trig_names and len(self.trig_names) > 1:
                self.trig_names.remove(trig)
            return None
        if act == "ordered":
            return self.ordered()
        if act == "add_model":
            if self.as_self and r.random() < 0.5:
                return None
            if self.model_cls is None:
                self.model_cls = type(r.choice(MODEL_CLASSES), (ModelBase,), self.methods(self.extra))
            if self.removed and r.random() < 0.3:
                mod = self.removed.pop()
                return self.add_model(mod)
            return self.add_model(self.new_model())
        if act == "remove_model":
            mod = r.choice(self.models)
            m.remove_model(mod)
            self.models.remove(mod)
            self.removed.append(mod)
            return None
        if act == "callbacks":
            which = r.choice(["prepare_event", "before_state_change", "after_state_change", "finalize_event",
                              "on_exception"])
            if which == "on_exception":
                m.on_exception = r.choice([[], "handle_error", [self.hooks["journal"]]])
            else:
                setattr(m, which, self.refs(self.cb_ref, p=0.8) or [])
            return None
        if act == "state_callback":
            st = r.choice(self.state_names)
            kind = r.choice(["enter", "exit"])
            ref = self.cb_ref(False)
            if self.nested or r.random() < 0.5:
                if self.nested:
                    getattr(m, "on_" + kind)(st, ref)
                else:
                    m.get_state(st).add_callback(kind, ref)
            else:
                getattr(m, "on_%s_%s" % (kind, st))(ref)
            return None
        if act == "markup":
            mk = m.markup
            return len(mk.get("states", []))
        return None

    def add_state(self):
        r = self.r
        m = self.machine
        free = [s for s in STATES if s not in self.state_names]
        if not free:
            return None
        n = r.choice(free)
        if self.nested and r.random() < 0.4:
            parent = r.choice(self.top_names)
            full = parent + "_" + n
            m.add_states(full, on_enter=self.refs(self.cb_ref, p=0.3))
        elif r.random() < 0.5:
            full = n
            m.add_states(n, on_enter=self.refs(self.cb_ref, p=0.4), on_exit=self.refs(self.cb_ref, p=0.3),
                         ignore_invalid_triggers=True if r.random() < 0.1 else None)
        else:
            full = n
            m.add_states(self.state_spec(n, n))
        if self.nested:
            self.state_names = m.get_nested_state_names()
        else:
            self.state_names = list(m.states)
        # and a way in
        trig = r.choice(self.trig_names + ["goto_" + n])
        m.add_transition(trig, r.choice(self.state_names), full, after=self.refs(self.cb_ref, p=0.3))
        if trig not in self.trig_names:
            self.trig_names.append(trig)
        return None

    def in_thread(self, thunk):
        """A trigger fired from a helper thread (through the machine's lock), joined."""
        self.budget = 3
        box = {}

        def work():
            try:
                box["v"] = thunk()
            except Exception as e:  # noqa: BLE001
                box["e"] = e
        t = threading.Thread(target=work, name="helper")
        t.start()
        t.join(10)
        if "e" in box:
            raise box["e"]
        return box.get("v")

    async def cancel_step(self, model, trig, valid):
        """A trigger left waiting in one of its callbacks, then a newer
        trigger on the same model (which cancels it when it passes its
        conditions)."""
        r = self.r
        gate = asyncio.Event()
        t1 = await self.fire(lambda: getattr(model, trig)() if hasattr(model, trig) else model.trigger(trig),
                             hold=gate)
        for _ in range(8):
            await asyncio.sleep(0)
        pool = [t for t in valid if t != trig] or valid or list(self.machine.events)
        t2 = r.choice(sorted(pool))
        try:
            await self.fire(lambda: model.trigger(t2))
        finally:
            gate.set()
            try:
                await t1
            except asyncio.CancelledError:
                pass
            except Exception as e:  # noqa: BLE001
                self.note(e)

    async def wait(self):
        if self.is_async:
            await asyncio.sleep(self.r.choice([0.01, 0.03, 0.06]))
            for _ in range(5):
                await asyncio.sleep(0)
            return None
        for t in GatedTimer.pending():
            t.gate.set()
            t.join(10)
        return None

    # -- lifetime ----------------------------------------------------------------------
    async def script(self):
        r = self.r
        self.build()
        for _ in range(r.randint(5, 40)):
            await self.step()
        # the end: sometimes let the remaining timeouts fire
        if r.random() < 0.3:
            await self.wait()

    async def amain(self):
        try:
            await self.script()
        finally:
            me = asyncio.current_task()
            rest = [t for t in asyncio.all_tasks() if t is not me]
            for t in rest:
                t.cancel()
            if rest:
                await asyncio.gather(*rest, return_exceptions=True)

    def run(self):
        CURRENT[0] = self
        try:
            if self.is_async:
                loop = VirtualLoop()
                try:
                    loop.run_until_complete(self.amain())
                    loop.run_until_complete(loop.shutdown_asyncgens())
                finally:
                    loop.close()
            else:
                drive(self.script())
        finally:
            GatedTimer.release_all(fire=False)
            CURRENT[0] = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    log = _capture.EventLog(transitions, a.out, logger_names=["transitions"])
    top = logging.getLogger("transitions")
    top.setLevel(logging.DEBUG)
    top.propagate = False
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    thread_errors = {}

    def hook(args):
        k = "%s: %s" % (args.exc_type.__name__, args.exc_value)
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback)
        thread_errors[k] = thread_errors.get(k, 0) + 1
    threading.excepthook = hook
    failed = []
    errors = {}
    flav = {}
    t0 = time.time()
    try:
        for i in range(a.cases):
            r = random.Random("%d-%d" % (a.seed, i))
            log.case_id = "transitions-%05d" % i
            case = None
            try:
                case = Case(r)
                flav[case.flavour] = flav.get(case.flavour, 0) + 1
                case.run()
                for k, v in case.errors.items():
                    errors[k] = errors.get(k, 0) + v
            except Exception as e:  # noqa: BLE001 (a case that could not run: counted, the others go on)
                failed.append((i, case.flavour if case else "?", repr(e)))
            finally:
                log.end_case()
    finally:
        log.finish()
    for i, fl, e in failed[:8]:
        print("case %d (%s) failed: %s" % (i, fl, e), file=sys.stderr)
    print("flavours: %s; step errors caught: %s; timer-thread errors: %s"
          % (dict(sorted(flav.items())), dict(sorted(errors.items())), thread_errors or "none"), file=sys.stderr)
    print(log.summary(), "; %d cases failed" % len(failed), "in %.1fs" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
