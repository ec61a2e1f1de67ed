/*
 * model.h - from activities to what comes next: the directly-follows
 * model over the mapper's activities (mining, the joint graph, ranking
 * "next, not current", calibration, the model file), event logs loaded
 * as datasets, and the one recipe that learns a model from a log. The
 * mapper itself (events to activities to symbols) is in map.h.
 *
 * Threading and lifetime. A trained model_joint is immutable once built,
 * except model_stream_prepare, and may be ranked by any number of
 * threads, each with its own model_work. A model borrows its mapper (and
 * the mapper its graph and overrides): they must outlive it.
 * model_mapper_snapshot() copies what a new model needs, so training can
 * run on another thread while mapping goes on. Arrays handed out by
 * model_work functions are valid until that work's next call. Nothing
 * here prints: messages go to the core_logger given in the options.
 */
#ifndef PMRAG_MODEL_H
#define PMRAG_MODEL_H

#include "core.h"
#include "graph.h"
#include "ingest.h"
#include "map.h"
#include "ppr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The model: process mining and the joint graph                       */
/* ------------------------------------------------------------------ */

/*
 * The joint graph has the code graph's symbols, one node per activity,
 * and one per activity context seen in training: the last o tokens of a
 * case for o = 1..order, over two alphabets, variants (an activity's
 * abstracted messages, kept when they are few for its count: they tell
 * apart what one template does in different places) and activities.
 * Edges: context -> next activity (follows, the directly-follows
 * probabilities of the context), activity -> symbols (emits, the mapping
 * confidences), symbol -> symbol (code edges, type-weighted, scaled by
 * code_scale against a sink, so calibration can turn diffusion down).
 *
 * A prefix is seeded at the contexts it ends with, longest first, each
 * taking lambda_o = n/(n + u) of what the longer ones left (Witten-Bell:
 * n events seen after the context, u distinct next activities); the rest
 * goes to the prefix's own activities with geometric decay (recency, and
 * the current emitter: the cold-start fallback). Every seed of a context
 * takes its first step along follows edges: the "next, not current" rule.
 * Symbols are ranked by their PageRank score.
 */
typedef struct model_params {
    uint32_t order;       /* longest context, 1..MODEL_MAX_ORDER (default 6) */
    double variant_ratio; /* keep an activity's variants when they are at most
                             this share of its events (default 0.2)... */
    uint32_t variant_min; /* ...or at most this many (default 8); 0 and 0: never */
    double alpha;         /* restart probability (default 0.3) */
    double code_scale;    /* code-edge weight against the sink (default 0.1) */
    double decay;         /* recency decay over the prefix (default 0.5) */
    double escape;        /* Witten-Bell escape factor (default 1) */
    /* The code's share of what the contexts leave: the rest goes to
     * recency (default 0.9) */
    double code_prior;
    /* The share of what the contexts leave that the case's own past may
     * take (what followed the last activity earlier in the case), as a
     * factor on its Witten-Bell weight (default 1; 0: none) */
    double case_prior;
    ppr_weights weights; /* code edge types */
    /* How model_calibrate searches (not part of the model: a trained
     * model keeps them, the model file does not). */
    uint32_t calibrate_folds;   /* cross-validation folds, 2..MODEL_MAX_FOLDS
                                   (default 3) */
    uint32_t calibrate_threads; /* models trained at once (0: one per CPU) */
} model_params;

#define MODEL_MAX_ORDER 16
/* The last events of a case its own past is read from (case_split in
 * rank.c): what a daemon keeps of a case. */
#define MODEL_CASE_WINDOW 16
#define MODEL_MAX_FOLDS 10

model_params model_params_default(void);

/* Cases as sequences: events off[c] .. off[c+1]-1 of case c. */
typedef struct model_seqs {
    const uint32_t *act; /* activity ids */
    const uint32_t *var; /* variant ids */
    const uint32_t *off; /* ncases + 1 */
    uint32_t ncases;
} model_seqs;

typedef struct model_joint model_joint;

