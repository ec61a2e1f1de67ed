/*
 * The edge list files of `pmrag ppr --edges` (ppr_net_load_edges,
 * ppr/net.c): a net that loads is walked whole (targets inside the net,
 * transition probabilities that sum to at most 1 per node) and pushed
 * from node 0 with a budget; a file that does not load must say why,
 * naming the file.
 */
#include "fuzz.h"
#include "ppr.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void walk(const ppr_net *net)
{
    uint32_t n = ppr_net_nodes(net);
    size_t m = 0;
    for (uint32_t u = 0; u < n; u++) {
        const uint32_t *dst;
        const float *prob;
        const uint8_t *type;
        uint32_t k = ppr_net_out(net, u, &dst, &prob, &type);
        double sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            FUZZ_CHECK(dst[i] < n);
            FUZZ_CHECK(type[i] < 64); /* raw mode: types as given, never reversed */
            FUZZ_CHECK(prob[i] >= 0 && prob[i] <= 1);
            sum += prob[i];
        }
        FUZZ_CHECK(sum <= 1 + 1e-5);
        double w = ppr_net_weight(net, u);
        FUZZ_CHECK(isfinite(w) && w >= 0 && (k > 0 || w == 0));
        m += k;
    }
    FUZZ_CHECK(m == ppr_net_edges(net));
}

static void push(const ppr_net *net)
{
    ppr_work *work = NULL;
    FUZZ_CHECK(ppr_work_new(net, &work) == 0);
    ppr_entry seed = {0, 1.0f}, top[4];
    ppr_opts o = ppr_opts_default();
    o.max_pushes = 10000;
    ppr_stats st;
    FUZZ_CHECK(ppr_push(work, &seed, 1, &o, &st) == 0);
    FUZZ_CHECK(isfinite(st.error_bound));
    uint32_t k = ppr_work_topk(work, 4, NULL, top);
    for (uint32_t i = 0; i < k; i++)
        FUZZ_CHECK(top[i].node < ppr_net_nodes(net) && isfinite(top[i].score));
    ppr_work_free(work);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    ppr_net *net = NULL;
    char why[512] = "";
    int rc = ppr_net_load_edges(path, &net, why, sizeof why);
    if (rc) {
        /* Every refusal of the file's content is CORE_EFORMAT and names
         * the line (ppr_net_from_edges has nothing left to refuse). */
        FUZZ_CHECK(rc == CORE_EFORMAT || rc == -ENOMEM);
        FUZZ_CHECK(strncmp(why, path, strlen(path)) == 0 && why[strlen(path)] == ':');
        FUZZ_CHECK(net == NULL);
        return 0;
    }
    FUZZ_CHECK(ppr_net_nodes(net) >= 1);
    walk(net);
    push(net);
    ppr_net_free(net);
    return 0;
}
