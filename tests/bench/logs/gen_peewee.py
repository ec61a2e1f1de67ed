#!/usr/bin/python3
"""Event log of peewee (Debian python3-peewee 3.14.10), a small ORM, and
its ``playhouse`` extensions, each case against SQLite in this process.

    /usr/bin/python3 gen_peewee.py --out .deps/logs/peewee.csv.gz [--cases 600] [--seed 1] [--jobs 2]
    /usr/bin/python3 gen_peewee.py --repo     # prints the directory to index

Indexed: ``<deps>/src`` (``--deps``, default ``.deps/corpus/peewee``), which
``--repo`` fills with a copy of Debian's ``peewee.py`` (a single module) and
of its ``playhouse`` package beside it (``.py`` files only: the C
extensions ``_sqlite_ext`` and ``_sqlite_udf`` run, not indexed).  The code
runs from Debian's own files, which the copy repeats: ``code.filepath`` is
``src/peewee.py``, ``src/playhouse/pool.py``...  The Postgres, MySQL,
CockroachDB, apsw, SQLCipher and Flask modules are indexed, not run (no
server, no driver).

What peewee logs: every statement, as the tuple ``(sql, params)`` handed to
``logger.debug`` by ``Database.execute_sql`` before it runs (one line of
``peewee.py``: no literal of the code is in the message, only the SQL that
the query builder made and the parameters); the connection pool's debug
lines (``peewee.pool``: a connection created, returned, found closed or
stale, none available) and the queue database's writer thread
(``peewee.sqliteq``: queries received, pause and unpause, shutdown,
objects it cannot handle).  ``playhouse.migrate``, ``reflection``,
``shortcuts``, ``kv``, ``dataset``, ``signals`` and ``sqlite_changelog`` log
nothing of their own: their statements reach ``execute_sql``.
``apsw_ext.py`` makes the same tuple call in its own ``execute_sql``
(indexed, not run: apsw is not installed).

A case is one database lifetime.  The case draws the database: a plain
``SqliteDatabase`` in memory or in a file of the case's temp dir (with or
without pragmas, ``autoconnect``, a busy timeout), ``SqliteExtDatabase`` or
``CSqliteExtDatabase`` (JSON and regexp functions, FTS5, commit hooks,
online backups), a pool (``PooledSqliteDatabase``, its ``SqliteExt`` and
``CSqliteExt`` variants, or a subclass that refuses (and closes) a
connection handed back inside a transaction) with a random
``max_connections``, stale timeout and wait timeout, ``SqliteQueueDatabase``
(a writer thread serializing writes; the case waits for its DDL through a
checkpoint), a ``ReconnectMixin`` database retrying locked writes, a
database made by ``playhouse.db_url.connect`` from a URL, or one initialized
late (``SqliteDatabase(None)`` and ``init``, ``DatabaseProxy``). Models are
made for the case, on a base with a table-name prefix and legacy or
snake-case names drawn per case, from 1-3 of seven domains (at most 2 on the
queue database): a blog (users, posts, threaded comments with a
self-referential key, followers with a unique pair index, tags through a
many-to-many model), a shop (decimal prices, unique SKUs, orders and lines,
a hybrid property), a category tree, a library (a ``DeferredForeignKey``
closing a cycle between authors and books, loans), sensor readings (window
functions), a ledger of accounts on ``playhouse.signals`` whose handlers
write an audit table (and veto some deletes), and notes (JSON fields and an
FTS5 index on the extension databases, ``LIKE`` searches and a compressed
field elsewhere), most with some seed rows.  Then 3-12 steps: creating and
dropping tables (``safe`` or not), inserts (single, ``insert_many`` chunked,
``bulk_create``, ``on_conflict`` ignore, replace and upsert,
``insert_from``), selects (joins, subqueries, aggregates with ``HAVING``,
window functions, recursive and plain CTEs, unions, ``prefetch``, lazy
foreign keys read one by one, pagination, ``exists``, ``count``,
``dicts``/``tuples``/``namedtuples``), ``get``, ``get_or_none``,
``get_by_id``, ``get_or_create`` (missing rows raising ``DoesNotExist``),
updates and deletes (``delete_instance(recursive=True)``), transactions
(nested ``atomic``, savepoints, rollbacks by exception or by hand,
``manual_commit``), ``playhouse.migrate`` operations (add, drop, rename
columns, add and drop indexes, add or drop ``NOT NULL``, rename tables,
change a column type; some leave the models out of date, so later queries
fail), ``model_to_dict``/``dict_to_model``/``update_model_from_dict``,
``playhouse.reflection`` (models generated from the schema and queried),
``playhouse.kv``, ``playhouse.dataset`` (tables grown by inserts, frozen to
JSON or CSV and thawed), ``playhouse.sqlite_changelog`` triggers, pragmas
and introspection (``get_tables``, ``get_indexes``, ``get_columns``,
``get_foreign_keys``), attached databases, models bound to a second database
for a copy, user functions and collations, raw SQL (some with syntax
errors), integrity errors (duplicates, ``NOT NULL``, foreign keys with
``foreign_keys`` on), a file locked by another connection, a closed database
(without ``autoconnect``, or reconnected in memory: the tables are gone) and
tables that are missing.  Pools get steps of their own: connections held in
threads until ``max_connections`` is exceeded (failing at once, or waiting
until a holder lets go or the wait times out), stale connections, a raw
connection closed under the pool, ``close_idle``, ``close_stale``,
``close_all``, ``manual_close``, ``connection_context``; queue databases get
pause and unpause (twice, and writes while paused), stop and start, an
object the writer does not know and ``atomic`` (unsupported). The case ends
by closing the database (``close_all``, ``stop``), sometimes after dropping
the tables.

Capture: ``_capture.py``'s handler on the ``peewee`` logger, whose tree
holds ``peewee.pool`` and ``peewee.sqliteq``, at DEBUG, each record with
its true call site.  Cases run ``--jobs`` at a time (2: they use the CPU),
each in a process of its own (forks of the generator, each running one
case after another, a fresh one every 40 cases), so every record of a
process belongs to its open case, the writer thread's and the pool
holders' included (joined before the case ends); the rows go back to the
main process, which writes the cases in order.  Records whose source lies
outside the indexed directory are dropped and counted (none are expected:
only peewee and playhouse log to these loggers).  Each case is given up
after 120 s.

Determinism: each case draws from its own generator (``<seed>-<i>``) and
its data (names, dates, amounts) from it, and the threads of a case take
turns, so two runs with one seed give the same emitters in the same
order, except where a pool waits for a connection (the number of "No
connection available" lines of a wait, stale connections found by
timing), and where the queue database's writer and the reading thread log
side by side (a few records in a thousand).  Messages differ more: they
hold the pool's connection keys (``id()`` of the connection), savepoint
names (peewee draws them from ``uuid4``), the reprs of ``memoryview``
parameters (``playhouse.kv`` pickles its values) and of the queue's
cursors, temp paths (attached databases), and ``playhouse.dataset`` adds
the new columns of a row in set order, which varies with Python's hash
seed.  A case takes no further step once it has logged 110 records.

No wrappers: ``execute_sql`` is the emitter of the statement lines (it
runs the statement after logging it), and the pool and the queue writer
call their loggers directly.
"""
import argparse
import contextlib
import datetime
import decimal
import filecmp
import logging
import multiprocessing
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import peewee  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DIST = os.path.dirname(os.path.realpath(peewee.__file__))
PEEWEE_PY = os.path.realpath(peewee.__file__)
PLAYHOUSE = os.path.join(DIST, "playhouse")
INDEXED = "src"  # the copy's last component, the first of code.filepath


def prepare_repo(deps):
    """Copy peewee.py and playhouse's .py files into <deps>/src; return it."""
    dst = os.path.join(deps, INDEXED)
    os.makedirs(dst, exist_ok=True)
    target = os.path.join(dst, "peewee.py")
    if not (os.path.isfile(target) and filecmp.cmp(PEEWEE_PY, target, shallow=False)):
        shutil.copyfile(PEEWEE_PY, target)
    return _capture.copy_packages(DIST, ["playhouse"], dst)


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--cases", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2,
                    help="cases run side by side, each in a process (they use the CPU)")
    ap.add_argument("--deps", default=os.path.join(TOP, ".deps", "corpus", "peewee"))
    ap.add_argument("--repo", action="store_true")
    return ap.parse_args()


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(prepare_repo(parse_args().deps))
    sys.exit(0)

from peewee import (JOIN, SQL, BooleanField, Case as SqlCase, CharField, DatabaseProxy,  # noqa: E402
                    DateField, DateTimeField, DecimalField, DeferredForeignKey, DoesNotExist,
                    FloatField, ForeignKeyField, IntegerField, IntegrityError, InterfaceError,
                    ManyToManyField, Model, OperationalError, PeeweeException, SqliteDatabase,
                    TextField, Value, Window, chunked, fn, prefetch)
from playhouse import db_url, signals  # noqa: E402
from playhouse.fields import CompressedField  # noqa: E402
from playhouse.hybrid import hybrid_property  # noqa: E402
from playhouse.kv import KeyValue  # noqa: E402
from playhouse.migrate import SqliteMigrator, migrate  # noqa: E402
from playhouse.pool import (MaxConnectionsExceeded, PooledCSqliteExtDatabase,  # noqa: E402
                            PooledSqliteDatabase, PooledSqliteExtDatabase)
from playhouse.reflection import Introspector  # noqa: E402
from playhouse.shortcuts import ReconnectMixin, dict_to_model, model_to_dict, update_model_from_dict  # noqa: E402
from playhouse.sqlite_ext import (CSqliteExtDatabase, FTS5Model, JSONField, RowIDField,  # noqa: E402
                                  SearchField, SqliteExtDatabase)
from playhouse.sqliteq import SqliteQueueDatabase  # noqa: E402

try:
    from playhouse.dataset import DataSet
except ImportError:  # playhouse.dataset imports nothing outside the stdlib; kept safe anyway
    DataSet = None
try:
    from playhouse.sqlite_changelog import ChangeLog
except ImportError:
    ChangeLog = None

CAPTURED = ["peewee"]
PEEWEE_LOGGERS = ("peewee", "peewee.pool", "peewee.sqliteq")

