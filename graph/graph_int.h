/*
 * graph_int.h - private to graph/: the per-file extraction result and the
 * helpers the extractors share.
 *
 * Extraction is per file and path-independent: an extractor sees only the
 * bytes of one file, so files with identical bytes are extracted once. All
 * strings of a gx_file live in its arena and are NUL-terminated; indexes
 * into syms are per file (-1 = the file's module).
 */
#ifndef PMRAG_GRAPH_INT_H
#define PMRAG_GRAPH_INT_H

#include "graph.h"

#include <string.h>
#include <tree_sitter/api.h>

/* ---- extraction result ---- */

typedef struct gx_sym {
    const char *name;
    /* Extra qualname segments between the parent and the name, for
     * functions that live in an object or on a prototype:
     * `const api = { get() {} }` gives container "api". NULL if none. */
    const char *container;
    const char *doc; /* NULL if none */
    const char *ret; /* functions: the class the return annotation names, as a path; or NULL */
    /* JavaScript functions: the callee whose result they return
     * (`child: (sub) => createLogger(...)`), as a path; or NULL */
    const char *ret_call;
    int32_t parent;                /* index into syms, -1 = module */
    uint32_t start_line, end_line; /* 1-based inclusive */
    uint8_t kind;                  /* graph_sym_kind */
    uint32_t flags;                /* GRAPH_SF_* */
    uint64_t effect; /* the first callee called for its effect (a hash); 0 = none yet */
    /* The same outside exception handlers (what runs when the work failed,
     * mostly logging that it did, is no effect the function is for): the
     * first such callee, and whether there is a second. */
    uint64_t body_effect;
    bool body_effects;
    bool takes_args; /* functions: a caller passes it something (a parameter but self/this) */
} gx_sym;

typedef enum {
    GX_REF_CALL = 0, /* f(...), a.b.c(...) */
    GX_REF_NEW,      /* new X(...) (TS) */
    GX_REF_BASE,     /* base class / extends / implements (from = the class) */
    GX_REF_TYPE,     /* annotation, isinstance, TS type reference */
    GX_REF_READ,     /* attribute read or a name passed as a value */
    GX_REF_WRITE,    /* attribute write */
    GX_REF_JSX,      /* <Component ...> */
} gx_ref_kind;

/*
 * A reference is a dotted path whose first component says where lookup
 * starts: a plain name (scope lookup), "@self" (this/self instance),
 * "@cls" (cls in a classmethod), "@super" (super()/super), or "?" (an
 * unknown receiver: "?.m" is "something.m").
 */
typedef struct gx_ref {
    const char *path;
    int32_t from; /* enclosing symbol, -1 = module level */
    uint32_t line;
    uint8_t kind; /* gx_ref_kind */
} gx_ref;

typedef enum {
    GX_BIND_NEW = 0, /* name = Cls(...) / new Cls(...): an instance */
    GX_BIND_TYPE,    /* name: Cls (annotation): an instance */
    GX_BIND_ALIAS,   /* name = a.b (the same thing under another name) */
    GX_BIND_CALL,    /* name = f(...): the result of a call (not a class) */
    GX_BIND_LOCAL,   /* name is bound to something unknown (shadows) */
} gx_bind_kind;

typedef struct gx_bind {
    const char *name;  /* "x", or "@self.x" for instance attributes */
    const char *value; /* a path as in gx_ref; NULL for GX_BIND_LOCAL */
    int32_t scope;     /* the function/class whose body binds it, -1 = module
                        * ("@self.x" binds are filed under the scope's class) */
    uint32_t line;
    uint8_t kind; /* gx_bind_kind */
    /* A parameter (GX_BIND_LOCAL): 1 + the position at which a call passes
     * it (after self/cls); 0 = not a parameter, or not by position. */
    uint16_t param;
    /* Python: the name as written of the logger a factory call makes
     * (`log = logging.getLogger("app")`: "app"; "__name__"), else NULL */
    const char *logger;
} gx_bind;

typedef enum {
    GX_IMP_MODULE = 0, /* import a.b / import * as ns from 'x' / require('x') */
    GX_IMP_NAME,       /* from a import b / import {b} from 'x' / import b from 'x' */
    GX_IMP_STAR,       /* from a import * */
} gx_import_kind;

typedef struct gx_import {
    /* Python: "a.b", relative ".a.b" / "..", TS/JS: the specifier as
     * written ("./util", "lodash"). */
    const char *module;
    const char *name;  /* GX_IMP_NAME: the imported name ("default" for a
                        * default import) */
    const char *alias; /* the local name bound; NULL = Python's
                        * `import a.b` (binds "a") */
    int32_t scope;
    uint32_t line;
    uint8_t kind; /* gx_import_kind */
} gx_import;

typedef enum {
    GX_EXP_NAME = 0, /* export { local as name }, exports.name = local */
    GX_EXP_FROM,     /* export { name as alias } from 'module' */
    GX_EXP_STAR,     /* export * from 'module' */
    GX_EXP_NS,       /* export * as name from 'module' */
} gx_export_kind;

typedef struct gx_export {
    const char *name;   /* exported name ("default" for default) */
    const char *local;  /* GX_EXP_NAME: local path; GX_EXP_FROM: name in module */
    const char *module; /* GX_EXP_FROM/STAR/NS */
    uint32_t line;
    uint8_t kind;
} gx_export;

