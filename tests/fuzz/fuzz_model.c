/*
 * The model file (model_load, ppr/model.c) for the graph of the shop
 * fixture (fuzz_shop.h): a model that loads is read through every
 * accessor (activities, variants, contexts), ranks a few prefixes cold and
 * warm-started (model_stream_prepare, model_advance), and is
 * saved and loaded again to the same counts. A file that does not load
 * must say why, naming the file.
 *
 * The input is one flag byte, then the file. Unless the flags say not to,
 * the file's graph fields (symbol count and identity, bytes 16-27) are set
 * to the shop graph's and its CRC-32 (the last 4 bytes) is set from the
 * input, so that mutations reach the checks behind them:
 *   flag 1  keep the CRC as it is
 *   flag 2  keep the graph fields as they are
 */
#include "fuzz_shop.h"
#include "map_int.h"
#include "model_int.h"
#include "ppr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC_LEN 8
#define GRAPH_FIELDS_OFF 16 /* after the magic, the version and the byte-order mark */
#define GRAPH_FIELDS_LEN 12 /* u32 symbols, u64 identity */

static const graph *g;
static uint8_t graph_fields[GRAPH_FIELDS_LEN];
static char model_dir[256], model_path[300];

static void remove_model(void)
{
    unlink(model_path);
    rmdir(model_dir);
}

/* The shop graph's fields as a model file has them: from a model of no
 * activities, trained and saved once. */
