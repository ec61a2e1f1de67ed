/*
 * TypeScript/JavaScript extraction, the ground the other ts_*.c files
 * stand on: the node and field tables of the two grammars
 * (tree-sitter-typescript, and its TSX grammar for TSX and JavaScript),
 * string literals and the expressions that are strings (templates, `+`
 * chains), the dotted paths of names, type names and the class an
 * annotation names.
 */
#include "ts_int.h"

#include <pthread.h>
#include <string.h>

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
    [N_CATCH_CLAUSE] = "catch_clause",
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
    [N_ARRAY] = "array",
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
    [N_THROW_STATEMENT] = "throw_statement",
};
static const char *const anon_types[] = {"static", "get",     "set", "async",    "*",
                                         "+",      "default", "=",   "readonly", "override",
                                         "??",     "||",      "+=",  "&&"};

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

/* Gives x the tables of lang's grammar, filled in once, whichever thread
 * comes first. */
void graph__ts_init(tx *x, graph_lang lang)
{
    pthread_once(&init_once, init_tables);
    int g = lang == GRAPH_LANG_TYPESCRIPT ? 0 : 1;
    x->types = &types[g];
    x->fid = fields[g];
}

/* ---- strings ---- */

/* The raw text between the quotes of a string literal. */
void graph__ts_string_raw(tx *x, TSNode s, uint32_t *a, uint32_t *b)
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
const char *graph__ts_decode_string(tx *x, TSNode s, size_t *len)
{
    if (ty(x, s) != N_STRING)
        return NULL;
    uint32_t a, b;
    graph__ts_string_raw(x, s, &a, &b);
    core_buf_reset(&x->scratch);
    graph__decode_escapes(&x->scratch, x->src + a, b - a, false);
    *len = x->scratch.len;
    return x->scratch.data ? x->scratch.data : "";
}

/* The decoded value of a string literal, in the arena; NULL if n is not one. */
const char *graph__ts_string_value(tx *x, TSNode s)
{
    size_t len;
    const char *v = graph__ts_decode_string(x, s, &len);
    return v ? core_arena_strndup(&x->f->arena, v, len) : NULL;
}

/* The name of a property, method, pair key or enum member. */
const char *graph__ts_member_name(tx *x, TSNode n)
{
    switch (ty(x, n)) {
    case N_PROPERTY_IDENTIFIER:
    case N_PRIVATE_PROPERTY_IDENTIFIER:
    case N_IDENTIFIER:
    case N_NUMBER:
    case N_COMPUTED_PROPERTY_NAME:
        return name_text(x, n);
    case N_STRING:
        return graph__ts_string_value(x, n);
    default:
        return NULL;
    }
}

/* The text of n is UPPER_CASE, as constants are named. */
bool graph__ts_node_const_like(tx *x, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return graph__const_like(x->src + a, b - a);
}

/* ---- paths ---- */

/*
 * The dotted path of an identifier/member chain: `this.a.b` -> "@self.a.b",
 * `super.m` -> "@super.m", `a?.b` -> "a.b", `a['b']` -> "a.b". NULL when
 * the chain holds anything else (a call, a computed subscript).
 */
const char *graph__ts_path_of(tx *x, TSNode n, int depth)
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
        const char *p = graph__ts_path_of(x, obj, depth + 1);
        return p ? graph__path_join_node(x->f, p, x->src, prop) : NULL;
    }
    case N_SUBSCRIPT_EXPRESSION: {
        TSNode obj = fld(x, n, F_OBJECT), idx = fld(x, n, F_INDEX);
        if (ty(x, idx) != N_STRING)
            return NULL;
        const char *k = graph__ts_string_value(x, idx);
        if (!k || !*k ||
            strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") !=
                strlen(k))
            return NULL;
        const char *p = graph__ts_path_of(x, obj, depth + 1);
        return p ? join(x, p, k) : NULL;
    }
    case N_PARENTHESIZED_EXPRESSION:
    case N_NON_NULL_EXPRESSION:
    case N_AS_EXPRESSION:
    case N_SATISFIES_EXPRESSION:
        return graph__ts_path_of(x, first_named(x, n), depth + 1);
    default:
        return NULL;
    }
}

/* `require('m')` or `import('m')` with a literal: the module, else NULL. */
const char *graph__ts_require_of(tx *x, TSNode call)
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
    return graph__ts_string_value(x, a0);
}

/* ---- type names ---- */

/* The text of a type name without whitespace: "B", "a.B". */
const char *graph__ts_type_path(tx *x, TSNode n, int depth)
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
        return graph__ts_type_path(x, fld(x, n, F_NAME), depth + 1);
    default:
        return NULL;
    }
}

/* Brings the names of a type_parameters node into scope; returns what to
 * restore x->tparams.n to. */
NOINLINE size_t graph__ts_push_tparams(tx *x, TSNode tps, int depth)
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

/* n names a type parameter in scope (not a type to refer to). */
bool graph__ts_is_tparam(tx *x, TSNode n)
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
const char *graph__ts_annotation_class(tx *x, TSNode n, int depth)
{
    if (is_null(n) || depth > 16)
        return NULL;
    switch (ty(x, n)) {
    case N_TYPE_ANNOTATION:
    case N_PARENTHESIZED_TYPE:
        return graph__ts_annotation_class(x, ts_node_named_child(n, 0), depth + 1);
    case N_TYPE_IDENTIFIER:
        return graph__ts_is_tparam(x, n) ? NULL : graph__ts_type_path(x, n, 0);
    case N_NESTED_TYPE_IDENTIFIER:
        return graph__ts_type_path(x, n, 0);
    case N_GENERIC_TYPE:
        return graph__ts_annotation_class(x, fld(x, n, F_NAME), depth + 1);
    case N_UNION_TYPE: {
        TSNode l = ts_node_named_child(n, 0), r = ts_node_named_child(n, 1);
        if (is_null(l) || is_null(r))
            return NULL;
        if (nullish_type(x, r))
            return graph__ts_annotation_class(x, l, depth + 1);
        if (nullish_type(x, l))
            return graph__ts_annotation_class(x, r, depth + 1);
        return NULL;
    }
    default:
        return NULL;
    }
}

/* The operands of a chain of `+`, left to right (at most max; a longer
 * chain keeps its head as one operand). */
uint32_t graph__ts_plus_operands(tx *x, TSNode e, TSNode *ops, uint32_t max)
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

/* A tagged template (`fmt\`${n} sales\``, `String.raw\`...\``): a call
 * whose argument is the template itself. Its tag is handed the literal
 * pieces and the values; formatting the values is what tags do, so the
 * text it returns is the template's with its values in the holes. */
bool graph__ts_tagged(tx *x, TSNode e)
{
    return ty(x, e) == N_CALL_EXPRESSION && ty(x, fld(x, e, F_ARGUMENTS)) == N_TEMPLATE_STRING;
}

/* Is this a string, a template or a `+` chain with one of them? */
NOINLINE bool graph__ts_stringish(tx *x, TSNode e, int depth)
{
    e = unwrap(x, e);
    unsigned t = ty(x, e);
    if (t == N_STRING || t == N_TEMPLATE_STRING || graph__ts_tagged(x, e))
        return true;
    if (!is_plus(x, e) || depth >= PLUS_NEST)
        return false;
    TSNode ops[PLUS_MAX];
    uint32_t k = graph__ts_plus_operands(x, e, ops, PLUS_MAX);
    for (uint32_t i = 0; i < k; i++)
        if (graph__ts_stringish(x, ops[i], depth + 1))
            return true;
    return false;
}
