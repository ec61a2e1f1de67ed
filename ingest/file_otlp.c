/*
 * OTLP JSON files: one ExportTraceServiceRequest or ExportLogsServiceRequest
 * per line, as the OpenTelemetry Collector's file exporter writes them.
 * A line is one record: it is decoded whole (otlp_json.c) into the queue,
 * and a malformed line is skipped whole.
 */
#include "ingest_int.h"

#include <stdlib.h>

typedef struct otlp_state {
    ingest__queue q;
    uint64_t line;
} otlp_state;

static int push(void *ud, const ingest_event *ev)
{
    otlp_state *s = ud;
    ingest_event e = *ev;
    e.line = s->line;
    ingest__queue_push(&s->q, &e);
    return 0;
}

static int otlp_open(ingest_file *f, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    f->state = core_xcalloc(1, sizeof(otlp_state));
    return 0;
}

static int otlp_next(ingest_file *f, ingest_event *ev, char *why, size_t whylen)
{
    otlp_state *s = f->state;
    for (;;) {
        const ingest__qent *e = ingest__queue_pop(&s->q);
        if (e) {
            *ev = e->ev;
            return 1;
        }
        ingest__queue_clear(&s->q);
        const char *p;
        size_t n;
        int rc = ingest__reader_text_line(&f->rd, &p, &n, why, whylen);
        if (rc <= 0)
            return rc;
        s->line = f->rd.line;
        f->st.records++;
        char msg[768];
        rc = ingest_otlp_json_decode(p, n, (const char *const *)f->case_attrs, f->ncase_attrs, push,
                                     s, msg, sizeof msg);
        if (rc) {
            /* The line is one record: none of its events come out. */
            ingest__queue_clear(&s->q);
            return core_fail(why, whylen, rc == CORE_EFORMAT ? INGEST__BAD : rc, "%s:%llu: %s",
                             f->path, (unsigned long long)s->line, msg);
        }
    }
}

static void otlp_close(ingest_file *f)
{
    otlp_state *s = f->state;
    if (!s)
        return;
    ingest__queue_free(&s->q);
    free(s);
    f->state = NULL;
}

const ingest__backend ingest__otlp_backend = {otlp_open, otlp_next, otlp_close};