typedef struct gx_emit {
    const char *tmpl; /* NULL when unknown */
    const char *receiver;
    const char *method;
    const char *ref;    /* GRAPH_STYLE_REF: path of the message's name */
    const char *ret;    /* a message a function returns: its path (see gx_arg) */
    const char *logger; /* logger name as written: "__name__", "'app'", ... */
    const char *name;   /* constants */
    int32_t sym;        /* enclosing symbol (owner for constants), -1 = module */
    uint32_t line;
    uint32_t nargs;
    uint8_t kind, style, level;
    uint32_t flags;
} gx_emit;

/*
 * Logging wrappers (Python). A function that passes one of its parameters
 * to a logging call as the message (`def _log(self, level, msg):
 * self.logger.log(level, msg)`), directly or through another such
 * function, logs on behalf of its callers: the message is whatever each
 * caller passes. Whether a callee is such a wrapper is known only after
 * resolution, so the extractor records (py_calls.c), for calls that may
 * reach one, what each argument would give as a message;
 * resolve_wrappers.c finds the wrappers and turns their calls into emit
 * sites of the callers.
 *
 * An argument either carries a message (a template, or the name of a
 * constant), or passes on a parameter of the enclosing function (`msg`,
 * `"[chan " + name + "] " + msg`, `*args`), or names a level constant.
 *
 * TypeScript/JavaScript (ts_calls.c) records the same: positions from 0
 * (no self), no keywords, `...args` as a splat, levels from 'warn',
 * Level.INFO or INFO. A template or concatenation with one parameter in
 * it (`user ${id} signed in`) has both tmpl and fwd: a site at the call,
 * and the text around the parameter for the callers.
 */
typedef struct gx_arg {
    const char *kw;   /* keyword argument: its name; NULL = positional */
    const char *tmpl; /* the message template it gives; NULL if none */
    const char *ref;  /* a message held in a constant: its path; or NULL */
    /* a message a function returns (`f(...)`, or a local bound to that
     * call on every path): the callee's path, as gx_ref's; or NULL */
    const char *ret;
    const char *fwd_kw;   /* fwd: the parameter's name, when it can be passed by keyword */
    const char *fwd_name; /* fwd: the parameter's name */
    /* fwd inside a concatenation: the templates before and after the
     * parameter (NULL: nothing there) */
    const char *pre, *post;
    uint32_t pos;    /* positional index; UINT32_MAX after a splat (unknown) */
    uint32_t nafter; /* positional arguments (or splats) after it */
    int32_t fwd_pos; /* fwd: the position at which a call to the enclosing
                      * function passes that parameter (after self/cls;
                      * for *args, where it starts); -1 = keyword only */
    /* fwd with a second parameter in the text around the message (`"%s:
     * %s" % (topic, msg)`): where pre or post holds GX_SLOT, a call puts
     * what it passes there (slot_pos / slot_kw as fwd_pos / fwd_kw). */
    int32_t slot_pos;
    const char *slot_kw;
    bool slot;
    uint32_t flags; /* GRAPH_EF_TRUNCATED */
    uint8_t style;  /* of tmpl / ref */
    uint8_t level;  /* the level constant it names (DEBUG, logging.INFO), or NONE */
    bool fwd;       /* passes on a parameter of the enclosing function */
    /* fwd passes on what the class's constructor took at fwd_pos / fwd_kw
     * and an attribute keeps, not a parameter of the enclosing method: a
     * call of the class makes the text (resolve_wrappers.c) */
    bool field;
    bool splat; /* *expr */
    /* fwd as the key of a table's entry (`ERRORS[code]`): the table's
     * path, read where the call is made; each caller's key names the
     * entry it logs */
    const char *table;
    /* fwd as a *args parameter whose arguments the text joins, str() of
     * each, with this separator between (`print(*args)`, `"
     * ".join(map(str, args))`): a caller's positional arguments from
     * fwd_pos on make its message */
    const char *joined;
    /* joined as util.format reads what console's methods are handed
     * (JS): the first a format whose directives take the arguments after
     * it, the others appended */
    bool joined_fmt;
    /* a name bound to a logger in this file (`logger`, made by
     * getLogger): its name as gx_emit's, or NULL */
    const char *logger;
    /* TS: an object literal as JSON.stringify writes it, for a wrapper
     * that logs the JSON text of what it is passed (json); nothing else
     * reads it, and an argument with only this is no message */
    const char *json_tmpl;
    /* fwd through JSON.stringify (`JSON.stringify(fields) + '\n'`): the
     * callers' json_tmpl is the message */
    bool json;
} gx_arg;

/*
 * Is a parameter named like a message ("msg", "message", "err_msg",
 * "text", "fmt")? A format that puts any other parameter into its text
 * (`f"Changing event name from {event_name} to {new_name}"`, "Creating
 * %s" % path) logs a value, not its callers' message.
 */
bool graph__message_like(const char *name);

/*
 * The parameters a wrapper's format puts in the text of its message, as
 * they are found: the message and, when there are two, the slot (see
 * gx_arg). graph__pick_add() is false past GX_PICK_MAX, or for one seen
 * twice; graph__pick_done() says which is which, false if it cannot: with
 * one, it must be named like a message when `named`; with two or more,
 * exactly one is. Of three or more (`${severity} ${tag} | ${text}`), the
 * others are values the function's text shows, holes to its callers: no
 * slot.
 */
