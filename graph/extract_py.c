/*
 * Python extraction: symbols, references, bindings, imports and emit sites
 * of one file, from tree-sitter-python's syntax tree.
 */
#include "graph_int.h"

#include <pthread.h>
#include <stdlib.h>
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
    N__NAMED_COUNT,
    /* anonymous tokens */
    A_ASYNC = N__NAMED_COUNT,
    A_PERCENT,
    A_PLUS,
    A_PLUS_EQ,
};

static const char *const named_types[N__NAMED_COUNT] = {
    [N_MODULE] = "module",
    [N_FUNCTION_DEFINITION] = "function_definition",
    [N_CLASS_DEFINITION] = "class_definition",
    [N_DECORATED_DEFINITION] = "decorated_definition",
    [N_DECORATOR] = "decorator",
    [N_BLOCK] = "block",
    [N_EXPRESSION_STATEMENT] = "expression_statement",
    [N_ASSIGNMENT] = "assignment",
    [N_AUGMENTED_ASSIGNMENT] = "augmented_assignment",
    [N_CALL] = "call",
    [N_ATTRIBUTE] = "attribute",
    [N_IDENTIFIER] = "identifier",
    [N_ARGUMENT_LIST] = "argument_list",
    [N_KEYWORD_ARGUMENT] = "keyword_argument",
    [N_STRING] = "string",
    [N_STRING_START] = "string_start",
    [N_STRING_CONTENT] = "string_content",
    [N_INTERPOLATION] = "interpolation",
    [N_CONCATENATED_STRING] = "concatenated_string",
    [N_BINARY_OPERATOR] = "binary_operator",
    [N_PARENTHESIZED_EXPRESSION] = "parenthesized_expression",
    [N_IMPORT_STATEMENT] = "import_statement",
    [N_IMPORT_FROM_STATEMENT] = "import_from_statement",
    [N_FUTURE_IMPORT_STATEMENT] = "future_import_statement",
    [N_ALIASED_IMPORT] = "aliased_import",
    [N_DOTTED_NAME] = "dotted_name",
    [N_RELATIVE_IMPORT] = "relative_import",
    [N_IMPORT_PREFIX] = "import_prefix",
    [N_WILDCARD_IMPORT] = "wildcard_import",
    [N_PARAMETERS] = "parameters",
    [N_TYPED_PARAMETER] = "typed_parameter",
    [N_TYPED_DEFAULT_PARAMETER] = "typed_default_parameter",
    [N_DEFAULT_PARAMETER] = "default_parameter",
    [N_TYPE] = "type",
    [N_GENERIC_TYPE] = "generic_type",
    [N_TYPE_PARAMETER] = "type_parameter",
    [N_UNION_TYPE] = "union_type",
    [N_MEMBER_TYPE] = "member_type",
    [N_SUBSCRIPT] = "subscript",
    [N_LAMBDA] = "lambda",
    [N_DICTIONARY] = "dictionary",
    [N_PAIR] = "pair",
    [N_LIST_SPLAT] = "list_splat",
    [N_DICTIONARY_SPLAT] = "dictionary_splat",
    [N_PATTERN_LIST] = "pattern_list",
    [N_TUPLE_PATTERN] = "tuple_pattern",
    [N_LIST_PATTERN] = "list_pattern",
    [N_TUPLE] = "tuple",
    [N_EXPRESSION_LIST] = "expression_list",
    [N_INTEGER] = "integer",
    [N_COMMENT] = "comment",
    [N_LIST_SPLAT_PATTERN] = "list_splat_pattern",
    [N_DICTIONARY_SPLAT_PATTERN] = "dictionary_splat_pattern",
    [N_CONDITIONAL_EXPRESSION] = "conditional_expression",
    [N_GLOBAL_STATEMENT] = "global_statement",
    [N_NONLOCAL_STATEMENT] = "nonlocal_statement",
    [N_NAMED_EXPRESSION] = "named_expression",
    [N_FOR_STATEMENT] = "for_statement",
    [N_FOR_IN_CLAUSE] = "for_in_clause",
    [N_EXCEPT_CLAUSE] = "except_clause",
    [N_AS_PATTERN] = "as_pattern",
    [N_AS_PATTERN_TARGET] = "as_pattern_target",
    [N_KEYWORD_SEPARATOR] = "keyword_separator",
    [N_POSITIONAL_SEPARATOR] = "positional_separator",
    [N_LIST] = "list",
    [N_IF_STATEMENT] = "if_statement",
    [N_ELIF_CLAUSE] = "elif_clause",
    [N_ELSE_CLAUSE] = "else_clause",
};
static const char *const anon_types[] = {"async", "%", "+", "+="};

static gx_types types;
static struct {
    TSFieldId name, body, parameters, return_type, superclasses, definition, left, right, type,
        function, arguments, object, attribute, module_name, alias, value, key, operator_;
} F;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static TSFieldId field(const TSLanguage *l, const char *name)
{
    TSFieldId id = ts_language_field_id_for_name(l, name, (uint32_t)strlen(name));
    if (!id)
        core_panic("tree-sitter-python has no field '%s'", name);
    return id;
}

static void init_tables(void)
{
    const TSLanguage *l = graph__language(GRAPH_LANG_PYTHON);
    graph__types_init(&types, l, named_types, N__NAMED_COUNT, anon_types,
                      sizeof anon_types / sizeof anon_types[0]);
    F.name = field(l, "name");
    F.body = field(l, "body");
    F.parameters = field(l, "parameters");
    F.return_type = field(l, "return_type");
    F.superclasses = field(l, "superclasses");
    F.definition = field(l, "definition");
    F.left = field(l, "left");
    F.right = field(l, "right");
    F.type = field(l, "type");
    F.function = field(l, "function");
    F.arguments = field(l, "arguments");
    F.object = field(l, "object");
    F.attribute = field(l, "attribute");
    F.module_name = field(l, "module_name");
    F.alias = field(l, "alias");
    F.value = field(l, "value");
    F.key = field(l, "key");
    F.operator_ = field(l, "operator");
}

/* ---- walker state ---- */

/* A name that holds a logger, or a logger method under another name. */
typedef struct {
    const char *key;    /* "logger", "@self.log", "log_fn" */
    const char *logger; /* logger name: "__name__", a literal, or NULL */
    graph_level level;  /* for method aliases; NONE for loggers */
    const char *method; /* for method aliases */
    bool is_alias;
} py_logger;

typedef struct {
    const char *local; /* name bound in the file */
    const char *canon; /* what it stands for: "logging", "logging.getLogger" */
} py_alias;

/*
 * A binding of a plain local name in the function being walked, in source
 * order (see local_messages()). The value is kept as a node and read only
 * when a logging call passes the name as its message.
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
    gx_cands cands; /* candidate sites */
} px;

/* A parameter of the function being walked, as a call passes it. */
typedef struct {
    const char *name;
    int32_t pos;  /* positional index at a call (after self/cls); -1 = keyword only, or self */
    bool kw;      /* can be passed by keyword */
    bool varargs; /* *args: positions pos, pos + 1, ... */
} py_param;

typedef struct {
    int32_t sym;            /* enclosing symbol, -1 = module */
    int32_t cls;            /* class whose self/cls we are in, -1 = none */
    const char *self_name;  /* first parameter of a method */
    const char *cls_name;   /* first parameter of a classmethod */
    const py_param *params; /* of the enclosing function (not of an outer one) */
    uint32_t nparams;
    uint32_t locals_base; /* in_function: its first entry in px.locals */
    bool in_class_body;
    bool in_function;
} py_scope;

static void walk(px *x, TSNode n, const py_scope *sc, int depth);

static inline bool is_null(TSNode n)
{
    return ts_node_is_null(n);
}

static inline TSNode fieldn(TSNode n, TSFieldId id)
{
    return ts_node_child_by_field_id(n, id);
}

static inline unsigned ty(TSNode n)
{
    return gx_type(&types, n);
}

static const char *text(px *x, TSNode n)
{
    return graph__text(x->f, x->src, n);
}

static bool text_eq(px *x, TSNode n, const char *s)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    size_t len = strlen(s);
    return b - a == len && memcmp(x->src + a, s, len) == 0;
}

static void add_ref(px *x, gx_ref_kind kind, const char *path, int32_t from, TSNode at)
{
    if (!path)
        return;
    gx_ref r = {.path = path, .from = from, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->refs, r);
}

static void add_bind(px *x, gx_bind_kind kind, const char *name, const char *value, int32_t scope,
                     TSNode at)
{
    gx_bind b = {
        .name = name, .value = value, .scope = scope, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->binds, b);
}

/* The canonical dotted name a local path stands for, through imports:
 * with `import logging as lg`, "lg.getLogger" -> "logging.getLogger". */
static const char *canon(px *x, const char *path)
{
    if (!path)
        return NULL;
    size_t head = strcspn(path, ".");
    for (size_t i = x->aliases.n; i-- > 0;) {
        const py_alias *a = &x->aliases.v[i];
        if (strlen(a->local) == head && memcmp(a->local, path, head) == 0) {
            if (!path[head])
                return a->canon;
            return graph__path_join(x->f, a->canon, path + head + 1, strlen(path + head + 1));
        }
    }
    return path;
}

static const py_logger *find_logger(px *x, const char *key)
{
    for (size_t i = x->loggers.n; i-- > 0;)
        if (strcmp(x->loggers.v[i].key, key) == 0)
            return &x->loggers.v[i];
    return NULL;
}

/*
 * The dotted path of an identifier/attribute chain: `self.a.b` -> "@self.a.b",
 * `super().m` -> "@super.m". NULL when the chain holds anything else (a
 * call, a subscript), so the receiver is unknown.
 */
static const char *path_of(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (depth > 64)
        return NULL;
    switch (ty(n)) {
    case N_IDENTIFIER: {
        if (sc->self_name && text_eq(x, n, sc->self_name))
            return "@self";
        if (sc->cls_name && text_eq(x, n, sc->cls_name))
            return "@cls";
        return text(x, n);
    }
    case N_ATTRIBUTE: {
        TSNode obj = fieldn(n, F.object), attr = fieldn(n, F.attribute);
        if (is_null(obj) || is_null(attr))
            return NULL;
        const char *p = path_of(x, obj, sc, depth + 1);
        return p ? graph__path_join_node(x->f, p, x->src, attr) : NULL;
    }
    case N_CALL: {
        TSNode fn = fieldn(n, F.function);
        if (!is_null(fn) && ty(fn) == N_IDENTIFIER && text_eq(x, fn, "super"))
            return "@super";
        return NULL;
    }
    case N_PARENTHESIZED_EXPRESSION: {
        TSNode inner = ts_node_named_child(n, 0);
        return is_null(inner) ? NULL : path_of(x, inner, sc, depth + 1);
    }
    default:
        return NULL;
    }
}

/* "?.m" for a call on an unknown receiver. */
static const char *unknown_member(px *x, TSNode attr_node)
{
    TSNode attr = fieldn(attr_node, F.attribute);
    return is_null(attr) ? NULL : graph__path_join_node(x->f, "?", x->src, attr);
}

/* ---- strings ---- */

typedef enum { SM_LITERAL, SM_FORMAT, SM_BRACE } string_mode;

/* Flags of a string literal from its prefix. */
typedef struct {
    bool f, raw, ok;
} str_prefix;

static str_prefix string_prefix(px *x, TSNode str)
{
    str_prefix p = {false, false, false};
    TSNode start = ts_node_child(str, 0);
    if (is_null(start) || ty(start) != N_STRING_START)
        return p;
    p.ok = true;
    uint32_t a = ts_node_start_byte(start), b = ts_node_end_byte(start);
    for (uint32_t i = a; i < b; i++) {
        char c = x->src[i];
        if (c == 'f' || c == 'F')
            p.f = true;
        else if (c == 'r' || c == 'R')
            p.raw = true;
    }
    return p;
}

/* Appends the text of a string_content node to out: as written in a raw
 * string, else with its escapes decoded. */
static void put_content(px *x, core_buf *out, TSNode content, bool raw)
{
    uint32_t a = ts_node_start_byte(content), b = ts_node_end_byte(content);
    if (raw)
        core_buf_append(out, x->src + a, b - a);
    else
        graph__decode_escapes(out, x->src + a, b - a, true);
}

/*
 * Appends one string literal to the template. Literal text goes in by
 * `mode`; in an f-string, `{{`/`}}` are single braces and every
 * interpolation is a hole. Returns true if the literal was an f-string.
 * When before is given, the interpolation `at` is no hole: the template
 * up to it is taken into *before (its flags into *flags) instead.
 */
static bool tmpl_string_at(px *x, TSNode str, string_mode mode, TSNode at, const char **before,
                           uint32_t *flags)
{
    str_prefix pre = string_prefix(x, str);
    core_buf piece = {0};
    /* Strings have few children; indexing them needs no cursor, so this
     * is safe to call from anywhere in a walk. */
    uint32_t nc = ts_node_child_count(str);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode ch = ts_node_child(str, i);
        unsigned t = ty(ch);
        if (t == N_STRING_CONTENT) {
            put_content(x, &piece, ch, pre.raw);
        } else if (t == N_INTERPOLATION) {
            if (piece.len) {
                graph__tmpl_brace(&x->tmpl, piece.data, piece.len);
                core_buf_reset(&piece);
            }
            if (before && ts_node_eq(ch, at))
                *before = graph__tmpl_take(&x->tmpl, x->f, flags);
            else
                graph__tmpl_hole(&x->tmpl);
        }
    }
    if (piece.len) {
        if (pre.f)
            /* Only {{ and }} are left in f-string text: brace mode turns
             * them into single braces (and doubles '%'). */
            graph__tmpl_brace(&x->tmpl, piece.data, piece.len);
        else if (mode == SM_FORMAT)
            graph__tmpl_format(&x->tmpl, piece.data, piece.len);
        else if (mode == SM_BRACE)
            graph__tmpl_brace(&x->tmpl, piece.data, piece.len);
        else
            graph__tmpl_literal(&x->tmpl, piece.data, piece.len);
    }
    core_buf_free(&piece);
    return pre.f;
}

static bool tmpl_string(px *x, TSNode str, string_mode mode)
{
    return tmpl_string_at(x, str, mode, gx_null(), NULL, NULL);
}

