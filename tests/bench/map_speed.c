/*
 * map_speed.c - mapping throughput: rendered log lines against the emit-site
 * templates of a synthetic Python repository, on one thread.
 *
 * The target: >= 500k log lines/s on one core with 5k templates. The
 * program writes a Python repository of N distinct logging call sites
 * (--templates, 5000) spread over N/20 modules, their classes and
 * functions, in the shapes real code uses (%-formatting, %(name)s with a
 * dict, "{}".format, f-strings, plain literals, templates that start with
 * a hole, multi-line templates, implicit concatenation over source lines,
 * openers such as "Retrying" or "Failed to" shared by many sites), indexes
 * it with graph_index() and renders --lines (1000000) messages from the
 * indexed templates: holes filled with ids, numbers, hex, UUIDs, paths,
 * URLs, hosts and quoted strings, newlines escaped in 30% of lines (as
 * some log pipelines write them), templates drawn with a Zipf skew, and a
 * share (--noise, 5%) of lines that no template produced (other
 * libraries' messages, traceback lines). Each line carries its logger
 * (the module's name, as logging.getLogger(__name__) gives) and level, as
 * a log record does. --dup F makes a share of the sites log the text of an
 * earlier site instead, half of them in the same module.
 *
 * Measured on one thread, in its CPU time: map_matcher_match alone (no
 * cache), then map_mapper_map on a fresh mapper (its message cache
 * answers repeated messages only) and again on the same lines (every
 * message cached).
 * Checked: the share of template lines whose match is exactly the site
 * that rendered them (and, for the mapper, whose activity maps to that
 * site's function), and the share of noise lines that match nothing. A
 * site whose text another site of the same logger logs cannot be told
 * apart by its message: for it, a match that includes it is right.
 *
 * Exits 1 when fewer than 99% of template lines match their own site (a
 * real check); never on speed: the figures are for the record.
 *
 * --graph FILE measures an existing graph instead (its log, print and
 * warning sites); correctness is then only reported, since real code logs
 * the same text from several sites.
 */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include "graph.h"
#include "model.h"
#include "ppr.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */
/* ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    return core_splitmix64(&rng_state);
}

/* Uniform in [0, n). */
static uint32_t rndn(uint32_t n)
{
    return n ? (uint32_t)(((rnd() >> 32) * n) >> 32) : 0;
}

