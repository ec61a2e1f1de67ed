/*
 * map.h - events to code: which functions emit an event, with what
 * confidence.
 *
 * The pieces, bottom up: rendered messages abstracted (masking) and
 * matched against the emit sites' templates (the matcher); a
 * text-similarity index over the graph's functions; activities mapped by
 * hand (overrides) and by an external command; and the mapper, which
 * composes them into activities (and variants) and their symbols, with
 * the dictionary codec that keeps what it learnt.
 *
 * Threading and ownership. A built matcher, text index or override set is
 * immutable and may be read by any number of threads at once; matching
 * needs one map_match_work per thread, and what a match returns points
 * into that work until its next call. A matcher borrows its graph (it
 * must stay open while the matcher lives); a text index copies what it
 * needs. A map_mapper belongs to one thread at a time (mapping changes it:
 * new activities, variants, counts); readers on other threads take the
 * owner's lock. It borrows its graph and overrides: they must outlive it.
 * Strings the mapper hands out (activity texts, variant texts) are owned
 * by it and valid until it is freed. Nothing here prints except through
 * the core_logger given.
 */
#ifndef PMRAG_MAP_H
#define PMRAG_MAP_H

#include "core.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif
/* ------------------------------------------------------------------ */
/* Messages: abstraction and template matching                         */
/* ------------------------------------------------------------------ */

/*
 * Abstracts a rendered message so that its variants fold into one
 * activity: numbers become <num>, hexadecimal runs and 0x literals <hex>,
 * words with many digits (generated ids: 4 digits or more, or 2 in a word
 * of 10 characters or more) <id>, UUIDs <uuid>, quoted strings '<*>' (or "<*>"), file paths and
 * URLs <path>; runs of white space become one space and the result is cut at max bytes (0 = 256) on
 * a UTF-8 boundary. Appends to out; returns the length appended.
 */
size_t map_mask_message(const char *s, size_t n, size_t max, core_buf *out);

/*
 * The template matcher: every emit site with literal text (log calls,
 * print, warnings, span and event names, and the constants that hold
 * templates) compiled into an anchored PCRE2 pattern (JIT when the library
 * has it). Literal newlines and tabs also match their escaped forms ("\n"
 * as two characters), as logs often escape them; a hole matches any text,
 * across lines. Candidates are found through an index of each template's
 * first (or, when it starts with a hole, last) literal bytes, so a message
 * is tried against a handful of patterns whatever the number of templates.
 */
typedef struct map_matcher map_matcher;

typedef struct map_matcher_opts {
    /* A message at least this long that matches the start of a template
     * and then ends is taken as truncated (a partial match; 0 = 64). */
    uint32_t partial_min;
    /* PCRE2 match limit per pattern (0 = 100000): backtracking on hostile
     * input stops there and counts as no match. */
    uint32_t match_limit;
    /* Files set aside: a mask of 1u << graph_role. Their sites match a
     * message only when no other site does (a test's literal does not
     * take a message the product logs, however closely it renders it),
     * and map_matcher_unseen leaves them out. 0: none. */
    uint32_t aside;
} map_matcher_opts;

/* The roles set aside by default: all but the product. */
#define MAP_ASIDE_DEFAULT                                                                          \
    ((1u << GRAPH_ROLE_TEST) | (1u << GRAPH_ROLE_EXAMPLE) | (1u << GRAPH_ROLE_BENCHMARK) |         \
     (1u << GRAPH_ROLE_GENERATED) | (1u << GRAPH_ROLE_VENDORED) | (1u << GRAPH_ROLE_BROWSER))

int map_matcher_build(const graph *g, const map_matcher_opts *o, map_matcher **out);
void map_matcher_free(map_matcher *m);
/* Number of compiled templates (emit sites with literal text). */
uint32_t map_matcher_count(const map_matcher *m);
/* Bytes the matcher holds: its indexes, its texts, the compiled patterns. */
size_t map_matcher_bytes(const map_matcher *m);

/* Scratch memory for matching: one per thread. */
typedef struct map_match_work map_match_work;
map_match_work *map_match_work_new(const map_matcher *m);
void map_match_work_free(map_match_work *w);
/* Candidate call sites (GRAPH_EMIT_CALL) whose byte in listed (one per
 * emit id, owned by the caller, read at each match) is nonzero match as
 * the sites of a known logging shape do, however little literal text
 * they show: the log proved that their callee logs. NULL: none. */
void map_match_work_listed(map_match_work *w, const uint8_t *listed);

