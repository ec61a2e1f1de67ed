/*
 * mapper.h - events to code: the mapper that turns each event into an
 * activity (and a variant of it) and each activity into the symbols that
 * emit it, and the dictionary codec that keeps what it learnt.
 *
 * Threading and lifetime. A model_mapper belongs to one thread at a time
 * (mapping changes it: new activities, variants, counts); readers on other
 * threads take the owner's lock. It borrows its graph and overrides: they
 * must outlive it. Strings handed out (activity texts, variant texts) are
 * owned by the mapper and valid until it is freed. Nothing here prints:
 * messages go to the core_logger given in the options.
 */
#ifndef PMRAG_MAPPER_H
#define PMRAG_MAPPER_H

#include "core.h"
#include "graph.h"
#include "graph_match.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Events to activities to symbols                                     */
/* ------------------------------------------------------------------ */

/*
 * The mapper turns events into activities and activities into the symbols
 * that emit them. Strategies, in order, each filling what the ones before
 * left:
 *   code      OpenTelemetry code.* attributes (only when allowed)
 *   override  the manual YAML file
 *   template  emit-site templates (graph_matcher), ties broken by logger,
 *             level and, for a message several functions log, by the
 *             code-graph proximity to the case's previous activity
 *   const     a message that only matches a string constant: personalized
 *             PageRank over the code graph seeded at the constants' owners
 *             and at the emitters around the message in the cases seen,
 *             ranking only functions that log non-literal messages
 *   tokens    TF-IDF cosine between the activity and symbol names,
 *             docstrings and templates
 *   llm       an external command
 * A message that matched a template becomes that template's activity (its
 * text is the template); one that matched nothing is abstracted
 * (graph_mask_message) so that its variants fold into one activity. Each
 * activity also has variants: the abstracted rendered messages, kept for
 * the process model (which may tell them apart).
 */
typedef enum {
    MODEL_MAP_NONE = 0,
    MODEL_MAP_CODE,
    MODEL_MAP_OVERRIDE,
    MODEL_MAP_TEMPLATE,
    MODEL_MAP_CONST,
    MODEL_MAP_TOKENS,
    MODEL_MAP_LLM,
    MODEL_MAP_LOGGER, /* no template: the logger's sites without text */
    MODEL_MAP__COUNT
} model_map_strategy;

const char *model_map_strategy_name(model_map_strategy s);

typedef struct model_mapper_opts {
    bool use_code_attrs;              /* learn from code.* attributes */
    const graph_overrides *overrides; /* NULL: none */
    bool no_tokens;                   /* turn the token-similarity strategy off */
    double tokens_min;                /* least cosine to accept (0 = 0.25) */
    bool no_const;                    /* turn the constants strategy off */
    bool no_logger;                   /* turn the logger's-sites strategy off */
    const char *llm_cmd;              /* NULL: no external command */
    uint32_t llm_batch, llm_timeout_ms;
    uint32_t max_activities; /* 0 = 1000000; past it, new messages fold into one */
    core_logger log;
} model_mapper_opts;

typedef struct model_mapper model_mapper;

/* One event as the mapper sees it; every string may be NULL. */
typedef struct model_map_event {
    const char *text; /* the rendered message, span or event name */
    size_t len;
    const char *logger, *level;
    /* code.* attributes (used only with use_code_attrs) */
    const char *code_file;     /* code.file.path / code.filepath */
    const char *code_function; /* code.function.name / code.function */
    const char *code_namespace;
    uint32_t code_line; /* 0 when absent */
    /* The event may teach the mapper: its code attributes (with
     * use_code_attrs) and its neighbourhood count. False for events of
     * test cases, which are mapped but never learnt from. */
    bool learn;
} model_map_event;

int model_mapper_new(const graph *g, const model_mapper_opts *o, model_mapper **out);
void model_mapper_free(model_mapper *m);

