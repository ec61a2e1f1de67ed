/*
 * ts_int.h - private to the TypeScript, TSX and JavaScript extractor
 * (ts_*.c): the node types and fields of tree-sitter-typescript it reads,
 * the walker's state, and what its files share.
 *
 * The files, from the ground up: ts_tree.c (tables, strings, paths, type
 * names), ts_docs.c (doc comments), ts_defs.c (symbols, parameters,
 * bindings), ts_loggers.c (names that hold loggers), ts_message.c
 * (literals and message expressions as templates), ts_locals.c (messages
 * held in local variables), ts_emit.c (emit sites), ts_calls.c (calls:
 * their callees, and those that may reach a logging wrapper),
 * ts_imports.c (imports, exports, the module level) and ts_walk.c (the
 * walk, and graph__extract_ts()). Each calls only files before it in that
 * order.
 *
 * Node types and field ids are looked up once per grammar
 * (graph__ts_init()); children are iterated with the depth-indexed cursor
 * pool (a function iterating the children of a node at depth d hands
 * d + 1 to whatever it calls); every recursion is bounded; every string
 * the result holds lives in the gx_file's arena.
 */
#ifndef PMRAG_TS_INT_H
#define PMRAG_TS_INT_H

#include "graph_int.h"

#include <string.h>

/* The walkers recurse; keeping big helpers out of line keeps each level's
 * stack frame small (under AddressSanitizer too). */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* Our numbers for the node types the walker looks at (0 = anything else). */