enum {
    MAP_MATCH_PARTIAL = 1u << 0,   /* the message was cut short */
    MAP_MATCH_CONST = 1u << 1,     /* only string constants matched */
    MAP_MATCH_LOGGER = 1u << 2,    /* narrowed by the logger name */
    MAP_MATCH_LEVEL = 1u << 3,     /* narrowed by the level */
    MAP_MATCH_DECORATED = 1u << 4, /* matched after text the logger put before it */
    MAP_MATCH_ASIDE = 1u << 5,     /* only sites in files set aside matched */
};

typedef struct map_match {
    uint32_t nemits;     /* emit sites kept after tie-breaking (0: no match) */
    uint32_t nmatched;   /* templates that matched before tie-breaking */
    uint32_t literal;    /* literal bytes of the kept templates */
    uint32_t flags;      /* GRAPH_MATCH_* */
    uint32_t decoration; /* bytes before the matched text (MAP_MATCH_DECORATED) */
} map_match;

/*
 * Matches one rendered message. When the whole message matches nothing,
 * or only a template covering less than half of it, the text after each
 * non-word byte in its first 96 bytes (and at least 4 before its end) is
 * tried too (a decoration the logging function put before the caller's
 * text, such as "BASIC:" or "[conn=3] "): the start whose logging sites
 * (not bare constants) have the most literal bytes wins, when that is at
 * least 8 and more than twice what the whole message matched. Candidate
 * calls (GRAPH_EMIT_CALL) alone match only with 10 literal bytes or a
 * third of the text. Ties between matching templates are
 * resolved by literal length (the most specific wins), then by the logger
 * name (a site whose logger, or whose module, is `logger`), then by the
 * level (`level` as a log record gives it: "DEBUG", "warning", "WARN", or
 * "SPAN"/"EVENT" for span and span-event names; a candidate call whose
 * method is a level word, `diag.error(...)`, is at that level); what
 * remains is kept.
 * Sites that log a matching constant (a template held in a name) count as
 * direct matches; a match on a constant alone is flagged
 * MAP_MATCH_CONST and returns the constants' emit ids. logger and level
 * may be NULL or "". Writes up to max emit ids, best template first; the
 * id of the kept template's text is emits[0]'s template.
 */
map_match map_matcher_match(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                            const char *logger, const char *level, uint32_t *emits, uint32_t max);

/*
 * Whether emit site `emit`'s template renders msg: the whole of it, or
 * what follows a separator in its first 96 bytes (text a logging function
 * put before its caller's). Returns the template's literal bytes (how
 * specific the rendering is), 0 when it does not render msg; templates
 * with fewer than 3 literal bytes render anything and count as not
 * rendering. For checking a few sites the code graph points at
 * (map_matcher_match is the way to find them among all).
 */
uint32_t map_matcher_renders(const map_matcher *m, map_match_work *w, uint32_t emit,
                             const char *msg, size_t len);

/*
 * The log sites a message can come from without any template showing it:
 * sites whose message has no literal text to match (built at run time, a
 * name not resolved to a constant, holes only), outside wrappers (their
 * callers' sites stand for them), narrowed to the record's level when
 * some are at it and some not. Which sites: with a logger, those of that
 * logger (as map_matcher_match agrees on it); without one (NULL or ""),
 * those in files[0..nfiles) (ids of graph_get_file), for a logger no site
 * names whose other messages were shown to come from there. Returns how
 * many there are; writes up to max emit ids, in id order. Safe from any
 * number of threads.
 */
uint32_t map_matcher_unseen(const map_matcher *m, const char *logger, const uint32_t *files,
                            uint32_t nfiles, const char *level, uint32_t *emits, uint32_t max);

/*
 * The candidate calls without text to match (`diag.verbose(s)`, `'  %s'`;
 * not a logger the code names) message msg may come from: those whose
 * receiver `through` accepts (what the log showed its logger's messages
 * go through) and whose little literal text renders msg whole, narrowed
 * to the record's level (a level-named method's) as map_matcher_unseen
 * does. Returns how many; writes up to max emit ids, in id order.
 */
uint32_t map_matcher_unseen_calls(const map_matcher *m, map_match_work *w, const char *msg,
                                  size_t len, bool (*through)(void *ud, const char *receiver),
                                  void *ud, const char *level, uint32_t *emits, uint32_t max);

/*
 * Whether a record of this logger and level, message msg, can come from
 * emit site `emit`, one of those without text to match
 * (map_matcher_unseen's): its level agrees with the record's where both
 * are known, its logger does where the code names one, and what little
 * literal text its template has renders msg whole ("\n{attrs}"; a site
 * with none renders anything). With shown, only a site whose template has
 * some literal text takes it, and only with a value without whitespace in
 * each hole: with next to no text, the message's shape is all there is
 * to go by (`"%s %s"` renders "GET /ok", not a sentence). False for a
 * site with text, a wrapper's own or one set aside. logger and level may
 * be NULL or "".
 */
