/*
 * graph.h - the code graph: extraction of a Python / TypeScript / TSX /
 * JavaScript repository with tree-sitter, and the graph file.
 *
 * Building: graph_index() walks one or more directories, extracts symbols,
 * references, imports and emit sites from every source file (files in
 * parallel), resolves names across files into typed edges and writes one
 * graph file.
 *
 * Reading: graph_open() maps a graph file read-only and checks it; nothing
 * is parsed or copied. Every pointer the read functions return points into
 * the mapping and stays valid until graph_close().
 *
 * Threading: graph_index() runs worker threads of its own; the logger and
 * progress callbacks it is given are called from them. A graph opened with
 * graph_open() is immutable: any number of threads may read it at once.
 *
 * Symbol ids are dense (0 .. graph_nsymbols()-1). Every file has one symbol
 * of kind module; the rest are classes, interfaces, enums, type aliases,
 * functions and methods, each with its parent (the module for top-level
 * ones).
 */
#ifndef PMRAG_GRAPH_H
#define PMRAG_GRAPH_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GRAPH_SYM_MODULE = 0,
    GRAPH_SYM_CLASS,
    GRAPH_SYM_INTERFACE,
    GRAPH_SYM_ENUM,
    GRAPH_SYM_TYPE, /* TypeScript type alias */
    GRAPH_SYM_FUNCTION,
    GRAPH_SYM_METHOD,
    GRAPH_SYM__COUNT
} graph_sym_kind;

/* Symbol flags. */
enum {
    GRAPH_SF_STATIC = 1u << 0, /* staticmethod / TS static */
    GRAPH_SF_CLASSMETHOD = 1u << 1,
    GRAPH_SF_GETTER = 1u << 2, /* @property / get x() */
    GRAPH_SF_SETTER = 1u << 3,
    GRAPH_SF_CTOR = 1u << 4, /* __init__ / constructor */
    GRAPH_SF_ASYNC = 1u << 5,
    GRAPH_SF_NESTED = 1u << 6,   /* defined inside a function */
    GRAPH_SF_EXPORTED = 1u << 7, /* TS/JS export, CommonJS exports */
    GRAPH_SF_BOUND = 1u << 8,    /* function expression bound to a name */
    GRAPH_SF_ABSTRACT = 1u << 9,
    GRAPH_SF_PRIVATE = 1u << 10, /* #name, or a _name in Python */
    GRAPH_SF_GENERATOR = 1u << 11,
    GRAPH_SF_LOGS = 1u << 12,         /* contains a logging call */
    GRAPH_SF_LOGS_DYNAMIC = 1u << 13, /* ... whose message is not a literal */
    GRAPH_SF_WRAPPER = 1u << 14,      /* logs what its callers pass: their sites stand for it */
    /* calls more than one function for its effect (statements, returns):
     * does more than log, so it is no transparent wrapper */
    GRAPH_SF_EFFECTS = 1u << 15,
    /* logs a non-literal message that may be its callers' text: it logs
     * a parameter, or some call passes it text (a literal or a constant)
     * though how its message is made of that is not known */
    GRAPH_SF_TAKES_TEXT = 1u << 16,
};

typedef enum {
    GRAPH_EDGE_CALLS = 0,
    GRAPH_EDGE_IMPORTS,
    GRAPH_EDGE_INHERITS,
    GRAPH_EDGE_USES,
    GRAPH_EDGE_ACCESSES,
    GRAPH_EDGE_MEMBER_OF,
    GRAPH_EDGE__COUNT
} graph_edge_type;