enum {
    N_OTHER = 0,
    N_PROGRAM,
    N_COMMENT,
    N_HASH_BANG_LINE,
    N_IDENTIFIER,
    N_PROPERTY_IDENTIFIER,
    N_PRIVATE_PROPERTY_IDENTIFIER,
    N_SHORTHAND_PROPERTY_IDENTIFIER,
    N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN,
    N_TYPE_IDENTIFIER,
    N_NESTED_TYPE_IDENTIFIER,
    N_NESTED_IDENTIFIER,
    N_GENERIC_TYPE,
    N_PREDEFINED_TYPE,
    N_TYPE_ANNOTATION,
    N_TYPE_PARAMETER,
    N_TYPE_QUERY,
    N_INFER_TYPE,
    N_UNION_TYPE,
    N_PARENTHESIZED_TYPE,
    N_LITERAL_TYPE,
    N_THIS_TYPE,
    N_MAPPED_TYPE_CLAUSE,
    N_THIS,
    N_SUPER,
    N_NULL,
    N_UNDEFINED,
    N_TRUE,
    N_FALSE,
    N_STRING,
    N_TEMPLATE_STRING,
    N_TEMPLATE_SUBSTITUTION,
    N_NUMBER,
    N_REGEX,
    N_MEMBER_EXPRESSION,
    N_SUBSCRIPT_EXPRESSION,
    N_CALL_EXPRESSION,
    N_NEW_EXPRESSION,
    N_ARGUMENTS,
    N_ASSIGNMENT_EXPRESSION,
    N_AUGMENTED_ASSIGNMENT_EXPRESSION,
    N_BINARY_EXPRESSION,
    N_PARENTHESIZED_EXPRESSION,
    N_AS_EXPRESSION,
    N_SATISFIES_EXPRESSION,
    N_NON_NULL_EXPRESSION,
    N_AWAIT_EXPRESSION,
    N_CATCH_CLAUSE,
    N_ARROW_FUNCTION,
    N_FUNCTION_EXPRESSION,
    N_FUNCTION_DECLARATION,
    N_GENERATOR_FUNCTION,
    N_GENERATOR_FUNCTION_DECLARATION,
    N_CLASS,
    N_CLASS_DECLARATION,
    N_ABSTRACT_CLASS_DECLARATION,
    N_CLASS_BODY,
    N_CLASS_HERITAGE,
    N_EXTENDS_CLAUSE,
    N_IMPLEMENTS_CLAUSE,
    N_METHOD_DEFINITION,
    N_METHOD_SIGNATURE,
    N_ABSTRACT_METHOD_SIGNATURE,
    N_PUBLIC_FIELD_DEFINITION,
    N_CLASS_STATIC_BLOCK,
    N_DECORATOR,
    N_ACCESSIBILITY_MODIFIER,
    N_FORMAL_PARAMETERS,
    N_REQUIRED_PARAMETER,
    N_OPTIONAL_PARAMETER,
    N_REST_PATTERN,
    N_OBJECT_PATTERN,
    N_ARRAY_PATTERN,
    N_ARRAY,
    N_PAIR_PATTERN,
    N_OBJECT_ASSIGNMENT_PATTERN,
    N_ASSIGNMENT_PATTERN,
    N_INTERFACE_DECLARATION,
    N_EXTENDS_TYPE_CLAUSE,
    N_ENUM_DECLARATION,
    N_ENUM_ASSIGNMENT,
    N_TYPE_ALIAS_DECLARATION,
    N_TYPE_PARAMETERS,
    N_INTERNAL_MODULE,
    N_MODULE,
    N_AMBIENT_DECLARATION,
    N_FUNCTION_SIGNATURE,
    N_LEXICAL_DECLARATION,
    N_VARIABLE_DECLARATION,
    N_VARIABLE_DECLARATOR,
    N_EXPORT_STATEMENT,
    N_EXPORT_CLAUSE,
    N_EXPORT_SPECIFIER,
    N_NAMESPACE_EXPORT,
    N_IMPORT_STATEMENT,
    N_IMPORT_CLAUSE,
    N_NAMED_IMPORTS,
    N_IMPORT_SPECIFIER,
    N_NAMESPACE_IMPORT,
    N_IMPORT_REQUIRE_CLAUSE,
    N_IMPORT,
    N_STATEMENT_BLOCK,
    N_EXPRESSION_STATEMENT,
    N_TYPE_ARGUMENTS,
    N_RETURN_STATEMENT,
    N_FOR_IN_STATEMENT,
    N_OBJECT,
    N_PAIR,
    N_SPREAD_ELEMENT,
    N_COMPUTED_PROPERTY_NAME,
    N_JSX_ELEMENT,
    N_JSX_SELF_CLOSING_ELEMENT,
    N_JSX_OPENING_ELEMENT,
    N_JSX_CLOSING_ELEMENT,
    N_JSX_ATTRIBUTE,
    N_JSX_EXPRESSION,
    N_JSX_TEXT,
    N_CALL_SIGNATURE,
    N_CONSTRUCT_SIGNATURE,
    N_FUNCTION_TYPE,
    N_CONSTRUCTOR_TYPE,
    N_INDEX_SIGNATURE,
    N_TERNARY_EXPRESSION,
    N_THROW_STATEMENT,
    N__NAMED_COUNT,
    /* anonymous tokens */
    A_STATIC = N__NAMED_COUNT,
    A_GET,
    A_SET,
    A_ASYNC,
    A_STAR,
    A_PLUS,
    A_DEFAULT,
    A_EQ,
    A_READONLY,
    A_OVERRIDE,
    A_NULLISH, /* ?? */
    A_OR,      /* || */
    A_PLUS_EQ, /* += */
    A_AND,     /* && */
};

/* Fields, by our number. */
enum {
    F_NAME,
    F_BODY,
    F_PARAMETERS,
    F_PARAMETER,
    F_RETURN_TYPE,
    F_TYPE_PARAMETERS,
    F_VALUE,
    F_KEY,
    F_LEFT,
    F_RIGHT,
    F_FUNCTION,
    F_ARGUMENTS,
    F_OBJECT,
    F_PROPERTY,
    F_INDEX,
    F_CONSTRUCTOR,
    F_TYPE,
    F_PATTERN,
    F_DECLARATION,
    F_SOURCE,
    F_ALIAS,
    F_OPERATOR,
    F_OPEN_TAG,
    F_TYPE_ARGUMENTS,
    F_CONSTRAINT,
    F_CONSEQUENCE,
    F_ALTERNATIVE,
    F__COUNT
};

