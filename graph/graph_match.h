/*
 * graph_match.h - events against the code graph: messages abstracted and
 * matched to the emit sites' templates, the text-similarity index over
 * the graph's functions, activities mapped by hand (overrides) and by an
 * external command.
 *
 * Threading and ownership: a built matcher, text index or override set is
 * immutable and may be read by any number of threads at once; matching
 * needs one graph_match_work per thread, and what a match returns points
 * into that work until its next call. A matcher borrows its graph (it
 * must stay open while the matcher lives); a text index copies what it
 * needs. Nothing here prints except through the core_logger given.
 */
#ifndef PMRAG_GRAPH_MATCH_H
#define PMRAG_GRAPH_MATCH_H

#include "core.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif
/* ------------------------------------------------------------------ */
/* Messages: abstraction and template matching                         */
/* ------------------------------------------------------------------ */

/*
 * Length of the %-directive at s[0] == '%' of a template or a format, in
 * the syntax Python's %-operator and Node's util.format (and the debug
 * package) share: '%', an optional "(name)", flags "#0- +", a width and a
 * precision (digits or '*'), length modifiers "hlL" and one conversion
 * among "diouxXeEfFgGcrsajOo"; "%%" has length 2. 0 when the '%' is
 * literal text. The conversion is s[len - 1].
 */
size_t graph_directive(const char *s, size_t n);

/*
 * Abstracts a rendered message so that its variants fold into one
 * activity: numbers become <num>, hexadecimal runs and 0x literals <hex>,
 * words with many digits (generated ids: 4 digits or more, or 2 in a word
 * of 10 characters or more) <id>, UUIDs <uuid>, quoted strings '<*>' (or "<*>"), file paths and
 * URLs <path>; runs of white space become one space and the result is cut at max bytes (0 = 256) on
 * a UTF-8 boundary. Appends to out; returns the length appended.
 */
size_t graph_mask_message(const char *s, size_t n, size_t max, core_buf *out);

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
typedef struct graph_matcher graph_matcher;

typedef struct graph_matcher_opts {
    /* A message at least this long that matches the start of a template
     * and then ends is taken as truncated (a partial match; 0 = 64). */
    uint32_t partial_min;
    /* PCRE2 match limit per pattern (0 = 100000): backtracking on hostile
     * input stops there and counts as no match. */
    uint32_t match_limit;
} graph_matcher_opts;

int graph_matcher_build(const graph *g, const graph_matcher_opts *o, graph_matcher **out);
void graph_matcher_free(graph_matcher *m);
/* Number of compiled templates (emit sites with literal text). */
uint32_t graph_matcher_count(const graph_matcher *m);

/* Scratch memory for matching: one per thread. */
typedef struct graph_match_work graph_match_work;
graph_match_work *graph_match_work_new(const graph_matcher *m);
void graph_match_work_free(graph_match_work *w);
/* Candidate call sites (GRAPH_EMIT_CALL) whose byte in listed (one per
 * emit id, owned by the caller, read at each match) is nonzero match as
 * the sites of a known logging shape do, however little literal text
 * they show: the log proved that their callee logs. NULL: none. */
void graph_match_work_listed(graph_match_work *w, const uint8_t *listed);

enum {
    GRAPH_MATCH_PARTIAL = 1u << 0,   /* the message was cut short */
    GRAPH_MATCH_CONST = 1u << 1,     /* only string constants matched */
    GRAPH_MATCH_LOGGER = 1u << 2,    /* narrowed by the logger name */
    GRAPH_MATCH_LEVEL = 1u << 3,     /* narrowed by the level */
    GRAPH_MATCH_DECORATED = 1u << 4, /* matched after text the logger put before it */
};

typedef struct graph_match {
    uint32_t nemits;     /* emit sites kept after tie-breaking (0: no match) */
    uint32_t nmatched;   /* templates that matched before tie-breaking */
    uint32_t literal;    /* literal bytes of the kept templates */
    uint32_t flags;      /* GRAPH_MATCH_* */
    uint32_t decoration; /* bytes before the matched text (GRAPH_MATCH_DECORATED) */
} graph_match;

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
 * GRAPH_MATCH_CONST and returns the constants' emit ids. logger and level
 * may be NULL or "". Writes up to max emit ids, best template first; the
 * id of the kept template's text is emits[0]'s template.
 */
graph_match graph_matcher_match(const graph_matcher *m, graph_match_work *w, const char *msg,
                                size_t len, const char *logger, const char *level, uint32_t *emits,
                                uint32_t max);

/*
 * Whether emit site `emit`'s template renders msg: the whole of it, or
 * what follows a separator in its first 96 bytes (text a logging function
 * put before its caller's). Returns the template's literal bytes (how
 * specific the rendering is), 0 when it does not render msg; templates
 * with fewer than 3 literal bytes render anything and count as not
 * rendering. For checking a few sites the code graph points at
 * (graph_matcher_match is the way to find them among all).
 */
uint32_t graph_matcher_renders(const graph_matcher *m, graph_match_work *w, uint32_t emit,
                               const char *msg, size_t len);

