/*
 * mapper_int.h - private to the mapper's two files: mapper.c resolves each
 * event as it comes (templates, duplicates, the message cache), finish.c
 * runs the deferred strategies over what was gathered (code attributes,
 * constants, formatters, positions, loggers, the external command). Both
 * work on the one map_mapper below, from the thread that owns it.
 */
#ifndef PMRAG_MAP_MAPPER_INT_H
#define PMRAG_MAP_MAPPER_INT_H

#include "map_int.h"

#define MAX_CAND 64
/* Proven sites that make a candidate callee a logging function. */
#define LISTED_SITES 2

/* The loggers an unmatched activity keeps (act_rec.loggers): a message
 * several loggers route alike is placed by the files they share. */
#define ACT_LOGGERS 4

typedef struct act_rec {
    uint32_t text; /* strtab offset */
    uint8_t strategy;
    bool tried;               /* finish() has looked at it */
    bool has_const;           /* matched string constants only */
    bool error_text;          /* read out of an error's rendering (map__error_message) */
    bool aside;               /* matched only sites set aside: cands, the last resort */
    uint32_t sym_off, nsyms;  /* into syms/conf */
    uint32_t cand_off, ncand; /* template candidates or constant owners */
    uint64_t count;
    uint32_t nvariants;
    /* For a message no template matched: the logger and level its records
     * came with (strtab offsets + 1; 0 none yet, LOGGER_MIXED several). */
    uint32_t logger, level;
    /* With several loggers: each of them (strtab offsets + 1), while they
     * are no more than ACT_LOGGERS and every record named one. */
    uint32_t loggers[ACT_LOGGERS];
    uint8_t nloggers;
    bool loggers_lost;
    /* For a message no template matched: the first one as it came
     * (strtab offset + 1; 0 none), which the positional strategy renders
     * against its neighbours' sites (the activity's text is abstracted). */
    uint32_t sample;
    /* For a message no template matched: its learnt records another event
     * followed (what the neighbours' `after` counts are out of). */
    uint32_t followed;
    uint8_t amb; /* map_ambiguity */
    /* A group of variants some case showed running side by side (its
     * recent events pointed at several): told apart by nearness only. */
    bool side_by_side;
    /* The variant its messages' values name (map__value_told), + 1; 0
     * none. */
    uint32_t told;
    /* Placed among its logger's sites by nearness alone in this finish
     * (map_by_logger): a guess the messages of its lead may overrule. */
    bool near_only;
    /* A group one of whose sites logs through a logger its caller hands
     * in (logger_handed): the record's logger tells nothing of which. */
    bool logger_handed;
} act_rec;

#define LOGGER_MIXED UINT32_MAX

/* What a distinct message (with its logger and level) resolves to before
 * the case context is known. */
typedef struct msg_rec {
    uint32_t act;   /* the activity, or UINT32_MAX when it depends on prev */
    uint32_t group; /* ambiguous: the group (an activity id of the template) */
    /* No template matched: listed_gen then (a match may come once more
     * callees are proven); UINT32_MAX otherwise. */
    uint32_t gen;
    /* The abstracted message by its hash (masked_hash), MASKED_NONE when
     * peek met a text never seen. */
    uint64_t masked;
    /* Where the record came from (record_source): its logger, or the
     * shape of what its logging function put before the message. */
    uint64_t source;
    bool by_decoration;
} msg_rec;

/* An ambiguous message in one context: the activity chosen (a group
 * member, or the group), and the candidates' scores normalised to sum 1
 * (at score_off in amb_scores; none when nothing near was found). */
typedef struct amb_rec {
    uint32_t act;
    uint32_t score_off;
    bool scored;
} amb_rec;

typedef struct nb_rec {
    uint32_t act, nb;
    uint32_t count;
    uint32_t after; /* neighbours: of count, the times nb came right after act */
} nb_rec;

typedef core_vec(nb_rec) nb_vec;

/* A logger and a wrapper it logs through (map_mapper.logger_wraps). */
typedef struct {
    uint64_t logger;
    uint32_t wrapper;
} logger_wrapper;

