/*
 * TypeScript, TSX and JavaScript extraction: symbols, references, bindings,
 * imports, exports and emit sites of one file, from tree-sitter-typescript's
 * syntax trees (JavaScript goes through the TSX grammar, a superset of it).
 *
 * Same rules as extract_py.c: node types and field ids are looked up once
 * per grammar; children are iterated with the depth-indexed cursor pool (a
 * function iterating the children of a node at depth d hands d + 1 to
 * whatever it calls); every recursion is bounded; every string the result
 * holds lives in f->arena.
 */
#include "graph_int.h"

#include <pthread.h>
#include <stdlib.h>
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
};

static const char *const named_types[N__NAMED_COUNT] = {
    [N_PROGRAM] = "program",
    [N_COMMENT] = "comment",
    [N_HASH_BANG_LINE] = "hash_bang_line",
    [N_IDENTIFIER] = "identifier",
    [N_PROPERTY_IDENTIFIER] = "property_identifier",
    [N_PRIVATE_PROPERTY_IDENTIFIER] = "private_property_identifier",
    [N_SHORTHAND_PROPERTY_IDENTIFIER] = "shorthand_property_identifier",
    [N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN] = "shorthand_property_identifier_pattern",
    [N_TYPE_IDENTIFIER] = "type_identifier",
    [N_NESTED_TYPE_IDENTIFIER] = "nested_type_identifier",
    [N_NESTED_IDENTIFIER] = "nested_identifier",
    [N_GENERIC_TYPE] = "generic_type",
    [N_PREDEFINED_TYPE] = "predefined_type",
    [N_TYPE_ANNOTATION] = "type_annotation",
    [N_TYPE_PARAMETER] = "type_parameter",
    [N_TYPE_QUERY] = "type_query",
    [N_INFER_TYPE] = "infer_type",
    [N_UNION_TYPE] = "union_type",
    [N_PARENTHESIZED_TYPE] = "parenthesized_type",
    [N_LITERAL_TYPE] = "literal_type",
    [N_THIS_TYPE] = "this_type",
    [N_MAPPED_TYPE_CLAUSE] = "mapped_type_clause",
    [N_THIS] = "this",
    [N_SUPER] = "super",
    [N_NULL] = "null",
    [N_UNDEFINED] = "undefined",
    [N_TRUE] = "true",
    [N_FALSE] = "false",
    [N_STRING] = "string",
    [N_TEMPLATE_STRING] = "template_string",
    [N_TEMPLATE_SUBSTITUTION] = "template_substitution",
    [N_NUMBER] = "number",
    [N_REGEX] = "regex",
    [N_MEMBER_EXPRESSION] = "member_expression",
    [N_SUBSCRIPT_EXPRESSION] = "subscript_expression",
    [N_CALL_EXPRESSION] = "call_expression",
    [N_NEW_EXPRESSION] = "new_expression",
    [N_ARGUMENTS] = "arguments",
    [N_ASSIGNMENT_EXPRESSION] = "assignment_expression",
    [N_AUGMENTED_ASSIGNMENT_EXPRESSION] = "augmented_assignment_expression",
    [N_BINARY_EXPRESSION] = "binary_expression",
    [N_PARENTHESIZED_EXPRESSION] = "parenthesized_expression",
    [N_AS_EXPRESSION] = "as_expression",
    [N_SATISFIES_EXPRESSION] = "satisfies_expression",
    [N_NON_NULL_EXPRESSION] = "non_null_expression",
    [N_AWAIT_EXPRESSION] = "await_expression",
    [N_ARROW_FUNCTION] = "arrow_function",
    [N_FUNCTION_EXPRESSION] = "function_expression",
    [N_FUNCTION_DECLARATION] = "function_declaration",
    [N_GENERATOR_FUNCTION] = "generator_function",
    [N_GENERATOR_FUNCTION_DECLARATION] = "generator_function_declaration",
    [N_CLASS] = "class",
    [N_CLASS_DECLARATION] = "class_declaration",
    [N_ABSTRACT_CLASS_DECLARATION] = "abstract_class_declaration",
    [N_CLASS_BODY] = "class_body",
    [N_CLASS_HERITAGE] = "class_heritage",
    [N_EXTENDS_CLAUSE] = "extends_clause",
    [N_IMPLEMENTS_CLAUSE] = "implements_clause",
    [N_METHOD_DEFINITION] = "method_definition",
    [N_METHOD_SIGNATURE] = "method_signature",
    [N_ABSTRACT_METHOD_SIGNATURE] = "abstract_method_signature",
    [N_PUBLIC_FIELD_DEFINITION] = "public_field_definition",
    [N_CLASS_STATIC_BLOCK] = "class_static_block",
    [N_DECORATOR] = "decorator",
    [N_ACCESSIBILITY_MODIFIER] = "accessibility_modifier",
    [N_FORMAL_PARAMETERS] = "formal_parameters",
    [N_REQUIRED_PARAMETER] = "required_parameter",
    [N_OPTIONAL_PARAMETER] = "optional_parameter",
    [N_REST_PATTERN] = "rest_pattern",
    [N_OBJECT_PATTERN] = "object_pattern",
    [N_ARRAY_PATTERN] = "array_pattern",
    [N_PAIR_PATTERN] = "pair_pattern",
    [N_OBJECT_ASSIGNMENT_PATTERN] = "object_assignment_pattern",
    [N_ASSIGNMENT_PATTERN] = "assignment_pattern",
    [N_INTERFACE_DECLARATION] = "interface_declaration",
    [N_EXTENDS_TYPE_CLAUSE] = "extends_type_clause",
    [N_ENUM_DECLARATION] = "enum_declaration",
    [N_ENUM_ASSIGNMENT] = "enum_assignment",
    [N_TYPE_ALIAS_DECLARATION] = "type_alias_declaration",
    [N_TYPE_PARAMETERS] = "type_parameters",
    [N_INTERNAL_MODULE] = "internal_module",
    [N_MODULE] = "module",
    [N_AMBIENT_DECLARATION] = "ambient_declaration",
    [N_FUNCTION_SIGNATURE] = "function_signature",
    [N_LEXICAL_DECLARATION] = "lexical_declaration",
    [N_VARIABLE_DECLARATION] = "variable_declaration",
    [N_VARIABLE_DECLARATOR] = "variable_declarator",
    [N_EXPORT_STATEMENT] = "export_statement",
    [N_EXPORT_CLAUSE] = "export_clause",
    [N_EXPORT_SPECIFIER] = "export_specifier",
    [N_NAMESPACE_EXPORT] = "namespace_export",
    [N_IMPORT_STATEMENT] = "import_statement",
    [N_IMPORT_CLAUSE] = "import_clause",
    [N_NAMED_IMPORTS] = "named_imports",
    [N_IMPORT_SPECIFIER] = "import_specifier",
    [N_NAMESPACE_IMPORT] = "namespace_import",
    [N_IMPORT_REQUIRE_CLAUSE] = "import_require_clause",
    [N_IMPORT] = "import",
    [N_STATEMENT_BLOCK] = "statement_block",
    [N_EXPRESSION_STATEMENT] = "expression_statement",
    [N_TYPE_ARGUMENTS] = "type_arguments",
    [N_RETURN_STATEMENT] = "return_statement",
    [N_FOR_IN_STATEMENT] = "for_in_statement",
    [N_OBJECT] = "object",
    [N_PAIR] = "pair",
    [N_SPREAD_ELEMENT] = "spread_element",
    [N_COMPUTED_PROPERTY_NAME] = "computed_property_name",
    [N_JSX_ELEMENT] = "jsx_element",
    [N_JSX_SELF_CLOSING_ELEMENT] = "jsx_self_closing_element",
    [N_JSX_OPENING_ELEMENT] = "jsx_opening_element",
    [N_JSX_CLOSING_ELEMENT] = "jsx_closing_element",
    [N_JSX_ATTRIBUTE] = "jsx_attribute",
    [N_JSX_EXPRESSION] = "jsx_expression",
    [N_JSX_TEXT] = "jsx_text",
    [N_CALL_SIGNATURE] = "call_signature",
    [N_CONSTRUCT_SIGNATURE] = "construct_signature",
    [N_FUNCTION_TYPE] = "function_type",
    [N_CONSTRUCTOR_TYPE] = "constructor_type",
    [N_INDEX_SIGNATURE] = "index_signature",
    [N_TERNARY_EXPRESSION] = "ternary_expression",
};
static const char *const anon_types[] = {"static", "get",     "set", "async",    "*",
                                         "+",      "default", "=",   "readonly", "override"};

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
static const char *const field_names[F__COUNT] = {
    [F_NAME] = "name",
    [F_BODY] = "body",
    [F_PARAMETERS] = "parameters",
    [F_PARAMETER] = "parameter",
    [F_RETURN_TYPE] = "return_type",
    [F_TYPE_PARAMETERS] = "type_parameters",
    [F_VALUE] = "value",
    [F_KEY] = "key",
    [F_LEFT] = "left",
    [F_RIGHT] = "right",
    [F_FUNCTION] = "function",
    [F_ARGUMENTS] = "arguments",
    [F_OBJECT] = "object",
    [F_PROPERTY] = "property",
    [F_INDEX] = "index",
    [F_CONSTRUCTOR] = "constructor",
    [F_TYPE] = "type",
    [F_PATTERN] = "pattern",
    [F_DECLARATION] = "declaration",
    [F_SOURCE] = "source",
    [F_ALIAS] = "alias",
    [F_OPERATOR] = "operator",
    [F_OPEN_TAG] = "open_tag",
    [F_TYPE_ARGUMENTS] = "type_arguments",
    [F_CONSTRAINT] = "constraint",
    [F_CONSEQUENCE] = "consequence",
    [F_ALTERNATIVE] = "alternative",
};

/* Grammar 0 is typescript, 1 is tsx. */
static gx_types types[2];
static TSFieldId fields[2][F__COUNT];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_grammar(int g, graph_lang lang)
{
    const TSLanguage *l = graph__language(lang);
    graph__types_init(&types[g], l, named_types, N__NAMED_COUNT, anon_types,
                      sizeof anon_types / sizeof anon_types[0]);
    for (int i = 0; i < F__COUNT; i++) {
        const char *nm = field_names[i];
        TSFieldId id = ts_language_field_id_for_name(l, nm, (uint32_t)strlen(nm));
        /* The typescript grammar has no JSX, hence no open_tag. */
        if (!id && !(g == 0 && i == F_OPEN_TAG))
            core_panic("tree-sitter-%s has no field '%s'", g ? "tsx" : "typescript", nm);
        fields[g][i] = id;
    }
}

static void init_tables(void)
{
    init_grammar(0, GRAPH_LANG_TYPESCRIPT);
    init_grammar(1, GRAPH_LANG_TSX);
}

/* ---- walker state ---- */

typedef enum {
    LG_OBJECT = 0, /* a logger object: key.info(...) logs */
    LG_LIB,        /* a logging library's export: a logger, or a factory of them */
    LG_ALIAS,      /* a logger method under another name: key(...) logs */
    LG_FUNC,       /* a debug-style logger function: key(...) logs */
    LG_DEBUG,      /* the `debug` package's factory: key('ns') makes an LG_FUNC */
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
struct ts_local {
    uint32_t name, len; /* the name's bytes in src */
    uint32_t end;       /* where the binding ends */
    TSNode value;
};

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
    uint32_t emit_flags;            /* added to emits made while walking decorators */
    gx_cands cands;                 /* candidate sites */
    /* The bindings of plain names in one function body (local_values()),
     * kept while calls in that body ask. */
    core_vec(struct ts_local) locals;
    uint32_t locals_fn; /* that body's start byte + 1; 0 none */
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

typedef struct {
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

static void walk(tx *x, TSNode n, const ts_scope *sc, int depth);
static void walk_children(tx *x, TSNode n, const ts_scope *sc, int depth);
static void value_ref(tx *x, TSNode v, const ts_scope *sc, int depth);
static void walk_values(tx *x, TSNode n, const ts_scope *sc, int depth);
static NOINLINE int32_t do_class(tx *x, TSNode n, TSNode outer, const char *name,
                                 const ts_scope *sc, int depth);
static NOINLINE void do_object(tx *x, TSNode obj, const ts_scope *sc, const char *container,
                               const char *cprefix, int32_t owner, int32_t cls, uint32_t oflags,
                               int depth);
static NOINLINE void walk_declaration(tx *x, TSNode decl, TSNode outer, const char *name,
                                      const ts_scope *sc, int depth);

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

static const char *text(tx *x, TSNode n)
{
    return graph__text(x->f, x->src, n);
}

static bool text_eq(tx *x, TSNode n, const char *s)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    size_t len = strlen(s);
    return b - a == len && memcmp(x->src + a, s, len) == 0;
}

static bool empty_node(TSNode n)
{
    return is_null(n) || ts_node_start_byte(n) >= ts_node_end_byte(n);
}

/* A name node's text, or NULL when it is missing or empty. */
static const char *name_text(tx *x, TSNode n)
{
    return empty_node(n) ? NULL : text(x, n);
}

/* The cursor of depth `depth` on the first child of n; NULL when n is null
 * or has no children, or when the walk is too deep (counted). */
static TSTreeCursor *kids(tx *x, int depth, TSNode n)
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

static void add_ref(tx *x, gx_ref_kind kind, const char *path, int32_t from, TSNode at)
{
    if (!path || !*path)
        return;
    gx_ref r = {.path = path, .from = from, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->refs, r);
}

static void add_bind(tx *x, gx_bind_kind kind, const char *name, const char *value, int32_t scope,
                     TSNode at)
{
    if (!name || !*name)
        return;
    gx_bind b = {
        .name = name, .value = value, .scope = scope, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->binds, b);
}

static void add_export(tx *x, gx_export_kind kind, const char *name, const char *local,
                       const char *module, TSNode at)
{
    if (!name)
        return;
    if (x->f->exports.n) {
        /* Overloads: `export function f(a: A); export function f(b: B) {...}` */
        const gx_export *p = &x->f->exports.v[x->f->exports.n - 1];
        if (p->kind == kind && !strcmp(p->name, name) && p->local == local && p->module == module)
            return;
        if (p->kind == kind && !strcmp(p->name, name) && p->local && local &&
            !strcmp(p->local, local) && !p->module && !module)
            return;
    }
    gx_export e = {
        .name = name, .local = local, .module = module, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->exports, e);
}

static const char *join(tx *x, const char *a, const char *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return graph__path_join(x->f, a, b, strlen(b));
}

static bool module_level(const ts_scope *sc)
{
    return sc->sym < 0 && !sc->in_function;
}

/* A copy of sc for what is walked within or beside a declaration but is not
 * itself what is exported. */
static ts_scope unexported(const ts_scope *sc)
{
    ts_scope s = *sc;
    s.exported = false;
    return s;
}

/* Flags a declaration takes from where it stands. */
static uint32_t decl_flags(const ts_scope *sc)
{
    return (sc->in_function ? GRAPH_SF_NESTED : 0) | (sc->exported ? GRAPH_SF_EXPORTED : 0);
}

/* Parentheses, `as T`, `satisfies T` and `x!` around an expression. */
static TSNode unwrap(tx *x, TSNode n)
{
    for (int i = 0; i < 64 && !is_null(n); i++) {
        unsigned t = ty(x, n);
        if (t != N_PARENTHESIZED_EXPRESSION && t != N_AS_EXPRESSION &&
            t != N_SATISFIES_EXPRESSION && t != N_NON_NULL_EXPRESSION)
            break;
        TSNode inner = ts_node_named_child(n, 0);
        if (is_null(inner))
            break;
        n = inner;
    }
    return n;
}

static bool is_fn(unsigned t)
{
    return t == N_ARROW_FUNCTION || t == N_FUNCTION_EXPRESSION || t == N_GENERATOR_FUNCTION;
}

static bool is_plus(tx *x, TSNode bin)
{
    return ty(x, bin) == N_BINARY_EXPRESSION && ty(x, fld(x, bin, F_OPERATOR)) == A_PLUS;
}

/* ---- strings ---- */

/* The raw text between the quotes of a string literal. */
static void string_raw(tx *x, TSNode s, uint32_t *a, uint32_t *b)
{
    uint32_t sa = ts_node_start_byte(s), sb = ts_node_end_byte(s);
    *a = sa;
    *b = sb;
    if (sb <= sa)
        return;
    char q = x->src[sa];
    if (q == '\'' || q == '"' || q == '`') {
        *a = sa + 1;
        if (sb - 1 > sa && x->src[sb - 1] == q)
            *b = sb - 1;
    }
}

/* The decoded value of a string literal (into x->scratch), or NULL. */
static const char *decode_string(tx *x, TSNode s, size_t *len)
{
    if (ty(x, s) != N_STRING)
        return NULL;
    uint32_t a, b;
    string_raw(x, s, &a, &b);
    core_buf_reset(&x->scratch);
    graph__decode_escapes(&x->scratch, x->src + a, b - a, false);
    *len = x->scratch.len;
    return x->scratch.data ? x->scratch.data : "";
}

/* The decoded value of a string literal, in the arena; NULL if n is not one. */
static const char *string_value(tx *x, TSNode s)
{
    size_t len;
    const char *v = decode_string(x, s, &len);
    return v ? core_arena_strndup(&x->f->arena, v, len) : NULL;
}

/* The name of a property, method, pair key or enum member. */
static const char *member_name(tx *x, TSNode n)
{
    switch (ty(x, n)) {
    case N_PROPERTY_IDENTIFIER:
    case N_PRIVATE_PROPERTY_IDENTIFIER:
    case N_IDENTIFIER:
    case N_NUMBER:
    case N_COMPUTED_PROPERTY_NAME:
        return name_text(x, n);
    case N_STRING:
        return string_value(x, n);
    default:
        return NULL;
    }
}

/* ---- paths ---- */

/*
 * The dotted path of an identifier/member chain: `this.a.b` -> "@self.a.b",
 * `super.m` -> "@super.m", `a?.b` -> "a.b", `a['b']` -> "a.b". NULL when
 * the chain holds anything else (a call, a computed subscript).
 */
static const char *path_of(tx *x, TSNode n, int depth)
{
    if (is_null(n) || depth > 64)
        return NULL;
    switch (ty(x, n)) {
    case N_IDENTIFIER:
        return name_text(x, n);
    case N_THIS:
        return "@self";
    case N_SUPER:
        return "@super";
    case N_MEMBER_EXPRESSION: {
        TSNode obj = fld(x, n, F_OBJECT), prop = fld(x, n, F_PROPERTY);
        if (empty_node(prop))
            return NULL;
        const char *p = path_of(x, obj, depth + 1);
        return p ? graph__path_join_node(x->f, p, x->src, prop) : NULL;
    }
    case N_SUBSCRIPT_EXPRESSION: {
        TSNode obj = fld(x, n, F_OBJECT), idx = fld(x, n, F_INDEX);
        if (ty(x, idx) != N_STRING)
            return NULL;
        const char *k = string_value(x, idx);
        if (!k || !*k ||
            strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") !=
                strlen(k))
            return NULL;
        const char *p = path_of(x, obj, depth + 1);
        return p ? join(x, p, k) : NULL;
    }
    case N_PARENTHESIZED_EXPRESSION:
    case N_NON_NULL_EXPRESSION:
    case N_AS_EXPRESSION:
    case N_SATISFIES_EXPRESSION:
        return path_of(x, ts_node_named_child(n, 0), depth + 1);
    default:
        return NULL;
    }
}

/* The text of a type name without whitespace: "B", "a.B". */
static const char *type_path(tx *x, TSNode n, int depth)
{
    if (depth > 8)
        return NULL;
    switch (ty(x, n)) {
    case N_TYPE_IDENTIFIER:
    case N_IDENTIFIER:
        return name_text(x, n);
    case N_NESTED_TYPE_IDENTIFIER:
    case N_NESTED_IDENTIFIER:
    case N_MEMBER_EXPRESSION: {
        return empty_node(n) ? NULL : graph__text_squeeze(x->f, x->src, n, " \t\n\r");
    }
    case N_GENERIC_TYPE:
        return type_path(x, fld(x, n, F_NAME), depth + 1);
    default:
        return NULL;
    }
}

/* Brings the names of a type_parameters node into scope; returns what to
 * restore x->tparams.n to. */
static NOINLINE size_t push_tparams(tx *x, TSNode tps, int depth)
{
    size_t saved = x->tparams.n;
    if (ty(x, tps) != N_TYPE_PARAMETERS)
        return saved;
    TSTreeCursor *c = kids(x, depth, tps);
    if (!c)
        return saved;
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        if (ty(x, p) != N_TYPE_PARAMETER)
            continue;
        const char *nm = name_text(x, fld(x, p, F_NAME));
        if (nm)
            core_vec_push(&x->tparams, nm);
    } while (ts_tree_cursor_goto_next_sibling(c));
    return saved;
}