typedef enum {
    GRAPH_EMIT_LOG = 0, /* logger.info(...), console.warn(...), debug(...) */
    GRAPH_EMIT_PRINT,   /* print(...) */
    GRAPH_EMIT_WARN,    /* warnings.warn(...) */
    GRAPH_EMIT_SPAN,    /* start_as_current_span("x"), startActiveSpan('x') */
    GRAPH_EMIT_EVENT,   /* span.add_event("x"), span.addEvent('x') */
    GRAPH_EMIT_CONST,   /* a string constant bound to a name */
    /* A call of any other callee with a message-like argument (a string,
     * a format, a template literal, a concatenation with literal parts),
     * or a call of such a callee in the same file with other arguments
     * (style DYNAMIC): a candidate emit site. Which callees are logging
     * functions is learnt from the log (the mapper), not from their names. */
    GRAPH_EMIT_CALL,
    GRAPH_EMIT__COUNT
} graph_emit_kind;

/*
 * How the message was written. Every template is stored in one printf-like
 * form: literal text with '%' doubled, and each hole as a conversion
 * (`%s`, or the %-directive the code used, such as `%d` or `%(name)s`).
 */
typedef enum {
    GRAPH_STYLE_NONE = 0, /* no message (a span event without a name, ...) */
    GRAPH_STYLE_PLAIN,    /* a literal without holes */
    GRAPH_STYLE_PERCENT,  /* "... %s" with arguments (logging, util.format) */
    GRAPH_STYLE_BRACE,    /* "{} ...".format(...) */
    GRAPH_STYLE_FSTRING,  /* f"..." */
    GRAPH_STYLE_TEMPLATE, /* `... ${x}` */
    GRAPH_STYLE_CONCAT,   /* "a" + x + "b", print("a", x) */
    GRAPH_STYLE_REF,      /* a name: the template is elsewhere (see ref) */
    GRAPH_STYLE_DYNAMIC,  /* built at run time; nothing literal known */
    GRAPH_STYLE__COUNT
} graph_style;

typedef enum {
    GRAPH_LEVEL_NONE = 0,
    GRAPH_LEVEL_TRACE,
    GRAPH_LEVEL_DEBUG,
    GRAPH_LEVEL_INFO,
    GRAPH_LEVEL_NOTICE,
    GRAPH_LEVEL_WARNING,
    GRAPH_LEVEL_ERROR,
    GRAPH_LEVEL_CRITICAL,
    GRAPH_LEVEL_CUSTOM, /* logger.log(5, ...), custom method names */
    GRAPH_LEVEL__COUNT
} graph_level;

/* Emit-site flags. */
enum {
    GRAPH_EF_EXC_INFO = 1u << 0,  /* logger.exception / exc_info=... */
    GRAPH_EF_TRUNCATED = 1u << 1, /* template cut at GRAPH_TEMPLATE_MAX */
    GRAPH_EF_DECORATOR = 1u << 2, /* span started by a decorator */
    GRAPH_EF_ALIAS = 1u << 3,     /* called through an alias (log_fn = logger.debug) */
    GRAPH_EF_WRAPPER = 1u << 4,   /* a call to a function that logs its argument for the caller */
    /* A candidate call of a constructor (a callee that resolves to a
     * class, or named as classes are, CapWords): the message is made
     * here and logged elsewhere, as a constant's is. */
    GRAPH_EF_CTOR = 1u << 5,
};

typedef enum {
    GRAPH_LANG_PYTHON = 0,
    GRAPH_LANG_TYPESCRIPT,
    GRAPH_LANG_TSX,
    GRAPH_LANG_JAVASCRIPT,
    GRAPH_LANG__COUNT
} graph_lang;

#define GRAPH_TEMPLATE_MAX 4096
#define GRAPH_NONE UINT32_MAX

/* Names used in JSON and on the command line. */
const char *graph_sym_kind_name(graph_sym_kind k);
const char *graph_edge_type_name(graph_edge_type t);
const char *graph_emit_kind_name(graph_emit_kind k);
const char *graph_style_name(graph_style s);
const char *graph_level_name(graph_level l);
const char *graph_lang_name(graph_lang l);
/* Parses "py,ts,tsx,js" (also "python", "typescript", "javascript") into a
 * mask of 1u << GRAPH_LANG_*; returns CORE_EUSAGE naming nothing on a bad
 * item (the caller has the string). */
