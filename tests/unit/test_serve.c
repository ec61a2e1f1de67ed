/* Unit tests of serve/: the changelog record codec and the commit
 * pipeline, white-box (serve_int.h). */
#include "serve_int.h"
#include "unit.h"

#include <errno.h>
#include <pthread.h>

/* ---- the changelog codec ---- */

static sess_case sample_case(uint32_t ntok)
{
    sess_case c;
    memset(&c, 0, sizeof c);
    c.seq = 41;
    c.last_time_ns = 1700000000123456789ll;
    c.touched_ns = 1700000000999999999ll;
    c.model_version = 3;
    c.ntok = ntok;
    for (uint32_t i = 0; i < ntok; i++) {
        c.act[i] = 10 + i;
        c.var[i] = 100 + i;
    }
    c.nvec = 3;
    c.vec_err = 0.125;
    c.vec_wsum = 1.75;
    for (uint32_t i = 0; i < c.nvec; i++)
        c.vec[i] = (sess_entry){7 * i + 1, 0.5f / (float)(i + 1)};
    return c;
}

TEST(changelog_record_round_trip)
{
    sess_case c = sample_case(4);
    const char *texts[SESS_MAX_TOKENS] = {NULL, "payment %s retried", NULL, "closed after %d s"};
    core_buf b = {0};
    serve__cl_encode(&b, "otlp_spans", 123456789012ll, &c, texts);
    serve_cl_rec r;
    CHECK_INT(serve__cl_decode(b.data, b.len, &r), 0);
    CHECK(r.header);
    CHECK(!r.deleted);
    CHECK_INT(r.topic_len, strlen("otlp_spans"));
    CHECK(memcmp(r.topic, "otlp_spans", r.topic_len) == 0);
    CHECK_INT(r.offset, 123456789012ll);
    CHECK_INT(r.ntext, 2);
    CHECK_INT(r.texts[0].at, 1);
    CHECK_INT(r.texts[0].n, strlen(texts[1]));
    CHECK(memcmp(r.texts[0].t, texts[1], r.texts[0].n) == 0);
    CHECK_INT(r.texts[1].at, 3);
    CHECK(memcmp(r.texts[1].t, texts[3], r.texts[1].n) == 0);
    CHECK_INT(r.c.seq, c.seq);
    CHECK_INT(r.c.last_time_ns, c.last_time_ns);
    CHECK_INT(r.c.ntok, 4);
    CHECK_INT(r.c.act[3], 13);
    CHECK_INT(r.c.var[2], 102);
    CHECK_INT(r.c.nvec, 3);
    CHECK(r.c.vec[2].node == c.vec[2].node && r.c.vec[2].score == c.vec[2].score);
    CHECK(r.c.vec_err == c.vec_err && r.c.vec_wsum == c.vec_wsum);
    /* Little-endian whatever the machine: the offset's bytes in order. */
    const uint8_t *p = (const uint8_t *)b.data;
    CHECK_INT(p[0], SERVE_CL_VERSION);
    CHECK_INT(p[1] | p[2] << 8, strlen("otlp_spans"));
    CHECK_INT(core_get_le(p + 3 + 10, 8), 123456789012ll);
    core_buf_free(&b);
}

TEST(changelog_record_deleted)
{
    core_buf b = {0};
    serve__cl_encode(&b, "in", 7, NULL, NULL);
    serve_cl_rec r;
    CHECK_INT(serve__cl_decode(b.data, b.len, &r), 0);
    CHECK(r.header && r.deleted);
    CHECK_INT(r.offset, 7);
    CHECK_INT(b.len, 1 + 2 + 2 + 8 + 1);
    core_buf_free(&b);
}

TEST(changelog_record_damaged)
{
    sess_case c = sample_case(2);
    const char *texts[SESS_MAX_TOKENS] = {"a text of ours", NULL};
    core_buf b = {0};
    serve__cl_encode(&b, "in", 9, &c, texts);
    serve_cl_rec r;
    /* Every cut is refused; once the header is whole, it still reads (a
     * restore skips a stale record by its header whatever its body). */
    size_t header = 1 + 2 + 2 + 8 + 1;
    for (size_t n = 0; n < b.len; n++) {
        CHECK_INT(serve__cl_decode(b.data, n, &r), CORE_ECORRUPT);
        CHECK(r.header == (n >= header));
        if (r.header)
            CHECK_INT(r.offset, 9);
    }
    /* Another version. */
    b.data[0] = 2;
    CHECK_INT(serve__cl_decode(b.data, b.len, &r), CORE_ECORRUPT);
    CHECK(!r.header);
    b.data[0] = SERVE_CL_VERSION;
    /* More texts than a case has tokens. */
    b.data[header - 1] = (char)(SESS_MAX_TOKENS + 1);
    CHECK_INT(serve__cl_decode(b.data, b.len, &r), CORE_ECORRUPT);
    /* A text longer than the record. */
    b.data[header - 1] = 1;
    b.data[header + 1] = (char)0xff;
    b.data[header + 2] = (char)0xff;
    CHECK_INT(serve__cl_decode(b.data, b.len, &r), CORE_ECORRUPT);
    core_buf_free(&b);
}

/* ---- the commit pipeline ---- */

/* A daemon with only what the pipeline touches: the state, the batches,
 * the metrics, the committer thread. */
static serve *pipeline_new(void)
{
    serve *s = core_xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->qmu, NULL);
    pthread_mutex_init(&s->cmu, NULL);
    pthread_mutex_init(&s->gmu, NULL);
    pthread_cond_init(&s->ccv, NULL);
    pthread_cond_init(&s->qcv, NULL);
    pthread_cond_init(&s->dcv, NULL);
    sess_opts so = {.path = unit_tmp_path("state")};
    char why[256];
    CHECK_INT(sess_open(&so, &s->env, why, sizeof why), 0);
    s->batch = sess_batch_new();
    s->ttl_ns = INT64_MAX / 2;
    serve__metrics_init(s);
    CHECK_INT(serve__committer_start(s), 0);
    return s;
}