#define GX_PICK_MAX 4
typedef struct gx_pick {
    const void *p, *q;         /* the message's parameter, the slot's (the extractor's) */
    const char *pname, *qname; /* their names */
    uint32_t at, slot_at;      /* the index each was found at; UINT32_MAX: no slot */
    /* every parameter found, in order (p and q the first two until done) */
    const void *all[GX_PICK_MAX];
    const char *names[GX_PICK_MAX];
    uint32_t ats[GX_PICK_MAX], n;
} gx_pick;
bool graph__pick_add(gx_pick *k, const void *param, const char *name, uint32_t i);
bool graph__pick_done(gx_pick *k, bool named);
/* Whether the pick is one parameter not named like a message. Such a
 * parameter that its function also keeps whole in an object (`this.state
 * = next`, `self.state = state`) is a value the function logs among its
 * own text, as a format's argument would be, not its callers' message:
 * the function emits, and its callers pass it no text. */
bool graph__pick_plain(const gx_pick *k);

typedef struct gx_call {
    const char *callee; /* path as in gx_ref */
    int32_t from;       /* enclosing symbol, -1 = module level */
    int32_t emit;       /* the logging emit this call is (index into emits), -1 = none */
    int32_t msg_arg;    /* emit calls: the message argument (index from arg0) */
    int32_t level_arg;  /* emit calls: the level argument of logger.log(level, ...), or -1 */
    uint32_t line;
    uint32_t arg0, nargs; /* the arguments recorded: args[arg0 .. arg0 + nargs) */
    /* emit calls on a logger an attribute keeps that its class's
     * constructor took (`self.logger.debug(m)` after `self.logger =
     * logger`): 1 + where a call of the class passes it; 0 = not so */
    uint32_t logger_at;
    /* a logging call by its method's name, recorded only in case its
     * receiver is a wrapper of ours: dropped where it reaches none */
    bool ours_only;
} gx_call;

/*
 * A call passing a name chain by position (`helper(this)`, `Channel(self,
 * chanid)`, `connect(client)`): what the callee's parameter at pos holds.
 * A parameter is typed by its callers when every call that passes it
 * something known passes an instance of one class (resolve_lookup.c).
 * Positions from PASS_POS_MAX on are neither recorded nor typed.
 */
enum { PASS_POS_MAX = 8 };

typedef struct gx_pass {
    const char *callee; /* path as in gx_ref */
    const char *value;  /* the argument's path ("@self" for this/self) */
    int32_t from;       /* enclosing symbol, -1 = module level */
    uint32_t pos;
} gx_pass;

/*
 * Control flow (flow.c, py_flow.c, ts_flow.c): for each function, and for
 * a file's top level, what can run after what. Its items are the calls
 * in it (the call expressions, in evaluation order) and the functions it
 * hands on as callbacks; each item is what it is at resolution: an emit
 * site (the emits of the function on its line, by the callee's name),
 * a call of a function of the repository, both, or nothing (a call out of
 * the repository). The edges say, for the function's entry and for each
 * item, which item can come next without another in between, or the
 * function's end (a return, or falling off the end) or an exception out
 * of it, with weights from the structure alone: branches share their
 * weight evenly, a loop's body runs again or not, a call inside a try may
 * raise into its handlers. successors.c joins the functions.
 */
typedef enum {
    GX_FLOW_CALL = 0, /* a call: f(...), a.b(...), new C(...) */
    GX_FLOW_REF,      /* a function handed on as a callback: on('x', this.done) */
} gx_flow_kind;

typedef struct gx_flow_item {
    const char *name; /* the callee's last name ("debug" for log.debug(...)), or "" */
    uint32_t line;    /* the call's first line */
    uint8_t kind;     /* gx_flow_kind */
} gx_flow_item;

/* Ends of an edge: from 0 is the function's entry, from 1 + i item i;
 * to 0 is its end, to 1 an exception out of it, to 2 + i item i. The
 * weights out of one end sum to 1 (up to the small ones dropped). */
#define GX_FLOW_EXIT 0u
#define GX_FLOW_RAISE 1u
#define GX_FLOW_TO_ITEM 2u

typedef struct gx_flow_edge {
    uint32_t from, to;
    float weight;
} gx_flow_edge;

typedef struct gx_flow {
    int32_t sym; /* the function, -1 = the file's top level */
    uint32_t item0, nitems;
    uint32_t edge0, nedges; /* sorted by (from, to) */
} gx_flow;

/*
 * A value a function's code holds as a string literal: a word, such as a
 * mode's or a backend's name (`return ['eventlet', 'threading']`), that a
 * message may later show in a hole. Which functions hold it tells which
 * code made the object that logs it (the mapper's variants told apart by
 * the case). Only word-like literals are kept (graph_value_literal).
 */
typedef struct gx_lit {
    const char *text;
    int32_t sym; /* the function or method holding it */
    /* A registry's entry (`{"sync": "pkg.workers.SyncWorker"}`, `{"sync":
     * SyncWorker}`): the class the word names, as a dotted path or a name
     * resolved from sym's scope; the word then stands for that class, not
     * for sym. NULL for a returned word. */
    const char *target;
} gx_lit;