struct map_mapper {
    const graph *g;
    map_mapper_opts o;
    uint32_t aside; /* roles set aside (map_matcher_opts.aside) */
    map_matcher *matcher;
    map_match_work *mw;
    map_text *text; /* built on first use */
    ppr_net *code;  /* built on first use */
    ppr_work *cw;
    core_strtab strs;
    core_map act_by_text; /* strtab offset -> activity */
    core_vec(act_rec) acts;
    core_vec(uint32_t) syms;
    core_vec(float) conf;
    core_vec(uint32_t) cands;
    /* variants */
    core_map var_by_key; /* hash(act, masked hash) -> variant + 1 */
    core_vec(uint32_t) var_act;
    core_vec(uint32_t) var_text;
    /* Per variant the class its text names (map__class_told), + 1; 0
     * none. */
    core_vec(uint32_t) var_told;
    /* message cache */
    core_map msg_cache; /* hash -> MSG_FIXED | act << 32 | variant, or index into msgs + 1 */
    core_vec(msg_rec) msgs;
    /* The last message abstracted and its hash: a variant's text is kept
     * (interned) only when the variant is new. */
    core_buf masked_text;
    uint64_t masked_of;
    /* Duplicates: (group, the case's recent activities) -> index into
     * ambs + 1; nearness of a group's candidates to a symbol, (symbol,
     * group) -> offset in near_vals (one float per candidate); what the
     * training cases' contexts said of each group's candidates, group ->
     * offset in amb_acc (one sum per candidate). */
    core_map amb_cache;
    /* The words that name a variant (map__value_told): hash of the word
     * -> the graph's literal index + 1, of the method that returns it. */
    core_map told_words;
    /* The classes a message may name as the case's object's
     * (map__class_told): hash of the name -> class symbol + 1. */
    core_map told_classes;
    /* Every class name of the graph: hash of the name -> class symbol + 1,
     * UINT32_MAX + 1 when several classes have it. */
    core_map class_names;
    /* How near the code links a container to a class's module
     * (link_hops), (container << 32 | module) -> hops + 1. */
    core_map class_links;
    /* Classes of no common base whose methods log texts alike
     * (map__variant_syms): (lower << 32 | higher class) -> how many. */
    core_map parallel;
    core_vec(amb_rec) ambs;
    core_vec(float) amb_scores;
    core_map near_index;
    core_vec(float) near_vals;
    core_map acc_index;
    core_vec(double) amb_acc;
    core_vec(uint32_t) acc_groups; /* the groups in acc_index, in order */
    /* As of the last finish (count_runs): per class, the events placed
     * at its methods alone (runs); and the events of texts only it, or
     * the code that creates its objects, logs (runs_seen). */
    core_map runs, runs_seen;
    /* code attributes: (act, symbol) -> count, and the files */
    core_map code_votes;
    core_map code_cache; /* hash of code.* attributes -> symbol + 1 */
    core_vec(nb_rec) votes;
    core_smap file_by_path;
    /* neighbours of unmapped activities; and (chain) the unmapped
     * neighbours of unmapped activities, which finish() reads once those
     * are mapped */
    core_map nb_index;
    nb_vec nbs;
    core_map chain_index;
    nb_vec chain;
    /* The first symbols of the activities mapped as finish() begins: the
     * code this deployment runs (order_agreement reads it). */
    core_map live;
    core_buf tmp;
    core_buf errmsg; /* an error's own text (map__error_message) */
    core_buf member; /* a JSON member's text (map__json_next) */
    uint32_t other;  /* the fold-over activity, or UINT32_MAX */
    /* Past the caps (a flood of distinct messages): the masked text's hash
     * that stands for every new one, and how many messages were folded. */
    uint64_t masked_other;
    uint64_t folded;
    /* Which callees log, learnt from the messages seen: each emit site's
     * callee (receiver and method), and per callee the number of its
     * distinct sites whose templates matched a message. */
    uint32_t *emit_callee; /* per emit: callee number */
    /* Per emit: the hash of a candidate call's receiver when it is an
     * object a logger may go through (map__through_object), else 0. */
    uint64_t *emit_recv;
    uint32_t *callee_sites; /* per callee: sites proven by a message */
    uint32_t ncallees;
    uint8_t *proven; /* per emit: matched a message */
    /* Per emit: a candidate call whose callee has LISTED_SITES proven
     * sites, which then matches as a known logging shape does (the
     * matcher reads it); listed_gen counts the callees so listed. */
    uint8_t *listed;
    uint32_t listed_gen;
    /* Per emit: the activity of its template's text once one was made
     * (UINT32_MAX before): a matched message needs no hashing of the
     * template to find it. Activities are never removed. */
    uint32_t *tmpl_act;
    /* Where each logger was shown to log from: (logger, file) -> distinct
     * messages its templates matched there, and logger -> all of them;
     * the decorations of records without a logger counted alike, as
     * loggers of their own (record_source). */
    core_map logger_files;
    core_map logger_total;
    /* file -> what logger_files counts there, summed over the sources. */
    core_map file_logged;
    /* Per file, and per symbol: whether a site of it has a template no
     * other file's (symbol's) site has, so that a message can show it
     * logging at all (a module whose every message another module logs
     * too never can); built on first use (map__ensure_tellers). */
    uint8_t *file_tells, *sym_tells;
    /* What each logger was shown to log through: (logger, a candidate
     * call's receiver) -> distinct messages a template of such a call
     * matched. */
    core_map logger_recv;
    /* What each logger was shown to log through a wrapper of ours: (logger,
     * wrapper) -> distinct messages matched at sites made at its calls,
     * and the pairs in the order first seen. */
    core_map logger_wrap;
    core_vec(logger_wrapper) logger_wraps;
    /* Calls of functions that log what their callers pass in a way the
     * code does not show (GRAPH_SF_TAKES_TEXT), as (callee, emit) in
     * that order; built on first use. */
    core_vec(nb_rec) takes;
    bool takes_built;
    /* Calls passing a literal (without holes) to a function of ours, as
     * (callee, emit) in that order: what callers hand each function,
     * which a message that function logs may show. */
    core_vec(nb_rec) passed;
    /* map_mapper_peek: resolve without keeping anything; the text of an
     * activity that does not exist. */
    bool dry;
    core_buf peek_text;
};

