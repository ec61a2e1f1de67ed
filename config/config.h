/*
 * config.h - pmrag's configuration keys (one table: YAML files, --set,
 * the flags that stand for keys, `pmrag config --reference` and the
 * reference in docs/configuration.md all come from it) and how the
 * modules' option structs are read from it.
 *
 * Threading and ownership: the table is constant; the readers only read a
 * loaded core_cfg (see core_cfg.h), from any thread, and return values.
 * config_redact_secrets changes its core_cfg: one thread, before sharing.
 */
#ifndef PMRAG_CONFIG_H
#define PMRAG_CONFIG_H

#include "core.h"
#include "core_cfg.h"
#include "model.h"

extern const core_cfg_item pmrag_config_table[];
extern const size_t pmrag_config_count;

/* The default of key as written in the table, or NULL if there is no
 * such key. */
const char *pmrag_config_default(const char *key);

/* Edge weights: the profile ppr.profile, then each ppr.weights.* key that
 * was given (file, --set or flag) over it. */
void config_ppr_weights(const core_cfg *c, ppr_weights *w);
/* alpha, eps, max_pushes, walks and walk_seed from ppr.*; no hubs. */
ppr_opts config_ppr_opts(const core_cfg *c);
/* decay and threshold from impact.*, weights as config_ppr_weights. */
ppr_impact_opts config_impact_opts(const core_cfg *c);
/* The model's parameters from model.* and the edge weights. */
model_params config_model_params(const core_cfg *c);

/*
 * The one recipe for the mapper's options, which every command and the
 * daemon map with: map.code_attrs, map.tokens, map.tokens_min,
 * map.llm_cmd (NULL when empty), map.include_tests and limits.activities, with the overrides
 * the caller loaded (borrowed; NULL: none) and its logger. The strings
 * point into c, which must outlive the options.
 */
map_mapper_opts config_mapper_opts(const core_cfg *c, const map_overrides *ov, core_logger log);
/* The training options: config_model_params, model.calibrate and
 * model.calibrate_min_cases, with the logger. */
model_train_opts config_train_opts(const core_cfg *c, core_logger log);

/* Appends kafka.properties text ("k=v;k=v") to out with the value of each
 * secret property replaced by "<redacted>"; an item without '=' is
 * replaced whole (it cannot be told apart from a value). */
void config_kafka_properties_redacted(const char *props, core_buf *out);
/* Replaces kafka.properties in c (origin kept) by its redacted text, for
 * commands that print the configuration. */
void config_redact_secrets(core_cfg *c);

#endif