# data the cases draw from
FIRST = ["ada", "bob", "cyd", "dee", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou", "max",
         "ned", "oli", "pam", "quin", "ray", "sue", "tom", "uma", "vic", "wes", "xia", "yan", "zoe"]
WORDS = ["sqlite", "query", "index", "python", "window", "join", "cursor", "schema", "backup", "pool",
         "migration", "trigger", "vacuum", "journal", "commit", "rollback", "savepoint", "tuple",
         "release", "benchmark", "weekend", "garden", "coffee", "river", "mountain", "piano", "orbit"]
PRODUCTS = ["widget", "gadget", "sprocket", "gizmo", "doohickey", "flange", "bracket", "valve",
            "gasket", "rotor", "bearing", "spindle", "lever", "hinge", "coupler"]
CATEGORIES = ["root", "books", "fiction", "poetry", "science", "physics", "biology", "music", "jazz",
              "blues", "garden", "tools", "seeds", "kitchen", "knives", "pans", "outdoor", "tents"]
TITLES = ["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch", "Persuasion", "Solaris", "Kindred",
          "Nostromo", "Rebecca", "Walden", "Lolita", "Hamlet", "Candide", "Ivanhoe"]
SENSORS = ["kitchen", "attic", "garage", "cellar", "porch", "office", "greenhouse"]
STATUSES = ["new", "paid", "shipped", "cancelled", "returned"]
# a case takes no further step once it has logged this many records
BUDGET = 110
STEP_ERRORS = (PeeweeException, sqlite3.Error, ValueError, TypeError, KeyError, AttributeError,
               NotImplementedError, MaxConnectionsExceeded)


class StepFailed(Exception):
    """Raised by a step to roll back the transaction it runs in."""


# ---------------------------------------------------------------------------
# capture
# ---------------------------------------------------------------------------
class PeeweeLog(_capture.EventLog):
    """EventLog over peewee.py and playhouse/, named as in the indexed copy."""

    def _rel(self, path):
        rp = self._realpath_cache.get(path)
        if rp is None:
            rp = os.path.realpath(path)
            self._realpath_cache[path] = rp
        if rp == PEEWEE_PY or rp.startswith(PLAYHOUSE + os.sep):
            return rp, INDEXED + "/" + os.path.relpath(rp, DIST).replace(os.sep, "/")
        return rp, None


class OutsideCounter(logging.Filter):
    """Counts the records emitted outside peewee and playhouse (the capture drops them)."""

    def __init__(self, log):
        super().__init__()
        self.log = log
        self.n = 0

    def filter(self, record):
        if self.log.case_id is not None and self.log._rel(record.pathname)[1] is None:
            self.n += 1
        return True


# ---------------------------------------------------------------------------
# models: one base per case, domains on it
# ---------------------------------------------------------------------------
def snake(name):
    return peewee.make_snake_case(name)


class Domain:
    """A set of models of one application area, with the steps that use them."""
    name = "?"
    ops = ()

    def __init__(self, case, base):
        self.case = case
        self.r = case.r
        self.db = case.db
        self.models = self.define(base)

    def define(self, base):
        raise NotImplementedError

    def create(self, safe=True):
        self.db.create_tables(self.models, safe=safe)

    def drop(self, safe=True):
        self.db.drop_tables(self.models, safe=safe)

    def seed(self):
        pass

    def ids(self, model, limit=None):
        q = model.select(model._meta.primary_key).order_by(model._meta.primary_key)
        if limit:
            q = q.limit(limit)
        return [x for (x,) in q.tuples()]

    def some(self, seq, k):
        seq = list(seq)
        return self.r.sample(seq, min(k, len(seq)))

    def op(self):
        name = pick(self.r, self.ops)
        getattr(self, name)()
        return name


