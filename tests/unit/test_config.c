/* pmrag's configuration table (config/config.c) against the engine's own
 * defaults and profiles. */
#include "config.h"
#include "unit.h"

#include <math.h>

static bool same_weights(const ppr_weights *a, const ppr_weights *b)
{
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        if (fabsf(a->type[t] - b->type[t]) > 1e-6f)
            return false;
    return fabsf(a->reverse - b->reverse) <= 1e-6f;
}

TEST(defaults_agree_with_the_engine)
{
    core_cfg *c = core_cfg_new(pmrag_config_table, pmrag_config_count);
    ppr_opts want = ppr_opts_default(), got = config_ppr_opts(c);
    CHECK(got.alpha == want.alpha);
    CHECK_INT(got.max_pushes, want.max_pushes);
    CHECK_INT(got.walk_seed, want.walk_seed);
    CHECK(got.hubs == NULL);
    /* The ppr.* keys are pmrag ppr's, a cold query's: the engine's
     * settings for it, not its plain push. */
    CHECK(got.eps == PPR_COLD_EPS);
    CHECK_INT(got.walks, PPR_COLD_WALKS);
    CHECK_INT(core_cfg_int(c, "ppr.hubs"), PPR_COLD_HUBS);
    CHECK_INT(core_cfg_int(c, "ppr.hub_degree"), PPR_COLD_HUB_DEGREE);
    ppr_impact_opts iw = ppr_impact_opts_default(), ig = config_impact_opts(c);
    CHECK(ig.decay == iw.decay);
    CHECK(ig.threshold == iw.threshold);
    CHECK(same_weights(&ig.weights, &iw.weights));
    /* Each weight key's default is the default profile's weight. */
    ppr_weights dflt;
    CHECK_OK(ppr_weights_profile("default", &dflt));
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++) {
        char key[64];
        snprintf(key, sizeof key, "ppr.weights.%s", graph_edge_type_name((graph_edge_type)t));
        CHECK(pmrag_config_default(key) != NULL);
        CHECK(fabs(core_cfg_double(c, key) - dflt.type[t]) < 1e-6);
    }
    CHECK(fabs(core_cfg_double(c, "ppr.weights.reverse") - dflt.reverse) < 1e-6);
    CHECK(pmrag_config_default("ppr.nope") == NULL);
    /* The model's keys are the engine's defaults. */
    model_params mw = model_params_default(), mg = config_model_params(c);
    CHECK_INT(mg.order, mw.order);
    CHECK(mg.variant_ratio == mw.variant_ratio);
    CHECK_INT(mg.variant_min, mw.variant_min);
    CHECK(mg.alpha == mw.alpha);
    CHECK(mg.code_scale == mw.code_scale);
    CHECK(mg.decay == mw.decay);
    CHECK(mg.escape == mw.escape);
    CHECK(mg.code_prior == mw.code_prior);
    CHECK(mg.case_prior == mw.case_prior);
    CHECK_INT(mg.calibrate_folds, mw.calibrate_folds);
    CHECK(same_weights(&mg.weights, &mw.weights));
    core_cfg_free(c);
}

TEST(profiles_and_weight_overrides)
{
    core_cfg *c = core_cfg_new(pmrag_config_table, pmrag_config_count);
    char why[256];
    const char *const names[] = {"default", "debug", "refactor"};
    for (size_t i = 0; i < 3; i++) {
        CHECK_OK(core_cfg_put(c, "ppr.profile", names[i], "test", why, sizeof why));
        ppr_weights want, got;
        CHECK_OK(ppr_weights_profile(names[i], &want));
        config_ppr_weights(c, &got);
        CHECK(same_weights(&got, &want));
    }
    CHECK_INT(core_cfg_put(c, "ppr.profile", "fast", "test", why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "default, debug, refactor") != NULL);
    /* debug multiplies calls by 1.5; a given weight replaces the profile's. */
    CHECK_OK(core_cfg_put(c, "ppr.profile", "debug", "test", why, sizeof why));
    CHECK_OK(core_cfg_set(c, "ppr.weights.uses=0.25", why, sizeof why));
    CHECK_OK(core_cfg_set(c, "ppr.weights.reverse=0", why, sizeof why));
    ppr_weights w;
    config_ppr_weights(c, &w);
    CHECK(fabsf(w.type[GRAPH_EDGE_CALLS] - 1.5f) < 1e-6f);
    CHECK(fabsf(w.type[GRAPH_EDGE_USES] - 0.25f) < 1e-6f);
    CHECK(fabsf(w.type[GRAPH_EDGE_INHERITS] - 0.9f) < 1e-6f);
    CHECK(w.reverse == 0.0f);
    CHECK_INT(core_cfg_set(c, "ppr.weights.calls=-1", why, sizeof why), CORE_EUSAGE);
    /* The engine refuses what the table would not let through either. */
    CHECK_INT(ppr_weights_set(&w, "nope", 1), CORE_EUSAGE);
    CHECK_INT(ppr_weights_set(&w, "calls", -1), CORE_EUSAGE);
    CHECK_INT(ppr_weights_set(&w, "calls", NAN), CORE_EUSAGE);
    CHECK_OK(ppr_weights_set(&w, "member_of", 0.75));
    CHECK(w.type[GRAPH_EDGE_MEMBER_OF] == 0.75f && w.reverse == 0.0f);
    core_cfg_free(c);
}

TEST(reference_lists_every_key)
{
    core_buf b = {0};
    core_cfg_reference(pmrag_config_table, pmrag_config_count, &b);
    for (size_t i = 0; i < pmrag_config_count; i++) {
        char cell[128];
        snprintf(cell, sizeof cell, "| `%s` |", pmrag_config_table[i].key);
        CHECK(strstr(b.data, cell) != NULL);
        CHECK(pmrag_config_table[i].help && *pmrag_config_table[i].help);
    }
    core_buf_free(&b);
}