/* ---- walker state ---- */

typedef enum {
    LG_OBJECT = 0, /* a logger object: key.info(...) logs */
    LG_LIB,        /* a logging library's export: a logger, or a factory of them */
    LG_ALIAS,      /* a logger method under another name: key(...) logs */
    LG_FUNC,       /* a debug-style logger function: key(...) logs */
    LG_DEBUG,      /* the `debug` package's factory: key('ns') makes an LG_FUNC */
    /* What a call of some other function made from a name alone
     * (`Debug('connection')`, `logger.debugContext('sql:mysql')`): if
     * key(...) logs, it logs under that name (a candidate call's logger,
     * which the log's logger column may show behind a prefix). */
    LG_NAMED,
} lg_what;

typedef struct {
    const char *key;    /* "logger", "@self.log", "debug" */
    const char *logger; /* logger name ("app:orders"), or NULL */
    const char *method; /* LG_ALIAS: the method it stands for */
    graph_level level;  /* LG_ALIAS */
    uint8_t what;       /* lg_what */
    bool console;       /* LG_ALIAS of console.x: util.format semantics */
} ts_logger;

/* `name = value` or `let name = value` in a function body. */
/* The most `msg += ...` pieces read after a local message's binding, and
 * values per piece. */
#define TAILS_MAX 4
#define TAIL_ALTS 4

/* A piece `name += value` appends (graph__ts_local_tails): its values (a
 * ternary's arms), and whether it may not run (a statement of another
 * block than the binding's). */
typedef struct {
    TSNode alt[TAIL_ALTS];
    uint32_t n;
    bool optional;
} ts_tail;

struct ts_local {
    uint32_t name, len; /* the name's bytes in src */
    uint32_t end;       /* where the binding ends */
    TSNode value;
    bool fixed; /* a const declaration: nothing binds the name again */
    bool aug;   /* `name += value`: appended to what the name held */
};

/* The bindings of one function body (ts_locals.c). */
#define TS_LOCALS_KEPT 6
typedef struct {
    core_vec(struct ts_local) v;
    uint32_t fn;   /* the body's start byte + 1; 0 none */
    uint32_t used; /* stamp of the last use (tx.locals_clock) */
} ts_locals;

typedef struct {
    gx_file *f;
    const char *src;
    const gx_types *types;
    const TSFieldId *fid;
    gx_cursors cur;
    gx_tmpl tmpl;
    core_buf scratch; /* decoded string literals */
    core_vec(ts_logger) loggers;
    core_smap fns;                  /* FUNCTION and CLASS symbols by name */
    core_vec(const char *) tparams; /* type parameters in scope */
    TSNode doc;                     /* the last JSDoc comment walked past */
    int32_t cjs_default;            /* the symbol `module.exports = function X` made, or -1 */
    uint32_t directives;            /* util.format directives turned into holes */
    /* Where the arguments util.format appends began in the template (the
     * outermost call's, read last), or SIZE_MAX when it appended none. */
    size_t appended_at;
    uint32_t emit_flags; /* added to emits made while walking decorators */
    gx_cands cands;      /* candidate sites */
    /* The bindings of plain names in the function bodies looked at last
     * (graph__ts_local_values()). Several are kept: a `${name}` read
     * through a closure asks the enclosing bodies between calls of the
     * inner one. */
    ts_locals locals[TS_LOCALS_KEPT];
    uint32_t locals_clock; /* the last use's stamp */
    /* The pieces `msg += ...` appended to a local message before the call
     * whose site is being made: written after the text of tail_of
     * (graph__ts_local_tails()). */
    TSNode tail_of;
    TSNode tails[TAILS_MAX];
    uint32_t ntails;
    /* The call whose site is being made, and the scope it is in: a
     * `${name}` in its message, name a const local holding one text, is
     * read as that text (graph__ts_put_template). msg_sc NULL: none. */
    TSNode msg_call;
    const struct ts_scope *msg_sc;
    gx_names rl; /* what the function last asked about returns (graph__ts_returns_list) */
} tx;