typedef struct gx_file {
    core_arena arena;
    core_vec(gx_sym) syms;
    core_vec(gx_ref) refs;
    core_vec(gx_bind) binds;
    core_vec(gx_import) imports;
    core_vec(gx_export) exports;
    core_vec(gx_emit) emits;
    /* Calls that may reach a logging wrapper (Python), and their
     * arguments. Emit calls are recorded only when their message passes
     * on a parameter. */
    core_vec(gx_call) calls;
    core_vec(gx_arg) args;
    core_vec(gx_pass) passes;
    /* Control flow per function (see gx_flow). */
    core_vec(gx_flow) flows;
    core_vec(gx_flow_item) flow_items;
    core_vec(gx_flow_edge) flow_edges;
    core_vec(gx_lit) lits; /* value literals of functions (see gx_lit) */
    const char *doc;       /* module docstring */
    uint32_t lines;
    uint32_t errors; /* ERROR/MISSING nodes */
    uint32_t first_error_line;
    uint32_t too_deep; /* subtrees skipped for nesting depth */
} gx_file;

/* The language of a source path by its extension; false if not ours. */
bool graph__lang_of_path(const char *path, graph_lang *out);

/* ---- file roles (roles.c) ---- */

/* The role a path says (relative to its root, '/'-separated). */
graph_role graph__role_of_path(const char *rel);
/* Whether a file's first bytes say a generator wrote it. */
bool graph__generated_header(const char *src, size_t n);
/* Calls fn for each folder a "testpaths" setting names in data (pytest's,
 * in pyproject.toml, pytest.ini, setup.cfg or tox.ini). */
void graph__testpaths(const char *data, size_t n, void (*fn)(void *, const char *, size_t),
                      void *ud);

/* A stable text dump of an extraction (golden tests, debugging). READ and
 * WRITE references are left out unless with_reads. */
void graph__file_dump(const gx_file *f, core_buf *b, bool with_reads);

/* Extracts with the extractor of lang (the file's bytes only; index.c). */
void graph__extract(graph_lang lang, const char *src, size_t n, gx_file *f);

void graph__file_init(gx_file *f);
void graph__file_free(gx_file *f);
/* The call rc once more for each message but the first (alts[1..nalts))
 * its argument alt_at may hold (a local bound to one of several), the
 * other arguments copied. */
void graph__push_alt_calls(gx_file *f, const gx_call *rc, const gx_arg *alts, uint32_t nalts,
                           int32_t alt_at);

/*
 * Extractors: parse src (n bytes) and fill f. Never fail: a file with
 * syntax errors gives what could be recovered and counts the errors.
 */
void graph__extract_python(const char *src, size_t n, gx_file *f);
void graph__extract_ts(graph_lang lang, const char *src, size_t n, gx_file *f);

/*
 * Parses with a parser of its own for the language, only the given ranges
 * if nranges > 0 (the rest of the text is invisible to the parser; byte
 * offsets and points stay those of the whole text). Release both with
 * graph__parse_free().
 */
TSTree *graph__parse(graph_lang lang, const char *src, size_t n, const TSRange *ranges,
                     uint32_t nranges, TSParser **parser);
void graph__parse_free(TSParser *parser, TSTree *tree);

/* The included ranges that leave out [starts[i], ends[i]): nex + 1 ranges
 * with their points, malloc'd. */
TSRange *graph__included_ranges(const char *src, size_t n, const uint32_t *starts,
                                const uint32_t *ends, uint32_t nex);

/* ---- helpers shared by the extractors (extract_util.c) ---- */

/* Maximum nesting the tree walkers follow; deeper subtrees are skipped and
 * counted in gx_file.too_deep. */
#define GX_MAX_DEPTH 1000

const TSLanguage *graph__language(graph_lang lang);

/*
 * Node-type tables: for a language, map every grammar symbol id to a small
 * number of our own, by name, so the walkers switch on integers. Names not
 * asked for map to 0. `names` lists the named node types; `anon` lists the
 * anonymous tokens (keywords like "static", operators like "%").
 */
typedef struct gx_types {
    uint16_t *map; /* indexed by TSSymbol */
    uint32_t count;
} gx_types;
void graph__types_init(gx_types *t, const TSLanguage *lang, const char *const *names, size_t nnames,
                       const char *const *anon, size_t nanon);
static inline unsigned gx_type(const gx_types *t, TSNode n)
{
    TSSymbol s = ts_node_symbol(n);
    return s < t->count ? t->map[s] : 0;
}

/*
 * Cursors by depth, reused: a walker iterating the children of a node at
 * depth d uses cursor d and hands d + 1 to whatever it calls, so nested
 * iterations never share a cursor and iterating allocates nothing.
 */
typedef struct gx_cursors {
    TSTreeCursor c[GX_MAX_DEPTH + 8];
    bool init[GX_MAX_DEPTH + 8];
} gx_cursors;
static inline TSTreeCursor *gx_cursor(gx_cursors *cs, int depth, TSNode n)
{
    if (!cs->init[depth]) {
        cs->c[depth] = ts_tree_cursor_new(n);
        cs->init[depth] = true;
    } else {
        ts_tree_cursor_reset(&cs->c[depth], n);
    }
    return &cs->c[depth];
}
/* Frees the cursors (unless a parse arena will). */
void graph__cursors_free(gx_cursors *cs);

/* Counts ERROR and MISSING nodes below root (up to a bound) and notes the
 * first one's line. */