bool map_matcher_unseen_takes(const map_matcher *m, map_match_work *w, uint32_t emit,
                              const char *msg, size_t len, const char *logger, const char *level,
                              bool shown);

/* ------------------------------------------------------------------ */
/* Text similarity                                                     */
/* ------------------------------------------------------------------ */

/*
 * An identifier-aware text index over the functions and methods of a
 * graph: the "token similarity" strategy (TF-IDF cosine) and the BM25
 * baseline, for ranking symbols against the text of an event (a log
 * template, a span name).
 *
 * Threading: a built index is immutable; any number of threads may query
 * it at once. A query allocates its own working memory (proportional to
 * the query's length and k, not to the number of documents) and frees it
 * before returning, so there is no scratch object to share. The index
 * copies what it needs: the graph may be closed once it is built.
 */

/*
 * Splits text into identifier-aware tokens and calls fn for each; returns
 * how many were passed to fn (fn may be NULL, to count them).
 *
 * Words are runs of ASCII letters and digits and of bytes >= 0x80; every
 * other byte separates. A word is cut further at case boundaries: lower
 * to upper ("sendRequest" -> send, request), digit to upper ("md5Hash"
 * -> md5, hash), and before the last capital of a run of capitals that a
 * lower-case letter follows ("HTTPServerError" -> http, server, error),
 * except for a plural acronym: a single 's' that ends the run ("getURLs"
 * -> get, urls). Digits stay with the letters before them ("get_URL2" ->
 * get, url2; "sha256" stays whole). Tokens are lower-cased (ASCII only).
 *
 * Dropped: tokens of one byte, tokens that start with a digit (numbers,
 * "0x1f", "10ms", "2nd"), tokens longer than MAP_TOKEN_MAX bytes
 * (hashes, blobs), and a small fixed list of English and code stop words
 * (the, a, of, to, in, for, is, and, from, with, self, cls, this, none,
 * null, ...).
 *
 * Bytes >= 0x80 (UTF-8) are passed through unchanged as letters that have
 * no case: "naïve" is one token, and one non-ASCII character is a token
 * of its own (it is longer than one byte). No validation is done.
 *
 * The token passed to fn is valid only during the call (it is not
 * NUL-terminated; use len).
 */
#define MAP_TOKEN_MAX 64
size_t map_tokenize(const char *s, size_t n, void (*fn)(void *ud, const char *tok, size_t len),
                    void *ud);

typedef struct map_text map_text;

typedef struct map_text_hit {
    uint32_t symbol; /* symbol id in the graph the index was built from */
    float score;
} map_text_hit;

typedef struct map_text_opts {
    bool classes;   /* classes are documents too (their name, doc and emits) */
    uint32_t aside; /* roles (1u << graph_role) whose files hold no document */
} map_text_opts;

/*
 * Builds the index. There is one document per function and method (and
 * class, with opts->classes), made of the tokens of, with these weights:
 *   - its name                                                   3
 *   - the rest of its qualname (module path, enclosing classes)  1
 *   - its docstring (graph_symbol.doc)                           1
 *   - the template of each of its emit sites (log messages, span
 *     and event names), with the %-directives removed; a message
 *     given by name (GRAPH_STYLE_REF) counts with the template of
 *     the constant it was resolved to                            2
 * A token's weighted count in a document is its term frequency (tf) in
 * both models, and the sum of them is the document's BM25 length.
 * Documents without any token are counted (N) but never returned.
 *
 * opts may be NULL (the defaults: functions and methods only). The
 * caller owns *out (map_text_free). Returns 0, -ENOMEM when the
 * arrays sized by the graph cannot be allocated, or CORE_ELIMIT past
 * 2^32 postings.
 */
int map_text_build(const graph *g, const map_text_opts *opts, map_text **out);
void map_text_free(map_text *t);
/* Bytes the index holds. */
size_t map_text_bytes(const map_text *t);

/* Documents (N) and distinct tokens in the index. */
uint32_t map_text_ndocs(const map_text *t);
uint32_t map_text_nterms(const map_text *t);

/*
 * Both queries tokenize query (qlen bytes, not necessarily NUL-terminated)
 * with map_tokenize(), after skipping masked placeholders: '<', 1 to 16
 * letters, digits, '_' or '*', '>' ("<num>", "<HEX>", "<*>"), so that a
 * mask does not match an identifier such as num_retries. They write the
 * top k documents that share at least one token with the query to out,
 * best first, ties by lower symbol id, and return how many were written:
 * at most k, and 0 when no token of the query is in the index (or k is 0;
 * out may then be NULL). Their working memory is small, and its
 * allocation aborts on out-of-memory like core_xmalloc.
 */