static bool chance(double p)
{
    return core_unit_double(rnd()) < p;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(a) ((a)[rndn((uint32_t)NELEM(a))])

/* ------------------------------------------------------------------ */
/* Vocabulary                                                          */
/* ------------------------------------------------------------------ */

static const char *const words[] = {
    "account",     "acknowledged", "active",      "adapter",    "address",      "after",
    "agent",       "aggregate",    "alert",       "allocation", "already",      "applied",
    "archive",     "artifact",     "assigned",    "attempt",    "attribute",    "audit",
    "backend",     "backoff",      "balance",     "batch",      "before",       "billing",
    "binding",     "blob",         "block",       "bootstrap",  "bucket",       "buffer",
    "build",       "bundle",       "cache",       "callback",   "canceled",     "capacity",
    "cart",        "catalog",      "certificate", "channel",    "checkout",     "checksum",
    "chunk",       "claim",        "client",      "closed",     "cluster",      "collector",
    "column",      "command",      "commit",      "completed",  "config",       "conflict",
    "connection",  "consumer",     "container",   "context",    "controller",   "cookie",
    "coordinator", "counter",      "credential",  "cursor",     "customer",     "daemon",
    "dashboard",   "database",     "deadline",    "decoder",    "default",      "deferred",
    "delivery",    "dependency",   "deployment",  "descriptor", "device",       "digest",
    "directory",   "discount",     "dispatch",    "document",   "domain",       "download",
    "driver",      "duplicate",    "element",     "encoder",    "endpoint",     "entry",
    "environment", "event",        "eviction",    "exchange",   "expired",      "export",
    "extension",   "factory",      "feature",     "fetch",      "field",        "filter",
    "finalizer",   "fingerprint",  "flag",        "flush",      "folder",       "format",
    "fragment",    "frame",        "gateway",     "generation", "grant",        "group",
    "handler",     "handshake",    "header",      "health",     "heartbeat",    "hook",
    "identity",    "image",        "import",      "index",      "ingest",       "inode",
    "instance",    "interval",     "inventory",   "invoice",    "issuer",       "item",
    "job",         "journal",      "kernel",      "key",        "label",        "latency",
    "layer",       "lease",        "ledger",      "level",      "library",      "lifecycle",
    "limit",       "link",         "listener",    "loader",     "locale",       "lock",
    "manifest",    "mapping",      "marker",      "member",     "merchant",     "message",
    "metadata",    "method",       "metric",      "migration",  "mirror",       "mode",
    "model",       "module",       "monitor",     "mount",      "namespace",    "network",
    "node",        "notification", "object",      "offset",     "operation",    "option",
    "order",       "origin",       "outbox",      "owner",      "package",      "page",
    "parameter",   "parser",       "partition",   "patch",      "payload",      "payment",
    "peer",        "pending",      "permission",  "pipeline",   "plan",         "plugin",
    "policy",      "pool",         "port",        "prefix",     "price",        "primary",
    "principal",   "priority",     "probe",       "process",    "producer",     "profile",
    "project",     "promotion",    "property",    "protocol",   "provider",     "proxy",
    "publisher",   "quota",        "range",       "rate",       "reader",       "reason",
    "receipt",     "record",       "redirect",    "reference",  "refund",       "region",
    "registry",    "release",      "remote",      "replica",    "report",       "repository",
    "request",     "reservation",  "resolver",    "resource",   "response",     "result",
    "revision",    "role",         "route",       "router",     "rule",         "runner",
    "sample",      "scheduler",    "schema",      "scope",      "secret",       "segment",
    "selector",    "sequence",     "server",      "service",    "session",      "setting",
    "shard",       "shipment",     "signal",      "signature",  "sink",         "slot",
    "snapshot",    "socket",       "source",      "span",       "stage",        "statement",
    "status",      "storage",      "stream",      "subscriber", "subscription", "supplier",
    "table",       "target",       "task",        "tenant",     "threshold",    "ticket",
    "timeout",     "timer",        "token",       "topic",      "trace",        "transaction",
    "transfer",    "transport",    "trigger",     "tunnel",     "upload",       "upstream",
    "user",        "validator",    "value",       "vendor",     "version",      "volume",
    "voucher",     "warehouse",    "watcher",     "webhook",    "window",       "worker",
    "workflow",    "writer",       "zone",        "invalid",    "missing",      "stale",
    "ready",       "empty",        "partial",     "unknown",    "remaining",    "current",
    "previous",    "next",         "local",       "global",     "maximum",      "minimum",
};

/* Openers many sites share, weighted: the prefix index's crowded keys. */
static const struct {
    const char *text;
    unsigned weight;
} hot_openers[] = {
    {"Retrying", 12}, {"Failed to", 11}, {"Sending", 10},    {"Received", 9},
    {"Could not", 8}, {"Unable to", 7},  {"Starting", 6},    {"Connecting to", 5},
    {"Using", 4},     {"Skipping", 3},   {"Error while", 2}, {"Loading", 1},
};

static const char *const verbs[] = {
    "process", "load",   "send",   "fetch",  "parse",   "validate", "refresh", "resolve",
    "create",  "update", "delete", "commit", "publish", "acquire",  "release", "open",
    "close",   "read",   "write",  "flush",  "decode",  "encode",   "sync",    "register",
};

static const char *const connectors[] = {"for",   "from", "to",  "in", "on", "with",
                                         "after", "of",   "via", "at", "by", "into"};

/* Python expressions for arguments (names need not be defined: the
 * extractor only reads the calls). */
static const char *const arg_exprs[] = {
    "request_id",       "host",     "attempt", "len(items)", "path",        "user.id",
    "resp.status_code", "elapsed",  "key",     "value",      "name",        "count",
    "status",           "order.id", "url",     "self.name",  "batch_size",  "offset",
    "tenant",           "region",   "exc",     "item.sku",   "resp.reason", "delay",
};

static const char *const params[] = {"request_id, host, attempt=0", "key, value=None",
                                     "order, *items, **kwargs", "url, timeout=30.0"};

static const char *const packages[] = {
    "billing", "orders",    "catalog", "inventory", "shipping",  "accounts", "payments",
    "search",  "reporting", "storage", "gateway",   "scheduler", "auth",     "notifications",
    "ingest",  "analytics", "pricing", "support",   "media",     "workflow",
};

static const char *const class_suffixes[] = {"Service", "Client", "Manager",    "Handler",
                                             "Worker",  "Store",  "Repository", "Processor"};

/* ------------------------------------------------------------------ */
/* Templates                                                           */
/* ------------------------------------------------------------------ */

typedef enum { ST_PLAIN, ST_PERCENT, ST_NAMED, ST_BRACE, ST_FSTRING } tstyle;

/* One piece of a template: literal text, or a hole with its directive
 * ('s', 'd', 'r' or 'f', the last written "%.2f"). */
typedef struct piece {
    bool hole;
    char conv;
    const char *lit; /* literal text (owned by the template's buffer) */
} piece;

#define MAX_PIECES 40

typedef struct tmpl {
    piece p[MAX_PIECES];
    uint32_t n;
    tstyle style;
    bool multiline_source; /* split over two source lines */
    const char *level;     /* logger method */
    core_buf text;         /* the stored form, for distinctness */
    core_arena lits;
} tmpl;

static void add_lit(tmpl *t, const char *s)
{
    if (t->n > 0 && !t->p[t->n - 1].hole) {
        /* Merge with the previous literal. */
        const char *prev = t->p[t->n - 1].lit;
        size_t a = strlen(prev), b = strlen(s);
        char *m = core_arena_alloc(&t->lits, a + b + 1);
        memcpy(m, prev, a);
        memcpy(m + a, s, b + 1);
        t->p[t->n - 1].lit = m;
        return;
    }
    if (t->n < MAX_PIECES)
        t->p[t->n++] = (piece){false, 0, core_arena_strndup(&t->lits, s, strlen(s))};
}

static void add_hole(tmpl *t, char conv)
{
    if (t->n > 0 && t->p[t->n - 1].hole)
        add_lit(t, " "); /* never two holes side by side */
    if (t->n < MAX_PIECES)
        t->p[t->n++] = (piece){true, conv, NULL};
}

static char pick_conv(void)
{
    double x = core_unit_double(rnd());
    return x < 0.75 ? 's' : x < 0.87 ? 'd' : x < 0.95 ? 'r' : 'f';
}

static const char *capitalized(const char *w, char *buf, size_t n)
{
    snprintf(buf, n, "%s", w);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
    return buf;
}

/* A segment of a template's body: words, or a hole in one of its usual
 * surroundings. */
static void add_segment(tmpl *t, bool hole)
{
    char b[96];
    if (!hole) {
        double x = core_unit_double(rnd());
        if (x < 0.5)
            snprintf(b, sizeof b, " %s", PICK(words));
        else if (x < 0.8)
            snprintf(b, sizeof b, " %s %s", PICK(connectors), PICK(words));
        else
            snprintf(b, sizeof b, " %s %s", PICK(words), PICK(words));
        add_lit(t, b);
        return;
    }
    char conv = pick_conv();
    switch (rndn(8)) {
    case 0:
    case 1:
        snprintf(b, sizeof b, " %s ", PICK(words));
        add_lit(t, b);
        add_hole(t, conv);
        break;
    case 2:
        snprintf(b, sizeof b, " %s=", PICK(words));
        add_lit(t, b);
        add_hole(t, conv);
        break;
    case 3:
        snprintf(b, sizeof b, " %s: ", PICK(words));
        add_lit(t, b);
        add_hole(t, conv);
        break;
    case 4:
        snprintf(b, sizeof b, " %s '", PICK(words));
        add_lit(t, b);
        add_hole(t, 's');
        add_lit(t, "'");
        break;
    case 5:
        snprintf(b, sizeof b, " (%s ", PICK(words));
        add_lit(t, b);
        add_hole(t, conv);
        add_lit(t, ")");
        break;
    case 6:
        snprintf(b, sizeof b, " %s [", PICK(connectors));
        add_lit(t, b);
        add_hole(t, conv);
        add_lit(t, "]");
        break;
    default:
        snprintf(b, sizeof b, " %s ", PICK(connectors));
        add_lit(t, b);
        add_hole(t, conv);
        break;
    }
}

/* The template's text, for telling templates apart. */
static void tmpl_text(tmpl *t)
{
    core_buf_reset(&t->text);
    for (uint32_t i = 0; i < t->n; i++) {
        /* Every hole as %s: templates that differ only in a conversion
         * match the same lines, so they do not count as distinct. */
        if (t->p[i].hole)
            core_buf_puts(&t->text, "%s");
        else
            core_buf_puts(&t->text, t->p[i].lit);
    }
}

static const char *pick_level(void)
{
    double x = core_unit_double(rnd());
    return x < 0.35   ? "debug"
           : x < 0.70 ? "info"
           : x < 0.85 ? "warning"
           : x < 0.97 ? "error"
           : x < 0.99 ? "exception"
                      : "critical";
}

static void tmpl_generate(tmpl *t, unsigned hot_total)
{
    core_arena_reset(&t->lits);
    t->n = 0;
    char b[96], cap[64];
    bool plain = chance(0.15);
    bool hole_first = !plain && chance(0.06);
    bool multiline = chance(0.04);
    uint32_t nseg = 2 + rndn(5);
    if (hole_first) {
        add_hole(t, 's');
        add_lit(t, chance(0.5) ? ": " : " ");
        add_lit(t, PICK(words));
    } else if (chance(0.25)) {
        unsigned r = rndn(hot_total);
        size_t k = 0;
        while (r >= hot_openers[k].weight)
            r -= hot_openers[k++].weight;
        add_lit(t, hot_openers[k].text);
        if (strstr(hot_openers[k].text, " to") || strstr(hot_openers[k].text, "not")) {
            snprintf(b, sizeof b, " %s %s", PICK(verbs), PICK(words));
            add_lit(t, b);
        }
    } else {
        add_lit(t, capitalized(PICK(words), cap, sizeof cap));
        snprintf(b, sizeof b, " %s", PICK(words));
        add_lit(t, b);
    }
    uint32_t holes = hole_first;
    for (uint32_t s = 0; s < nseg; s++) {
        bool hole = !plain && chance(0.45);
        add_segment(t, hole);
        holes += hole;
    }
    if (!plain && holes == 0)
        add_segment(t, true);
    if (multiline) {
        /* "Request failed\n  status: %s\n  body: %s" */
        uint32_t nl = 1 + rndn(3);
        for (uint32_t i = 0; i < nl; i++) {
            snprintf(b, sizeof b, "\n  %s: ", PICK(words));
            add_lit(t, b);
            if (plain)
                add_lit(t, PICK(words));
            else
                add_hole(t, pick_conv());
        }
    } else if (chance(0.2)) {
        add_lit(t, PICK(((const char *[]){".", " (ignored)", ", giving up", "; retrying", " done",
                                          " skipped"})));
    }
    if (plain) {
        t->style = ST_PLAIN;
    } else {
        double x = core_unit_double(rnd());
        t->style = x < 0.60 ? ST_PERCENT : x < 0.65 ? ST_NAMED : x < 0.77 ? ST_BRACE : ST_FSTRING;
    }
    /* Brace formatting and f-strings have no %r/%d: keep 's' and 'f'. */
    if (t->style == ST_BRACE || t->style == ST_FSTRING)
        for (uint32_t i = 0; i < t->n; i++)
            if (t->p[i].hole && t->p[i].conv != 'f')
                t->p[i].conv = 's';
    t->multiline_source = t->n >= 6 && chance(0.1);
    t->level = pick_level();
    tmpl_text(t);
}

/* A Python string literal's body (inside double quotes). */
static void py_str_lit(core_buf *b, const char *s, bool braces)
{
    for (; *s; s++) {
        if (*s == '\n')
            core_buf_puts(b, "\\n");
        else if (*s == '\\' || *s == '"')
            core_buf_putc(b, '\\'), core_buf_putc(b, *s);
        else if (braces && (*s == '{' || *s == '}'))
            core_buf_putc(b, *s), core_buf_putc(b, *s);
        else
            core_buf_putc(b, *s);
    }
}

/* One logging call: receiver.level(<message and arguments>). */
static void py_call(core_buf *b, const tmpl *t, const char *recv, const char *indent)
{
    const char *args[MAX_PIECES];
    uint32_t nargs = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->p[i].hole)
            args[nargs++] = PICK(arg_exprs);
    core_buf_printf(b, "%s%s.%s(", indent, recv, t->level);
    bool fstr = t->style == ST_FSTRING;
    /* Split point for a template written over two source lines. */
    uint32_t split = t->multiline_source ? t->n / 2 : UINT32_MAX;
    core_buf_puts(b, fstr ? "f\"" : "\"");
    uint32_t a = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (i == split && !fstr) {
            core_buf_printf(b, "\"\n%s    \"", indent);
        }
        const piece *p = &t->p[i];
        if (!p->hole) {
            py_str_lit(b, p->lit, fstr || t->style == ST_BRACE);
            continue;
        }
        const char *e = args[a++];
        switch (t->style) {
        case ST_PERCENT:
            core_buf_puts(b, p->conv == 'f' ? "%.2f" : (char[]){'%', p->conv, 0});
            break;
        case ST_NAMED:
            core_buf_printf(b, "%%(a%u)%s", a, p->conv == 'f' ? ".2f" : (char[]){p->conv, 0});
            break;
        case ST_BRACE:
            core_buf_puts(b, p->conv == 'f' ? "{:.2f}" : "{}");
            break;
        case ST_FSTRING:
            core_buf_printf(b, "{%s%s}", e, p->conv == 'f' ? ":.2f" : chance(0.15) ? "!r" : "");
            break;
        case ST_PLAIN:
            break;
        }
    }
    core_buf_putc(b, '"');
    switch (t->style) {
    case ST_PERCENT:
        for (uint32_t i = 0; i < nargs; i++)
            core_buf_printf(b, ", %s", args[i]);
        break;
    case ST_NAMED:
        core_buf_puts(b, ", {");
        for (uint32_t i = 0; i < nargs; i++)
            core_buf_printf(b, "%s\"a%u\": %s", i ? ", " : "", i + 1, args[i]);
        core_buf_putc(b, '}');
        break;
    case ST_BRACE:
        core_buf_puts(b, ".format(");
        for (uint32_t i = 0; i < nargs; i++)
            core_buf_printf(b, "%s%s", i ? ", " : "", args[i]);
        core_buf_putc(b, ')');
        break;
    default:
        break;
    }
    if (strcmp(t->level, "error") == 0 && chance(0.2))
        core_buf_puts(b, ", exc_info=True");
    core_buf_puts(b, ")\n");
}