/* A parameter of the function being walked, as a call passes it (see
 * gx_arg): TypeScript has no keyword arguments and methods no self, so
 * positions count from 0. */
typedef struct {
    const char *name;
    int32_t pos;   /* positional index at a call; for ...rest, where it starts */
    bool rest;     /* ...rest: positions pos, pos + 1, ... */
    bool levelish; /* named or typed like a log level (level, lvl: Level) */
} ts_param;

typedef struct ts_scope {
    int32_t sym;            /* enclosing symbol, -1 = module */
    int32_t cls;            /* class (or constructor function) `this` is an instance of */
    const char *container;  /* namespace path for symbols made here */
    const ts_param *params; /* of the enclosing function (a callback: of the one it is in) */
    uint32_t nparams;
    bool in_function;
    bool exported; /* the declaration at hand is exported */
    TSNode body;   /* of the innermost function (null outside one) */
} ts_scope;

/* The `this` of a plain function: itself when it looks like a constructor. */
#define CLS_SELF (-2)

static inline bool is_null(TSNode n)
{
    return ts_node_is_null(n);
}

static inline unsigned ty(const tx *x, TSNode n)
{
    return is_null(n) ? 0 : gx_type(x->types, n);
}

static inline TSNode fld(const tx *x, TSNode n, int f)
{
    TSFieldId id = x->fid[f];
    if (is_null(n) || !id)
        return gx_null();
    return ts_node_child_by_field_id(n, id);
}

static inline const char *text(tx *x, TSNode n)
{
    return graph__text(x->f, x->src, n);
}

static inline bool text_eq(tx *x, TSNode n, const char *s)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    size_t len = strlen(s);
    return b - a == len && memcmp(x->src + a, s, len) == 0;
}

static inline bool empty_node(TSNode n)
{
    return is_null(n) || ts_node_start_byte(n) >= ts_node_end_byte(n);
}

/* A name node's text, or NULL when it is missing or empty. */
static inline const char *name_text(tx *x, TSNode n)
{
    return empty_node(n) ? NULL : text(x, n);
}

/* The cursor of depth `depth` on the first child of n; NULL when n is null
 * or has no children, or when the walk is too deep (counted). */
static inline TSTreeCursor *kids(tx *x, int depth, TSNode n)
{
    if (is_null(n))
        return NULL;
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return NULL;
    }
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    return ts_tree_cursor_goto_first_child(c) ? c : NULL;
}

static inline void add_ref(tx *x, gx_ref_kind kind, const char *path, int32_t from, TSNode at)
{
    if (!path || !*path)
        return;
    gx_ref r = {.path = path, .from = from, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->refs, r);
}

static inline void add_bind(tx *x, gx_bind_kind kind, const char *name, const char *value,
                            int32_t scope, TSNode at)
{
    if (!name || !*name)
        return;
    gx_bind b = {
        .name = name, .value = value, .scope = scope, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->binds, b);
}

/* A parameter at pos, untyped: its callers may type it (gx_pass). */
static inline void add_param(tx *x, const char *name, uint32_t pos, int32_t scope, TSNode at)
{
    add_bind(x, GX_BIND_LOCAL, name, NULL, scope, at);
    if (name && *name && pos < PASS_POS_MAX)
        x->f->binds.v[x->f->binds.n - 1].param = (uint16_t)(pos + 1);
}

static inline const char *join(tx *x, const char *a, const char *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return graph__path_join(x->f, a, b, strlen(b));
}

static inline bool module_level(const ts_scope *sc)
{
    return sc->sym < 0 && !sc->in_function;
}

/* A copy of sc for what is walked within or beside a declaration but is not
 * itself what is exported. */
static inline ts_scope unexported(const ts_scope *sc)
{
    ts_scope s = *sc;
    s.exported = false;
    return s;
}