void graph__count_errors(TSNode root, gx_file *f);
/* Whether s[0..n) reads as a dotted path to a name, `pkg.mod.Class` or
 * `pkg.mod:Class` (the form entry points and plugin tables use): names
 * joined by '.' or ':', at least two of them. */
bool graph__dotted_path(const char *s, size_t n);
/* Moves c, at a node of the subtree c was made at (root), to the next
 * node in source order, into that node's children when descend; false
 * past the subtree's end. */
bool graph__walk_next(TSTreeCursor *c, TSNode root, bool descend);

/* A null node (ts_node_is_null() is true for it). */
static inline TSNode gx_null(void)
{
    TSNode n;
    memset(&n, 0, sizeof n);
    return n;
}

static inline uint32_t gx_line(TSNode n)
{
    return ts_node_start_point(n).row + 1;
}

/* 1-based last line of n that holds code: trailing comments inside n and a
 * trailing newline do not count. */
uint32_t graph__end_line(TSNode n);

/* Copy of the node's source text into the arena. */
char *graph__text(gx_file *f, const char *src, TSNode n);
/* The same without the bytes listed in drop (whitespace inside a dotted
 * name, say). */
char *graph__text_squeeze(gx_file *f, const char *src, TSNode n, const char *drop);

/* Docstring normalisation: whitespace runs folded to one space, at most
 * 300 bytes (cut at a character boundary), into the arena. */
const char *graph__doc(gx_file *f, const char *s, size_t n);

/*
 * Template builder: literal pieces and holes appended in order, stored in
 * the printf-like form described in graph.h. Literal '%' is doubled unless
 * the piece is itself a %-format whose directives are holes.
 */
typedef struct gx_tmpl {
    core_buf buf;
    bool truncated;
    uint32_t holes;
} gx_tmpl;
void graph__tmpl_literal(gx_tmpl *t, const char *s, size_t n); /* escapes % */
void graph__tmpl_format(gx_tmpl *t, const char *s, size_t n);  /* keeps %-directives */
/* str.format fields -> %s; percent: %-directives are holes as well */
void graph__tmpl_brace(gx_tmpl *t, const char *s, size_t n, bool percent);
void graph__tmpl_hole(gx_tmpl *t);
/* Where a template stands, to go back to when what was put after it
 * turns out to be no piece of it. */
typedef struct gx_tmpl_mark {
    size_t len;
    uint32_t holes;
    bool truncated;
} gx_tmpl_mark;
gx_tmpl_mark graph__tmpl_mark(const gx_tmpl *t);
void graph__tmpl_rewind(gx_tmpl *t, gx_tmpl_mark m);
/* Python's string.Template syntax: $name and ${name} are holes, $$ a
 * dollar. */
void graph__tmpl_dollar(gx_tmpl *t, const char *s, size_t n);
/* A format in the access-log syntax that web servers share (Apache's
 * LogFormat: "%a %t \"%r\" %{Referer}i"), which a constant may hold for
 * a formatter of its own to fill: when one of its directives names a
 * field in braces (which neither Python's %-operator nor a date format
 * has), every such directive, %X or %{name}X, becomes a hole. */
void graph__tmpl_log_format(gx_tmpl *t);
/* The place of a wrapper's second parameter (gx_arg.slot), replaced when
 * the wrapper's sites are made: a control byte log text hardly holds (a
 * shape whose text holds it more than once is dropped). */
#define GX_SLOT '\x1f'
void graph__tmpl_slot(gx_tmpl *t);
/* What a call on a literal does to its white space only (Python's
 * textwrap.dedent, inspect.cleandoc, str.strip and its sides), applied
 * to the template's text from byte `from` on. */
typedef enum {
    GX_WS_DEDENT,   /* the indent all lines share, removed; blank lines emptied */
    GX_WS_CLEANDOC, /* the first line's and the others' shared indent, then blank ends */
    GX_WS_STRIP,
    GX_WS_LSTRIP,
    GX_WS_RSTRIP
} gx_ws_op;
void graph__tmpl_whitespace(gx_tmpl *t, size_t from, gx_ws_op op);
/* Drops the text, the hole count and the truncated mark. */
void graph__tmpl_clear(gx_tmpl *t);
/* Copies the template into the arena and resets the builder; NULL if it
 * is empty. A template cut at GRAPH_TEMPLATE_MAX adds GRAPH_EF_TRUNCATED
 * to *flags. */
const char *graph__tmpl_take(gx_tmpl *t, gx_file *f, uint32_t *flags);
/* How many holes template text t has, and whether it has one. */
uint32_t graph__tmpl_holes(const char *t);
bool graph__tmpl_has_hole(const char *t);
void graph__tmpl_free(gx_tmpl *t);

/*
 * Literal arguments filled into a logging call's template. Two sites often
 * log one template and differ only in what they pass it (a colouring
 * helper given "Receive(" in one method and "Transmit(" in another; a
 * transcript's direction marks picked from a tuple of literals beside a
 * request line that logs the same "%s %s"): the template alone ties them,
 * the literal a hole receives tells them apart. A hole whose argument the
 * extractor knows (fill_fn, per language) gets it:
 *   - exact values (a string literal, a pick among literals): the hole is
 *     replaced by each value, one emit site per combination, since the
 *     rendering is exactly that text;
 *   - a value that holds a literal (a helper's call on a string): a second
 *     template beside the one written, the literal between two copies of
 *     the hole for what the helper adds (it may also transform it). Only
 *     a function's call, or a module's (quote('x'), chalk.red('x')): a
 *     method of another value works on that value and the literal only
 *     says how (items.join(', '), digest('base64'), headers.get('Type')),
 *     so the rendering holds it by chance, and the events of one site
 *     would be split between two templates by their data.
 * The matcher then prefers the template with the most literal text, as it
 * does everywhere.
 */