class Blog(Domain):
    name = "blog"
    ops = [(3, "signup"), (4, "write_posts"), (3, "timeline"), (2, "leaderboard"), (2, "prefetch_feed"),
           (2, "lazy_authors"), (2, "follow"), (2, "thread"), (3, "tagging"), (1, "delete_user"),
           (2, "publish"), (2, "ranking"), (2, "paginate"), (1, "union_names"), (1, "comment_tree_cte")]

    def define(self, base):
        class User(base):
            username = CharField(unique=True, max_length=40)
            email = CharField(null=True, index=True)
            joined = DateTimeField()
            karma = IntegerField(default=0)

        class Tag(base):
            name = CharField(unique=True)

        class Post(base):
            author = ForeignKeyField(User, backref="posts", on_delete="CASCADE")
            title = CharField()
            body = TextField(default="")
            published = BooleanField(default=False, index=True)
            created = DateTimeField()
            tags = ManyToManyField(Tag, backref="posts")

        class Comment(base):
            post = ForeignKeyField(Post, backref="comments", on_delete="CASCADE")
            author = ForeignKeyField(User, backref="comments", null=True)
            parent = ForeignKeyField("self", null=True, backref="replies")
            text = TextField()
            created = DateTimeField()

        class Follow(base):
            follower = ForeignKeyField(User, backref="following")
            followee = ForeignKeyField(User, backref="followers")

            class Meta:
                indexes = ((("follower", "followee"), True),)

        self.User, self.Tag, self.Post, self.Comment, self.Follow = User, Tag, Post, Comment, Follow
        self.PostTag = Post.tags.get_through_model()
        return [User, Tag, Post, self.PostTag, Comment, Follow]

    def seed(self):
        self.signup(n=self.r.randint(3, 6))
        self.write_posts()

    def signup(self, n=None):
        r = self.r
        for _ in range(n or r.randint(1, 4)):
            name = r.choice(FIRST) + str(r.randint(1, 30))
            try:
                if r.random() < 0.3:
                    self.User.get_or_create(username=name, defaults={"joined": self.case.when(),
                                                                     "email": name + "@example.org"})
                else:
                    self.User.create(username=name, email=name + "@example.org" if r.random() < 0.7 else None,
                                     joined=self.case.when())
            except IntegrityError:
                self.case.note_error("IntegrityError")

    def write_posts(self):
        r = self.r
        users = self.ids(self.User)
        if not users:
            raise StepFailed("no users")
        rows = [{"author": r.choice(users), "title": " ".join(r.sample(WORDS, 3)).title(),
                 "body": " ".join(r.choice(WORDS) for _ in range(r.randint(2, 8))),
                 "published": r.random() < 0.5, "created": self.case.when()}
                for _ in range(r.randint(2, 12))]
        how = pick(r, [(3, "many"), (2, "chunked"), (2, "bulk"), (2, "one")])
        if how == "many":
            self.Post.insert_many(rows).execute()
        elif how == "chunked":
            with self.case.tx():
                for batch in chunked(rows, r.randint(2, 4)):
                    self.Post.insert_many(batch).execute()
        elif how == "bulk":
            self.Post.bulk_create([self.Post(**row) for row in rows], batch_size=r.choice([None, 3, 5]))
        else:
            for row in rows[:5]:
                self.Post.create(**row)

    def timeline(self):
        name = self.User.select(self.User.username).order_by(self.User.id).limit(1).scalar()
        q = (self.Post.select(self.Post, self.User).join(self.User)
             .where((self.User.username == (name or "nobody")) | (self.Post.published == True))  # noqa: E712
             .order_by(self.Post.created.desc()).limit(self.r.randint(3, 10)))
        for p in q:
            p.author.username
        if self.r.random() < 0.5:
            self.User.get(self.User.username == self.r.choice(FIRST) + "-missing")

    def leaderboard(self):
        n = fn.COUNT(self.Post.id)
        q = (self.User.select(self.User.username, n.alias("n")).join(self.Post, JOIN.LEFT_OUTER)
             .group_by(self.User.username).having(n >= self.r.randint(0, 2)).order_by(n.desc()))
        list(q.dicts())

    def prefetch_feed(self):
        users = self.User.select().order_by(self.User.username).limit(5)
        for u in prefetch(users, self.Post.select().where(self.Post.published == True), self.Comment):  # noqa: E712
            for p in u.posts:
                len(p.comments)

    def lazy_authors(self):
        # the N+1 pattern: one query for the posts, one per author read
        for p in self.Post.select().order_by(self.Post.id.desc()).limit(self.r.randint(2, 6)):
            p.author.username

    def follow(self):
        r = self.r
        users = self.ids(self.User)
        if len(users) < 2:
            raise StepFailed("too few users")
        for _ in range(r.randint(1, 4)):
            a, b = r.sample(users, 2)
            try:
                self.Follow.create(follower=a, followee=b)
            except IntegrityError:
                self.case.note_error("IntegrityError")
        who = r.choice(users)
        sub = self.Follow.select(self.Follow.follower).where(self.Follow.followee == who)
        list(self.User.select().where(self.User.id.in_(sub)))
        self.User.get_by_id(who).following.count()

    def thread(self):
        r = self.r
        posts = self.ids(self.Post, 20)
        if not posts:
            raise StepFailed("no posts")
        post = r.choice(posts)
        parent = None
        for _ in range(r.randint(1, 5)):
            c = self.Comment.create(post=post, parent=parent, text=r.choice(WORDS), created=self.case.when(),
                                    author=r.choice([None] + self.ids(self.User, 3)))
            parent = c if r.random() < 0.6 else parent
        self.Comment.select().where(self.Comment.post == post).count()

    def comment_tree_cte(self):
        C = self.Comment
        roots = C.select(C.id, C.parent, Value(0).alias("depth")).where(C.parent.is_null()).cte(
            "thread", recursive=True, columns=("id", "parent_id", "depth"))
        CA = C.alias()
        rec = CA.select(CA.id, CA.parent, (roots.c.depth + 1)).join(roots, on=(CA.parent == roots.c.id))
        cte = roots.union_all(rec)
        list(cte.select_from(cte.c.id, cte.c.depth).order_by(cte.c.depth, cte.c.id).tuples())

    def tagging(self):
        r = self.r
        for t in r.sample(WORDS, r.randint(1, 3)):
            self.Tag.insert(name=t).on_conflict_ignore().execute()
        posts = self.ids(self.Post, 10)
        if not posts:
            raise StepFailed("no posts")
        post = self.Post.get_by_id(r.choice(posts))
        tags = list(self.Tag.select().order_by(self.Tag.name).limit(3))
        post.tags.add(tags[:r.randint(1, 3)])
        if r.random() < 0.4:
            post.tags.add(tags[:1])  # the pair exists: IntegrityError
        list(post.tags)
        if r.random() < 0.3:
            post.tags.remove(tags[:1])
        if r.random() < 0.2:
            post.tags.clear()
        list(self.Post.select().join(self.PostTag).join(self.Tag).where(self.Tag.name.in_(WORDS[:8])))

    def delete_user(self):
        users = self.ids(self.User)
        if not users:
            raise StepFailed("no users")
        self.User.get_by_id(self.r.choice(users)).delete_instance(recursive=True)

    def publish(self):
        sub = self.User.select(self.User.id).where(self.User.karma >= 0)
        n = (self.Post.update(published=True)
             .where(self.Post.author.in_(sub) & (self.Post.published == False)).execute())  # noqa: E712
        self.User.update(karma=self.User.karma + 1).where(self.User.id.in_(
            self.Post.select(self.Post.author).where(self.Post.published == True))).execute()  # noqa: E712
        return n

    def ranking(self):
        rank = fn.ROW_NUMBER().over(partition_by=[self.Post.author], order_by=[self.Post.created.desc()])
        q = self.Post.select(self.Post.title, self.Post.author, rank.alias("rk"))
        sub = q.alias("ranked")
        list(self.Post.select(sub.c.title, sub.c.rk).from_(sub).where(sub.c.rk <= 2).tuples())

    def paginate(self):
        q = self.Post.select().order_by(self.Post.id)
        total = q.count()
        for page in range(1, min(3, total // 3 + 2)):
            list(q.paginate(page, 3).namedtuples())
        q.where(self.Post.title.contains(self.r.choice(WORDS))).exists()

    def union_names(self):
        a = self.User.select(self.User.username.alias("name")).where(self.User.karma > 0)
        b = self.Tag.select(self.Tag.name.alias("name"))
        list((a | b).order_by(SQL("name")).limit(10).tuples())


class Shop(Domain):
    name = "shop"
    ops = [(3, "stock"), (3, "order"), (2, "revenue"), (2, "best_sellers"), (2, "low_stock"), (1, "cancel"),
           (2, "customers"), (1, "order_totals_cte"), (1, "price_update"), (1, "status_case"),
           (1, "archive_orders")]

    def define(self, base):
        class Customer(base):
            email = CharField(unique=True)
            name = CharField()
            vip = BooleanField(default=False)

        class Product(base):
            sku = CharField(unique=True, max_length=16)
            name = CharField()
            price = DecimalField(max_digits=10, decimal_places=2)
            stock = IntegerField(default=0)

            @hybrid_property
            def value(self):
                return self.price * self.stock

        class Order(base):
            customer = ForeignKeyField(Customer, backref="orders")
            status = CharField(default="new", index=True)
            placed = DateTimeField()

        class OrderLine(base):
            order = ForeignKeyField(Order, backref="lines", on_delete="CASCADE")
            product = ForeignKeyField(Product, backref="lines")
            qty = IntegerField()

            class Meta:
                indexes = ((("order", "product"), True),)

        self.Customer, self.Product, self.Order, self.OrderLine = Customer, Product, Order, OrderLine
        return [Customer, Product, Order, OrderLine]

    def seed(self):
        self.stock(n=self.r.randint(4, 9))
        self.customers()

    def price(self):
        return decimal.Decimal(self.r.randint(99, 9999)) / 100

    def stock(self, n=None):
        r = self.r
        rows = [{"sku": "%s-%d" % (p[:3].upper(), r.randint(1, 20)), "name": p, "price": self.price(),
                 "stock": r.randint(0, 40)} for p in r.sample(PRODUCTS, n or r.randint(2, 5))]
        how = pick(r, [(3, "upsert"), (2, "ignore"), (1, "replace"), (1, "plain")])
        P = self.Product
        if how == "upsert":
            P.insert_many(rows).on_conflict(conflict_target=[P.sku],
                                            update={P.stock: P.stock + peewee.EXCLUDED.stock}).execute()
        elif how == "ignore":
            P.insert_many(rows).on_conflict_ignore().execute()
        elif how == "replace":
            P.replace_many(rows).execute()
        else:
            P.insert_many(rows).execute()  # a duplicate SKU fails it

    def customers(self):
        r = self.r
        for name in r.sample(FIRST, r.randint(1, 4)):
            self.Customer.get_or_create(email=name + "@shop.test", defaults={"name": name.title(),
                                                                             "vip": r.random() < 0.2})

    def order(self):
        r = self.r
        custs = self.ids(self.Customer)
        prods = list(self.Product.select().order_by(self.Product.id))
        if not custs or not prods:
            raise StepFailed("nothing to order")
        try:
            with self.case.tx():
                o = self.Order.create(customer=r.choice(custs), placed=self.case.when())
                for p in self.some(prods, r.randint(1, 4)):
                    qty = r.randint(1, 8)
                    self.OrderLine.create(order=o, product=p, qty=qty)
                    left = (self.Product.update(stock=self.Product.stock - qty)
                            .where((self.Product.id == p.id) & (self.Product.stock >= qty)).execute())
                    if not left:
                        raise StepFailed("out of stock: %s" % p.sku)
                if r.random() < 0.5:
                    o.status = "paid"
                    o.save()
        except StepFailed:
            self.case.note_error("rolled back")

    def revenue(self):
        total = fn.SUM(self.OrderLine.qty * self.Product.price)
        q = (self.Customer.select(self.Customer.name, total.alias("total"))
             .join(self.Order).join(self.OrderLine).join(self.Product)
             .where(self.Order.status != "cancelled")
             .group_by(self.Customer.name).having(total > self.r.randint(0, 50)).order_by(total.desc()))
        list(q.tuples())

    def best_sellers(self):
        sold = (self.OrderLine.select(self.OrderLine.product, fn.SUM(self.OrderLine.qty).alias("sold"))
                .group_by(self.OrderLine.product).alias("sold"))
        q = (self.Product.select(self.Product.name, sold.c.sold).join(sold, on=(self.Product.id == sold.c.product_id))
             .order_by(sold.c.sold.desc()).limit(3))
        list(q.dicts())

    def low_stock(self):
        P = self.Product
        list(P.select().where(P.stock < self.r.randint(3, 10)).order_by(P.stock))
        list(P.select(P.sku, P.value).where(P.value > 20).tuples())
        P.select(fn.MAX(P.price)).scalar()

    def cancel(self):
        orders = self.ids(self.Order)
        if not orders:
            raise StepFailed("no orders")
        o = self.Order.get_or_none(self.Order.id == self.r.choice(orders + [9999]))
        if o is None:
            raise StepFailed("no such order")
        with self.case.tx():
            for line in o.lines:
                self.Product.update(stock=self.Product.stock + line.qty).where(
                    self.Product.id == line.product_id).execute()
            self.Order.update(status="cancelled").where(self.Order.id == o.id).execute()

    def order_totals_cte(self):
        L, P = self.OrderLine, self.Product
        totals = (L.select(L.order, fn.SUM(L.qty * P.price).alias("amount")).join(P)
                  .group_by(L.order).cte("totals"))
        q = (self.Order.select(self.Order.id, self.Order.status, totals.c.amount)
             .join(totals, on=(self.Order.id == totals.c.order_id)).with_cte(totals)
             .order_by(totals.c.amount.desc()))
        list(q.tuples())

    def price_update(self):
        P = self.Product
        P.update(price=P.price * decimal.Decimal("1.05")).where(P.stock > 10).execute()
        p = P.get_or_none(P.sku == "NOPE-1")
        if p is None:
            P.get(P.name == self.r.choice(PRODUCTS))

    def status_case(self):
        O = self.Order
        rank = SqlCase(O.status, (("new", 1), ("paid", 2), ("shipped", 3)), 0)
        list(O.select(O.id, rank.alias("rank")).order_by(rank.desc(), O.id).limit(5).tuples())
        list(O.select(O.status, fn.COUNT(O.id)).group_by(O.status).tuples())

    def archive_orders(self):
        O = self.Order
        n = O.delete().where(O.status.in_(["cancelled", "returned"])).execute()
        self.OrderLine.delete().where(self.OrderLine.order.not_in(O.select(O.id))).execute()
        return n


class Tree(Domain):
    name = "tree"
    ops = [(3, "grow"), (2, "children"), (2, "descendants"), (2, "path_to_root"), (1, "move"),
           (1, "prune"), (1, "levels")]

    def define(self, base):
        class Category(base):
            name = CharField()
            parent = ForeignKeyField("self", null=True, backref="children", on_delete="CASCADE")

            class Meta:
                indexes = ((("parent", "name"), True),)

        self.Category = Category
        return [Category]

    def seed(self):
        self.grow(n=self.r.randint(4, 9))

    def grow(self, n=None):
        r = self.r
        C = self.Category
        ids = self.ids(C)
        for _ in range(n or r.randint(1, 4)):
            parent = r.choice(ids) if ids and r.random() < 0.85 else None
            try:
                c = C.create(name=r.choice(CATEGORIES), parent=parent)
                ids.append(c.id)
            except IntegrityError:
                self.case.note_error("IntegrityError")

    def node(self):
        ids = self.ids(self.Category)
        if not ids:
            raise StepFailed("empty tree")
        return self.Category.get_by_id(self.r.choice(ids))

    def children(self):
        n = self.node()
        for c in n.children.order_by(self.Category.name):
            c.children.count()

    def descendants(self):
        C = self.Category
        n = self.node()
        # depth-limited: a move may have made a cycle
        base = (C.select(C.id, C.name, C.parent, Value(0).alias("depth")).where(C.id == n.id)
                .cte("sub", recursive=True, columns=("id", "name", "parent_id", "depth")))
        CA = C.alias()
        rec = (CA.select(CA.id, CA.name, CA.parent, base.c.depth + 1).join(base, on=(CA.parent == base.c.id))
               .where(base.c.depth < 8))
        cte = base.union_all(rec)
        list(cte.select_from(cte.c.id, cte.c.name).order_by(cte.c.name).tuples())

    def path_to_root(self):
        n = self.node()
        seen = 0
        while n.parent_id is not None and seen < 10:
            n = n.parent  # one query per level
            seen += 1

    def move(self):
        a, b = self.node(), self.node()
        if a.id != b.id:
            a.parent = b
            a.save()

    def prune(self):
        n = self.node()
        if self.r.random() < 0.5:
            n.delete_instance(recursive=True)
        else:
            self.Category.delete().where(self.Category.parent == n.id).execute()

    def levels(self):
        C = self.Category
        P = C.alias("p")
        list(C.select(C.name, P.name.alias("parent_name")).join(P, JOIN.LEFT_OUTER, on=(C.parent == P.id))
             .order_by(C.id).limit(8).dicts())
        C.select().where(C.parent.is_null()).count()


class Library(Domain):
    name = "library"
    ops = [(3, "acquire"), (3, "borrow"), (2, "give_back"), (2, "overdue"), (1, "favorite"),
           (2, "by_author"), (1, "fk_constraint"), (1, "members")]

    def define(self, base):
        class Author(base):
            name = CharField(unique=True)
            favorite_book = DeferredForeignKey("Book", null=True, deferrable="INITIALLY DEFERRED")

        class Book(base):
            author = ForeignKeyField(Author, backref="books")
            title = CharField()
            isbn = CharField(unique=True)
            published = DateField(null=True)

        class Member(base):
            name = CharField()
            card = IntegerField(unique=True)

        class Loan(base):
            book = ForeignKeyField(Book, backref="loans")
            member = ForeignKeyField(Member, backref="loans")
            due = DateField()
            returned = DateField(null=True)

        self.Author, self.Book, self.Member, self.Loan = Author, Book, Member, Loan
        return [Author, Book, Member, Loan]

    def seed(self):
        self.acquire(n=self.r.randint(3, 7))
        self.members()

    def acquire(self, n=None):
        r = self.r
        for t in r.sample(TITLES, n or r.randint(1, 3)):
            name = r.choice(FIRST).title() + " " + r.choice(["Ames", "Berg", "Cole"])
            author, _ = self.Author.get_or_create(name=name)
            try:
                self.Book.create(author=author, title=t, isbn="978-%07d" % r.randint(0, 40),
                                 published=self.case.when().date() if r.random() < 0.7 else None)
            except IntegrityError:
                self.case.note_error("IntegrityError")

    def members(self):
        r = self.r
        rows = [{"name": n.title(), "card": r.randint(1000, 1040)} for n in r.sample(FIRST, r.randint(1, 4))]
        self.Member.insert_many(rows).on_conflict_ignore().execute()

    def borrow(self):
        r = self.r
        books, members = self.ids(self.Book), self.ids(self.Member)
        if not books or not members:
            raise StepFailed("nothing to lend")
        b = r.choice(books)
        out = self.Loan.select().where((self.Loan.book == b) & self.Loan.returned.is_null()).exists()
        if out:
            raise StepFailed("already lent")
        self.Loan.create(book=b, member=r.choice(members), due=self.case.when().date())

    def give_back(self):
        L = self.Loan
        loan = L.select().where(L.returned.is_null()).order_by(L.due).first()
        if loan is None:
            L.get(L.returned.is_null())  # DoesNotExist
        loan.returned = self.case.when().date()
        loan.save(only=[L.returned])

    def overdue(self):
        L = self.Loan
        cutoff = self.case.when().date()
        q = (L.select(L, self.Book, self.Member).join(self.Book).switch(L).join(self.Member)
             .where(L.returned.is_null() & (L.due < cutoff)).order_by(L.due))
        for loan in q:
            loan.book.title, loan.member.name
        L.select(fn.julianday(cutoff) - fn.julianday(L.due)).where(L.returned.is_null()).scalar()

    def favorite(self):
        books = self.ids(self.Book)
        authors = self.ids(self.Author)
        if not authors:
            raise StepFailed("no authors")
        a = self.Author.get_by_id(self.r.choice(authors))
        a.favorite_book = self.r.choice(books + [None])
        a.save()
        if a.favorite_book_id:
            a.favorite_book.title

    def by_author(self):
        A, B = self.Author, self.Book
        q = (A.select(A.name, fn.COUNT(B.id).alias("n"), fn.MIN(B.published).alias("first"))
             .join(B, JOIN.LEFT_OUTER, on=(B.author == A.id)).group_by(A.name).order_by(A.name))
        list(q.namedtuples())
        list(B.select().where(B.author.in_(A.select(A.id).where(A.name.startswith(self.r.choice("ABCDEFGHJ"))))))

    def fk_constraint(self):
        # SQLite cannot add a constraint to an existing table: OperationalError
        self.Author._schema.create_foreign_key(self.Author.favorite_book)


class Metrics(Domain):
    name = "metrics"
    ops = [(4, "ingest"), (2, "moving_avg"), (2, "hourly"), (2, "deltas"), (1, "expire"), (2, "latest"),
           (1, "named_window")]

    def define(self, base):
        class Sensor(base):
            name = CharField(unique=True)
            unit = CharField(default="C")

        class Reading(base):
            sensor = ForeignKeyField(Sensor, backref="readings")
            taken = DateTimeField()
            value = FloatField()

            class Meta:
                indexes = ((("sensor", "taken"), False),)

        self.Sensor, self.Reading = Sensor, Reading
        return [Sensor, Reading]

    def seed(self):
        r = self.r
        self.Sensor.insert_many([{"name": s} for s in r.sample(SENSORS, r.randint(2, 4))]).execute()
        self.ingest()

    def ingest(self):
        r = self.r
        sensors = self.ids(self.Sensor)
        if not sensors:
            raise StepFailed("no sensors")
        rows = [(r.choice(sensors), self.case.when(), round(r.uniform(-5, 35), 2)) for _ in range(r.randint(5, 40))]
        fields = [self.Reading.sensor, self.Reading.taken, self.Reading.value]
        with self.case.tx():
            for batch in chunked(rows, r.choice([10, 25, 50])):
                self.Reading.insert_many(batch, fields=fields).execute()

    def moving_avg(self):
        R = self.Reading
        avg = fn.AVG(R.value).over(partition_by=[R.sensor], order_by=[R.taken],
                                   start=Window.preceding(self.r.randint(1, 4)), end=Window.CURRENT_ROW)
        list(R.select(R.sensor, R.taken, avg.alias("avg")).order_by(R.sensor, R.taken).limit(20).tuples())

    def hourly(self):
        R = self.Reading
        hour = fn.strftime("%H", R.taken)
        q = (R.select(self.Sensor.name, hour.alias("h"), fn.MIN(R.value), fn.MAX(R.value), fn.COUNT(R.id))
             .join(self.Sensor).group_by(self.Sensor.name, hour).order_by(self.Sensor.name, hour))
        list(q.tuples())

    def deltas(self):
        R = self.Reading
        prev = fn.LAG(R.value, 1).over(partition_by=[R.sensor], order_by=[R.taken])
        list(R.select(R.id, (R.value - prev).alias("delta")).order_by(R.id).limit(15).dicts())

    def expire(self):
        R = self.Reading
        R.delete().where(R.taken < self.case.when()).execute()
        R.select().count()

    def latest(self):
        R, S = self.Reading, self.Sensor
        latest = R.select(fn.MAX(R.taken)).where(R.sensor == S.id)
        list(S.select(S.name, latest.alias("last")).tuples())
        s = S.get_or_none(S.name == self.r.choice(SENSORS))
        if s is not None:
            s.readings.order_by(R.taken.desc()).first()

    def named_window(self):
        R = self.Reading
        w = Window(partition_by=[R.sensor], order_by=[R.value.desc()])
        q = R.select(R.sensor, R.value, fn.RANK().over(w).alias("rk"), fn.NTILE(4).over(w).alias("q")).window(w)
        list(q.limit(12).tuples())


class Ledger(Domain):
    """Accounts on playhouse.signals.Model: post_save writes the audit table."""
    name = "ledger"
    ops = [(3, "open_accounts"), (4, "transfer"), (2, "statement"), (1, "close_account"), (1, "audit_report")]

    def define(self, base):
        db = self.db
        prefix = self.case.prefix

        class Audit(base):
            account = IntegerField()
            action = CharField()
            amount = DecimalField(max_digits=12, decimal_places=2, null=True)

        class Account(signals.Model):
            owner = CharField()
            balance = DecimalField(max_digits=12, decimal_places=2, default=0)
            frozen = BooleanField(default=False)

            class Meta:
                database = db
                table_name = prefix + "account"

        def on_save(sender, instance, created):
            Audit.create(account=instance.id, action="open" if created else "save", amount=instance.balance)

        def on_delete(sender, instance):
            if instance.frozen:
                raise PermissionError("frozen account %s" % instance.id)

        signals.post_save.connect(on_save, sender=Account, name="audit-%d" % id(self))
        signals.pre_delete.connect(on_delete, sender=Account, name="veto-%d" % id(self))
        self.Audit, self.Account = Audit, Account
        return [Audit, Account]

    def seed(self):
        self.open_accounts(n=self.r.randint(2, 4))

    def open_accounts(self, n=None):
        r = self.r
        for _ in range(n or r.randint(1, 3)):
            a = self.Account(owner=r.choice(FIRST), balance=decimal.Decimal(r.randint(0, 500)),
                             frozen=r.random() < 0.2)
            a.save()

    def transfer(self):
        r = self.r
        accts = list(self.Account.select().order_by(self.Account.id))
        if len(accts) < 2:
            raise StepFailed("too few accounts")
        a, b = r.sample(accts, 2)
        amount = decimal.Decimal(r.randint(1, 300))
        try:
            with self.case.tx():
                a.balance -= amount
                a.save()
                with self.case.tx(nested=True):
                    b.balance += amount
                    b.save()
                    if r.random() < 0.25:
                        raise StepFailed("credit refused")
                if a.balance < 0:
                    raise StepFailed("insufficient funds")
        except StepFailed:
            self.case.note_error("rolled back")

    def statement(self):
        A, U = self.Account, self.Audit
        for acct in A.select().where(A.balance > 0).order_by(A.balance.desc()).limit(3):
            list(U.select().where(U.account == acct.id).order_by(U.id.desc()).limit(5))

    def close_account(self):
        accts = self.ids(self.Account)
        if not accts:
            raise StepFailed("no accounts")
        try:
            self.Account.get_by_id(self.r.choice(accts)).delete_instance()
        except PermissionError:
            self.case.note_error("PermissionError")

    def audit_report(self):
        U = self.Audit
        list(U.select(U.action, fn.COUNT(U.id), fn.SUM(U.amount)).group_by(U.action).tuples())


class Notes(Domain):
    """JSON and FTS5 on the extension databases, LIKE and a compressed field elsewhere."""
    name = "notes"
    ops = [(4, "jot"), (3, "search"), (2, "by_meta"), (1, "edit"), (1, "purge")]

    def define(self, base):
        self.ext = isinstance(self.db, SqliteExtDatabase)
        self.fts = self.ext and self.r.random() < 0.7
        meta_field = JSONField(default=dict) if self.ext else TextField(default="{}")
        attrs = {"title": CharField(), "body": TextField(), "meta": meta_field}
        if not self.ext:
            attrs["blob"] = CompressedField(null=True)
        Note = type("Note", (base,), attrs)
        self.Note = Note
        models = [Note]
        if self.fts:
            class NoteIndex(FTS5Model):
                rowid = RowIDField()
                title = SearchField()
                body = SearchField()

                class Meta:
                    database = self.db
                    table_name = self.case.prefix + "note_index"
            self.NoteIndex = NoteIndex
            models.append(NoteIndex)
        return models

    def seed(self):
        self.jot(n=self.r.randint(2, 5))

    def jot(self, n=None):
        r = self.r
        for _ in range(n or r.randint(1, 3)):
            title = " ".join(r.sample(WORDS, 2))
            body = " ".join(r.choice(WORDS) for _ in range(r.randint(3, 9)))
            meta = {"tags": r.sample(WORDS, 2), "priority": r.randint(1, 5)}
            if self.ext:
                note = self.Note.create(title=title, body=body, meta=meta)
            else:
                note = self.Note.create(title=title, body=body, meta=str(meta["priority"]),
                                        blob=body.encode() if r.random() < 0.4 else None)
            if self.fts:
                self.NoteIndex.insert({self.NoteIndex.rowid: note.id, self.NoteIndex.title: title,
                                       self.NoteIndex.body: body}).execute()

    def search(self):
        term = self.r.choice(WORDS)
        if self.fts:
            list(self.NoteIndex.search(term, with_score=True).limit(5))
            list(self.NoteIndex.search_bm25(term).limit(3))
            q = (self.Note.select().join(self.NoteIndex, on=(self.Note.id == self.NoteIndex.rowid))
                 .where(self.NoteIndex.match(term)))
            list(q)
        else:
            list(self.Note.select().where(self.Note.body.contains(term) | self.Note.title.startswith(term)))
            if isinstance(self.db, SqliteExtDatabase):
                list(self.Note.select().where(self.Note.title.regexp("^%s" % term[:2])))

    def by_meta(self):
        N = self.Note
        if self.ext:
            list(N.select(N.title, N.meta["priority"].alias("p"))
                 .where(N.meta["priority"] >= self.r.randint(1, 5)).tuples())
            list(N.select().where(N.meta["tags"].length() > 1).limit(3))
        else:
            list(N.select().where(N.meta.cast("int") > self.r.randint(1, 4)))
            for n in N.select().where(N.blob.is_null(False)).limit(2):
                n.blob

    def edit(self):
        ids = self.ids(self.Note)
        if not ids:
            raise StepFailed("no notes")
        n = self.Note.get_by_id(self.r.choice(ids))
        n.body += " " + self.r.choice(WORDS)
        n.save()
        if self.ext:
            N = self.Note
            N.update(meta=N.meta["priority"].set(self.r.randint(1, 5))).where(N.id == n.id).execute()

    def purge(self):
        N = self.Note
        N.delete().where(N.title.contains(self.r.choice(WORDS))).execute()
        if self.fts:
            self.NoteIndex.delete().where(self.NoteIndex.rowid.not_in(N.select(N.id))).execute()
            if self.r.random() < 0.5:
                self.NoteIndex.optimize()


DOMAINS = [(5, Blog), (4, Shop), (3, Tree), (3, Library), (3, Metrics), (2, Ledger), (2, Notes)]


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class LockingPool(PooledSqliteDatabase):
    """An application's pool that will not take back a connection left
    inside a transaction (peewee's SQLite pool takes every one back), and
    closes it: the pool only forgets the connections it refuses, whose
    locks would otherwise last until the garbage collector finds them."""

    def _can_reuse(self, conn):
        try:
            if not conn.in_transaction:
                return True
            conn.close()
        except sqlite3.ProgrammingError:  # closed under the pool
            pass
        return False


class RetryingDatabase(ReconnectMixin, SqliteDatabase):
    """ReconnectMixin told which SQLite errors are worth a new connection."""
    reconnect_errors = ((OperationalError, "database is locked"), (OperationalError, "disk i/o error"))


class Holder:
    """A thread holding a pool connection until told to let go."""

    def __init__(self, case, close=True):
        self.case = case
        self.close = close
        self.ready = threading.Event()
        self.go = threading.Event()
        self.error = None
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()
        self.ready.wait(10)

    def run(self):
        db = self.case.db
        try:
            db.connect()
            if self.case.domains and self.case.r_thread.random() < 0.7:
                d = self.case.domains[0]
                d.models[0].select().limit(1).exists()
        except Exception as e:
            self.error = e
        finally:
            self.ready.set()
        self.go.wait(10)
        try:
            if self.close and self.error is None:
                db.close()
        except Exception as e:
            self.error = e

    def release(self):
        self.go.set()
        self.t.join(10)


class Case:
    def __init__(self, cid, r, top, stats):
        self.cid = cid
        self.r = r
        self.r_thread = random.Random(r.random())  # what holder threads draw, apart from the plan
        self.top = top
        self.stats = stats
        self.notes = []
        self.domains = []
        self.base_time = datetime.datetime(2023, 1, 1) + datetime.timedelta(days=r.randint(0, 600))
        self.clock = 0

    # -- helpers --------------------------------------------------------------
    def when(self):
        self.clock += self.r.randint(1, 180)
        return self.base_time + datetime.timedelta(minutes=self.clock)

    def note_error(self, name):
        d = self.stats["step errors"]
        d[name] = d.get(name, 0) + 1

    def path(self, name):
        return os.path.join(self.top, "%s-%s" % (self.cid, name))

    def tx(self, nested=False):
        """atomic() where the database has it; the queue database's writes
        are committed one by one."""
        if self.kind == "queue":
            return contextlib.nullcontext()
        if nested and self.r.random() < 0.3:
            return self.db.savepoint()
        return self.db.atomic()

    def barrier(self):
        """Waits until the queue database's writer has run what was queued."""
        if self.kind == "queue" and not self.db.is_stopped():
            self.db.execute_sql("PRAGMA wal_checkpoint(PASSIVE)", commit=True).fetchall()

    # -- the database -----------------------------------------------------------
    def make_db(self):
        r = self.r
        self.kind = pick(r, [(5, "memory"), (4, "file"), (3, "ext"), (3, "cext"), (7, "pool"), (4, "queue"),
                             (1, "reconnect"), (2, "url"), (2, "late")])
        kind = self.kind
        self.autoconnect = True
        self.timeout = 5.0  # sqlite3's busy timeout, peewee's default
        self.file = self.path("db.sqlite")
        if kind == "memory":
            self.file = None
            self.autoconnect = r.random() < 0.8
            db = SqliteDatabase(":memory:", autoconnect=self.autoconnect,
                                pragmas={"foreign_keys": 1} if r.random() < 0.5 else None)
        elif kind == "file":
            pragmas = pick(r, [(2, None), (2, {"journal_mode": "wal", "cache_size": -4000}),
                               (2, {"foreign_keys": 1, "synchronous": 0}),
                               (1, [("journal_mode", "delete"), ("foreign_keys", 1), ("busy_timeout", 50)])])
            self.autoconnect = r.random() < 0.7
            self.timeout = r.choice([0.05, 0.2, 5])
            db = SqliteDatabase(self.file, pragmas=pragmas, timeout=self.timeout, autoconnect=self.autoconnect)
        elif kind in ("ext", "cext"):
            cls = SqliteExtDatabase if kind == "ext" else CSqliteExtDatabase
            if r.random() < 0.3:
                self.file = None
            self.timeout = 0.1
            db = cls(self.file or ":memory:", regexp_function=True, json_contains=r.random() < 0.5,
                     pragmas={"foreign_keys": 1} if r.random() < 0.5 else None, timeout=self.timeout)
        elif kind == "pool":
            cls = pick(r, [(4, PooledSqliteDatabase), (2, PooledSqliteExtDatabase),
                           (1, PooledCSqliteExtDatabase), (2, LockingPool)])
            self.max_conns = r.choice([1, 2, 3, 4, 8])
            self.stale = pick(r, [(2, None), (3, 0.05), (1, 0.3), (1, 600)])
            self.wait = pick(r, [(3, None), (2, 0.3), (1, 0.6)])
            # the pool takes timeout= for itself: SQLite's busy timeout is a pragma
            self.timeout = 0.1
            pragmas = {"busy_timeout": 100}
            if r.random() < 0.6:
                pragmas["journal_mode"] = "wal"
            db = cls(self.file, max_connections=self.max_conns, stale_timeout=self.stale, timeout=self.wait,
                     pragmas=pragmas, check_same_thread=False)
            self.notes.append("%s(max=%s,stale=%s,wait=%s)" % (cls.__name__, self.max_conns, self.stale, self.wait))
        elif kind == "queue":
            db = SqliteQueueDatabase(self.file, autostart=r.random() < 0.8, results_timeout=10.0,
                                     queue_max_size=r.choice([None, 16, 64]))
            if not db._autostart:
                db.start()
        elif kind == "reconnect":
            self.timeout = 0.05
            db = RetryingDatabase(self.file, timeout=self.timeout)
        elif kind == "url":
            url = pick(r, [(2, "sqlite:///%s" % self.file), (1, "sqliteext:///%s" % self.file),
                           (1, "sqlite:///:memory:"),
                           (2, "sqlite+pool:///%s?max_connections=%d&stale_timeout=%s&check_same_thread=false"
                               % (self.file, r.choice([2, 4]), r.choice(["0.05", "60"])))])
            if ":memory:" in url:
                self.file = None
            db = db_url.connect(url)
            if isinstance(db, PooledSqliteDatabase):
                self.kind = "pool"
                self.max_conns, self.stale, self.wait = db._max_connections, db._stale_timeout, None
            self.notes.append(url.split("?")[0].split(":")[0] + "://")
        else:  # late: the application configures its database after defining models
            if r.random() < 0.5:
                self.proxy = DatabaseProxy()
                self.timeout = 0.1
                self.late = SqliteDatabase(self.file, timeout=self.timeout)
                db = self.proxy
            else:
                db = SqliteDatabase(None)
                self.late = db
        self.db = db
        self.notes.insert(0, self.kind)

    def make_models(self):
        r = self.r
        self.prefix = pick(r, [(5, ""), (1, "app_"), (1, "t_"), (1, "main_")])
        legacy = r.random() < 0.5
        prefix = self.prefix
        db = self.db

        def naming(model_class):
            name = model_class.__name__
            return prefix + (name.lower() if legacy else snake(name))

        dirty = r.random() < 0.5

        # Meta's options pass down to the subclasses: each domain's models
        # are named by the table function
        class Base(Model):
            class Meta:
                database = db
                table_function = naming
                only_save_dirty = dirty

        picked = []
        table = list(DOMAINS)
        # three domains only rarely: their tables and seeds alone make a long case
        n = pick(r, [(3, 1), (4, 2), (1, 3)])
        if self.kind == "queue":  # each write logs twice there
            n = min(n, 2)
        for _ in range(n):
            cls = pick(r, table)
            table = [(w, c) for w, c in table if c is not cls]
            picked.append(cls)
        for cls in picked:
            self.domains.append(cls(self, Base))
        self.notes.append("+".join(d.name for d in self.domains))

    def all_models(self):
        out = []
        for d in self.domains:
            out.extend(d.models)
        return out

    # -- steps ------------------------------------------------------------------
    def step(self):
        r = self.r
        table = [(14, "domain"), (2, "create"), (1, "drop"), (2, "tx"), (2, "migrate"), (2, "to_dict"),
                 (1, "reflect"), (2, "raw"), (2, "introspect"), (1, "integrity"), (1, "closed"),
                 (1, "missing"), (1, "kv"), (1, "pragma"), (1, "functions"), (1, "bind_copy"),
                 (1, "insert_from"), (1, "count_queries")]
        if self.file:
            table.append((1, "attach"))
            if self.timeout < 1:  # a write waits that long for the lock
                table.append((1, "locked"))
        if self.kind in ("memory", "file", "ext", "cext", "late") and DataSet is not None:
            table.append((1, "dataset"))
        if ChangeLog is not None and self.kind in ("ext", "cext"):
            table.append((1, "changelog"))
        if self.kind == "cext":
            table.append((2, "cext"))
        if self.kind == "pool":
            table.append((10, "pool"))
        if self.kind == "queue":
            table.append((5, "queue"))
        if self.kind == "reconnect":
            table.append((3, "locked"))
        name = pick(r, table)
        if self.kind == "queue" and name in ("tx", "bind_copy") and r.random() < 0.7:
            name = "domain"  # the application knows atomic() is not there, mostly
        self.stats["steps"][name] = self.stats["steps"].get(name, 0) + 1
        try:
            getattr(self, "s_" + name)()
        except StepFailed as e:
            self.note_error("StepFailed")
            if os.environ.get("GEN_DEBUG"):
                self.notes.append("%s:%s" % (name, e))
        except DoesNotExist:
            self.note_error("DoesNotExist")
        except STEP_ERRORS as e:
            self.note_error(type(e).__name__)
            if os.environ.get("GEN_DEBUG"):
                self.notes.append("%s:%s:%s" % (name, type(e).__name__, str(e)[:60]))
        self.barrier_quiet()

    def barrier_quiet(self):
        try:
            self.barrier()
        except Exception:
            pass

    def domain(self):
        return self.r.choice(self.domains)

    def s_domain(self):
        d = self.domain()
        d.op()

    def s_create(self):
        d = self.domain()
        d.create(safe=self.r.random() < 0.7)  # not safe: "table ... already exists"
        self.barrier()
        if self.r.random() < 0.4:
            d.seed()

    def s_drop(self):
        r = self.r
        d = self.domain()
        if r.random() < 0.6:
            d.drop(safe=r.random() < 0.6)
        else:
            m = r.choice(d.models)
            m.drop_table(safe=False)
        self.barrier()
        if r.random() < 0.6:  # a reset: the tables again, empty
            d.create()
            self.barrier()
            if r.random() < 0.5:
                d.seed()

    def s_tx(self):
        r = self.r
        d = self.domain()
        how = pick(r, [(3, "atomic"), (2, "nested"), (1, "manual"), (1, "decorator"), (1, "transaction")])
        self.notes.append("tx:" + how)
        if how == "atomic":
            try:
                with self.db.atomic():
                    d.op()
                    if r.random() < 0.4:
                        raise StepFailed("abort")
            except StepFailed:
                pass
        elif how == "nested":
            with self.db.atomic() as outer:
                d.op()
                try:
                    with self.db.atomic() as inner:
                        d.op()
                        if r.random() < 0.5:
                            inner.rollback()
                        elif r.random() < 0.5:
                            raise StepFailed("inner")
                except StepFailed:
                    pass
                with self.db.savepoint():
                    d.op()
                if r.random() < 0.3:
                    outer.rollback()
        elif how == "manual":
            # connected first: a connection opened inside manual_commit()
            # resets the transaction stack, and its exit then fails
            self.db.connect(reuse_if_open=True)
            with self.db.manual_commit():
                self.db.begin()
                try:
                    d.op()
                except Exception:
                    self.db.rollback()
                    raise
                else:
                    (self.db.commit if r.random() < 0.7 else self.db.rollback)()
        elif how == "decorator":
            @self.db.atomic()
            def unit():
                d.op()
                d.op()
            unit()
        else:
            with self.db.transaction() as t:
                d.op()
                t.commit()
                d.op()
                if r.random() < 0.5:
                    t.rollback()

    def s_migrate(self):
        r = self.r
        d = self.domain()
        model = r.choice(d.models)
        table = model._meta.table_name
        m = SqliteMigrator(self.db)
        cols = [f.column_name for f in model._meta.sorted_fields if not f.primary_key]
        how = pick(r, [(3, "add"), (2, "add_index"), (1, "drop_index"), (2, "rename"), (1, "drop"),
                       (1, "not_null"), (1, "rename_table"), (1, "alter_type"), (1, "drop_missing")])
        self.notes.append("migrate:" + how)
        if how == "add":
            field = pick(r, [(2, CharField(null=True)), (1, IntegerField(default=0)),
                             (1, DateTimeField(null=True)), (1, BooleanField(default=False))])
            ops = [m.add_column(table, "extra_%d" % r.randint(1, 3), field)]
            if r.random() < 0.3:
                ops.append(m.add_index(table, ("extra_1",), r.random() < 0.3))
        elif how == "add_index":
            ops = [m.add_index(table, tuple(self.some(cols, r.randint(1, 2))), unique=r.random() < 0.3)]
        elif how == "drop_index":
            idx = self.db.get_indexes(table)
            ops = [m.drop_index(table, idx[0].name if idx else table + "_nope")]
        elif how == "rename":
            col = r.choice(cols)
            ops = [m.rename_column(table, col, col + "_new")]
            if r.random() < 0.6:  # and back again: the models stay right
                ops.append(m.rename_column(table, col + "_new", col))
        elif how == "drop":
            ops = [m.add_column(table, "scratch", TextField(null=True)), m.drop_column(table, "scratch")]
            if r.random() < 0.3:
                ops.append(m.drop_column(table, r.choice(cols)))
        elif how == "not_null":
            col = r.choice(cols)
            ops = [m.drop_not_null(table, col)] + ([m.add_not_null(table, col)] if r.random() < 0.5 else [])
        elif how == "rename_table":
            ops = [m.rename_table(table, table + "_old")]
            if r.random() < 0.7:
                ops.append(m.rename_table(table + "_old", table))
        elif how == "alter_type":
            ops = [m.alter_column_type(table, r.choice(cols), TextField(null=True))]
        else:
            ops = [m.drop_column(table, "no_such_column")]
        if r.random() < 0.5 and self.kind != "queue":
            with self.db.atomic():
                migrate(*ops)
        else:
            migrate(*ops)

    def some(self, seq, k):
        seq = list(seq)
        return self.r.sample(seq, min(k, len(seq)))

    def s_to_dict(self):
        r = self.r
        d = self.domain()
        model = r.choice(d.models)
        rows = list(model.select().order_by(model._meta.primary_key).limit(r.randint(1, 4)))
        for obj in rows:
            data = model_to_dict(obj, recurse=r.random() < 0.6, backrefs=r.random() < 0.4,
                                 max_depth=r.choice([None, 1, 2]), extra_attrs=None)
            if r.random() < 0.3:
                copy = dict_to_model(model, data, ignore_unknown=True)
                copy.save(force_insert=False)
            elif r.random() < 0.3:
                update_model_from_dict(obj, {k: v for k, v in data.items() if not isinstance(v, (dict, list))},
                                       ignore_unknown=True)
                obj.save()

    def s_reflect(self):
        r = self.r
        intro = Introspector.from_database(self.db)
        names = None
        if r.random() < 0.7:  # the tables of one domain (and what they refer to), or all
            names = [m._meta.table_name for m in self.domain().models]
        models = intro.generate_models(skip_invalid=True, literal_column_names=r.random() < 0.5,
                                       table_names=names)
        for name in sorted(models)[:self.r.randint(1, 4)]:
            m = models[name]
            m.select().count()
            list(m.select().limit(2).dicts())

    def s_raw(self):
        r = self.r
        d = self.domain()
        model = r.choice(d.models)
        t = model._meta.table_name
        how = pick(r, [(3, "select"), (2, "raw_model"), (1, "syntax"), (1, "scalar"), (1, "params")])
        if how == "select":
            self.db.execute_sql('SELECT COUNT(*) FROM "%s"' % t).fetchone()
        elif how == "raw_model":
            list(model.raw('SELECT * FROM "%s" WHERE id > ? ORDER BY id LIMIT ?' % t, 0, r.randint(1, 5)))
        elif how == "syntax":
            self.db.execute_sql("SELEC * FROM %s" % t)
        elif how == "scalar":
            self.db.execute_sql("SELECT sqlite_version(), ?, ?", (r.randint(1, 9), r.choice(WORDS))).fetchone()
        else:
            self.db.execute_sql('SELECT * FROM "%s" WHERE id IN (%s)' % (t, ",".join("?" * 3)),
                                tuple(r.randint(1, 9) for _ in range(3))).fetchall()

    def s_introspect(self):
        r = self.r
        db = self.db
        tables = db.get_tables()
        for t in self.some(tables, r.randint(1, 3)):
            how = r.choice(["indexes", "columns", "fks", "pk", "exists"])
            if how == "indexes":
                db.get_indexes(t)
            elif how == "columns":
                db.get_columns(t)
            elif how == "fks":
                db.get_foreign_keys(t)
            elif how == "pk":
                db.get_primary_keys(t)
            else:
                db.table_exists(t)
        if r.random() < 0.3:
            db.get_views()
        m = r.choice(self.domain().models)
        m.table_exists()

    def s_integrity(self):
        r = self.r
        d = self.domain()
        how = pick(r, [(2, "dup"), (1, "null"), (1, "fk")])
        model = r.choice(d.models)
        if how == "dup":
            uniq = [f for f in model._meta.sorted_fields if f.unique and not f.primary_key]
            if not uniq:
                raise StepFailed("no unique field")
            f = uniq[0]
            first = model.select(f).limit(1).scalar()
            if first is None:
                raise StepFailed("empty")
            model.insert({f: first}).execute()
        elif how == "null":
            req = [f for f in model._meta.sorted_fields if not f.null and not f.primary_key and f.default is None]
            if not req:
                raise StepFailed("no required field")
            model.insert({req[0]: None}).execute()
        else:
            fks = [f for f in model._meta.sorted_fields if isinstance(f, ForeignKeyField)]
            if not fks:
                raise StepFailed("no foreign key")
            if r.random() < 0.5:
                self.db.pragma("foreign_keys", 1)
            row = {f: None for f in model._meta.sorted_fields if not f.null and not f.primary_key}
            for f in model._meta.sorted_fields:
                if f in row and f.default is None and not isinstance(f, ForeignKeyField):
                    row[f] = 1 if isinstance(f, (IntegerField, FloatField, DecimalField)) else "x"
            for f in fks:
                row[f] = 99999
            model.insert(row).execute()

    def s_closed(self):
        r = self.r
        if self.kind == "queue" or self.kind == "pool":
            raise StepFailed("not for this database")
        if self.db.in_transaction():
            raise StepFailed("in a transaction")
        self.db.close()
        d = self.domain()
        try:
            d.models[0].select().count()  # InterfaceError without autoconnect; in memory: no such table
        finally:
            if self.db.is_closed():
                self.db.connect()
            if self.kind in ("memory",) or self.file is None:
                if r.random() < 0.7:
                    self.db.create_tables(self.all_models())

    def s_missing(self):
        r = self.r
        how = pick(r, [(2, "query"), (1, "ghost")])
        if how == "query":
            d = self.domain()
            m = r.choice(d.models)
            m.drop_table(safe=True)
            self.barrier()
            m.select().where(m._meta.primary_key > 0).first()
        else:
            class Ghost(Model):
                name = CharField()

                class Meta:
                    database = self.db
                    table_name = "ghost_%d" % r.randint(1, 9)
            Ghost.get(Ghost.name == "boo")

    def s_kv(self):
        r = self.r
        kv = KeyValue(database=self.db, table_name=self.prefix + "settings", ordered=r.random() < 0.5)
        self.barrier()
        for _ in range(r.randint(1, 4)):
            kv["k%d" % r.randint(1, 6)] = r.choice([r.randint(0, 99), r.choice(WORDS)])
        kv.update({"theme": r.choice(["dark", "light"]), "lang": r.choice(["en", "fr", "de"])})
        kv.get("k%d" % r.randint(1, 6), None)
        if r.random() < 0.5:
            list(kv[kv.key.startswith("k")])
        if r.random() < 0.4:
            del kv["k%d" % r.randint(1, 6)]
        len(kv)
        if r.random() < 0.2:
            kv.clear()

    def s_pragma(self):
        r = self.r
        db = self.db.obj if isinstance(self.db, DatabaseProxy) else self.db
        how = pick(r, [(2, "read"), (1, "user_version"), (1, "cache"), (1, "fk"), (1, "journal")])
        if how == "read":
            for p in self.some(["page_size", "journal_mode", "foreign_keys", "synchronous", "cache_size",
                                "mmap_size", "wal_autocheckpoint", "read_uncommitted"], r.randint(1, 3)):
                getattr(db, p)
        elif how == "user_version":
            db.pragma("user_version", (db.pragma("user_version") or 0) + 1)
        elif how == "cache":
            db.cache_size = -r.choice([2000, 8000])
        elif how == "fk":
            db.foreign_keys = r.random() < 0.5
        else:
            db.pragma("journal_mode", r.choice(["wal", "delete", "truncate"]))

    def s_functions(self):
        r = self.r
        db = self.db
        d = self.domain()
        m = d.models[0]
        text = [f for f in m._meta.sorted_fields if isinstance(f, (CharField, TextField))]
        if not text:
            raise StepFailed("no text field")
        f = text[0]
        how = pick(r, [(2, "func"), (1, "collation"), (1, "aggregate")])
        if how == "func":
            @db.func("shout")
            def shout(s):
                return (s or "").upper() + "!"
            list(m.select(fn.shout(f)).limit(3).tuples())
        elif how == "collation":
            @db.collation("reverse")
            def reverse(a, b):
                return (a < b) - (a > b)
            list(m.select(f).order_by(f.collate("reverse")).limit(4).tuples())
        else:
            @db.aggregate("longest")
            class Longest:
                def __init__(self):
                    self.v = ""

                def step(self, s):
                    if s and len(s) > len(self.v):
                        self.v = s

                def finalize(self):
                    return self.v
            m.select(fn.longest(f)).scalar()

    def s_bind_copy(self):
        r = self.r
        d = self.domain()
        models = d.models
        src_rows = {m: list(m.select().order_by(m._meta.primary_key).limit(20).dicts()) for m in models}
        cache = SqliteDatabase(":memory:")
        with cache.bind_ctx(models):
            cache.create_tables(models)
            for m in models:
                if src_rows[m]:
                    m.insert_many(src_rows[m]).execute()
            m = r.choice(models)
            m.select().count()
        cache.close()

    def s_insert_from(self):
        d = self.domain()
        m = self.r.choice(d.models)
        fields = [f for f in m._meta.sorted_fields if not f.primary_key]
        q = m.select(*fields).where(m._meta.primary_key <= self.r.randint(1, 3))
        m.insert_from(q, fields).execute()  # unique columns make some fail

    def s_count_queries(self):
        from playhouse.test_utils import count_queries
        with count_queries() as counter:
            self.domain().op()
        self.notes.append("queries=%d" % counter.count)

    def s_attach(self):
        r = self.r
        other = self.path("archive.sqlite")
        name = r.choice(["archive", "old", "aux"])
        self.db.attach(other, name)
        try:
            self.db.execute_sql('CREATE TABLE IF NOT EXISTS "%s"."entry" (id INTEGER PRIMARY KEY, v TEXT)' % name)
            self.db.execute_sql('INSERT INTO "%s"."entry" (v) VALUES (?)' % name, (r.choice(WORDS),))
            self.db.get_tables(schema=name)
            if r.random() < 0.3:
                self.db.attach(other, name)  # attached already: OperationalError
        finally:
            self.db.detach(name)

    def s_locked(self):
        """Another connection (another process, for the application) holds
        the file's write lock; the case's write waits for its timeout."""
        if self.kind == "queue":
            raise StepFailed("not for this database")
        other = sqlite3.connect(self.file, timeout=0.05, isolation_level=None)
        try:
            other.execute("BEGIN EXCLUSIVE")
            d = self.domain()
            m = self.r.choice(d.models)
            m.delete().where(m._meta.primary_key < 0).execute()
        finally:
            other.execute("ROLLBACK") if other.in_transaction else None
            other.close()

    def s_dataset(self):
        r = self.r
        ds = DataSet(self.db.obj if isinstance(self.db, DatabaseProxy) else self.db)
        t = ds[self.prefix + r.choice(["events", "visits"])]
        for _ in range(r.randint(1, 4)):
            row = {"name": r.choice(FIRST), "n": r.randint(0, 9)}
            if r.random() < 0.3:
                row["when_" + r.choice(["a", "b"])] = self.when()  # a new column: the table grows
            t.insert(**row)
        list(t.find(name=r.choice(FIRST)))
        if r.random() < 0.5:  # the rows of one name get a new n
            t.update(columns=["name"], name=r.choice(FIRST), n=r.randint(0, 3))
        len(t)
        if r.random() < 0.4:
            fmt = r.choice(["json", "csv"])
            fname = self.path("freeze." + fmt)
            ds.freeze(t.all(), format=fmt, filename=fname)
            if r.random() < 0.6:
                ds.thaw(t.name, format=fmt, filename=fname, strict=r.random() < 0.5)
        if r.random() < 0.2:
            t.delete(name=r.choice(FIRST))
        ds.tables

    def s_changelog(self):
        r = self.r
        cl = ChangeLog(self.db, table_name=self.prefix + "changelog")
        d = self.domain()
        m = d.models[0]
        cl.install(m, skip_fields=None, drop=r.random() < 0.3)
        d.op()
        list(cl.model.select().order_by(cl.model.id.desc()).limit(5).dicts())
        if r.random() < 0.3:
            cl.install(m, create_table=False, insert=False, update=True, delete=False, drop=True)

    def s_cext(self):
        r = self.r
        db = self.db
        how = pick(r, [(2, "hooks"), (1, "backup"), (1, "changes")])
        if how == "hooks":
            seen = []
            db.on_commit(lambda: seen.append("c"))
            db.on_rollback(lambda: seen.append("r"))
            with db.atomic() as t:
                self.domain().op()
                if r.random() < 0.4:
                    t.rollback()
            db.on_commit(None)
            db.on_rollback(None)
        elif how == "backup":
            other = CSqliteExtDatabase(self.path("backup.sqlite"))
            db.backup(other)
            other.get_tables()
            other.close()
        else:
            self.domain().op()
            db.changes(), db.last_insert_rowid, db.autocommit

    # -- pools ------------------------------------------------------------------
    def s_pool(self):
        r = self.r
        db = self.db
        how = pick(r, [(3, "hold"), (2, "exceed"), (2, "stale"), (1, "raw_close"), (1, "idle"),
                       (1, "close_stale"), (1, "close_all"), (1, "manual_close"), (2, "context"),
                       (1, "open_tx")])
        self.notes.append("pool:" + how)
        if how == "hold":
            hs = [Holder(self) for _ in range(r.randint(1, max(1, self.max_conns - 1)))]
            self.domain().op()
            for h in hs:
                h.release()
        elif how == "exceed":
            if not db.is_closed():
                db.close()
            hs = [Holder(self, close=r.random() < 0.8) for _ in range(self.max_conns)]
            timer = None
            if self.wait and r.random() < 0.5:
                timer = threading.Timer(self.wait / 2, hs[0].release)
                timer.start()
            try:
                db.connect()  # MaxConnectionsExceeded, after the wait if there is one
                self.domain().op()
            finally:
                if timer is not None:
                    timer.join()
                for h in hs:
                    h.release()
        elif how == "stale":
            if self.stale is None or self.stale > 1:
                db.close_all()
                db.connect(reuse_if_open=True)
                db.close()
                return
            db.connect(reuse_if_open=True)
            self.domain().op()
            if r.random() < 0.5:
                db.close()
                time.sleep(self.stale + 0.02)
                db.connect()
            else:
                time.sleep(self.stale + 0.02)
                db.close()
        elif how == "raw_close":
            db.connect(reuse_if_open=True)
            db.connection().close()  # behind the pool's back
            db.close()
            db.connect()
            self.domain().op()
        elif how == "idle":
            hs = [Holder(self) for _ in range(r.randint(1, 2))]
            for h in hs:
                h.release()
            db.close_idle()
        elif how == "close_stale":
            # holders that never hand their connection back; this thread's
            # own is closed first, or close_stale() would take it too
            db.close()
            hs = [Holder(self, close=False) for _ in range(r.randint(1, 2))]
            for h in hs:
                h.release()
            self.notes.append("stale-closed=%d" % db.close_stale(age=0))
        elif how == "close_all":
            db.close_all()
            self.domain().op()
        elif how == "manual_close":
            db.connect(reuse_if_open=True)
            self.domain().op()
            db.manual_close()
        elif how == "context":
            for _ in range(r.randint(1, 3)):
                with db.connection_context():
                    self.domain().op()
        else:
            # a transaction begun by hand and never ended, then the connection
            # handed back: the LockingPool refuses it
            db.connect(reuse_if_open=True)
            db.begin()
            self.domain().op()
            db.close()

    # -- the queue database -------------------------------------------------------
    def s_queue(self):
        r = self.r
        db = self.db
        how = pick(r, [(2, "pause"), (1, "double_pause"), (1, "double_unpause"), (2, "write_paused"),
                       (1, "restart"), (1, "stray"), (1, "atomic")])
        self.notes.append("queue:" + how)
        if how == "pause":
            db.pause()
            self.domain().models[0].select().count()  # reads go on while the writer is paused
            db.unpause()
            self.domain().op()
        elif how == "double_pause":
            db.pause()
            db.pause()
            db.unpause()
        elif how == "double_unpause":
            db.unpause()
            self.barrier()
        elif how == "write_paused":
            db.pause()
            try:
                self.domain().op()  # WriterPaused, raised at the caller when it waits for the result
            except Exception as e:
                self.note_error(type(e).__name__)
            finally:
                db.unpause()
        elif how == "restart":
            db.stop()
            if r.random() < 0.5:
                db.stop()  # stopped already: returns False
            db.start()
            self.domain().op()
        elif how == "stray":
            db._write_queue.put(r.choice(["VACUUM", {"sql": "DELETE"}, 42]))
            self.barrier()
        else:
            with db.atomic():  # ValueError: not supported by the queue database
                self.domain().op()

    # -- a lifetime ---------------------------------------------------------------
    def run(self):
        r = self.r
        self.make_db()
        if self.kind == "late":
            self.make_models()
            if r.random() < 0.3:
                try:  # before the database is configured: the query fails
                    self.domains[0].models[0].select().count()
                except (InterfaceError, AttributeError, PeeweeException) as e:
                    self.note_error(type(e).__name__)
            if isinstance(self.db, DatabaseProxy):
                self.db.initialize(self.late)
            else:
                self.timeout = 0.1
                self.db.init(self.file, timeout=self.timeout,
                             pragmas={"foreign_keys": 1} if r.random() < 0.5 else None)
        else:
            self.make_models()
        if not self.autoconnect or r.random() < 0.5:
            self.db.connect()
        # most applications create their tables first; some forget, and some
        # steps create them later
        if r.random() < 0.95:
            self.db.create_tables(self.all_models(), safe=r.random() < 0.9)
            self.barrier()
            for d in self.domains:
                if r.random() < 0.75:
                    try:
                        d.seed()
                    except STEP_ERRORS + (StepFailed,) as e:
                        self.note_error(type(e).__name__)
                    self.barrier_quiet()
        for _ in range(r.randint(3, 12)):
            if self.logged() >= BUDGET:
                self.notes.append("budget")
                break
            self.step()
        self.end()

    def end(self):
        r = self.r
        db = self.db
        try:
            if r.random() < 0.3:
                db.drop_tables(self.all_models(), safe=True)
                self.barrier()
        except STEP_ERRORS as e:
            self.note_error(type(e).__name__)
        finally:
            self.close_db()

    def close_db(self):
        db = self.db
        if self.kind == "queue":
            db.stop()
        if isinstance(db, DatabaseProxy) and db.obj is None:
            return
        if self.kind == "pool":
            db.close_all()
        elif not db.is_closed():
            db.close()


# ---------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------
LOG = None
OUTSIDE = None
ARGS = None


def init_worker(seed, top):
    global LOG, OUTSIDE, ARGS
    ARGS = (seed, top)
    # this process's capture; its rows go back to the main process per case
    LOG = PeeweeLog(peewee, os.devnull, logger_names=CAPTURED)
    for name in PEEWEE_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    OUTSIDE = OutsideCounter(LOG)
    LOG.addFilter(OUTSIDE)
    warnings.simplefilter("ignore")
    threading.excepthook = lambda args: None  # a queue writer dying with its case's file


def run_case(i):
    seed, top = ARGS
    cid = "peewee-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    stats = {"errors": {}, "step errors": {}, "steps": {}, "kinds": {}, "outside": 0}
    cdir = os.path.join(top, "c%d" % os.getpid())
    os.makedirs(cdir, exist_ok=True)
    case = Case(cid, r, cdir, stats)
    case.logged = lambda: len(LOG._rows)
    OUTSIDE.n = 0
    LOG._rows = []
    LOG.case_id = cid
    t = time.time()
    try:
        case.run()
    except BaseException as e:  # a broken case must not stop the generation
        stats["errors"][type(e).__name__] = 1
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
        try:
            case.close_db()
        except BaseException:
            pass
    finally:
        LOG.case_id = None
        rows, LOG._rows = LOG._rows, []
        stats["outside"] = OUTSIDE.n
        stats["kinds"][getattr(case, "kind", "?")] = 1
        shutil.rmtree(cdir, ignore_errors=True)
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s %d events %.2fs\n" % (cid, " ".join(case.notes), len(rows), time.time() - t))
    return i, cid, rows, stats


def main():
    a = parse_args()
    if not a.out:
        sys.exit("--out FILE required")
    prepare_repo(a.deps)
    tmp = tempfile.mkdtemp(prefix="gen_peewee_")
    # the main process only writes: its capture listens to no logger
    log = PeeweeLog(peewee, a.out, logger_names=["peewee.bench-unused"])
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    totals = {"errors": {}, "step errors": {}, "steps": {}, "kinds": {}, "outside": 0}
    try:
        ctx = multiprocessing.get_context("fork")
        # a fresh process every 40 cases: what a case leaks (signal handlers,
        # SQLite connections the pool lost) does not pile up
        with ctx.Pool(max(1, a.jobs), initializer=init_worker, initargs=(a.seed, tmp), maxtasksperchild=40) as pool:
            pending = [(i, pool.apply_async(run_case, (i,))) for i in todo]
            for i, res in pending:
                try:
                    i, cid, rows, stats = res.get(timeout=120)
                except multiprocessing.TimeoutError:  # its process hung or died: the case is lost
                    totals["errors"]["lost"] = totals["errors"].get("lost", 0) + 1
                    continue
                log.write_case(cid, rows)
                for k in ("errors", "step errors", "steps", "kinds"):
                    for kk, v in stats[k].items():
                        totals[k][kk] = totals[k].get(kk, 0) + v
                totals["outside"] += stats["outside"]
        log.finish()
        sys.stderr.write("steps %s\n" % dict(sorted(totals["steps"].items())))
        sys.stderr.write("%s; databases %s; dropped: %d records emitted outside peewee; case exceptions: %s; "
                         "step errors: %s; %.0fs\n"
                         % (log.summary(), dict(sorted(totals["kinds"].items())), totals["outside"],
                            totals["errors"] or "none", dict(sorted(totals["step errors"].items())) or "none",
                            time.time() - t0))
        if log.cases_written == 0:
            sys.exit("gen_peewee: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