int graph_lang_mask_parse(const char *list, unsigned *mask);

/* ------------------------------------------------------------------ */
/* Building                                                            */
/* ------------------------------------------------------------------ */

typedef struct graph_index_opts {
    unsigned langs;              /* mask of 1u << GRAPH_LANG_*; 0 = all */
    const char *const *excludes; /* extra globs (core_glob_match syntax) */
    size_t nexcludes;
    bool no_default_excludes; /* index .git, node_modules, venvs, build dirs */
    bool include_generated;   /* index minified bundles too */
    unsigned threads;         /* 0 = one per CPU */
    size_t max_file_bytes;    /* 0 = 32 MiB; larger files are skipped */
    core_logger log;          /* notes and warnings, one per problem file */
    /* Called from worker threads, often; throttle in the callback. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *progress_ud;
} graph_index_opts;

typedef struct graph_index_stats {
    uint64_t files_seen; /* source files found under the roots */
    uint64_t files_indexed;
    uint64_t files_duplicate; /* identical content, extracted once */
    uint64_t files_generated; /* skipped as minified/generated */
    uint64_t files_binary;    /* skipped: not text */
    uint64_t files_too_large;
    uint64_t files_unreadable;
    uint64_t files_partial; /* parsed with syntax errors; kept */
    uint64_t bytes, lines;
    uint64_t symbols, edges, emits;
    uint64_t calls, calls_resolved; /* call sites, and those resolved */
    uint64_t calls_internal;        /* call sites whose callee name is a repo symbol */
    uint64_t calls_internal_resolved;
    double seconds; /* the whole run; the phases: */
    double seconds_discover, seconds_extract, seconds_resolve, seconds_write;
} graph_index_stats;

/*
 * Indexes the roots and writes the graph file to out_path (atomically).
 * With one root, file paths are relative to it; with several, each path
 * starts with its root's directory name. Problems with single files are
 * logged and counted, never fatal. Returns 0, -ENOENT/-ENOTDIR for a bad
 * root, CORE_EUSAGE for clashing root names, or an I/O error from writing.
 * `stats` may be NULL.
 */
int graph_index(const char *const *roots, size_t nroots, const char *out_path,
                const graph_index_opts *opts, graph_index_stats *stats);

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct graph graph;

/*
 * Maps and checks a graph file. On failure returns CORE_EFORMAT (not a
 * graph file), CORE_EVERSION, CORE_EENDIAN, CORE_ECORRUPT or an errno, and
 * writes a one-line reason to why (if not NULL).
 */
int graph_open(const char *path, graph **out, char *why, size_t whylen);
void graph_close(graph *g);

typedef struct graph_symbol {
    graph_sym_kind kind;
    uint32_t flags; /* GRAPH_SF_* */
    const char *name;
    const char *qualname;
    const char *file; /* path relative to the indexed root */
    uint32_t file_id;
    uint32_t start_line, end_line; /* 1-based, inclusive */
    uint32_t parent;               /* GRAPH_NONE for modules */
    const char *doc;               /* first lines of the docstring / JSDoc, or "" */
} graph_symbol;

typedef struct graph_file_info {
    const char *path;
    graph_lang lang;
    uint32_t module; /* symbol id of the file's module */
    uint32_t lines;
    uint32_t calls, calls_resolved;
    uint32_t flags; /* GRAPH_FF_* */
} graph_file_info;

enum {
    GRAPH_FF_PARTIAL = 1u << 0,   /* had syntax errors */
    GRAPH_FF_DUPLICATE = 1u << 1, /* same bytes as another file */
};

/* An edge as stored (CSR). `node` is the other end: the destination in an
 * out-list, the source in an in-list. */
