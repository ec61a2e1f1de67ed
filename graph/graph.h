/*
 * graph.h - the code graph: extraction of a Python / TypeScript / TSX /
 * JavaScript repository with tree-sitter, and the graph file.
 *
 * Building: graph_index() walks one or more directories, extracts symbols,
 * references, imports and emit sites from every source file (files in
 * parallel), resolves names across files into typed edges and writes one
 * graph file, little-endian whatever the machine.
 *
 * Reading: graph_open() maps a graph file read-only and checks it; nothing
 * is parsed or copied (graph_load() reads it into memory instead). Every
 * pointer the read functions return points into the mapping (the copy)
 * and stays valid until graph_close().
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
    /* handles what the calls it makes throw: a try with a handler
     * (`except`, `catch`), or a promise's `.catch(...)` */
    GRAPH_SF_CATCHES = 1u << 17,
    /* calls a function a parameter of its holds (`await cb()`): it runs
     * work its caller hands it */
    GRAPH_SF_RUNS_HANDED = 1u << 18,
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
    /* Such a constructor's object (an error) thrown where it is made,
     * or handed to a call as an argument (`handler(new Error(...))`):
     * what logs it is a caller that catches it, or is reached through
     * that call. */
    GRAPH_EF_THROWN = 1u << 6,
    GRAPH_EF_HANDED = 1u << 7,
    /* The template as written, kept beside a copy with a helper's literal
     * filled in (a colouring helper's call on a string): in case the
     * helper transforms it, a fallback that gives way where another site
     * renders the message as written. */
    GRAPH_EF_FALLBACK = 1u << 8,
    /* A format a function returns inside a structure (a dictionary's
     * value, a tuple's item) for its callers to log with the rest. */
    GRAPH_EF_MEMBER = 1u << 9,
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
 * Length of the PEP 3101 replacement field at s[0] == '{' (str.format, and
 * loggers that format with keyword arguments): "{", an argument name (an
 * identifier, digits or nothing) with ".attr" and "[key]" parts, an
 * optional "!r", "!s" or "!a", an optional ":" format spec (which may hold
 * fields of its own: "{:{width}}"), "}". 0 when the brace is literal text:
 * "{{" (an escaped brace), or text that is no field ("{'a': 1}", "{ x }").
 * Fields longer than 255 bytes are taken as text.
 */
size_t graph_brace_field(const char *s, size_t n);
/* One piece of a stored template: a hole, or a literal byte. */
typedef struct graph_tmpl_piece {
    bool hole;
    char lit;   /* the literal byte, when not a hole */
    bool twice; /* "{{" or "}}": rendered once by str.format, twice by others */
} graph_tmpl_piece;
/*
 * The piece of stored template t (n bytes) at t[i]; returns how many bytes
 * it takes. Holes are %-directives (graph_directive), PEP 3101 fields
 * (graph_brace_field) and fields a sigil opens ("${x}", "#{x}", "@{a.b}",
 * "@{!x}": up to 64 bytes, no brace or line break inside); "%%" is a
 * literal '%', and a '%', sigil or brace that starts none is itself. One walk over every
 * placeholder syntax the extractors leave in a template, for whoever writes or reads one.
 */
size_t graph_tmpl_step(const char *t, size_t n, size_t i, graph_tmpl_piece *p);
/* The level a logging method's name says (debug, info, warn, warning,
 * error, exception, critical, fatal, trace, ...); GRAPH_LEVEL_NONE when it
 * names none. name need not be NUL-terminated. */
graph_level graph_level_of_method(const char *name, size_t n);

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
    uint64_t files_duplicate;    /* identical content, extracted once */
    uint64_t files_generated;    /* skipped as minified/generated */
    uint64_t files_binary;       /* skipped: not text */
    uint64_t files_declarations; /* skipped: a .d.ts beside its code */
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
 * graph file), CORE_EVERSION, CORE_EENDIAN (graph files are little-endian
 * and used in place: a big-endian machine reads none), CORE_ECORRUPT or
 * an errno, and writes a one-line reason to why (if not NULL).
 */
int graph_open(const char *path, graph **out, char *why, size_t whylen);
/*
 * The same checks over a copy of the file read into memory: what happens
 * to the file afterwards (written over in place, truncated) does not
 * reach the graph, whereas a mapping would see the new bytes or fault on
 * pages past a new end. For a process that keeps a graph open while the
 * file may be replaced (the daemon). Errors as graph_open's.
 */
int graph_load(const char *path, graph **out, char *why, size_t whylen);
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