static void pipeline_free(serve *s)
{
    serve__committer_stop(s);
    sess_batch_free(s->batch);
    if (s->inflight)
        sess_batch_free(s->inflight);
    if (s->spare)
        sess_batch_free(s->spare);
    sess_batch_free(s->xbatch);
    sess_close(s->env);
    sink_metrics_free(s->mx);
    free(s);
}

/* Applies one event's change to case id into the current batch, with the
 * input offset it came from. */
static void put_case(serve *s, const char *id, uint64_t seq, int64_t next_offset)
{
    sess_case c = sample_case(1);
    c.seq = seq;
    CHECK_INT(sess_batch_case_put(s->batch, id, strlen(id), &c), 0);
    CHECK_INT(sess_batch_offset_put(s->batch, "in", 0, next_offset), 0);
    s->batch_events++;
}

static uint64_t stored_seq(serve *s, const char *id)
{
    sess_case c;
    return sess_case_get(s->env, id, strlen(id), &c) == 0 ? c.seq : 0;
}

TEST(pipeline_commits_and_then_answers)
{
    serve *s = pipeline_new();
    pending req = {.n = 1};
    put_case(s, "a", 1, 11);
    s->reqs = s->reqs_tail = &req;
    serve__pipe_handoff(s);
    CHECK(s->inflight != NULL);
    CHECK(s->reqs == NULL && s->batch_events == 0);
    CHECK_INT(serve__pipe_reap(s, true), 0);
    /* Answered after the write: what a 200 acknowledges is in the state. */
    CHECK(req.done);
    CHECK_INT(req.rc, 0);
    CHECK_INT(stored_seq(s, "a"), 1);
    int64_t next = -1;
    CHECK_INT(sess_offset_get(s->env, "in", 0, &next), 0);
    CHECK_INT(next, 11);
    /* The batch came back empty, as the spare. */
    CHECK(s->inflight == NULL && s->spare != NULL);
    CHECK_INT(sess_batch_size(s->spare), 0);
    CHECK_INT(sink_counter_get(s->c_commits), 1);
    pipeline_free(s);
}

TEST(pipeline_batches_in_order)
{
    serve *s = pipeline_new();
    /* The engine fills the next batch while the committer has one. */
    for (uint64_t k = 1; k <= 20; k++) {
        put_case(s, "a", k, (int64_t)k);
        put_case(s, k % 2 ? "odd" : "even", k, (int64_t)k);
        if (!s->inflight)
            serve__pipe_handoff(s);
        else
            CHECK_INT(serve__pipe_reap(s, false), 0);
    }
    CHECK_INT(serve__pipe_sync(s), 0);
    CHECK(s->inflight == NULL);
    CHECK_INT(sess_batch_size(s->batch), 0);
    /* The newest change of each case won, whatever the batching. */
    CHECK_INT(stored_seq(s, "a"), 20);
    CHECK_INT(stored_seq(s, "odd"), 19);
    CHECK_INT(stored_seq(s, "even"), 20);
    int64_t next = -1;
    CHECK_INT(sess_offset_get(s->env, "in", 0, &next), 0);
    CHECK_INT(next, 20);
    pipeline_free(s);
}

TEST(pipeline_failed_batch_is_not_written_and_answers_an_error)
{
    serve *s = pipeline_new();
    put_case(s, "a", 1, 5);
    CHECK_INT(serve__pipe_sync(s), 0);
    /* A batch after a failure (the committer's rc set, as a failed write
     * or an unacknowledged produce leaves it): not written, its requests
     * answered with an error, and the engine told to stop. */
    pthread_mutex_lock(&s->cmu);
    s->c.rc = -EIO;
    pthread_mutex_unlock(&s->cmu);
    pending req = {.n = 1};
    put_case(s, "a", 2, 6);
    s->reqs = s->reqs_tail = &req;
    serve__pipe_handoff(s);
    CHECK_INT(serve__pipe_reap(s, true), -EIO);
    CHECK(req.done);
    CHECK_INT(req.rc, -EIO);
    CHECK_INT(stored_seq(s, "a"), 1);
    int64_t next = -1;
    CHECK_INT(sess_offset_get(s->env, "in", 0, &next), 0);
    CHECK_INT(next, 5);
    pipeline_free(s);
}

TEST(pipeline_sync_with_nothing_applied)
{
    serve *s = pipeline_new();
    CHECK_INT(serve__pipe_sync(s), 0);
    CHECK(s->inflight == NULL);
    CHECK_INT(sink_counter_get(s->c_commits), 0);
    pipeline_free(s);
}

TEST(pipeline_answers_requests_that_changed_nothing)
{
    serve *s = pipeline_new();
    /* Every event of the request refused (duplicates, too late): no
     * change queued, and still the request is answered, once what was
     * handed over before it is committed. */
    put_case(s, "a", 1, 3);
    serve__pipe_handoff(s);
    pending req = {.n = 1};
    s->reqs = s->reqs_tail = &req;
    CHECK_INT(sess_batch_size(s->batch), 0);
    CHECK(serve__pipe_due(s));
    CHECK_INT(serve__pipe_sync(s), 0);
    CHECK(req.done);
    CHECK_INT(req.rc, 0);
    CHECK_INT(stored_seq(s, "a"), 1);
    CHECK(!serve__pipe_due(s));
    pipeline_free(s);
}