static bool is_tparam(tx *x, TSNode n)
{
    for (size_t i = x->tparams.n; i-- > 0;)
        if (text_eq(x, n, x->tparams.v[i]))
            return true;
    return false;
}

static bool nullish_type(tx *x, TSNode n)
{
    unsigned t = ty(x, n);
    if (t == N_LITERAL_TYPE) {
        TSNode c = ts_node_named_child(n, 0);
        return ty(x, c) == N_NULL || ty(x, c) == N_UNDEFINED;
    }
    if (t == N_PREDEFINED_TYPE || t == N_UNDEFINED || t == N_NULL)
        return text_eq(x, n, "undefined") || text_eq(x, n, "null") || text_eq(x, n, "void");
    return false;
}

/* The class a type annotation names: `Foo`, `a.Foo`, `Repo<User>` (Repo),
 * `Foo | null`; NULL for anything else. */
static const char *annotation_class(tx *x, TSNode n, int depth)
{
    if (is_null(n) || depth > 16)
        return NULL;
    switch (ty(x, n)) {
    case N_TYPE_ANNOTATION:
    case N_PARENTHESIZED_TYPE:
        return annotation_class(x, ts_node_named_child(n, 0), depth + 1);
    case N_TYPE_IDENTIFIER:
        return is_tparam(x, n) ? NULL : type_path(x, n, 0);
    case N_NESTED_TYPE_IDENTIFIER:
        return type_path(x, n, 0);
    case N_GENERIC_TYPE:
        return annotation_class(x, fld(x, n, F_NAME), depth + 1);
    case N_UNION_TYPE: {
        TSNode l = ts_node_named_child(n, 0), r = ts_node_named_child(n, 1);
        if (is_null(l) || is_null(r))
            return NULL;
        if (nullish_type(x, r))
            return annotation_class(x, l, depth + 1);
        if (nullish_type(x, l))
            return annotation_class(x, r, depth + 1);
        return NULL;
    }
    default:
        return NULL;
    }
}

/* ---- doc comments ---- */

static bool is_jsdoc(tx *x, TSNode c)
{
    uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
    return b - a >= 5 && memcmp(x->src + a, "/**", 3) == 0 && x->src[a + 3] != '/';
}

/* Comment text without its markers: `/ **`, `* /`, leading `*` on each line
 * and `//`. Stops at the first block tag (`@param`) once there is text.
 * Normalised by graph__doc. */
static const char *comment_doc(tx *x, TSNode c)
{
    uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
    const char *s = x->src + a;
    size_t n = b - a;
    core_buf *out = &x->scratch;
    core_buf_reset(out);
    bool block = n >= 2 && s[1] == '*';
    if (block) {
        size_t i = 2;
        while (i < n && s[i] == '*')
            i++;
        size_t end = n >= 2 && s[n - 2] == '*' && s[n - 1] == '/' ? n - 2 : n;
        while (end > i && s[end - 1] == '*')
            end--;
        while (i < end) {
            size_t eol = i;
            while (eol < end && s[eol] != '\n')
                eol++;
            size_t j = i;
            while (j < eol && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
                j++;
            while (j < eol && s[j] == '*')
                j++;
            while (j < eol && (s[j] == ' ' || s[j] == '\t'))
                j++;
            if (j < eol && s[j] == '@' && out->len > 0)
                break;
            core_buf_append(out, s + j, eol - j);
            core_buf_putc(out, '\n');
            i = eol + 1;
        }
    } else {
        size_t i = 0;
        while (i < n && s[i] == '/')
            i++;
        core_buf_append(out, s + i, n - i);
    }
    if (!out->len)
        return NULL;
    return graph__doc(x->f, out->data, out->len);
}

/* Only whitespace and line comments between byte a and byte b? *blank
 * says whether an empty line is among them. */
static bool gap_is_blank(tx *x, uint32_t a, uint32_t b, bool *blank)
{
    *blank = false;
    if (a > b || b - a > 4096)
        return false;
    int run = 0; /* newlines since the last text */
    for (uint32_t i = a; i < b; i++) {
        char ch = x->src[i];
        if (ch == '\n') {
            if (++run >= 2)
                *blank = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\r') {
            continue;
        } else if (ch == '/' && i + 1 < b && x->src[i + 1] == '/') {
            while (i + 1 < b && x->src[i + 1] != '\n')
                i++;
            run = 0;
        } else {
            return false;
        }
    }
    return true;
}

/* The JSDoc comment right before `outer` (no empty line between), if any;
 * taken only once. */
static const char *take_doc(tx *x, TSNode outer)
{
    if (is_null(x->doc))
        return NULL;
    bool blank;
    if (!gap_is_blank(x, ts_node_end_byte(x->doc), ts_node_start_byte(outer), &blank) || blank)
        return NULL;
    const char *d = comment_doc(x, x->doc);
    x->doc = gx_null();
    return d;
}

static void note_comment(tx *x, TSNode c)
{
    if (is_jsdoc(x, c))
        x->doc = c;
}

/* ---- symbols ---- */

static int32_t push_sym(tx *x, graph_sym_kind kind, const char *name, int32_t parent,
                        const char *container, TSNode start, uint32_t end, uint32_t flags,
                        const char *doc)
{
    uint32_t sl = gx_line(start);
    gx_sym s = {.name = name,
                .container = container,
                .doc = doc,
                .parent = parent,
                .start_line = sl,
                .end_line = end < sl ? sl : end,
                .kind = (uint8_t)kind,
                .flags = flags};
    core_vec_push(&x->f->syms, s);
    int32_t idx = (int32_t)(x->f->syms.n - 1);
    if (kind == GRAPH_SYM_FUNCTION || kind == GRAPH_SYM_CLASS)
        core_smap_add(&x->fns, name, strlen(name), (uint32_t)idx);
    return idx;
}

/* The symbol of a declaration node n (class, interface, enum, type) that
 * spans from outer, with its JSDoc; flags from sc and extra. */
static int32_t push_decl(tx *x, graph_sym_kind kind, const char *name, TSNode n, TSNode outer,
                         const ts_scope *sc, uint32_t extra)
{
    return push_sym(x, kind, name, sc->sym, sc->container, outer, graph__end_line(n),
                    decl_flags(sc) | extra, take_doc(x, outer));
}

/* A function or class named `name` declared at the level of sc. */
static int32_t find_fn(tx *x, const char *name, const ts_scope *sc)
{
    size_t len = strlen(name);
    uint32_t it = 0;
    for (uint32_t v = core_smap_get(&x->fns, name, len, &it); v != UINT32_MAX;
         v = core_smap_next(&x->fns, name, len, &it)) {
        const gx_sym *s = &x->f->syms.v[v];
        bool same_container =
            (!s->container && !sc->container) ||
            (s->container && sc->container && !strcmp(s->container, sc->container));
        if (s->parent == sc->sym && same_container)
            return (int32_t)v;
    }
    return -1;
}

/* ---- loggers ---- */

static const ts_logger *find_logger(tx *x, const char *key)
{
    if (!key)
        return NULL;
    for (size_t i = x->loggers.n; i-- > 0;)
        if (strcmp(x->loggers.v[i].key, key) == 0)
            return &x->loggers.v[i];
    return NULL;
}

static void push_logger(tx *x, const char *key, lg_what what, const char *logger,
                        const char *method, graph_level level, bool console)
{
    ts_logger lg = {.key = key,
                    .logger = logger,
                    .method = method,
                    .level = level,
                    .what = (uint8_t)what,
                    .console = console};
    core_vec_push(&x->loggers, lg);
}

static bool is_console(const char *recv)
{
    size_t n = strlen(recv);
    return strcmp(recv, "console") == 0 || (n > 8 && strcmp(recv + n - 8, ".console") == 0);
}

/* A logging library whose export is a logger or makes loggers. */
static bool logger_lib(const char *m)
{
    static const char *const libs[] = {
        "pino",     "winston", "bunyan",   "log4js",
        "loglevel", "npmlog",  "signale",  "consola",
        "tslog",    "roarr",   "proc-log", "@nestjs/common/services/logger.service"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (strcmp(m, libs[i]) == 0)
            return true;
    return false;
}

/* Is a receiver path a logger? */
static bool logger_recv(tx *x, const char *recv)
{
    if (!recv)
        return false;
    const ts_logger *lg = find_logger(x, recv);
    if (lg)
        return lg->what == LG_OBJECT || lg->what == LG_LIB;
    return graph__loggerish_path(recv);
}

/* `require('m')` or `import('m')` with a literal: the module, else NULL. */
static const char *require_of(tx *x, TSNode call)
{
    if (ty(x, call) != N_CALL_EXPRESSION)
        return NULL;
    TSNode fn = fld(x, call, F_FUNCTION), args = fld(x, call, F_ARGUMENTS);
    if (is_null(fn) || ty(x, args) != N_ARGUMENTS)
        return NULL;
    if (!(ty(x, fn) == N_IMPORT || (ty(x, fn) == N_IDENTIFIER && text_eq(x, fn, "require"))))
        return NULL;
    TSNode a0 = ts_node_named_child(args, 0);
    if (ty(x, a0) != N_STRING || ts_node_named_child_count(args) != 1)
        return NULL;
    return string_value(x, a0);
}

/* The value of property `key` in an object literal, or a null node. */
static NOINLINE TSNode object_key(tx *x, TSNode obj, const char *key, int depth)
{
    TSTreeCursor *c = ty(x, obj) == N_OBJECT ? kids(x, depth, obj) : NULL;
    if (!c)
        return gx_null();
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        if (ty(x, p) != N_PAIR)
            continue;
        TSNode k = fld(x, p, F_KEY);
        if ((ty(x, k) == N_PROPERTY_IDENTIFIER && text_eq(x, k, key)) ||
            (ty(x, k) == N_STRING &&
             ts_node_end_byte(k) - ts_node_start_byte(k) == strlen(key) + 2 &&
             memcmp(x->src + ts_node_start_byte(k) + 1, key, strlen(key)) == 0))
            return fld(x, p, F_VALUE);
    } while (ts_tree_cursor_goto_next_sibling(c));
    return gx_null();
}

/* The logger name a factory call gives: a literal first argument, the
 * `name` of an options object, or `X.name` (the class name). */
static NOINLINE const char *logger_name_of(tx *x, TSNode call, int depth)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    if (ty(x, args) != N_ARGUMENTS)
        return NULL;
    TSNode a0 = unwrap(x, ts_node_named_child(args, 0));
    switch (ty(x, a0)) {
    case N_STRING:
        return string_value(x, a0);
    case N_MEMBER_EXPRESSION: {
        TSNode obj = fld(x, a0, F_OBJECT), prop = fld(x, a0, F_PROPERTY);
        if (ty(x, obj) == N_IDENTIFIER && !is_null(prop) && text_eq(x, prop, "name"))
            return name_text(x, obj);
        return NULL;
    }
    case N_OBJECT: {
        TSNode v = unwrap(x, object_key(x, a0, "name", depth));
        if (is_null(v))
            v = unwrap(x, object_key(x, a0, "label", depth));
        return ty(x, v) == N_STRING ? string_value(x, v) : NULL;
    }
    default:
        return NULL;
    }
}

/* pino(), winston.createLogger(), log4js.getLogger('x'), logger.child(),
 * require('pino')(), ...: a call that makes a logger. */
static NOINLINE bool logger_factory(tx *x, TSNode call, const char **lname, int depth)
{
    if (ty(x, call) != N_CALL_EXPRESSION || depth > GX_MAX_DEPTH)
        return false;
    TSNode fn = fld(x, call, F_FUNCTION);
    if (is_null(fn))
        return false;
    bool yes = false;
    const char *inherit = NULL; /* a child logger keeps its parent's name */
    const char *m = require_of(x, fn);
    if (m) {
        yes = logger_lib(m);
    } else if (ty(x, fn) == N_MEMBER_EXPRESSION && !path_of(x, fn, 0)) {
        /* pino().child({...}) */
        TSNode prop = fld(x, fn, F_PROPERTY);
        if (!is_null(prop) && (text_eq(x, prop, "child") || text_eq(x, prop, "scope")))
            yes = logger_factory(x, unwrap(x, fld(x, fn, F_OBJECT)), &inherit, depth + 1);
    } else {
        const char *p = path_of(x, fn, 0);
        if (!p)
            return false;
        const ts_logger *lg = find_logger(x, p);
        const char *last = gx_last_component(p);
        if (lg && lg->what == LG_LIB) {
            yes = true;
        } else if (!strcmp(last, "pino") || !strcmp(last, "createLogger") ||
                   !strcmp(last, "getLogger") || !strcmp(last, "getChildLogger") ||
                   !strcmp(last, "createConsola") || !strcmp(last, "bunyan")) {
            yes = true;
        } else if (!strcmp(last, "child") || !strcmp(last, "scope") || !strcmp(last, "withTag")) {
            /* logger.child({...}) */
            if (last != p) {
                char *recv = core_arena_strndup(&x->f->arena, p, (size_t)(last - p - 1));
                yes = logger_recv(x, recv);
                const ts_logger *base = find_logger(x, recv);
                if (base)
                    inherit = base->logger;
            }
        }
    }
    if (yes && lname) {
        *lname = logger_name_of(x, call, depth);
        if (!*lname)
            *lname = inherit;
    }
    return yes;
}

/* A path naming a logger method ("logger.warn", "console.error"): its level
 * and method; NONE if it is not one. */
static graph_level logger_method(tx *x, const char *p, const char **method, bool *console,
                                 const char **lname)
{
    const char *dot = strrchr(p, '.');
    if (!dot)
        return GRAPH_LEVEL_NONE;
    const char *m = dot + 1;
    graph_level lvl =
        strcmp(m, "log") == 0 ? GRAPH_LEVEL_INFO : graph_level_of_method(m, strlen(m));
    if (lvl == GRAPH_LEVEL_NONE)
        return lvl;
    char *recv = core_arena_strndup(&x->f->arena, p, (size_t)(dot - p));
    *console = is_console(recv);
    if (!*console && !logger_recv(x, recv))
        return GRAPH_LEVEL_NONE;
    const ts_logger *base = find_logger(x, recv);
    *lname = base ? base->logger : NULL;
    *method = m;
    return lvl;
}

/* A call's first argument when it is a string literal: its value; else NULL. */
static const char *string_arg0(tx *x, TSNode call)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    TSNode a0 = ty(x, args) == N_ARGUMENTS ? ts_node_named_child(args, 0) : gx_null();
    return ty(x, a0) == N_STRING ? string_value(x, a0) : NULL;
}

/*
 * Notes what `key = value` makes of key for the emit detector: a logger
 * (pino(), new Logger()), a logger method alias (logger.warn,
 * console.log.bind(console)), the debug factory (require('debug')) or a
 * debug logger (require('debug')('ns'), createDebug('ns')).
 */
static NOINLINE void note_logger(tx *x, const char *key, TSNode value, int depth)
{
    TSNode v = unwrap(x, value);
    unsigned t = ty(x, v);
    if (!key || is_null(v))
        return;
    if (t == N_CALL_EXPRESSION) {
        const char *m = require_of(x, v);
        if (m) {
            if (strcmp(m, "debug") == 0)
                push_logger(x, key, LG_DEBUG, NULL, NULL, GRAPH_LEVEL_NONE, false);
            else if (logger_lib(m))
                push_logger(x, key, LG_LIB, NULL, NULL, GRAPH_LEVEL_NONE, false);
            return;
        }
        TSNode fn = unwrap(x, fld(x, v, F_FUNCTION));
        const char *fm = require_of(x, fn);
        const char *fp = fm ? NULL : path_of(x, fn, 0);
        const ts_logger *flg = fp ? find_logger(x, fp) : NULL;
        if ((fm && strcmp(fm, "debug") == 0) || (flg && flg->what == LG_DEBUG)) {
            push_logger(x, key, LG_FUNC, string_arg0(x, v), "debug", GRAPH_LEVEL_DEBUG, false);
            return;
        }
        if (fp) {
            const char *last = gx_last_component(fp);
            if (last != fp && strcmp(last, "extend") == 0) {
                /* debug.extend('sub'): namespace "parent:sub" */
                char *head = core_arena_strndup(&x->f->arena, fp, (size_t)(last - fp - 1));
                const ts_logger *base = find_logger(x, head);
                if (base && base->what == LG_FUNC) {
                    const char *sub = string_arg0(x, v);
                    const char *ns = NULL;
                    if (base->logger && sub) {
                        size_t l1 = strlen(base->logger), l2 = strlen(sub);
                        char *s = core_arena_alloc(&x->f->arena, l1 + l2 + 2);
                        memcpy(s, base->logger, l1);
                        s[l1] = ':';
                        memcpy(s + l1 + 1, sub, l2 + 1);
                        ns = s;
                    }
                    push_logger(x, key, LG_FUNC, ns, "debug", GRAPH_LEVEL_DEBUG, false);
                    return;
                }
            }
            if (last != fp && strcmp(last, "bind") == 0) {
                /* logger.warn.bind(logger) */
                const char *inner = core_arena_strndup(&x->f->arena, fp, (size_t)(last - fp - 1));
                const char *method = NULL, *lname = NULL;
                bool console = false;
                graph_level lvl = logger_method(x, inner, &method, &console, &lname);
                if (lvl != GRAPH_LEVEL_NONE)
                    push_logger(x, key, LG_ALIAS, lname, method, lvl, console);
                return;
            }
        }
        const char *lname = NULL;
        if (logger_factory(x, v, &lname, depth))
            push_logger(x, key, LG_OBJECT, lname, NULL, GRAPH_LEVEL_NONE, false);
        return;
    }
    if (t == N_NEW_EXPRESSION) {
        const char *p = path_of(x, fld(x, v, F_CONSTRUCTOR), 0);
        if (!p)
            return;
        const char *last = gx_last_component(p);
        if (strcmp(last, "Logger") == 0 || strcmp(last, "Signale") == 0 ||
            strcmp(last, "Consola") == 0 || graph__loggerish(last, strlen(last)))
            push_logger(x, key, LG_OBJECT, logger_name_of(x, v, depth), NULL, GRAPH_LEVEL_NONE,
                        false);
        return;
    }
    if (t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION) {
        const char *p = path_of(x, v, 0);
        if (!p)
            return;
        const char *method = NULL, *lname = NULL;
        bool console = false;
        graph_level lvl = logger_method(x, p, &method, &console, &lname);
        if (lvl != GRAPH_LEVEL_NONE) {
            push_logger(x, key, LG_ALIAS, lname, method, lvl, console);
            return;
        }
        /* const log = this.logger: still a logger under its new name. */
        const ts_logger *lg = find_logger(x, p);
        if (lg) {
            ts_logger copy = *lg;
            copy.key = key;
            core_vec_push(&x->loggers, copy);
        }
    }
}

/* ---- parameters (for logging wrappers) ---- */

/* Does s[0, n) hold "level", "lvl" or "severity", in any case? */
static bool levelish(const char *s, size_t n)
{
    static const char *const words[] = {"level", "lvl", "severity"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t k = strlen(words[w]);
        for (size_t i = 0; i + k <= n; i++) {
            size_t j = 0;
            while (j < k && (s[i + j] | 0x20) == words[w][j])
                j++;
            if (j == k)
                return true;
        }
    }
    return false;
}

/*
 * The name node of a parameter (a required_parameter or
 * optional_parameter): an identifier, or a null node for a destructured
 * one. *rest: it is `...name`; *skip: it takes no position (`this: T`).
 */
static TSNode param_name(tx *x, TSNode p, bool *rest, bool *skip)
{
    *rest = *skip = false;
    TSNode pat = fld(x, p, F_PATTERN);
    if (is_null(pat))
        pat = fld(x, p, F_NAME);
    if (ty(x, pat) == N_THIS) {
        *skip = true;
        return gx_null();
    }
    if (ty(x, pat) == N_REST_PATTERN) {
        *rest = true;
        pat = ts_node_named_child(pat, 0);
    }
    return ty(x, pat) == N_IDENTIFIER ? pat : gx_null();
}

enum { PARAMS_MAX = 64 };

