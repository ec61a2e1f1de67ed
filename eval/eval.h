/*
 * eval.h - next-event localization: scoring rankings against the truth
 * (the code.* attributes of the event that came next), the baselines the
 * model must beat, how the mapping did, and the tables `pmrag eval` and
 * `pmrag map` print.
 *
 * The task. Cases are ordered by their first event and split: the first
 * share trains (model_log), the rest are test cases. For every prefix
 * k = 1..n-1 of a test case, the ranking for event k+1 is a hit at rank r
 * when its r-th symbol's file matches the truth file (one path a suffix of
 * the other on whole components) and the truth line lies inside the
 * symbol. Targets that nothing predicts count as misses, never dropped.
 * The 'change' subset keeps targets whose emitting function differs from
 * the previous event's: the transitions that matter. The 'unseen' subset
 * keeps targets whose transition, from the previous event's activity to
 * the next event's true emitter (file and function), no training case
 * shows: what a table of the log cannot know. The 'added' subset, when
 * asked for, keeps targets whose true emitter is a logging site that an
 * older release of the code does not have (eval_added_sites): the paths
 * a release added, which a model trained on that release never saw.
 *
 * Threading and lifetime: an eval_baselines belongs to one thread at a
 * time (it keeps scratch memory); everything else is plain data or a pure
 * function. Every function borrows its arguments for the call; the graph,
 * mapper and log given to eval_baselines_new must outlive it.
 */
#ifndef PMRAG_EVAL_H
#define PMRAG_EVAL_H

#include "core.h"
#include "graph.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ranks scored: top 1, 3, 5 and 10. */
#define EVAL_NK 4
extern const unsigned eval_ks[EVAL_NK];

/* Path match on whole components, one a suffix of the other (as the
 * development benchmark's scorer); a leading "./" is ignored. */
bool eval_path_match(const char *a, const char *b);
/* The rank (1-based) of the first of syms[0..n) (at most 10 looked at)
 * that holds the truth (tfile, tline), 0 if none. */
int eval_truth_rank(const graph *g, const uint32_t *syms, uint32_t n, const char *tfile,
                    uint32_t tline);

typedef struct eval_ranks {
    uint64_t n;            /* targets */
    uint64_t hit[EVAL_NK]; /* hits within each of eval_ks */
    double rr;             /* reciprocal ranks summed */
} eval_ranks;

/* One target: its rank (0: a miss). */
void eval_ranks_add(eval_ranks *r, int rank);
/* hit[i] / n and rr / n (0 when there is no target). */
double eval_ranks_top(const eval_ranks *r, int i);
double eval_ranks_mrr(const eval_ranks *r);

/* ------------------------------------------------------------------ */
/* Baselines                                                           */
/* ------------------------------------------------------------------ */

/*
 * Computed over the same mapping as the model:
 *   bm25, tokens     BM25 and TF-IDF over names, docstrings and
 *                    templates, the query being the last activity
 *   df1, df2         directly-follows of order 1 and 2 (backing off)
 *   same_function    the current activity's emitters
 *   global_pagerank  PageRank over the code graph, the same for all
 *   ppr_no_follows   PageRank over the code graph from the current emitters
 */
typedef enum {
    EVAL_BL_BM25,
    EVAL_BL_TOKENS,
    EVAL_BL_DF1,
    EVAL_BL_DF2,
    EVAL_BL_SAME,
    EVAL_BL_PAGERANK,
    EVAL_BL_PPR_NO_FOLLOWS,
    EVAL_BL__COUNT
} eval_baseline;

const char *eval_baseline_name(eval_baseline b);

typedef struct eval_baselines eval_baselines;
/* Learns what the baselines need from the training cases. */
int eval_baselines_new(const graph *g, const map_mapper *m, const model_seqs *train,
                       eval_baselines **out);
void eval_baselines_free(eval_baselines *b);
/* A baseline's top 10 symbols for the prefix act[0..k) (k >= 1). */
uint32_t eval_baseline_rank(eval_baselines *b, eval_baseline which, const uint32_t *act, uint32_t k,
                            uint32_t *out);

/* ------------------------------------------------------------------ */
/* Scoring a model                                                     */
/* ------------------------------------------------------------------ */

typedef struct eval_result {
    eval_ranks all, change, unseen;
    eval_ranks added; /* n 0 when not asked for */
    eval_ranks bl_all[EVAL_BL__COUNT], bl_change[EVAL_BL__COUNT], bl_unseen[EVAL_BL__COUNT];
    uint64_t unpredictable; /* prefixes the model ranked nothing for */
} eval_result;

/* Scores md (and, with b, every baseline) on the test cases of l, whose
 * events m mapped. The log must have truth (l->has_truth). With added (a
 * flag per event of l, as eval_added_sites makes), md is also scored on
 * the targets flagged, in out->added. */
int eval_run(const map_mapper *m, const model_log *l, const model_joint *md, eval_baselines *b,
             const uint8_t *added, eval_result *out);

/*
 * Which events of l come from a path added since an older release: per
 * event, 1 when its true line (file and line, l's code.* truth) is a
 * logging site of g, the graph of the code that logged l, and old has no
 * logging site with the same template text (the message of a constant a
 * site logs by name is its template). Identity is the text because lines,
 * functions and files move between releases while an unchanged message
 * stays; so a reworded message counts as added too. A site whose template
 * is unknown ("", a message built at run time) cannot be told apart and
 * counts as old, as does a true line that is no logging site of g.
 * Returns l->nevents flags, owned by the caller (free()).
 */