/* Flags a declaration takes from where it stands. */
static inline uint32_t decl_flags(const ts_scope *sc)
{
    return (sc->in_function ? GRAPH_SF_NESTED : 0) | (sc->exported ? GRAPH_SF_EXPORTED : 0);
}

/* The first named child of n that is not a comment: what parentheses
 * hold when a comment comes first (a JSDoc type cast before an arrow
 * function, common in JavaScript that TypeScript checks), else null. */
static inline TSNode first_named(tx *x, TSNode n)
{
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (ty(x, c) != N_COMMENT)
            return c;
    }
    return (TSNode){0};
}

/* Parentheses, `as T`, `satisfies T` and `x!` around an expression. */
static inline TSNode unwrap(tx *x, TSNode n)
{
    for (int i = 0; i < 64 && !is_null(n); i++) {
        unsigned t = ty(x, n);
        if (t != N_PARENTHESIZED_EXPRESSION && t != N_AS_EXPRESSION &&
            t != N_SATISFIES_EXPRESSION && t != N_NON_NULL_EXPRESSION)
            break;
        TSNode inner = first_named(x, n);
        if (is_null(inner))
            break;
        n = inner;
    }
    return n;
}

static inline bool is_fn(unsigned t)
{
    return t == N_ARROW_FUNCTION || t == N_FUNCTION_EXPRESSION || t == N_GENERATOR_FUNCTION;
}

static inline bool is_plus(tx *x, TSNode bin)
{
    return ty(x, bin) == N_BINARY_EXPRESSION && ty(x, fld(x, bin, F_OPERATOR)) == A_PLUS;
}

enum { M_LITERAL, M_UTIL, M_CONST };

enum { PLUS_MAX = 64, PLUS_NEST = 4 };

typedef struct {
    graph_style style;
    const char *ref;
} msg_info;

enum { ARGS_MAX = 32 };

enum { H_UTIL, H_LOGGER, H_NAME, H_OBJECT };

typedef struct {
    graph_emit_kind kind;
    graph_level level;
    const char *receiver, *method, *logger;
    uint32_t msg_index; /* which argument the message (or title) starts at */
    int how;            /* H_* */
    uint32_t flags;
    /* A candidate whose message starts with a bare word: the argument
     * after it that may start the message instead, + 1 (0: none). */
    uint32_t after_word;
    /* Text the runtime writes after the message (console.count's
     * ": <count>"), as a format: its directives are holes. */
    const char *suffix;
    /* H_OBJECT: the key of the message in the object (NULL: "message") */
    const char *key;
    /* the message is the argument alone: what follows it is not
     * appended (a name handed beside it, `execute(sql, params, 'run')`) */
    bool alone;
} emit_plan;

/* Values of a local looked at per call (ts_locals.c). */
#define LOCAL_MAX_ALTS 8

typedef struct {
    TSNode v[LOCAL_MAX_ALTS * 4]; /* values in source order (a ring: the last ones kept) */
    uint32_t n;
} local_vals;

/* An export statement, as far as ts_imports.c reads it. */
typedef struct {
    const char *module; /* `from 'm'`: m; NULL if none */
    bool dflt, star;    /* `export default`, `export *` */
    TSNode clause;      /* `{a, b as c}` */
    TSNode ns;          /* `* as ns` */
    TSNode eqexpr;      /* TypeScript's `export = x`: x */
} ts_export_stmt;

/* ---- what the files share (each described where it is defined) ---- */

/* ts_tree.c */
void graph__ts_init(tx *x, graph_lang lang);
void graph__ts_string_raw(tx *x, TSNode s, uint32_t *a, uint32_t *b);
const char *graph__ts_decode_string(tx *x, TSNode s, size_t *len);
const char *graph__ts_string_value(tx *x, TSNode s);
const char *graph__ts_member_name(tx *x, TSNode n);
const char *graph__ts_path_of(tx *x, TSNode n, int depth);
const char *graph__ts_type_path(tx *x, TSNode n, int depth);
size_t graph__ts_push_tparams(tx *x, TSNode tps, int depth);
bool graph__ts_is_tparam(tx *x, TSNode n);
const char *graph__ts_annotation_class(tx *x, TSNode n, int depth);
const char *graph__ts_require_of(tx *x, TSNode call);
bool graph__ts_node_const_like(tx *x, TSNode n);