/*
 * TF-IDF cosine similarity, in [0, 1]. Weights are (1 + ln tf) * idf with
 * idf = ln((N + 1) / (df + 1)) + 1, for documents and query alike (a query
 * token's tf is its count in the query). Tokens of the query that are not
 * in the index count in the query's norm with df = 0, so a query of which
 * few words are known scores low.
 */
uint32_t map_text_tfidf(const map_text *t, const char *query, size_t qlen, uint32_t k,
                        map_text_hit *out);

/*
 * Okapi BM25 with k1 = 1.2, b = 0.75: the sum over the query's tokens (a
 * repeated token counts again) of
 *     idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 * with the non-negative idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (as in
 * Lucene), where avgdl is the mean length over all N documents.
 */
uint32_t map_text_bm25(const map_text *t, const char *query, size_t qlen, uint32_t k,
                       map_text_hit *out);

/* ------------------------------------------------------------------ */
/* Mapping activities by hand and by an external command               */
/* ------------------------------------------------------------------ */

/*
 * Manual overrides: a YAML list of rules, each mapping an activity pattern
 * to one or more symbols.
 *
 *     - activity: "Sending http request: *"
 *       symbols: [botocore.endpoint.Endpoint._do_get_response]
 *     - activity: "/^Retry needed.*$/i"
 *       symbols: [RetryHandler.needs_retry, retryhandler.RetryHandler.__call__]
 *       confidence: 0.5
 *
 * `activity` is a glob on the whole activity text (`*` any text, `?` one
 * character, `[a-z]`, `[!x]` classes, `\` escapes; unlike core_glob_match,
 * `*` crosses '/'), or, written /.../ with optional flags (only `i`, for
 * case-insensitive), a PCRE2 regex in UTF-8 mode that may match anywhere
 * in the text (anchor it with ^ and $; bytes that are not valid UTF-8 are
 * never matched by it). A glob that starts with '/' and would read as a
 * regex is written with "\/". `symbols` are resolved with graph_find();
 * `confidence` is in (0, 1], 1 by default.
 *
 * Thread safety: once loaded, any number of threads may call
 * map_overrides_match() at once.
 */
typedef struct map_overrides map_overrides;

/*
 * Reads and checks the rules of the file at path against g (only symbol
 * ids are kept: the overrides do not borrow g, but their ids belong to it).
 * The caller owns *out (map_overrides_free). Every error names
 * "PATH:LINE:" and the key, symbol or pattern at fault in why: CORE_EFORMAT
 * for YAML syntax, unknown or repeated keys, a missing `activity` or
 * `symbols`, a bad glob or regex (with PCRE2's message and offset) or
 * confidence; CORE_ENOTFOUND for a symbol that matches nothing;
 * CORE_EAMBIGUOUS for one that matches several (up to 5 listed); an errno
 * when the file cannot be read. An empty file has no rules.
 */
int map_overrides_load(const char *path, const graph *g, map_overrides **out, char *why,
                       size_t whylen);
void map_overrides_free(map_overrides *o);
/* Number of rules. */
uint32_t map_overrides_count(const map_overrides *o);

/*
 * The first rule (file order) whose pattern matches the activity text
 * (len bytes, not necessarily NUL-terminated): writes up to max of its
 * symbol ids to syms and their confidences to conf (the rule's confidence
 * split evenly over its n symbols: conf / n; conf may be NULL), its index
 * to *rule (if not NULL), and returns n. Returns 0 when no rule matches,
 * leaving *rule alone.
 */
uint32_t map_overrides_match(const map_overrides *o, const char *activity, size_t len,
                             uint32_t *syms, float *conf, uint32_t max, uint32_t *rule);

/*
 * External command: map_llm_map() sends activities in batches to a
 * user's command (an LLM behind a script) and reads its proposed mappings.
 * Each batch is one run of `/bin/sh -c CMD` in a process group of its own;
 * the data goes only through its stdin, never through the command line.
 * The request, one JSON document:
 *
 *     {"version":1, "task":"map-activities-to-code",
 *      "activities":[{"id":0, "text":"...", "count":110,
 *                     "candidates":[{"symbol":"pkg.mod.Class.method",
 *                                    "file":"pkg/mod.py", "start_line":20,
 *                                    "end_line":40, "kind":"method"}]}]}
 *
 * ids count from 0 in each batch. The response on stdout (at most 16 MiB):
 *
 *     {"mappings":[{"id":0, "symbols":[{"symbol":"Class.method",
 *                                       "confidence":0.8}]}]}
 *
 * A symbol may also be given as a plain string; a missing confidence is 1.
 * Symbols are resolved with graph_find(). Unknown ids, symbols that match
 * nothing or several, and confidences outside (0, 1] are skipped with a
 * warning through the logger naming the batch, the id and the symbol.
 * Output on stderr is kept (its first 200 bytes) for the error messages.
 */
