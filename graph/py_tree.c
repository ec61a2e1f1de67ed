/*
 * Python extraction, the ground the other py_*.c files stand on: the node
 * and field tables of tree-sitter-python, and what a name in the tree
 * stands for (dotted paths through imports and self/cls, loggers bound
 * to names, naming conventions).
 */
#include "py_int.h"

#include <pthread.h>
#include <string.h>

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
    [N_WITH_ITEM] = "with_item",
    [N_TRUE] = "true",
    [N_FALSE] = "false",
    [N_NONE] = "none",
    [N_KEYWORD_SEPARATOR] = "keyword_separator",
    [N_POSITIONAL_SEPARATOR] = "positional_separator",
    [N_LIST] = "list",
    [N_IF_STATEMENT] = "if_statement",
    [N_ELIF_CLAUSE] = "elif_clause",
    [N_ELSE_CLAUSE] = "else_clause",
    [N_RETURN_STATEMENT] = "return_statement",
    [N_BOOLEAN_OPERATOR] = "boolean_operator",
    [N_RAISE_STATEMENT] = "raise_statement",
    [N_AWAIT] = "await",
    [N_GENERATOR_EXPRESSION] = "generator_expression",
};
static const char *const anon_types[] = {"async", "%", "+", "+=", "or", "*"};

gx_types graph__py_types;
TSFieldId graph__py_fid[F__COUNT];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static const char *const field_names[F__COUNT] = {
    [F_NAME] = "name",
    [F_BODY] = "body",
    [F_PARAMETERS] = "parameters",
    [F_RETURN_TYPE] = "return_type",
    [F_SUPERCLASSES] = "superclasses",
    [F_DEFINITION] = "definition",
    [F_LEFT] = "left",
    [F_RIGHT] = "right",
    [F_TYPE] = "type",
    [F_FUNCTION] = "function",
    [F_ARGUMENTS] = "arguments",
    [F_OBJECT] = "object",
    [F_ATTRIBUTE] = "attribute",
    [F_MODULE_NAME] = "module_name",
    [F_ALIAS] = "alias",
    [F_VALUE] = "value",
    [F_KEY] = "key",
    [F_OPERATOR] = "operator",
};

static void init_tables(void)
{
    const TSLanguage *l = graph__language(GRAPH_LANG_PYTHON);
    graph__types_init(&graph__py_types, l, named_types, N__NAMED_COUNT, anon_types,
                      sizeof anon_types / sizeof anon_types[0]);
    for (int i = 0; i < F__COUNT; i++) {
        const char *nm = field_names[i];
        TSFieldId id = ts_language_field_id_for_name(l, nm, (uint32_t)strlen(nm));
        if (!id)
            core_panic("tree-sitter-python has no field '%s'", nm);
        graph__py_fid[i] = id;
    }
}

/* Fills in the tables once, whichever thread comes first. */
void graph__py_init(void)
{
    pthread_once(&init_once, init_tables);
}

/* ---- names ---- */

/* The canonical dotted name a local path stands for, through imports:
 * with `import logging as lg`, "lg.getLogger" -> "logging.getLogger". */
const char *graph__py_canon(px *x, const char *path)
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

/* The logger or logger-method alias bound to key last; NULL if none. */
const py_logger *graph__py_find_logger(px *x, const char *key)
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
const char *graph__py_path_of(px *x, TSNode n, const py_scope *sc, int depth)
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
        TSNode obj = fieldn(n, F_OBJECT), attr = fieldn(n, F_ATTRIBUTE);
        if (is_null(obj) || is_null(attr))
            return NULL;
        const char *p = graph__py_path_of(x, obj, sc, depth + 1);
        return p ? graph__path_join_node(x->f, p, x->src, attr) : NULL;
    }
    case N_CALL: {
        TSNode fn = fieldn(n, F_FUNCTION);
        if (!is_null(fn) && ty(fn) == N_IDENTIFIER && text_eq(x, fn, "super"))
            return "@super";
        return NULL;
    }
    case N_PARENTHESIZED_EXPRESSION: {
        TSNode inner = ts_node_named_child(n, 0);
        return is_null(inner) ? NULL : graph__py_path_of(x, inner, sc, depth + 1);
    }
    default:
        return NULL;
    }
}

/* "?.m" for a call on an unknown receiver. */
const char *graph__py_unknown_member(px *x, TSNode attr_node)
{
    TSNode attr = fieldn(attr_node, F_ATTRIBUTE);
    return is_null(attr) ? NULL : graph__path_join_node(x->f, "?", x->src, attr);
}

/* "NAME[key]": how a string in a dict constant is named. */
const char *graph__py_subscript_name(px *x, const char *name, const char *key)
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

/* The source text of n after its last '.': "info" for `logging.info`. */
const char *graph__py_last_segment(px *x, TSNode n, size_t *len)
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

/* __name__: special to Python, neither private nor a constant. */
bool graph__py_is_dunder(const char *s)
{
    size_t n = strlen(s);
    return n > 4 && s[0] == '_' && s[1] == '_' && s[n - 1] == '_' && s[n - 2] == '_';
}