/* The operands of a `+` chain, left to right (at most max). */
uint32_t graph__ts_plus_operands(tx *x, TSNode e, TSNode *ops, uint32_t max);
/* A tagged template: a call whose argument is a template. */
bool graph__ts_tagged(tx *x, TSNode e);
/* A string, a template or a `+` chain with one of them. */
bool graph__ts_stringish(tx *x, TSNode e, int depth);
/* ts_docs.c */
const char *graph__ts_take_doc(tx *x, TSNode outer);
void graph__ts_note_comment(tx *x, TSNode c);
const char *graph__ts_module_doc(tx *x, TSNode root);

/* ts_defs.c */
int32_t graph__ts_push_sym(tx *x, graph_sym_kind kind, const char *name, int32_t parent,
                           const char *container, TSNode start, uint32_t end, uint32_t flags,
                           const char *doc);
int32_t graph__ts_push_decl(tx *x, graph_sym_kind kind, const char *name, TSNode n, TSNode outer,
                            const ts_scope *sc, uint32_t extra);
int32_t graph__ts_find_fn(tx *x, const char *name, const ts_scope *sc);
const ts_param *graph__ts_collect_params(tx *x, TSNode fn, uint32_t *np, int depth);
bool graph__ts_shadows_params(tx *x, TSNode fn, const ts_scope *sc, int depth);
const ts_param *graph__ts_param_named(tx *x, const ts_scope *sc, TSNode id);
void graph__ts_bind_value(tx *x, const char *name, TSNode value, int32_t scope, TSNode at);
void graph__ts_bind_pattern(tx *x, TSNode p, int32_t scope, int depth);
uint32_t graph__ts_fn_flags(tx *x, TSNode fn);
uint32_t graph__ts_member_flags(tx *x, TSNode m, int depth);
int32_t graph__ts_ctor_cls(const char *name);
TSNode graph__ts_object_value(tx *x, TSNode v);
TSNode graph__ts_wrapped_fn(tx *x, TSNode call);
int32_t graph__ts_proto_owner(tx *x, const char *name, const ts_scope *sc);

/* ts_loggers.c */
const ts_logger *graph__ts_find_logger(tx *x, const char *key);
/* The same, but a name made from a namespace alone (LG_NAMED) is none:
 * its name is a candidate call's logger only, not that of a logger
 * object it may turn out to be (`const logger = getGlobal('diag')`). */
const ts_logger *graph__ts_logger_of(tx *x, const char *key);
void graph__ts_push_logger(tx *x, const char *key, lg_what what, const char *logger,
                           const char *method, graph_level level, bool console);
bool graph__ts_is_console(const char *recv);
bool graph__ts_logger_lib(const char *m);
bool graph__ts_logger_recv(tx *x, const char *recv);
TSNode graph__ts_object_key(tx *x, TSNode obj, const char *key, int depth);
bool graph__ts_logger_factory(tx *x, TSNode call, const char **lname, int depth);
void graph__ts_note_logger(tx *x, const char *key, TSNode value, int depth);

/* ts_message.c */
bool graph__ts_has_util_directive(const char *s, size_t n);
void graph__ts_put_raw(tx *x, uint32_t a, uint32_t b, int mode, uint32_t *avail);
void graph__ts_put_string(tx *x, TSNode s, int mode, uint32_t *avail);
/* A template literal: its text pieces, and a hole per ${...} (a const
 * local's text in its place: graph__ts_const_text). Returns the number of
 * holes the substitutions made. */
uint32_t graph__ts_put_template(tx *x, TSNode t, int mode, uint32_t *avail, int depth);
/* What a template literal holds, in order, as graph__ts_put_template
 * reads it: raw text between substitutions (text, may be NULL), a const
 * local's string read in place of one (string, may be NULL), and a
 * substitution that stays a hole (hole; false ends the walk). A const
 * local's template is walked in place. Returns false when a hole ended it. */