typedef struct map_llm_item {
    const char *text;           /* the activity, NUL-terminated */
    uint64_t count;             /* how often it was seen (a hint for the command) */
    const uint32_t *candidates; /* symbol ids to offer, e.g. top text-similarity hits */
    uint32_t ncandidates;
} map_llm_item;

typedef struct map_llm_opts {
    const char *cmd;     /* run with /bin/sh -c */
    uint32_t batch;      /* activities per run; 0 = 50 */
    uint32_t timeout_ms; /* per run, then the process group gets SIGKILL; 0 = 60000 */
    core_logger log;     /* warnings for skipped items and later failed batches */
} map_llm_opts;

/*
 * Runs the batches one after the other. For each item i (index into
 * items) the command maps, calls fn(ud, i, symbol, confidence) once per
 * proposed symbol, from the calling thread, after that batch's response
 * was read in full. A batch fails as a whole when the command cannot be
 * started, exits with a non-zero status or by a signal (-EIO), runs past
 * the timeout (-ETIMEDOUT), prints more than 16 MiB (CORE_ELIMIT) or
 * prints something that is not a JSON object with a "mappings" list
 * (CORE_EFORMAT). The batches after a failed one still run.
 *
 * Returns 0 when every batch ran (skipped items are only warnings), or
 * the first failed batch's code with its reason in why ("llm batch 2 of 3
 * (items 3-5): ...", with the start of stderr); later failures are logged
 * as warnings. *failed (if not NULL) gets the number of failed batches.
 * CORE_EUSAGE, before anything runs, for no command, an item without text
 * or a candidate that is not a symbol of g. SIGPIPE is blocked in the
 * calling thread while a request is written, then restored.
 */