/*
 * Maps one event of a case whose previous activity was prev (UINT32_MAX
 * for the first event): writes its activity and variant ids. Code
 * attributes, when allowed, are counted for the activity (they decide its
 * symbols at model_mapper_finish). Repeated messages are answered from a
 * cache.
 */
void model_mapper_map(model_mapper *m, const model_map_event *ev, uint32_t prev, uint32_t *activity,
                      uint32_t *variant);
/*
 * What model_mapper_map would answer, keeping nothing: no activity,
 * variant, count or evidence is added (the daemon's stateless query). A
 * message that would make a new activity gives *activity UINT32_MAX;
 * *variant is UINT32_MAX for a variant never seen (both rank as unknown).
 * *text is the activity's text, or the one a new activity would have,
 * valid until the next call on m. Uses m's scratch and caches of the
 * code: the same locking as model_mapper_map.
 */
void model_mapper_peek(model_mapper *m, const model_map_event *ev, uint32_t prev,
                       uint32_t *activity, uint32_t *variant, const char **text);

/*
 * Maps what the per-event strategies left: code-attribute votes, then the
 * constants, token and external strategies for activities without
 * symbols. Call after a batch of events (again later for new activities:
 * only those not tried yet are). Returns 0, or the external command's
 * error (the other strategies' results are kept).
 */
int model_mapper_finish(model_mapper *m, char *why, size_t whylen);

typedef struct model_activity {
    const char *text;
    model_map_strategy strategy;
    uint32_t nsyms;
    const uint32_t *syms; /* symbol ids, best first */
    const float *conf;    /* their confidences (summing to at most 1) */
    uint64_t count;       /* events mapped to it */
    uint32_t nvariants;
} model_activity;

uint32_t model_mapper_nactivities(const model_mapper *m);
void model_mapper_activity(const model_mapper *m, uint32_t id, model_activity *out);
uint32_t model_mapper_nvariants(const model_mapper *m);
/* Distinct messages folded into "<other>" because max_activities was
 * reached. Past the cap the mapper keeps nothing new: at most
 * 2 x max_activities distinct messages are cached and as many variants
 * kept (a new variant then is its activity's "<other>" variant), so a
 * flood of unique messages cannot grow memory without bound. */
uint64_t model_mapper_folded(const model_mapper *m);
/* A variant's activity and text. */
uint32_t model_mapper_variant(const model_mapper *m, uint32_t id, const char **text);
/* The variant of activity act with this (abstracted) text: the existing
 * one, or a new one (a variant another instance learnt, by its text). */
uint32_t model_mapper_restore_variant(model_mapper *m, uint32_t act, const char *text);
/* The activity with this exact text, or UINT32_MAX. */
uint32_t model_mapper_find(const model_mapper *m, const char *text);
const graph *model_mapper_graph(const model_mapper *m);

/* ------------------------------------------------------------------ */
/* The dictionary codec                                                */
/* ------------------------------------------------------------------ */

/*
 * A mapper's dictionary as records, one per activity (its text, strategy,
 * symbols with confidences, template candidates) and one per variant (its
 * activity and text), little-endian: the model file and the daemon's
 * state store both keep them so. Restoring records in their ids' order
 * gives the activities and variants the same ids again.
 */
void model_dict_put_activity(const model_mapper *m, uint32_t act, core_buf *out);
void model_dict_put_variant(const model_mapper *m, uint32_t var, core_buf *out);
/* Re-creates a record's activity (variant) as m's next one; *id gets its
 * id; an activity's event count is given apart (count), as the model
 * file keeps it and the state store does not. CORE_ECORRUPT for a record that is truncated, has
 * trailing bytes, or names a symbol, strategy or activity m cannot have. */
int model_dict_restore_activity(model_mapper *m, const void *rec, size_t len, uint64_t count,
                                uint32_t *id);
int model_dict_restore_variant(model_mapper *m, const void *rec, size_t len, uint32_t *id);

#ifdef __cplusplus
}
#endif
#endif