/*
 * Mines the directly-follows contexts of the training cases and builds
 * the joint graph over the mapper's activities (those that exist now;
 * later ones have no node). The mapper is borrowed and must outlive the
 * model.
 */
int model_train(map_mapper *m, const model_seqs *train, const model_params *p, model_joint **out);
void model_free(model_joint *md);
/*
 * Learning from a stream: what was seen after each window of events, as
 * observations (the window's activity and variant ids, oldest first, the
 * next activity, how many times). model_train_more() builds a new
 * model over the same mapper with the base's contexts and counts plus
 * these (mined as model_train mines a case: each window gives its
 * contexts of orders 1..order at both levels), the base's parameters and
 * variant choices, and nodes for the activities the mapper has now.
 * The base is only read. events and cases are added to the training
 * counts in the stats.
 */
typedef struct model_follow_obs {
    const uint32_t *act, *var; /* order ids each */
    uint32_t order;            /* 1..MODEL_MAX_ORDER */
    uint32_t next;
    uint64_t count;
} model_follow_obs;
/*
 * What a new model needs of the mapper (how many activities and variants
 * it has, each activity's symbols and confidences), copied: taken while
 * the mapper is not changing (under the lock of whoever maps), it lets
 * model_train_more run on another thread while mapping goes on. The
 * model built from it still borrows the mapper itself, which must outlive
 * it, for what it reads later (activity texts).
 */
typedef struct model_mapper_snap model_mapper_snap;
model_mapper_snap *model_mapper_snapshot(const map_mapper *m);
void model_mapper_snap_free(model_mapper_snap *snap);

/* snap: NULL to read the base's mapper as it is now. */
int model_train_more(const model_joint *base, const model_mapper_snap *snap,
                     const model_follow_obs *obs, size_t nobs, uint64_t events, uint64_t cases,
                     model_joint **out);

const model_params *model_get_params(const model_joint *md);

typedef struct model_stats {
    uint32_t symbols, activities, contexts, variants_kept;
    size_t edges, follows, bytes;
    uint64_t train_events, train_cases;
} model_stats;
void model_get_stats(const model_joint *md, model_stats *out);

/*
 * Calibration: a search over order, variant_ratio, alpha, code_scale,
 * decay and escape (coordinate ascent from *p, two rounds) scored by
 * k-fold cross-validation inside the training cases: they are cut into
 * p->calibrate_folds contiguous folds in case order (model_folds),
 * and each candidate is trained on all folds but one and scored on that
 * one, for every fold; the objective is top-1 + 1/4 MRR pooled over the
 * folds (each fold weighted by its number of scored prefixes). The target
 * of a prefix is its next activity's symbols, as mapped: nothing outside
 * train is seen. The folds of a candidate train on p->calibrate_threads
 * threads; the result does not depend on it. Below min_cases training
 * cases (or 4) *p is left as it is (tuning on a handful of cases is
 * noise). The code's share (code_prior) is searched from 0, first: it is
 * kept only where it beats none on these folds. Progress, the chosen
 * values with their per-fold scores and the
 * final spread over the folds go to the logger at INFO. Writes the best
 * parameters to *p.
 */
int model_calibrate(map_mapper *m, const model_seqs *train, uint32_t min_cases, model_params *p,
                    const core_logger *log);

/* Query scratch: one per thread. */
typedef struct model_work model_work;
int model_work_new(const model_joint *md, model_work **out);
void model_work_free(model_work *w);

typedef struct model_pred {
    uint32_t symbol;
    float score;
    uint32_t activity; /* the predicted next activity it comes from, or UINT32_MAX */
    /* UINT32_MAX for a symbol the walk ranked; for one that fills a list
     * the walk left short, the ranked symbol it is near in the code graph
     * (ranked after every walked one, with no activity) */
    uint32_t near;
} model_pred;

/*
 * Ranks the symbols that emit the next event after a prefix of len
 * events (activity and variant ids): at most k, best first; returns how
 * many. Only functions, methods and other symbols that emit an activity
 * are ranked.
 */