int map_llm_map(const graph *g, const map_llm_item *items, size_t n, const map_llm_opts *o,
                void (*fn)(void *ud, size_t item, uint32_t symbol, float conf), void *ud,
                uint32_t *failed, char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* Events to activities to symbols                                     */
/* ------------------------------------------------------------------ */

/*
 * The mapper turns events into activities and activities into the symbols
 * that emit them. Strategies, in order, each filling what the ones before
 * left:
 *   code      OpenTelemetry code.* attributes (only when allowed)
 *   override  the manual YAML file
 *   template  emit-site templates (map_matcher), ties broken by logger,
 *             level and, for a message several functions log, by the
 *             case: the variant its other events point at (a class's
 *             and its overriding subclasses' sites), else the code-graph
 *             proximity to the case's previous activities
 *   const     a message that only matches a string constant: personalized
 *             PageRank over the code graph seeded at the constants' owners
 *             and at the emitters around the message in the cases seen,
 *             ranking only functions that log non-literal messages
 *   tokens    TF-IDF cosine between the activity and symbol names,
 *             docstrings and templates
 *   llm       an external command
 * A message that matched a template becomes that template's activity (its
 * text is the template); one that matched nothing is abstracted
 * (map_mask_message) so that its variants fold into one activity. Each
 * activity also has variants: the abstracted rendered messages, kept for
 * the process model (which may tell them apart).
 */
typedef enum {
    MAP_BY_NONE = 0,
    MAP_BY_CODE,
    MAP_BY_OVERRIDE,
    MAP_BY_TEMPLATE,
    MAP_BY_CONST,
    MAP_BY_TOKENS,
    MAP_BY_LLM,
    MAP_BY_LOGGER, /* no template: the logger's sites without text */
    MAP_BY_STACK,  /* no template: the first frame of a traceback it carries */
    MAP_BY__COUNT
} map_strategy;

const char *map_strategy_name(map_strategy s);

typedef struct map_mapper_opts {
    bool use_code_attrs;            /* learn from code.* attributes */
    const map_overrides *overrides; /* NULL: none */
    bool no_tokens;                 /* turn the token-similarity strategy off */
    double tokens_min;              /* least cosine to accept (0 = 0.25) */
    bool no_const;                  /* turn the constants strategy off */
    bool no_logger;                 /* turn the logger's-sites strategy off */
    const char *llm_cmd;            /* NULL: no external command */
    uint32_t llm_batch, llm_timeout_ms;
    uint32_t max_activities; /* 0 = 1000000; past it, new messages fold into one */
    /* Map to every file alike: tests, examples, benchmarks, generated and
     * vendored code too. Else (the default) their sites take a message
     * only when no product site matches it, and the other strategies
     * leave them out (MAP_ASIDE_DEFAULT). */
    bool include_tests;
    core_logger log;
} map_mapper_opts;

typedef struct map_mapper map_mapper;

/* One event as the mapper sees it; every string may be NULL. */
typedef struct map_event {
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
} map_event;

int map_mapper_new(const graph *g, const map_mapper_opts *o, map_mapper **out);
void map_mapper_free(map_mapper *m);
/* Bytes the mapper holds: its matcher, activities, caches and indexes
 * (not the graph). */
size_t map_mapper_bytes(const map_mapper *m);

/* The case's recent activities a mapping looks at (the most recent
 * weigh most). */
#define MAP_RECENT 8

/* The most variants a case's memory of the values it showed keeps. */
#define MAP_TOLD_MAX 8

/*
 * A case's memory of the variants its events' values named (a mode's name
 * only one variant's code returns, the class of the object that logs:
 * see map_mapper_map): sym[0..*n), each with the position seq[] of the
 * event that named it first, in that order. Adds those that activity act
 * and its variant var name, at position at, unless there already or the
 * memory is full: the first ones named are kept, so that forgetting those
 * named after a position (map_told_cut) leaves the memory as it was
 * there.
 */
void map_told_note(const map_mapper *m, uint32_t act, uint32_t var, uint64_t at, uint32_t *sym,
                   uint64_t *seq, uint32_t *n);
/* Forgets the variants of a case's memory first named after position at
 * (an event placed before them is mapped again). */
void map_told_cut(uint64_t at, const uint64_t *seq, uint32_t *n);

/*
 * Maps one event of a case whose recent activities are recent[0..nrecent)
 * (oldest first, the previous event's last; nrecent 0 for the first
 * event; at most MAP_RECENT are looked at), and whose earlier events
 * named the variants told[0..ntold) (map_told_note; NULL, 0 for none):
 * writes its activity and variant ids. A message several sites log goes
 * to one of them (an activity "TEMPLATE @qualname"), else to all of them:
 * for methods of one class hierarchy, the one an object of a class the
 * case named runs (else its class's own); for sites that are variants (a
 * class's and its overriding subclasses'),
 * the one the recent events and the variants told point at as
 * map_mapper_revise has it (those it decided so telling the next ones),
 * none when they point at none; for sites of one
 * class or module, or variants the recent events show running side by
 * side, the one the recent events are clearly nearest to over the code
 * graph. Code attributes, when
 * allowed, are counted for the activity (they decide its symbols at
 * map_mapper_finish). Repeated messages are answered from a cache.
 */
void map_mapper_map(map_mapper *m, const map_event *ev, const uint32_t *recent, uint32_t nrecent,
                    const uint32_t *told, uint32_t ntold, uint32_t *activity, uint32_t *variant);
/*
 * What map_mapper_map would answer, keeping nothing: no activity,
 * variant, count or evidence is added (the daemon's stateless query). A
 * message that would make a new activity gives *activity UINT32_MAX;
 * *variant is UINT32_MAX for a variant never seen (both rank as unknown).
 * *text is the activity's text, or the one a new activity would have,
 * valid until the next call on m. Uses m's scratch and caches of the
 * code: the same locking as map_mapper_map.
 */
void map_mapper_peek(map_mapper *m, const map_event *ev, const uint32_t *recent, uint32_t nrecent,
                     const uint32_t *told, uint32_t ntold, uint32_t *activity, uint32_t *variant,
                     const char **text);

/*
 * Revises the activities of one complete case's events act[0..n) (in the
 * case's order, as map_mapper_map gave them, with their variants var), in
 * place. An event of a template whose sites are variants (methods of a
 * class and of subclasses that override them: the asynchronous client of
 * a synchronous one, a platform's implementation of a portable one) goes
 * to the one site consistent with the sites the case's other events name
 * without doubt: those its class may run (an
 * override hides the base's method), else those whose class or module
 * the code links to its own, else the one it is clearly nearest to; a
 * method every variant inherits is consistent with all. Sites decided so
 * tell in turn (a variant's class tells its other templates' sites).
 * Unlike map_mapper_map, which decides each event by the events before it
 * (as a running case must), the whole case decides every event, those
 * before its first telling one too: for the mapping of complete cases,
 * not for the contexts a model will be asked about. Where nothing decides
 * (or the case's sites point at several variants) the event keeps what
 * map_mapper_map gave it. Call before map_mapper_finish. Returns how many
 * events changed activity.
 */
uint32_t map_mapper_revise(map_mapper *m, uint32_t *act, uint32_t *var, uint32_t n);

/*
 * One case's events (activities act[0..n) and variants var[0..n), in its
 * order), after map_mapper_finish: an event of a message finish placed
 * at the sites of several functions by the events around it goes to the
 * one its case was at, as map_mapper_map sends such a message's events
 * from then on (the events before it in act telling, as the recent
 * events do there). Returns how many events changed activity.
 */
uint32_t map_mapper_place(map_mapper *m, uint32_t *act, uint32_t *var, uint32_t n);

/*
 * Maps what the per-event strategies left: code-attribute votes; the
 * weights of the sites of each template several sites log, from what the
 * training cases' recent events said of them; then the constants, token
 * and external strategies for activities without symbols. Call after a batch of events (again later
 * for new activities: only those not tried yet are). Returns 0, or the external command's error
 * (the other strategies' results are kept).
 */
int map_mapper_finish(map_mapper *m, char *why, size_t whylen);

/* How an activity of a template several sites log was told apart. */
typedef enum {
    MAP_AMB_NONE = 0, /* one site logs it (or another strategy mapped it) */
    MAP_AMB_CASE,     /* one site, chosen for the case by its recent events */
    MAP_AMB_MESSAGE,  /* one site, named by what the message's holes hold */
    MAP_AMB_LOGGER,   /* one site, in the one file the record's logger was seen logging from */
    MAP_AMB_TRACES,   /* all the sites, weighted by the training cases: one clearly */
    MAP_AMB_TIED,     /* all the sites, nothing telling them apart */
    MAP_AMB_RUNS,     /* all the sites, weighted by the variant the rest of the log runs */
    MAP_AMB__COUNT
} map_ambiguity;

const char *map_ambiguity_name(map_ambiguity a);

typedef struct map_activity {
    const char *text;
    map_strategy strategy;
    uint32_t nsyms;
    const uint32_t *syms; /* symbol ids, best first */
    const float *conf;    /* their confidences (summing to at most 1) */
    uint64_t count;       /* events mapped to it */
    uint32_t nvariants;
    /* for a template several sites log, how its sites were told apart;
     * known for the mapping done by this mapper (a restored dictionary
     * says MAP_AMB_NONE) */
    map_ambiguity amb;
} map_activity;

uint32_t map_mapper_nactivities(const map_mapper *m);
void map_mapper_activity(const map_mapper *m, uint32_t id, map_activity *out);
uint32_t map_mapper_nvariants(const map_mapper *m);
/* Distinct messages folded into "<other>" because max_activities was
 * reached. Past the cap the mapper keeps nothing new: at most
 * 2 x max_activities distinct messages are cached and as many variants
 * kept (a new variant then is its activity's "<other>" variant), so a
 * flood of unique messages cannot grow memory without bound. */
uint64_t map_mapper_folded(const map_mapper *m);
/* A variant's activity and text. */
uint32_t map_mapper_variant(const map_mapper *m, uint32_t id, const char **text);
/* The variant of activity act with this (abstracted) text: the existing
 * one, or a new one (a variant another instance learnt, by its text). */
uint32_t map_mapper_restore_variant(map_mapper *m, uint32_t act, const char *text);
/* The activity with this exact text, or UINT32_MAX. */
uint32_t map_mapper_find(const map_mapper *m, const char *text);
const graph *map_mapper_graph(const map_mapper *m);

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
void map_dict_put_activity(const map_mapper *m, uint32_t act, core_buf *out);
void map_dict_put_variant(const map_mapper *m, uint32_t var, core_buf *out);
/* Re-creates a record's activity (variant) as m's next one; *id gets its
 * id; an activity's event count is given apart (count), as the model
 * file keeps it and the state store does not. A text m has already gives
 * that activity's id, or with alias a new activity all the same, which
 * messages do not map to (the text finds the first): a daemon's activity
 * made online keeps its id after a release gave its text to one of the
 * model's. CORE_ECORRUPT for a record that is truncated, has trailing
 * bytes, or names a symbol, strategy or activity m cannot have. */
int map_dict_restore_activity(map_mapper *m, const void *rec, size_t len, uint64_t count,
                              bool alias, uint32_t *id);
int map_dict_restore_variant(map_mapper *m, const void *rec, size_t len, uint32_t *id);

/* ------------------------------------------------------------------ */
/* A dictionary carried onto another graph                             */
/* ------------------------------------------------------------------ */

/*
 * A release moves, rewords and deletes log sites; a dictionary saved for
 * one graph names symbols of that graph only. Re-mapping finds each saved
 * activity on a new graph by what it is: its template's text (and the
 * functions a narrowed activity names), never by symbol ids. An activity
 * keeps its id, count and variants whatever happens to its sites, so the
 * statistics learnt for it (the model's contexts) still apply.
 */
typedef enum {
    MAP_REMAP_KEPT,    /* its sites are where they were: file, line, function */
    MAP_REMAP_MOVED,   /* the same text, at another line, function or file */
    MAP_REMAP_FOUND,   /* the same text; where it was is unknown (no old graph) */
    MAP_REMAP_CHANGED, /* no site has its text, one has a similar text: it
                          takes that text and those sites, with the
                          similarity as the mapping's confidence */
    MAP_REMAP_GONE,    /* no site: its statistics stay, it predicts no symbol */
    MAP_REMAP_AGAIN,   /* not a template's (a message mapped by another
                          strategy): its symbols by their names on the new
                          graph when the old one is known, else mapped again
                          by map_mapper_finish */
    MAP_REMAP__COUNT
} map_remap_kind;

const char *map_remap_kind_name(map_remap_kind k);

typedef struct map_remap_opts {
    /* The graph the records were saved for, or NULL: then the kept and
     * the moved are not told apart (MAP_REMAP_FOUND), and an activity no
     * template made is mapped again. It must be the graph whose symbol
     * ids the records hold. */
    const graph *old;
    /* Symbols of the graph the records were saved for (they must name ids
     * below it). */
    uint32_t old_nsymbols;
    /* Least similarity of a changed template to take (0 = 0.6): one minus
     * the edit distance over the longer length, holes counting as one
     * byte whatever their syntax. */
    double min_similarity;
    /* The id recs[0] is to get: 0 for a whole dictionary (whose record 0
     * is the fold-over activity a new mapper has already), or
     * map_mapper_nactivities(m) for records that come after m's
     * activities (a daemon's made online, after its model's): those
     * whose text one of m's took are restored as aliases
     * (map_dict_restore_activity). */
    uint32_t first;
} map_remap_opts;

typedef struct map_remap_act {
    map_remap_kind kind;
    float similarity; /* MAP_REMAP_CHANGED: of the old text to the new; else 1 */
    uint32_t from;    /* the old text when the activity's text changed (offset in texts), or 0 */
    uint32_t where;   /* "FILE:LINE (SYMBOL)" of its first site, "OLD -> NEW" when it
                         moved (offset in texts), or 0 */
} map_remap_act;

/* What re-mapping did. Owned by whoever called map_dict_remap
 * (map_remap_free). */
typedef struct map_remap {
    bool remapped;  /* false: the dictionary was for this graph, nothing done */
    bool old_known; /* the old graph was given */
    uint32_t first; /* the id of the first activity restored (map_remap_opts') */
    uint32_t nacts;
    map_remap_act *acts; /* per activity restored: acts[i] is activity first + i's */
    uint32_t count[MAP_REMAP__COUNT];
    /* Sites of the new graph that log a template no activity has (one site
     * per text, emit ids, in id order): what the new code adds. */
    uint32_t *new_sites;
    uint32_t nnew;
    core_strtab texts;
} map_remap;

/* One saved activity record (map_dict_put_activity's) with its count. */
typedef struct map_remap_rec {
    const void *rec;
    size_t len;
    uint64_t count;
} map_remap_rec;

/*
 * Restores recs[0..n) (a dictionary's activities, in id order) into m, a
 * mapper on the new graph, as activities o->first..o->first+n-1, each
 * with its sites on m's graph found as map_remap_kind says; then
 * map_mapper_finish maps what is left to it.
 * Fills *out (the caller frees it with map_remap_free, also after an
 * error). Borrows recs; m's graph is the new one. CORE_ECORRUPT, with the
 * record named in why, for a record that does not decode, or whose text
 * (or the text it was reworded to) is one of m's activities already.
 */
int map_dict_remap(map_mapper *m, const map_remap_rec *recs, uint32_t n, const map_remap_opts *o,
                   map_remap *out, char *why, size_t whylen);
void map_remap_free(map_remap *r);
/* How many of recs[0..n) (records saved for g's symbols) are templates'
 * activities whose text no site of g has: a graph whose symbols are the
 * same (the same names at the same lines) but whose messages changed. */
uint32_t map_dict_stale(const graph *g, const map_remap_rec *recs, uint32_t n);
/*
 * The report, appended to out: a line of counts, then one line per
 * activity that did not keep its sites and per new site (at most max
 * lines of them; 0: all), or as JSON: {"remapped","old_graph","activities",
 * "kept","moved","found","changed","gone","again","new_sites","items":[{"kind",
 * "activity","from","similarity","where"}],"new":[{"where","template"}]}.
 * m is the mapper map_dict_remap filled.
 */
void map_remap_format(const map_remap *r, const map_mapper *m, bool json, uint32_t max,
                      core_buf *out);

#ifdef __cplusplus
}
#endif
#endif
