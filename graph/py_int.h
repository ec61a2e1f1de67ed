/*
 * py_int.h - private to the Python extractor (py_*.c): the node types and
 * fields of tree-sitter-python it reads, the walker's state, and what its
 * files share.
 *
 * The files, from the ground up: py_data.c (large literal data the
 * parser is not shown), py_tree.c (tables, names and paths), py_message.c
 * (string literals and message expressions as templates), py_locals.c
 * (messages held in local variables), py_calls.c (calls that may reach a
 * logging wrapper), py_emit.c (emit sites), py_imports.c (imports, type
 * annotations), py_defs.c (definitions, bindings), and py_walk.c (the
 * walk, and graph__extract_python()). Each calls only files before it in
 * that order.
 *
 * Same rules as the TypeScript extractor: node types and field ids are
 * looked up once (graph__py_init()); children are iterated with the
 * depth-indexed cursor pool (a function iterating the children of a node
 * at depth d hands d + 1 to whatever it calls); every recursion is
 * bounded; every string the result holds lives in the gx_file's arena.
 */
#ifndef PMRAG_PY_INT_H
#define PMRAG_PY_INT_H

#include "graph_int.h"

#include <string.h>

/* Our numbers for the node types the walker looks at (0 = anything else). */
enum {
    N_OTHER = 0,
    N_MODULE,
    N_FUNCTION_DEFINITION,
    N_CLASS_DEFINITION,
    N_DECORATED_DEFINITION,
    N_DECORATOR,
    N_BLOCK,
    N_EXPRESSION_STATEMENT,
    N_ASSIGNMENT,
    N_AUGMENTED_ASSIGNMENT,
    N_CALL,
    N_ATTRIBUTE,
    N_IDENTIFIER,
    N_ARGUMENT_LIST,
    N_KEYWORD_ARGUMENT,
    N_STRING,
    N_STRING_START,
    N_STRING_CONTENT,
    N_INTERPOLATION,
    N_CONCATENATED_STRING,
    N_BINARY_OPERATOR,
    N_PARENTHESIZED_EXPRESSION,
    N_IMPORT_STATEMENT,
    N_IMPORT_FROM_STATEMENT,
    N_FUTURE_IMPORT_STATEMENT,
    N_ALIASED_IMPORT,
    N_DOTTED_NAME,
    N_RELATIVE_IMPORT,
    N_IMPORT_PREFIX,
    N_WILDCARD_IMPORT,
    N_PARAMETERS,
    N_TYPED_PARAMETER,
    N_TYPED_DEFAULT_PARAMETER,
    N_DEFAULT_PARAMETER,
    N_TYPE,
    N_GENERIC_TYPE,
    N_TYPE_PARAMETER,
    N_UNION_TYPE,
    N_MEMBER_TYPE,
    N_SUBSCRIPT,
    N_LAMBDA,
    N_DICTIONARY,
    N_PAIR,
    N_LIST_SPLAT,
    N_DICTIONARY_SPLAT,
    N_PATTERN_LIST,
    N_TUPLE_PATTERN,
    N_LIST_PATTERN,
    N_TUPLE,
    N_EXPRESSION_LIST,
    N_INTEGER,
    N_COMMENT,
    N_LIST_SPLAT_PATTERN,
    N_DICTIONARY_SPLAT_PATTERN,
    N_CONDITIONAL_EXPRESSION,
    N_GLOBAL_STATEMENT,
    N_NONLOCAL_STATEMENT,
    N_NAMED_EXPRESSION,
    N_FOR_STATEMENT,
    N_FOR_IN_CLAUSE,
    N_EXCEPT_CLAUSE,
    N_AS_PATTERN,
    N_AS_PATTERN_TARGET,
    N_KEYWORD_SEPARATOR,
    N_POSITIONAL_SEPARATOR,
    N_LIST,
    N_IF_STATEMENT,
    N_ELIF_CLAUSE,
    N_ELSE_CLAUSE,
    N_RETURN_STATEMENT,
    N_BOOLEAN_OPERATOR,
    N_RAISE_STATEMENT,
    N_AWAIT,
    N_WITH_ITEM,
    N_GENERATOR_EXPRESSION,
    N_TRUE,
    N_FALSE,
    N_NONE,
    N__NAMED_COUNT,
    /* anonymous tokens */
    A_ASYNC = N__NAMED_COUNT,
    A_PERCENT,
    A_PLUS,
    A_PLUS_EQ,
    A_OR,
    A_STAR,
};