uint8_t *eval_added_sites(const graph *g, const graph *old, const model_log *l);

/*
 * The learning curve: the test cases of l scored when only the first n
 * training cases (by start time) train, for each of n[0..count)
 * (UINT32_MAX: all of them); the test split is the same at every n. At
 * each point pmrag (calibrated as to says: its params are the start, left
 * as they are), df2 over the same mapping, and, with mt and lt (the same
 * log mapped by its true emitters, map_mapper_opts.use_code_attrs), df2
 * over the true emitters; their ranks all and on the change subset.
 */
typedef struct eval_curve_point {
    uint32_t cases; /* training cases used */
    eval_ranks all, change;
    eval_ranks df2_all, df2_change;
    eval_ranks true_all, true_change; /* n 0: not measured */
} eval_curve_point;

int eval_learning_curve(map_mapper *m, const model_log *l, const model_train_opts *to,
                        const map_mapper *mt, const model_log *lt, const uint32_t *n,
                        uint32_t count, eval_curve_point *out);

/* ------------------------------------------------------------------ */
/* How the mapping did                                                 */
/* ------------------------------------------------------------------ */

/* Per strategy: events and activities, and (with truth) events whose
 * activity's first symbol holds the truth line. With truth, also the same
 * over the events whose message comes from the indexed code (code_total,
 * code_correct): the true line is a site whose template holds literal
 * text (a constant's, for a site logging one by name), or it is in a
 * function that logs text its callers pass. A message read from the
 * wire, a file or the environment and logged as it is can be mapped only
 * by where it happens, never by what it says. */
typedef struct eval_mapping {
    uint64_t events[MAP_BY__COUNT], acts[MAP_BY__COUNT], correct[MAP_BY__COUNT];
    uint64_t total, truth_total;
    uint64_t code_total, code_correct;
    /* Events of templates several sites log, by how their site was told
     * apart (map_ambiguity; MAP_AMB_NONE unused), and how many of those
     * were right. */
    uint64_t amb[MAP_AMB__COUNT], amb_correct[MAP_AMB__COUNT];
} eval_mapping;

/* Counts the events of cases c0..c1-1 of l. */
void eval_mapping_count(const map_mapper *m, const model_log *l, uint32_t c0, uint32_t c1,
                        eval_mapping *out);
/* {"events","mapped","by_strategy":{...},"ambiguous":{"events",
 * "case","traces","tied"}[,"first_symbol_correct","correct_by_strategy":
 * {...},"from_code_events","from_code_correct","ambiguous_correct":
 * {"case","traces","tied"}]} (shares of the events, right shares of
 * each kind) */
void eval_mapping_json(const eval_mapping *t, bool truth, core_buf *b);
/* A table: strategy, events, share, activities[, share correct]. */
void eval_mapping_text(const eval_mapping *t, bool truth, core_buf *b);

/*
 * Where the mapping goes wrong, largest first: the activities whose events
 * (of cases c0..c1-1) are unmapped or, with truth, mapped to a first
 * symbol that does not hold the truth line. This is how the next idiom
 * shows itself: a sample message, where it really came from, and where
 * the mapping sent it.
 */
typedef struct eval_miss {
    uint32_t activity;
    map_strategy strategy;   /* MAP_BY_NONE: unmapped */
    uint64_t events, missed; /* the activity's events, and those missed */
    uint32_t tfile, tline;   /* a missed event's truth (tfile: a log string) */
} eval_miss;

/* Writes the max largest misses (by missed events) to out; returns how
 * many. Without truth only unmapped activities count. */
uint32_t eval_mapping_misses(const map_mapper *m, const model_log *l, uint32_t c0, uint32_t c1,
                             eval_miss *out, uint32_t max);
/* [{"activity","strategy","events","missed","sample"[,"truth","mapped_to"]}] */
void eval_misses_json(const map_mapper *m, const model_log *l, const eval_miss *x, uint32_t n,
                      core_buf *b);
/* One entry per miss: the counts, the strategy and the activity, then the
 * sample message, the truth (file:line) and the symbol it was mapped to. */
void eval_misses_text(const map_mapper *m, const model_log *l, const eval_miss *x, uint32_t n,
                      core_buf *b);

/* ------------------------------------------------------------------ */
/* The report of `pmrag eval`                                          */
/* ------------------------------------------------------------------ */

typedef struct eval_report {
    const map_mapper *mapper;
    const model_log *log;
    const eval_result *result;
    bool baselines; /* result has the baselines' scores */
    const eval_mapping *mapping;
    const eval_miss *misses; /* the mapping's largest misses on the test cases */
    uint32_t nmisses;
    const char *added_since; /* result->added was asked for: the older graph's path */
    const model_params *params;
    model_stats model;
    /* The learning curve, when ncurve > 0. */
    uint32_t ncurve;
    const eval_curve_point *curve;
    double train_seconds, eval_seconds;
} eval_report;

/* The JSON object of `pmrag eval --json` (one line) or its text tables. */
void eval_report_json(const eval_report *r, core_buf *b);
void eval_report_text(const eval_report *r, core_buf *b);

#ifdef __cplusplus
}
#endif
#endif