#define GX_FILL_VALUES 8   /* values of one hole */
#define GX_FILL_VARIANTS 8 /* templates per site */
/* GX_FILL_FORMAT: as GX_FILL_EXACT, but the values are templates (a
 * message formatted into a local before it is logged through "%s"),
 * spliced in as they are, holes and all. */
typedef enum { GX_FILL_NONE, GX_FILL_EXACT, GX_FILL_HOLDS, GX_FILL_FORMAT } gx_fill_kind;
typedef struct {
    gx_fill_kind kind;
    uint32_t n;
    const char *v[GX_FILL_VALUES];
} gx_fill_vals;
/* Adds value v to out, unless it is there; false when out is full. */
bool graph__fill_add(gx_fill_vals *out, const char *v);
/* What the hole t[i, i + d) receives; called for each hole in order. */
typedef gx_fill_vals (*gx_fill_fn)(void *ud, const char *t, size_t i, size_t d);
/* Pushes emit site em onto f's emits, filled as fn says: one site per
 * filled template on em's line, and em as written when nothing was filled
 * or a fill only holds a literal. */
void graph__fill_push(gx_file *f, const gx_emit *em, gx_fill_fn fn, void *ud);
/* Whether name[0, n) is bound in f by an import (a module, or a name
 * from one). */
bool graph__imported(const gx_file *f, const char *name, size_t n);

/* Logger-like receiver names: log, logger, _log, LOGGER, fooLogger,
 * foo_logger, log_foo, ... (not catalog, dialog, backlog). */
bool graph__loggerish(const char *name, size_t n);
/* The last component of a receiver path is logger-like ("@self" and
 * "@cls" themselves are not). */
bool graph__loggerish_path(const char *path);
bool graph__local_module_member(const gx_file *f, const char *path);
/* Whether path's root is a name bound to what a function of ours makes
 * (`const logger = createLogger('inv')`: "logger.info"), imported from a
 * module of ours or defined in the file: its methods may be wrappers of
 * ours whatever they are named. */
bool graph__own_call_member(const gx_file *f, const char *path);
/* graph_level_of_method() in any case ("WARN", "Info": level constants
 * and strings); NONE for 16 bytes or more. */
graph_level graph__level_of_word(const char *s, size_t n);
/* UPPER_CASE (a letter, then letters, digits and _; 2 bytes at least): a
 * constant by naming convention (a level, or a message). */
bool graph__const_like(const char *s, size_t n);
/* CapWords (an upper-case letter first, a lower-case one somewhere):
 * named as classes are ("ValueError", "Path"). Calls to them construct
 * something: never wrappers worth recording, and candidate sites marked
 * GRAPH_EF_CTOR. */
bool graph__capwords(const char *s);
/* How util.format shows a function it is handed, as util.inspect names it
 * ("[Function (anonymous)]", "[AsyncFunction: later]"): written to buf
 * (cap bytes) for an async and/or generator function named name (NULL or
 * "" for none); returns its length. */
size_t graph__function_shown(char *buf, size_t cap, bool async, bool generator, const char *name);
/* The length of such a name at the start of s[0..n), or 0: words of it are
 * no text of a message. */
size_t graph__function_shown_len(const char *s, size_t n);

/* Marks symbol sym (if any) as one that logs, and as one that logs
 * messages not known here when the style says so. */
void graph__mark_logs(gx_file *f, int32_t sym, graph_style style);
/* A call n (callee fn) of symbol sym: when the call stands for its effect
 * (a statement of its own, or what the function returns), a second callee
 * so called sets GRAPH_SF_EFFECTS. */
void graph__note_effect(gx_file *f, int32_t sym, const char *src, TSNode n, TSNode fn);

/*
 * Candidate emit sites (GRAPH_EMIT_CALL) of one file: the callees that
 * got one, and the calls of those same callees with arguments that do not
 * read as a message, kept until the file's end (graph__cand_finish adds
 * them as DYNAMIC candidates: if the log shows the callee logs, those log
 * what no literal shows). So are the calls of a level-named method
 * (`diag.verbose(text)`) on a receiver that got a candidate by another
 * method (`diag.debug('...')`): an API object's levels, each used with
 * literal text in some files and only with text made at run time in
 * others.
 */
typedef struct gx_cands {
    core_smap callees;
    core_smap receivers;
    core_vec(gx_emit) pending;
} gx_cands;
/* The names a function returns whole or joined (`return lines`,
 * `"\n".join(lines)`), read once per function by the extractors
 * (graph__py_returns_list, graph__ts_returns_list): fn is the function's
 * start byte + 1 (0: none read yet); the first GX_NAMES_MAX names, each
 * len[i] bytes of the source at at[i]. */
#define GX_NAMES_MAX 8
typedef struct {
    uint32_t fn, n;
    uint32_t at[GX_NAMES_MAX], len[GX_NAMES_MAX];
} gx_names;
/* Starts the list of function fn (its start byte + 1) over; false when
 * it is the one listed already. */