/* ------------------------------------------------------------------ */
/* The repository                                                      */
/* ------------------------------------------------------------------ */

static int write_file(const char *path, const core_buf *b)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    size_t n = b->len ? fwrite(b->data, 1, b->len, f) : 0;
    int rc = n == b->len ? 0 : -EIO;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

/*
 * Writes nsites call sites under root; returns 0 or an errno. Templates are
 * distinct, but for a share dup of sites that log the text of an earlier
 * site (half of them in the same module, where the logger name cannot tell
 * them apart).
 */
static int generate_repo(const char *root, uint32_t nsites, double dup)
{
    unsigned hot_total = 0;
    for (size_t i = 0; i < NELEM(hot_openers); i++)
        hot_total += hot_openers[i].weight;
    uint32_t nmod = nsites / 20 ? nsites / 20 : 1;
    uint32_t npkg = (nmod + 24) / 25;
    /* Sites per module: uniform at random, so 20 on average. */
    uint32_t *per_mod = core_xcalloc(nmod, sizeof *per_mod);
    for (uint32_t i = 0; i < nsites; i++)
        per_mod[rndn(nmod)]++;
    core_map seen = {0}; /* hashes of the stored templates */
    tmpl t = {0};
    core_arena_init(&t.lits, 0);
    core_buf src = {0}, path = {0}, one = {0};
    core_vec(char *) calls = {0}; /* single-line calls on "logger", for dup */
    int rc = 0;
    char cap[64];
    core_buf_printf(&path, "%s/svc", root);
    if (mkdir(path.data, 0755) != 0)
        rc = -errno;
    for (uint32_t p = 0; p < npkg && rc == 0; p++) {
        core_buf_reset(&path);
        core_buf_printf(&path, "%s/svc/%s%u", root, packages[p % NELEM(packages)], p);
        if (mkdir(path.data, 0755) != 0)
            rc = -errno;
        core_buf_puts(&path, "/__init__.py");
        core_buf_reset(&src);
        if (rc == 0)
            rc = write_file(path.data, &src);
    }
    for (uint32_t mi = 0; mi < nmod && rc == 0; mi++) {
        uint32_t p = mi / 25;
        core_buf_reset(&src);
        core_buf_printf(&src, "\"\"\"The %s %s module.\"\"\"\nimport logging\n\n", PICK(words),
                        PICK(words));
        core_buf_puts(&src, "logger = logging.getLogger(__name__)\n");
        bool has_log = chance(0.15);
        if (has_log)
            core_buf_puts(&src, "log = logging.getLogger(__name__)\n");
        core_buf_puts(&src, "\n\n");
        size_t mod_calls = calls.n; /* this module's calls start here */
        uint32_t left = per_mod[mi], fn = 0, cls = 0;
        char prev_fn[96] = "";
        bool in_class = false;
        uint32_t methods_left = 0;
        while (left > 0) {
            if (methods_left == 0 && in_class) {
                in_class = false;
                core_buf_puts(&src, "\n");
            }
            if (!in_class && chance(0.5)) {
                in_class = true;
                methods_left = 2 + rndn(4);
                core_buf_printf(&src,
                                "class %s%s%u:\n    \"\"\"Handles %s.\"\"\"\n\n"
                                "    def __init__(self, name):\n        self.name = name\n"
                                "        self.logger = logging.getLogger(__name__)\n\n",
                                capitalized(PICK(words), cap, sizeof cap), PICK(class_suffixes),
                                cls++, PICK(words));
            }
            const char *ind = in_class ? "        " : "    ";
            char fname[96];
            snprintf(fname, sizeof fname, "%s_%s_%u", PICK(verbs), PICK(words), fn++);
            if (in_class) {
                core_buf_printf(&src, "    def %s(self, %s):\n", fname, PICK(params));
                methods_left--;
            } else {
                core_buf_printf(&src, "def %s(%s):\n", fname, PICK(params));
            }
            uint32_t nsite = 1 + rndn(3);
            if (nsite > left)
                nsite = left;
            for (uint32_t s = 0; s < nsite; s++) {
                if (calls.n > 0 && chance(dup)) {
                    bool here = calls.n > mod_calls && chance(0.5);
                    size_t c = here ? mod_calls + rndn((uint32_t)(calls.n - mod_calls))
                                    : rndn((uint32_t)calls.n);
                    core_buf_printf(&src, "%s%s", ind, calls.v[c]);
                    continue;
                }
                bool ins = false;
                for (int tries = 0; tries < 1000 && !ins; tries++) {
                    tmpl_generate(&t, hot_total);
                    uint64_t h = core_hash64(t.text.data, t.text.len, 7);
                    core_map_put(&seen, h == UINT64_MAX ? 0 : h, &ins);
                }
                const char *recv = in_class && chance(0.3)  ? "self.logger"
                                   : has_log && chance(0.5) ? "log"
                                                            : "logger";
                double shape = core_unit_double(rnd());
                core_buf ind2 = {0};
                core_buf_printf(&ind2, "%s    ", ind);
                const char *call_ind = ind2.data;
                if (strcmp(t.level, "exception") == 0 || shape < 0.1) {
                    core_buf_printf(&src,
                                    "%stry:\n%s    self_check(%s)\n%sexcept Exception as "
                                    "exc:\n",
                                    ind, ind, "key", ind);
                } else if (shape < 0.4) {
                    core_buf_printf(&src, "%sif attempt > %u:\n", ind, rndn(5));
                } else {
                    call_ind = ind;
                }
                core_buf_reset(&one);
                py_call(&one, &t, recv, "");
                if (!t.multiline_source && strcmp(recv, "logger") == 0)
                    core_vec_push(&calls, core_xstrdup(one.data));
                core_buf_printf(&src, "%s%s", call_ind, one.data);
                core_buf_free(&ind2);
            }
            /* Calls between the module's functions, for the code graph. */
            if (prev_fn[0] && !in_class && chance(0.5))
                core_buf_printf(&src, "%sreturn %s(key)\n", ind, prev_fn);
            else
                core_buf_printf(&src, "%sreturn None\n", ind);
            if (!in_class)
                snprintf(prev_fn, sizeof prev_fn, "%s", fname);
            core_buf_puts(&src, "\n\n");
            left -= nsite;
        }
        core_buf_reset(&path);
        core_buf_printf(&path, "%s/svc/%s%u/%s_%u.py", root, packages[p % NELEM(packages)], p,
                        PICK(words), mi);
        rc = write_file(path.data, &src);
    }
    for (size_t i = 0; i < calls.n; i++)
        free(calls.v[i]);
    core_vec_free(&calls);
    core_buf_free(&one);
    core_buf_free(&src);
    core_buf_free(&path);
    core_buf_free(&t.text);
    core_arena_free(&t.lits);
    core_map_free(&seen);
    free(per_mod);
    return rc;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(p);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Log lines                                                           */
/* ------------------------------------------------------------------ */

typedef struct line {
    uint64_t off;
    uint32_t len;
    uint32_t emit;   /* the site that rendered it, or GRAPH_NONE for noise */
    uint32_t logger; /* into the logger names */
    uint8_t level;   /* into level_names */
} line;

static const char *const level_names[] = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};