static void learn_graph_fields(void)
{
    map_mapper_opts mo = {0};
    map_mapper *m = NULL;
    model_joint *md = NULL;
    uint32_t off = 0;
    model_seqs none = {NULL, NULL, &off, 0};
    model_params p = model_params_default();
    char *data = NULL;
    size_t len = 0;
    if (map_mapper_new(g, &mo, &m) != 0 || model_train(m, &none, &p, &md) != 0 ||
        model_save(md, model_path) != 0 || core_read_file(model_path, 1 << 20, &data, &len) != 0 ||
        len < GRAPH_FIELDS_OFF + GRAPH_FIELDS_LEN) {
        fprintf(stderr, "cannot write a model of the shop graph to %s\n", model_path);
        exit(1);
    }
    memcpy(graph_fields, data + GRAPH_FIELDS_OFF, GRAPH_FIELDS_LEN);
    free(data);
    model_free(md);
    map_mapper_free(m);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g = fuzz_shop_graph();
    /* Saving fsyncs: on a disk that would take most of the time of an
     * input, so the saved copy goes to a memory file system if there is
     * one. */
    snprintf(model_dir, sizeof model_dir, "%s/pmrag-fuzz-model-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : fuzz_shop_dir());
    if (!mkdtemp(model_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(model_path, sizeof model_path, "%s/saved.model", model_dir);
    atexit(remove_model);
    learn_graph_fields();
    return 0;
}

/* Everything the mapper restored from the file, read back. */
static void walk(const map_mapper *m, const model_joint *md, const model_stats *st)
{
    uint32_t nsym = graph_nsymbols(g), nact = map_mapper_nactivities(m);
    FUZZ_CHECK(st->symbols == nsym);
    FUZZ_CHECK(st->activities <= nact);
    for (uint32_t a = 0; a < nact; a++) {
        map_activity pa;
        map_mapper_activity(m, a, &pa);
        fuzz_sink += strlen(pa.text);
        FUZZ_CHECK(pa.strategy < MAP_BY__COUNT);
        FUZZ_CHECK(pa.nsyms == 0 || (pa.syms && pa.conf));
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            FUZZ_CHECK(pa.syms[i] < nsym);
            FUZZ_CHECK(pa.conf[i] >= 0 && pa.conf[i] <= 1);
        }
        const uint32_t *cands;
        bool has_const;
        uint32_t nc = map__candidates(m, a, &cands, &has_const);
        for (uint32_t i = 0; i < nc; i++)
            FUZZ_CHECK(cands[i] < nsym);
    }
    for (uint32_t v = 0; v < map_mapper_nvariants(m); v++) {
        const char *text;
        FUZZ_CHECK(map_mapper_variant(m, v, &text) < nact);
        fuzz_sink += strlen(text);
    }
    core_buf b = {0};
    for (uint32_t c = 0; c < st->contexts; c++) {
        core_buf_reset(&b);
        model_context_text(md, c, &b);
        fuzz_sink += b.len;
    }
    core_buf_free(&b);
}

static void check_preds(const model_joint *md, const model_pred *p, uint32_t n, uint32_t k)
{
    model_stats st;
    model_get_stats(md, &st);
    FUZZ_CHECK(n <= k);
    for (uint32_t i = 0; i < n; i++) {
        FUZZ_CHECK(p[i].symbol < st.symbols);
        FUZZ_CHECK(isfinite(p[i].score));
        FUZZ_CHECK(p[i].activity == UINT32_MAX || p[i].activity < st.activities);
        /* a filled symbol: no activity, near a walked one, after them all */
        FUZZ_CHECK(p[i].near == UINT32_MAX ||
                   (p[i].near < st.symbols && i > 0 && p[i].activity == UINT32_MAX));
        FUZZ_CHECK(i == 0 || p[i].near != UINT32_MAX || p[i - 1].near == UINT32_MAX);
    }
}

/* Ranks prefixes of activities 0, 1, 2, ... (with their variants where
 * there are any), cold and warm-started. */
static void rank(model_joint *md, const map_mapper *m)
{
    model_stats st;
    model_get_stats(md, &st);
    model_work *w = NULL;
    FUZZ_CHECK(model_work_new(md, &w) == 0);
    enum { LEN = 6, K = 5, M = 16 };
    uint32_t act[LEN], var[LEN], nvar = map_mapper_nvariants(m);
    for (uint32_t i = 0; i < LEN; i++) {
        act[i] = st.activities ? i % st.activities : 0;
        var[i] = nvar ? i % nvar : 0;
    }
    model_pred out[K];
    for (uint32_t len = 1; len <= LEN; len++)
        check_preds(md, out, model_rank(md, w, act, var, len, K, out), K);
    if (model_stream_prepare(md, M, 1) == 0) {
        ppr_entry storage[M];
        ppr_vec rec;
        ppr_vec_init(&rec, storage, M);
        double wsum = 0;
        for (uint32_t len = 1; len <= LEN; len++) {
            FUZZ_CHECK(model_advance(md, w, &rec, &wsum, act[len - 1]) == 0);
            FUZZ_CHECK(rec.n <= M && isfinite(wsum) && wsum >= 0);
            check_preds(md, out, model_rank_warm(md, w, act, var, len, &rec, wsum, K, out), K);
        }
    }
    model_work_free(w);
}

/* What loads, saves and loads again to the same counts. */
static void round_trip(const model_joint *md, const model_stats *st)
{
    FUZZ_CHECK(model_save(md, model_path) == 0);
    map_mapper_opts mo = {0};
    map_mapper *m2 = NULL;
    model_joint *md2 = NULL;
    char why[1024] = "";
    int rc = model_load(model_path, g, &mo, &m2, &md2, why, sizeof why);
    if (rc) {
        fprintf(stderr, "saved model does not load: %s\n", why);
        FUZZ_CHECK(rc == 0);
    }
    model_stats st2;
    model_get_stats(md2, &st2);
    FUZZ_CHECK(st2.symbols == st->symbols && st2.activities == st->activities);
    FUZZ_CHECK(st2.contexts == st->contexts && st2.variants_kept == st->variants_kept);
    FUZZ_CHECK(st2.edges == st->edges && st2.follows == st->follows);
    FUZZ_CHECK(st2.train_events == st->train_events && st2.train_cases == st->train_cases);
    model_free(md2);
    map_mapper_free(m2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    size_t n = size - 1;
    uint8_t *file = malloc(n ? n : 1);
    memcpy(file, data + 1, n);
    if (!(flags & 2) && n >= GRAPH_FIELDS_OFF + GRAPH_FIELDS_LEN)
        memcpy(file + GRAPH_FIELDS_OFF, graph_fields, GRAPH_FIELDS_LEN);
    if (!(flags & 1) && n >= MAGIC_LEN + 4) {
        uint32_t crc = core_crc32(0, file, n - 4);
        memcpy(file + n - 4, &crc, 4);
    }
    const char *path = fuzz_file(file, n);
    free(file);
    map_mapper_opts mo = {0};
    map_mapper *m = NULL;
    model_joint *md = NULL;
    char why[1024] = "";
    int rc = model_load(path, g, &mo, &m, &md, why, sizeof why);
    if (rc) {
        /* CORE_ELIMIT: a dictionary larger than the mapper takes (a
         * setting too low for the file, which may be sound). */
        FUZZ_CHECK(rc == CORE_EFORMAT || rc == CORE_EVERSION || rc == CORE_EENDIAN ||
                   rc == CORE_ECORRUPT || rc == CORE_EUSAGE || rc == CORE_ELIMIT);
        FUZZ_CHECK(strncmp(why, path, strlen(path)) == 0 && why[strlen(path)] == ':');
        FUZZ_CHECK(!m && !md);
        return 0;
    }
    model_stats st;
    model_get_stats(md, &st);
    walk(m, md, &st);
    round_trip(md, &st);
    rank(md, m);
    model_free(md);
    map_mapper_free(m);
    return 0;
}
