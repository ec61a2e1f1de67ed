/*
 * pmrag state dump, pmrag state stats: inspecting a daemon's state
 * directory. Opened read-only, so both may run next to the daemon; nothing
 * is created, not even in a directory that is not a state directory.
 */
#include "cli.h"
#include "commands.h"
#include "ingest.h"
#include "sessions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_AT (1u << 20)

/* Errors name "pmrag state" whichever subcommand ran: the message names
 * the directory, which is what is at fault. */
static int open_state(const char *dir, sess_env **e)
{
    sess_opts o = {.path = dir, .read_only = true, .log = cli_logger(cli_quiet())};
    char why[1024];
    int rc = sess_open(&o, e, why, sizeof why);
    if (rc) {
        cli_error("state", "%s", why);
        return cli_exit_status(rc);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* dump                                                                */
/* ------------------------------------------------------------------ */

typedef struct dict_text {
    size_t off, len; /* in dump.texts */
} dict_text;

/* The events a case holds back, counted from the held table: the case's
 * own record is written when they are released, not when they come. */
typedef struct held_count {
    const char *id; /* (set once held_ids is complete: off until then) */
    size_t off, len;
    uint32_t n;
} held_count;

typedef struct dump {
    core_buf texts;
    core_buf held_ids;
    core_vec(held_count) held; /* by case id, as the cases are listed */
    size_t held_next;
    core_vec(dict_text) ents;
    core_map by_id; /* activity id -> index in ents */
    core_buf out;
    bool json;
    int werr;
    uint64_t n;
} dump;

static int add_text(void *ud, uint32_t id, const char *text, size_t len)
{
    dump *d = ud;
    bool ins;
    *core_map_put(&d->by_id, id, &ins) = d->ents.n;
    dict_text t = {d->texts.len, len};
    core_buf_append(&d->texts, text, len);
    core_vec_push(&d->ents, t);
    return 0;
}

/* The text of an activity, or NULL when the dictionary lacks it. */
static const dict_text *activity(const dump *d, uint32_t id)
{
    const uint64_t *i = core_map_get(&d->by_id, id);
    return i ? &d->ents.v[*i] : NULL;
}

/* Appends text for the table: control characters as '?', cut at max
 * bytes with "...", padded to width. */
static void cell(core_buf *b, const char *s, size_t n, size_t max, int width)
{
    size_t start = b->len;
    for (size_t i = 0; i < n; i++) {
        if (i == max) {
            core_buf_puts(b, "...");
            break;
        }
        unsigned char c = (unsigned char)s[i];
        core_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
    for (size_t w = b->len - start; w < (size_t)width; w++)
        core_buf_putc(b, ' ');
}

static int add_held(void *ud, const char *id, size_t len, uint64_t no, const void *val, size_t n)
{
    (void)no, (void)val, (void)n;
    dump *d = ud;
    core_vec_push(&d->held, ((held_count){NULL, d->held_ids.len, len, 1}));
    core_buf_append(&d->held_ids, id, len);
    return 0;
}

/* As LMDB orders keys: bytewise, a prefix first. */
static int cmp_id(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

static int cmp_held(const void *a, const void *b)
{
    const held_count *x = a, *y = b;
    return cmp_id(x->id, x->len, y->id, y->len);
}

/* The held table's entries as counts per case, sorted by case id. */
static int held_counts(sess_env *e, dump *d)
{
    int rc = sess_held_iter(e, add_held, d);
    for (size_t i = 0; i < d->held.n; i++)
        d->held.v[i].id = d->held_ids.data + d->held.v[i].off;
    if (d->held.n)
        qsort(d->held.v, d->held.n, sizeof *d->held.v, cmp_held);
    size_t w = 0;
    for (size_t i = 0; i < d->held.n; i++) {
        if (w && cmp_held(&d->held.v[w - 1], &d->held.v[i]) == 0)
            d->held.v[w - 1].n++;
        else
            d->held.v[w++] = d->held.v[i];
    }
    d->held.n = w;
    return rc;
}

static int dump_row(dump *d, const char *id, size_t len, const sess_case *c, uint32_t nheld)
{
    char when[40];
    ingest_format_time(c->last_time_ns, when, sizeof when); /* both "none" are INT64_MIN */
    const dict_text *t = c->ntok ? activity(d, c->act[c->ntok - 1]) : NULL;
    core_buf *b = &d->out;
    if (d->json) {
        core_buf_puts(b, "{\"case_id\":");
        core_buf_json_str(b, id, len);
        core_buf_printf(b, ",\"seq\":%llu,\"last_activity\":", (unsigned long long)c->seq);
        if (t)
            core_buf_json_str(b, d->texts.data + t->off, t->len);
        else if (c->ntok)
            core_buf_printf(b, "%u", c->act[c->ntok - 1]);
        else
            core_buf_puts(b, "null");
        core_buf_puts(b, ",\"last_time\":");
        core_buf_json_str(b, when, strlen(when));
        core_buf_printf(b, ",\"held\":%u}\n", nheld);
    } else {
        char num[24];
        cell(b, id, len, 40, 24);
        core_buf_printf(b, " %8llu  ", (unsigned long long)c->seq);
        if (t) {
            cell(b, d->texts.data + t->off, t->len, 40, 32);
        } else {
            if (c->ntok)
                snprintf(num, sizeof num, "#%u", c->act[c->ntok - 1]);
            else
                snprintf(num, sizeof num, "-");
            cell(b, num, strlen(num), 40, 32);
        }
        core_buf_printf(b, "  %s\n", when[0] ? when : "-");
    }
    d->n++;
    if (b->len >= FLUSH_AT) {
        d->werr = cli_write_stdout("state dump", b->data, b->len);
        core_buf_reset(b);
        if (d->werr)
            return 1;
    }
    return 0;
}

/* Cases that only hold events (none applied yet, no record), up to id
 * (NULL: all that are left); then the held count of case id. */
static uint32_t held_before(dump *d, const char *id, size_t len)
{
    static const sess_case none = {.last_time_ns = INT64_MIN};
    while (d->held_next < d->held.n && !d->werr) {
        const held_count *h = &d->held.v[d->held_next];
        int c = id ? cmp_id(h->id, h->len, id, len) : -1;
        if (c > 0)
            break;
        d->held_next++;
        if (c == 0)
            return h->n;
        dump_row(d, h->id, h->len, &none, h->n);
    }
    return 0;
}

static int dump_case(void *ud, const char *id, size_t len, const sess_case *c)
{
    dump *d = ud;
    uint32_t nheld = held_before(d, id, len);
    return d->werr ? 1 : dump_row(d, id, len, c, nheld);
}

static int state_dump(int argc, char **argv)
{
    const char *dir = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"state", 0, CLI_STR, &dir, "DIR", "the daemon's state directory (required)", 0, 0},
        {"json", 0, CLI_FLAG, &json, NULL, "one JSON object per line", 0, 0},
    };
    const cli_cmd cmd = {
        "state dump",
        "--state DIR [--json]",
        "Prints every case of a daemon's state directory.",
        "Print every case of a state directory, sorted by case id: its events so far,\n"
        "its last activity and the event time of its last event."
        "\n\n"
        "JSON fields: {\"case_id\",\"seq\",\"last_activity\",\"last_time\",\"held\"}. "
        "last_activity\nis the activity's text, its numeric id when the dictionary lacks it, or "
        "null for a\ncase without events; last_time is ISO 8601 (UTC), or \"\" when unknown; "
        "held counts the\nevents received and held back in the event-time window "
        "(serve.reorder_ms), not\napplied yet. The directory is opened read-only: it may be "
        "inspected while the\ndaemon runs.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag state dump --state /var/lib/pmrag --json | head",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (!dir)
        return cli_usage_error(&cmd, "missing --state DIR");
    sess_env *e;
    rc = open_state(dir, &e);
    if (rc)
        return rc;
    dump d = {.json = json};
    rc = sess_dict_iter(e, add_text, &d);
    if (rc) {
        rc = cli_error("state", "%s: cannot read the activity dictionary: %s", dir,
                       core_strerror(rc));
        goto done;
    }
    if (!json)
        core_buf_printf(&d.out, "%-24s %8s  %-32s  %s\n", "CASE", "SEQ", "LAST ACTIVITY",
                        "LAST TIME");
    rc = held_counts(e, &d);
    if (rc) {
        rc = cli_error("state", "%s: cannot read the held events: %s", dir, core_strerror(rc));
        goto done;
    }
    rc = sess_case_iter(e, dump_case, &d);
    if (!rc && !d.werr)
        held_before(&d, NULL, 0);
    if (d.werr) {
        rc = d.werr;
        goto done;
    }
    int wrc = cli_write_stdout("state dump", d.out.data, d.out.len);
    if (rc)
        /* Each unreadable case was named in a warning already. */
        rc = cli_error("state", "%s: some cases could not be read: %s", dir, core_strerror(rc));
    else
        rc = wrc;
done:
    core_buf_free(&d.out);
    core_buf_free(&d.texts);
    core_buf_free(&d.held_ids);
    core_vec_free(&d.held);
    core_vec_free(&d.ents);
    core_map_free(&d.by_id);
    sess_close(e);
    return rc;
}

/* ------------------------------------------------------------------ */
/* stats                                                               */
/* ------------------------------------------------------------------ */

typedef struct offs {
    core_buf *b;
    bool json;
    uint64_t n;
} offs;

static int add_offset(void *ud, const char *topic, int32_t partition, int64_t next)
{
    offs *o = ud;
    if (o->json) {
        core_buf_puts(o->b, o->n ? ",{\"topic\":" : "{\"topic\":");
        core_buf_json_str(o->b, topic, strlen(topic));
        core_buf_printf(o->b, ",\"partition\":%d,\"next_offset\":%lld}", partition,
                        (long long)next);
    } else {
        size_t start = o->b->len;
        core_buf_printf(o->b, "  %s/%d", topic, partition);
        for (size_t w = o->b->len - start; w < 24; w++)
            core_buf_putc(o->b, ' ');
        core_buf_printf(o->b, " %lld\n", (long long)next);
    }
    o->n++;
    return 0;
}

static void size_line(core_buf *b, const char *label, size_t n)
{
    double mib = (double)n / (1024.0 * 1024.0);
    if (mib >= 1)
        core_buf_printf(b, "%-12s %zu bytes (%.1f MiB)\n", label, n, mib);
    else
        core_buf_printf(b, "%-12s %zu bytes (%.1f KiB)\n", label, n, (double)n / 1024.0);
}

static int state_stats(int argc, char **argv)
{
    const char *dir = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"state", 0, CLI_STR, &dir, "DIR", "the daemon's state directory (required)", 0, 0},
        {"json", 0, CLI_FLAG, &json, NULL, "print JSON", 0, 0},
    };
    const cli_cmd cmd = {
        "state stats",
        "--state DIR [--json]",
        "Counts the cases, dictionary, counters and sizes of a daemon's state directory.",
        "Counts of a state directory: cases, activity dictionary entries, directly-follows\n"
        "counters, the next input offset of every topic partition, and the size of the\n"
        "LMDB map, of what it uses and of data.mdb."
        "\n\n"
        "JSON fields: {\"cases\",\"dict\",\"counters\",\"offsets\":[{\"topic\",\"partition\","
        "\"next_offset\"}],\n\"map_size\",\"used_bytes\",\"free_bytes\",\"file_bytes\","
        "\"page_size\",\"bytes_per_case\"}. used_bytes is\nhow far into the map LMDB has "
        "written (its high-water mark); free_bytes, the part of it\non LMDB's free list, reused "
        "before the file grows: used_bytes - free_bytes holds data.\nbytes_per_case is used_bytes "
        "per case (0 without cases): the space a case takes with\nits index entry and LMDB's "
        "overhead. Opened read-only.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag state stats --state /var/lib/pmrag",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (!dir)
        return cli_usage_error(&cmd, "missing --state DIR");
    sess_env *e;
    rc = open_state(dir, &e);
    if (rc)
        return rc;
    sess_stats st;
    sess_get_stats(e, &st);
    size_t on_free_list = sess_free_bytes(e);
    uint64_t per_case = st.cases ? (st.used_bytes + st.cases / 2) / st.cases : 0;
    core_buf ob = {0}, b = {0};
    offs o = {.b = &ob, .json = json};
    rc = sess_offset_iter(e, add_offset, &o);
    if (rc) {
        rc = cli_error("state", "%s: cannot read the offsets: %s", dir, core_strerror(rc));
        goto done;
    }
    if (json) {
        core_buf_printf(&b,
                        "{\"cases\":%llu,\"held\":%llu,\"dict\":%llu,\"counters\":%llu,"
                        "\"offsets\":[%s],",
                        (unsigned long long)st.cases, (unsigned long long)st.held,
                        (unsigned long long)st.dict, (unsigned long long)st.counters,
                        ob.data ? ob.data : "");
        core_buf_printf(&b,
                        "\"map_size\":%zu,\"used_bytes\":%zu,\"free_bytes\":%zu,\"file_bytes\":%zu,"
                        "\"page_size\":%zu,\"bytes_per_case\":%llu}\n",
                        st.map_size, st.used_bytes, on_free_list, st.file_bytes, st.page_size,
                        (unsigned long long)per_case);
    } else {
        core_buf_printf(&b, "%-12s %llu\n", "cases", (unsigned long long)st.cases);
        core_buf_printf(&b, "%-12s %llu events\n", "held", (unsigned long long)st.held);
        core_buf_printf(&b, "%-12s %llu entries\n", "dict", (unsigned long long)st.dict);
        core_buf_printf(&b, "%-12s %llu\n", "counters", (unsigned long long)st.counters);
        core_buf_printf(&b, "%-12s %llu topic partitions%s\n", "offsets", (unsigned long long)o.n,
                        o.n ? ", next offset:" : "");
        if (ob.data)
            core_buf_puts(&b, ob.data);
        size_line(&b, "map size", st.map_size);
        size_line(&b, "used", st.used_bytes);
        size_line(&b, "free", on_free_list);
        size_line(&b, "data.mdb", st.file_bytes);
        core_buf_printf(&b, "%-12s %llu bytes\n", "per case", (unsigned long long)per_case);
    }
    rc = cli_write_stdout("state stats", b.data, b.len);
done:
    core_buf_free(&ob);
    core_buf_free(&b);
    sess_close(e);
    return rc;
}

int cmd_state(int argc, char **argv)
{
    static const cli_sub subs[] = {
        {"dump", "--state DIR [--json]", "Prints every case of a daemon's state directory.",
         "pmrag state dump --state /var/lib/pmrag --json | head"},
        {"stats", "--state DIR [--json]",
         "Counts the cases, dictionary, counters and sizes of a daemon's state directory.",
         "pmrag state stats --state /var/lib/pmrag"},
    };
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        cli_group_help(argc < 1 ? stderr : stdout, "state",
                       "Inspects a daemon's state directory (dump, stats).", subs,
                       sizeof subs / sizeof subs[0]);
        return argc < 1 ? CLI_EXIT_USAGE : 0;
    }
    if (strcmp(argv[0], "dump") == 0)
        return state_dump(argc - 1, argv + 1);
    if (strcmp(argv[0], "stats") == 0)
        return state_stats(argc - 1, argv + 1);
    fprintf(stderr,
            "pmrag state: unknown subcommand '%s' (dump or stats; see 'pmrag state --help')\n",
            argv[0]);
    return CLI_EXIT_USAGE;
}