/* Fields, by our number. */
enum {
    F_NAME,
    F_BODY,
    F_PARAMETERS,
    F_RETURN_TYPE,
    F_SUPERCLASSES,
    F_DEFINITION,
    F_LEFT,
    F_RIGHT,
    F_TYPE,
    F_FUNCTION,
    F_ARGUMENTS,
    F_OBJECT,
    F_ATTRIBUTE,
    F_MODULE_NAME,
    F_ALIAS,
    F_VALUE,
    F_KEY,
    F_OPERATOR,
    F__COUNT
};

/* The tables, filled in once by graph__py_init() (py_tree.c). */
extern gx_types graph__py_types;
extern TSFieldId graph__py_fid[F__COUNT];
void graph__py_init(void);

/* ---- walker state ---- */

/* A name that holds a logger, or a logger method under another name. */
typedef struct {
    const char *key;    /* "logger", "@self.log", "log_fn" */
    const char *logger; /* logger name: "__name__", a literal, or NULL */
    graph_level level;  /* for method aliases; NONE for loggers */
    const char *method; /* for method aliases */
    /* a table of a logger's methods (key "NAME[]", py_defs.c
     * method_table): that logger's path */
    const char *table_of;
    bool is_alias;
    /* functools.partial(log.info, "fmt", *pre): an alias with its
     * message bound (fmt), and pre arguments bound after it. */
    bool has_fmt;
    uint8_t pre;
    TSNode fmt;
} py_logger;

typedef struct {
    const char *local; /* name bound in the file */
    const char *canon; /* what it stands for: "logging", "logging.getLogger" */
} py_alias;

/*
 * A binding of a plain local name in the function being walked, in source
 * order (see graph__py_local_messages()). The value is kept as a node and
 * read only when a logging call passes the name as its message.
 */
typedef enum {
    LOC_SET,   /* name = value, or one of the values a loop or a conditional gives */
    LOC_AUG,   /* name += value */
    LOC_OTHER, /* bound to something unknown: hides what came before */
} py_local_kind;

/* The innermost arms of if statements a point of the code is in. */
#define LOCAL_BRANCHES 4
typedef struct {
    uint32_t stmt[LOCAL_BRANCHES]; /* start byte of the if statement */
    uint8_t arm[LOCAL_BRANCHES];   /* 0 = its if, then each elif/else in order */
    uint8_t n;
} py_branches;

typedef struct {
    const char *name; /* into the source, not NUL-terminated */
    uint32_t len;
    uint32_t stmt;               /* start byte of the statement that binds it */
    uint32_t blk_start, blk_end; /* the block that holds that statement */
    TSNode value;                /* LOC_SET, LOC_AUG */
    py_branches br;              /* where that statement is */
    uint8_t kind;                /* py_local_kind */
    bool self_plus;              /* LOC_AUG written `name = name + value`: skip the name */
} py_local;

#define LOCAL_MAX_NEST 64