bool graph__names_reset(gx_names *l, uint32_t fn);
void graph__names_add(gx_names *l, uint32_t at, uint32_t len);
/* Whether src[at, at + len) is among l's names. */
bool graph__names_has(const gx_names *l, const char *src, uint32_t at, uint32_t len);
/* Whether name (nl bytes) stands in src[a, end) as a whole identifier
 * right after lead or right before trail (either may be NULL): the
 * extractors' cheap test of `return lines`, `"\n".join(lines)` and
 * `lines.join('\n')` before a function's returns are read from its tree. */
bool graph__word_beside(const char *a, const char *end, const char *name, size_t nl,
                        const char *lead, const char *trail);
/* Splits a callee path into receiver ("" for a bare name) and method. */
void graph__callee_split(gx_file *f, const char *callee, const char **receiver,
                         const char **method);
/* A candidate site of callee was made. */
void graph__cand_site(gx_cands *c, const char *callee);
/* A call of callee with other arguments, at line in symbol sym. */
void graph__cand_pending(gx_cands *c, gx_file *f, const char *callee, int32_t sym, uint32_t line);
/* The pending calls whose callee had a site become sites; frees c. */
void graph__cand_finish(gx_cands *c, gx_file *f);

/* Decodes the escapes of a Python (python = true) or JavaScript string
 * literal's text into out (appending). */
void graph__decode_escapes(core_buf *out, const char *s, size_t n, bool python);
/* Appends code point cp as UTF-8 (invalid ones as U+FFFD; NUL is
 * dropped, as it would cut the string). */
void graph__put_utf8(core_buf *out, unsigned long cp);
/* Reads up to max hex digits at s[*i], advancing *i; values above
 * U+10FFFF come back as 0x110000. */
unsigned long graph__read_hex(const char *s, size_t n, size_t *i, size_t max);

/* Appends to an arena-allocated dotted path: returns "a.b". */
const char *graph__path_join(gx_file *f, const char *a, const char *b, size_t blen);
/* The same with b the source text of node n. */
const char *graph__path_join_node(gx_file *f, const char *a, const char *src, TSNode n);

/* A dotted path's last component: "c" for "a.b.c", p itself if no dot. */
static inline const char *gx_last_component(const char *p)
{
    const char *dot = strrchr(p, '.');
    return dot ? dot + 1 : p;
}

/* ---- the index builder (discover.c, index.c, resolve*.c, write.c) ---- */

typedef enum {
    GB_PENDING = 0,
    GB_OK,
    GB_DUPLICATE, /* same bytes as dup_of: shares its extraction */
    GB_GENERATED, /* minified or generated: skipped */
    GB_BINARY,
    GB_TOO_LARGE,
    GB_UNREADABLE,
} gb_status;

typedef struct gb_file {
    char *rel; /* path as stored ('/'-separated, relative to its root) */
    char *abs; /* path to open */
    uint32_t root;
    graph_lang lang;
    uint8_t status; /* gb_status */
    int32_t dup_of; /* GB_DUPLICATE: index of the file extracted */
    uint32_t lines;
    uint8_t role; /* graph_role */
    uint64_t bytes;
    uint64_t hash2; /* second content hash (deduplication) */
    gx_file *x;     /* the extraction (owned unless GB_DUPLICATE) */
    /* Filled in by resolution. */
    const char *modname; /* module qualname */
    uint32_t module_sym; /* global id of the module symbol */
    uint32_t out_id;     /* number in the graph file's file table */
    uint32_t calls, calls_resolved;
} gb_file;

/* A package.json seen during discovery (for bare JS specifiers). */
typedef struct gb_package {
    char *dir;  /* rel path of its directory ("" for a root) */
    char *name; /* "name" field, or NULL */
    char *main; /* "main" / "module" field, or NULL */
} gb_package;

typedef struct gb_index {
    core_arena arena;
    const graph_index_opts *opts;
    core_vec(char *) roots;  /* absolute, normalised */
    core_vec(gb_file) files; /* sorted by rel */
    core_vec(gb_package) packages;
    /* Test folders the projects declare (rel paths, no trailing '/'). */
    core_vec(char *) test_dirs;
    /* What packages build for browsers (rel paths: a folder with a
     * trailing '/', or a file). */
    core_vec(char *) browser_paths;
    graph_index_stats st;
} gb_index;

/* Walks the roots and fills idx->files (sorted) and idx->packages. */
int graph__discover(gb_index *idx, const char *const *roots, size_t nroots);

/* The graph in memory, as resolution builds it; strings are offsets into
 * strs. */
typedef struct gb_sym {
    uint32_t name, qualname, file, parent, start_line, end_line, flags, doc;
    uint8_t kind;
} gb_sym;

typedef struct gb_edge {
    uint32_t src, dst;
    float weight;
    uint8_t type;
} gb_edge;

typedef core_vec(gb_edge) gb_edge_vec;

typedef struct gb_emit {
    uint32_t symbol, line, tmpl, receiver, method, logger, ref, ref_const, name, nargs, flags;
    uint8_t kind, style, level;
} gb_emit;

/* An emit site that can come next after another (ids into gb_graph.emits). */
typedef struct gb_next {
    uint32_t src, dst;
    float weight;
} gb_next;