/* The decoded text of a plain string literal (no f-string), or NULL. */
static const char *string_value(px *x, TSNode str)
{
    if (ty(str) != N_STRING)
        return NULL;
    str_prefix pre = string_prefix(x, str);
    if (!pre.ok || pre.f)
        return NULL;
    core_buf piece = {0};
    uint32_t nc = ts_node_child_count(str);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode ch = ts_node_child(str, i);
        if (ty(ch) == N_STRING_CONTENT)
            put_content(x, &piece, ch, pre.raw);
    }
    const char *r = core_arena_strndup(&x->f->arena, piece.data ? piece.data : "", piece.len);
    core_buf_free(&piece);
    return r;
}

/* Appends a string literal, or each part of an implicit concatenation,
 * in one mode; true if any part was an f-string. */
static bool tmpl_strings(px *x, TSNode s, string_mode mode)
{
    if (ty(s) == N_STRING)
        return tmpl_string(x, s, mode);
    bool any_f = false;
    uint32_t nc = ts_node_named_child_count(s);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode part = ts_node_named_child(s, i);
        if (ty(part) == N_STRING)
            any_f |= tmpl_string(x, part, mode);
    }
    return any_f;
}

/* "NAME[key]": how a string in a dict constant is named. */
static const char *subscript_name(px *x, const char *name, const char *key)
{
    size_t nl = strlen(name), kl = strlen(key);
    char *r = core_arena_alloc(&x->f->arena, nl + kl + 3);
    memcpy(r, name, nl);
    r[nl] = '[';
    memcpy(r + nl + 1, key, kl);
    r[nl + 1 + kl] = ']';
    r[nl + 2 + kl] = 0;
    return r;
}

static bool is_stringish(unsigned t)
{
    return t == N_STRING || t == N_CONCATENATED_STRING;
}

static TSNode unparen(TSNode n)
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
static unsigned binop(TSNode n)
{
    TSNode op = fieldn(n, F.operator_);
    return is_null(op) ? 0 : ty(op);
}

typedef struct {
    graph_style style;
    const char *ref;
} msg_info;

/* A message given by name: the template is wherever the name points. */
static msg_info ref_message(const char *path)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    if (path) {
        mi.style = GRAPH_STYLE_REF;
        mi.ref = path;
    }
    return mi;
}

/*
 * Builds the template of a message expression into x->tmpl.
 * `with_args`: the logging call passes arguments, so %-directives in a
 * literal are holes (without them logging prints the text as is).
 */
static msg_info build_message(px *x, TSNode e, bool with_args, const py_scope *sc, int depth)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    if (depth > GX_MAX_DEPTH)
        return mi;
    e = unparen(e);
    if (is_null(e))
        return mi;
    switch (ty(e)) {
    case N_STRING:
    case N_CONCATENATED_STRING: {
        bool f = tmpl_strings(x, e, with_args ? SM_FORMAT : SM_LITERAL);
        /* An f-string without holes is plain text. */
        mi.style = f && x->tmpl.holes           ? GRAPH_STYLE_FSTRING
                   : with_args && x->tmpl.holes ? GRAPH_STYLE_PERCENT
                                                : GRAPH_STYLE_PLAIN;
        return mi;
    }
    case N_BINARY_OPERATOR: {
        TSNode l = unparen(fieldn(e, F.left)), r = fieldn(e, F.right);
        unsigned op = binop(e);
        if (op == A_PERCENT && !is_null(l)) {
            /* "fmt" % args: the directives are the holes. */
            if (is_stringish(ty(l))) {
                build_message(x, l, true, sc, depth + 1);
                mi.style = GRAPH_STYLE_PERCENT;
                return mi;
            }
            return ref_message(path_of(x, l, sc, 0));
        }
        if (op == A_PLUS && !is_null(l) && !is_null(r)) {
            /* "a" + x + "b": literal pieces and holes, left to right. */
            TSNode parts[2] = {l, unparen(r)};
            bool literal = false;
            for (int i = 0; i < 2; i++) {
                unsigned t = ty(parts[i]);
                if (is_stringish(t)) {
                    build_message(x, parts[i], false, sc, depth + 1);
                    literal = true;
                } else if (t == N_BINARY_OPERATOR && binop(parts[i]) == A_PLUS) {
                    msg_info sub = build_message(x, parts[i], false, sc, depth + 1);
                    literal |= sub.style == GRAPH_STYLE_CONCAT || sub.style == GRAPH_STYLE_PLAIN;
                } else {
                    graph__tmpl_hole(&x->tmpl);
                }
            }
            mi.style = literal ? GRAPH_STYLE_CONCAT : GRAPH_STYLE_DYNAMIC;
            return mi;
        }
        return mi;
    }
    case N_CALL: {
        TSNode fn = fieldn(e, F.function), args = fieldn(e, F.arguments);
        if (is_null(fn) || is_null(args))
            return mi;
        if (ty(fn) == N_ATTRIBUTE) {
            TSNode obj = unparen(fieldn(fn, F.object)), attr = fieldn(fn, F.attribute);
            if (!is_null(attr) && text_eq(x, attr, "format") && !is_null(obj)) {
                if (is_stringish(ty(obj))) {
                    tmpl_strings(x, obj, SM_BRACE);
                    mi.style = GRAPH_STYLE_BRACE;
                    return mi;
                }
                return ref_message(path_of(x, obj, sc, 0));
            }
        }
        /* gettext wrappers: _("..."), gettext("..."), N_("...") */
        if (ty(fn) == N_IDENTIFIER &&
            (text_eq(x, fn, "_") || text_eq(x, fn, "gettext") || text_eq(x, fn, "N_") ||
             text_eq(x, fn, "gettext_lazy") || text_eq(x, fn, "ugettext"))) {
            TSNode a0 = ts_node_named_child(args, 0);
            if (!is_null(a0))
                return build_message(x, a0, with_args, sc, depth + 1);
        }
        return mi;
    }
    case N_IDENTIFIER:
    case N_ATTRIBUTE:
        return ref_message(path_of(x, e, sc, 0));
    case N_SUBSCRIPT: {
        /* MESSAGES["key"]: the constant recorded as MESSAGES[key]. */
        TSNode v = fieldn(e, F.value), k = ts_node_named_child(e, 1);
        const char *p = is_null(v) ? NULL : path_of(x, v, sc, 0);
        const char *key = is_null(k) ? NULL : string_value(x, k);
        return ref_message(p && key ? subscript_name(x, p, key) : NULL);
    }
    default:
        return mi;
    }
}

/* The parameter of the enclosing function an identifier names, if any. */
static const py_param *param_named(px *x, const py_scope *sc, TSNode id)
{
    if (is_null(id) || ty(id) != N_IDENTIFIER)
        return NULL;
    for (uint32_t i = 0; i < sc->nparams; i++)
        if (text_eq(x, id, sc->params[i].name))
            return &sc->params[i];
    return NULL;
}

/* The parts of a `+` chain, left to right; 0 if there are too many. */
static uint32_t plus_parts(TSNode e, TSNode *parts, uint32_t cap, uint32_t n, int depth)
{
    e = unparen(e);
    if (is_null(e))
        return 0;
    if (depth < 32 && ty(e) == N_BINARY_OPERATOR && binop(e) == A_PLUS) {
        TSNode l = fieldn(e, F.left), r = fieldn(e, F.right);
        if (is_null(l) || is_null(r))
            return 0;
        n = plus_parts(l, parts, cap, n, depth + 1);
        return n ? plus_parts(r, parts, cap, n, depth + 1) : 0;
    }
    if (n >= cap)
        return 0;
    parts[n] = e;
    return n + 1;
}

/* ---- messages held in local variables ----
 *
 * `msg = "Authentication ({}) failed.".format(m); self._log(INFO, msg)`:
 * the message is built in a local before the call. While a function body
 * is walked, every binding of a plain name in it is recorded in order
 * (px.locals; a nested def keeps its own, and module and class bodies are
 * not followed: their strings are constants, see add_const()), so a call
 * that passes such a name looks back over the bindings seen so far
 * instead of rescanning the body.
 *
 * There is no flow analysis, only block structure. A binding whose block
 * holds the call (or the `+=` being followed) runs on every path to it
 * and hides the earlier ones. A binding in another arm of an if statement
 * the call is in never reaches it. Any other binding (in an if or else
 * arm the call is not in, a loop, a try) may or may not have run, so the
 * scan goes on past it. Each binding reached gives one candidate message,
 * nearest first; `+=` appends its right side to what reached it. So
 * branches give one emit site each, all on the call's line, as logging
 * calls written in each branch would; the cost is an occasional message
 * no run produces (an if and an else that both append also give the text
 * with neither), which matches nothing real.
 *
 * The candidates are bounded (LOCAL_MAX_ALTS), and so is the work per
 * call (LOCAL_BUDGET bindings looked at), so a huge function stays linear.
 */

#define LOCAL_MAX_ALTS 8  /* candidate messages per call */
#define LOCAL_MAX_AUGS 4  /* `+=` followed per candidate; longer chains give none */
#define LOCAL_BUDGET 256  /* bindings looked at per call */
#define LOCAL_MAX_LOOP 16 /* values of `for name in (...)` recorded */

/* The innermost arms being walked. Beyond LOCAL_MAX_NEST, those kept
 * are outer ones: still arms the point is in. */
static py_branches cur_branches(const px *x)
{
    py_branches b;
    memset(&b, 0, sizeof b);
    uint32_t top = x->nbr < LOCAL_MAX_NEST ? x->nbr : LOCAL_MAX_NEST;
    for (uint32_t i = top; i-- > 0 && b.n < LOCAL_BRANCHES;) {
        b.stmt[b.n] = x->br_stmt[i];
        b.arm[b.n++] = x->br_arm[i];
    }
    return b;
}

/* Are a and b in different arms of one if statement (so no run passes
 * both, loops aside)? */
static bool exclusive(const py_branches *a, const py_branches *b)
{
    for (uint8_t i = 0; i < a->n; i++)
        for (uint8_t j = 0; j < b->n; j++)
            if (a->stmt[i] == b->stmt[j] && a->arm[i] != b->arm[j])
                return true;
    return false;
}

/* Records a binding of name (an identifier) made by the statement at
 * stmt, in the block being walked unless blk is given. */
static void add_local(px *x, TSNode name, py_local_kind kind, TSNode value, uint32_t stmt,
                      TSNode blk)
{
    uint32_t a = ts_node_start_byte(name);
    py_local l = {.name = x->src + a,
                  .len = ts_node_end_byte(name) - a,
                  .stmt = stmt,
                  .blk_start = is_null(blk) ? x->blk_start : ts_node_start_byte(blk),
                  .blk_end = is_null(blk) ? x->blk_end : ts_node_end_byte(blk),
                  .value = value,
                  .br = cur_branches(x),
                  .kind = (uint8_t)kind};
    core_vec_push(&x->locals, l);
}

/* `name = value` in a function body: `a if c else b` gives both values
 * (one statement, so they go together); `name = name + b` is `name += b`. */
static void local_assign(px *x, TSNode name, TSNode value, TSNode stmt)
{
    uint32_t at = ts_node_start_byte(stmt);
    TSNode v = unparen(value);
    TSNode head = v;
    for (int i = 0;
         i < 32 && !is_null(head) && ty(head) == N_BINARY_OPERATOR && binop(head) == A_PLUS; i++)
        head = unparen(fieldn(head, F.left));
    if (!ts_node_eq(head, v) && !is_null(head) && ty(head) == N_IDENTIFIER) {
        uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
        uint32_t c = ts_node_start_byte(head), d = ts_node_end_byte(head);
        if (b - a == d - c && memcmp(x->src + a, x->src + c, b - a) == 0) {
            add_local(x, name, LOC_AUG, v, at, gx_null());
            x->locals.v[x->locals.n - 1].self_plus = true;
            return;
        }
    }
    if (!is_null(v) && ty(v) == N_CONDITIONAL_EXPRESSION) {
        TSNode a = ts_node_named_child(v, 0), b = ts_node_named_child(v, 2);
        if (!is_null(a) && !is_null(b)) {
            add_local(x, name, LOC_SET, a, at, gx_null());
            add_local(x, name, LOC_SET, b, at, gx_null());
            return;
        }
    }
    add_local(x, name, LOC_SET, v, at, gx_null());
}

/*
 * `for name in ("a", "b"):` gives name each value in the loop body
 * (paramiko logs two messages that way). Any other loop over a plain name
 * binds it to something unknown.
 */
static void local_loop(px *x, TSNode loop)
{
    TSNode left = fieldn(loop, F.left), right = unparen(fieldn(loop, F.right));
    TSNode body = fieldn(loop, F.body);
    if (is_null(left) || ty(left) != N_IDENTIFIER)
        return;
    uint32_t at = ts_node_start_byte(loop);
    unsigned rt = is_null(right) ? 0 : ty(right);
    if ((rt == N_TUPLE || rt == N_LIST || rt == N_EXPRESSION_LIST) && !is_null(body)) {
        uint32_t nc = ts_node_named_child_count(right), n = 0;
        for (uint32_t i = 0; i < nc && n < LOCAL_MAX_LOOP; i++) {
            TSNode v = ts_node_named_child(right, i);
            if (ty(v) == N_COMMENT)
                continue;
            add_local(x, left, LOC_SET, v, at, body);
            n++;
        }
        if (n)
            return;
    }
    add_local(x, left, LOC_OTHER, gx_null(), at, gx_null());
}

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
} local_scan;

static bool local_is(const local_scan *s, const py_local *e)
{
    return e->len == s->len && memcmp(e->name, s->name, s->len) == 0;
}

static void local_push(local_scan *s, uint32_t base, const uint32_t *augs, uint32_t naug)
{
    if (s->n >= s->cap)
        return;
    local_path *p = &s->out[s->n++];
    p->base = base;
    p->naug = naug;
    if (naug)
        memcpy(p->aug, augs, naug * sizeof *augs);
}

/* The paths by which the name's value reaches byte pos (in arms br),
 * looking at entries before end; augs are the `+=` already on the way (in
 * order). */
static void local_paths(local_scan *s, uint32_t end, uint32_t pos, const py_branches *br,
                        const uint32_t *augs, uint32_t naug)
{
    for (uint32_t i = end; i-- > s->lo;) {
        if (!s->budget || s->n >= s->cap)
            return;
        s->budget--;
        const py_local *e = &s->v[i];
        if (!local_is(s, e) || exclusive(&e->br, br))
            continue;
        if (e->kind == LOC_SET) {
            local_push(s, i, augs, naug);
        } else if (e->kind == LOC_AUG && naug < LOCAL_MAX_AUGS) {
            /* What it appends to is whatever reached it. */
            uint32_t more[LOCAL_MAX_AUGS];
            more[0] = i;
            if (naug)
                memcpy(more + 1, augs, naug * sizeof *augs);
            local_paths(s, i, e->stmt, &e->br, more, naug + 1);
        }
        if (e->blk_start <= pos && pos < e->blk_end) {
            /* It runs on every path to pos: nothing before it reaches
             * pos, but the other values of the same statement do. */
            while (i > s->lo && s->v[i - 1].stmt == e->stmt && s->v[i - 1].kind == LOC_SET &&
                   local_is(s, &s->v[i - 1]))
                local_push(s, --i, augs, naug);
            return;
        }
    }
}