typedef struct {
    void (*text)(tx *x, uint32_t a, uint32_t b, void *ud);
    void (*string)(tx *x, TSNode s, void *ud);
    bool (*hole)(tx *x, TSNode sub, void *ud);
} ts_template_visit;
bool graph__ts_template_walk(tx *x, TSNode t, const ts_template_visit *v, void *ud, int depth);
/* JSON.stringify of an object literal, as its JSON text (ts_message.c). */
bool graph__ts_put_json_call(tx *x, TSNode e, int depth);
/* An object literal as JSON.stringify writes it (ts_message.c). */
bool graph__ts_put_json_object(tx *x, TSNode obj, int depth);
/* The parameter p of `JSON.stringify(p)`, alone (ts_message.c); NULL if
 * e is no such call. */
const ts_param *graph__ts_json_param(tx *x, TSNode e, const ts_scope *sc, int depth);
void graph__ts_put_concat(tx *x, TSNode e, int mode, uint32_t *avail, int nest, int depth);
uint32_t graph__ts_collect_args(tx *x, TSNode args, TSNode *out, uint32_t max, int depth);
msg_info graph__ts_build_message(tx *x, TSNode e, int mode, uint32_t *avail, int depth);
/* The one text a template literal's `${name}` (sub) reads, when name is
 * a const local of the function whose call is being read (x->msg_sc), or
 * of one around it, bound to a string or a template literal: `const fmt
 * = `(${id}): ${sql}`; log(`Executing ${fmt}`)` logs "Executing (%s):
 * %s". Else a null node. */
TSNode graph__ts_const_text(tx *x, TSNode sub);

/* Whether a callee's path is util.format's (`util.format`, `format`). */
bool graph__ts_util_format_path(const char *p);
msg_info graph__ts_util_format(tx *x, const TSNode *args, uint32_t nargs, int depth);

/* ts_locals.c */
uint32_t graph__ts_local_values(tx *x, TSNode id, TSNode call, const ts_scope *sc, local_vals *lv);
/* As graph__ts_local_values, but 0 unless every binding of the name found
 * is a const declaration, whose value is then the name's at the call. */
uint32_t graph__ts_const_values(tx *x, TSNode id, TSNode call, const ts_scope *sc, local_vals *lv);
/* As graph__ts_const_values, for a name the function of sc does not bind
 * and reads from a function around it (a closure): the nearest one that
 * binds it, its bindings before the nested function. */
uint32_t graph__ts_closure_const_values(tx *x, TSNode id, const ts_scope *sc, local_vals *lv);
/* The pieces `+=` appends to local e between its nearest binding before
 * call and the call, in source order (at most max); 0 when none. */
uint32_t graph__ts_local_tails(tx *x, TSNode e, TSNode call, const ts_scope *sc, ts_tail *out,
                               uint32_t max);
TSNode graph__ts_local_nearest(const local_vals *lv, uint32_t k);
/* The string literals (up to max, into out) that a local of the function
 * the walk is in (sc) takes, when it declares the name and every binding
 * of it there, nested functions included, is one: `let type; switch (k) {
 * case 'g': type = 'KEXDH_INIT'; ... }`. Whatever line reads it then reads
 * one of them. 0 when any binding is something else (`+=`, `++`, a
 * destructuring, a for-of, a value not a literal). */
uint32_t graph__ts_literal_local(tx *x, TSNode id, const ts_scope *sc, TSNode *out, uint32_t max);
bool graph__ts_local_name(tx *x, TSNode e, const ts_scope *sc);
/* Whether the function the walk is in (sc) returns its local id whole or
 * joined: `return lines`, `return lines.join('\n')`. */
bool graph__ts_returns_list(tx *x, TSNode id, const ts_scope *sc);
/* The message texts (string-like values, up to max, nearest the call
 * first, into out) that a plain local e is bound to before call; 0 when e
 * is none. */