static uint8_t level_index(graph_level l)
{
    switch (l) {
    case GRAPH_LEVEL_TRACE:
    case GRAPH_LEVEL_DEBUG:
        return 0;
    case GRAPH_LEVEL_WARNING:
        return 2;
    case GRAPH_LEVEL_ERROR:
        return 3;
    case GRAPH_LEVEL_CRITICAL:
        return 4;
    default:
        return 1;
    }
}

static const char *const enum_values[] = {"GET",   "POST",    "PUT",       "DELETE",
                                          "ok",    "PENDING", "us-east-1", "eu-west-1",
                                          "READY", "v2",      "primary",   "HTTP/1.1"};

static void put_hex(core_buf *b, uint32_t digits)
{
    static const char hx[] = "0123456789abcdef";
    uint64_t x = rnd();
    for (uint32_t i = 0; i < digits; i++) {
        if (i % 16 == 15)
            x = rnd();
        core_buf_putc(b, hx[(x >> (4 * (i % 16))) & 15]);
    }
}

/* A value for a hole: its kind is fixed per (site, hole), so that a site
 * logs the same kinds of things each time; values come from pools of
 * realistic sizes (few hosts and regions, many ids). */
static void put_value(core_buf *b, uint32_t emit, uint32_t hole, char conv)
{
    uint64_t kind = core_hash_u64(((uint64_t)emit << 8) ^ hole) % 13;
    if (conv == 'd' || conv == 'i' || conv == 'u') {
        core_buf_printf(b, "%u", kind < 7 ? rndn(100) : rndn(1000000));
        return;
    }
    if (conv == 'f' || conv == 'e' || conv == 'g') {
        core_buf_printf(b, "%.2f", rndn(100000) / 100.0);
        return;
    }
    if (conv == 'x' || conv == 'X') {
        put_hex(b, 8);
        return;
    }
    bool repr = conv == 'r';
    if (repr)
        core_buf_putc(b, '\'');
    switch (kind) {
    case 0:
        core_buf_printf(b, "req-%08x", (uint32_t)rnd());
        break;
    case 1:
        core_buf_printf(b, "%u", rndn(100));
        break;
    case 2:
        core_buf_printf(b, "%u", rndn(10000000));
        break;
    case 3:
        core_buf_puts(b, "0x");
        put_hex(b, 12);
        break;
    case 4:
        put_hex(b, 8);
        core_buf_putc(b, '-');
        put_hex(b, 4);
        core_buf_putc(b, '-');
        put_hex(b, 4);
        core_buf_putc(b, '-');
        put_hex(b, 4);
        core_buf_putc(b, '-');
        put_hex(b, 12);
        break;
    case 5:
        core_buf_printf(b, "/var/lib/app/%s/%u.json", words[rndn(40)], rndn(500));
        break;
    case 6:
        core_buf_printf(b, "https://api%u.example.com/v1/%s/%u", rndn(4), words[rndn(30)],
                        rndn(100000));
        break;
    case 7:
        core_buf_printf(b, "10.0.%u.%u:%u", rndn(4), rndn(50), 8000 + rndn(3));
        break;
    case 8:
        if (!repr)
            core_buf_printf(b, "'%s_%u'", words[rndn(60)], rndn(20));
        else
            core_buf_printf(b, "%s_%u", words[rndn(60)], rndn(20));
        break;
    case 9:
        core_buf_puts(b, enum_values[rndn((uint32_t)NELEM(enum_values))]);
        break;
    case 10:
        core_buf_printf(b, "%.3f", rndn(100000) / 1000.0);
        break;
    case 11:
        put_hex(b, 40);
        break;
    default:
        core_buf_printf(b, "db-%u.internal", rndn(12));
        break;
    }
    if (repr)
        core_buf_putc(b, '\'');
}