/* The parameters of function node fn, as a call passes them; NULL if none. */
static NOINLINE const ts_param *collect_params(tx *x, TSNode fn, uint32_t *np, int depth)
{
    *np = 0;
    TSNode one = fld(x, fn, F_PARAMETER), params = fld(x, fn, F_PARAMETERS);
    if (ty(x, one) == N_IDENTIFIER) {
        /* x => ... */
        const char *nm = name_text(x, one);
        if (!nm)
            return NULL;
        ts_param *p = core_arena_alloc(&x->f->arena, sizeof *p);
        *p = (ts_param){nm, 0, false, levelish(nm, strlen(nm))};
        *np = 1;
        return p;
    }
    uint32_t nc = ts_node_named_child_count(params);
    TSTreeCursor *c = nc ? kids(x, depth, params) : NULL;
    if (!c)
        return NULL;
    ts_param *out =
        core_arena_alloc(&x->f->arena, (nc < PARAMS_MAX ? nc : PARAMS_MAX) * sizeof *out);
    uint32_t n = 0;
    int32_t next = 0;
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, p);
        if (t != N_REQUIRED_PARAMETER && t != N_OPTIONAL_PARAMETER)
            continue;
        bool rest, skip;
        TSNode name = param_name(x, p, &rest, &skip);
        if (skip)
            continue;
        int32_t pos = next++;
        const char *nm = name_text(x, name);
        if (!nm || n >= PARAMS_MAX)
            continue;
        bool lv = levelish(nm, strlen(nm));
        TSNode type = fld(x, p, F_TYPE);
        if (!lv && !is_null(type)) {
            uint32_t a = ts_node_start_byte(type), b = ts_node_end_byte(type);
            lv = b - a < 64 && levelish(x->src + a, b - a);
        }
        out[n++] = (ts_param){nm, pos, rest, lv};
    } while (ts_tree_cursor_goto_next_sibling(c));
    *np = n;
    return n ? out : NULL;
}

/*
 * A callback sees the parameters of the function it is part of, unless it
 * declares one of the same name (then, simply, none).
 */
static NOINLINE bool shadows_params(tx *x, TSNode fn, const ts_scope *sc, int depth)
{
    TSNode one = fld(x, fn, F_PARAMETER);
    if (ty(x, one) == N_IDENTIFIER) {
        for (uint32_t i = 0; i < sc->nparams; i++)
            if (text_eq(x, one, sc->params[i].name))
                return true;
        return false;
    }
    TSTreeCursor *c = kids(x, depth, fld(x, fn, F_PARAMETERS));
    if (!c)
        return false;
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, p);
        if (t != N_REQUIRED_PARAMETER && t != N_OPTIONAL_PARAMETER)
            continue;
        bool rest, skip;
        TSNode name = param_name(x, p, &rest, &skip);
        if (is_null(name))
            continue;
        for (uint32_t i = 0; i < sc->nparams; i++)
            if (text_eq(x, name, sc->params[i].name))
                return true;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return false;
}

/* The parameter of the enclosing function an identifier names, if any. */
static const ts_param *param_named(tx *x, const ts_scope *sc, TSNode id)
{
    if (!sc->nparams || ty(x, id) != N_IDENTIFIER)
        return NULL;
    for (uint32_t i = 0; i < sc->nparams; i++)
        if (text_eq(x, id, sc->params[i].name))
            return &sc->params[i];
    return NULL;
}

/* ---- templates ---- */

enum { M_LITERAL, M_UTIL, M_CONST };

/* Does a decoded string hold a util.format directive? */
static bool has_util_directive(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '%' && s[i + 1] && strchr("sdifjoOc", s[i + 1]))
            return true;
    return false;
}

/* util.format's reading of a format string: %s %d %i %f %j %o %O %c take
 * an argument each (while there are some left: *avail) and are holes;
 * %% is a '%'; everything else is literal. */
static void put_util(tx *x, const char *s, size_t n, uint32_t *avail)
{
    size_t run = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '%')
            continue;
        char c = s[i + 1];
        if (c == '%') {
            graph__tmpl_literal(&x->tmpl, s + run, i + 1 - run);
            run = i + 2;
            i++;
        } else if (c && strchr("sdifjoOc", c) && *avail > 0) {
            graph__tmpl_literal(&x->tmpl, s + run, i - run);
            graph__tmpl_format(&x->tmpl, s + i, 2);
            (*avail)--;
            x->directives++;
            run = i + 2;
            i++;
        }
    }
    graph__tmpl_literal(&x->tmpl, s + run, n - run);
}

static void put_text(tx *x, const char *s, size_t n, int mode, uint32_t *avail)
{
    if (mode == M_UTIL)
        put_util(x, s, n, avail);
    else if (mode == M_CONST)
        graph__tmpl_format(&x->tmpl, s, n);
    else
        graph__tmpl_literal(&x->tmpl, s, n);
}

/* Raw source text [a, b) of a string or template piece: decoded, then put. */
static void put_raw(tx *x, uint32_t a, uint32_t b, int mode, uint32_t *avail)
{
    core_buf_reset(&x->scratch);
    graph__decode_escapes(&x->scratch, x->src + a, b - a, false);
    if (x->scratch.len)
        put_text(x, x->scratch.data, x->scratch.len, mode, avail);
}

static void put_string(tx *x, TSNode s, int mode, uint32_t *avail)
{
    uint32_t a, b;
    string_raw(x, s, &a, &b);
    put_raw(x, a, b, mode, avail);
}

/* A template literal: its text pieces, and a hole per ${...}. Returns the
 * number of substitutions. */
static NOINLINE uint32_t put_template(tx *x, TSNode t, int mode, uint32_t *avail, int depth)
{
    uint32_t a, b;
    string_raw(x, t, &a, &b);
    uint32_t pos = a, subs = 0;
    TSTreeCursor *c = kids(x, depth, t);
    if (c) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ty(x, ch) != N_TEMPLATE_SUBSTITUTION)
                continue;
            uint32_t cs = ts_node_start_byte(ch), ce = ts_node_end_byte(ch);
            if (cs > pos)
                put_raw(x, pos, cs < b ? cs : b, mode, avail);
            graph__tmpl_hole(&x->tmpl);
            subs++;
            if (ce > pos)
                pos = ce;
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (b > pos)
        put_raw(x, pos, b, mode, avail);
    return subs;
}

/* The operands of a chain of `+`, left to right (at most max; a longer
 * chain keeps its head as one operand). */
static uint32_t plus_operands(tx *x, TSNode e, TSNode *ops, uint32_t max)
{
    uint32_t k = 0;
    TSNode cur = e;
    while (k + 1 < max && is_plus(x, cur)) {
        ops[k++] = unwrap(x, fld(x, cur, F_RIGHT));
        cur = unwrap(x, fld(x, cur, F_LEFT));
    }
    ops[k++] = cur;
    for (uint32_t i = 0; i < k / 2; i++) {
        TSNode t = ops[i];
        ops[i] = ops[k - 1 - i];
        ops[k - 1 - i] = t;
    }
    return k;
}

enum { PLUS_MAX = 64, PLUS_NEST = 4 };

/* Is this a string, a template or a `+` chain with one of them? */
static NOINLINE bool stringish(tx *x, TSNode e, int depth)
{
    e = unwrap(x, e);
    unsigned t = ty(x, e);
    if (t == N_STRING || t == N_TEMPLATE_STRING)
        return true;
    if (!is_plus(x, e) || depth >= PLUS_NEST)
        return false;
    TSNode ops[PLUS_MAX];
    uint32_t k = plus_operands(x, e, ops, PLUS_MAX);
    for (uint32_t i = 0; i < k; i++)
        if (stringish(x, ops[i], depth + 1))
            return true;
    return false;
}

/* `'a' + x + 'b'`: literal pieces and holes, left to right. */
static NOINLINE void put_concat(tx *x, TSNode e, int mode, uint32_t *avail, int nest, int depth)
{
    TSNode ops[PLUS_MAX];
    uint32_t k = plus_operands(x, e, ops, PLUS_MAX);
    for (uint32_t i = 0; i < k; i++) {
        unsigned t = ty(x, ops[i]);
        if (t == N_STRING)
            put_string(x, ops[i], mode, avail);
        else if (t == N_TEMPLATE_STRING)
            put_template(x, ops[i], mode, avail, depth + 1);
        else if (is_plus(x, ops[i]) && nest < PLUS_NEST && stringish(x, ops[i], nest + 1))
            put_concat(x, ops[i], mode, avail, nest + 1, depth + 1);
        else
            graph__tmpl_hole(&x->tmpl);
    }
}

typedef struct {
    graph_style style;
    const char *ref;
} msg_info;

static NOINLINE msg_info util_format(tx *x, const TSNode *args, uint32_t nargs, int depth);

/* Collects the arguments of an `arguments` node (up to max; returns how
 * many there are in all). */
static NOINLINE uint32_t collect_args(tx *x, TSNode args, TSNode *out, uint32_t max, int depth)
{
    uint32_t k = 0;
    if (ty(x, args) != N_ARGUMENTS)
        return 0;
    TSTreeCursor *c = kids(x, depth, args);
    if (!c)
        return 0;
    do {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(x, a) == N_COMMENT)
            continue;
        if (k < max)
            out[k] = a;
        k++;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return k;
}

enum { ARGS_MAX = 32 };

/*
 * Builds the template of a message expression into x->tmpl: literal text
 * by `mode` (M_UTIL: util.format directives are holes while *avail
 * arguments last), ${...} and non-literal operands as holes.
 */
static NOINLINE msg_info build_message(tx *x, TSNode e, int mode, uint32_t *avail, int depth)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    if (depth > GX_MAX_DEPTH)
        return mi;
    e = unwrap(x, e);
    switch (ty(x, e)) {
    case N_STRING:
        put_string(x, e, mode, avail);
        mi.style = GRAPH_STYLE_PLAIN;
        return mi;
    case N_TEMPLATE_STRING:
        mi.style =
            put_template(x, e, mode, avail, depth + 1) ? GRAPH_STYLE_TEMPLATE : GRAPH_STYLE_PLAIN;
        return mi;
    case N_BINARY_EXPRESSION:
        if (is_plus(x, e) && stringish(x, e, 0)) {
            put_concat(x, e, mode, avail, 0, depth + 1);
            mi.style = GRAPH_STYLE_CONCAT;
        }
        return mi;
    case N_IDENTIFIER:
    case N_MEMBER_EXPRESSION:
    case N_SUBSCRIPT_EXPRESSION: {
        const char *p = path_of(x, e, 0);
        if (p) {
            mi.style = GRAPH_STYLE_REF;
            mi.ref = p;
        }
        return mi;
    }
    case N_CALL_EXPRESSION: {
        /* util.format('...', ...) / format('...', ...) */
        const char *p = path_of(x, fld(x, e, F_FUNCTION), 0);
        if (p && (strcmp(p, "util.format") == 0 || strcmp(p, "format") == 0)) {
            TSNode av[ARGS_MAX];
            uint32_t na = collect_args(x, fld(x, e, F_ARGUMENTS), av, ARGS_MAX, depth + 1);
            if (na > ARGS_MAX)
                na = ARGS_MAX;
            if (na && stringish(x, av[0], 0))
                return util_format(x, av, na, depth + 1);
        }
        return mi;
    }
    default:
        return mi;
    }
}

/* util.format(args[0], args[1..]): the format's directives take arguments;
 * the arguments left over are appended, space-separated. */
static NOINLINE msg_info util_format(tx *x, const TSNode *args, uint32_t nargs, int depth)
{
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    if (nargs == 0 || depth > GX_MAX_DEPTH)
        return mi;
    uint32_t avail = nargs - 1, dir0 = x->directives;
    mi = build_message(x, args[0], nargs > 1 ? M_UTIL : M_LITERAL, &avail, depth + 1);
    bool holes = false;
    if (mi.style == GRAPH_STYLE_REF || mi.style == GRAPH_STYLE_DYNAMIC) {
        graph__tmpl_clear(&x->tmpl);
        /* A first argument that is not a string is a value util.format
         * shows (debug puts "%O" before it): debug(state, 'after sync')
         * renders the state, then the rest. A name followed by nothing
         * literal may hold the format: the constant's, or nothing known. */
        bool literal_after = false;
        for (uint32_t i = 1; i < nargs && !literal_after; i++)
            literal_after = ty(x, unwrap(x, args[i])) == N_STRING;
        if (!literal_after)
            return mi;
        graph__tmpl_hole(&x->tmpl);
        mi.style = GRAPH_STYLE_PLAIN;
        mi.ref = NULL;
        avail = nargs - 1;
        holes = true;
    }
    uint32_t used = (nargs - 1) - avail;
    for (uint32_t i = 1 + used; i < nargs; i++) {
        graph__tmpl_literal(&x->tmpl, " ", 1);
        TSNode a = unwrap(x, args[i]);
        if (ty(x, a) == N_STRING) {
            put_string(x, a, M_LITERAL, NULL);
        } else {
            graph__tmpl_hole(&x->tmpl);
            holes = true;
        }
    }
    if (mi.style == GRAPH_STYLE_PLAIN && x->directives > dir0)
        mi.style = GRAPH_STYLE_PERCENT;
    else if (mi.style == GRAPH_STYLE_PLAIN && holes)
        mi.style = GRAPH_STYLE_CONCAT;
    return mi;
}

/* ---- emit sites ---- */

enum { H_UTIL, H_LOGGER, H_NAME, H_OBJECT };

typedef struct {
    graph_emit_kind kind;
    graph_level level;
    const char *receiver, *method, *logger;
    uint32_t msg_index; /* which argument the message (or title) starts at */
    int how;            /* H_* */
    uint32_t flags;
} emit_plan;

/* The level a winston-style first argument names ('info', Level.WARN). */
static graph_level level_arg(tx *x, TSNode a)
{
    a = unwrap(x, a);
    const char *s = NULL;
    size_t n = 0;
    if (ty(x, a) == N_STRING) {
        s = decode_string(x, a, &n);
    } else if (ty(x, a) == N_MEMBER_EXPRESSION) {
        TSNode prop = fld(x, a, F_PROPERTY);
        if (is_null(prop))
            return GRAPH_LEVEL_NONE;
        s = x->src + ts_node_start_byte(prop);
        n = ts_node_end_byte(prop) - ts_node_start_byte(prop);
    }
    return s ? graph__level_of_word(s, n) : GRAPH_LEVEL_NONE;
}

/* Decides whether a call is an emit site, and how to read it. */
static NOINLINE bool plan_emit(tx *x, TSNode call, TSNode fn, const char *path, emit_plan *pl,
                               const ts_scope *sc, int depth)
{
    memset(pl, 0, sizeof *pl);
    unsigned ft = ty(x, fn);
    if (ft == N_IDENTIFIER) {
        const ts_logger *lg = path ? find_logger(x, path) : NULL;
        if (!lg || (lg->what != LG_ALIAS && lg->what != LG_FUNC))
            return false;
        pl->kind = GRAPH_EMIT_LOG;
        pl->level = lg->level;
        pl->receiver = path;
        pl->method = lg->method;
        pl->logger = lg->logger;
        if (lg->what == LG_ALIAS) {
            pl->flags = GRAPH_EF_ALIAS;
            pl->how = lg->console ? H_UTIL : H_LOGGER;
        } else {
            pl->how = H_UTIL;
        }
        return true;
    }
    if (ft != N_MEMBER_EXPRESSION)
        return false;
    TSNode prop = fld(x, fn, F_PROPERTY);
    if (empty_node(prop))
        return false;
    const char *method = text(x, prop);
    size_t ml = strlen(method);
    const char *recv = path && strlen(path) > ml
                           ? core_arena_strndup(&x->f->arena, path, strlen(path) - ml - 1)
                           : NULL;
    if (strcmp(method, "startActiveSpan") == 0 || strcmp(method, "startSpan") == 0 ||
        strcmp(method, "addEvent") == 0) {
        pl->kind = method[0] == 'a' ? GRAPH_EMIT_EVENT : GRAPH_EMIT_SPAN;
        pl->receiver = recv ? recv : "?";
        pl->method = method;
        pl->how = H_NAME;
        return true;
    }
    bool is_log = strcmp(method, "log") == 0;
    graph_level lvl = graph_level_of_method(method, ml);
    if (lvl == GRAPH_LEVEL_NONE && !is_log)
        return false;
    if (recv && is_console(recv)) {
        if (!(is_log || !strcmp(method, "info") || !strcmp(method, "warn") ||
              !strcmp(method, "error") || !strcmp(method, "debug") || !strcmp(method, "trace")))
            return false;
        pl->kind = GRAPH_EMIT_LOG;
        pl->level = is_log ? GRAPH_LEVEL_INFO : lvl;
        pl->receiver = recv;
        pl->method = method;
        pl->how = H_UTIL;
        return true;
    }
    const char *lname = NULL;
    if (recv) {
        if (!logger_recv(x, recv))
            return false;
        const ts_logger *lg = find_logger(x, recv);
        if (lg)
            lname = lg->logger;
    } else {
        /* log4js.getLogger('x').info(...), logger.child({...}).warn(...) */
        TSNode obj = unwrap(x, fld(x, fn, F_OBJECT));
        if (!logger_factory(x, obj, &lname, depth))
            return false;
        const char *fp = path_of(x, fld(x, obj, F_FUNCTION), 0);
        recv = "?";
        if (fp) {
            size_t l = strlen(fp);
            char *r = core_arena_alloc(&x->f->arena, l + 3);
            snprintf(r, l + 3, "%s()", fp);
            recv = r;
        }
    }
    pl->kind = GRAPH_EMIT_LOG;
    pl->receiver = recv;
    pl->method = method;
    pl->logger = lname;
    pl->how = H_LOGGER;
    pl->level = lvl;
    if (is_log) {
        /* winston: logger.log('info', 'msg'); otherwise log() is info. */
        TSNode args = fld(x, call, F_ARGUMENTS);
        graph_level la = GRAPH_LEVEL_NONE;
        TSNode a0 =
            ty(x, args) == N_ARGUMENTS ? unwrap(x, ts_node_named_child(args, 0)) : gx_null();
        if (ty(x, a0) == N_OBJECT) {
            /* logger.log({ level: 'info', message: '...' }) */
            TSNode lv = object_key(x, a0, "level", depth);
            if (!is_null(lv)) {
                la = level_arg(x, lv);
                pl->level = la != GRAPH_LEVEL_NONE ? la : GRAPH_LEVEL_CUSTOM;
                pl->how = H_OBJECT;
                return true;
            }
        }
        if (ty(x, args) == N_ARGUMENTS && ts_node_named_child_count(args) >= 2) {
            la = level_arg(x, a0);
            /* log(level, msg) in a wrapper: the level is the caller's. */
            const ts_param *lp = param_named(x, sc, a0);
            if (la == GRAPH_LEVEL_NONE && lp && lp->levelish && !lp->rest)
                la = GRAPH_LEVEL_CUSTOM;
        }
        if (la != GRAPH_LEVEL_NONE) {
            pl->level = la;
            pl->msg_index = 1;
        } else {
            pl->level = GRAPH_LEVEL_INFO;
        }
    }
    return true;
}

/* Named as classes are: CapWords (an upper-case letter first, a
 * lower-case one somewhere). */
