/*
 * The order of a case's events (model_order_keys): event time, ties by
 * arrival, spans placed inside their parents when the clocks of two
 * services disagree, log records and span events moved with their spans;
 * and event logs loaded in that order or in the order of the file
 * (model_log_load).
 */
#include "model.h"
#include "unit_graph.h"

#define MS 1000000ll

/* A span of trace "t": id, parent ("" for none), start and end in ms. */
static model_order_ev span(const char *id, const char *parent, int64_t start, int64_t end,
                           uint64_t tie)
{
    model_order_ev e = {.time = start * MS, .dur = end >= start ? (end - start) * MS : -1};
    e.is_span = true;
    e.span = model_order_span_id("t", id);
    e.parent = model_order_span_id("t", parent);
    e.tie = tie;
    return e;
}

/* A log record (or span event) at ms, in span id ("" for none). */
static model_order_ev rec(const char *in, int64_t at, uint64_t tie)
{
    model_order_ev e = {.time = at * MS, .dur = -1, .tie = tie};
    e.span = model_order_span_id("t", in);
    return e;
}

static int cmp(const void *a, const void *b)
{
    return model_order_cmp(a, b);
}

/* The ties (names) of ev in the order model_order gives them. */
static void check_order(model_order_ev *ev, size_t n, const uint64_t *want)
{
    model_order_keys(ev, n);
    qsort(ev, n, sizeof *ev, cmp);
    for (size_t i = 0; i < n; i++)
        if (ev[i].tie != want[i])
            unit_fail(__FILE__, __LINE__, "position %zu: event %llu, want %llu", i,
                      (unsigned long long)ev[i].tie, (unsigned long long)want[i]);
}

TEST(time_then_arrival)
{
    model_order_ev ev[] = {rec("", 30, 0), rec("", 10, 1), rec("", 20, 2), rec("", 10, 3)};
    static const uint64_t want[] = {1, 3, 2, 0};
    check_order(ev, 4, want);
    for (size_t i = 0; i < 4; i++)
        CHECK_INT(ev[i].shift, 0);
    /* No time sorts first, as offline always did. */
    model_order_ev nt[] = {rec("", 5, 0), {.time = INGEST_NO_TIME, .tie = 1}};
    static const uint64_t want_nt[] = {1, 0};
    check_order(nt, 2, want_nt);
}

/*
 * Service A calls service B, whose clock is 3 s behind (then 3 s ahead).
 * True times: A's root R [0, 1000] with a log at 50; A's client span C
 * [100, 500]; B's server span S [200, 400] with a log at 250 and a child
 * S2 [300, 350]; A logs again at 600. The events arrive as exporters send
 * them: each span when it ends, so children first.
 */
static void two_services(int64_t skew, bool ends)
{
    int64_t e = ends ? 0 : -1000000; /* an end before the start: unknown */
    model_order_ev ev[] = {
        rec("r", 50, 0),                                       /* A: log in R */
        span("s2", "s", 300 + skew, ends ? 350 + skew : e, 1), /* B */
        rec("s", 250 + skew, 2),                               /* B: log in S */
        span("s", "c", 200 + skew, ends ? 400 + skew : e, 3),  /* B */
        span("c", "r", 100, ends ? 500 : e, 4),                /* A */
        rec("r", 600, 5),                                      /* A: log in R */
        span("r", "", 0, ends ? 1000 : e, 6),                  /* A */
    };
    /* R, its log, C, S, S's log, S2, then A's log. */
    static const uint64_t want[] = {6, 0, 4, 3, 2, 1, 5};
    check_order(ev, 7, want);
}

TEST(a_child_is_placed_inside_its_parent)
{
    /* The clocks agree: nothing moves. */
    two_services(0, true);
    /* B behind or ahead: S is centred in C, B's log and child move with
     * it (on S's clock). */
    two_services(-3000, true);
    two_services(3000, true);
    /* Without end times, a child that starts before its parent is moved
     * to the parent's start, and what is B's after it keeps B's order. */
    two_services(-3000, false);
}

TEST(placed_events_anchor_the_others)
{
    /* S was placed before (by the daemon: a stored token, shifted by
     * +3 s); a log of it that comes now moves with it. */
    model_order_ev ev[] = {span("s", "c", -2800, -2600, 0), rec("s", -2750, 1)};
    ev[0].fixed = true;
    ev[0].shift = 3000 * MS;
    ev[0].key = ev[0].time + ev[0].shift;
    ev[0].depth = 2;
    model_order_keys(ev, 2);
    CHECK_INT(ev[0].key, 200 * MS); /* untouched */
    CHECK_INT(ev[1].key, 250 * MS);
    CHECK_INT(ev[1].shift, 3000 * MS);
    CHECK_INT(ev[1].depth, 3);
    /* A record before its span's start is put at the start. */
    model_order_ev early[] = {span("a", "", 100, 200, 0), rec("a", 90, 1)};
    model_order_keys(early, 2);
    CHECK_INT(early[1].key, 100 * MS);
    CHECK(model_order_cmp(&early[0], &early[1]) < 0);
}