/* graph_directive() at t (t[0] == '%'), writing the conversion. */
static size_t directive(const char *t, char *conv)
{
    size_t d = graph_directive(t, strlen(t));
    if (d)
        *conv = t[d - 1];
    return d;
}

/* Renders a stored template; newlines stay (or, as some log pipelines
 * write them, become "\n"). Returns the literal bytes. */
static uint32_t render(core_buf *b, const char *t, uint32_t emit, bool escape_nl)
{
    uint32_t hole = 0, literal = 0;
    for (size_t i = 0; t[i];) {
        char conv = 's';
        size_t d;
        if (t[i] == '%' && t[i + 1] == '%') {
            core_buf_putc(b, '%');
            literal++;
            i += 2;
        } else if (t[i] == '%' && (d = directive(t + i, &conv)) > 0) {
            put_value(b, emit, hole++, conv);
            i += d;
        } else {
            if (t[i] == '\n' && escape_nl)
                core_buf_puts(b, "\\n");
            else
                core_buf_putc(b, t[i]);
            literal++;
            i++;
        }
    }
    return literal;
}

/* Syllables for words that no template has. */
static const char *const syl[] = {"ka", "zu", "mo", "vi", "xe", "qo", "lu", "fy",
                                  "bo", "ne", "ga", "pi", "yo", "wu", "hi", "jo"};

static void noise_word(core_buf *b)
{
    uint32_t n = 2 + rndn(3);
    for (uint32_t i = 0; i < n; i++)
        core_buf_puts(b, PICK(syl));
}

/* A line no template produced: another library's message or a traceback
 * line. */
static void render_noise(core_buf *b)
{
    switch (rndn(4)) {
    case 0:
        core_buf_printf(b, "  File \"/usr/lib/python3/dist-packages/%s/%s.py\", line %u, in ",
                        syl[rndn(16)], syl[rndn(16)], 1 + rndn(3000));
        noise_word(b);
        break;
    case 1:
        core_buf_printf(b, "[%u] ", rndn(100000));
        noise_word(b);
        core_buf_putc(b, ' ');
        noise_word(b);
        core_buf_printf(b, " 0x%08x ", (uint32_t)rnd());
        noise_word(b);
        break;
    default: {
        uint32_t n = 3 + rndn(8);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                core_buf_putc(b, ' ');
            if (chance(0.25))
                put_value(b, (uint32_t)rnd(), i, 's');
            else
                noise_word(b);
        }
        break;
    }
    }
}

static const char *const noise_loggers[] = {"urllib3.connectionpool", "kafka.consumer.fetcher",
                                            "asyncio", "storage.engine.Engine", "root"};

/* ------------------------------------------------------------------ */
/* Measurement                                                         */
/* ------------------------------------------------------------------ */

typedef struct figures {
    uint32_t sites, templates, files;
    uint64_t lines, noise, distinct;
    size_t bytes;
    double index_s, build_s, gen_s;
    double matcher_lps, mapper_lps, mapper_cached_lps;
    uint64_t correct, in_cands, noise_rejected; /* matcher */
    uint64_t map_correct, map_noise_rejected;   /* mapper */
    uint64_t partial;                           /* matched as truncated */
    uint32_t ambiguous;                         /* sites that share text and logger */
    uint64_t ambiguous_lines;
    uint32_t max_bucket, loose;
    char max_bucket_key[8];
    uint32_t activities;
} figures;

typedef struct opts {
    uint32_t templates;
    uint64_t lines;
    double noise, zipf, dup;
    uint64_t seed;
    bool json, keep;
    const char *graph;
    uint32_t misses;
    const char *dump;
} opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_map_speed [--templates N] [--lines N] [--noise F] [--zipf S]\n"
               "                       [--seed N] [--graph FILE] [--keep] [--json]\n"
               "  --templates N  logging call sites to generate (5000)\n"
               "  --lines N      log lines to render (1000000)\n"
               "  --noise F      share of lines no template produced (0.05)\n"
               "  --zipf S       skew of the template popularity (1.0)\n"
               "  --dup F        share of sites that log an earlier site's text (0)\n"
               "  --graph FILE   use this graph's sites instead of a generated repo\n"
               "  --keep         keep the generated repository (its path is printed)\n"
               "  --misses N     print up to N lines matched wrongly, with their match\n"
               "  --dump FILE    write each line's match (to compare matcher versions)\n"
               "  --json         one JSON object on stdout, the summary on stderr\n");
}