/* Does a template hold text besides holes and white space? One that does
 * not would match anything. */
static bool has_text(const char *t)
{
    size_t n = strlen(t);
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '%') {
            size_t d = graph_directive(t + i, n - i);
            if (d == 2 && t[i + 1] == '%')
                return true;
            if (d) {
                i += d - 1;
                continue;
            }
            return true; /* a literal '%' */
        }
        if (!(t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
            return true;
    }
    return false;
}

static bool template_style(graph_style st)
{
    return st == GRAPH_STYLE_PLAIN || st == GRAPH_STYLE_PERCENT || st == GRAPH_STYLE_BRACE ||
           st == GRAPH_STYLE_FSTRING || st == GRAPH_STYLE_CONCAT;
}

/*
 * The message of one path: its value's as if written at the call; with
 * `+=`, the pieces joined as `a + b` joins them (text or a hole each).
 * False when it gives no template with some text. A local that only names
 * a constant (`msg = MSG_FAIL`, `msg = MSG_FAIL % x`) gives none: the
 * constant's readers are followed by the mapping's constant strategy.
 */
static bool local_build(px *x, const local_path *p, bool with_args, const py_scope *sc, int depth,
                        local_msg *out)
{
    const py_local *v = x->locals.v;
    msg_info mi;
    if (!p->naug) {
        mi = build_message(x, v[p->base].value, with_args, sc, depth + 1);
    } else {
        bool literal = false;
        for (uint32_t k = 0; k <= p->naug; k++) {
            const py_local *e = &v[k ? p->aug[k - 1] : p->base];
            TSNode parts[32];
            uint32_t np = 1;
            parts[0] = e->value;
            if (e->self_plus) {
                /* name = name + a + b: the parts after the name. */
                np = plus_parts(e->value, parts, 32, 0, 0);
                if (np < 2) {
                    graph__tmpl_hole(&x->tmpl);
                    continue;
                }
            }
            for (uint32_t i = e->self_plus ? 1 : 0; i < np; i++) {
                size_t len = x->tmpl.buf.len;
                uint32_t holes = x->tmpl.holes;
                msg_info sub = build_message(x, parts[i], with_args, sc, depth + 1);
                if (x->tmpl.buf.len == len && x->tmpl.holes == holes)
                    graph__tmpl_hole(&x->tmpl);
                else
                    literal |= template_style(sub.style);
            }
        }
        mi.style = literal ? GRAPH_STYLE_CONCAT : GRAPH_STYLE_DYNAMIC;
        mi.ref = NULL;
    }
    memset(out, 0, sizeof *out);
    const char *tm = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
    out->style = (uint8_t)mi.style;
    out->tmpl = tm;
    return template_style(mi.style) && tm && has_text(tm);
}

/* A plain name in a function body whose bindings are worth following:
 * not a parameter (a wrapper passes those on), not self/cls, and not an
 * UPPER_CASE constant (looked up as such). */
static bool local_name(px *x, TSNode e, const py_scope *sc)
{
    if (!sc->in_function || is_null(e) || ty(e) != N_IDENTIFIER || param_named(x, sc, e))
        return false;
    if ((sc->self_name && text_eq(x, e, sc->self_name)) ||
        (sc->cls_name && text_eq(x, e, sc->cls_name)))
        return false;
    uint32_t a = ts_node_start_byte(e), b = ts_node_end_byte(e);
    return !graph__const_like(x->src + a, b - a);
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * The messages the local named by id may hold at the call `at`, distinct,
 * nearest binding first, at most cap (and LOCAL_MAX_ALTS); 0 if none is
 * known. with_args: the call passes logging arguments.
 */
static uint32_t local_messages(px *x, TSNode id, TSNode at, bool with_args, const py_scope *sc,
                               int depth, local_msg *out, uint32_t cap)
{
    if (!local_name(x, id, sc) || x->locals.n <= sc->locals_base)
        return 0;
    local_path paths[LOCAL_MAX_ALTS];
    uint32_t a = ts_node_start_byte(id);
    local_scan s = {.v = x->locals.v,
                    .name = x->src + a,
                    .len = ts_node_end_byte(id) - a,
                    .lo = sc->locals_base,
                    .out = paths,
                    .cap = cap < LOCAL_MAX_ALTS ? cap : LOCAL_MAX_ALTS,
                    .budget = LOCAL_BUDGET};
    py_branches br = cur_branches(x);
    local_paths(&s, (uint32_t)x->locals.n, ts_node_start_byte(at), &br, NULL, 0);
    uint32_t n = 0;
    for (uint32_t k = 0; k < s.n; k++) {
        local_msg m;
        if (!local_build(x, &paths[k], with_args, sc, depth, &m))
            continue;
        bool dup = false;
        for (uint32_t j = 0; j < n && !dup; j++)
            dup = same_str(out[j].tmpl, m.tmpl) && out[j].style == m.style;
        if (!dup)
            out[n++] = m;
    }
    return n;
}

/* ---- emit sites ---- */

/* The source text of n after its last '.': "info" for `logging.info`. */
static const char *last_segment(px *x, TSNode n, size_t *len)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    const char *s = x->src + a, *last = s;
    for (size_t i = b - a; i-- > 0;)
        if (s[i] == '.') {
            last = s + i + 1;
            break;
        }
    *len = (size_t)(s + (b - a) - last);
    return last;
}

static graph_level level_from_expr(px *x, TSNode e)
{
    e = unparen(e);
    if (is_null(e))
        return GRAPH_LEVEL_CUSTOM;
    if (ty(e) == N_ATTRIBUTE || ty(e) == N_IDENTIFIER) {
        size_t n;
        const char *s = last_segment(x, e, &n);
        graph_level l = graph__level_of_word(s, n);
        if (l != GRAPH_LEVEL_NONE)
            return l;
    }
    if (ty(e) == N_INTEGER) {
        long v = strtol(x->src + ts_node_start_byte(e), NULL, 10);
        switch (v) {
        case 10:
            return GRAPH_LEVEL_DEBUG;
        case 20:
            return GRAPH_LEVEL_INFO;
        case 30:
            return GRAPH_LEVEL_WARNING;
        case 40:
            return GRAPH_LEVEL_ERROR;
        case 50:
            return GRAPH_LEVEL_CRITICAL;
        default:
            return GRAPH_LEVEL_CUSTOM;
        }
    }
    return GRAPH_LEVEL_CUSTOM;
}

/* The logger name a getLogger-like call names: "__name__" or a literal. */
static const char *logger_name_of_call(px *x, TSNode call)
{
    TSNode args = fieldn(call, F.arguments);
    if (is_null(args))
        return NULL;
    TSNode a0 = ts_node_named_child(args, 0);
    if (is_null(a0))
        return "";
    a0 = unparen(a0);
    if (ty(a0) == N_IDENTIFIER && text_eq(x, a0, "__name__"))
        return "__name__";
    if (ty(a0) == N_STRING)
        return string_value(x, a0);
    return NULL;
}

/* Is this call a logger factory (getLogger(...) and friends)? */
static bool is_logger_factory(px *x, TSNode call, const py_scope *sc)
{
    if (ty(call) != N_CALL)
        return false;
    TSNode fn = fieldn(call, F.function);
    if (is_null(fn))
        return false;
    const char *p = canon(x, path_of(x, fn, sc, 0));
    if (!p)
        return false;
    const char *last = gx_last_component(p);
    return strcmp(last, "getLogger") == 0 || strcmp(last, "get_logger") == 0 ||
           strcmp(last, "getChild") == 0 || strcmp(p, "logging.LoggerAdapter") == 0 ||
           strcmp(last, "LoggerAdapter") == 0;
}

static bool loggerish_path(px *x, const char *recv)
{
    if (find_logger(x, recv))
        return true;
    const char *c = canon(x, recv);
    if (strcmp(c, "logging") == 0 || strcmp(c, "structlog") == 0 || strcmp(c, "loguru.logger") == 0)
        return true;
    return graph__loggerish_path(recv);
}

typedef struct {
    graph_emit_kind kind;
    graph_level level;
    const char *receiver, *method, *logger;
    int msg_index;      /* which positional argument is the message; -1 = all (print) */
    const char *msg_kw; /* keyword that may carry the message instead */
    uint32_t flags;
} emit_plan;

/* Decides whether a call is an emit site, and how to read it. */
static bool plan_emit(px *x, TSNode call, TSNode fn, const char *path, emit_plan *pl,
                      const py_scope *sc)
{
    memset(pl, 0, sizeof *pl);
    pl->msg_index = 0;
    if (path) {
        const char *c = canon(x, path);
        if (strcmp(path, "print") == 0) {
            pl->kind = GRAPH_EMIT_PRINT;
            pl->method = "print";
            pl->receiver = "";
            pl->msg_index = -1;
            return true;
        }
        if (strcmp(c, "warnings.warn") == 0 || strcmp(c, "warnings.warn_explicit") == 0) {
            pl->kind = GRAPH_EMIT_WARN;
            pl->level = GRAPH_LEVEL_WARNING;
            pl->receiver = "warnings";
            pl->method = "warn";
            pl->msg_kw = "message";
            return true;
        }
    }
    const char *method = NULL, *recv = NULL;
    TSNode recv_node; /* set by the one branch that does not return */
    if (ty(fn) == N_ATTRIBUTE) {
        TSNode attr = fieldn(fn, F.attribute);
        if (is_null(attr))
            return false;
        method = text(x, attr);
        recv_node = fieldn(fn, F.object);
        recv =
            path ? core_arena_strndup(&x->f->arena, path, strlen(path) - strlen(method) - 1) : NULL;
    } else if (path && !strchr(path, '.')) {
        /* A bare name: an alias of a logger method (log_fn = logger.debug). */
        const py_logger *lg = find_logger(x, path);
        if (lg && lg->is_alias) {
            pl->kind = GRAPH_EMIT_LOG;
            pl->level = lg->level;
            pl->receiver = path;
            pl->method = lg->method;
            pl->logger = lg->logger;
            pl->flags |= GRAPH_EF_ALIAS;
            return true;
        }
        return false;
    } else {
        return false;
    }
    if (strcmp(method, "start_as_current_span") == 0 || strcmp(method, "start_span") == 0) {
        pl->kind = GRAPH_EMIT_SPAN;
        pl->receiver = recv ? recv : "?";
        pl->method = method;
        pl->msg_kw = "name";
        return true;
    }
    if (strcmp(method, "add_event") == 0) {
        pl->kind = GRAPH_EMIT_EVENT;
        pl->receiver = recv ? recv : "?";
        pl->method = method;
        pl->msg_kw = "name";
        return true;
    }
    graph_level lvl = graph_level_of_method(method, strlen(method));
    bool is_log_method = strcmp(method, "log") == 0;
    if (lvl == GRAPH_LEVEL_NONE && !is_log_method)
        return false;
    bool logger = false;
    const char *lname = NULL;
    if (recv) {
        logger = loggerish_path(x, recv);
        const py_logger *lg = find_logger(x, recv);
        if (lg)
            lname = lg->logger;
        if (!lg && recv[0] == '@') {
            /* self.logger set in another method or a base class: the
             * class-level binding has the same name without @self. */
            const py_logger *cl = find_logger(x, gx_last_component(recv));
            if (cl)
                lname = cl->logger;
        }
    } else if (!is_null(recv_node) && is_logger_factory(x, unparen(recv_node), sc)) {
        /* logging.getLogger(__name__).info(...) */
        logger = true;
        lname = logger_name_of_call(x, unparen(recv_node));
        recv = text(x, recv_node);
    }
    if (!logger)
        return false;
    pl->kind = GRAPH_EMIT_LOG;
    pl->receiver = recv;
    pl->method = method;
    /* logging.info(...) goes to the root logger. */
    pl->logger = !lname && recv && strcmp(canon(x, recv), "logging") == 0 ? "root" : lname;
    if (is_log_method) {
        TSNode args = fieldn(call, F.arguments);
        TSNode a0 = is_null(args) ? args : ts_node_named_child(args, 0);
        pl->level = level_from_expr(x, a0);
        pl->msg_index = 1;
    } else {
        pl->level = lvl;
    }
    if (strcmp(method, "exception") == 0)
        pl->flags |= GRAPH_EF_EXC_INFO;
    pl->msg_kw = "msg";
    return true;
}

/* Whether an argument reads as a message: a string, a %-format, a
 * concatenation with literal parts, "...".format(...). */
static bool message_arg(px *x, TSNode a, int depth)
{
    a = unparen(a);
    if (is_null(a) || depth > 8)
        return false;
    unsigned t = ty(a);
    if (is_stringish(t))
        return true;
    if (t == N_BINARY_OPERATOR) {
        unsigned op = binop(a);
        TSNode l = fieldn(a, F.left), r = fieldn(a, F.right);
        if (op == A_PERCENT)
            return !is_null(l) && is_stringish(ty(unparen(l)));
        if (op == A_PLUS)
            return message_arg(x, l, depth + 1) || message_arg(x, r, depth + 1);
        return false;
    }
    if (t == N_CALL) {
        TSNode fn = fieldn(a, F.function);
        if (!is_null(fn) && ty(fn) == N_ATTRIBUTE) {
            TSNode attr = fieldn(fn, F.attribute), obj = fieldn(fn, F.object);
            return !is_null(attr) && text_eq(x, attr, "format") && !is_null(obj) &&
                   is_stringish(ty(unparen(obj)));
        }
    }
    return false;
}

static bool capwords(const char *s);

/*
 * A call no listed shape recognises: a candidate emit site (GRAPH_EMIT_CALL)
 * when a positional argument reads as a message, the first such one being
 * the message and the arguments after it its format arguments. Whether the
 * callee logs is for the log to say.
 */