/*
 * What a file is to its project. The product is what runs; tests,
 * examples and benchmarks run only when someone runs them; generated and
 * vendored code runs, but its messages are rarely what a log is about.
 * Told by the conventions of test runners and packaging (pytest,
 * unittest, jest, mocha, vitest: test_x.py, x_test.py, conftest.py,
 * x.test.js, x.spec.ts; test/, tests/, __tests__/, spec/, examples/,
 * benchmarks/, vendor/, _vendor/, third_party/), the test folders a project
 * declares (pytest's testpaths, package.json's directories.test) and the
 * header a generator writes ("@generated", "generated ... DO NOT EDIT");
 * the outermost folder that says something decides. A package's build for
 * browsers, which Node never loads, is what its package.json declares.
 */
typedef enum {
    GRAPH_ROLE_PRODUCT = 0,
    GRAPH_ROLE_TEST,
    GRAPH_ROLE_EXAMPLE,
    GRAPH_ROLE_BENCHMARK,
    GRAPH_ROLE_GENERATED,
    GRAPH_ROLE_VENDORED,
    GRAPH_ROLE_BROWSER, /* a package's build for browsers (package.json) */
    GRAPH_ROLE__COUNT
} graph_role;

const char *graph_role_name(graph_role r);

typedef struct graph_file_info {
    const char *path;
    graph_lang lang;
    uint32_t module; /* symbol id of the file's module */
    uint32_t lines;
    uint32_t calls, calls_resolved;
    uint32_t flags; /* GRAPH_FF_* */
    graph_role role;
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
/* Bytes of the graph file in memory (mapped or read). */
size_t graph_bytes(const graph *g);
uint32_t graph_nfiles(const graph *g);
uint32_t graph_nemits(const graph *g);
/* A hash of the graph file's bytes: the same content gives the same
 * value, whatever its path or time; any change to the file gives another
 * (but for a 2^-64 chance). Reads the whole file (a 100k-symbol graph in
 * some 10 ms): for whoever loads a graph once, to tell a new release's
 * from the one in use (the daemon's graph_version). */
uint64_t graph_file_hash(const graph *g);

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

/* An emit site that can log next after another, and how likely. */
typedef struct graph_next {
    uint32_t emit;
    float weight;
} graph_next;

/*
 * The static successor model: the emit sites that can log next after
 * site emit, by control flow (the later statements of its function, the
 * first sites of the functions called in between, its callers' sites
 * after the call once the function ends, callbacks handed on), sorted by
 * emit id. The weights come from the structure alone (branches share
 * theirs evenly, deeper calls weigh less) and sum to at most 1: what is
 * missing is the end of a case, or code the graph cannot see. A site no
 * call of the indexed code reaches (a constant, an exception's message)
 * has none; neither has any site of a graph file written before pmrag
 * had the model (version 2). Points into the mapping.
 */
const graph_next *graph_next_sites(const graph *g, uint32_t emit, uint32_t *count);
/* The function a candidate call site (GRAPH_EMIT_CALL) calls, when the
 * enclosing symbol's call edges name exactly one of its method's name;
 * GRAPH_NONE otherwise (a call out of the repository, or not a call). */
uint32_t graph_emit_callee(const graph *g, uint32_t emit);
/* The class whose object a constructor's call site (GRAPH_EF_CTOR) makes:
 * the class called (`new TypeError(...)`), or, for a base constructor's
 * call inside a constructor (`super("...")`, `super().__init__("...")`),
 * the class that constructor belongs to. */
const char *graph_emit_maker(const graph *g, const graph_emit *e);
/* Whether byte c may be in a word-like literal (letters, digits, '_' and
 * '-'), and whether s[0..n) is one: 3 to 40 such bytes, a letter among
 * them. */
bool graph_value_byte(unsigned char c);
bool graph_value_literal(const char *s, size_t n);
/* The word-like string literals functions return (a mode's or a
 * backend's name, `return ['eventlet', 'threading']`), by text, then
 * function: how many (none in a graph written before they were kept),
 * and the i-th's text and function (*sym). A registry's word (`{"sync":
 * "pkg.workers.SyncWorker"}`) has the class it keys as its *sym. */
uint32_t graph_nliterals(const graph *g);
const char *graph_literal_at(const graph *g, uint32_t i, uint32_t *sym);

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
    uint64_t files_by_role[GRAPH_ROLE__COUNT], lines_by_role[GRAPH_ROLE__COUNT];
    uint64_t files, files_partial, files_duplicate, lines;
    uint64_t calls, calls_resolved, calls_internal, calls_internal_resolved;
    /* The successor model: next-site edges, and the emits they leave */
    uint64_t next_sites, emits_with_next;
    /* Word-like literals functions return (graph_nliterals) */
    uint64_t value_literals;
} graph_stats;

void graph_get_stats(const graph *g, graph_stats *out);

/* The roots the graph was built from, as given to graph_index(). */
uint32_t graph_nroots(const graph *g);
const char *graph_root(const graph *g, uint32_t i);

#ifdef __cplusplus
}
#endif
#endif