/* A hash as a map key: core_map reserves UINT64_MAX. */
uint64_t map__key64(uint64_t h);

/* Sets an activity's symbols and their confidences (n of each) and the
 * strategy that found them. */
void map__activity_set_syms(map_mapper *m, uint32_t act, map_strategy st, const uint32_t *s,
                            const float *c, uint32_t n);
/* map__activity_set_syms with every one of the n (at most MAX_CAND)
 * equally likely. */
void map__activity_set_even(map_mapper *m, uint32_t act, map_strategy st, const uint32_t *s,
                            uint32_t n);
/* Sets an activity's candidate symbols: the sites of a template several
 * log, or those a message placed by position is told apart among. */
void map__activity_set_cands(map_mapper *m, uint32_t act, const uint32_t *s, uint32_t n);

/* The files logger was shown to log from (see mapper.c); up to max. */
uint32_t map__logger_files(const map_mapper *m, const char *logger, uint32_t *files, uint32_t max);
/* Whether the log showed logger's messages going through candidate calls
 * on receiver (at least RECV_MIN of them). */
bool map__logger_through(const map_mapper *m, const char *logger, const char *receiver);
/* The wrappers of ours that logger was shown to log through (at least 3
 * messages), up to max into wrappers; how many. */
uint32_t map__logger_wrappers(const map_mapper *m, const char *logger, uint32_t *wrappers,
                              uint32_t max);

/* The symbol that emits at site emit (e is its record). */
uint32_t map__site_emitter(const graph *g, uint32_t emit, const graph_emit *e);

/* The innermost function or method containing line of the graph file
 * that is the longest suffix of path on '/' boundaries (func names it
 * when line is 0); the file's module when none contains the line;
 * GRAPH_NONE when no file is such a suffix. */
uint32_t map__symbol_at(const map_mapper *m, const char *path, uint32_t line, const char *func);

/* The length of an activity's text without the " @qualname" a member
 * of a duplicate group has after its template (all of it when none). */
size_t map__text_base_len(const char *text);
/* Whether emit site e's template is text[0..n) (a logging call's, when n
 * is 0: an empty message's). */
bool map__site_has_text(const graph *g, uint32_t e, const char *text, size_t n);
/* Whether the log refutes candidate sym of group: the code says each of
 * its sites of the group's text is surely followed by a logging call of
 * a literal message, at a level no lower, that no event showed. */
bool map__refuted(const map_mapper *m, uint32_t group, uint32_t sym);

/* Builds m->file_tells and m->sym_tells on first use. */
void map__ensure_tellers(map_mapper *m);

/* Builds the PageRank net over the code graph on first use. */
void map__ensure_code_net(map_mapper *m);

/* Where the records of act begin in v[0..n), sorted by act. */
size_t map__first_of(const nb_rec *v, size_t n, uint32_t act);

/* A duplicate group's candidates, at most MAX_CAND. */
uint32_t map__group_size(const map_mapper *m, uint32_t group);

#endif