static bool plan_candidate(px *x, TSNode call, const char *callee, emit_plan *pl,
                           const py_scope *sc)
{
    memset(pl, 0, sizeof *pl);
    TSNode args = fieldn(call, F.arguments);
    if (!callee || is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return false;
    /* The first argument that reads as a message; else the first that
     * names a constant (CAPS_WITH_UNDERSCORES, as constants are named): a
     * format kept in a constant, logged here (resolved to its text). */
    int32_t idx = -1, ref = -1, pos = 0;
    uint32_t k = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k && i < 64 && idx < 0; i++) {
        TSNode a = ts_node_named_child(args, i);
        unsigned t = ty(a);
        if (t == N_KEYWORD_ARGUMENT || t == N_COMMENT)
            continue;
        if (t == N_LIST_SPLAT || t == N_DICTIONARY_SPLAT)
            break; /* positions unknown from here on */
        if (message_arg(x, a, 0)) {
            idx = pos;
        } else if (ref < 0 && (t == N_IDENTIFIER || t == N_ATTRIBUTE)) {
            const char *p = path_of(x, a, sc, 0);
            const char *l = p ? gx_last_component(p) : NULL;
            if (l && graph__const_like(l, strlen(l)))
                ref = pos;
        }
        pos++;
    }
    if (idx < 0)
        idx = ref;
    if (idx < 0)
        return false;
    pl->kind = GRAPH_EMIT_CALL;
    graph__callee_split(x->f, callee, &pl->receiver, &pl->method);
    pl->msg_index = idx;
    graph__cand_site(&x->cands, callee);
    if (capwords(pl->method))
        pl->flags |= GRAPH_EF_CTOR;
    return true;
}

static void make_emit(px *x, TSNode call, const emit_plan *pl, const py_scope *sc, int depth)
{
    TSNode args = fieldn(call, F.arguments);
    gx_emit em = {0};
    em.kind = (uint8_t)pl->kind;
    em.level = (uint8_t)pl->level;
    em.receiver = pl->receiver;
    em.method = pl->method;
    em.logger = pl->logger;
    em.sym = sc->sym;
    em.line = gx_line(call);
    em.flags = pl->flags | (uint32_t)x->emit_flags;
    /* Positional arguments and the keywords that matter. */
    TSNode pos[64];
    uint32_t npos = 0;
    TSNode kwmsg = gx_null();
    /* By cursor: indexing children one by one is quadratic, and calls
     * with thousands of arguments exist. The cursor at this depth is free:
     * the caller iterates only after this returns. */
    uint32_t npos_all = 0;
    if (!is_null(args)) {
        TSTreeCursor *c = gx_cursor(&x->cur, depth, args);
        bool more = ts_tree_cursor_goto_first_child(c);
        for (; more; more = ts_tree_cursor_goto_next_sibling(c)) {
            TSNode a = ts_tree_cursor_current_node(c);
            if (!ts_node_is_named(a))
                continue;
            unsigned t = ty(a);
            if (t == N_KEYWORD_ARGUMENT) {
                TSNode k = fieldn(a, F.name);
                if (is_null(k))
                    continue;
                if (pl->msg_kw && text_eq(x, k, pl->msg_kw))
                    kwmsg = fieldn(a, F.value);
                if (text_eq(x, k, "exc_info"))
                    em.flags |= GRAPH_EF_EXC_INFO;
                continue;
            }
            if (t == N_COMMENT)
                continue;
            npos_all++;
            if (npos < sizeof pos / sizeof pos[0])
                pos[npos++] = a;
        }
    }
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    if (pl->msg_index < 0) {
        /* print(a, b, ...): the pieces joined by spaces. */
        bool literal = false;
        for (uint32_t i = 0; i < npos; i++) {
            if (i)
                graph__tmpl_literal(&x->tmpl, " ", 1);
            TSNode a = unparen(pos[i]);
            if (is_stringish(ty(a))) {
                msg_info sub = build_message(x, a, false, sc, depth + 1);
                literal = true;
                if (sub.style == GRAPH_STYLE_FSTRING)
                    mi.style = GRAPH_STYLE_FSTRING;
            } else {
                graph__tmpl_hole(&x->tmpl);
            }
        }
        if (mi.style == GRAPH_STYLE_NONE)
            mi.style = !literal    ? (npos ? GRAPH_STYLE_DYNAMIC : GRAPH_STYLE_NONE)
                       : npos == 1 ? GRAPH_STYLE_PLAIN
                                   : GRAPH_STYLE_CONCAT;
        if (!literal)
            core_buf_reset(&x->tmpl.buf);
        em.nargs = npos_all;
        if (npos_all > npos)
            em.flags |= GRAPH_EF_TRUNCATED;
    } else {
        TSNode msg = (uint32_t)pl->msg_index < npos ? pos[pl->msg_index] : kwmsg;
        /* log.log(*adapter(entry)): the level and message come unpacked
         * from a value made at run time. */
        bool unpacked = false;
        for (uint32_t i = 0; i < npos && i <= (uint32_t)pl->msg_index && !unpacked; i++)
            unpacked = ty(pos[i]) == N_LIST_SPLAT;
        if (unpacked) {
            em.style = GRAPH_STYLE_DYNAMIC;
            em.nargs = 0;
            core_vec_push(&x->f->emits, em);
            if (pl->kind == GRAPH_EMIT_LOG)
                graph__mark_logs(x->f, sc->sym, GRAPH_STYLE_DYNAMIC);
            return;
        }
        uint32_t after =
            (uint32_t)pl->msg_index < npos ? npos_all - (uint32_t)pl->msg_index - 1 : 0;
        em.nargs = after;
        bool fmt = (pl->kind == GRAPH_EMIT_LOG || pl->kind == GRAPH_EMIT_CALL) && after > 0;
        /* A message built in a local before the call: one site per
         * message it may hold, all on this line (the matcher takes any).
         * If none is known, the name is kept as a reference, as before. */
        local_msg lm[LOCAL_MAX_ALTS];
        uint32_t nl = is_null(msg) ? 0
                                   : local_messages(x, unparen(msg), call, fmt, sc, depth + 1, lm,
                                                    LOCAL_MAX_ALTS);
        for (uint32_t i = 0; i < nl; i++) {
            gx_emit alt = em;
            alt.style = lm[i].style;
            alt.tmpl = lm[i].tmpl;
            alt.flags |= lm[i].flags;
            core_vec_push(&x->f->emits, alt);
            if (pl->kind == GRAPH_EMIT_LOG)
                graph__mark_logs(x->f, sc->sym, (graph_style)alt.style);
        }
        if (nl)
            return;
        if (!is_null(msg))
            mi = build_message(x, msg, fmt, sc, depth + 1);
    }
    em.style = (uint8_t)mi.style;
    em.ref = mi.ref;
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    core_vec_push(&x->f->emits, em);
    if (pl->kind == GRAPH_EMIT_LOG)
        graph__mark_logs(x->f, sc->sym, mi.style);
}

/* ---- references from expressions ---- */

static bool is_dotted_name(const char *v)
{
    return strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
               strlen(v) &&
           v[0] != '.' && !(v[0] >= '0' && v[0] <= '9');
}

/* Type annotation -> TYPE refs for every name in it. */
static void type_refs(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (is_null(n) || depth > GX_MAX_DEPTH)
        return;
    unsigned t = ty(n);
    if (t == N_IDENTIFIER || t == N_ATTRIBUTE) {
        add_ref(x, GX_REF_TYPE, path_of(x, n, sc, 0), sc->sym, n);
        return;
    }
    if (t == N_STRING) {
        /* A forward reference: "Foo" or "pkg.Foo". */
        const char *v = string_value(x, n);
        if (v && *v && is_dotted_name(v))
            add_ref(x, GX_REF_TYPE, v, sc->sym, n);
        return;
    }
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch))
                type_refs(x, ch, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
}

/* The class a type annotation names, unwrapping Optional[X] and X | None. */
static const char *annotation_class(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (is_null(n) || depth > 16)
        return NULL;
    switch (ty(n)) {
    case N_TYPE:
    case N_TYPE_PARAMETER: {
        TSNode inner = ts_node_named_child(n, 0);
        return annotation_class(x, inner, sc, depth + 1);
    }
    case N_IDENTIFIER:
    case N_ATTRIBUTE:
        return path_of(x, n, sc, 0);
    case N_STRING: {
        /* A forward reference names a class only if it is a dotted name
         * ("Order", "models.Order"; not "list[Order]"). */
        const char *v = string_value(x, n);
        return v && *v && is_dotted_name(v) ? v : NULL;
    }
    case N_GENERIC_TYPE: {
        TSNode head = ts_node_named_child(n, 0);
        if (!is_null(head) && (text_eq(x, head, "Optional") || text_eq(x, head, "typing.Optional")))
            return annotation_class(x, ts_node_named_child(n, 1), sc, depth + 1);
        return NULL;
    }
    case N_UNION_TYPE:
    case N_BINARY_OPERATOR: {
        /* X | None */
        TSNode l = ts_node_named_child(n, 0), r = ts_node_named_child(n, 1);
        if (!is_null(r) && text_eq(x, r, "None"))
            return annotation_class(x, l, sc, depth + 1);
        if (!is_null(l) && text_eq(x, l, "None"))
            return annotation_class(x, r, sc, depth + 1);
        return NULL;
    }
    default:
        return NULL;
    }
}

/* A value passed to a call or assigned: a name or attribute path is a
 * READ reference (callbacks, constants); anything else is walked. */
static void value_ref(px *x, TSNode v, const py_scope *sc, int depth)
{
    if (is_null(v))
        return;
    unsigned t = ty(v);
    if (t == N_IDENTIFIER) {
        add_ref(x, GX_REF_READ, path_of(x, v, sc, 0), sc->sym, v);
        return;
    }
    walk(x, v, sc, depth);
}

/* ---- calls that may reach a logging wrapper ---- */

/* Class-like CapWords ("ValueError", "Path"): calls to them construct
 * something and are never wrappers worth recording. */
static bool capwords(const char *s)
{
    if (!(s[0] >= 'A' && s[0] <= 'Z'))
        return false;
    for (const char *p = s + 1; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            return true;
    return false;
}

/* The template of parts [a, b) of a concatenation: literal pieces in
 * order, anything else a hole; NULL if empty. */
static const char *parts_template(px *x, const TSNode *parts, uint32_t a, uint32_t b,
                                  bool with_args, uint32_t *flags, const py_scope *sc, int depth)
{
    for (uint32_t i = a; i < b; i++) {
        if (is_stringish(ty(parts[i])))
            build_message(x, parts[i], with_args, sc, depth + 1);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    return graph__tmpl_take(&x->tmpl, x->f, flags);
}

/* ---- messages that pass on a parameter with text around it ----
 *
 * A logging call whose message is one parameter of the enclosing function
 * with text around it logs on behalf of the callers (see gx_arg): the
 * text before and after the parameter becomes their pre and post
 * templates. Besides `+` (any call), a logging call's message may put the
 * parameter in an f-string (`f"[{self.name}] {msg}"`), a %-format (`"[%s]
 * %s" % (self.name, msg)`) or a .format (`"{}: {}".format(p, msg)`), or
 * be a local bound once to one of these. Each must hold exactly one
 * parameter, used whole: `{msg!r}`, `%d` or `{0:>10}` changes what the
 * caller's text looks like, and a parameter that is only one argument of
 * a format written elsewhere is no message. And the parameter must be
 * named like a message (message_like()). When unsure, none: a false
 * wrapper drops its own template and adds wrong sites at its callers.
 */

/* A parameter a call can pass a message in (not self, not *args). */
static const py_param *fwd_param(px *x, const py_scope *sc, TSNode e)
{
    const py_param *p = param_named(x, sc, unparen(e));
    return p && !p->varargs && (p->pos >= 0 || p->kw) ? p : NULL;
}

/*
 * Is a parameter named like a message ("msg", "message", "err_msg",
 * "text", "fmt")? A format that puts any other parameter into its text
 * (`f"Changing event name from {event_name} to {new_name}"`, "Creating
 * %s" % path) logs a value, not its callers' message. Without this, all
 * the new wrappers found in the Debian Python packages were of that kind:
 * botocore's event aliaser alone gave every caller of emit() a site.
 */
static bool message_like(const char *name)
{
    char w[64];
    size_t n = strlen(name);
    if (n >= sizeof w)
        return false;
    for (size_t i = 0; i <= n; i++)
        w[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    if (strstr(w, "msg") || strstr(w, "message"))
        return true;
    static const char *const words[] = {"text", "fmt"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t wl = strlen(words[k]);
        for (const char *at = strstr(w, words[k]); at; at = strstr(at + 1, words[k]))
            if ((at == w || at[-1] == '_') && (at[wl] == 0 || at[wl] == '_'))
                return true;
    }
    return false;
}

static void set_fwd(gx_arg *out, const py_param *p)
{
    out->fwd = true;
    out->fwd_pos = p->pos;
    out->fwd_kw = p->kw ? p->name : NULL;
}

/* set_fwd with the text around the parameter: pre, and what the template
 * being built holds after it (taken as post). */
static void set_fwd_around(px *x, gx_arg *out, const py_param *p, const char *pre, uint32_t flags)
{
    set_fwd(out, p);
    out->pre = pre;
    out->post = graph__tmpl_take(&x->tmpl, x->f, &flags);
    out->flags |= flags;
}

/* "[chan " + name + "] " + msg. */
static bool plus_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc, int depth)
{
    if (ty(e) != N_BINARY_OPERATOR || binop(e) != A_PLUS || !sc->nparams)
        return false;
    TSNode parts[32];
    uint32_t np = plus_parts(e, parts, 32, 0, 0), at = UINT32_MAX;
    const py_param *p = NULL;
    for (uint32_t i = 0; i < np; i++) {
        const py_param *q = fwd_param(x, sc, parts[i]);
        if (!q)
            continue;
        if (p)
            return false; /* two parameters: no single message */
        p = q;
        at = i;
    }
    if (!p)
        return false;
    set_fwd(out, p);
    out->pre = parts_template(x, parts, 0, at, with_args, &out->flags, sc, depth);
    out->post = parts_template(x, parts, at + 1, np, with_args, &out->flags, sc, depth);
    return true;
}

/* The string literals of s (one, or the parts of an implicit
 * concatenation); 0 if there are too many. */
static uint32_t string_parts(TSNode s, TSNode *out, uint32_t cap)
{
    if (ty(s) == N_STRING) {
        out[0] = s;
        return 1;
    }
    uint32_t n = 0, nc = ts_node_named_child_count(s);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode part = ts_node_named_child(s, i);
        if (ty(part) != N_STRING)
            continue;
        if (n >= cap)
            return 0;
        out[n++] = part;
    }
    return n;
}

/* f"[{self.name}] {msg}": the parameter a replacement field of its own,
 * without conversion, format spec or `=`. */
static bool fstring_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    TSNode strs[32];
    uint32_t ns = string_parts(e, strs, 32);
    const py_param *p = NULL;
    TSNode at = gx_null();
    bool any_f = false;
    for (uint32_t k = 0; k < ns; k++) {
        any_f |= string_prefix(x, strs[k]).f;
        uint32_t nc = ts_node_child_count(strs[k]);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode ch = ts_node_child(strs[k], i);
            if (ty(ch) != N_INTERPOLATION)
                continue;
            const py_param *q = fwd_param(x, sc, ts_node_named_child(ch, 0));
            if (!q)
                continue;
            if (p)
                return false;
            p = q;
            at = ch;
        }
    }
    /* `{`, the name, `}`: anything more changes the caller's text. */
    if (!p || !any_f || ts_node_child_count(at) != 3 || !message_like(p->name))
        return false;
    const char *pre = NULL;
    uint32_t flags = 0;
    for (uint32_t k = 0; k < ns; k++)
        tmpl_string_at(x, strs[k], with_args ? SM_FORMAT : SM_LITERAL, at, &pre, &flags);
    set_fwd_around(x, out, p, pre, flags);
    return true;
}