typedef struct {
    gx_file *f;
    const char *src;
    gx_cursors cur;
    gx_tmpl tmpl;
    core_vec(py_logger) loggers;
    core_vec(py_alias) aliases;
    /* Local bindings of the functions being walked: those of the
     * innermost one from its py_scope.locals_base on (a nested def drops
     * its own when it ends). */
    core_vec(py_local) locals;
    uint32_t blk_start, blk_end; /* the innermost block being walked */
    /* The arms of if statements being walked, outermost first (up to
     * LOCAL_MAX_NEST of them are kept; nbr counts them all). */
    uint32_t br_stmt[LOCAL_MAX_NEST];
    uint8_t br_arm[LOCAL_MAX_NEST];
    uint32_t nbr;
    int emit_flags; /* added to emits made while walking decorators */
    /* A parameter a format may put in a wrapper's message whatever its
     * name (py_calls.c, message_fwd), or NULL. */
    const char *fwd_named;
    gx_cands cands; /* candidate sites */
    gx_names rl;    /* what the function last asked about returns (graph__py_returns_list) */
} px;

/* A parameter of the function being walked, as a call passes it. */
typedef struct {
    const char *name;
    int32_t pos;  /* positional index at a call (after self/cls); -1 = keyword only, or self */
    bool kw;      /* can be passed by keyword */
    bool varargs; /* *args: positions pos, pos + 1, ... */
    /* Not the function's own: a parameter of its class's constructor
     * that an instance attribute keeps (py_calls.c, ctor_field). */
    bool field;
} py_param;

typedef struct {
    int32_t sym;            /* enclosing symbol, -1 = module */
    int32_t cls;            /* class whose self/cls we are in, -1 = none */
    const char *self_name;  /* first parameter of a method */
    const char *cls_name;   /* first parameter of a classmethod */
    const py_param *params; /* of the enclosing function (not of an outer one) */
    uint32_t nparams;
    uint32_t locals_base; /* in_function: its first entry in px.locals */
    TSNode fn;            /* in_function: its definition */
    bool in_class_body;
    bool in_function;
    /* in a class made on the logging module's Logger or LoggerAdapter
     * (registered with logging.setLoggerClass, or made by hand): its
     * methods are the logging calls their callers make */
    bool logger_cls;
} py_scope;

/* ---- messages (py_message.c, py_locals.c) ---- */

/* How a literal's text becomes a template: as is, a %-format, a
 * str.format pattern, or a str.format pattern whose result is a %-format
 * (the logging call has arguments). */
typedef enum { SM_LITERAL, SM_FORMAT, SM_BRACE, SM_BRACE_FORMAT } string_mode;

/* Flags of a string literal from its prefix. */
typedef struct {
    bool f, raw, ok;
} str_prefix;

typedef struct {
    graph_style style;
    const char *ref;
} msg_info;

#define LOCAL_MAX_ALTS 8 /* candidate messages per call */
#define LOCAL_MAX_AUGS 4 /* `+=` followed per candidate; longer chains give none */
#define LOCAL_BUDGET 256 /* bindings looked at per call */

/* A message read back from a local. */
typedef struct {
    const char *tmpl;
    uint32_t flags;
    uint8_t style;
} local_msg;

/* One way a value reaches the call: a binding and the `+=` after it. */
typedef struct {
    uint32_t base;                /* the LOC_SET entry */
    uint32_t naug;                /* LOC_AUG entries applied after it, in order */
    uint32_t aug[LOCAL_MAX_AUGS]; /* (scanning backwards finds the last first) */
} local_path;

typedef struct {
    const py_local *v;
    const char *name;
    uint32_t len, lo; /* lo: the function's first entry */
    local_path *out;
    uint32_t n, cap, budget;
    bool covered; /* a binding found runs on every path to the point */
    bool cut;     /* the budget or cap ended the scan: more may reach it */
} local_scan;

/* How a call that logs is read (py_emit.c). */
typedef struct {
    graph_emit_kind kind;
    graph_level level;
    const char *receiver, *method, *logger;
    int msg_index;      /* which positional argument is the message; -1 = all (print) */
    const char *msg_kw; /* keyword that may carry the message instead */
    uint32_t flags;
    /* A partial's bound message (has_fmt): the call's arguments come
     * after its pre bound ones. */
    bool has_fmt;
    uint8_t pre;
    TSNode fmt;
} emit_plan;

/* ---- reading the tree ---- */