/* A value literal (gx_lit) and the function holding it. */
typedef struct gb_lit {
    uint32_t text, symbol;
} gb_lit;

typedef struct gb_graph {
    core_strtab strs;
    core_vec(gb_sym) syms;
    gb_edge_vec edges;
    core_vec(gb_emit) emits;
    core_vec(gb_next) next; /* by src, then dst */
    core_vec(gb_lit) lits;
} gb_graph;

/* Builds symbols, edges and emits from the extracted files. */
void graph__resolve(gb_index *idx, gb_graph *g);
/* The emit sites that can come next after each one, from the files'
 * control flow and the resolved calls (successors.c): into g->next. */
void graph__successors(const gb_index *idx, gb_graph *g);
/* Writes the graph file (atomically). */
int graph__write(gb_index *idx, gb_graph *g, const char *path);

/* ---- the graph file (write.c, read.c) ----
 *
 * Layout: a 64-byte header, a table of sections, then the sections, each
 * 8-byte aligned. Every field is little-endian on every machine: write.c
 * puts them one by one, in the order, at the sizes and with the zero pads
 * of the structs below (and graph_edge), and read.c lays those structs
 * over the mapped sections, which is right on a little-endian machine
 * only: a big-endian one refuses the file (read.c says why). The
 * byte-order mark, read as little-endian, tells a file an older pmrag
 * wrote in a big-endian machine's own order. Every reference inside is an
 * index or a string-table offset, checked by graph_open() before use. The
 * CRC covers everything after the header. Same input, same bytes: nothing
 * depends on time, threads or addresses.
 */
#define GF_MAGIC "PMRAGGF"
/* 2: GRAPH_SF_TAKES_TEXT; 3: the static successor model (GF_NEXT_*);
 * 4: value literals (GF_LITERALS). Version 2 files are still read: they
 * have no successors, and files before 4 no value literals. */
#define GF_VERSION 4u
#define GF_VERSION_MIN 2u
#define GF_BYTE_ORDER 0x01020304u
#define GF_MAX_SECTIONS 32u

typedef struct gf_header {
    char magic[8]; /* "PMRAGGF\0" */
    uint32_t version;
    uint32_t byte_order;
    uint64_t file_size;
    uint32_t nsections;
    uint32_t crc; /* CRC-32 of bytes [64, file_size) */
    uint8_t reserved[32];
} gf_header;

typedef struct gf_section {
    uint32_t id;
    uint32_t elem_size;
    uint64_t offset;
    uint64_t count;
} gf_section;

enum {
    GF_STRTAB = 1, /* bytes; starts and ends with NUL */
    GF_ROOTS,      /* uint32_t string offsets */
    GF_FILES,      /* gf_file */
    GF_SYMBOLS,    /* gf_symbol */
    GF_OUT_OFFS,   /* uint32_t[nsymbols + 1] */
    GF_OUT_EDGES,  /* graph_edge */
    GF_IN_OFFS,
    GF_IN_EDGES,
    GF_EMITS,       /* gf_emit, sorted by symbol */
    GF_EMIT_OFFS,   /* uint32_t[nsymbols + 1] */
    GF_QNAME_INDEX, /* uint32_t symbol ids sorted by qualname */
    GF_STATS,       /* one gf_stats */
    GF_NEXT_OFFS,   /* uint32_t[nemits + 1] (version 3) */
    GF_NEXT_SITES,  /* graph_next, by emit, then by the next emit (version 3) */
    GF_LITERALS,    /* gf_lit, by text (bytes), then symbol (version 4) */
    GF__SECTION_COUNT
};

typedef struct gf_file {
    /* role: graph_role (0, the product, in files written before roles) */
    uint32_t path, lang, module, lines, calls, calls_resolved, flags, role;
} gf_file;

typedef struct gf_symbol {
    uint32_t name, qualname, file, parent, start_line, end_line, flags, doc;
    uint8_t kind, pad[3];
} gf_symbol;

typedef struct gf_emit {
    uint32_t symbol, line, tmpl, receiver, method, logger, ref, ref_const, name, nargs, flags;
    uint8_t kind, style, level, pad;
} gf_emit;

typedef struct gf_lit {
    uint32_t text, symbol;
} gf_lit;

typedef struct gf_stats {
    uint64_t files, files_partial, files_duplicate, lines;
    uint64_t calls, calls_resolved, calls_internal, calls_internal_resolved;
} gf_stats;

/* ---- the tree-sitter allocator (tsalloc.c) ---- */

/*
 * Tree-sitter allocates and frees every node of every tree one by one;
 * for a parse-walk-discard cycle that is pure overhead. While a thread has
 * a parse arena open, every tree-sitter allocation it makes comes from the
 * arena, and graph__parse_free() frees nothing: graph__tsalloc_end() drops
 * the whole arena. Without an open arena (other threads, or under
 * AddressSanitizer, where graph__tsalloc_begin() declines so that ASan sees
 * every allocation) allocations are plain malloc and trees are freed
 * normally. graph__tsalloc_install() must run before any tree-sitter use;
 * it is idempotent and thread-safe.
 */
void graph__tsalloc_install(void);
bool graph__tsalloc_begin(void); /* false: no arena this time */
void graph__tsalloc_end(void);
/* True while everything tree-sitter allocated on this thread since
 * graph__tsalloc_begin() lives in the arena (so trees need no freeing). */
bool graph__tsalloc_active(void);

#endif