uint32_t graph__ts_local_texts(tx *x, TSNode e, TSNode call, const ts_scope *sc, TSNode *out,
                               uint32_t max);
/* Whether e is a local the function binds to message text before call. */
bool graph__ts_local_message(tx *x, TSNode e, TSNode call, const ts_scope *sc);
/* Whether the function the walk is in (sc) stores its parameter name
 * whole in an object (`this.state = next`) or hands it whole to a call
 * (`fs.unlinkSync(this.file(key))`): a value it works on, which its own
 * text shows (see graph__pick_plain). */
bool graph__ts_param_kept(tx *x, const ts_scope *sc, const char *name);

/* ts_fill.c: pushes em onto the file's emits, its template's holes filled
 * where the arguments util.format read (fmt[0 .. nfmt), the format first,
 * ndir of them taken by its directives), or the ${...} of a template
 * literal that is the message alone, are literals (graph_int.h). */
void graph__ts_push_filled(tx *x, const gx_emit *em, TSNode call, const ts_scope *sc,
                           const TSNode *fmt, uint32_t nfmt, uint32_t ndir);

/* ts_emit.c */
bool graph__ts_plan_emit(tx *x, TSNode call, TSNode fn, const char *path, emit_plan *pl,
                         const ts_scope *sc, int depth);
bool graph__ts_plan_candidate(tx *x, TSNode call, const char *callee, emit_plan *pl,
                              const ts_scope *sc, int depth);
void graph__ts_make_emit(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc, int depth);
void graph__ts_make_candidates(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                               int depth);
void graph__ts_add_const(tx *x, const char *name, TSNode value, int32_t sym, int depth);
/* A function returning a message it formats (a template literal with
 * substitutions, a concatenation with literal parts, also as an array's
 * item or through a local; at: the return): its template, a candidate of
 * any message its callers log (a constant without a name, owned by the
 * function sc->sym). */
void graph__ts_add_returned(tx *x, TSNode value, TSNode at, const ts_scope *sc, int depth);
/* A call putting a piece of a message into an array the function returns
 * (`lines.push(...)`): its piece added as a text the function returns,
 * and true; false for any other call. */
bool graph__ts_list_piece(tx *x, TSNode call, TSNode fn, const ts_scope *sc, int depth);

/* ts_calls.c */
void graph__ts_record_call(tx *x, TSNode call, const char *callee, const ts_scope *sc, int depth);
const char *graph__ts_call(tx *x, TSNode n, TSNode fn, const ts_scope *sc, int depth);
void graph__ts_record_passes(tx *x, TSNode args, const char *callee, const ts_scope *sc, int depth);
void graph__ts_record_emit_call(tx *x, TSNode call, const char *callee, const emit_plan *pl,
                                int32_t emit, const ts_scope *sc, int depth);

/* ts_imports.c */
void graph__ts_add_export(tx *x, gx_export_kind kind, const char *name, const char *local,
                          const char *module, TSNode at);
void graph__ts_add_import(tx *x, gx_import_kind kind, const char *module, const char *name,
                          const char *alias, const ts_scope *sc, TSNode at);
void graph__ts_do_import(tx *x, TSNode n, const ts_scope *sc, int depth);
bool graph__ts_require_decl(tx *x, TSNode name, TSNode value, const ts_scope *sc, int depth);
void graph__ts_export_names(tx *x, TSNode d, bool dflt, TSNode at, int depth);
void graph__ts_export_stmt(tx *x, TSNode n, ts_export_stmt *st, int depth);
void graph__ts_export_list(tx *x, TSNode n, const ts_export_stmt *st, int depth);
const char *graph__ts_exports_name(const char *p);
void graph__ts_cjs_reexport(tx *x, TSNode call, const char *path, int depth);
const char *graph__ts_own_name(tx *x, TSNode fn_or_class);
void graph__ts_prescan(tx *x, TSNode root, const ts_scope *sc);
void graph__ts_mark_exported(tx *x);

#endif