static inline bool is_null(TSNode n)
{
    return ts_node_is_null(n);
}

static inline TSNode fieldn(TSNode n, int f)
{
    return ts_node_child_by_field_id(n, graph__py_fid[f]);
}

static inline unsigned ty(TSNode n)
{
    return gx_type(&graph__py_types, n);
}

static inline const char *text(px *x, TSNode n)
{
    return graph__text(x->f, x->src, n);
}

static inline bool text_eq(px *x, TSNode n, const char *s)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    size_t len = strlen(s);
    return b - a == len && memcmp(x->src + a, s, len) == 0;
}

/* Whether nodes a and b have the same text (a name and its use). */
static inline bool same_text(px *x, TSNode a, TSNode b)
{
    uint32_t a0 = ts_node_start_byte(a), a1 = ts_node_end_byte(a);
    uint32_t b0 = ts_node_start_byte(b), b1 = ts_node_end_byte(b);
    return a1 - a0 == b1 - b0 && memcmp(x->src + a0, x->src + b0, a1 - a0) == 0;
}

static inline void add_ref(px *x, gx_ref_kind kind, const char *path, int32_t from, TSNode at)
{
    if (!path)
        return;
    gx_ref r = {.path = path, .from = from, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->refs, r);
}

static inline void add_bind(px *x, gx_bind_kind kind, const char *name, const char *value,
                            int32_t scope, TSNode at)
{
    gx_bind b = {
        .name = name, .value = value, .scope = scope, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->binds, b);
}

static inline bool is_stringish(unsigned t)
{
    return t == N_STRING || t == N_CONCATENATED_STRING;
}

static inline TSNode unparen(TSNode n)
{
    for (int i = 0; i < 64 && !is_null(n) && ty(n) == N_PARENTHESIZED_EXPRESSION; i++) {
        TSNode inner = ts_node_named_child(n, 0);
        if (is_null(inner))
            break;
        n = inner;
    }
    return n;
}

/* The operator token of a binary_operator. */
static inline unsigned binop(TSNode n)
{
    TSNode op = fieldn(n, F_OPERATOR);
    return is_null(op) ? 0 : ty(op);
}

/* ---- what the files share (each described where it is defined) ---- */

/* `(MSG).encode("ascii")`, `data.decode()`: the call's receiver, whose text
 * the call keeps (as bytes or as str); null for any other node. */
TSNode graph__py_recoded(px *x, TSNode e);

/*
 * Large literal data displays in Python source (py_data.c): the
 * insides of the displays to hide from the parser, as sorted, disjoint
 * [start, end) byte ranges in two malloc'd arrays (the caller frees them).
 */
uint32_t graph__py_data_ranges(const char *src, size_t n, uint32_t **starts, uint32_t **ends);

/* py_tree.c */
const char *graph__py_canon(px *x, const char *path);
const py_logger *graph__py_find_logger(px *x, const char *key);
const char *graph__py_path_of(px *x, TSNode n, const py_scope *sc, int depth);
const char *graph__py_unknown_member(px *x, TSNode attr_node);
const char *graph__py_subscript_name(px *x, const char *name, const char *key);
const char *graph__py_dollar_template(px *x, TSNode e, const py_scope *sc);
const char *graph__py_last_segment(px *x, TSNode n, size_t *len);
bool graph__py_is_dunder(const char *s);

/* py_message.c */
str_prefix graph__py_string_prefix(px *x, TSNode str);
void graph__py_put_content(px *x, core_buf *out, TSNode content, bool raw);
bool graph__py_tmpl_string_at(px *x, TSNode str, string_mode mode, TSNode at, TSNode slot,
                              const char **before, uint32_t *flags);
const char *graph__py_string_value(px *x, TSNode str);
bool graph__py_tmpl_strings(px *x, TSNode s, string_mode mode);
msg_info graph__py_build_message(px *x, TSNode e, bool with_args, const py_scope *sc, int depth);
/* The literal an imported function styles, when e is a call of one with
 * a literal as its one positional argument (`click.style("On project ",
 * bold=True)`): the text it shows, its escapes aside (the mapping reads a
 * message without them). Null otherwise. */