/* The decoded text of the plain (no f-string) literal s into b; false if
 * it is not one. */
static bool plain_text(px *x, TSNode s, core_buf *b)
{
    TSNode strs[32];
    uint32_t ns = string_parts(s, strs, 32);
    for (uint32_t k = 0; k < ns; k++) {
        str_prefix pre = string_prefix(x, strs[k]);
        if (!pre.ok || pre.f)
            return false;
        uint32_t nc = ts_node_child_count(strs[k]);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode ch = ts_node_child(strs[k], i);
            if (ty(ch) == N_STRING_CONTENT)
                put_content(x, b, ch, pre.raw);
        }
    }
    return ns > 0;
}

/* Length of the %-directive at s[0] == '%' ("%%" is 2); 0 if it is none
 * or takes more than one value (`*` widths) or a mapping key. */
static size_t percent_directive(const char *s, size_t n)
{
    size_t d = graph_directive(s, n);
    if (d < 2 || s[1] == '(' || memchr(s, '*', d))
        return 0;
    return d;
}

/*
 * Goes over a %-format of nvals values whose value k is the message: its
 * directive must be a bare %s. With build, the text before it is taken
 * into *pre and the rest left in x->tmpl (literal text, the other
 * directives holes). False if the format is not of that shape.
 */
static bool percent_scan(px *x, const char *s, size_t n, uint32_t nvals, uint32_t k, bool build,
                         const char **pre, uint32_t *flags)
{
    uint32_t d = 0;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%')
            continue;
        size_t len = percent_directive(s + i, n - i);
        if (!len)
            return false;
        if (build)
            graph__tmpl_literal(&x->tmpl, s + run, i - run + (len == 2 && s[i + 1] == '%'));
        run = i + len;
        if (len == 2 && s[i + 1] == '%') {
            i++;
            continue;
        }
        if (d == k && !(len == 2 && s[i + 1] == 's'))
            return false;
        if (build) {
            if (d == k)
                *pre = graph__tmpl_take(&x->tmpl, x->f, flags);
            else
                graph__tmpl_hole(&x->tmpl);
        }
        d++;
        i += len - 1;
    }
    if (build)
        graph__tmpl_literal(&x->tmpl, s + run, n - run);
    return d == nvals;
}

/* "[%s] %s" % (self.name, msg), or "[x] %s" % msg. */
static bool percent_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    if (ty(e) != N_BINARY_OPERATOR || binop(e) != A_PERCENT)
        return false;
    TSNode l = unparen(fieldn(e, F.left)), r = unparen(fieldn(e, F.right));
    if (is_null(l) || is_null(r) || !is_stringish(ty(l)))
        return false;
    TSNode vals[32];
    uint32_t nv = 0;
    if (ty(r) == N_TUPLE) {
        uint32_t nc = ts_node_named_child_count(r);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode v = ts_node_named_child(r, i);
            if (ty(v) == N_COMMENT)
                continue;
            if (ty(v) == N_LIST_SPLAT || nv >= 32)
                return false;
            vals[nv++] = v;
        }
    } else {
        vals[nv++] = r;
    }
    const py_param *p = NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nv; i++) {
        const py_param *q = fwd_param(x, sc, vals[i]);
        if (!q)
            continue;
        if (p)
            return false;
        p = q;
        k = i;
    }
    if (!p || !message_like(p->name))
        return false;
    core_buf b = {0};
    bool ok = plain_text(x, l, &b);
    const char *s = b.data ? b.data : "";
    /* Logging's own arguments would %-format the result again: a "%%"
     * there is no longer literal text. */
    for (size_t i = 0; ok && with_args && i + 1 < b.len; i++)
        ok = !(s[i] == '%' && s[i + 1] == '%');
    ok = ok && percent_scan(x, s, b.len, nv, k, false, NULL, NULL);
    if (ok) {
        const char *pre = NULL;
        uint32_t flags = 0;
        percent_scan(x, s, b.len, nv, k, true, &pre, &flags);
        set_fwd_around(x, out, p, pre, flags);
    }
    core_buf_free(&b);
    return ok;
}

/*
 * Goes over a str.format template whose argument at position k (or
 * keyword kw) is the message: it must be named by exactly one field, with
 * no attribute, index, conversion or spec. With build, as percent_scan().
 */
static bool brace_scan(px *x, const char *s, size_t n, uint32_t k, const char *kw, bool build,
                       const char **pre, uint32_t *flags)
{
    uint32_t next = 0, found = 0;
    bool autonum = false, manual = false;
    size_t i = 0, run = 0;
    while (i < n) {
        char c = s[i];
        if ((c == '{' || c == '}') && i + 1 < n && s[i + 1] == c) {
            if (build)
                graph__tmpl_literal(&x->tmpl, s + run, i + 1 - run);
            i += 2;
            run = i;
            continue;
        }
        if (c == '}')
            return false; /* a lone '}' */
        if (c != '{') {
            i++;
            continue;
        }
        size_t j = i + 1;
        for (int depth = 1; j < n; j++) {
            if (s[j] == '{')
                depth++;
            else if (s[j] == '}' && --depth == 0)
                break;
        }
        if (j >= n)
            return false;
        const char *f = s + i + 1;
        size_t flen = j - i - 1, nlen = strcspn(f, ".[!:}");
        bool digits = nlen > 0;
        uint32_t idx = 0;
        for (size_t q = 0; q < nlen && digits; q++) {
            digits = f[q] >= '0' && f[q] <= '9' && idx < 100000;
            idx = idx * 10 + (uint32_t)(f[q] - '0');
        }
        bool is_msg;
        if (nlen == 0) {
            autonum = true;
            is_msg = !kw && next++ == k;
        } else if (digits) {
            manual = true;
            is_msg = !kw && idx == k;
        } else {
            is_msg = kw && strlen(kw) == nlen && memcmp(kw, f, nlen) == 0;
        }
        if (autonum && manual)
            return false;
        if (is_msg && (flen != nlen || found++))
            return false;
        if (build) {
            graph__tmpl_literal(&x->tmpl, s + run, i - run);
            if (is_msg)
                *pre = graph__tmpl_take(&x->tmpl, x->f, flags);
            else
                graph__tmpl_hole(&x->tmpl);
        }
        i = j + 1;
        run = i;
    }
    if (build)
        graph__tmpl_literal(&x->tmpl, s + run, n - run);
    return found == 1;
}

/* "{}: {}".format(self.prefix, msg), "{0}".format(msg), "{m}".format(m=msg). */
static bool brace_fwd(px *x, TSNode e, gx_arg *out, const py_scope *sc)
{
    if (ty(e) != N_CALL)
        return false;
    TSNode fn = fieldn(e, F.function), args = fieldn(e, F.arguments);
    if (is_null(fn) || is_null(args) || ty(fn) != N_ATTRIBUTE || ty(args) != N_ARGUMENT_LIST)
        return false;
    TSNode obj = unparen(fieldn(fn, F.object)), attr = fieldn(fn, F.attribute);
    if (is_null(obj) || is_null(attr) || !text_eq(x, attr, "format") || !is_stringish(ty(obj)))
        return false;
    const py_param *p = NULL;
    const char *kw = NULL;
    uint32_t k = 0, pos = 0, nc = ts_node_named_child_count(args);
    if (nc > 64)
        return false;
    for (uint32_t i = 0; i < nc; i++) {
        TSNode a = ts_node_named_child(args, i);
        unsigned t = ty(a);
        if (t == N_COMMENT)
            continue;
        if (t == N_LIST_SPLAT || t == N_DICTIONARY_SPLAT)
            return false;
        TSNode v = t == N_KEYWORD_ARGUMENT ? fieldn(a, F.value) : a;
        TSNode name = t == N_KEYWORD_ARGUMENT ? fieldn(a, F.name) : gx_null();
        if (t == N_KEYWORD_ARGUMENT && (is_null(v) || is_null(name)))
            return false;
        const py_param *q = fwd_param(x, sc, v);
        if (q) {
            if (p)
                return false;
            p = q;
            k = pos;
            kw = t == N_KEYWORD_ARGUMENT ? text(x, name) : NULL;
        }
        if (t != N_KEYWORD_ARGUMENT)
            pos++;
    }
    if (!p || !message_like(p->name))
        return false;
    core_buf b = {0};
    bool ok = plain_text(x, obj, &b);
    const char *s = b.data ? b.data : "";
    ok = ok && brace_scan(x, s, b.len, k, kw, false, NULL, NULL);
    if (ok) {
        const char *pre = NULL;
        uint32_t flags = 0;
        brace_scan(x, s, b.len, k, kw, true, &pre, &flags);
        set_fwd_around(x, out, p, pre, flags);
    }
    core_buf_free(&b);
    return ok;
}

/* The formatted shapes above, for the expression e itself. */
static bool format_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    switch (ty(e)) {
    case N_STRING:
    case N_CONCATENATED_STRING:
        return fstring_fwd(x, e, with_args, out, sc);
    case N_BINARY_OPERATOR:
        return percent_fwd(x, e, with_args, out, sc);
    case N_CALL:
        return brace_fwd(x, e, out, sc);
    default:
        return false;
    }
}

/*
 * The message a logging call (at) passes, when it passes on a parameter
 * in one of the shapes above, or a local whose only binding that reaches
 * the call is one of them or a `+` chain (`text = "[x] " + msg`). The `+`
 * chain written at the call is classify_arg()'s.
 */
static bool message_fwd(px *x, TSNode a, TSNode at, bool with_args, gx_arg *out, const py_scope *sc,
                        int depth)
{
    TSNode e = unparen(a);
    if (is_null(e) || !sc->nparams || depth > GX_MAX_DEPTH)
        return false;
    if (ty(e) != N_IDENTIFIER)
        return format_fwd(x, e, with_args, out, sc);
    if (!local_name(x, e, sc) || x->locals.n <= sc->locals_base)
        return false;
    local_path paths[2];
    uint32_t n0 = ts_node_start_byte(e);
    local_scan s = {.v = x->locals.v,
                    .name = x->src + n0,
                    .len = ts_node_end_byte(e) - n0,
                    .lo = sc->locals_base,
                    .out = paths,
                    .cap = 2,
                    .budget = LOCAL_BUDGET};
    py_branches br = cur_branches(x);
    local_paths(&s, (uint32_t)x->locals.n, ts_node_start_byte(at), &br, NULL, 0);
    /* One binding, no `+=` after it, and every other one looked at. */
    if (s.n != 1 || paths[0].naug || !s.budget)
        return false;
    TSNode v = unparen(x->locals.v[paths[0].base].value);
    if (is_null(v))
        return false;
    return plus_fwd(x, v, with_args, out, sc, depth) || format_fwd(x, v, with_args, out, sc);
}

/*
 * What one argument of a call would give a wrapper as its message (or
 * level). out->pos, kw, nafter and splat are set by the caller. Returns
 * false when the argument is of no interest.
 */
static bool classify_arg(px *x, TSNode a, gx_arg *out, const py_scope *sc, int depth)
{
    TSNode e = unparen(a);
    if (is_null(e))
        return false;
    unsigned t = ty(e);
    out->fwd_pos = -1;
    if (out->splat) {
        /* *args passed on: the enclosing function's own *args. */
        const py_param *p = param_named(x, sc, unparen(ts_node_named_child(e, 0)));
        if (!p || !p->varargs || p->pos < 0)
            return false;
        out->fwd = true;
        out->fwd_pos = p->pos;
        return true;
    }
    if (t == N_IDENTIFIER || t == N_ATTRIBUTE) {
        size_t n;
        const char *s = last_segment(x, e, &n);
        if (graph__const_like(s, n)) {
            graph_level lvl = graph__level_of_word(s, n);
            if (lvl != GRAPH_LEVEL_NONE) {
                out->level = (uint8_t)lvl;
                return true;
            }
        }
        const py_param *p = t == N_IDENTIFIER ? param_named(x, sc, e) : NULL;
        if (p) {
            if (p->varargs || (p->pos < 0 && !p->kw))
                return false;
            out->fwd = true;
            out->fwd_pos = p->pos;
            out->fwd_kw = p->kw ? p->name : NULL;
            return true;
        }
        if (graph__const_like(s, n)) {
            out->ref = path_of(x, e, sc, 0);
            out->style = GRAPH_STYLE_REF;
            return out->ref != NULL;
        }
        return false;
    }
    bool with_args = out->nafter > 0;
    /* "[chan " + name + "] " + msg: a parameter passed on with text
     * around it. */
    if (plus_fwd(x, e, with_args, out, sc, depth))
        return true;
    if (!(is_stringish(t) || t == N_BINARY_OPERATOR || t == N_CALL || t == N_SUBSCRIPT))
        return false;
    msg_info mi = build_message(x, e, with_args, sc, depth + 1);
    uint32_t flags = 0;
    const char *tm = graph__tmpl_take(&x->tmpl, x->f, &flags);
    switch (mi.style) {
    case GRAPH_STYLE_PLAIN:
    case GRAPH_STYLE_PERCENT:
    case GRAPH_STYLE_BRACE:
    case GRAPH_STYLE_FSTRING:
    case GRAPH_STYLE_CONCAT:
        if (!tm)
            return false;
        out->tmpl = tm;
        out->style = (uint8_t)mi.style;
        out->flags |= flags;
        return true;
    case GRAPH_STYLE_REF:
        /* "..." % NAME or MESSAGES["key"]: the constant holds it. */
        if (!mi.ref ||
            !graph__const_like(gx_last_component(mi.ref), strcspn(gx_last_component(mi.ref), "[")))
            return false;
        out->ref = mi.ref;
        out->style = GRAPH_STYLE_REF;
        return true;
    default:
        return false;
    }
}