typedef struct graph_edge {
    uint32_t node;
    uint8_t type; /* graph_edge_type */
    uint8_t pad[3];
    float weight; /* number of sites, scaled by resolution confidence */
} graph_edge;

typedef struct graph_emit {
    graph_emit_kind kind;
    graph_style style;
    graph_level level;
    uint32_t flags;  /* GRAPH_EF_* */
    uint32_t symbol; /* enclosing symbol (owner, for constants) */
    uint32_t line;
    const char *tmpl;     /* printf-like template, "" when unknown */
    const char *receiver; /* "logger", "self.log", "console", ... */
    const char *method;   /* "debug", "start_as_current_span", ... */
    const char *logger;   /* logger name: "pkg.mod", "app:orders", or "" */
    const char *ref;      /* STYLE_REF: the name the message came from */
    uint32_t ref_const;   /* emit id of the constant ref resolved to, or GRAPH_NONE */
    const char *name;     /* constants: "NAME", "Class.NAME", "MSGS[key]" */
    uint32_t nargs;       /* arguments after the message */
} graph_emit;

uint32_t graph_nsymbols(const graph *g);
uint32_t graph_nfiles(const graph *g);
uint32_t graph_nemits(const graph *g);

/* id must be < graph_nsymbols(); likewise for the others. */
void graph_get_symbol(const graph *g, uint32_t id, graph_symbol *out);
void graph_get_file(const graph *g, uint32_t id, graph_file_info *out);
void graph_get_emit(const graph *g, uint32_t id, graph_emit *out);
/* Appends a symbol's fields to a JSON object being written:
 * ,"symbol","kind","file","start_line","end_line" (the qualified name, the
 * file relative to the indexed root, lines 1-based and inclusive). */
void graph_symbol_json(core_buf *b, const graph *g, uint32_t id);

/* Out- and in-edges of a symbol, sorted by (type, node). */
const graph_edge *graph_out_edges(const graph *g, uint32_t id, uint32_t *count);
const graph_edge *graph_in_edges(const graph *g, uint32_t id, uint32_t *count);
/* The whole CSR: offs has nsymbols+1 entries. For ppr/. */
void graph_csr(const graph *g, bool incoming, const uint32_t **offs, const graph_edge **edges);

/* Emit sites whose enclosing symbol is id (constants: whose owner is id):
 * ids [*first, *first + count). */
uint32_t graph_symbol_emits(const graph *g, uint32_t id, uint32_t *first);
/* The function a candidate call site (GRAPH_EMIT_CALL) calls, when the
 * enclosing symbol's call edges name exactly one of its method's name;
 * GRAPH_NONE otherwise (a call out of the repository, or not a call). */
uint32_t graph_emit_callee(const graph *g, uint32_t emit);

/*
 * Finds symbols by qualified name (exact), or, when none matches, by a
 * suffix on '.' or '/' boundaries ("Class.method" finds
 * "pkg.mod.Class.method"). Writes up to max ids and returns how many match
 * in all (so a result > max, or > 1, says the name is ambiguous).
 */
uint32_t graph_find(const graph *g, const char *name, uint32_t *ids, uint32_t max);

typedef struct graph_stats {
    uint64_t symbols_by_kind[GRAPH_SYM__COUNT];
    uint64_t edges_by_type[GRAPH_EDGE__COUNT];
    uint64_t emits_by_kind[GRAPH_EMIT__COUNT];
    uint64_t emits_by_style[GRAPH_STYLE__COUNT];
    uint64_t files_by_lang[GRAPH_LANG__COUNT];
    uint64_t files, files_partial, files_duplicate, lines;
    uint64_t calls, calls_resolved, calls_internal, calls_internal_resolved;
} graph_stats;

void graph_get_stats(const graph *g, graph_stats *out);

/* The roots the graph was built from, as given to graph_index(). */
uint32_t graph_nroots(const graph *g);
const char *graph_root(const graph *g, uint32_t i);

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