TSNode graph__py_styled(px *x, TSNode e);
/* The parameters of a function as a call passes them (`bound`: self or
 * cls come from the receiver). */
const py_param *graph__py_collect_params(px *x, TSNode params, bool bound, uint32_t *np);
const py_param *graph__py_param_named(px *x, const py_scope *sc, TSNode id);
uint32_t graph__py_plus_parts(TSNode e, TSNode *parts, uint32_t cap, uint32_t n, int depth);

/* py_locals.c */
py_branches graph__py_cur_branches(const px *x);
void graph__py_add_local(px *x, TSNode name, py_local_kind kind, TSNode value, uint32_t stmt,
                         TSNode blk);
void graph__py_local_assign(px *x, TSNode name, TSNode value, TSNode stmt);
void graph__py_local_loop(px *x, TSNode loop);
void graph__py_local_paths(local_scan *s, uint32_t end, uint32_t pos, const py_branches *br,
                           const uint32_t *augs, uint32_t naug);
bool graph__py_local_name(px *x, TSNode e, const py_scope *sc);
uint32_t graph__py_local_messages(px *x, TSNode id, TSNode at, bool with_args, const py_scope *sc,
                                  int depth, local_msg *out, uint32_t cap);
/* Whether e is `self.name` in a method (an instance attribute its code
 * may bind before it logs it). */
bool graph__py_self_attr(px *x, TSNode e, const py_scope *sc);
/* The values a local name or `self.name` certainly holds one of at the
 * call `at`: the value nodes of the bindings that reach it, up to cap; 0
 * if none is known, if there are more, if a `+=` is on the way, unless
 * every binding that may reach the call was seen, and (for an attribute,
 * which may also have been bound elsewhere) unless one of them runs on
 * every path to it. */
uint32_t graph__py_bound_values(px *x, TSNode e, TSNode at, const py_scope *sc, TSNode *out,
                                uint32_t cap);
/* Whether function fn (its definition) returns its local name (an
 * identifier) whole or joined: `return lines`, `return "\n".join(lines)`. */
bool graph__py_returns_list(px *x, TSNode fn, TSNode name);
/* Whether the function around the node at stores its parameter name
 * whole in an object (`self.state = state`; see graph__pick_plain). */
bool graph__py_param_stored(px *x, TSNode at, const char *name);
/* The string literal a name the function binds (UPPER_CASE or not: a
 * format kept in a local, `PATTERN % args`) holds on every path to the
 * call `at`; null if it may hold anything else. */
TSNode graph__py_bound_format(px *x, TSNode id, TSNode at, const py_scope *sc);
/* py_calls.c: the function whose result e is at the call `at` (see
 * gx_arg.ret): the callee's path of a call (`f(...)`, `self.f(...)`), or
 * of the call a local is bound to on every path to `at`; for `str(obj)`,
 * its class's __str__ when obj was made by calling the class (`auth =
 * Authorization(...)`). NULL otherwise, and when the call is handed a
 * parameter named like a message. */
const char *graph__py_result_of(px *x, TSNode e, TSNode at, const py_scope *sc);

/* Whether a call of callee works on the arguments it is given (a function,
 * or a module's: click.style), not on a value it is a method of
 * (graph_int.h says why that matters). */
bool graph__py_works_on_args(px *x, TSNode callee);

/* py_fill.c: a logging call's arguments after its message, by position
 * and by keyword, for filling its template's holes. */
#define FILL_KEYWORDS 16
typedef struct {
    TSNode at; /* the call */
    const TSNode *pos;
    uint32_t npos;
    TSNode kw_name[FILL_KEYWORDS], kw_value[FILL_KEYWORDS];
    uint32_t nkw;
} fill_args;
/* Pushes emit site em onto the file's emits, with its template's holes
 * filled where the call's arguments are literals (py_fill.c says how): one
 * site per filled template on em's line, and em as written when nothing
 * was filled or a fill is only likely. */