uint32_t model_rank(const model_joint *md, model_work *w, const uint32_t *act, const uint32_t *var,
                    uint32_t len, uint32_t k, model_pred *out);

/*
 * A stateless query (`pmrag query`, `POST /v1/query`): a trace's events
 * mapped as m would map them, with nothing added to m (map_mapper_peek:
 * the caller holds whatever lock guards m), then ranked with w.
 */
typedef struct model_query_event {
    /* UINT32_MAX for a message no activity of m has (it ranks as
     * unknown), or a variant never seen */
    uint32_t activity, variant;
    /* how the activity is mapped; MAP_BY_NONE when it is unknown or
     * mapped to nothing */
    map_strategy strategy;
    /* offset in the query's texts of the activity's text (or the text a
     * new activity would have), NUL-terminated */
    uint32_t text;
} model_query_event;

/* Maps evs[0..n) into ev[0..n) (their texts appended to texts) and ranks
 * the trace: writes up to k predictions to out and returns how many. */
uint32_t model_query(const model_joint *md, model_work *w, map_mapper *m, const map_event *evs,
                     uint32_t n, uint32_t k, model_query_event *ev, core_buf *texts,
                     model_pred *out);

/*
 * Streaming (the daemon): a case's state is its last tokens (activity and
 * variant ids, at most order of them matter) and a sparse vector rec, the
 * PageRank of its decayed recency seed sum_j decay^(k-j) e(a_j) (not
 * normalised; wsum is the seed's total weight). Each event advances the
 * vector with the warm-start rule, rec <- decay * rec + x(e_a)
 * (ppr_state_advance over the precomputed activity vectors), so a
 * ranking costs the contexts' part only. model_rank_warm() then
 * equals model_rank() on the same prefix up to the truncation of the
 * vectors (rec->err bounds it) and the recency window (RECENCY_WINDOW
 * events in model_rank, unbounded here).
 *
 * model_stream_prepare() computes the activity vectors (M entries
 * each, on threads threads); call it once before advancing; it changes
 * the model, so not while another thread ranks with it.
 */
int model_stream_prepare(model_joint *md, uint32_t M, unsigned threads);
/* Bytes held by the activity vectors. */
size_t model_stream_bytes(const model_joint *md);
/* Bytes md holds of its own: contexts, follows, the joint net, the
 * activity vectors, the code's prior (not the mapper or the graph). */
size_t model_bytes(const model_joint *md);
/* Bytes of a work's scratch: the walk's, the memo, the fill's. */
size_t model_work_bytes(const model_work *w);
/* One event of activity act: rec (rec->cap entries kept, at most
 * PPR_MAX_M) and *wsum advance. An activity without a node in the model
 * (one the mapper met since) adds what a seed on it would reach one step
 * on, its symbols as the mapper has them (a push from each: reads the
 * mapper, on the thread that maps); one the mapper gives no symbol only
 * ages the vector. Uses w's scratch; no allocation. */
int model_advance(const model_joint *md, model_work *w, ppr_vec *rec, double *wsum, uint32_t act);
/* Ranks like model_rank() from the last len tokens and the case's
 * vector (rec may be NULL or empty: the contexts alone). */
uint32_t model_rank_warm(const model_joint *md, model_work *w, const uint32_t *act,
                         const uint32_t *var, uint32_t len, const ppr_vec *rec, double wsum,
                         uint32_t k, model_pred *out);

/* The walk path that contributes most to symbol's score in the last
 * ranking on w (ppr_explain over the joint net from that ranking's seeds;
 * max_visits as there), or, when the code's part of the ranking gave it
 * more, the code's step: from the last event's activity (or, for one newer
 * than the model, the symbol that logged it) to symbol, of type
 * MODEL_EDGE_NEXT_SITE (model_explain_code says which sites); or, when
 * the case's own part gave it more still, the same step of type
 * MODEL_EDGE_IN_CASE (it logged what followed that activity earlier in
 * the case). Node ids as
 * model_node_text reads them; edge types are the code graph's (with
 * PPR_REVERSE) or MODEL_EDGE_*. */
