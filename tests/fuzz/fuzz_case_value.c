/*
 * The stored value of a case (sess_case_decode, sessions/batch.c): what
 * the daemon reads back from LMDB and from a changelog topic. A value
 * that decodes respects the limits, encodes again (sess_case_encode) and
 * decodes to the same case, and that encoding is stable (a second round
 * gives the same bytes). A value that does not decode says why, naming
 * the byte for a corrupt one.
 */
#include "fuzz.h"
#include "sessions.h"

#include <stdio.h>
#include <string.h>

/* The same case: the stored fields, the tokens and vector entries in use,
 * floating-point values bit for bit. */
static void check_same(const sess_case *a, const sess_case *b)
{
    FUZZ_CHECK(a->seq == b->seq);
    FUZZ_CHECK(a->last_time_ns == b->last_time_ns);
    FUZZ_CHECK(a->touched_ns == b->touched_ns);
    FUZZ_CHECK(a->model_version == b->model_version);
    FUZZ_CHECK(a->closed == b->closed);
    FUZZ_CHECK(a->ntok == b->ntok && a->nvec == b->nvec);
    FUZZ_CHECK(memcmp(&a->vec_err, &b->vec_err, sizeof a->vec_err) == 0);
    FUZZ_CHECK(memcmp(&a->vec_wsum, &b->vec_wsum, sizeof a->vec_wsum) == 0);
    FUZZ_CHECK(memcmp(a->act, b->act, a->ntok * sizeof a->act[0]) == 0);
    FUZZ_CHECK(memcmp(a->var, b->var, a->ntok * sizeof a->var[0]) == 0);
    FUZZ_CHECK(a->has_pred == b->has_pred && a->npred == b->npred &&
               memcmp(a->pred, b->pred, a->npred * sizeof a->pred[0]) == 0);
    FUZZ_CHECK(a->scored == b->scored && a->hit1 == b->hit1 && a->hit3 == b->hit3 &&
               a->hit10 == b->hit10 && a->last_rank == b->last_rank);
    FUZZ_CHECK(memcmp(&a->rr, &b->rr, sizeof a->rr) == 0);
    for (uint32_t i = 0; i < a->ntok; i++) {
        const sess_tok *x = &a->tok[i], *y = &b->tok[i];
        FUZZ_CHECK(x->key == y->key && x->shift == y->shift && x->dur == y->dur &&
                   x->span == y->span && x->depth == y->depth && x->rev == y->rev &&
                   x->is_span == y->is_span);
    }
    FUZZ_CHECK(a->nheld == b->nheld && a->nseen == b->nseen && a->seen_next == b->seen_next);
    FUZZ_CHECK(memcmp(a->seen, b->seen, a->nseen * sizeof a->seen[0]) == 0);
    FUZZ_CHECK(a->ntold == b->ntold);
    FUZZ_CHECK(memcmp(a->told, b->told, a->ntold * sizeof a->told[0]) == 0);
    FUZZ_CHECK(memcmp(a->told_seq, b->told_seq, a->ntold * sizeof a->told_seq[0]) == 0);
    for (uint32_t i = 0; i < a->nvec; i++) {
        FUZZ_CHECK(a->vec[i].node == b->vec[i].node);
        FUZZ_CHECK(memcmp(&a->vec[i].score, &b->vec[i].score, sizeof a->vec[i].score) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sess_case c, c2, c3;
    char why[256] = "";
    int rc = sess_case_decode(data, size, &c, why, sizeof why);
    if (rc) {
        FUZZ_CHECK(rc == CORE_ECORRUPT || rc == CORE_EVERSION);
        FUZZ_CHECK(why[0] != 0);
        FUZZ_CHECK(rc != CORE_ECORRUPT || size == 0 || strstr(why, " at byte ") != NULL);
        return 0;
    }
    FUZZ_CHECK(c.ntok <= SESS_MAX_TOKENS && c.nvec <= SESS_MAX_VEC && c.npred <= SESS_MAX_PRED &&
               c.nseen <= SESS_MAX_SEEN && c.ntold <= SESS_MAX_TOLD);
    core_buf b = {0}, b2 = {0};
    FUZZ_CHECK(sess_case_encode(&c, &b) == 0);
    /* The encoding is the shortest form: the input may spell a value
     * longer (a varint with padding, a flag for a zero double), never
     * shorter. */
    FUZZ_CHECK(b.len <= size);
    rc = sess_case_decode(b.data, b.len, &c2, why, sizeof why);
    if (rc) {
        fprintf(stderr, "re-encoded case does not decode: %s\n", why);
        FUZZ_CHECK(rc == 0);
    }
    check_same(&c, &c2);
    FUZZ_CHECK(sess_case_encode(&c2, &b2) == 0);
    FUZZ_CHECK(b2.len == b.len && memcmp(b.data, b2.data, b.len) == 0);
    FUZZ_CHECK(sess_case_decode(b2.data, b2.len, &c3, why, sizeof why) == 0);
    check_same(&c, &c3);
    core_buf_free(&b);
    core_buf_free(&b2);
    return 0;
}