void graph__py_push_filled(px *x, const gx_emit *em, const fill_args *fa, const py_scope *sc);

/* py_calls.c */
void graph__py_record_passes(px *x, TSNode args, const char *callee, const py_scope *sc);
void graph__py_record_call(px *x, TSNode call, const char *callee, const emit_plan *pl,
                           int32_t emit, const py_scope *sc, int depth);

/* py_emit.c */
const char *graph__py_logger_name_of_call(px *x, TSNode call);
bool graph__py_is_logger_factory(px *x, TSNode call, const py_scope *sc);
bool graph__py_loggerish_path(px *x, const char *recv);
void graph__py_exception_event(px *x, TSNode call, const emit_plan *pl, const py_scope *sc);
bool graph__py_plan_emit(px *x, TSNode call, TSNode fn, const char *path, emit_plan *pl,
                         const py_scope *sc);
bool graph__py_plan_candidate(px *x, TSNode call, const char *callee, emit_plan *pl,
                              const py_scope *sc);
void graph__py_make_emit(px *x, TSNode call, const emit_plan *pl, const py_scope *sc, int depth);
void graph__py_add_const(px *x, const char *name, TSNode value, const py_scope *sc, int depth);
/* A function returning a message it formats (`return "%s - %s" % (a, b)`,
 * `.format()`, an f-string, a concatenation with literal parts): its
 * template, a candidate of any message its callers log (a constant
 * without a name, owned by the function). */
void graph__py_add_returned(px *x, TSNode value, const py_scope *sc, int depth);
/* A call putting a piece of a message into a list the function returns
 * (`lines.append(...)`): its piece added as a format the function
 * returns, and true; false for any other call. */
bool graph__py_list_piece(px *x, TSNode call, TSNode fn, const char *callee, const py_scope *sc,
                          int depth);

/* py_imports.c */
void graph__py_do_import(px *x, TSNode n, const py_scope *sc, int depth);
void graph__py_type_refs(px *x, TSNode n, const py_scope *sc, int depth);
const char *graph__py_annotation_class(px *x, TSNode n, const py_scope *sc, int depth);

/* py_defs.c */
const char *graph__py_body_docstring(px *x, TSNode body, int depth);
int32_t graph__py_push_sym(px *x, graph_sym_kind kind, const char *name, int32_t parent,
                           uint32_t start, uint32_t end, uint32_t flags);
uint32_t graph__py_decorator_flags(px *x, TSNode dec);
bool graph__py_plain_decorator(uint32_t flags);
const char *graph__py_first_param(px *x, TSNode params);
void graph__py_bind_target(px *x, const char *name, TSNode right, const py_scope *sc, int32_t scope,
                           TSNode at);
void graph__py_bind_targets(px *x, TSNode t, const py_scope *sc, int rec);
/* When value is a logger's method (`logger.debug`), makes calls to name
 * log through that logger: at the method's level, or (level false) at
 * none, for a logging function a caller may hand in another one's place
 * (`def log(self, msg, logfun=logger.info)`). Returns whether it did. */
bool graph__py_method_alias(px *x, const char *name, TSNode value, const py_scope *sc, bool level);
/* name is an alias of method of the logger at recv (a loggerish path),
 * logging at level: recorded, and returned (valid until the next one);
 * NULL when recv is no logger. */
py_logger *graph__py_push_alias(px *x, const char *name, const char *recv, const char *method,
                                graph_level level);
/* name = functools.partial(log.info, "fmt", ...) (also log.log with a
 * level first): calls of name log that message (py_emit.c). */
bool graph__py_partial_alias(px *x, const char *name, TSNode call, const py_scope *sc);
void graph__py_prescan_bindings(px *x, TSNode body, const py_scope *sc, int depth);

#endif