int model_explain(const model_joint *md, model_work *w, uint32_t symbol, uint32_t max_visits,
                  ppr_path *out);
/* For symbol in the last ranking on w, what the code says: "from the
 * code: FILE:LINE (SYMBOL) -> FILE:LINE (SYMBOL)", the emit site of the
 * last event and the one it can log next in symbol that weigh most
 * (graph_next_sites), appended to out. False, with nothing appended, when
 * the code's part of the ranking gave symbol nothing. Reads the mapper (an
 * activity's sites): on the thread that maps, or under its lock. */
bool model_explain_code(const model_joint *md, model_work *w, uint32_t symbol, core_buf *out);
/* What a node of the joint net is, as one line of text: a symbol's
 * qualified name, activity "text", context [a] > "variant" > ..., or (sink);
 * long texts cut. Appended to out. */
void model_node_text(const model_joint *md, uint32_t node, core_buf *out);
/* The name of an edge type of a model_explain path: "follows", "emits",
 * "next-site", "earlier-in-case", or the code graph's name (graph_edge_type_name, reverse or
 * not). */
const char *model_edge_name(uint8_t type);

/* The parameters as one line of text ("order 6, variant_ratio 0.2, ...")
 * or a JSON object {"order","variant_ratio",...}. */
void model_params_format(const model_params *p, bool json, core_buf *b);

/* Edge types of the joint net beyond the code graph's (next-site: the
 * code's step of an explanation; earlier-in-case: the case's own step,
 * what followed the last activity earlier in the case; neither is an edge
 * of the net). */
#define MODEL_EDGE_EMITS 16
#define MODEL_EDGE_FOLLOWS 17
#define MODEL_EDGE_SINK 18
#define MODEL_EDGE_NEXT_SITE 19
#define MODEL_EDGE_IN_CASE 20

/*
 * The model file: the parameters, the mapper's dictionary (activities with
 * their symbols, variants) and the contexts with their follows counts,
 * tied to the graph it was trained on (a model of another graph is
 * refused). Written atomically.
 */
int model_save(const model_joint *md, const char *path);
/* Loads a model for graph g: creates the mapper (with opts) and the
 * model; the caller frees both. Errors name the file and what is wrong;
 * CORE_ELIMIT when the model has more activities than
 * opts->max_activities (why ends "... allowed", for the caller to name
 * the setting). */
int model_load(const char *path, const graph *g, const map_mapper_opts *opts, map_mapper **mapper,
               model_joint **out, char *why, size_t whylen);

/*
 * A model trained on one release's graph, loaded for the next's: its
 * activities re-mapped onto g by what they are (map_dict_remap: a template
 * follows its text, a reworded one takes the most similar text, one whose
 * sites are gone keeps its statistics and predicts no symbol), its
 * contexts and counts kept as they are. Saved again, it is a model of g.
 * A re-mapped model (and one model_train_more learns on from it) ranks
 * a prefix that ends in events it has no node for (what the release
 * added) from the contexts of the events before them.
 */
typedef struct model_load_opts {
    bool remap;       /* re-map a model of another graph instead of refusing it */
    const graph *old; /* the graph it was trained on, when known (NULL: not) */
    /* old is a guess (the graph a daemon served before a new release): a
     * model trained on another graph is re-mapped without it, not
     * refused. */
    bool old_guess;
    double min_similarity; /* map_remap_opts' (0: its default) */
    /* Out, may be NULL: what re-mapping did (remapped false when the model
     * was g's); the caller frees it (map_remap_free), also on error. */
    map_remap *report;
} model_load_opts;

/* model_load, re-mapping as lo says (NULL: model_load itself). Messages
 * of re-mapping (a failed external command) go to opts->log. */
int model_load_onto(const char *path, const graph *g, const map_mapper_opts *opts,
                    const model_load_opts *lo, map_mapper **mapper, model_joint **out, char *why,
                    size_t whylen);