static bool capwords(const char *s)
{
    if (!(s[0] >= 'A' && s[0] <= 'Z'))
        return false;
    for (const char *p = s + 1; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            return true;
    return false;
}

/*
 * A call no listed shape recognises: a candidate emit site (GRAPH_EMIT_CALL)
 * when an argument reads as a message (a string, a template literal, a
 * concatenation with literal parts), the first such one starting the
 * message as util.format reads it (its directives take the arguments
 * after it, the rest are appended). Else the first argument that names a
 * constant (CAPS_WITH_UNDERSCORES), a format kept elsewhere. Whether the
 * callee logs is for the log to say.
 */
static bool local_message(tx *x, TSNode e, TSNode call, const ts_scope *sc);

static NOINLINE bool plan_candidate(tx *x, TSNode call, const char *callee, emit_plan *pl,
                                    const ts_scope *sc, int depth)
{
    memset(pl, 0, sizeof *pl);
    TSNode av[ARGS_MAX];
    uint32_t total = collect_args(x, fld(x, call, F_ARGUMENTS), av, ARGS_MAX, depth);
    uint32_t na = total > ARGS_MAX ? ARGS_MAX : total;
    int32_t idx = -1, ref = -1;
    for (uint32_t i = 0; i < na && idx < 0; i++) {
        TSNode a = unwrap(x, av[i]);
        unsigned t = ty(x, a);
        if (t == N_SPREAD_ELEMENT)
            break;
        if (stringish(x, a, 0)) {
            idx = (int32_t)i;
        } else if (ref < 0 && (t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION)) {
            const char *p = path_of(x, a, 0);
            const char *l = p ? gx_last_component(p) : NULL;
            if (l && graph__const_like(l, strlen(l)))
                ref = (int32_t)i;
        }
    }
    if (idx < 0)
        idx = ref;
    /* Else a message built in a local before the call (see
     * local_values()). */
    for (uint32_t i = 0; i < na && idx < 0; i++) {
        TSNode a = unwrap(x, av[i]);
        if (ty(x, a) == N_SPREAD_ELEMENT)
            break;
        if (local_message(x, a, call, sc))
            idx = (int32_t)i;
    }
    if (idx < 0)
        return false;
    pl->kind = GRAPH_EMIT_CALL;
    graph__callee_split(x->f, callee, &pl->receiver, &pl->method);
    pl->msg_index = (uint32_t)idx;
    pl->how = H_UTIL;
    graph__cand_site(&x->cands, callee);
    if (capwords(pl->method))
        pl->flags |= GRAPH_EF_CTOR;
    return true;
}

/*
 * A message built in a local before the call (`const msg = 'built ' + x;
 * debug(msg)`): the values the function binds the name to before the
 * call, nearest first, each a candidate message of its own as a logging
 * call written there would be (a ternary gives both arms). No flow
 * analysis: a value no run reaches gives a site that matches nothing.
 * Bounded per call (LOCAL_BUDGET nodes looked at, LOCAL_MAX_ALTS values).
 */
#define LOCAL_MAX_ALTS 8
#define LOCAL_BUDGET 4096

static bool function_node(unsigned t)
{
    return t == N_FUNCTION_DECLARATION || t == N_FUNCTION_EXPRESSION || t == N_ARROW_FUNCTION ||
           t == N_METHOD_DEFINITION || t == N_GENERATOR_FUNCTION ||
           t == N_GENERATOR_FUNCTION_DECLARATION;
}

typedef struct {
    TSNode v[LOCAL_MAX_ALTS * 4]; /* values in source order (a ring: the last ones kept) */
    uint32_t n;
} local_vals;

static void local_add(tx *x, local_vals *lv, TSNode value, int depth)
{
    TSNode v = unwrap(x, value);
    if (is_null(v))
        return;
    /* a ? b : c ? d : e: a few levels; deeper ones stay one value. */
    if (ty(x, v) == N_TERNARY_EXPRESSION && depth < 4) {
        local_add(x, lv, fld(x, v, F_CONSEQUENCE), depth + 1);
        local_add(x, lv, fld(x, v, F_ALTERNATIVE), depth + 1);
        return;
    }
    lv->v[lv->n++ % (LOCAL_MAX_ALTS * 4)] = v;
}

/* Records every binding of a plain name in the function body fn (not in
 * functions nested in it), once per body (LOCAL_BUDGET * 4 nodes). */
static NOINLINE void locals_of(tx *x, TSNode fn)
{
    uint32_t key = ts_node_start_byte(fn) + 1;
    if (x->locals_fn == key)
        return;
    x->locals_fn = key;
    x->locals.n = 0;
    uint32_t budget = LOCAL_BUDGET * 4;
    TSTreeCursor c = ts_tree_cursor_new(fn);
    while (budget--) {
        TSNode n = ts_tree_cursor_current_node(&c);
        unsigned t = ty(x, n);
        TSNode name = gx_null(), value = gx_null();
        if (t == N_VARIABLE_DECLARATOR) {
            name = fld(x, n, F_NAME);
            value = fld(x, n, F_VALUE);
        } else if (t == N_ASSIGNMENT_EXPRESSION) {
            name = unwrap(x, fld(x, n, F_LEFT));
            value = fld(x, n, F_RIGHT);
        }
        if (!is_null(name) && ty(x, name) == N_IDENTIFIER && !is_null(value)) {
            uint32_t a = ts_node_start_byte(name);
            core_vec_push(&x->locals, ((struct ts_local){a, ts_node_end_byte(name) - a,
                                                         ts_node_end_byte(n), value}));
        }
        if (!function_node(t) && ts_tree_cursor_goto_first_child(&c))
            continue;
        if (ts_tree_cursor_goto_next_sibling(&c))
            continue;
        /* Up until a parent has a next sibling; never above the body. */
        bool more = false;
        while (ts_tree_cursor_goto_parent(&c)) {
            if (ts_node_eq(ts_tree_cursor_current_node(&c), fn))
                break;
            if (ts_tree_cursor_goto_next_sibling(&c)) {
                more = true;
                break;
            }
        }
        if (!more)
            break;
    }
    ts_tree_cursor_delete(&c);
}

/* The values bound to the identifier id in the function the walk is in
 * (sc), before call; how many, in lv (source order). */
static NOINLINE uint32_t local_values(tx *x, TSNode id, TSNode call, const ts_scope *sc,
                                      local_vals *lv)
{
    lv->n = 0;
    TSNode fn = sc->body;
    if (is_null(fn) || ts_node_is_null(fn))
        return 0;
    locals_of(x, fn);
    uint32_t at = ts_node_start_byte(call);
    uint32_t ia = ts_node_start_byte(id), in = ts_node_end_byte(id) - ia;
    for (size_t i = 0; i < x->locals.n; i++) {
        const struct ts_local *l = &x->locals.v[i];
        if (l->end <= at && l->len == in && memcmp(x->src + l->name, x->src + ia, in) == 0)
            local_add(x, lv, l->value, 0);
    }
    return lv->n < LOCAL_MAX_ALTS * 4 ? lv->n : LOCAL_MAX_ALTS * 4;
}

/* The k-th value of lv, nearest the call first. */
static TSNode local_nearest(const local_vals *lv, uint32_t k)
{
    return lv->v[(lv->n - 1 - k) % (LOCAL_MAX_ALTS * 4)];
}

static void emit_from_args(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                           const TSNode *av, uint32_t na, uint32_t total, int depth);
static bool node_const_like(tx *x, TSNode n);

/* A plain local of a function: not a parameter (a wrapper passes those
 * on) and not a CONSTANT (looked up as such). */
static bool local_name(tx *x, TSNode e, const ts_scope *sc)
{
    return sc->in_function && !is_null(e) && ty(x, e) == N_IDENTIFIER && !param_named(x, sc, e) &&
           !node_const_like(x, e);
}

/* Whether e is a local the function binds to message text before call. */
static bool local_message(tx *x, TSNode e, TSNode call, const ts_scope *sc)
{
    if (!local_name(x, e, sc))
        return false;
    local_vals lv;
    uint32_t n = local_values(x, e, call, sc, &lv);
    for (uint32_t k = 0; k < n; k++)
        if (stringish(x, local_nearest(&lv, k), 0))
            return true;
    return false;
}

static NOINLINE void make_emit(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                               int depth)
{
    TSNode av[ARGS_MAX];
    uint32_t total = collect_args(x, fld(x, call, F_ARGUMENTS), av, ARGS_MAX, depth);
    uint32_t na = total > ARGS_MAX ? ARGS_MAX : total;
    /* The message slot: pino's (object, 'message') puts it second. */
    uint32_t slot = pl->msg_index;
    if (pl->how == H_LOGGER && slot + 1 < na && ty(x, unwrap(x, av[slot])) == N_OBJECT)
        slot++;
    TSNode m = slot < na ? unwrap(x, av[slot]) : gx_null();
    /* Candidate messages for the slot, each a site of its own. */
    TSNode cand[LOCAL_MAX_ALTS];
    uint32_t nc = 0;
    if ((pl->how == H_UTIL || pl->how == H_LOGGER) && local_name(x, m, sc)) {
        local_vals lv;
        uint32_t n = local_values(x, m, call, sc, &lv);
        for (uint32_t k = 0; k < n && nc < LOCAL_MAX_ALTS; k++) {
            TSNode v = local_nearest(&lv, k);
            if (stringish(x, v, 0))
                cand[nc++] = v;
        }
    } else if ((pl->how == H_UTIL || pl->how == H_LOGGER) && !is_null(m) && ty(x, m) == N_OBJECT &&
               slot + 1 >= na) {
        /* logger.info({ msg: 'listening on ' + port }): the record's
         * message is one of its text properties; which one, the log says. */
        uint32_t np = ts_node_named_child_count(m);
        for (uint32_t i = 0; i < np && nc < LOCAL_MAX_ALTS; i++) {
            TSNode pr = ts_node_named_child(m, i);
            TSNode v = ty(x, pr) == N_PAIR ? unwrap(x, fld(x, pr, F_VALUE)) : gx_null();
            if (!is_null(v) && stringish(x, v, 0))
                cand[nc++] = v;
        }
    }
    if (nc) {
        TSNode alt[ARGS_MAX];
        memcpy(alt, av, na * sizeof *av);
        for (uint32_t i = 0; i < nc; i++) {
            alt[slot] = cand[i];
            emit_from_args(x, call, pl, sc, alt, na, total, depth);
        }
        return;
    }
    emit_from_args(x, call, pl, sc, av, na, total, depth);
}

static void emit_from_args(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                           const TSNode *av, uint32_t na, uint32_t total, int depth)
{
    gx_emit em = {0};
    em.kind = (uint8_t)pl->kind;
    em.level = (uint8_t)pl->level;
    em.receiver = pl->receiver;
    em.method = pl->method;
    em.logger = pl->logger;
    em.sym = sc->sym;
    em.line = gx_line(call);
    em.flags = pl->flags | x->emit_flags;
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    x->directives = 0;
    graph__tmpl_clear(&x->tmpl);
    if (pl->msg_index < na) {
        const TSNode *a = av + pl->msg_index;
        uint32_t k = na - pl->msg_index;
        if (pl->how == H_OBJECT || pl->how == H_NAME) {
            /* The message is a[0] itself, or its `message` property. */
            TSNode msg =
                pl->how == H_NAME ? a[0] : object_key(x, unwrap(x, a[0]), "message", depth + 1);
            if (!is_null(msg))
                mi = build_message(x, msg, M_LITERAL, NULL, depth + 1);
            if (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF)
                core_buf_reset(&x->tmpl.buf);
            em.nargs = k - 1;
        } else if (pl->how == H_LOGGER && k >= 2 && !stringish(x, a[0], 0) &&
                   stringish(x, a[1], 0)) {
            /* pino: (mergingObject, 'message %s', ...) */
            mi = util_format(x, a + 1, k - 1, depth + 1);
            em.nargs = k - 2;
        } else if (pl->how == H_LOGGER && k >= 2 && ty(x, unwrap(x, a[0])) == N_STRING &&
                   stringish(x, a[1], 0)) {
            /* npmlog / proc-log: (title, 'message %s', ...), unless the
             * first is itself a format. */
            size_t tl;
            const char *title = decode_string(x, unwrap(x, a[0]), &tl);
            if (title && !has_util_directive(title, tl)) {
                if (tl) {
                    put_string(x, unwrap(x, a[0]), M_LITERAL, NULL);
                    graph__tmpl_literal(&x->tmpl, " ", 1);
                }
                mi = util_format(x, a + 1, k - 1, depth + 1);
                em.nargs = k - 2;
            } else {
                mi = util_format(x, a, k, depth + 1);
                em.nargs = k - 1;
            }
        } else {
            mi = util_format(x, a, k, depth + 1);
            em.nargs = k - 1;
        }
    }
    em.nargs += total - na; /* arguments past ARGS_MAX */
    em.style = (uint8_t)mi.style;
    em.ref = mi.ref;
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    core_vec_push(&x->f->emits, em);
    if (pl->kind == GRAPH_EMIT_LOG)
        graph__mark_logs(x->f, sc->sym, mi.style);
}

/* A string constant: `const X = '...'`, `static X = '...'`, enum members,
 * object properties. %-directives stay holes. */
static NOINLINE void add_const(tx *x, const char *name, TSNode value, int32_t sym, int depth)
{
    TSNode v = unwrap(x, value);
    if (!name || is_null(v))
        return;
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.name = name;
    em.sym = sym;
    em.line = gx_line(v);
    em.receiver = "";
    em.method = "";
    graph__tmpl_clear(&x->tmpl);
    unsigned t = ty(x, v);
    if (t == N_STRING) {
        put_string(x, v, M_CONST, NULL);
        em.style = x->tmpl.holes ? GRAPH_STYLE_PERCENT : GRAPH_STYLE_PLAIN;
    } else if (t == N_TEMPLATE_STRING) {
        uint32_t subs = put_template(x, v, M_CONST, NULL, depth + 1);
        em.style = subs            ? GRAPH_STYLE_TEMPLATE
                   : x->tmpl.holes ? GRAPH_STYLE_PERCENT
                                   : GRAPH_STYLE_PLAIN;
    } else if (is_plus(x, v) && stringish(x, v, 0)) {
        put_concat(x, v, M_CONST, NULL, 0, depth + 1);
        em.style = GRAPH_STYLE_CONCAT;
    } else {
        return;
    }
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    if (em.tmpl)
        core_vec_push(&x->f->emits, em);
}

/* ---- bindings ---- */

/* What a right-hand side makes of the name it is bound to. */
static NOINLINE void bind_value(tx *x, const char *name, TSNode value, int32_t scope, TSNode at)
{
    TSNode v = unwrap(x, value);
    if (ty(x, v) == N_AWAIT_EXPRESSION)
        v = unwrap(x, ts_node_named_child(v, 0));
    switch (ty(x, v)) {
    case N_NEW_EXPRESSION: {
        const char *p = path_of(x, fld(x, v, F_CONSTRUCTOR), 0);
        add_bind(x, p ? GX_BIND_NEW : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    case N_CALL_EXPRESSION: {
        const char *p = path_of(x, fld(x, v, F_FUNCTION), 0);
        if (p) {
            const char *last = gx_last_component(p);
            if (last != p && strcmp(last, "bind") == 0) {
                /* this.handle.bind(this): the same function */
                add_bind(x, GX_BIND_ALIAS, name,
                         core_arena_strndup(&x->f->arena, p, (size_t)(last - p - 1)), scope, at);
                return;
            }
        }
        add_bind(x, p ? GX_BIND_CALL : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    case N_IDENTIFIER:
    case N_MEMBER_EXPRESSION:
    case N_THIS: {
        const char *p = path_of(x, v, 0);
        add_bind(x, p ? GX_BIND_ALIAS : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    default:
        add_bind(x, GX_BIND_LOCAL, name, NULL, scope, at);
    }
}

/* Every name a destructuring pattern binds: LOCAL. */
static NOINLINE void bind_pattern(tx *x, TSNode p, int32_t scope, int depth)
{
    switch (ty(x, p)) {
    case N_IDENTIFIER:
    case N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN:
        add_bind(x, GX_BIND_LOCAL, name_text(x, p), NULL, scope, p);
        return;
    case N_PAIR_PATTERN:
        bind_pattern(x, fld(x, p, F_VALUE), scope, depth + 1);
        return;
    case N_OBJECT_ASSIGNMENT_PATTERN:
    case N_ASSIGNMENT_PATTERN:
        bind_pattern(x, fld(x, p, F_LEFT), scope, depth + 1);
        return;
    case N_REST_PATTERN:
    case N_OBJECT_PATTERN:
    case N_ARRAY_PATTERN: {
        TSTreeCursor *c = kids(x, depth, p);
        if (!c)
            return;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch))
                bind_pattern(x, ch, scope, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    default:
        return;
    }
}

/* ---- imports ---- */

static void add_import(tx *x, gx_import_kind kind, const char *module, const char *name,
                       const char *alias, const ts_scope *sc, TSNode at)
{
    if (!module)
        return;
    gx_import im = {.module = module,
                    .name = name,
                    .alias = alias,
                    .scope = sc->sym,
                    .line = gx_line(at),
                    .kind = (uint8_t)kind};
    core_vec_push(&x->f->imports, im);
    /* Names the emit detector must know. */
    if (!alias)
        return;
    bool whole = kind == GX_IMP_MODULE || (name && strcmp(name, "default") == 0);
    if (strcmp(module, "debug") == 0 && whole)
        push_logger(x, alias, LG_DEBUG, NULL, NULL, GRAPH_LEVEL_NONE, false);
    else if (logger_lib(module) && whole)
        push_logger(x, alias, LG_LIB, NULL, NULL, GRAPH_LEVEL_NONE, false);
}

/* `{a, b as c}` of an import statement `at`; true if it names any. */
static NOINLINE bool named_imports(tx *x, TSNode ni, const char *module, const ts_scope *sc,
                                   TSNode at, int depth)
{
    bool any = false;
    TSTreeCursor *c = kids(x, depth, ni);
    if (!c)
        return false;
    do {
        TSNode sp = ts_tree_cursor_current_node(c);
        if (ty(x, sp) != N_IMPORT_SPECIFIER)
            continue;
        TSNode nm = fld(x, sp, F_NAME), al = fld(x, sp, F_ALIAS);
        const char *name = ty(x, nm) == N_STRING ? string_value(x, nm) : name_text(x, nm);
        const char *alias = is_null(al) ? name : name_text(x, al);
        if (name && alias)
            add_import(x, GX_IMP_NAME, module, name, alias, sc, at);
        any = true;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return any;
}

/* The import_clause of import statement `at`; true if it names any. */
static NOINLINE bool import_clause(tx *x, TSNode clause, const char *module, const ts_scope *sc,
                                   TSNode at, int depth)
{
    bool any = false;
    TSTreeCursor *c = kids(x, depth, clause);
    if (!c)
        return false;
    do {
        TSNode part = ts_tree_cursor_current_node(c);
        unsigned pt = ty(x, part);
        if (pt == N_IDENTIFIER) {
            add_import(x, GX_IMP_NAME, module, "default", name_text(x, part), sc, at);
            any = true;
        } else if (pt == N_NAMESPACE_IMPORT) {
            TSNode id = ts_node_named_child(part, 0);
            add_import(x, GX_IMP_MODULE, module, NULL, name_text(x, id), sc, at);
            any = true;
        } else if (pt == N_NAMED_IMPORTS) {
            any |= named_imports(x, part, module, sc, at, depth + 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    return any;
}

static NOINLINE void do_import(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    const char *module = string_value(x, fld(x, n, F_SOURCE));
    bool any = false;
    TSTreeCursor *c = kids(x, depth, n);
    if (c) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            unsigned t = ty(x, ch);
            if (t == N_IMPORT_REQUIRE_CLAUSE) {
                /* import x = require('m') */
                const char *m = string_value(x, fld(x, ch, F_SOURCE));
                TSNode id = ts_node_named_child(ch, 0);
                if (m && ty(x, id) == N_IDENTIFIER)
                    add_import(x, GX_IMP_MODULE, m, NULL, name_text(x, id), sc, n);
                any = true;
            } else if (t == N_IMPORT_CLAUSE && module) {
                any |= import_clause(x, ch, module, sc, n, depth + 1);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (!any && module)
        add_import(x, GX_IMP_MODULE, module, NULL, NULL, sc, n);
}

/*
 * `const x = require('m')`, `const {a, b: c} = require('m')`,
 * `const x = require('m').y`, `const x = await import('m')`: the imports;
 * false when the value is none of these.
 */
static NOINLINE bool require_decl(tx *x, TSNode name, TSNode value, const ts_scope *sc, int depth)
{
    TSNode v = unwrap(x, value);
    if (ty(x, v) == N_AWAIT_EXPRESSION)
        v = unwrap(x, ts_node_named_child(v, 0));
    const char *m = require_of(x, v);
    unsigned nt = ty(x, name);
    if (m) {
        if (nt == N_IDENTIFIER) {
            add_import(x, GX_IMP_MODULE, m, NULL, name_text(x, name), sc, v);
        } else if (nt == N_OBJECT_PATTERN) {
            TSTreeCursor *c = kids(x, depth, name);
            if (c) {
                do {
                    TSNode p = ts_tree_cursor_current_node(c);
                    unsigned pt = ty(x, p);
                    if (pt == N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN) {
                        const char *nm = name_text(x, p);
                        add_import(x, GX_IMP_NAME, m, nm, nm, sc, v);
                    } else if (pt == N_PAIR_PATTERN) {
                        const char *k = member_name(x, fld(x, p, F_KEY));
                        TSNode val = fld(x, p, F_VALUE);
                        if (ty(x, val) == N_ASSIGNMENT_PATTERN)
                            val = fld(x, val, F_LEFT);
                        if (k && ty(x, val) == N_IDENTIFIER)
                            add_import(x, GX_IMP_NAME, m, k, name_text(x, val), sc, v);
                        else
                            bind_pattern(x, val, sc->sym, depth + 1);
                    } else if (pt == N_OBJECT_ASSIGNMENT_PATTERN) {
                        TSNode l = fld(x, p, F_LEFT);
                        const char *nm = name_text(x, l);
                        add_import(x, GX_IMP_NAME, m, nm, nm, sc, v);
                    } else if (ts_node_is_named(p)) {
                        bind_pattern(x, p, sc->sym, depth + 1);
                    }
                } while (ts_tree_cursor_goto_next_sibling(c));
            }
        } else {
            add_import(x, GX_IMP_MODULE, m, NULL, NULL, sc, v);
            bind_pattern(x, name, sc->sym, depth + 1);
        }
        return true;
    }
    if (ty(x, v) == N_MEMBER_EXPRESSION && nt == N_IDENTIFIER) {
        TSNode obj = unwrap(x, fld(x, v, F_OBJECT)), prop = fld(x, v, F_PROPERTY);
        m = require_of(x, obj);
        if (m && !empty_node(prop)) {
            add_import(x, GX_IMP_NAME, m, text(x, prop), name_text(x, name), sc, v);
            return true;
        }
    }
    return false;
}

/* ---- functions ---- */

static uint32_t fn_flags(tx *x, TSNode fn)
{
    uint32_t flags = 0;
    unsigned t = ty(x, fn);
    if (t == N_GENERATOR_FUNCTION || t == N_GENERATOR_FUNCTION_DECLARATION)
        flags |= GRAPH_SF_GENERATOR;
    /* `async` leads; a few children at most before it. */
    uint32_t nc = ts_node_child_count(fn);
    for (uint32_t i = 0; i < nc && i < 3; i++) {
        unsigned ct = ty(x, ts_node_child(fn, i));
        if (ct == A_ASYNC)
            flags |= GRAPH_SF_ASYNC;
        else if (ct == A_STAR)
            flags |= GRAPH_SF_GENERATOR;
    }
    return flags;
}

/* Modifiers before a member's name: static, get, set, async, *, private. */
static NOINLINE uint32_t member_flags(tx *x, TSNode m, int depth)
{
    uint32_t flags = 0;
    TSTreeCursor *c = kids(x, depth, m);
    if (!c)
        return 0;
    do {
        if (ts_tree_cursor_current_field_id(c) == x->fid[F_NAME])
            break;
        TSNode ch = ts_tree_cursor_current_node(c);
        switch (ty(x, ch)) {
        case A_STATIC:
            flags |= GRAPH_SF_STATIC;
            break;
        case A_GET:
            flags |= GRAPH_SF_GETTER;
            break;
        case A_SET:
            flags |= GRAPH_SF_SETTER;
            break;
        case A_ASYNC:
            flags |= GRAPH_SF_ASYNC;
            break;
        case A_STAR:
            flags |= GRAPH_SF_GENERATOR;
            break;
        case N_ACCESSIBILITY_MODIFIER:
            if (text_eq(x, ch, "private"))
                flags |= GRAPH_SF_PRIVATE;
            break;
        default:
            break;
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    return flags;
}

static NOINLINE void walk_decorator(tx *x, TSNode dec, const ts_scope *sc, int depth)
{
    uint32_t saved = x->emit_flags;
    x->emit_flags |= GRAPH_EF_DECORATOR;
    TSNode e = ts_node_named_child(dec, 0);
    unsigned t = ty(x, e);
    if (t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION)
        /* @decorator wraps what it decorates: a call. */
        add_ref(x, GX_REF_CALL, path_of(x, e, 0), sc->sym, e);
    else if (!is_null(e))
        walk(x, e, sc, depth + 1);
    x->emit_flags = saved;
}

static void walk_decorators(tx *x, const TSNode *decs, uint32_t nd, const ts_scope *sc, int depth)
{
    for (uint32_t i = 0; i < nd; i++)
        walk_decorator(x, decs[i], sc, depth + 1);
}

static NOINLINE void do_params(tx *x, TSNode params, const ts_scope *sc, bool bind, int depth)
{
    TSTreeCursor *c = kids(x, depth, params);
    if (!c)
        return;
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, p);
        if (t == N_COMMENT)
            continue;
        if (t != N_REQUIRED_PARAMETER && t != N_OPTIONAL_PARAMETER) {
            if (ts_node_is_named(p))
                walk(x, p, sc, depth + 1);
            continue;
        }
        TSNode pat = fld(x, p, F_PATTERN);
        if (is_null(pat))
            pat = fld(x, p, F_NAME);
        TSNode type = fld(x, p, F_TYPE), value = fld(x, p, F_VALUE);
        /* Decorators and `private readonly` (a parameter property). */
        bool prop = false;
        uint32_t nc = ts_node_child_count(p);
        for (uint32_t i = 0; i < nc && i < 16; i++) {
            TSNode ch = ts_node_child(p, i);
            unsigned ct = ty(x, ch);
            if (ct == N_DECORATOR)
                walk_decorator(x, ch, sc, depth + 1);
            else if (ct == N_ACCESSIBILITY_MODIFIER || ct == A_READONLY || ct == A_OVERRIDE)
                prop = true;
            else if (ct == N_IDENTIFIER || ct == N_THIS || ct == N_REST_PATTERN ||
                     ct == N_OBJECT_PATTERN || ct == N_ARRAY_PATTERN)
                break;
        }
        if (!is_null(type))
            walk(x, type, sc, depth + 1);
        const char *cls = is_null(type) ? NULL : annotation_class(x, type, 0);
        if (ty(x, pat) == N_IDENTIFIER) {
            const char *nm = name_text(x, pat);
            if (bind)
                add_bind(x, cls ? GX_BIND_TYPE : GX_BIND_LOCAL, nm, cls, sc->sym, pat);
            if (prop && nm && cls && sc->cls >= 0)
                add_bind(x, GX_BIND_TYPE, graph__path_join(x->f, "@self", nm, strlen(nm)), cls,
                         sc->cls, pat);
        } else if (bind && !is_null(pat) && ty(x, pat) != N_THIS) {
            bind_pattern(x, pat, sc->sym, depth + 1);
        }
        if (!is_null(value))
            value_ref(x, value, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Parameters, return type and body of a function, in scope `inner`;
 * `bind` binds the parameters as locals of inner.sym. */
static NOINLINE void walk_function(tx *x, TSNode fn, const ts_scope *inner, bool bind, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    TSNode tp = fld(x, fn, F_TYPE_PARAMETERS), params = fld(x, fn, F_PARAMETERS),
           p1 = fld(x, fn, F_PARAMETER), ret = fld(x, fn, F_RETURN_TYPE), body = fld(x, fn, F_BODY);
    size_t saved = x->tparams.n;
    /* What a logging call in the body may pass on (see gx_call): a named
     * function's own parameters; a callback's are not the symbol's. */
    ts_scope in = *inner;
    in.body = body;
    if (bind)
        in.params = collect_params(x, fn, &in.nparams, depth + 1);
    else if (in.nparams && shadows_params(x, fn, &in, depth + 1))
        in.nparams = 0;
    inner = &in;
    if (!is_null(tp)) {
        push_tparams(x, tp, depth + 1);
        walk(x, tp, inner, depth + 1);
    }
    if (!is_null(params))
        do_params(x, params, inner, bind, depth + 1);
    if (bind && ty(x, p1) == N_IDENTIFIER)
        add_bind(x, GX_BIND_LOCAL, name_text(x, p1), NULL, inner->sym, p1);
    if (!is_null(ret))
        walk(x, ret, inner, depth + 1);
    if (!is_null(body)) {
        if (ty(x, body) == N_STATEMENT_BLOCK)
            walk(x, body, inner, depth + 1);
        else
            value_ref(x, body, inner, depth + 1);
    }
    x->tparams.n = saved;
}

/* An unnamed function (a callback): walked as part of the enclosing
 * symbol, its parameters not bound. */
static NOINLINE void walk_callback(tx *x, TSNode fn, const ts_scope *sc, int depth)
{
    ts_scope in = *sc;
    in.in_function = true;
    in.exported = false;
    in.container = NULL;
    if (ty(x, fn) != N_ARROW_FUNCTION && ty(x, fn) != N_METHOD_DEFINITION)
        in.cls = -1;
    walk_function(x, fn, &in, false, depth);
}

/*
 * A FUNCTION or METHOD symbol for function node fn, spanning from outer's
 * first line to fn's end, then the walk of fn inside it. cls: the class
 * `this` belongs to inside, or CLS_SELF.
 */
static NOINLINE int32_t make_fn(tx *x, TSNode fn, TSNode outer, graph_sym_kind kind,
                                const char *name, const char *container, int32_t parent,
                                uint32_t flags, int32_t cls, int depth)
{
    flags |= fn_flags(x, fn);
    const char *doc = take_doc(x, outer);
    int32_t idx =
        push_sym(x, kind, name, parent, container, outer, graph__end_line(fn), flags, doc);
    ts_scope inner = {.sym = idx, .cls = cls == CLS_SELF ? idx : cls, .in_function = true};
    walk_function(x, fn, &inner, true, depth + 1);
    return idx;
}

/* `this` inside a plain function: the function itself when its name says
 * it is a constructor (Foo, not foo). */
static int32_t ctor_cls(const char *name)
{
    return name && name[0] >= 'A' && name[0] <= 'Z' ? CLS_SELF : -1;
}

static NOINLINE void do_function_decl(tx *x, TSNode n, TSNode outer, const char *name,
                                      const ts_scope *sc, int depth)
{
    const char *nm = name ? name : name_text(x, fld(x, n, F_NAME));
    if (!nm) {
        walk_callback(x, n, sc, depth);
        return;
    }
    make_fn(x, n, outer, GRAPH_SYM_FUNCTION, nm, sc->container, sc->sym, decl_flags(sc),
            ctor_cls(nm), depth);
}

/* A method_definition: a METHOD of `parent` (-1: the module) with
 * `container`, or (!make) walked as a callback. */
static NOINLINE void do_method(tx *x, TSNode m, const TSNode *decs, uint32_t nd, bool make,
                               int32_t parent, const char *container, uint32_t extra, int32_t cls,
                               const ts_scope *sc, int depth)
{
    TSNode name = fld(x, m, F_NAME);
    const char *nm = member_name(x, name);
    if (!make || !nm) {
        walk_decorators(x, decs, nd, sc, depth);
        walk_callback(x, m, sc, depth + 1);
        return;
    }
    uint32_t flags = member_flags(x, m, depth) | extra;
    if (ty(x, name) == N_PRIVATE_PROPERTY_IDENTIFIER)
        flags |= GRAPH_SF_PRIVATE;
    if (strcmp(nm, "constructor") == 0 && cls == parent)
        flags |= GRAPH_SF_CTOR;
    TSNode outer = nd ? decs[0] : m;
    const char *doc = take_doc(x, outer);
    int32_t idx =
        push_sym(x, GRAPH_SYM_METHOD, nm, parent, container, outer, graph__end_line(m), flags, doc);
    ts_scope inner = {.sym = idx, .cls = cls, .in_function = true};
    walk_decorators(x, decs, nd, &inner, depth);
    walk_function(x, m, &inner, true, depth + 1);
}

/* ---- classes ---- */

static NOINLINE void do_heritage(tx *x, TSNode h, int32_t cls, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, h);
    if (!c)
        return;
    do {
        TSNode cl = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, cl);
        if (t != N_EXTENDS_CLAUSE && t != N_IMPLEMENTS_CLAUSE)
            continue;
        TSTreeCursor *c2 = kids(x, depth + 1, cl);
        if (!c2)
            continue;
        do {
            TSNode b = ts_tree_cursor_current_node(c2);
            if (!ts_node_is_named(b) || ty(x, b) == N_COMMENT)
                continue;
            unsigned bt = ty(x, b);
            const char *p = NULL;
            if (t == N_EXTENDS_CLAUSE) {
                if (ts_tree_cursor_current_field_id(c2) != x->fid[F_VALUE]) {
                    walk(x, b, sc, depth + 2); /* type arguments */
                    continue;
                }
                p = path_of(x, b, 0);
            } else {
                p = type_path(x, b, 0);
                if (bt == N_GENERIC_TYPE)
                    walk(x, fld(x, b, F_TYPE_ARGUMENTS), sc, depth + 2);
            }
            if (p && cls >= 0)
                add_ref(x, GX_REF_BASE, p, cls, b);
            else if (t == N_EXTENDS_CLAUSE)
                value_ref(x, b, sc, depth + 2);
            else
                walk(x, b, sc, depth + 2);
        } while (ts_tree_cursor_goto_next_sibling(c2));
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static NOINLINE void do_field(tx *x, TSNode fd, const TSNode *decs, uint32_t nd, const ts_scope *sc,
                              int32_t cls, int depth)
{
    TSNode name = fld(x, fd, F_NAME), value = fld(x, fd, F_VALUE), type = fld(x, fd, F_TYPE);
    const char *nm = member_name(x, name);
    uint32_t mf = member_flags(x, fd, depth);
    bool is_static = mf & GRAPH_SF_STATIC;
    TSNode v = unwrap(x, value);
    unsigned vt = ty(x, v);
    if (is_fn(vt) && nm && cls >= 0) {
        /* handler = (e) => {...}: a method bound to the instance */
        uint32_t flags = GRAPH_SF_BOUND | (mf & (GRAPH_SF_STATIC | GRAPH_SF_PRIVATE));
        if (ty(x, name) == N_PRIVATE_PROPERTY_IDENTIFIER)
            flags |= GRAPH_SF_PRIVATE;
        TSNode outer = nd ? decs[0] : fd;
        flags |= fn_flags(x, v);
        const char *doc = take_doc(x, outer);
        int32_t idx =
            push_sym(x, GRAPH_SYM_METHOD, nm, cls, NULL, outer, graph__end_line(v), flags, doc);
        ts_scope inner = {.sym = idx, .cls = cls, .in_function = true};
        walk_decorators(x, decs, nd, &inner, depth);
        if (!is_null(type))
            walk(x, type, &inner, depth + 1);
        walk_function(x, v, &inner, true, depth + 1);
        return;
    }
    walk_decorators(x, decs, nd, sc, depth);
    if (!is_null(type)) {
        walk(x, type, sc, depth + 1);
        const char *ac = annotation_class(x, type, 0);
        if (nm && ac && cls >= 0 && !is_static)
            add_bind(x, GX_BIND_TYPE, graph__path_join(x->f, "@self", nm, strlen(nm)), ac, cls,
                     name);
    }
    if (is_null(value))
        return;
    if (nm && cls >= 0) {
        const char *self = graph__path_join(x->f, "@self", nm, strlen(nm));
        if (is_static && stringish(x, v, 0))
            add_const(x, nm, v, cls, depth + 1);
        if (!is_static) {
            if (vt == N_NEW_EXPRESSION || vt == N_CALL_EXPRESSION || vt == N_MEMBER_EXPRESSION ||
                vt == N_IDENTIFIER)
                bind_value(x, self, value, cls, name);
            note_logger(x, self, value, depth + 1);
        }
        if (vt == N_OBJECT) {
            do_object(x, v, sc, nm, NULL, cls, -1, 0, depth + 1);
            return;
        }
    }
    value_ref(x, value, sc, depth + 1);
}

enum { DECS_MAX = 16 };

static NOINLINE void do_class_body(tx *x, TSNode body, const ts_scope *sc, int32_t cls, int depth)
{
    TSNode decs[DECS_MAX];
    uint32_t nd = 0;
    TSTreeCursor *c = kids(x, depth, body);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_COMMENT) {
            note_comment(x, ch);
            continue;
        }
        if (t == N_DECORATOR) {
            if (nd < DECS_MAX)
                decs[nd++] = ch;
            else
                walk_decorator(x, ch, sc, depth + 1);
            continue;
        }
        if (!ts_node_is_named(ch))
            continue;
        switch (t) {
        case N_METHOD_DEFINITION:
            do_method(x, ch, decs, nd, cls >= 0, cls, NULL, 0, cls, sc, depth + 1);
            break;
        case N_PUBLIC_FIELD_DEFINITION:
            do_field(x, ch, decs, nd, sc, cls, depth + 1);
            break;
        case N_CLASS_STATIC_BLOCK:
            walk_decorators(x, decs, nd, sc, depth);
            walk(x, fld(x, ch, F_BODY), sc, depth + 1);
            break;
        default:
            /* signatures, index signatures: their types */
            walk_decorators(x, decs, nd, sc, depth);
            walk(x, ch, sc, depth + 1);
            break;
        }
        nd = 0;
    } while (ts_tree_cursor_goto_next_sibling(c));
    walk_decorators(x, decs, nd, sc, depth);
}

/*
 * A class declaration or expression. name: the name to give it (a
 * variable's), else its own; without either it gets no symbol and its
 * members are walked as part of the enclosing symbol.
 */
static NOINLINE int32_t do_class(tx *x, TSNode n, TSNode outer, const char *name,
                                 const ts_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return -1;
    }
    const char *nm = name ? name : name_text(x, fld(x, n, F_NAME));
    int32_t idx = -1;
    ts_scope inner = unexported(sc);
    inner.params = NULL;
    inner.nparams = 0;
    if (nm) {
        idx = push_decl(x, GRAPH_SYM_CLASS, nm, n, outer, sc,
                        ty(x, n) == N_ABSTRACT_CLASS_DECLARATION ? GRAPH_SF_ABSTRACT : 0);
        inner.sym = idx;
        inner.cls = idx;
        inner.container = NULL;
        inner.in_function = false;
    } else {
        inner.cls = -1;
        inner.in_function = true;
    }
    ts_scope outer_sc = unexported(sc);
    /* @dec export class X: the decorators sit on the export statement. */
    if (!ts_node_eq(outer, n) && ty(x, outer) == N_EXPORT_STATEMENT) {
        TSTreeCursor *c = kids(x, depth, outer);
        if (c) {
            do {
                TSNode ch = ts_tree_cursor_current_node(c);
                if (ty(x, ch) == N_DECORATOR)
                    walk_decorator(x, ch, &inner, depth + 1);
            } while (ts_tree_cursor_goto_next_sibling(c));
        }
    }
    TSNode body = gx_null();
    size_t saved = x->tparams.n;
    TSTreeCursor *c = kids(x, depth, n);
    if (c) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            switch (ty(x, ch)) {
            case N_DECORATOR:
                walk_decorator(x, ch, &inner, depth + 1);
                break;
            case N_CLASS_HERITAGE:
                do_heritage(x, ch, idx, idx >= 0 ? &inner : &outer_sc, depth + 1);
                break;
            case N_TYPE_PARAMETERS:
                push_tparams(x, ch, depth + 1);
                walk(x, ch, &inner, depth + 1);
                break;
            case N_CLASS_BODY:
                body = ch;
                break;
            default:
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (!is_null(body))
        do_class_body(x, body, &inner, idx, depth + 1);
    x->tparams.n = saved;
    return idx;
}

/* ---- object literals ---- */

enum {
    O_EXPORTS = 1, /* module.exports = {...}: every member is exported */
};

/* An object literal's value, through `Object.freeze({...})` and `as const`. */
static TSNode object_value(tx *x, TSNode v)
{
    v = unwrap(x, v);
    if (ty(x, v) == N_OBJECT)
        return v;
    if (ty(x, v) == N_CALL_EXPRESSION) {
        TSNode fn = fld(x, v, F_FUNCTION), args = fld(x, v, F_ARGUMENTS);
        if (ty(x, fn) == N_MEMBER_EXPRESSION && text_eq(x, fn, "Object.freeze") &&
            ty(x, args) == N_ARGUMENTS && ts_node_named_child_count(args) == 1) {
            TSNode o = unwrap(x, ts_node_named_child(args, 0));
            if (ty(x, o) == N_OBJECT)
                return o;
        }
    }
    return gx_null();
}

/*
 * Members of an object literal: methods and function-valued properties
 * become METHOD symbols of `owner` with `container`; string-valued
 * properties become constants "cprefix.key" (when cprefix is set); nested
 * objects extend both. cls: what `this` is inside the methods.
 */
static NOINLINE void do_object(tx *x, TSNode obj, const ts_scope *sc, const char *container,
                               const char *cprefix, int32_t owner, int32_t cls, uint32_t oflags,
                               int depth)
{
    TSTreeCursor *c = kids(x, depth, obj);
    if (!c)
        return;
    uint32_t extra =
        (sc->in_function ? GRAPH_SF_NESTED : 0) | (oflags & O_EXPORTS ? GRAPH_SF_EXPORTED : 0);
    bool exports = oflags & O_EXPORTS;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, m);
        switch (t) {
        case N_COMMENT:
            note_comment(x, m);
            break;
        case N_METHOD_DEFINITION: {
            const char *nm = member_name(x, fld(x, m, F_NAME));
            do_method(x, m, NULL, 0, true, owner, container, extra, cls, sc, depth + 1);
            if (exports && nm)
                add_export(x, GX_EXP_NAME, nm, nm, NULL, m);
            break;
        }
        case N_PAIR: {
            TSNode key = fld(x, m, F_KEY), value = fld(x, m, F_VALUE);
            const char *kn = member_name(x, key);
            TSNode v = unwrap(x, value), ov = object_value(x, v);
            unsigned vt = ty(x, v);
            if (kn && is_fn(vt)) {
                make_fn(x, v, m, GRAPH_SYM_METHOD, kn, container, owner, extra | GRAPH_SF_BOUND,
                        cls, depth + 1);
                if (exports)
                    add_export(x, GX_EXP_NAME, kn, kn, NULL, m);
            } else if (kn && vt == N_CLASS) {
                ts_scope in = *sc;
                in.container = container;
                in.exported = exports;
                do_class(x, v, m, kn, &in, depth + 1);
                if (exports)
                    add_export(x, GX_EXP_NAME, kn, kn, NULL, m);
            } else if (kn && !is_null(ov)) {
                do_object(x, ov, sc, join(x, container, kn), cprefix ? join(x, cprefix, kn) : NULL,
                          owner, -1, 0, depth + 1);
                if (exports)
                    add_export(x, GX_EXP_NAME, kn, NULL, NULL, m);
            } else {
                if (kn && cprefix && stringish(x, v, 0))
                    add_const(x, join(x, cprefix, kn), v, sc->sym, depth + 1);
                if (exports && kn)
                    add_export(x, GX_EXP_NAME, kn, path_of(x, v, 0), NULL, m);
                if (ty(x, key) == N_COMPUTED_PROPERTY_NAME)
                    walk(x, key, sc, depth + 1);
                value_ref(x, value, sc, depth + 1);
            }
            break;
        }
        case N_SHORTHAND_PROPERTY_IDENTIFIER: {
            const char *nm = name_text(x, m);
            add_ref(x, GX_REF_READ, nm, sc->sym, m);
            if (exports && nm)
                add_export(x, GX_EXP_NAME, nm, nm, NULL, m);
            break;
        }
        default:
            if (ts_node_is_named(m))
                walk(x, m, sc, depth + 1);
            break;
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* ---- declarations ---- */

/* useCallback(fn, deps), memo(fn), forwardRef(fn), observer(fn): fn. */
static TSNode wrapped_fn(tx *x, TSNode call)
{
    const char *p = path_of(x, fld(x, call, F_FUNCTION), 0);
    if (!p)
        return gx_null();
    const char *last = gx_last_component(p);
    if (strcmp(last, "useCallback") != 0 && strcmp(last, "memo") != 0 &&
        strcmp(last, "forwardRef") != 0 && strcmp(last, "observer") != 0)
        return gx_null();
    TSNode args = fld(x, call, F_ARGUMENTS);
    if (ty(x, args) != N_ARGUMENTS)
        return gx_null();
    TSNode a0 = unwrap(x, ts_node_named_child(args, 0));
    return is_fn(ty(x, a0)) ? a0 : gx_null();
}

static NOINLINE void do_declarator(tx *x, TSNode d, TSNode outer, const ts_scope *sc, int depth)
{
    TSNode name = fld(x, d, F_NAME), type = fld(x, d, F_TYPE), value = fld(x, d, F_VALUE);
    ts_scope plain = unexported(sc);
    TSNode v = unwrap(x, value);
    unsigned vt = ty(x, v);
    TSNode wrapper = gx_null();
    if (vt == N_CALL_EXPRESSION) {
        /* const onClick = useCallback(() => {...}, [deps]), memo(), forwardRef() */
        TSNode inner = wrapped_fn(x, v);
        if (!is_null(inner)) {
            wrapper = v;
            v = inner;
            vt = ty(x, v);
        }
    }
    if (!is_null(type) && !(is_fn(vt) && ty(x, name) == N_IDENTIFIER))
        walk(x, type, &plain, depth + 1);
    if (ty(x, name) != N_IDENTIFIER) {
        if (!require_decl(x, name, value, &plain, depth + 1)) {
            bind_pattern(x, name, sc->sym, depth + 1);
            value_ref(x, value, &plain, depth + 1);
        }
        return;
    }
    const char *nm = name_text(x, name);
    if (!nm)
        return;
    if (is_fn(vt)) {
        uint32_t flags = GRAPH_SF_BOUND | decl_flags(sc);
        int32_t cls = vt == N_ARROW_FUNCTION ? sc->cls : ctor_cls(nm);
        if (!is_null(wrapper))
            add_ref(x, GX_REF_CALL, path_of(x, fld(x, wrapper, F_FUNCTION), 0), sc->sym, wrapper);
        int32_t idx =
            make_fn(x, v, outer, GRAPH_SYM_FUNCTION, nm, sc->container, sc->sym, flags, cls, depth);
        if (!is_null(type)) {
            /* const f: Handler = () => ...: the type is the function's */
            ts_scope in = {.sym = idx, .cls = -1, .in_function = true};
            walk(x, type, &in, depth + 1);
        }
        if (!is_null(wrapper)) {
            /* the wrapper's other arguments: dependency lists, options */
            TSTreeCursor *c = kids(x, depth, fld(x, wrapper, F_ARGUMENTS));
            if (c) {
                do {
                    TSNode a = ts_tree_cursor_current_node(c);
                    if (ts_node_is_named(a) && !ts_node_eq(unwrap(x, a), v))
                        value_ref(x, a, &plain, depth + 1);
                } while (ts_tree_cursor_goto_next_sibling(c));
            }
        }
        return;
    }
    if (vt == N_CLASS) {
        do_class(x, v, outer, nm, sc, depth + 1);
        return;
    }
    bool required = require_decl(x, name, value, &plain, depth + 1);
    note_logger(x, nm, value, depth + 1);
    if (required)
        return;
    TSNode ov = object_value(x, v);
    if (!is_null(ov)) {
        do_object(x, ov, &plain, join(x, sc->container, nm), module_level(sc) ? nm : NULL, sc->sym,
                  -1, 0, depth + 1);
        return;
    }
    const char *ac = is_null(type) ? NULL : annotation_class(x, type, 0);
    if (ac)
        add_bind(x, GX_BIND_TYPE, nm, ac, sc->sym, name);
    else if (!is_null(value))
        bind_value(x, nm, value, sc->sym, name);
    else
        add_bind(x, GX_BIND_LOCAL, nm, NULL, sc->sym, name);
    if (module_level(sc) && stringish(x, v, 0))
        add_const(x, nm, v, -1, depth + 1);
    value_ref(x, value, &plain, depth + 1);
}

static NOINLINE void do_declaration(tx *x, TSNode decl, TSNode outer, const ts_scope *sc, int depth)
{
    /* The span of `const f = () => {}` starts at the statement when it
     * declares one name, else at the declarator. */
    uint32_t count = 0;
    TSTreeCursor *c = kids(x, depth, decl);
    if (!c)
        return;
    do {
        if (ty(x, ts_tree_cursor_current_node(c)) == N_VARIABLE_DECLARATOR)
            count++;
    } while (ts_tree_cursor_goto_next_sibling(c));
    c = kids(x, depth, decl);
    do {
        TSNode d = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, d);
        if (t == N_VARIABLE_DECLARATOR)
            do_declarator(x, d, count == 1 ? outer : d, sc, depth + 1);
        else if (t == N_COMMENT)
            note_comment(x, d);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static NOINLINE void do_interface(tx *x, TSNode n, TSNode outer, const ts_scope *sc, int depth)
{
    const char *nm = name_text(x, fld(x, n, F_NAME));
    if (!nm) {
        walk_children(x, n, sc, depth);
        return;
    }
    int32_t idx = push_decl(x, GRAPH_SYM_INTERFACE, nm, n, outer, sc, 0);
    ts_scope inner = {.sym = idx, .cls = -1};
    size_t saved = x->tparams.n;
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_TYPE_PARAMETERS)
            push_tparams(x, ch, depth + 1);
        if (t == N_EXTENDS_TYPE_CLAUSE) {
            TSTreeCursor *c2 = kids(x, depth + 1, ch);
            if (!c2)
                continue;
            do {
                TSNode b = ts_tree_cursor_current_node(c2);
                if (!ts_node_is_named(b) || ty(x, b) == N_COMMENT)
                    continue;
                const char *p = type_path(x, b, 0);
                if (p)
                    add_ref(x, GX_REF_BASE, p, idx, b);
                if (ty(x, b) == N_GENERIC_TYPE)
                    walk(x, fld(x, b, F_TYPE_ARGUMENTS), &inner, depth + 2);
                else if (!p)
                    walk(x, b, &inner, depth + 2);
            } while (ts_tree_cursor_goto_next_sibling(c2));
        } else if (t == N_TYPE_PARAMETERS || ts_tree_cursor_current_field_id(c) == x->fid[F_BODY]) {
            walk(x, ch, &inner, depth + 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    x->tparams.n = saved;
}

static NOINLINE void do_enum(tx *x, TSNode n, TSNode outer, const ts_scope *sc, int depth)
{
    const char *nm = name_text(x, fld(x, n, F_NAME));
    if (!nm)
        return;
    int32_t idx = push_decl(x, GRAPH_SYM_ENUM, nm, n, outer, sc, 0);
    ts_scope inner = {.sym = idx, .cls = -1};
    TSTreeCursor *c = kids(x, depth, fld(x, n, F_BODY));
    if (!c)
        return;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        if (ty(x, m) == N_COMMENT) {
            note_comment(x, m);
            continue;
        }
        if (ty(x, m) != N_ENUM_ASSIGNMENT)
            continue;
        const char *mn = member_name(x, fld(x, m, F_NAME));
        TSNode v = fld(x, m, F_VALUE);
        if (mn && stringish(x, v, 0))
            add_const(x, join(x, nm, mn), v, idx, depth + 1);
        else
            value_ref(x, v, &inner, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static NOINLINE void do_type_alias(tx *x, TSNode n, TSNode outer, const ts_scope *sc, int depth)
{
    const char *nm = name_text(x, fld(x, n, F_NAME));
    if (!nm)
        return;
    int32_t idx = push_decl(x, GRAPH_SYM_TYPE, nm, n, outer, sc, 0);
    ts_scope inner = {.sym = idx, .cls = -1};
    TSNode tp = fld(x, n, F_TYPE_PARAMETERS), v = fld(x, n, F_VALUE);
    size_t saved = push_tparams(x, tp, depth + 1);
    if (!is_null(tp))
        walk(x, tp, &inner, depth + 1);
    if (!is_null(v))
        walk(x, v, &inner, depth + 1);
    x->tparams.n = saved;
}

/* namespace A.B { ... }: no symbol; what is inside gets container "A.B". */
static NOINLINE void do_namespace(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode name = fld(x, n, F_NAME), body = fld(x, n, F_BODY);
    ts_scope in = unexported(sc);
    if (ty(x, name) != N_STRING) {
        const char *nm = type_path(x, name, 0);
        if (nm)
            in.container = join(x, sc->container, nm);
    }
    if (!is_null(body))
        walk(x, body, &in, depth + 1);
}

/* Declarations (also under `export` and `declare`). name: a name to give
 * an anonymous function or class (`export default`). */
static NOINLINE void walk_declaration(tx *x, TSNode decl, TSNode outer, const char *name,
                                      const ts_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    switch (ty(x, decl)) {
    case N_FUNCTION_DECLARATION:
    case N_GENERATOR_FUNCTION_DECLARATION:
        do_function_decl(x, decl, outer, name, sc, depth);
        return;
    case N_CLASS_DECLARATION:
    case N_ABSTRACT_CLASS_DECLARATION:
        do_class(x, decl, outer, name, sc, depth);
        return;
    case N_INTERFACE_DECLARATION:
        do_interface(x, decl, outer, sc, depth);
        return;
    case N_ENUM_DECLARATION:
        do_enum(x, decl, outer, sc, depth);
        return;
    case N_TYPE_ALIAS_DECLARATION:
        do_type_alias(x, decl, outer, sc, depth);
        return;
    case N_LEXICAL_DECLARATION:
    case N_VARIABLE_DECLARATION:
        do_declaration(x, decl, outer, sc, depth);
        return;
    case N_INTERNAL_MODULE:
    case N_MODULE:
        do_namespace(x, decl, sc, depth);
        return;
    case N_AMBIENT_DECLARATION: {
        TSTreeCursor *c = kids(x, depth, decl);
        if (!c)
            return;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch))
                walk_declaration(x, ch, ts_node_eq(outer, decl) ? ch : outer, name, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    default: {
        ts_scope plain = unexported(sc);
        walk(x, decl, &plain, depth + 1);
        return;
    }
    }
}

/* ---- exports ---- */

/* The export records of `export <declaration>`. */
static NOINLINE void export_names(tx *x, TSNode d, bool dflt, TSNode at, int depth)
{
    switch (ty(x, d)) {
    case N_LEXICAL_DECLARATION:
    case N_VARIABLE_DECLARATION: {
        TSTreeCursor *c = kids(x, depth, d);
        if (!c)
            return;
        do {
            TSNode v = ts_tree_cursor_current_node(c);
            if (ty(x, v) != N_VARIABLE_DECLARATOR)
                continue;
            TSNode nm = fld(x, v, F_NAME);
            if (ty(x, nm) == N_IDENTIFIER) {
                const char *s = name_text(x, nm);
                add_export(x, GX_EXP_NAME, s, s, NULL, v);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    case N_AMBIENT_DECLARATION: {
        TSNode inner = ts_node_named_child(d, 0);
        if (!is_null(inner) && !ts_node_eq(inner, d))
            export_names(x, inner, dflt, at, depth + 1);
        return;
    }
    default: {
        TSNode nm = fld(x, d, F_NAME);
        if (is_null(nm) || ty(x, nm) == N_STRING)
            return;
        const char *s = type_path(x, nm, 0);
        if (s && strchr(s, '.')) /* namespace A.B exports A */
            s = core_arena_strndup(&x->f->arena, s, strcspn(s, "."));
        if (s)
            add_export(x, GX_EXP_NAME, dflt ? "default" : s, s, NULL, at);
        return;
    }
    }
}

/* The name of an exported function or class expression, else "default". */
static const char *own_name(tx *x, TSNode fn_or_class)
{
    const char *nm = name_text(x, fld(x, fn_or_class, F_NAME));
    return nm ? nm : "default";
}

/* export default <expression> (also TypeScript's `export = x`). */
static NOINLINE void export_default(tx *x, TSNode value, TSNode outer, const ts_scope *sc,
                                    bool record, int depth)
{
    TSNode v = unwrap(x, value);
    unsigned t = ty(x, v);
    const char *local = NULL;
    if (is_fn(t)) {
        const char *nm = own_name(x, v);
        uint32_t flags = GRAPH_SF_EXPORTED | (sc->in_function ? GRAPH_SF_NESTED : 0);
        make_fn(x, v, outer, GRAPH_SYM_FUNCTION, nm, sc->container, sc->sym, flags,
                t == N_ARROW_FUNCTION ? sc->cls : ctor_cls(nm), depth);
        local = nm;
    } else if (t == N_CLASS) {
        const char *nm = own_name(x, v);
        do_class(x, v, outer, nm, sc, depth + 1);
        local = nm;
    } else if (ty(x, v) == N_OBJECT) {
        ts_scope plain = unexported(sc);
        do_object(x, v, &plain, "default", NULL, sc->sym, -1, 0, depth + 1);
    } else {
        ts_scope plain = unexported(sc);
        local = path_of(x, v, 0);
        value_ref(x, value, &plain, depth + 1);
    }
    if (record)
        add_export(x, GX_EXP_NAME, "default", local, NULL, outer);
}

static NOINLINE void do_export(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode decl = fld(x, n, F_DECLARATION), value = fld(x, n, F_VALUE);
    const char *module = string_value(x, fld(x, n, F_SOURCE));
    bool record = module_level(sc) && !sc->container;
    bool dflt = false, eq = false, star = false;
    TSNode clause = gx_null(), ns = gx_null(), eqexpr = gx_null();
    TSTreeCursor *c = kids(x, depth, n);
    if (c) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            unsigned t = ty(x, ch);
            if (t == A_DEFAULT)
                dflt = true;
            else if (t == A_STAR)
                star = true;
            else if (t == A_EQ)
                eq = true;
            else if (t == N_EXPORT_CLAUSE)
                clause = ch;
            else if (t == N_NAMESPACE_EXPORT)
                ns = ch;
            else if (eq && ts_node_is_named(ch) && t != N_COMMENT && is_null(eqexpr))
                eqexpr = ch;
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    ts_scope es = *sc;
    es.exported = true;
    if (!is_null(decl)) {
        walk_declaration(x, decl, n, NULL, &es, depth + 1);
        if (record)
            export_names(x, decl, dflt, n, depth + 1);
        return;
    }
    if (!is_null(value) || !is_null(eqexpr)) {
        export_default(x, !is_null(value) ? value : eqexpr, n, &es, record, depth + 1);
        return;
    }
    if (!is_null(clause)) {
        TSTreeCursor *c2 = kids(x, depth + 1, clause);
        if (!c2)
            return;
        do {
            TSNode sp = ts_tree_cursor_current_node(c2);
            if (ty(x, sp) != N_EXPORT_SPECIFIER)
                continue;
            TSNode nm = fld(x, sp, F_NAME), al = fld(x, sp, F_ALIAS);
            const char *local = ty(x, nm) == N_STRING ? string_value(x, nm) : name_text(x, nm);
            const char *name = is_null(al)             ? local
                               : ty(x, al) == N_STRING ? string_value(x, al)
                                                       : name_text(x, al);
            if (!local || !name)
                continue;
            if (module)
                add_export(x, GX_EXP_FROM, name, local, module, sp);
            else
                add_export(x, GX_EXP_NAME, name, local, NULL, sp);
        } while (ts_tree_cursor_goto_next_sibling(c2));
        return;
    }
    if (!is_null(ns) && module) {
        TSNode id = ts_node_named_child(ns, 0);
        const char *name = ty(x, id) == N_STRING ? string_value(x, id) : name_text(x, id);
        add_export(x, GX_EXP_NS, name, NULL, module, n);
        return;
    }
    if (star && module)
        add_export(x, GX_EXP_STAR, "*", NULL, module, n);
}

/* ---- assignments ---- */

/* The function or class whose prototype `name.prototype` is: a symbol of
 * this file at the level of sc, or what `module.exports` was set to. */
static int32_t proto_owner(tx *x, const char *name, const ts_scope *sc)
{
    if (strcmp(name, "module.exports") == 0)
        return x->cjs_default;
    return strchr(name, '.') ? -1 : find_fn(x, name, sc);
}

/* `module.exports = ...`, `exports.x = ...`, `X.prototype.m = function`,
 * `X.m = function`, `this.m = function`: symbols and exports. True when
 * the assignment was handled (right side walked). */
static NOINLINE bool assign_symbol(tx *x, TSNode asg, const char *p, TSNode right,
                                   const ts_scope *sc, int depth)
{
    TSNode r = unwrap(x, right);
    unsigned rt = ty(x, r);
    bool fn = is_fn(rt), cl = rt == N_CLASS;
    TSNode obj = object_value(x, r);
    ts_scope plain = unexported(sc);
    uint32_t nested = sc->in_function ? GRAPH_SF_NESTED : 0;
    if (strcmp(p, "module.exports") == 0) {
        if (fn || cl) {
            const char *nm = own_name(x, r);
            if (fn) {
                x->cjs_default = make_fn(x, r, asg, GRAPH_SYM_FUNCTION, nm, NULL, sc->sym,
                                         GRAPH_SF_EXPORTED | nested,
                                         rt == N_ARROW_FUNCTION ? sc->cls : ctor_cls(nm), depth);
            } else {
                ts_scope es = plain;
                es.exported = true;
                es.container = NULL;
                x->cjs_default = do_class(x, r, asg, nm, &es, depth + 1);
            }
            add_export(x, GX_EXP_NAME, "default", nm, NULL, asg);
            return true;
        }
        if (!is_null(obj)) {
            do_object(x, obj, &plain, NULL, NULL, sc->sym, -1, O_EXPORTS, depth + 1);
            return true;
        }
        const char *m = require_of(x, r);
        if (m) {
            add_export(x, GX_EXP_STAR, "*", NULL, m, asg);
            value_ref(x, right, &plain, depth + 1);
            return true;
        }
        const char *lp = path_of(x, r, 0);
        if (lp) {
            add_export(x, GX_EXP_NAME, "default", lp, NULL, asg);
            value_ref(x, right, &plain, depth + 1);
            return true;
        }
        return false;
    }
    const char *ename = NULL;
    size_t plen = strlen(p);
    if (plen > 8 && memcmp(p, "exports.", 8) == 0 && !memchr(p + 8, '.', plen - 8))
        ename = p + 8;
    else if (plen > 15 && memcmp(p, "module.exports.", 15) == 0 && !memchr(p + 15, '.', plen - 15))
        ename = p + 15;
    if (ename) {
        if (fn) {
            make_fn(x, r, asg, GRAPH_SYM_FUNCTION, ename, NULL, sc->sym,
                    GRAPH_SF_EXPORTED | GRAPH_SF_BOUND | nested,
                    rt == N_ARROW_FUNCTION ? sc->cls : ctor_cls(ename), depth);
            add_export(x, GX_EXP_NAME, ename, ename, NULL, asg);
            return true;
        }
        if (cl) {
            ts_scope es = plain;
            es.exported = true;
            es.container = NULL;
            do_class(x, r, asg, ename, &es, depth + 1);
            add_export(x, GX_EXP_NAME, ename, ename, NULL, asg);
            return true;
        }
        const char *m = require_of(x, r);
        if (m) {
            add_export(x, GX_EXP_NS, ename, NULL, m, asg);
        } else if (ty(x, r) == N_MEMBER_EXPRESSION &&
                   (m = require_of(x, unwrap(x, fld(x, r, F_OBJECT))))) {
            add_export(x, GX_EXP_FROM, ename, name_text(x, fld(x, r, F_PROPERTY)), m, asg);
        } else if (!is_null(obj)) {
            do_object(x, obj, &plain, ename, NULL, sc->sym, -1, 0, depth + 1);
            add_export(x, GX_EXP_NAME, ename, NULL, NULL, asg);
            return true;
        } else {
            add_export(x, GX_EXP_NAME, ename, path_of(x, r, 0), NULL, asg);
        }
        value_ref(x, right, &plain, depth + 1);
        return true;
    }
    if (p[0] == '@' && strncmp(p, "@self.", 6) != 0)
        return false;
    if (strncmp(p, "@self.", 6) == 0) {
        if (!fn)
            return false;
        if (strchr(p + 6, '.') || sc->cls < 0) {
            /* this.data.set = () => {} (patching an object): a function of
             * the enclosing symbol, with "data" as its container. */
            const char *last = gx_last_component(p);
            const char *cont = last > p + 7
                                   ? core_arena_strndup(&x->f->arena, p + 6, (size_t)(last - p - 7))
                                   : NULL;
            make_fn(x, r, asg, GRAPH_SYM_FUNCTION, last, cont, sc->sym, GRAPH_SF_BOUND | nested,
                    rt == N_ARROW_FUNCTION ? sc->cls : -1, depth);
            return true;
        }
        /* this.m = function () {} in a constructor: a method of the class */
        make_fn(x, r, asg, GRAPH_SYM_METHOD, p + 6, NULL, sc->cls, GRAPH_SF_BOUND, sc->cls, depth);
        return true;
    }
    /* X.prototype = {...} */
    size_t pl = strlen(p);
    if (pl > 10 && strcmp(p + pl - 10, ".prototype") == 0 && !is_null(obj)) {
        char *head = core_arena_strndup(&x->f->arena, p, pl - 10);
        int32_t owner = proto_owner(x, head, sc);
        if (owner >= 0)
            do_object(x, obj, &plain, NULL, NULL, owner, owner, 0, depth + 1);
        else
            do_object(x, obj, &plain, head, NULL, sc->sym, -1, 0, depth + 1);
        return true;
    }
    if (!fn && !cl)
        return false;
    const char *last = gx_last_component(p);
    if (last == p)
        return false;
    char *head = core_arena_strndup(&x->f->arena, p, (size_t)(last - p - 1));
    size_t hl = strlen(head);
    if (fn && hl > 10 && strcmp(head + hl - 10, ".prototype") == 0) {
        /* X.prototype.m = function () {} */
        char *cname = core_arena_strndup(&x->f->arena, head, hl - 10);
        int32_t owner = proto_owner(x, cname, sc);
        if (owner >= 0)
            make_fn(x, r, asg, GRAPH_SYM_METHOD, last, NULL, owner, GRAPH_SF_BOUND, owner, depth);
        else
            make_fn(x, r, asg, GRAPH_SYM_METHOD, last, cname, sc->sym, GRAPH_SF_BOUND | nested, -1,
                    depth);
        return true;
    }
    int32_t owner = strchr(head, '.') ? -1 : find_fn(x, head, sc);
    if (fn) {
        if (owner >= 0)
            make_fn(x, r, asg, GRAPH_SYM_METHOD, last, NULL, owner,
                    GRAPH_SF_STATIC | GRAPH_SF_BOUND, -1, depth);
        else
            make_fn(x, r, asg, GRAPH_SYM_FUNCTION, last, head, sc->sym, GRAPH_SF_BOUND | nested,
                    rt == N_ARROW_FUNCTION ? sc->cls : ctor_cls(last), depth);
        return true;
    }
    ts_scope in = plain;
    in.container = head;
    do_class(x, r, asg, last, &in, depth + 1);
    return true;
}

/* The right side of an assignment: an object literal's methods get the
 * assigned name as their container. */
static void assign_value(tx *x, TSNode right, const char *container, const ts_scope *sc, int depth)
{
    TSNode obj = object_value(x, right);
    if (!is_null(obj) && container)
        do_object(x, obj, sc, join(x, sc->container, container), NULL, sc->sym, -1, 0, depth);
    else
        value_ref(x, right, sc, depth);
}

static NOINLINE void do_assign(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode left = fld(x, n, F_LEFT), right = fld(x, n, F_RIGHT);
    TSNode l = unwrap(x, left);
    unsigned lt = ty(x, l);
    if (lt == N_IDENTIFIER) {
        const char *nm = name_text(x, l);
        if (nm && !require_decl(x, l, right, sc, depth + 1)) {
            note_logger(x, nm, right, depth + 1);
            bind_value(x, nm, right, sc->sym, l);
            assign_value(x, right, nm, sc, depth + 1);
        }
        return;
    }
    if (lt == N_MEMBER_EXPRESSION) {
        const char *p = path_of(x, l, 0);
        if (p) {
            add_ref(x, GX_REF_WRITE, p, sc->sym, l);
            if (!is_null(right) && assign_symbol(x, n, p, right, sc, depth))
                return;
            /* Foo.MESSAGE = '...' at the top of a module: how compilers
             * write a class's static field (and how older code keeps
             * formats); a constant, as `static MESSAGE = '...'` is. */
            if (module_level(sc) && p[0] != '@' && !is_null(right) &&
                stringish(x, unwrap(x, right), 0))
                add_const(x, p, right, -1, depth + 1);
            if (strncmp(p, "@self.", 6) == 0 && !strchr(p + 6, '.') && sc->cls >= 0 &&
                !is_null(right)) {
                note_logger(x, p, right, depth + 1);
                bind_value(x, p, right, sc->cls, l);
            }
        } else {
            walk(x, l, sc, depth + 1);
        }
        /* this.handlers = {...}: "handlers"; a.b = {...}: "a.b" */
        assign_value(x, right, p && p[0] == '@' ? gx_last_component(p) : p, sc, depth + 1);
        return;
    }
    if (lt != N_OBJECT_PATTERN && lt != N_ARRAY_PATTERN)
        walk(x, left, sc, depth + 1);
    value_ref(x, right, sc, depth + 1);
}

/* ---- calls that may reach a logging wrapper ----
 *
 * As in extract_py.c: whether a callee logs what it is passed is known
 * only after resolution, so calls record what each argument would give a
 * wrapper as its message or level (gx_call, gx_arg), and logging calls
 * whose message passes on a parameter of the enclosing function record
 * which parameter, and the text around it.
 */

static bool node_const_like(tx *x, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return graph__const_like(x->src + a, b - a);
}

/* The level an argument names: 'warn', INFO, Level.INFO, LogLevel.Warn,
 * levels.DEBUG; NONE if none. */
static graph_level arg_level(tx *x, TSNode e)
{
    TSNode word = e;
    switch (ty(x, e)) {
    case N_STRING: {
        if (ts_node_end_byte(e) - ts_node_start_byte(e) > 18)
            return GRAPH_LEVEL_NONE;
        size_t n;
        const char *s = decode_string(x, e, &n);
        return s ? graph__level_of_word(s, n) : GRAPH_LEVEL_NONE;
    }
    case N_IDENTIFIER:
        if (!node_const_like(x, e))
            return GRAPH_LEVEL_NONE;
        break;
    case N_MEMBER_EXPRESSION: {
        /* An enum's or a table's member: Level.INFO, LogLevel.Warn. */
        TSNode obj = fld(x, e, F_OBJECT);
        word = fld(x, e, F_PROPERTY);
        if (ty(x, obj) != N_IDENTIFIER || empty_node(word))
            return GRAPH_LEVEL_NONE;
        char c0 = x->src[ts_node_start_byte(obj)];
        if (!(c0 >= 'A' && c0 <= 'Z') && !node_const_like(x, word))
            return GRAPH_LEVEL_NONE;
        break;
    }
    default:
        return GRAPH_LEVEL_NONE;
    }
    uint32_t a = ts_node_start_byte(word), b = ts_node_end_byte(word);
    return graph__level_of_word(x->src + a, b - a);
}

/* A message held in a constant (MSG, MESSAGES.notFound, Texts.OPENED):
 * its path; else NULL. */
static const char *const_ref(tx *x, TSNode e)
{
    TSNode last = e, first = e;
    if (ty(x, e) == N_MEMBER_EXPRESSION) {
        last = fld(x, e, F_PROPERTY);
        for (int i = 0; i < 16 && ty(x, first) == N_MEMBER_EXPRESSION; i++)
            first = fld(x, first, F_OBJECT);
    } else if (ty(x, e) != N_IDENTIFIER) {
        return NULL;
    }
    if (empty_node(last) || ty(x, first) != N_IDENTIFIER ||
        !(node_const_like(x, last) || node_const_like(x, first)))
        return NULL;
    return path_of(x, e, 0);
}

/* The template of a message argument (util.format's reading when
 * arguments follow it) into out; false if it has no literal text. */
static NOINLINE bool arg_template(tx *x, TSNode e, gx_arg *out, int depth)
{
    uint32_t avail = out->nafter;
    x->directives = 0;
    graph__tmpl_clear(&x->tmpl);
    msg_info mi = build_message(x, e, avail ? M_UTIL : M_LITERAL, &avail, depth + 1);
    if (mi.style == GRAPH_STYLE_PLAIN && x->directives)
        mi.style = GRAPH_STYLE_PERCENT;
    uint32_t flags = 0;
    const char *tm = graph__tmpl_take(&x->tmpl, x->f, &flags);
    switch (mi.style) {
    case GRAPH_STYLE_PLAIN:
    case GRAPH_STYLE_PERCENT:
    case GRAPH_STYLE_TEMPLATE:
    case GRAPH_STYLE_CONCAT:
        if (!tm)
            return false;
        out->tmpl = tm;
        out->style = (uint8_t)mi.style;
        out->flags |= flags;
        return true;
    default:
        return false;
    }
}

/* `... ${msg} ...` with one parameter among the substitutions: passed on
 * with the text around it. */
static NOINLINE bool split_template(tx *x, TSNode t, const ts_scope *sc, gx_arg *out, int depth)
{
    const ts_param *p = NULL;
    TSNode at = gx_null();
    TSTreeCursor *c = kids(x, depth, t);
    if (!c)
        return false;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ty(x, ch) != N_TEMPLATE_SUBSTITUTION)
            continue;
        const ts_param *q = param_named(x, sc, unwrap(x, ts_node_named_child(ch, 0)));
        if (!q || q->rest)
            continue;
        if (p)
            return false; /* two parameters: no single message */
        p = q;
        at = ch;
    } while (ts_tree_cursor_goto_next_sibling(c));
    if (!p)
        return false;
    uint32_t a, b;
    string_raw(x, t, &a, &b);
    uint32_t pos = a;
    graph__tmpl_clear(&x->tmpl);
    c = kids(x, depth, t);
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ty(x, ch) != N_TEMPLATE_SUBSTITUTION)
            continue;
        uint32_t cs = ts_node_start_byte(ch), ce = ts_node_end_byte(ch);
        if (cs > pos)
            put_raw(x, pos, cs < b ? cs : b, M_LITERAL, NULL);
        if (ts_node_eq(ch, at))
            out->pre = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
        else
            graph__tmpl_hole(&x->tmpl);
        if (ce > pos)
            pos = ce;
    } while (ts_tree_cursor_goto_next_sibling(c));
    if (b > pos)
        put_raw(x, pos, b, M_LITERAL, NULL);
    out->post = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
    out->fwd = true;
    out->fwd_pos = p->pos;
    return true;
}

/* `"[app] " + msg + ...` with one parameter among the operands. */
static NOINLINE bool split_concat(tx *x, TSNode e, const ts_scope *sc, gx_arg *out, int depth)
{
    TSNode ops[PLUS_MAX];
    uint32_t k = plus_operands(x, e, ops, PLUS_MAX), at = UINT32_MAX;
    const ts_param *p = NULL;
    for (uint32_t i = 0; i < k; i++) {
        const ts_param *q = param_named(x, sc, ops[i]);
        if (!q || q->rest)
            continue;
        if (p)
            return false;
        p = q;
        at = i;
    }
    if (!p)
        return false;
    graph__tmpl_clear(&x->tmpl);
    for (uint32_t i = 0; i < k; i++) {
        unsigned t = ty(x, ops[i]);
        if (i == at)
            out->pre = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
        else if (t == N_STRING)
            put_string(x, ops[i], M_LITERAL, NULL);
        else if (t == N_TEMPLATE_STRING)
            put_template(x, ops[i], M_LITERAL, NULL, depth + 1);
        else if (is_plus(x, ops[i]) && stringish(x, ops[i], 1))
            put_concat(x, ops[i], M_LITERAL, NULL, 1, depth + 1);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    out->post = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
    out->fwd = true;
    out->fwd_pos = p->pos;
    return true;
}

/* `util.format(...)` / `format(...)`, by the callee's last name only. */
static bool format_call(tx *x, TSNode call)
{
    TSNode fn = fld(x, call, F_FUNCTION);
    if (ty(x, fn) == N_MEMBER_EXPRESSION)
        fn = fld(x, fn, F_PROPERTY);
    return !empty_node(fn) && text_eq(x, fn, "format");
}

/*
 * What one argument of a call would give a wrapper as its message (or
 * level). out->pos, nafter and splat are set by the caller. Returns false
 * when the argument is of no interest.
 */
static NOINLINE bool classify_arg(tx *x, TSNode a, gx_arg *out, const ts_scope *sc, int depth)
{
    out->fwd_pos = -1;
    if (out->splat) {
        /* ...args passed on: the enclosing function's own ...args. */
        const ts_param *p = param_named(x, sc, unwrap(x, ts_node_named_child(a, 0)));
        if (!p || !p->rest)
            return false;
        out->fwd = true;
        out->fwd_pos = p->pos;
        return true;
    }
    TSNode e = unwrap(x, a);
    switch (ty(x, e)) {
    case N_IDENTIFIER: {
        const ts_param *p = param_named(x, sc, e);
        if (p) {
            if (p->rest)
                return false;
            out->fwd = true;
            out->fwd_pos = p->pos;
            return true;
        }
    }
        /* fall through */
    case N_MEMBER_EXPRESSION:
        out->level = (uint8_t)arg_level(x, e);
        if (out->level != GRAPH_LEVEL_NONE)
            return true;
        out->ref = const_ref(x, e);
        out->style = GRAPH_STYLE_REF;
        return out->ref != NULL;
    case N_STRING:
        out->level = (uint8_t)arg_level(x, e);
        return arg_template(x, e, out, depth) || out->level != GRAPH_LEVEL_NONE;
    /*
     * `user ${id} signed in` in signIn(id) is a message of its own, and
     * passes id on too: both are kept (a site at this call, and signIn a
     * wrapper for the callers that pass a string).
     */
    case N_TEMPLATE_STRING: {
        bool fwd = split_template(x, e, sc, out, depth + 1);
        return arg_template(x, e, out, depth) || fwd;
    }
    case N_BINARY_EXPRESSION: {
        if (!is_plus(x, e))
            return false;
        bool fwd = split_concat(x, e, sc, out, depth + 1);
        return (stringish(x, e, 0) && arg_template(x, e, out, depth)) || fwd;
    }
    case N_CALL_EXPRESSION:
        return format_call(x, e) && arg_template(x, e, out, depth);
    default:
        return false;
    }
}

enum { CALL_ARGS_MAX = 32 };

/* Records a call that may reach a logging wrapper, with the arguments of
 * interest (see gx_call); nothing if none is. */
static NOINLINE void record_call(tx *x, TSNode call, const char *callee, const ts_scope *sc,
                                 int depth)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    if (ty(x, args) != N_ARGUMENTS || !ts_node_named_child_count(args) ||
        strcmp(callee, "@super.constructor") == 0)
        return;
    TSNode nodes[CALL_ARGS_MAX];
    gx_arg meta[CALL_ARGS_MAX];
    uint32_t n = 0, npositional = 0;
    bool after_splat = false;
    TSTreeCursor *c = kids(x, depth, args);
    bool more = c != NULL;
    for (; more && n < CALL_ARGS_MAX; more = ts_tree_cursor_goto_next_sibling(c)) {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(x, a) == N_COMMENT)
            continue;
        gx_arg m;
        memset(&m, 0, sizeof m);
        m.splat = ty(x, a) == N_SPREAD_ELEMENT;
        m.pos = after_splat ? UINT32_MAX : npositional;
        after_splat |= m.splat;
        /* nafter is filled in below, once the count is known. */
        m.nafter = ++npositional;
        nodes[n] = a;
        meta[n++] = m;
    }
    size_t first = x->f->args.n;
    bool useful = false;
    for (uint32_t i = 0; i < n; i++) {
        gx_arg *m = &meta[i];
        m->nafter = npositional - m->nafter;
        if (!classify_arg(x, nodes[i], m, sc, depth + 1))
            continue;
        useful |= m->tmpl || m->ref || m->fwd;
        core_vec_push(&x->f->args, *m);
    }
    if (!useful) {
        x->f->args.n = first;
        return;
    }
    gx_call rc = {.callee = callee,
                  .from = sc->sym,
                  .emit = -1,
                  .msg_arg = -1,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)first,
                  .nargs = (uint32_t)(x->f->args.n - first)};
    core_vec_push(&x->f->calls, rc);
}

/*
 * Records a logging call whose message passes on a parameter of the
 * enclosing function, which makes that function a wrapper (`emit` is the
 * emit the call made, pl its plan). The message is the first argument
 * from the plan's on (after pino's merging object), or, after a title
 * (`log.silly('db', msg)`, `console.log('[db]', ...parts)`), the last.
 * A parameter among a format's arguments (`log.warn('%s is deprecated',
 * key)`) is data, as in Python: the function is not a wrapper.
 */
static NOINLINE void record_emit_call(tx *x, TSNode call, const char *callee, const emit_plan *pl,
                                      int32_t emit, const ts_scope *sc, int depth)
{
    if (!sc->nparams || pl->kind != GRAPH_EMIT_LOG || pl->how == H_NAME || pl->how == H_OBJECT)
        return;
    TSNode av[ARGS_MAX];
    uint32_t na = collect_args(x, fld(x, call, F_ARGUMENTS), av, ARGS_MAX, depth);
    if (na > ARGS_MAX)
        return;
    uint32_t s = pl->msg_index;
    if (s >= na)
        return;
    /* pino: (mergingObject, 'message %s', ...), read as make_emit does. */
    if (pl->how == H_LOGGER && na - s >= 2 &&
        (ty(x, unwrap(x, av[s])) == N_OBJECT ||
         (!stringish(x, av[s], 0) && ty(x, av[s]) != N_SPREAD_ELEMENT &&
          stringish(x, av[s + 1], 0))))
        s++;
    gx_arg m;
    memset(&m, 0, sizeof m);
    m.splat = ty(x, av[s]) == N_SPREAD_ELEMENT;
    m.nafter = na - s - 1;
    if (!classify_arg(x, av[s], &m, sc, depth + 1) || !m.fwd) {
        /* A title, then the parameter: "title msg". */
        TSNode t = unwrap(x, av[s]);
        if (na - s != 2 || ty(x, t) != N_STRING)
            return;
        size_t tl;
        const char *title = decode_string(x, t, &tl);
        /* A title is one word ('db', '[db]'); a sentence is the
         * message, and the parameter after it data util.format appends
         * ('items to be sent', batch). */
        if (!title || has_util_directive(title, tl) || memchr(title, ' ', tl))
            return;
        memset(&m, 0, sizeof m);
        m.splat = ty(x, av[s + 1]) == N_SPREAD_ELEMENT;
        TSNode v = m.splat ? av[s + 1] : unwrap(x, av[s + 1]);
        if (!(m.splat || ty(x, v) == N_IDENTIFIER) || !classify_arg(x, v, &m, sc, depth + 1) ||
            !m.fwd)
            return;
        graph__tmpl_clear(&x->tmpl);
        if (tl) {
            put_string(x, t, M_LITERAL, NULL);
            graph__tmpl_literal(&x->tmpl, " ", 1);
        }
        m.pre = graph__tmpl_take(&x->tmpl, x->f, &m.flags);
    }
    size_t first = x->f->args.n;
    gx_call rc = {.callee = callee ? callee : "?",
                  .from = sc->sym,
                  .emit = emit,
                  .msg_arg = 0,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)first};
    core_vec_push(&x->f->args, m);
    if (pl->msg_index == 1) {
        /* logger.log(level, msg) */
        gx_arg l;
        memset(&l, 0, sizeof l);
        l.splat = ty(x, av[0]) == N_SPREAD_ELEMENT;
        l.nafter = na - 1;
        if (!l.splat && classify_arg(x, av[0], &l, sc, depth + 1)) {
            rc.level_arg = 1;
            core_vec_push(&x->f->args, l);
        }
    }
    rc.nargs = (uint32_t)(x->f->args.n - first);
    core_vec_push(&x->f->calls, rc);
}

/* ---- calls ---- */

static NOINLINE void do_call(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode fn = fld(x, n, F_FUNCTION), args = fld(x, n, F_ARGUMENTS);
    if (is_null(fn)) {
        walk_children(x, n, sc, depth);
        return;
    }
    const char *m = require_of(x, n);
    if (m) {
        add_import(x, GX_IMP_MODULE, m, NULL, NULL, sc, n);
        return;
    }
    unsigned ft = ty(x, fn);
    const char *path = NULL, *callee = NULL;
    if (ft == N_SUPER) {
        callee = "@super.constructor";
    } else {
        path = path_of(x, fn, 0);
        callee = path;
        if (!path && ft == N_MEMBER_EXPRESSION) {
            TSNode prop = fld(x, fn, F_PROPERTY);
            if (!empty_node(prop)) {
                uint32_t a = ts_node_start_byte(prop), b = ts_node_end_byte(prop);
                callee = graph__path_join(x->f, "?", x->src + a, b - a);
            }
        }
    }
    if (callee && ft != N_IMPORT)
        add_ref(x, GX_REF_CALL, callee, sc->sym, n);
    graph__note_effect(x->f, sc->sym, x->src, n, fn);

    emit_plan pl;
    if (plan_emit(x, n, fn, path, &pl, sc, depth + 1)) {
        make_emit(x, n, &pl, sc, depth + 1);
        record_emit_call(x, n, callee, &pl, (int32_t)x->f->emits.n - 1, sc, depth + 1);
    } else if (callee && ft != N_SUPER && ft != N_IMPORT) {
        if (plan_candidate(x, n, callee, &pl, sc, depth + 1))
            make_emit(x, n, &pl, sc, depth + 1);
        else if (ty(x, args) == N_ARGUMENTS && ts_node_named_child_count(args) > 0)
            graph__cand_pending(&x->cands, x->f, callee, sc->sym, gx_line(n));
        record_call(x, n, callee, sc, depth + 1);
    }

    /* The receiver, when it is more than a name chain. */
    if (!path && ft != N_SUPER && ft != N_IMPORT) {
        if (ft == N_MEMBER_EXPRESSION)
            walk(x, fld(x, fn, F_OBJECT), sc, depth + 1);
        else
            walk(x, fn, sc, depth + 1);
    }
    TSNode targs = fld(x, n, F_TYPE_ARGUMENTS);
    if (!is_null(targs))
        walk(x, targs, sc, depth + 1);
    if (is_null(args))
        return;
    if (ty(x, args) != N_ARGUMENTS) {
        walk(x, args, sc, depth + 1); /* tagged template */
        return;
    }
    walk_values(x, args, sc, depth);
}

static NOINLINE void do_new(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode ctor = fld(x, n, F_CONSTRUCTOR), args = fld(x, n, F_ARGUMENTS),
           targs = fld(x, n, F_TYPE_ARGUMENTS);
    const char *p = path_of(x, ctor, 0);
    if (p)
        add_ref(x, GX_REF_NEW, p, sc->sym, n);
    else if (!is_null(ctor))
        walk(x, ctor, sc, depth + 1);
    if (!is_null(targs))
        walk(x, targs, sc, depth + 1);
    walk_values(x, args, sc, depth);
}

/* ---- JSX ---- */

static NOINLINE void jsx_tag(tx *x, TSNode tag, const ts_scope *sc, int depth)
{
    TSNode name = fld(x, tag, F_NAME);
    if (ty(x, name) == N_IDENTIFIER) {
        uint32_t a = ts_node_start_byte(name);
        if (!empty_node(name) && x->src[a] >= 'A' && x->src[a] <= 'Z')
            add_ref(x, GX_REF_JSX, text(x, name), sc->sym, name);
    } else if (ty(x, name) == N_MEMBER_EXPRESSION) {
        add_ref(x, GX_REF_JSX, path_of(x, name, 0), sc->sym, name);
    }
    TSTreeCursor *c = kids(x, depth, tag);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_JSX_ATTRIBUTE) {
            TSTreeCursor *c2 = kids(x, depth + 1, ch);
            if (!c2)
                continue;
            do {
                TSNode v = ts_tree_cursor_current_node(c2);
                unsigned vt = ty(x, v);
                if (vt == N_JSX_EXPRESSION || vt == N_JSX_ELEMENT ||
                    vt == N_JSX_SELF_CLOSING_ELEMENT)
                    walk(x, v, sc, depth + 2);
            } while (ts_tree_cursor_goto_next_sibling(c2));
        } else if (t == N_JSX_EXPRESSION || t == N_TYPE_ARGUMENTS) {
            walk(x, ch, sc, depth + 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* ---- the walk ---- */

static void value_ref(tx *x, TSNode v, const ts_scope *sc, int depth)
{
    if (is_null(v))
        return;
    if (ty(x, v) == N_IDENTIFIER) {
        add_ref(x, GX_REF_READ, name_text(x, v), sc->sym, v);
        return;
    }
    walk(x, v, sc, depth);
}

static void walk_children(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(ch))
            walk(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Children as values: identifiers among them are READ references. */
static void walk_values(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(ch))
            value_ref(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* `a.b += 1` */
static NOINLINE void walk_augmented(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode left = unwrap(x, fld(x, n, F_LEFT));
    if (ty(x, left) == N_MEMBER_EXPRESSION) {
        const char *p = path_of(x, left, 0);
        if (p)
            add_ref(x, GX_REF_WRITE, p, sc->sym, left);
        else
            walk(x, left, sc, depth + 1);
    } else if (ty(x, left) != N_IDENTIFIER) {
        walk(x, left, sc, depth + 1);
    }
    value_ref(x, fld(x, n, F_RIGHT), sc, depth + 1);
}

/* A member chain as a value: READ; otherwise its object is walked. */
static NOINLINE void walk_member(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    const char *p = path_of(x, n, 0);
    if (p) {
        add_ref(x, GX_REF_READ, p, sc->sym, n);
        return;
    }
    TSNode obj = fld(x, n, F_OBJECT);
    if (!is_null(obj))
        walk(x, obj, sc, depth + 1);
}

static NOINLINE void walk_jsx_element(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_JSX_OPENING_ELEMENT)
            jsx_tag(x, ch, sc, depth + 1);
        else if (t == N_JSX_ELEMENT || t == N_JSX_SELF_CLOSING_ELEMENT || t == N_JSX_EXPRESSION)
            walk(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Type nodes that declare names: <T extends Base = Default>, { [K in keyof
 * T]: ... }, and signatures with type parameters. */
static NOINLINE void walk_type_decl(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    switch (ty(x, n)) {
    case N_TYPE_PARAMETER: {
        /* T itself is not a reference. */
        TSNode cons = fld(x, n, F_CONSTRAINT), dflt = fld(x, n, F_VALUE);
        if (!is_null(cons))
            walk(x, cons, sc, depth + 1);
        if (!is_null(dflt))
            walk(x, dflt, sc, depth + 1);
        return;
    }
    case N_MAPPED_TYPE_CLAUSE: {
        TSNode t = fld(x, n, F_TYPE), al = fld(x, n, F_ALIAS);
        if (!is_null(t))
            walk(x, t, sc, depth + 1);
        if (!is_null(al))
            walk(x, al, sc, depth + 1);
        return;
    }
    case N_TYPE_QUERY: {
        /* typeof x: a value */
        TSNode e = ts_node_named_child(n, 0);
        const char *p = path_of(x, e, 0);
        if (p)
            add_ref(x, GX_REF_READ, p, sc->sym, e);
        return;
    }
    case N_INDEX_SIGNATURE: {
        size_t saved = x->tparams.n;
        TSNode nm = gx_null();
        uint32_t nc = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < nc && i < 4; i++) {
            TSNode ch = ts_node_named_child(n, i);
            if (ty(x, ch) == N_MAPPED_TYPE_CLAUSE)
                nm = fld(x, ch, F_NAME);
        }
        const char *s = name_text(x, nm);
        if (s)
            core_vec_push(&x->tparams, s);
        walk_children(x, n, sc, depth);
        x->tparams.n = saved;
        return;
    }
    default: {
        size_t saved = push_tparams(x, fld(x, n, F_TYPE_PARAMETERS), depth + 1);
        walk_children(x, n, sc, depth);
        x->tparams.n = saved;
        return;
    }
    }
}

/* for (const [k, v] of xs): the names are locals. */
static NOINLINE void walk_for_in(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode left = fld(x, n, F_LEFT), right = fld(x, n, F_RIGHT), body = fld(x, n, F_BODY);
    unsigned lt = ty(x, left);
    if (lt == N_IDENTIFIER || lt == N_OBJECT_PATTERN || lt == N_ARRAY_PATTERN)
        bind_pattern(x, left, sc->sym, depth + 1);
    else if (!is_null(left))
        walk(x, left, sc, depth + 1);
    value_ref(x, right, sc, depth + 1);
    if (!is_null(body))
        walk(x, body, sc, depth + 1);
}

static void walk(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    switch (ty(x, n)) {
    case N_COMMENT:
        note_comment(x, n);
        return;
    case N_FUNCTION_DECLARATION:
    case N_GENERATOR_FUNCTION_DECLARATION:
    case N_CLASS_DECLARATION:
    case N_ABSTRACT_CLASS_DECLARATION:
    case N_INTERFACE_DECLARATION:
    case N_ENUM_DECLARATION:
    case N_TYPE_ALIAS_DECLARATION:
    case N_LEXICAL_DECLARATION:
    case N_VARIABLE_DECLARATION:
    case N_INTERNAL_MODULE:
    case N_MODULE:
    case N_AMBIENT_DECLARATION:
        walk_declaration(x, n, n, NULL, sc, depth);
        return;
    case N_CLASS:
        do_class(x, n, n, NULL, sc, depth);
        return;
    case N_EXPORT_STATEMENT:
        do_export(x, n, sc, depth);
        return;
    case N_IMPORT_STATEMENT:
        do_import(x, n, sc, depth);
        return;
    case N_CALL_EXPRESSION:
        do_call(x, n, sc, depth);
        return;
    case N_NEW_EXPRESSION:
        do_new(x, n, sc, depth);
        return;
    case N_ASSIGNMENT_EXPRESSION:
        do_assign(x, n, sc, depth);
        return;
    case N_AUGMENTED_ASSIGNMENT_EXPRESSION:
        walk_augmented(x, n, sc, depth);
        return;
    case N_MEMBER_EXPRESSION:
        walk_member(x, n, sc, depth);
        return;
    case N_ARROW_FUNCTION:
    case N_FUNCTION_EXPRESSION:
    case N_GENERATOR_FUNCTION:
        walk_callback(x, n, sc, depth);
        return;
    case N_OBJECT:
        do_object(x, n, sc, NULL, NULL, sc->sym, -1, 0, depth);
        return;
    case N_JSX_ELEMENT:
        walk_jsx_element(x, n, sc, depth);
        return;
    case N_JSX_SELF_CLOSING_ELEMENT:
        jsx_tag(x, n, sc, depth);
        return;
    case N_JSX_EXPRESSION:
    case N_TEMPLATE_SUBSTITUTION:
    case N_RETURN_STATEMENT:
    case N_SPREAD_ELEMENT:
        walk_values(x, n, sc, depth);
        return;
    case N_TYPE_IDENTIFIER:
        if (!is_tparam(x, n))
            add_ref(x, GX_REF_TYPE, name_text(x, n), sc->sym, n);
        return;
    case N_NESTED_TYPE_IDENTIFIER:
        add_ref(x, GX_REF_TYPE, type_path(x, n, 0), sc->sym, n);
        return;
    case N_TYPE_PARAMETER:
    case N_MAPPED_TYPE_CLAUSE:
    case N_TYPE_QUERY:
    case N_INDEX_SIGNATURE:
    case N_METHOD_SIGNATURE:
    case N_ABSTRACT_METHOD_SIGNATURE:
    case N_FUNCTION_SIGNATURE:
    case N_CALL_SIGNATURE:
    case N_CONSTRUCT_SIGNATURE:
    case N_FUNCTION_TYPE:
    case N_CONSTRUCTOR_TYPE:
        walk_type_decl(x, n, sc, depth);
        return;
    case N_FOR_IN_STATEMENT:
        walk_for_in(x, n, sc, depth);
        return;
    case N_DECORATOR:
        walk_decorator(x, n, sc, depth);
        return;
    case N_INFER_TYPE:
    case N_PREDEFINED_TYPE:
    case N_LITERAL_TYPE:
    case N_THIS_TYPE:
    case N_IDENTIFIER:
    case N_PROPERTY_IDENTIFIER:
    case N_PRIVATE_PROPERTY_IDENTIFIER:
    case N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN:
    case N_THIS:
    case N_SUPER:
    case N_STRING:
    case N_NUMBER:
    case N_REGEX:
    case N_HASH_BANG_LINE:
    case N_JSX_TEXT:
    case N_TRUE:
    case N_FALSE:
    case N_NULL:
    case N_UNDEFINED:
        return;
    default:
        walk_children(x, n, sc, depth);
        return;
    }
}

/* ---- module level ---- */

/* A tool's comment, not documentation: eslint-disable, @ts-check,
 * /// <reference ...>, ... */
static bool directive_comment(tx *x, TSNode c)
{
    uint32_t a = ts_node_start_byte(c) + 2, b = ts_node_end_byte(c);
    while (a < b &&
           (x->src[a] == '*' || x->src[a] == '/' || x->src[a] == ' ' || x->src[a] == '\t' ||
            x->src[a] == '\n' || x->src[a] == '\r' || x->src[a] == '!'))
        a++;
    static const char *const tools[] = {
        "eslint", "tslint",     "@ts-",  "jshint",  "jscs:",      "istanbul",     "prettier",
        "c8 ",    "<reference", "@flow", "#region", "#endregion", "biome-ignore", "@jsx"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        size_t n = strlen(tools[i]);
        if (b - a >= n && memcmp(x->src + a, tools[i], n) == 0)
            return true;
    }
    return false;
}

/* The file's leading comment: a block comment, or a run of line comments;
 * not a JSDoc comment that belongs to the declaration right after it. */
static const char *module_doc(tx *x, TSNode root)
{
    TSTreeCursor *c = kids(x, 0, root);
    if (!c)
        return NULL;
    TSNode first = gx_null(), last = gx_null(), next = gx_null();
    bool lines = false;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_HASH_BANG_LINE)
            continue;
        if (is_null(first) && t == N_EXPRESSION_STATEMENT &&
            ty(x, ts_node_named_child(ch, 0)) == N_STRING)
            continue; /* 'use strict' */
        bool line = t == N_COMMENT && x->src[ts_node_start_byte(ch) + 1] == '/';
        if (is_null(first) && t == N_COMMENT && directive_comment(x, ch))
            continue;
        if (is_null(first)) {
            if (t != N_COMMENT)
                break;
            first = last = ch;
            lines = line;
            continue;
        }
        if (lines && line && ts_node_start_point(ch).row == ts_node_end_point(last).row + 1) {
            last = ch;
            continue;
        }
        next = ch;
        break;
    } while (ts_tree_cursor_goto_next_sibling(c));
    if (is_null(first))
        return NULL;
    if (!lines && is_jsdoc(x, first) && !is_null(next)) {
        unsigned t = ty(x, next);
        bool blank;
        if (t != N_COMMENT && t != N_IMPORT_STATEMENT && t != N_EXPRESSION_STATEMENT &&
            gap_is_blank(x, ts_node_end_byte(first), ts_node_start_byte(next), &blank) && !blank)
            return NULL;
    }
    if (!lines)
        return comment_doc(x, first);
    /* Line comments: their texts joined. */
    core_buf *b = &x->scratch;
    core_buf_reset(b);
    uint32_t a = ts_node_start_byte(first), e = ts_node_end_byte(last);
    for (uint32_t i = a; i < e;) {
        while (i < e &&
               (x->src[i] == ' ' || x->src[i] == '\t' || x->src[i] == '\n' || x->src[i] == '\r'))
            i++;
        while (i < e && x->src[i] == '/')
            i++;
        uint32_t j = i;
        while (j < e && x->src[j] != '\n')
            j++;
        core_buf_append(b, x->src + i, j - i);
        core_buf_putc(b, '\n');
        i = j;
    }
    return b->len ? graph__doc(x->f, b->data, b->len) : NULL;
}

/* Class fields that hold loggers: `private log = new Logger(X.name)`. */
static void prescan_class(tx *x, TSNode cls, int depth)
{
    TSTreeCursor *c = kids(x, depth, fld(x, cls, F_BODY));
    if (!c)
        return;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        if (ty(x, m) != N_PUBLIC_FIELD_DEFINITION)
            continue;
        const char *nm = member_name(x, fld(x, m, F_NAME));
        TSNode v = fld(x, m, F_VALUE);
        if (nm && !is_null(v))
            note_logger(x, graph__path_join(x->f, "@self", nm, strlen(nm)), v, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static void prescan_decl(tx *x, TSNode d, int depth)
{
    unsigned t = ty(x, d);
    if (t == N_CLASS_DECLARATION || t == N_ABSTRACT_CLASS_DECLARATION) {
        prescan_class(x, d, depth);
        return;
    }
    if (t != N_LEXICAL_DECLARATION && t != N_VARIABLE_DECLARATION)
        return;
    TSTreeCursor *c = kids(x, depth, d);
    if (!c)
        return;
    do {
        TSNode v = ts_tree_cursor_current_node(c);
        if (ty(x, v) != N_VARIABLE_DECLARATOR)
            continue;
        TSNode name = fld(x, v, F_NAME), value = fld(x, v, F_VALUE);
        if (ty(x, name) == N_IDENTIFIER && !is_null(value))
            note_logger(x, name_text(x, name), value, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/*
 * Before the walk: module-level imports and declarations of loggers and
 * logger factories, so a function above `const log = debug('x')` sees it
 * (module code runs before any function is called).
 */
static void prescan(tx *x, TSNode root, const ts_scope *sc)
{
    TSTreeCursor *c = kids(x, 0, root);
    if (!c)
        return;
    do {
        TSNode st = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, st);
        if (t == N_IMPORT_STATEMENT) {
            size_t before = x->f->imports.n;
            do_import(x, st, sc, 1);
            x->f->imports.n = before;
        } else if (t == N_EXPORT_STATEMENT) {
            TSNode d = fld(x, st, F_DECLARATION);
            if (!is_null(d))
                prescan_decl(x, d, 1);
        } else {
            prescan_decl(x, st, 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Symbols named by `export { a as b }`, `export default a`,
 * `module.exports = a`, `exports.b = a`: exported. */
static void mark_exported(tx *x)
{
    if (!x->f->exports.n)
        return;
    core_smap top = {0};
    for (size_t i = 0; i < x->f->syms.n; i++) {
        const gx_sym *s = &x->f->syms.v[i];
        if (s->parent < 0 && !s->container)
            core_smap_add(&top, s->name, strlen(s->name), (uint32_t)i);
    }
    for (size_t i = 0; i < x->f->exports.n; i++) {
        const gx_export *e = &x->f->exports.v[i];
        if (e->kind != GX_EXP_NAME || !e->local || strchr(e->local, '.'))
            continue;
        size_t len = strlen(e->local);
        uint32_t it = 0;
        for (uint32_t v = core_smap_get(&top, e->local, len, &it); v != UINT32_MAX;
             v = core_smap_next(&top, e->local, len, &it))
            x->f->syms.v[v].flags |= GRAPH_SF_EXPORTED;
    }
    core_smap_free(&top);
}

void graph__extract_ts(graph_lang lang, const char *src, size_t n, gx_file *f)
{
    pthread_once(&init_once, init_tables);
    int g = lang == GRAPH_LANG_TYPESCRIPT ? 0 : 1;
    TSParser *parser;
    TSTree *tree = graph__parse(lang, src, n, NULL, 0, &parser);
    TSNode root = ts_tree_root_node(tree);
    tx *x = core_xcalloc(1, sizeof *x);
    x->f = f;
    x->src = src;
    x->types = &types[g];
    x->fid = fields[g];
    x->cjs_default = -1;
    ts_scope sc = {.sym = -1, .cls = -1};
    graph__count_errors(root, f);
    prescan(x, root, &sc);
    f->doc = module_doc(x, root);
    x->doc = gx_null();
    walk_children(x, root, &sc, 0);
    graph__cand_finish(&x->cands, x->f);
    mark_exported(x);
    graph__cursors_free(&x->cur);
    graph__tmpl_free(&x->tmpl);
    core_buf_free(&x->scratch);
    core_vec_free(&x->loggers);
    core_smap_free(&x->fns);
    core_vec_free(&x->tparams);
    core_vec_free(&x->locals);
    free(x);
    graph__parse_free(parser, tree);
}