TEST(cycles_and_long_chains)
{
    /* Two spans each the other's parent: placed, not looped over. */
    model_order_ev cyc[] = {span("a", "b", 10, 20, 0), span("b", "a", 5, 30, 1)};
    model_order_keys(cyc, 2);
    CHECK(cyc[0].key == 10 * MS || cyc[0].key == 5 * MS);
    /* A chain of 100000 nested spans (past the scan, on the hash table)
     * given leaf first: keys are the times, depths the nesting. */
    size_t n = 100000;
    model_order_ev *ev = calloc(n, sizeof *ev);
    char id[32], parent[32];
    for (size_t i = 0; i < n; i++) {
        size_t d = n - 1 - i; /* depth */
        snprintf(id, sizeof id, "s%zu", d);
        snprintf(parent, sizeof parent, d ? "s%zu" : "", d - 1);
        ev[i] = span(id, parent, (int64_t)d, 2 * (int64_t)n - (int64_t)d, i);
    }
    model_order_keys(ev, n);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(ev[i].key, (int64_t)(n - 1 - i) * MS);
        CHECK_INT(ev[i].depth, n - 1 - i);
    }
    free(ev);
}

TEST(event_ids_from_attributes)
{
    ingest_attr at[] = {{"trace_id", "t"}, {"span_id", "s"}, {"parent_span_id", "c"}};
    ingest_event ev = {.case_id = "x",
                       .activity = "a",
                       .time_ns = 1000,
                       .attrs = at,
                       .nattrs = 3,
                       .kind = INGEST_SPAN,
                       .end_ns = 1500};
    model_order_ev e;
    model_order_event(&ev, 7, &e);
    CHECK(e.is_span);
    CHECK_INT(e.span, model_order_span_id("t", "s"));
    CHECK_INT(e.parent, model_order_span_id("t", "c"));
    CHECK_INT(e.dur, 500);
    CHECK_INT(e.tie, 7);
    /* A log names its span, never a parent; ids of other traces differ. */
    ev.kind = INGEST_LOG;
    model_order_event(&ev, 0, &e);
    CHECK(!e.is_span);
    CHECK_INT(e.parent, 0);
    CHECK_INT(e.dur, -1);
    CHECK(model_order_span_id("t2", "s") != e.span);
    CHECK_INT(model_order_span_id("t", ""), 0);
    CHECK_INT(model_order_span_id("t", NULL), 0);
}

/* ------------------------------------------------------------------ */
/* Event logs                                                          */
/* ------------------------------------------------------------------ */

/* An OTLP JSON span line of trace 0...01 with case c. */
static void span_line(core_buf *b, const char *name, const char *id, const char *parent,
                      int64_t start_ms, int64_t end_ms)
{
    core_buf_printf(b,
                    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":"
                    "\"00000000000000000000000000000001\",\"spanId\":\"%s\",\"parentSpanId\":"
                    "\"%s\",\"name\":\"%s\",\"startTimeUnixNano\":\"%lld\",\"endTimeUnixNano\":"
                    "\"%lld\",\"attributes\":[{\"key\":\"case.id\",\"value\":{\"stringValue\":"
                    "\"c\"}}]}]}]}]}\n",
                    id, parent, name, (long long)(1700000000000 + start_ms) * MS,
                    (long long)(1700000000000 + end_ms) * MS);
}

/* The activities of the log's one case, as their first messages, joined
 * by spaces. */
static void case_text(const model_log *l, core_buf *out)
{
    core_buf_reset(out);
    CHECK_INT(l->ncases, 1);
    for (uint32_t i = l->off[0]; i < l->off[1]; i++)
        core_buf_printf(out, "%s%s", i ? " " : "", model_log_str(l, l->sample[l->act[i]]));
}

TEST(logs_load_in_event_time_or_as_they_came)
{
    unit_write_str("repo/app.py", "def f():\n    pass\n");
    graph_index_opts io = {.threads = 1};
    graph *g = unit_index_and_open(unit_tmp_path("repo"), unit_tmp_path("app.graph"), &io, NULL);
    /* The spans as an exporter sends them, each when it ends; the server
     * span's clock is 3 s behind. */
    core_buf b = {0};
    span_line(&b, "child", "0000000000000003", "0000000000000002", -2700, -2650);
    span_line(&b, "server", "0000000000000002", "0000000000000001", -2800, -2600);
    span_line(&b, "root", "0000000000000001", "", 0, 1000);
    span_line(&b, "after", "0000000000000004", "0000000000000001", 600, 700);
    const char *path = unit_write("spans.json", b.data, b.len);
    struct {
        bool arrival;
        const char *want;
    } runs[] = {{false, "root server child after"}, {true, "child server root after"}};
    for (int r = 0; r < 2; r++) {
        map_mapper_opts mo = {.no_tokens = true};
        map_mapper *m;
        CHECK_OK(map_mapper_new(g, &mo, &m));
        model_log_opts lo = {.train_frac = 1, .arrival_order = runs[r].arrival};
        model_log l;
        char why[256];
        CHECK_OK(model_log_load(path, &lo, m, &l, why, sizeof why));
        case_text(&l, &b);
        CHECK_STR(b.data, runs[r].want);
        model_log_free(&l);
        map_mapper_free(m);
    }
    core_buf_free(&b);
    graph_close(g);
}