/* ------------------------------------------------------------------ */
/* The order of a case's events                                        */
/* ------------------------------------------------------------------ */

/*
 * A case's events are ordered by event time: a span by its start, a log
 * record or a span event by its own time, ties by the order they arrived
 * (or their order in the file). Clocks that disagree are corrected within
 * a case: a span is placed inside its parent (the same trace, a
 * parent_span_id of a span of the case), on its parent's clock when it
 * fits there, and a log record or span event that names a span of the
 * case (its trace and span id) moves with that span and never before its
 * start. The daemon and the offline commands both order through these
 * functions. Reentrant.
 */
typedef struct model_order_ev {
    /* In. */
    int64_t time;    /* its own time; INGEST_NO_TIME: none */
    int64_t dur;     /* a span's duration (end - start); < 0: unknown */
    uint64_t span;   /* a span's id; another event's span; 0: none (model_order_span_id) */
    uint64_t parent; /* a span's parent's id; 0: none */
    bool is_span;
    bool fixed;   /* already placed: key, shift and depth are given, only read */
    uint64_t tie; /* the order of arrival (or in the file) */
    /* Out (in, when fixed). */
    int64_t key;    /* the time the case is ordered by */
    int64_t shift;  /* key - time: how far its clock was corrected */
    uint32_t depth; /* spans above it in the case: a parent comes before its children */
} model_order_ev;

/* The id of a span from its trace and span id texts (hex): a hash, never
 * 0; 0 when span is NULL or empty. */
uint64_t model_order_span_id(const char *trace, const char *span);
/* An event's part in the order: its time, kind, end and the ids in its
 * attributes "trace_id", "span_id" and "parent_span_id" (OTLP's, as
 * ingest names them). ev is borrowed for the call. */
void model_order_event(const ingest_event *ev, uint64_t tie, model_order_ev *out);
/* Places every event of ev[0..n) (one case's) that is not fixed: its key,
 * shift and depth. Order them with model_order_cmp. */
void model_order_keys(model_order_ev *ev, size_t n);
/* Negative when a comes first: by key, then depth, then tie. */
int model_order_cmp(const model_order_ev *a, const model_order_ev *b);

/* ------------------------------------------------------------------ */
/* Event logs as datasets                                              */
/* ------------------------------------------------------------------ */

/*
 * An event log loaded for offline work (map, mine, eval, predict, the
 * daemon's bootstrap): streamed twice from its file (the first pass
 * orders the cases and each case's events, by event time as the daemon
 * does: model_order_keys; the second maps every event to its activity,
 * each case's in that order, so that the mapper sees a case's recent
 * events as the daemon does), then kept as ids. The raw messages are not
 * held: a log of any size costs memory per event (about 32 bytes, and 24
 * more while it loads) and per distinct message; only an event that comes
 * in the file before an earlier event of its case waits, copied, for that
 * one (none in a log written in time order).
 */
typedef struct model_log_opts {
    ingest_file_opts in;
    double train_frac; /* cases ordered by first event: the first share train */
    /* Keys of the truth and of mapping hints; NULL: the usual names. */
    const char *file_key, *function_key, *line_key, *logger_key, *level_key;
    /* Give the mapper the train split's code.* attributes. */
    bool learn_code_attrs;
    /* Keep each case's events in the order of the file (the order they
     * arrived in, for a log that recorded it) instead of event time
     * (model_order_keys), the default. */
    bool arrival_order;
    /* The cases are complete: an event of a template whose sites are
     * variants is decided by all of its case (map_mapper_revise), those
     * before the case's first telling event too, for a mapping reported
     * as such. Off (for a model), each is decided by the events before it,
     * as the daemon decides a running case, so that the model learns the
     * contexts it will be asked about. */
    bool whole_cases;
    /* Refuse a log whose events lack the truth (a file and a line each):
     * CORE_EUSAGE, before anything is trained from it. */
    bool require_truth;
    /* Progress of each pass ("reading", then "mapping"): called every
     * 4096 events and once at the end with done == total; may be NULL. */
    void (*progress)(void *ud, const char *stage, uint64_t done, uint64_t total);
    void *progress_ud;
} model_log_opts;