#define MAX_CALL_ARGS 32

/*
 * Records a call that may reach a logging wrapper (see gx_call). `emit`
 * is the index of the emit the call made (pl its plan), or -1: a logging
 * call is recorded only when its message passes on a parameter, which is
 * what makes the enclosing function a wrapper.
 */
static void record_call(px *x, TSNode call, const char *callee, const emit_plan *pl, int32_t emit,
                        const py_scope *sc, int depth)
{
    if (!callee || strcmp(callee, "@super") == 0)
        return;
    if (emit >= 0 && (pl->kind != GRAPH_EMIT_LOG || pl->msg_index < 0 || !sc->nparams))
        return;
    if (emit < 0 && capwords(gx_last_component(callee)))
        return;
    TSNode args = fieldn(call, F.arguments);
    if (is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return;
    TSNode nodes[MAX_CALL_ARGS];
    gx_arg meta[MAX_CALL_ARGS];
    uint32_t n = 0, pos = 0, npositional = 0;
    bool after_splat = false;
    TSTreeCursor *c = gx_cursor(&x->cur, depth, args);
    bool more = ts_tree_cursor_goto_first_child(c);
    for (; more && n < MAX_CALL_ARGS; more = ts_tree_cursor_goto_next_sibling(c)) {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(a) == N_COMMENT || ty(a) == N_DICTIONARY_SPLAT)
            continue;
        gx_arg m;
        memset(&m, 0, sizeof m);
        if (ty(a) == N_KEYWORD_ARGUMENT) {
            TSNode k = fieldn(a, F.name), v = fieldn(a, F.value);
            if (is_null(k) || is_null(v))
                continue;
            m.kw = text(x, k);
            m.pos = UINT32_MAX;
            a = v;
        } else {
            m.splat = ty(a) == N_LIST_SPLAT;
            m.pos = after_splat ? UINT32_MAX : pos;
            pos++;
            npositional++;
            after_splat |= m.splat;
            /* nafter is filled in below, once the count is known. */
            m.nafter = npositional;
        }
        nodes[n] = a;
        meta[n++] = m;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!meta[i].kw)
            meta[i].nafter = npositional - meta[i].nafter;

    size_t first = x->f->args.n;
    gx_call rc = {.callee = callee,
                  .from = sc->sym,
                  .emit = emit,
                  .msg_arg = -1,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)first};
    bool useful = false;
    /* A local that may hold several messages (see local_messages()): the
     * call is recorded once per message, with everything else the same.
     * Only the first such argument varies; later ones take their nearest
     * binding's message. */
    gx_arg alts[LOCAL_MAX_ALTS];
    uint32_t nalts = 0;
    int32_t alt_at = -1;
    for (uint32_t i = 0; i < n; i++) {
        gx_arg *m = &meta[i];
        bool is_msg = false, is_level = false;
        if (emit >= 0) {
            /* Only the message and, for logger.log(level, msg), the level. */
            is_msg = m->kw ? pl->msg_kw && strcmp(m->kw, pl->msg_kw) == 0
                           : m->pos == (uint32_t)pl->msg_index && !m->splat;
            is_level = pl->msg_index == 1 && !m->kw && m->pos == 0 && !m->splat;
            if (!is_msg && !is_level)
                continue;
        }
        local_msg lm[LOCAL_MAX_ALTS];
        uint32_t nl = emit < 0 && !m->splat
                          ? local_messages(x, unparen(nodes[i]), call, m->nafter > 0, sc, depth + 1,
                                           lm, alt_at < 0 ? LOCAL_MAX_ALTS : 1)
                          : 0;
        if (nl) {
            gx_arg plain = *m;
            for (uint32_t k = 0; k < nl; k++) {
                gx_arg *o = k ? &alts[k] : m;
                *o = plain;
                o->tmpl = lm[k].tmpl;
                o->style = lm[k].style;
                o->flags |= lm[k].flags;
            }
            if (nl > 1) {
                alt_at = (int32_t)(x->f->args.n - first);
                nalts = nl;
            }
        } else if (!(is_msg && message_fwd(x, nodes[i], call, m->nafter > 0, m, sc, depth + 1)) &&
                   !classify_arg(x, nodes[i], m, sc, depth + 1)) {
            continue;
        }
        if (emit >= 0) {
            if (is_msg && !m->fwd)
                continue;
            if (is_msg)
                rc.msg_arg = (int32_t)(x->f->args.n - first);
            else
                rc.level_arg = (int32_t)(x->f->args.n - first);
        }
        useful |= m->tmpl || m->ref || m->fwd;
        core_vec_push(&x->f->args, *m);
    }
    if (emit >= 0)
        useful = rc.msg_arg >= 0;
    if (!useful) {
        x->f->args.n = first;
        return;
    }
    rc.nargs = (uint32_t)(x->f->args.n - first);
    core_vec_push(&x->f->calls, rc);
    for (uint32_t k = 1; k < nalts; k++) {
        gx_call alt = rc;
        alt.arg0 = (uint32_t)x->f->args.n;
        for (uint32_t i = 0; i < rc.nargs; i++) {
            gx_arg a = (int32_t)i == alt_at ? alts[k] : x->f->args.v[rc.arg0 + i];
            core_vec_push(&x->f->args, a);
        }
        core_vec_push(&x->f->calls, alt);
    }
}

