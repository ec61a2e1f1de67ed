/*
 * evlog.h - an event log loaded for the offline commands (map, mine,
 * eval, predict): streamed twice from its file (the first pass orders the
 * cases, the second maps every event to its activity), then kept as ids.
 * The raw messages are never held: a log of any size costs memory per
 * event (about 32 bytes) and per distinct message.
 */
#ifndef PMRAG_EVLOG_H
#define PMRAG_EVLOG_H

#include "core.h"
#include "ingest.h"
#include "ppr.h"

typedef struct evlog_opts {
    ingest_file_opts in;
    double train_frac; /* cases ordered by first event: the first share train */
    /* Keys of the truth and of mapping hints; NULL: the usual names. */
    const char *file_key, *function_key, *line_key, *logger_key, *level_key;
    /* Give the mapper the train split's code.* attributes. */
    bool learn_code_attrs;
    bool progress;
} evlog_opts;

typedef struct evlog_event {
    uint32_t act, var;
    uint32_t tfile, tfunc; /* truth: strtab offsets (0: none) */
    uint32_t tline;        /* 0: none */
} evlog_event;

typedef struct evlog {
    core_strtab strs;
    uint32_t ncases, ntrain; /* cases in chronological order; the first ntrain train */
    uint32_t *case_id;       /* strtab offsets */
    uint32_t *off;           /* ncases + 1: events of case c are off[c] .. off[c+1]-1 */
    evlog_event *ev;
    uint32_t *act, *var; /* the same ids as flat arrays (for ppr_seqs) */
    uint64_t nevents, bad;
    bool has_truth; /* every event has a truth file and line */
    ingest_format format;
} evlog;

/* Loads path, mapping events with m. Errors name the file, line and
 * field (why). */
int evlog_load(const char *path, const evlog_opts *o, ppr_mapper *m, evlog *out, char *why,
               size_t whylen);
void evlog_free(evlog *l);

/* The mapper's view of one event: its text, logger and level and, with
 * code_attrs, its code.* attributes (keys from o; NULL keys: the usual
 * names). learn is left false. Pointers borrow from ev. */
void evlog_map_event(const ingest_event *ev, const evlog_opts *o, bool code_attrs,
                     ppr_map_event *me);

/* The training cases (or all, or the test cases) as sequences. */
ppr_seqs evlog_train(const evlog *l);
ppr_seqs evlog_test(const evlog *l);
ppr_seqs evlog_all(const evlog *l);

static inline const char *evlog_str(const evlog *l, uint32_t off)
{
    return core_strtab_str(&l->strs, off);
}

#endif