typedef struct model_log_event {
    uint32_t act, var;
    uint32_t tfile, tfunc; /* truth: strtab offsets (0: none) */
    uint32_t tline;        /* 0: none */
} model_log_event;

typedef struct model_log {
    core_strtab strs;
    uint32_t ncases, ntrain; /* cases in chronological order; the first ntrain train */
    uint32_t *case_id;       /* strtab offsets */
    uint32_t *off;           /* ncases + 1: events of case c are off[c] .. off[c+1]-1 */
    model_log_event *ev;
    uint32_t *act, *var; /* the same ids as flat arrays (for model_seqs) */
    uint64_t nevents, bad;
    bool has_truth; /* every event has a truth file and line */
    ingest_format format;
    /* Per activity id: the first message mapped to it (strtab offset, cut
     * at 200 bytes; 0 for none), to show what an activity looked like. */
    uint32_t *sample;
    uint32_t nsample;
} model_log;

/* Loads path, mapping events with m. Errors name the file, line and
 * field (why). */
int model_log_load(const char *path, const model_log_opts *o, map_mapper *m, model_log *out,
                   char *why, size_t whylen);
void model_log_free(model_log *l);
/* After map_mapper_finish: each case's events of a message placed at the
 * sites of several functions go to the one the case was at
 * (map_mapper_place), as the daemon maps them from then on. */
void model_log_place(model_log *l, map_mapper *m);

/* The mapper's view of one event: its text, logger and level and, with
 * code_attrs, its code.* attributes (keys from o; NULL keys: the usual
 * names). learn is left false. Pointers borrow from ev. */
void model_log_map_event(const ingest_event *ev, const model_log_opts *o, bool code_attrs,
                         map_event *me);

/* The training cases (or all, or the test cases) as sequences. */
model_seqs model_log_train(const model_log *l);
model_seqs model_log_all(const model_log *l);
/* The activities (ids below nact) that start (end) the most cases of
 * seqs, at most k, most first, into acts with their case counts; returns
 * how many. */
uint32_t model_seqs_boundary(const model_seqs *seqs, uint32_t nact, bool end, uint32_t k,
                             uint32_t *acts, uint32_t *counts);

static inline const char *model_log_str(const model_log *l, uint32_t off)
{
    return core_strtab_str(&l->strs, off);
}

/* ------------------------------------------------------------------ */
/* The recipe                                                          */
/* ------------------------------------------------------------------ */

typedef struct model_train_opts {
    /* The parameters to train with; with calibrate, where the search
     * starts, and on return the values it chose. */
    model_params params;
    bool calibrate;
    uint32_t calibrate_min_cases;
    /* Warnings (malformed records skipped, mapping problems) and, at INFO,
     * the calibration's progress. */
    core_logger log;
    /* Out: the time calibration and training took, in seconds. */
    double seconds;
    /* A model file to use instead of training one: the log is mapped by
     * its mapper, loaded onto g as load says (a model of another graph
     * re-mapped, with load.remap). NULL: train. */
    const char *model_path;
    model_load_opts load;
} model_train_opts;

/*
 * The one way from a log to a model: a mapper over g (mo), the log loaded
 * and mapped through it (lo; lo->train_frac of the cases train), the
 * mapping finished, then, when md is not NULL, the model calibrated (if
 * asked) and trained on the training cases. With to->model_path the
 * mapper and the model are that file's instead (nothing is trained; the
 * log's train split only teaches the mapping, as the daemon's events do).
 * On success the caller owns *mapper, *log (model_log_free) and *md.
 * Errors name the file, line and field, or the step that failed, in why;
 * nothing is returned then. A log of no events gives no model
 * (CORE_EFORMAT) when md is asked for.
 */
int model_train_from_log(const graph *g, const map_mapper_opts *mo, const char *path,
                         const model_log_opts *lo, model_train_opts *to, map_mapper **mapper,
                         model_log *log, model_joint **md, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