static bool parse_opts(int argc, char **argv, opts *o)
{
    *o = (opts){5000, 1000000, 0.05, 1.0, 0, 42, false, false, NULL, 0, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strcmp(a, "--keep") == 0) {
            o->keep = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (!v) {
            fprintf(stderr, "bench_map_speed: %s needs a value\n", a);
            return false;
        }
        i++;
        errno = 0;
        if (strcmp(a, "--templates") == 0) {
            unsigned long x = strtoul(v, &end, 10);
            o->templates = (uint32_t)x;
            if (x < 1 || x > 10000000)
                end = NULL;
        } else if (strcmp(a, "--lines") == 0) {
            unsigned long long x = strtoull(v, &end, 10);
            o->lines = x;
            if (x < 1 || x > 1000000000ull)
                end = NULL;
        } else if (strcmp(a, "--noise") == 0) {
            o->noise = strtod(v, &end);
            if (!(o->noise >= 0 && o->noise <= 1))
                end = NULL;
        } else if (strcmp(a, "--dup") == 0) {
            o->dup = strtod(v, &end);
            if (!(o->dup >= 0 && o->dup <= 1))
                end = NULL;
        } else if (strcmp(a, "--zipf") == 0) {
            o->zipf = strtod(v, &end);
            if (!(o->zipf >= 0 && o->zipf <= 5))
                end = NULL;
        } else if (strcmp(a, "--misses") == 0) {
            unsigned long x = strtoul(v, &end, 10);
            o->misses = (uint32_t)x;
        } else if (strcmp(a, "--seed") == 0) {
            o->seed = strtoull(v, &end, 10);
        } else if (strcmp(a, "--graph") == 0) {
            o->graph = v;
            continue;
        } else if (strcmp(a, "--dump") == 0) {
            o->dump = v;
            continue;
        } else {
            fprintf(stderr, "bench_map_speed: unknown option %s\n", a);
            usage(stderr);
            return false;
        }
        if (!end || *end || errno) {
            fprintf(stderr, "bench_map_speed: bad value for %s: '%s'\n", a, v);
            return false;
        }
    }
    return true;
}

static double secs(uint64_t t0)
{
    return (double)(core_now_ns() - t0) / 1e9;
}

/* The calling thread's CPU time: matching and mapping run on one thread,
 * and the goal is per core, so a busy machine (a build beside the run)
 * does not lower the figures as wall-clock time would. */
static uint64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_secs(uint64_t t0)
{
    return (double)(cpu_now_ns() - t0) / 1e9;
}

/* The module name a site's logging.getLogger(__name__) gives. */
static const char *site_logger(const graph *g, const graph_emit *e)
{
    graph_symbol s, ms;
    graph_file_info f;
    graph_get_symbol(g, e->symbol, &s);
    graph_get_file(g, s.file_id, &f);
    graph_get_symbol(g, f.module, &ms);
    return ms.qualname;
}

/* Literal bytes of a stored template, its first four, and whether it
 * starts and ends with a hole (then the matcher scans it for every line). */
static uint32_t tmpl_shape(const char *t, char key[5], bool *loose)
{
    uint32_t lit = 0, klen = 0;
    bool starts = false, ends = false;
    for (size_t i = 0; t[i];) {
        char conv;
        size_t d;
        if (t[i] == '%' && t[i + 1] != '%' && (d = directive(t + i, &conv)) > 0) {
            if (i == 0)
                starts = true;
            i += d;
            ends = !t[i];
            continue;
        }
        if (!starts && klen < 4 && lit == klen && t[i] != '\n')
            key[klen++] = t[i];
        lit++;
        i += t[i] == '%' ? 2 : 1;
    }
    key[klen] = '\0';
    *loose = starts && ends;
    return lit;
}

static void show_miss(const graph *g, const line *l, const char *text, const map_match *r,
                      const uint32_t *emits)
{
    graph_emit e;
    fprintf(stderr, "miss: \"%s\"\n", text);
    if (l->emit != GRAPH_NONE) {
        graph_get_emit(g, l->emit, &e);
        fprintf(stderr, "  from   #%u \"%s\"\n", l->emit, e.tmpl);
    } else {
        fprintf(stderr, "  from   noise\n");
    }
    for (uint32_t k = 0; k < r->nemits && k < 4; k++) {
        graph_get_emit(g, emits[k], &e);
        fprintf(stderr, "  match  #%u \"%s\"%s\n", emits[k], e.tmpl,
                r->flags & MAP_MATCH_PARTIAL ? " (partial)" : "");
    }
}