static void do_call(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode fn = fieldn(n, F.function), args = fieldn(n, F.arguments);
    if (is_null(fn))
        return;
    const char *path = path_of(x, fn, sc, 0);
    const char *callee = path;
    if (!callee && ty(fn) == N_ATTRIBUTE)
        callee = unknown_member(x, fn);
    if (callee && strcmp(callee, "@super") != 0)
        add_ref(x, GX_REF_CALL, callee, sc->sym, n);
    graph__note_effect(x->f, sc->sym, x->src, n, fn);

    emit_plan pl;
    if (plan_emit(x, n, fn, path, &pl, sc)) {
        make_emit(x, n, &pl, sc, depth);
        record_call(x, n, callee, &pl, (int32_t)x->f->emits.n - 1, sc, depth);
    } else {
        if (plan_candidate(x, n, callee, &pl, sc))
            make_emit(x, n, &pl, sc, depth);
        else if (!is_null(args) && ts_node_named_child_count(args) > 0)
            graph__cand_pending(&x->cands, x->f, callee, sc->sym, gx_line(n));
        record_call(x, n, callee, NULL, -1, sc, depth);
    }

    /* isinstance(x, Cls) / isinstance(x, (A, B)) */
    if (path && (strcmp(path, "isinstance") == 0 || strcmp(path, "issubclass") == 0) &&
        !is_null(args)) {
        TSNode cls = unparen(ts_node_named_child(args, 1));
        if (!is_null(cls)) {
            if (ty(cls) == N_TUPLE) {
                uint32_t k = ts_node_named_child_count(cls);
                for (uint32_t i = 0; i < k; i++)
                    add_ref(x, GX_REF_TYPE, path_of(x, ts_node_named_child(cls, i), sc, 0), sc->sym,
                            cls);
            } else {
                add_ref(x, GX_REF_TYPE, path_of(x, cls, sc, 0), sc->sym, cls);
            }
        }
    }

    /* The receiver, when it is more than a name chain: f(x).g() walks f(x). */
    if (!path) {
        if (ty(fn) == N_ATTRIBUTE) {
            TSNode obj = fieldn(fn, F.object);
            if (!is_null(obj))
                walk(x, obj, sc, depth + 1);
        } else {
            walk(x, fn, sc, depth + 1);
        }
    }
    if (is_null(args))
        return;
    TSTreeCursor *c = gx_cursor(&x->cur, depth, args);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode a = ts_tree_cursor_current_node(c);
            if (!ts_node_is_named(a))
                continue;
            if (ty(a) == N_KEYWORD_ARGUMENT)
                value_ref(x, fieldn(a, F.value), sc, depth + 1);
            else
                value_ref(x, a, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
}

/* ---- imports ---- */

static void add_import(px *x, gx_import_kind kind, const char *module, const char *name,
                       const char *alias, const py_scope *sc, TSNode at)
{
    gx_import im = {.module = module,
                    .name = name,
                    .alias = alias,
                    .scope = sc->sym,
                    .line = gx_line(at),
                    .kind = (uint8_t)kind};
    core_vec_push(&x->f->imports, im);
    /* Names the emit detector needs to see through. */
    const char *local = alias;
    const char *full = NULL;
    if (kind == GX_IMP_MODULE) {
        if (alias)
            full = module;
    } else if (kind == GX_IMP_NAME && module[0] != '.') {
        full = graph__path_join(x->f, module, name, strlen(name));
    }
    if (local && full) {
        py_alias a = {local, full};
        core_vec_push(&x->aliases, a);
    }
}

static void do_import(px *x, TSNode n, const py_scope *sc, int depth)
{
    unsigned t = ty(n);
    if (t == N_IMPORT_STATEMENT) {
        TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
        if (!ts_tree_cursor_goto_first_child(c))
            return;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ty(ch) == N_DOTTED_NAME) {
                add_import(x, GX_IMP_MODULE, text(x, ch), NULL, NULL, sc, n);
            } else if (ty(ch) == N_ALIASED_IMPORT) {
                TSNode nm = fieldn(ch, F.name), al = fieldn(ch, F.alias);
                if (!is_null(nm) && !is_null(al))
                    add_import(x, GX_IMP_MODULE, text(x, nm), NULL, text(x, al), sc, n);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    /* from MODULE import a, b as c / * */
    TSNode mod = fieldn(n, F.module_name);
    if (is_null(mod))
        return;
    /* ".", "..", ".pkg.mod": dots give the level. */
    const char *module = ty(mod) == N_RELATIVE_IMPORT
                             ? graph__text_squeeze(x->f, x->src, mod, " \t\\\n")
                             : text(x, mod);
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        TSFieldId fid = ts_tree_cursor_current_field_id(c);
        if (fid == F.module_name)
            continue;
        if (ty(ch) == N_WILDCARD_IMPORT) {
            add_import(x, GX_IMP_STAR, module, "*", NULL, sc, n);
        } else if (ty(ch) == N_DOTTED_NAME) {
            const char *nm = text(x, ch);
            add_import(x, GX_IMP_NAME, module, nm, nm, sc, n);
        } else if (ty(ch) == N_ALIASED_IMPORT) {
            TSNode nm = fieldn(ch, F.name), al = fieldn(ch, F.alias);
            if (!is_null(nm) && !is_null(al))
                add_import(x, GX_IMP_NAME, module, text(x, nm), text(x, al), sc, n);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* ---- assignments ---- */

static void add_const(px *x, const char *name, TSNode value, const py_scope *sc, int depth)
{
    /* A constant's use is not known here; most are formats for logging
     * or str.format. %-directives are kept as holes, and a string with
     * {fields} and no directive is read as a str.format template. */
    TSNode v = unparen(value);
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.name = name;
    em.sym = sc->sym;
    em.line = gx_line(value);
    em.receiver = "";
    em.method = "";
    if (ty(v) == N_STRING || ty(v) == N_CONCATENATED_STRING) {
        build_message(x, v, true, sc, depth + 1);
        const char *t = x->tmpl.buf.data ? x->tmpl.buf.data : "";
        if (x->tmpl.holes == 0 && strchr(t, '{') && strchr(t, '}')) {
            graph__tmpl_clear(&x->tmpl);
            tmpl_strings(x, v, SM_BRACE);
            em.style = x->tmpl.holes ? GRAPH_STYLE_BRACE : GRAPH_STYLE_PLAIN;
        } else {
            em.style = x->tmpl.holes ? GRAPH_STYLE_PERCENT : GRAPH_STYLE_PLAIN;
        }
    } else {
        msg_info mi = build_message(x, v, false, sc, depth + 1);
        em.style = (uint8_t)mi.style;
        if (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF) {
            graph__tmpl_clear(&x->tmpl);
            return;
        }
    }
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    if (em.tmpl)
        core_vec_push(&x->f->emits, em);
}

static bool is_dunder(const char *s)
{
    size_t n = strlen(s);
    return n > 4 && s[0] == '_' && s[1] == '_' && s[n - 1] == '_' && s[n - 2] == '_';
}

/* What a right-hand side makes of the name it is bound to. */
static void bind_target(px *x, const char *name, TSNode right, const py_scope *sc, int32_t scope,
                        TSNode at)
{
    TSNode r = unparen(right);
    unsigned rt = is_null(r) ? 0 : ty(r);
    if (rt == N_CALL) {
        TSNode fn = fieldn(r, F.function);
        const char *p = is_null(fn) ? NULL : path_of(x, fn, sc, 0);
        if (is_logger_factory(x, r, sc)) {
            py_logger lg = {.key = name, .logger = logger_name_of_call(x, r)};
            core_vec_push(&x->loggers, lg);
        }
        add_bind(x, p ? GX_BIND_CALL : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    if (rt == N_IDENTIFIER || rt == N_ATTRIBUTE) {
        const char *p = path_of(x, r, sc, 0);
        if (p && rt == N_ATTRIBUTE) {
            /* log_fn = logger.debug: calls to log_fn log. */
            const char *dot = strrchr(p, '.');
            graph_level lvl = graph_level_of_method(dot + 1, strlen(dot + 1));
            if (lvl != GRAPH_LEVEL_NONE) {
                char *recv = core_arena_strndup(&x->f->arena, p, (size_t)(dot - p));
                if (loggerish_path(x, recv)) {
                    const py_logger *base = find_logger(x, recv);
                    py_logger lg = {.key = name,
                                    .logger = base ? base->logger : NULL,
                                    .level = lvl,
                                    .method = dot + 1,
                                    .is_alias = true};
                    core_vec_push(&x->loggers, lg);
                }
            }
        }
        /* x = self.logger keeps being a logger under its new name. */
        if (p) {
            const py_logger *lg = find_logger(x, p);
            if (lg) {
                py_logger copy = *lg;
                copy.key = name;
                core_vec_push(&x->loggers, copy);
            }
        }
        add_bind(x, p ? GX_BIND_ALIAS : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    add_bind(x, GX_BIND_LOCAL, name, NULL, scope, at);
}

static void do_assign(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode left = fieldn(n, F.left), right = fieldn(n, F.right), type = fieldn(n, F.type);
    if (is_null(left))
        return;
    unsigned lt = ty(left);
    bool top = sc->sym < 0 || sc->in_class_body;
    if (!is_null(type))
        type_refs(x, type, sc, depth + 1);
    if (lt == N_IDENTIFIER) {
        const char *name = text(x, left);
        if (!is_null(type)) {
            const char *cls = annotation_class(x, type, sc, 0);
            if (sc->in_class_body && cls)
                add_bind(x, GX_BIND_TYPE, graph__path_join(x->f, "@self", name, strlen(name)), cls,
                         sc->sym, left);
            else if (cls)
                add_bind(x, GX_BIND_TYPE, name, cls, sc->sym, left);
        }
        if (!is_null(right)) {
            bind_target(x, name, right, sc, sc->sym, left);
            if (sc->in_class_body) {
                /* Class attributes are reached as self.x / cls.x too. */
                const py_logger *lg = find_logger(x, name);
                if (lg && !lg->is_alias) {
                    py_logger copy = *lg;
                    copy.key = graph__path_join(x->f, "@self", name, strlen(name));
                    core_vec_push(&x->loggers, copy);
                }
            }
            TSNode r = unparen(right);
            if (top && !is_dunder(name)) {
                unsigned rt = ty(r);
                if (rt == N_STRING || rt == N_CONCATENATED_STRING ||
                    (rt == N_BINARY_OPERATOR && binop(r) == A_PLUS))
                    add_const(x, name, right, sc, depth);
                else if (rt == N_DICTIONARY) {
                    /* MESSAGES = {"key": "template", ...} */
                    uint32_t nc = ts_node_named_child_count(r);
                    for (uint32_t i = 0; i < nc && i < 4096; i++) {
                        TSNode pr = ts_node_named_child(r, i);
                        if (ty(pr) != N_PAIR)
                            continue;
                        TSNode k = fieldn(pr, F.key), v = unparen(fieldn(pr, F.value));
                        const char *kv = is_null(k) ? NULL : string_value(x, k);
                        if (!kv || is_null(v) || !is_stringish(ty(v)))
                            continue;
                        add_const(x, subscript_name(x, name, kv), v, sc, depth);
                    }
                }
            }
        }
    } else if (lt == N_ATTRIBUTE) {
        const char *p = path_of(x, left, sc, 0);
        if (p) {
            add_ref(x, GX_REF_WRITE, p, sc->sym, left);
            /* Instance attributes: bound in this method's scope (its
             * parameters give the types); the resolver files them under
             * the class. */
            if (strncmp(p, "@self.", 6) == 0 && !strchr(p + 6, '.') && sc->cls >= 0) {
                if (!is_null(type)) {
                    const char *cls = annotation_class(x, type, sc, 0);
                    if (cls)
                        add_bind(x, GX_BIND_TYPE, p, cls, sc->sym, left);
                }
                if (!is_null(right))
                    bind_target(x, p, right, sc, sc->sym, left);
            }
        } else {
            walk(x, left, sc, depth + 1);
        }
    } else if (lt == N_PATTERN_LIST || lt == N_TUPLE_PATTERN || lt == N_LIST_PATTERN) {
        uint32_t nc = ts_node_named_child_count(left);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode t = ts_node_named_child(left, i);
            if (ty(t) == N_IDENTIFIER)
                add_bind(x, GX_BIND_LOCAL, text(x, t), NULL, sc->sym, t);
            else if (ty(t) == N_ATTRIBUTE)
                add_ref(x, GX_REF_WRITE, path_of(x, t, sc, 0), sc->sym, t);
        }
    } else {
        walk(x, left, sc, depth + 1);
    }
    if (!is_null(right)) {
        TSNode r = unparen(right);
        if (ty(r) == N_ASSIGNMENT)
            do_assign(x, r, sc, depth + 1);
        else if (ty(r) == N_IDENTIFIER || ty(r) == N_ATTRIBUTE)
            value_ref(x, r, sc, depth + 1);
        else
            walk(x, right, sc, depth + 1);
    }
    /* After the right side, which still sees the old value. */
    if (sc->in_function && !is_null(right)) {
        /* a = b = value: the value of the last one. */
        TSNode v = unparen(right);
        for (int i = 0; i < 64 && ty(v) == N_ASSIGNMENT && !is_null(fieldn(v, F.right)); i++)
            v = unparen(fieldn(v, F.right));
        if (lt == N_IDENTIFIER)
            local_assign(x, left, v, n);
        else if (lt == N_PATTERN_LIST || lt == N_TUPLE_PATTERN || lt == N_LIST_PATTERN)
            for (uint32_t i = 0, nc = ts_node_named_child_count(left); i < nc && i < 64; i++) {
                TSNode t = ts_node_named_child(left, i);
                if (ty(t) == N_IDENTIFIER)
                    add_local(x, t, LOC_OTHER, gx_null(), ts_node_start_byte(n), gx_null());
            }
    }
}

/* ---- definitions ---- */

static const char *body_docstring(px *x, TSNode body, int depth)
{
    if (is_null(body))
        return NULL;
    TSNode first = gx_null();
    TSTreeCursor *c = gx_cursor(&x->cur, depth, body);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch) && ty(ch) != N_COMMENT) {
                first = ch;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (is_null(first) || ty(first) != N_EXPRESSION_STATEMENT)
        return NULL;
    TSNode s = ts_node_named_child(first, 0);
    if (is_null(s) || ty(s) != N_STRING)
        return NULL;
    const char *v = string_value(x, s);
    return v ? graph__doc(x->f, v, strlen(v)) : NULL;
}

static int32_t push_sym(px *x, graph_sym_kind kind, const char *name, int32_t parent,
                        uint32_t start, uint32_t end, uint32_t flags)
{
    gx_sym s = {.name = name,
                .parent = parent,
                .start_line = start,
                .end_line = end,
                .kind = (uint8_t)kind,
                .flags = flags};
    core_vec_push(&x->f->syms, s);
    return (int32_t)(x->f->syms.n - 1);
}

/* Decorator names that say what kind of method this is. */
static uint32_t decorator_flags(px *x, TSNode dec)
{
    TSNode e = ts_node_named_child(dec, 0);
    if (is_null(e))
        return 0;
    if (ty(e) == N_CALL)
        e = fieldn(e, F.function);
    if (is_null(e))
        return 0;
    size_t ln;
    const char *last = last_segment(x, e, &ln);
#define IS(lit) (ln == sizeof(lit) - 1 && memcmp(last, lit, ln) == 0)
    if (IS("staticmethod"))
        return GRAPH_SF_STATIC;
    if (IS("classmethod"))
        return GRAPH_SF_CLASSMETHOD;
    if (IS("property") || IS("cached_property") || IS("getter"))
        return GRAPH_SF_GETTER;
    if (IS("setter") || IS("deleter"))
        return GRAPH_SF_SETTER;
    if (IS("abstractmethod"))
        return GRAPH_SF_ABSTRACT;
#undef IS
    return 0;
}

/* Decorators whose names are not worth a call edge. */
static bool plain_decorator(uint32_t flags)
{
    return flags != 0;
}

static void walk_decorators(px *x, const TSNode *decs, uint32_t ndecs, const py_scope *inner,
                            int depth)
{
    int saved = x->emit_flags;
    x->emit_flags |= GRAPH_EF_DECORATOR;
    for (uint32_t i = 0; i < ndecs; i++) {
        TSNode e = ts_node_named_child(decs[i], 0);
        if (is_null(e))
            continue;
        if (ty(e) == N_IDENTIFIER || ty(e) == N_ATTRIBUTE) {
            /* @decorator wraps the function: calling it runs the wrapper. */
            if (!plain_decorator(decorator_flags(x, decs[i])))
                add_ref(x, GX_REF_CALL, path_of(x, e, inner, 0), inner->sym, e);
        } else {
            walk(x, e, inner, depth + 1);
        }
    }
    x->emit_flags = saved;
}

static void do_params(px *x, TSNode params, const py_scope *inner, int depth)
{
    TSTreeCursor *c = gx_cursor(&x->cur, depth, params);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    /* Collect first: walking default values reuses deeper cursors only,
     * but binding needs the outer scope's view of names. */
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(p);
        TSNode name, type = gx_null(), value = gx_null(); /* name: set unless we continue */
        if (t == N_IDENTIFIER) {
            name = p;
        } else if (t == N_TYPED_PARAMETER) {
            name = ts_node_named_child(p, 0);
            type = fieldn(p, F.type);
        } else if (t == N_TYPED_DEFAULT_PARAMETER) {
            name = fieldn(p, F.name);
            type = fieldn(p, F.type);
            value = fieldn(p, F.value);
        } else if (t == N_DEFAULT_PARAMETER) {
            name = fieldn(p, F.name);
            value = fieldn(p, F.value);
        } else {
            continue;
        }
        if (!is_null(name) &&
            (ty(name) == N_LIST_SPLAT_PATTERN || ty(name) == N_DICTIONARY_SPLAT_PATTERN))
            name = ts_node_named_child(name, 0);
        const char *nm = !is_null(name) && ty(name) == N_IDENTIFIER ? text(x, name) : NULL;
        if (!is_null(type)) {
            type_refs(x, type, inner, depth + 1);
            const char *cls = annotation_class(x, type, inner, 0);
            if (nm && cls)
                add_bind(x, GX_BIND_TYPE, nm, cls, inner->sym, name);
            else if (nm)
                add_bind(x, GX_BIND_LOCAL, nm, NULL, inner->sym, name);
        } else if (nm && !(inner->self_name && strcmp(nm, inner->self_name) == 0) &&
                   !(inner->cls_name && strcmp(nm, inner->cls_name) == 0)) {
            add_bind(x, GX_BIND_LOCAL, nm, NULL, inner->sym, name);
        }
        if (!is_null(value))
            value_ref(x, value, inner, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* The first parameter's name (self / cls), if it is a plain one. */
static const char *first_param(px *x, TSNode params)
{
    if (is_null(params))
        return NULL;
    TSNode p = ts_node_named_child(params, 0);
    if (is_null(p))
        return NULL;
    if (ty(p) == N_TYPED_PARAMETER)
        p = ts_node_named_child(p, 0);
    else if (ty(p) == N_DEFAULT_PARAMETER || ty(p) == N_TYPED_DEFAULT_PARAMETER)
        p = fieldn(p, F.name);
    if (is_null(p) || ty(p) != N_IDENTIFIER)
        return NULL;
    return text(x, p);
}

/*
 * The parameters of a function as a call passes them: `bound` methods get
 * self/cls from the receiver, so positions count from the next one. `**kw`
 * is left out (nothing is passed on through it here).
 */
static const py_param *collect_params(px *x, TSNode params, bool bound, uint32_t *np)
{
    *np = 0;
    if (is_null(params))
        return NULL;
    uint32_t nc = ts_node_named_child_count(params);
    if (nc > 256)
        nc = 256;
    if (nc == 0)
        return NULL;
    py_param *out = core_arena_alloc(&x->f->arena, nc * sizeof *out);
    uint32_t n = 0;
    int32_t next = 0;
    bool first = true, kwonly = false;
    for (uint32_t i = 0; i < nc; i++) {
        TSNode p = ts_node_named_child(params, i);
        unsigned t = ty(p);
        if (t == N_COMMENT || t == N_POSITIONAL_SEPARATOR)
            continue;
        if (t == N_KEYWORD_SEPARATOR) {
            kwonly = true;
            continue;
        }
        TSNode name = gx_null();
        if (t == N_IDENTIFIER || t == N_LIST_SPLAT_PATTERN || t == N_DICTIONARY_SPLAT_PATTERN)
            name = p;
        else if (t == N_TYPED_PARAMETER)
            name = ts_node_named_child(p, 0);
        else if (t == N_DEFAULT_PARAMETER || t == N_TYPED_DEFAULT_PARAMETER)
            name = fieldn(p, F.name);
        bool star = false;
        if (!is_null(name) && ty(name) == N_DICTIONARY_SPLAT_PATTERN)
            continue;
        if (!is_null(name) && ty(name) == N_LIST_SPLAT_PATTERN) {
            star = true;
            name = ts_node_named_child(name, 0);
        }
        bool self = first && bound;
        first = false;
        int32_t pos = -1;
        bool kw = false;
        if (star) {
            pos = kwonly ? -1 : next;
            kwonly = true;
        } else if (!self) {
            kw = true;
            if (!kwonly)
                pos = next++;
        }
        if (is_null(name) || ty(name) != N_IDENTIFIER)
            continue;
        out[n++] = (py_param){text(x, name), pos, kw, star};
    }
    *np = n;
    return out;
}

static void do_def(px *x, TSNode n, TSNode outer, const TSNode *decs, uint32_t ndecs,
                   const py_scope *sc, int depth)
{
    TSNode name = fieldn(n, F.name), params = fieldn(n, F.parameters), body = fieldn(n, F.body);
    if (is_null(name))
        return;
    const char *nm = text(x, name);
    uint32_t flags = 0;
    for (uint32_t i = 0; i < ndecs; i++)
        flags |= decorator_flags(x, decs[i]);
    TSNode first = ts_node_child(n, 0);
    if (!is_null(first) && ty(first) == A_ASYNC)
        flags |= GRAPH_SF_ASYNC;
    if (sc->in_function)
        flags |= GRAPH_SF_NESTED;
    bool method = sc->in_class_body;
    if (method && strcmp(nm, "__init__") == 0)
        flags |= GRAPH_SF_CTOR;
    if (nm[0] == '_' && !is_dunder(nm))
        flags |= GRAPH_SF_PRIVATE;
    int32_t idx = push_sym(x, method ? GRAPH_SYM_METHOD : GRAPH_SYM_FUNCTION, nm, sc->sym,
                           gx_line(outer), graph__end_line(n), flags);
    x->f->syms.v[idx].doc = body_docstring(x, body, depth + 1);

    py_scope inner = *sc;
    inner.sym = idx;
    inner.in_class_body = false;
    inner.in_function = true;
    if (method) {
        inner.cls = sc->sym;
        inner.self_name = NULL;
        inner.cls_name = NULL;
        const char *p0 = first_param(x, params);
        if (p0 && !(flags & GRAPH_SF_STATIC)) {
            if (flags & GRAPH_SF_CLASSMETHOD)
                inner.cls_name = p0;
            else
                inner.self_name = p0;
        }
    }
    inner.params = collect_params(x, params, method && !(flags & GRAPH_SF_STATIC), &inner.nparams);
    /* Its locals start empty and end with it: an outer function's are not
     * looked at, and its own do not leak out. */
    inner.locals_base = (uint32_t)x->locals.n;
    walk_decorators(x, decs, ndecs, &inner, depth);
    if (!is_null(params))
        do_params(x, params, &inner, depth + 1);
    TSNode ret = fieldn(n, F.return_type);
    if (!is_null(ret)) {
        type_refs(x, ret, &inner, depth + 1);
        x->f->syms.v[idx].ret = annotation_class(x, ret, &inner, 0);
    }
    if (!is_null(body))
        walk(x, body, &inner, depth + 1);
    x->locals.n = inner.locals_base;
}

static void do_class(px *x, TSNode n, TSNode outer, const TSNode *decs, uint32_t ndecs,
                     const py_scope *sc, int depth)
{
    TSNode name = fieldn(n, F.name), bases = fieldn(n, F.superclasses), body = fieldn(n, F.body);
    if (is_null(name))
        return;
    const char *nm = text(x, name);
    uint32_t flags = sc->in_function ? GRAPH_SF_NESTED : 0;
    if (nm[0] == '_' && !is_dunder(nm))
        flags |= GRAPH_SF_PRIVATE;
    int32_t idx =
        push_sym(x, GRAPH_SYM_CLASS, nm, sc->sym, gx_line(outer), graph__end_line(n), flags);
    x->f->syms.v[idx].doc = body_docstring(x, body, depth + 1);
    py_scope inner = *sc;
    inner.sym = idx;
    inner.cls = idx;
    inner.in_class_body = true;
    inner.in_function = false;
    inner.self_name = NULL;
    inner.cls_name = NULL;
    inner.params = NULL;
    inner.nparams = 0;
    if (!is_null(bases)) {
        TSTreeCursor *c = gx_cursor(&x->cur, depth, bases);
        if (ts_tree_cursor_goto_first_child(c)) {
            do {
                TSNode b = ts_tree_cursor_current_node(c);
                if (!ts_node_is_named(b) || ty(b) == N_KEYWORD_ARGUMENT || ty(b) == N_COMMENT)
                    continue;
                TSNode bb = ty(b) == N_SUBSCRIPT ? fieldn(b, F.value) : b;
                const char *p = is_null(bb) ? NULL : path_of(x, bb, sc, 0);
                if (p)
                    add_ref(x, GX_REF_BASE, p, idx, b);
                else
                    walk(x, b, sc, depth + 1);
            } while (ts_tree_cursor_goto_next_sibling(c));
        }
    }
    /* Class decorators run at definition; they belong to the class. */
    walk_decorators(x, decs, ndecs, &inner, depth);
    if (!is_null(body))
        walk(x, body, &inner, depth + 1);
}

static void do_decorated(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode decs[32];
    uint32_t nd = 0;
    TSNode def = fieldn(n, F.definition);
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ty(ch) == N_DECORATOR && nd < 32)
                decs[nd++] = ch;
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (is_null(def))
        return;
    if (ty(def) == N_FUNCTION_DEFINITION)
        do_def(x, def, n, decs, nd, sc, depth + 1);
    else if (ty(def) == N_CLASS_DEFINITION)
        do_class(x, def, n, decs, nd, sc, depth + 1);
}

/* Names a loop, a with or an except binds: local variables. */
static void bind_targets(px *x, TSNode t, const py_scope *sc, int rec)
{
    if (is_null(t) || rec > 16)
        return;
    unsigned k = ty(t);
    if (k == N_IDENTIFIER) {
        add_bind(x, GX_BIND_LOCAL, text(x, t), NULL, sc->sym, t);
    } else if (k == N_PATTERN_LIST || k == N_TUPLE_PATTERN || k == N_LIST_PATTERN ||
               k == N_AS_PATTERN_TARGET || k == N_LIST_SPLAT_PATTERN) {
        uint32_t nc = ts_node_named_child_count(t);
        for (uint32_t i = 0; i < nc && i < 64; i++)
            bind_targets(x, ts_node_named_child(t, i), sc, rec + 1);
    }
}

/* ---- the walk ---- */

static void walk_children(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        /* Leaves (names, numbers, punctuation) hold nothing to extract. */
        if (ts_node_child_count(ch) == 0)
            continue;
        walk(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static void walk(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    switch (ty(n)) {
    case N_FUNCTION_DEFINITION:
        do_def(x, n, n, NULL, 0, sc, depth);
        return;
    case N_CLASS_DEFINITION:
        do_class(x, n, n, NULL, 0, sc, depth);
        return;
    case N_DECORATED_DEFINITION:
        do_decorated(x, n, sc, depth);
        return;
    case N_CALL:
        do_call(x, n, sc, depth);
        return;
    case N_ASSIGNMENT:
        do_assign(x, n, sc, depth);
        return;
    case N_AUGMENTED_ASSIGNMENT: {
        TSNode left = fieldn(n, F.left), right = fieldn(n, F.right);
        if (!is_null(left) && ty(left) == N_ATTRIBUTE)
            add_ref(x, GX_REF_WRITE, path_of(x, left, sc, 0), sc->sym, left);
        if (!is_null(right))
            walk(x, right, sc, depth + 1);
        if (sc->in_function && !is_null(left) && ty(left) == N_IDENTIFIER) {
            /* msg += "...": appended to what msg held; other operators
             * make something unknown. */
            TSNode op = fieldn(n, F.operator_);
            bool plus = !is_null(op) && ty(op) == A_PLUS_EQ && !is_null(right);
            add_local(x, left, plus ? LOC_AUG : LOC_OTHER, plus ? unparen(right) : gx_null(),
                      ts_node_start_byte(n), gx_null());
        }
        return;
    }
    case N_IF_STATEMENT: {
        /* Bindings note the arm they are made in (see local_paths()); an
         * elif's condition counts as in its arm. */
        TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
        if (!ts_tree_cursor_goto_first_child(c))
            return;
        uint32_t at = ts_node_start_byte(n), arm = 0;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_child_count(ch) == 0)
                continue;
            unsigned t = ty(ch);
            bool in_arm = t == N_BLOCK || t == N_ELIF_CLAUSE || t == N_ELSE_CLAUSE;
            if (in_arm) {
                if (x->nbr < LOCAL_MAX_NEST) {
                    x->br_stmt[x->nbr] = at;
                    x->br_arm[x->nbr] = (uint8_t)(arm < 255 ? arm : 255);
                }
                x->nbr++;
                arm++;
            }
            walk(x, ch, sc, depth + 1);
            if (in_arm)
                x->nbr--;
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    case N_BLOCK: {
        /* Bindings note the block they are made in (see local_paths()). */
        uint32_t bs = x->blk_start, be = x->blk_end;
        x->blk_start = ts_node_start_byte(n);
        x->blk_end = ts_node_end_byte(n);
        walk_children(x, n, sc, depth);
        x->blk_start = bs;
        x->blk_end = be;
        return;
    }
    case N_ATTRIBUTE: {
        const char *p = path_of(x, n, sc, 0);
        if (p) {
            add_ref(x, GX_REF_READ, p, sc->sym, n);
            return;
        }
        TSNode obj = fieldn(n, F.object);
        if (!is_null(obj))
            walk(x, obj, sc, depth + 1);
        return;
    }
    case N_IMPORT_STATEMENT:
    case N_IMPORT_FROM_STATEMENT:
        do_import(x, n, sc, depth);
        return;
    case N_FUTURE_IMPORT_STATEMENT:
    case N_COMMENT:
    case N_IDENTIFIER:
    case N_INTEGER:
        return;
    case N_STRING: {
        /* Only f-string interpolations hold code. */
        TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
        if (ts_tree_cursor_goto_first_child(c)) {
            do {
                TSNode ch = ts_tree_cursor_current_node(c);
                if (ty(ch) == N_INTERPOLATION)
                    walk_children(x, ch, sc, depth + 1);
            } while (ts_tree_cursor_goto_next_sibling(c));
        }
        return;
    }
    case N_FOR_STATEMENT:
        bind_targets(x, fieldn(n, F.left), sc, 0);
        if (sc->in_function)
            local_loop(x, n);
        walk_children(x, n, sc, depth);
        return;
    case N_FOR_IN_CLAUSE:
        bind_targets(x, fieldn(n, F.left), sc, 0);
        walk_children(x, n, sc, depth);
        return;
    case N_EXCEPT_CLAUSE: {
        TSNode alias = fieldn(n, F.alias);
        if (!is_null(alias) && ty(alias) == N_IDENTIFIER)
            add_bind(x, GX_BIND_LOCAL, text(x, alias), NULL, sc->sym, alias);
        walk_children(x, n, sc, depth);
        return;
    }
    case N_AS_PATTERN: {
        /* with EXPR as NAME: NAME is what EXPR gives. */
        TSNode value = ts_node_named_child(n, 0), target = fieldn(n, F.alias);
        if (!is_null(target)) {
            TSNode id = ty(target) == N_AS_PATTERN_TARGET ? ts_node_named_child(target, 0) : target;
            if (!is_null(id) && ty(id) == N_IDENTIFIER && !is_null(value))
                bind_target(x, text(x, id), value, sc, sc->sym, id);
            else
                bind_targets(x, target, sc, 0);
        }
        if (!is_null(value))
            walk(x, value, sc, depth + 1);
        return;
    }
    case N_NAMED_EXPRESSION: {
        TSNode name = fieldn(n, F.name), value = fieldn(n, F.value);
        if (!is_null(name) && !is_null(value))
            bind_target(x, text(x, name), value, sc, sc->sym, name);
        if (!is_null(value))
            walk(x, value, sc, depth + 1);
        return;
    }
    default:
        walk_children(x, n, sc, depth);
        return;
    }
}

/* Prescan of `name = <logger factory call>` and `name = a.b`: the
 * loggers and logger-method aliases it makes (not the binding itself). */
static void prescan_assignment(px *x, TSNode a, const py_scope *sc)
{
    TSNode left = fieldn(a, F.left), right = fieldn(a, F.right);
    if (is_null(left) || is_null(right) || ty(left) != N_IDENTIFIER)
        return;
    TSNode r = unparen(right);
    bool factory = is_logger_factory(x, r, sc);
    bool alias = ty(r) == N_ATTRIBUTE;
    if (!factory && !alias)
        return;
    size_t nb = x->f->binds.n;
    const char *name = text(x, left);
    bind_target(x, name, right, sc, sc->sym, left);
    x->f->binds.n = nb;
    if (sc->in_class_body && factory) {
        py_logger lg = {.key = graph__path_join(x->f, "@self", name, strlen(name)),
                        .logger = logger_name_of_call(x, r)};
        core_vec_push(&x->loggers, lg);
    }
}

/*
 * Before the walk: module-level and class-level bindings of loggers and
 * logger-method aliases, and import aliases, so a function defined above
 * `logger = logging.getLogger(__name__)` still sees it (Python runs the
 * module body before any function is called).
 */
static void prescan(px *x, TSNode body, const py_scope *sc, int depth)
{
    if (depth > 8)
        return;
    /* Big modules: children by cursor, not by index (that is quadratic). */
    TSTreeCursor c = ts_tree_cursor_new(body);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode st = ts_tree_cursor_current_node(&c);
            unsigned t = ty(st);
            if (t == N_IMPORT_STATEMENT || t == N_IMPORT_FROM_STATEMENT) {
                size_t before = x->f->imports.n;
                do_import(x, st, sc, depth + 1);
                /* Only the aliases are wanted now; the walk records the
                 * imports themselves. */
                x->f->imports.n = before;
            } else if (t == N_EXPRESSION_STATEMENT) {
                TSNode a = ts_node_named_child(st, 0);
                if (!is_null(a) && ty(a) == N_ASSIGNMENT)
                    prescan_assignment(x, a, sc);
            } else if (t == N_CLASS_DEFINITION || t == N_DECORATED_DEFINITION) {
                TSNode cls = t == N_CLASS_DEFINITION ? st : fieldn(st, F.definition);
                if (!is_null(cls) && ty(cls) == N_CLASS_DEFINITION) {
                    TSNode b = fieldn(cls, F.body);
                    py_scope in = *sc;
                    in.in_class_body = true;
                    if (!is_null(b))
                        prescan(x, b, &in, depth + 1);
                }
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    if (!graph__tsalloc_active())
        ts_tree_cursor_delete(&c);
}

void graph__extract_python(const char *src, size_t n, gx_file *f)
{
    pthread_once(&init_once, init_tables);
    TSParser *parser;
    TSTree *tree;
    /* Large literal tables are not shown to the parser (prescan_py.c);
     * if that parse has errors, the whole text is parsed after all, so a
     * scan mistake costs time only. */
    uint32_t *starts = NULL, *ends = NULL;
    uint32_t nex = graph__py_data_ranges(src, n, &starts, &ends);
    if (nex) {
        TSRange *ranges = graph__included_ranges(src, n, starts, ends, nex);
        tree = graph__parse(GRAPH_LANG_PYTHON, src, n, ranges, nex + 1, &parser);
        free(ranges);
        if (ts_node_has_error(ts_tree_root_node(tree))) {
            graph__parse_free(parser, tree);
            tree = graph__parse(GRAPH_LANG_PYTHON, src, n, NULL, 0, &parser);
        }
    } else {
        tree = graph__parse(GRAPH_LANG_PYTHON, src, n, NULL, 0, &parser);
    }
    free(starts);
    free(ends);
    TSNode root = ts_tree_root_node(tree);
    px *x = core_xcalloc(1, sizeof *x);
    x->f = f;
    x->src = src;
    x->blk_end = UINT32_MAX;
    py_scope sc = {.sym = -1, .cls = -1};
    graph__count_errors(root, f);
    prescan(x, root, &sc, 0);
    f->doc = body_docstring(x, root, 0);
    walk_children(x, root, &sc, 0);
    graph__cand_finish(&x->cands, x->f);
    graph__cursors_free(&x->cur);
    graph__tmpl_free(&x->tmpl);
    core_vec_free(&x->loggers);
    core_vec_free(&x->aliases);
    core_vec_free(&x->locals);
    free(x);
    graph__parse_free(parser, tree);
}