/*
 * The log sites a message can come from without any template showing it:
 * sites whose message has no literal text to match (built at run time, a
 * name not resolved to a constant, holes only), outside wrappers (their
 * callers' sites stand for them), narrowed to the record's level when
 * some are at it and some not. Which sites: with a logger, those of that
 * logger (as graph_matcher_match agrees on it); without one (NULL or ""),
 * those in files[0..nfiles) (ids of graph_get_file), for a logger no site
 * names whose other messages were shown to come from there. Returns how
 * many there are; writes up to max emit ids, in id order. Safe from any
 * number of threads.
 */
uint32_t graph_matcher_unseen(const graph_matcher *m, const char *logger, const uint32_t *files,
                              uint32_t nfiles, const char *level, uint32_t *emits, uint32_t max);

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
 * "0x1f", "10ms", "2nd"), tokens longer than GRAPH_TOKEN_MAX bytes
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
#define GRAPH_TOKEN_MAX 64
size_t graph_tokenize(const char *s, size_t n, void (*fn)(void *ud, const char *tok, size_t len),
                      void *ud);

typedef struct graph_text graph_text;

typedef struct graph_text_hit {
    uint32_t symbol; /* symbol id in the graph the index was built from */
    float score;
} graph_text_hit;

typedef struct graph_text_opts {
    bool classes; /* classes are documents too (their name, doc and emits) */
} graph_text_opts;

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
 * caller owns *out (graph_text_free). Returns 0, -ENOMEM when the
 * arrays sized by the graph cannot be allocated, or CORE_ELIMIT past
 * 2^32 postings.
 */
int graph_text_build(const graph *g, const graph_text_opts *opts, graph_text **out);
void graph_text_free(graph_text *t);

/* Documents (N) and distinct tokens in the index. */
uint32_t graph_text_ndocs(const graph_text *t);
uint32_t graph_text_nterms(const graph_text *t);

/*
 * Both queries tokenize query (qlen bytes, not necessarily NUL-terminated)
 * with graph_tokenize(), after skipping masked placeholders: '<', 1 to 16
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
uint32_t graph_text_tfidf(const graph_text *t, const char *query, size_t qlen, uint32_t k,
                          graph_text_hit *out);

/*
 * Okapi BM25 with k1 = 1.2, b = 0.75: the sum over the query's tokens (a
 * repeated token counts again) of
 *     idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 * with the non-negative idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (as in
 * Lucene), where avgdl is the mean length over all N documents.
 */
uint32_t graph_text_bm25(const graph_text *t, const char *query, size_t qlen, uint32_t k,
                         graph_text_hit *out);

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
 * graph_overrides_match() at once.
 */
typedef struct graph_overrides graph_overrides;

/*
 * Reads and checks the rules of the file at path against g (only symbol
 * ids are kept: the overrides do not borrow g, but their ids belong to it).
 * The caller owns *out (graph_overrides_free). Every error names
 * "PATH:LINE:" and the key, symbol or pattern at fault in why: CORE_EFORMAT
 * for YAML syntax, unknown or repeated keys, a missing `activity` or
 * `symbols`, a bad glob or regex (with PCRE2's message and offset) or
 * confidence; CORE_ENOTFOUND for a symbol that matches nothing;
 * CORE_EAMBIGUOUS for one that matches several (up to 5 listed); an errno
 * when the file cannot be read. An empty file has no rules.
 */
int graph_overrides_load(const char *path, const graph *g, graph_overrides **out, char *why,
                         size_t whylen);
void graph_overrides_free(graph_overrides *o);
/* Number of rules. */
uint32_t graph_overrides_count(const graph_overrides *o);

/*
 * The first rule (file order) whose pattern matches the activity text
 * (len bytes, not necessarily NUL-terminated): writes up to max of its
 * symbol ids to syms and their confidences to conf (the rule's confidence
 * split evenly over its n symbols: conf / n; conf may be NULL), its index
 * to *rule (if not NULL), and returns n. Returns 0 when no rule matches,
 * leaving *rule alone.
 */
uint32_t graph_overrides_match(const graph_overrides *o, const char *activity, size_t len,
                               uint32_t *syms, float *conf, uint32_t max, uint32_t *rule);

/*
 * External command: graph_llm_map() sends activities in batches to a
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
typedef struct graph_llm_item {
    const char *text;           /* the activity, NUL-terminated */
    uint64_t count;             /* how often it was seen (a hint for the command) */
    const uint32_t *candidates; /* symbol ids to offer, e.g. top text-similarity hits */
    uint32_t ncandidates;
} graph_llm_item;

typedef struct graph_llm_opts {
    const char *cmd;     /* run with /bin/sh -c */
    uint32_t batch;      /* activities per run; 0 = 50 */
    uint32_t timeout_ms; /* per run, then the process group gets SIGKILL; 0 = 60000 */
    core_logger log;     /* warnings for skipped items and later failed batches */
} graph_llm_opts;

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
int graph_llm_map(const graph *g, const graph_llm_item *items, size_t n, const graph_llm_opts *o,
                  void (*fn)(void *ud, size_t item, uint32_t symbol, float conf), void *ud,
                  uint32_t *failed, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