int main(int argc, char **argv)
{
    opts o;
    if (!parse_opts(argc, argv, &o))
        return 2;
    rng_state = o.seed;
    figures fg = {0};
    char root[1024], gpath[sizeof root + 32];
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/pmrag-map-speed-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    bool made = false;
    int rc;
    uint64_t t0;

    if (!o.graph) {
        if (!mkdtemp(root)) {
            perror("bench_map_speed: mkdtemp");
            return 2;
        }
        made = true;
        snprintf(gpath, sizeof gpath, "%s/repo.graph", root);
        char repo[sizeof root + 8];
        snprintf(repo, sizeof repo, "%s/repo", root);
        t0 = core_now_ns();
        rc = mkdir(repo, 0755) != 0 ? -errno : generate_repo(repo, o.templates, o.dup);
        if (rc) {
            fprintf(stderr, "bench_map_speed: writing %s: %s\n", repo, strerror(-rc));
            nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            return 2;
        }
        fg.gen_s = secs(t0);
        const char *roots[] = {repo};
        graph_index_opts io = {0};
        graph_index_stats st;
        t0 = core_now_ns();
        rc = graph_index(roots, 1, gpath, &io, &st);
        fg.index_s = secs(t0);
        if (rc) {
            fprintf(stderr, "bench_map_speed: indexing %s: %s\n", repo, core_strerror(rc));
            nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            return 2;
        }
        fg.files = (uint32_t)st.files_indexed;
    }
    graph *g = NULL;
    char why[256];
    rc = graph_open(o.graph ? o.graph : gpath, &g, why, sizeof why);
    if (rc) {
        fprintf(stderr, "bench_map_speed: %s: %s\n", o.graph ? o.graph : gpath, why);
        return 2;
    }
    t0 = core_now_ns();
    map_matcher *m;
    rc = map_matcher_build(g, NULL, &m);
    fg.build_s = secs(t0);
    if (rc) {
        fprintf(stderr, "bench_map_speed: map_matcher_build: %s\n", core_strerror(rc));
        return 2;
    }
    fg.templates = map_matcher_count(m);

    /* The sites lines are rendered from: log, print and warning calls with
     * enough literal text for the matcher to compile them. */
    uint32_t ne = graph_nemits(g);
    uint32_t *sites = core_xmalloc((ne ? ne : 1) * sizeof *sites);
    const char **loggers = core_xmalloc((ne + NELEM(noise_loggers) + 1) * sizeof *loggers);
    uint32_t *site_lg = core_xmalloc((ne ? ne : 1) * sizeof *site_lg);
    core_map buckets = {0};
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(g, i, &e);
        if (e.kind != GRAPH_EMIT_LOG && e.kind != GRAPH_EMIT_PRINT && e.kind != GRAPH_EMIT_WARN)
            continue;
        if (e.style == GRAPH_STYLE_NONE || e.style == GRAPH_STYLE_DYNAMIC ||
            e.style == GRAPH_STYLE_REF || !e.tmpl[0] || e.symbol == GRAPH_NONE)
            continue;
        char key[5];
        bool loose;
        if (tmpl_shape(e.tmpl, key, &loose) < 3)
            continue;
        fg.loose += loose;
        if (key[0]) {
            bool ins;
            uint64_t h = core_hash64(key, strlen(key), 1);
            uint64_t *v = core_map_put(&buckets, h == UINT64_MAX ? 0 : h, &ins);
            if (++*v > fg.max_bucket) {
                fg.max_bucket = (uint32_t)*v;
                memcpy(fg.max_bucket_key, key, sizeof key);
            }
        }
        site_lg[fg.sites] = fg.sites;
        loggers[fg.sites] = site_logger(g, &e);
        sites[fg.sites++] = i;
    }
    core_map_free(&buckets);
    /* Sites whose text another site of the same logger logs too: the
     * message cannot tell them apart (the level may), so for them a match
     * is right when it includes them. */
    bool *amb = core_xcalloc(ne ? ne : 1, sizeof *amb);
    core_map same = {0};
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < fg.sites; i++) {
            graph_emit e;
            graph_get_emit(g, sites[i], &e);
            uint64_t h = core_hash64(e.tmpl, strlen(e.tmpl), 3);
            h = core_hash64(loggers[i], strlen(loggers[i]), h);
            bool ins;
            uint64_t *v = core_map_put(&same, h == UINT64_MAX ? 0 : h, &ins);
            if (pass == 0)
                ++*v;
            else if (*v > 1)
                amb[sites[i]] = true, fg.ambiguous++;
        }
    core_map_free(&same);
    if (fg.sites == 0) {
        fprintf(stderr, "bench_map_speed: no usable emit sites in the graph\n");
        return 2;
    }
    for (size_t i = 0; i < NELEM(noise_loggers); i++)
        loggers[fg.sites + i] = noise_loggers[i];

    /* Zipf over the sites, in a random order of popularity. */
    double *cdf = core_xmalloc(fg.sites * sizeof *cdf);
    uint32_t *perm = core_xmalloc(fg.sites * sizeof *perm);
    for (uint32_t i = 0; i < fg.sites; i++)
        perm[i] = i;
    for (uint32_t i = fg.sites; i > 1; i--) {
        uint32_t j = rndn(i), x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
    double acc = 0;
    for (uint32_t i = 0; i < fg.sites; i++)
        cdf[i] = acc += 1.0 / pow(i + 1.0, o.zipf);
    for (uint32_t i = 0; i < fg.sites; i++)
        cdf[i] /= acc;

    t0 = core_now_ns();
    line *lines = core_xmalloc(o.lines * sizeof *lines);
    core_buf text = {0};
    core_map distinct = {0};
    for (uint64_t li = 0; li < o.lines; li++) {
        line *l = &lines[li];
        l->off = text.len;
        if (chance(o.noise)) {
            render_noise(&text);
            l->emit = GRAPH_NONE;
            l->logger = fg.sites + rndn((uint32_t)NELEM(noise_loggers));
            l->level = (uint8_t)rndn(4);
            fg.noise++;
        } else {
            double u = core_unit_double(rnd());
            uint32_t lo = 0, hi = fg.sites - 1;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (cdf[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            uint32_t s = perm[lo];
            graph_emit e;
            graph_get_emit(g, sites[s], &e);
            render(&text, e.tmpl, sites[s], chance(0.3));
            l->emit = sites[s];
            l->logger = site_lg[s];
            l->level = level_index(e.level);
        }
        l->len = (uint32_t)(text.len - l->off);
        core_buf_putc(&text, '\0');
        /* Distinct (message, logger, level), as the mapper's cache keys. */
        uint64_t h = core_hash64(text.data + l->off, l->len, 0x6d7367);
        h = core_hash64(loggers[l->logger], strlen(loggers[l->logger]), h);
        h = core_hash64(level_names[l->level], strlen(level_names[l->level]), h ^ 0x1e7e1);
        bool ins;
        core_map_put(&distinct, h == UINT64_MAX ? 0 : h, &ins);
        fg.distinct += ins;
    }
    core_map_free(&distinct);
    fg.lines = o.lines;
    fg.bytes = text.len - o.lines;
    fg.gen_s += secs(t0);

    /* (a) The matcher alone, no cache. */
    map_match_work *w = map_match_work_new(m);
    uint32_t emits[16];
    for (uint64_t li = 0; li < o.lines && li < 1000; li++) /* warm up */
        map_matcher_match(m, w, text.data + lines[li].off, lines[li].len, loggers[lines[li].logger],
                          level_names[lines[li].level], emits, 16);
    t0 = cpu_now_ns();
    for (uint64_t li = 0; li < o.lines; li++) {
        const line *l = &lines[li];
        map_match r = map_matcher_match(m, w, text.data + l->off, l->len, loggers[l->logger],
                                        level_names[l->level], emits, 16);
        bool in = false;
        for (uint32_t k = 0; k < r.nemits && k < 16; k++)
            in |= emits[k] == l->emit;
        bool ok = l->emit == GRAPH_NONE ? r.nemits == 0
                  : amb[l->emit]        ? in
                                        : r.nemits == 1 && emits[0] == l->emit;
        if (!ok && o.misses > 0) {
            o.misses--;
            show_miss(g, l, text.data + l->off, &r, emits);
        }
        if (l->emit == GRAPH_NONE) {
            fg.noise_rejected += r.nemits == 0;
            continue;
        }
        fg.correct += ok;
        fg.in_cands += in;
        fg.ambiguous_lines += amb[l->emit];
        fg.partial += (r.flags & MAP_MATCH_PARTIAL) != 0;
    }
    fg.matcher_lps = (double)o.lines / cpu_secs(t0);
    if (o.dump) {
        /* Untimed: every line's match, one line each. */
        FILE *f = fopen(o.dump, "w");
        if (!f) {
            fprintf(stderr, "bench_map_speed: %s: %s\n", o.dump, strerror(errno));
            return 2;
        }
        for (uint64_t li = 0; li < o.lines; li++) {
            const line *l = &lines[li];
            map_match r = map_matcher_match(m, w, text.data + l->off, l->len, loggers[l->logger],
                                            level_names[l->level], emits, 16);
            fprintf(f, "%u %u %u %u", r.nemits, r.nmatched, r.literal, r.flags);
            for (uint32_t k = 0; k < r.nemits && k < 16; k++)
                fprintf(f, " %u", emits[k]);
            fputc('\t', f);
            for (uint32_t k = 0; k < l->len; k++) {
                char c = text.data[l->off + k];
                if (c == '\n')
                    fputs("\\n", f);
                else
                    fputc(c, f);
            }
            fputc('\n', f);
        }
        fclose(f);
    }
    map_match_work_free(w);

    /* (b) The mapper: a fresh one (its cache fills as it goes), then the
     * same lines again (all cached). Cases of 32 events. */
    map_mapper *mp;
    map_mapper_opts mo = {0};
    rc = map_mapper_new(g, &mo, &mp);
    if (rc) {
        fprintf(stderr, "bench_map_speed: map_mapper_new: %s\n", core_strerror(rc));
        return 2;
    }
    uint32_t *acts = core_xmalloc(o.lines * sizeof *acts);
    for (int pass = 0; pass < 2; pass++) {
        uint32_t prev = UINT32_MAX;
        t0 = cpu_now_ns();
        for (uint64_t li = 0; li < o.lines; li++) {
            const line *l = &lines[li];
            map_event ev = {0};
            ev.text = text.data + l->off;
            ev.len = l->len;
            ev.logger = loggers[l->logger];
            ev.level = level_names[l->level];
            ev.learn = true;
            uint32_t var;
            if (li % 32 == 0)
                prev = UINT32_MAX;
            map_mapper_map(mp, &ev, &prev, prev != UINT32_MAX, NULL, 0, &acts[li], &var);
            prev = acts[li];
        }
        double lps = (double)o.lines / cpu_secs(t0);
        if (pass == 0)
            fg.mapper_lps = lps;
        else
            fg.mapper_cached_lps = lps;
    }
    fg.activities = map_mapper_nactivities(mp);
    for (uint64_t li = 0; li < o.lines; li++) {
        map_activity a;
        map_mapper_activity(mp, acts[li], &a);
        if (lines[li].emit == GRAPH_NONE) {
            fg.map_noise_rejected += a.nsyms == 0;
            continue;
        }
        graph_emit e;
        graph_get_emit(g, lines[li].emit, &e);
        bool in = false;
        for (uint32_t k = 0; k < a.nsyms; k++)
            in |= a.syms[k] == e.symbol;
        fg.map_correct += amb[lines[li].emit] ? in : a.nsyms == 1 && a.syms[0] == e.symbol;
    }
    free(acts);
    map_mapper_free(mp);

    uint64_t tl = fg.lines - fg.noise;
    double correct = tl ? 100.0 * (double)fg.correct / (double)tl : 100.0;
    double in_cands = tl ? 100.0 * (double)fg.in_cands / (double)tl : 100.0;
    double map_correct = tl ? 100.0 * (double)fg.map_correct / (double)tl : 100.0;
    double noise_rej = fg.noise ? 100.0 * (double)fg.noise_rejected / (double)fg.noise : 100.0;
    double map_noise_rej =
        fg.noise ? 100.0 * (double)fg.map_noise_rejected / (double)fg.noise : 100.0;
    FILE *sum = o.json ? stderr : stdout;
    if (o.json) {
        core_buf j = {0};
        core_buf_printf(&j, "{\"bench\":\"map_speed\",\"source\":");
        core_buf_json_str(&j, o.graph ? o.graph : "synthetic",
                          strlen(o.graph ? o.graph : "synthetic"));
        core_buf_printf(
            &j,
            ",\"seed\":%llu,\"sites_generated\":%u,\"files\":%u,\"templates\":%u,"
            "\"sites_rendered\":%u,\"largest_prefix_bucket\":%u,\"largest_prefix_key\":",
            (unsigned long long)o.seed, o.graph ? 0 : o.templates, fg.files, fg.templates, fg.sites,
            fg.max_bucket);
        core_buf_json_str(&j, fg.max_bucket_key, strlen(fg.max_bucket_key));
        core_buf_printf(&j,
                        ",\"hole_both_ends\":%u,\"lines\":%llu,\"noise_lines\":%llu,\"bytes\":%zu,"
                        "\"distinct\":%llu,\"zipf\":%g,\"index_s\":%.3f,\"matcher_build_s\":%.3f,"
                        "\"matcher_lines_per_s\":%.0f,\"mapper_lines_per_s\":%.0f,"
                        "\"mapper_cached_lines_per_s\":%.0f,\"activities\":%u,"
                        "\"correct_pct\":%.4f,\"in_candidates_pct\":%.4f,\"partial_matches\":%llu,"
                        "\"noise_rejected_pct\":%.4f,\"mapper_correct_pct\":%.4f,"
                        "\"mapper_noise_rejected_pct\":%.4f,\"dup\":%g,\"ambiguous_sites\":%u,"
                        "\"ambiguous_lines\":%llu,\"goal_lines_per_s\":500000}\n",
                        fg.loose, (unsigned long long)fg.lines, (unsigned long long)fg.noise,
                        fg.bytes, (unsigned long long)fg.distinct, o.zipf, fg.index_s, fg.build_s,
                        fg.matcher_lps, fg.mapper_lps, fg.mapper_cached_lps, fg.activities, correct,
                        in_cands, (unsigned long long)fg.partial, noise_rej, map_correct,
                        map_noise_rej, o.dup, fg.ambiguous, (unsigned long long)fg.ambiguous_lines);
        fwrite(j.data, 1, j.len, stdout);
        core_buf_free(&j);
    } else {
        fprintf(sum,
                "repo: %u sites generated in %u files (%.2f s), indexed in %.2f s; "
                "%u templates compiled in %.2f s\n"
                "lines: %llu (%llu noise, %.1f MB), %llu distinct; largest prefix bucket '%s' "
                "%u templates, %u with holes at both ends\n"
                "matcher: correct %.4f%% (site among candidates %.4f%%, %llu partial), noise "
                "rejected %.4f%%; %u sites share text and logger with another (%llu lines)\n"
                "mapper: correct %.4f%%, noise unmapped %.4f%%, %u activities; all cached: "
                "%.2fM lines/s\n",
                o.graph ? 0 : o.templates, fg.files, fg.gen_s, fg.index_s, fg.templates, fg.build_s,
                (unsigned long long)fg.lines, (unsigned long long)fg.noise, (double)fg.bytes / 1e6,
                (unsigned long long)fg.distinct, fg.max_bucket_key, fg.max_bucket, fg.loose,
                correct, in_cands, (unsigned long long)fg.partial, noise_rej, fg.ambiguous,
                (unsigned long long)fg.ambiguous_lines, map_correct, map_noise_rej, fg.activities,
                fg.mapper_cached_lps / 1e6);
    }
    fflush(stdout);
    fprintf(sum,
            "templates %u, lines %llu, distinct %llu: matcher %.2fM lines/s, mapper %.2fM "
            "lines/s, correct %.2f%% (goal >= 0.5M lines/s on one core)\n",
            fg.templates, (unsigned long long)fg.lines, (unsigned long long)fg.distinct,
            fg.matcher_lps / 1e6, fg.mapper_lps / 1e6, correct);

    free(lines);
    core_buf_free(&text);
    free(cdf);
    free(perm);
    free(sites);
    free(site_lg);
    free(amb);
    free(loggers);
    map_matcher_free(m);
    graph_close(g);
    if (made) {
        if (o.keep)
            fprintf(stderr, "bench_map_speed: kept %s\n", root);
        else
            nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (!o.graph && correct < 99.0) {
        fprintf(stderr,
                "bench_map_speed: only %.2f%% of template lines matched their own site "
                "(< 99%%)\n",
                correct);
        return 1;
    }
    return 0;
}
