/*
 * TypeScript, TSX and JavaScript control flow (flow_int.h): after the
 * walk, each function the walk made a symbol of (and the file's top level)
 * read again as statements, in the order they run, into the flow builder.
 * Calls are items in evaluation order; a function written inline without
 * a symbol of its own (a callback: `.then(() => ...)`, `on('x', function
 * () {...})`) is part of the function around it and may run, or not,
 * right after the call it is handed to, as may a known function handed on
 * by name (`on('close', this.onClose)`, `this.done.bind(this)`). `await`
 * is a call that returns; switch cases fall through until a break.
 */
#include "flow_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
    T_OTHER = 0,
    T_PROGRAM,
    T_STATEMENT_BLOCK,
    T_EXPRESSION_STATEMENT,
    T_IF_STATEMENT,
    T_ELSE_CLAUSE,
    T_SWITCH_STATEMENT,
    T_SWITCH_BODY,
    T_SWITCH_CASE,
    T_SWITCH_DEFAULT,
    T_FOR_STATEMENT,
    T_FOR_IN_STATEMENT,
    T_WHILE_STATEMENT,
    T_DO_STATEMENT,
    T_TRY_STATEMENT,
    T_CATCH_CLAUSE,
    T_FINALLY_CLAUSE,
    T_RETURN_STATEMENT,
    T_THROW_STATEMENT,
    T_BREAK_STATEMENT,
    T_CONTINUE_STATEMENT,
    T_LABELED_STATEMENT,
    T_FUNCTION_DECLARATION,
    T_GENERATOR_FUNCTION_DECLARATION,
    T_FUNCTION_EXPRESSION,
    T_FUNCTION,
    T_GENERATOR_FUNCTION,
    T_ARROW_FUNCTION,
    T_METHOD_DEFINITION,
    T_CLASS_DECLARATION,
    T_ABSTRACT_CLASS_DECLARATION,
    T_CLASS,
    T_CLASS_BODY,
    T_PUBLIC_FIELD_DEFINITION,
    T_CALL_EXPRESSION,
    T_NEW_EXPRESSION,
    T_MEMBER_EXPRESSION,
    T_IDENTIFIER,
    T_PROPERTY_IDENTIFIER,
    T_PRIVATE_PROPERTY_IDENTIFIER,
    T_THIS,
    T_SUPER,
    T_ARGUMENTS,
    T_TERNARY_EXPRESSION,
    T_BINARY_EXPRESSION,
    T_PARENTHESIZED_EXPRESSION,
    T_SEQUENCE_EXPRESSION,
    T_TRUE,
    T_NUMBER,
    T_COMMENT,
    T_STRING,
    T_INTERFACE_DECLARATION,
    T_TYPE_ALIAS_DECLARATION,
    T_IMPORT_STATEMENT,
    T__NAMED_COUNT,
    /* anonymous tokens */
    T_AND_AND = T__NAMED_COUNT,
    T_OR_OR,
    T_QQ,
};

static const char *const type_names[T__NAMED_COUNT] = {
    [T_PROGRAM] = "program",
    [T_STATEMENT_BLOCK] = "statement_block",
    [T_EXPRESSION_STATEMENT] = "expression_statement",
    [T_IF_STATEMENT] = "if_statement",
    [T_ELSE_CLAUSE] = "else_clause",
    [T_SWITCH_STATEMENT] = "switch_statement",
    [T_SWITCH_BODY] = "switch_body",
    [T_SWITCH_CASE] = "switch_case",
    [T_SWITCH_DEFAULT] = "switch_default",
    [T_FOR_STATEMENT] = "for_statement",
    [T_FOR_IN_STATEMENT] = "for_in_statement",
    [T_WHILE_STATEMENT] = "while_statement",
    [T_DO_STATEMENT] = "do_statement",
    [T_TRY_STATEMENT] = "try_statement",
    [T_CATCH_CLAUSE] = "catch_clause",
    [T_FINALLY_CLAUSE] = "finally_clause",
    [T_RETURN_STATEMENT] = "return_statement",
    [T_THROW_STATEMENT] = "throw_statement",
    [T_BREAK_STATEMENT] = "break_statement",
    [T_CONTINUE_STATEMENT] = "continue_statement",
    [T_LABELED_STATEMENT] = "labeled_statement",
    [T_FUNCTION_DECLARATION] = "function_declaration",
    [T_GENERATOR_FUNCTION_DECLARATION] = "generator_function_declaration",
    [T_FUNCTION_EXPRESSION] = "function_expression",
    [T_FUNCTION] = "function",
    [T_GENERATOR_FUNCTION] = "generator_function",
    [T_ARROW_FUNCTION] = "arrow_function",
    [T_METHOD_DEFINITION] = "method_definition",
    [T_CLASS_DECLARATION] = "class_declaration",
    [T_ABSTRACT_CLASS_DECLARATION] = "abstract_class_declaration",
    [T_CLASS] = "class",
    [T_CLASS_BODY] = "class_body",
    [T_PUBLIC_FIELD_DEFINITION] = "public_field_definition",
    [T_CALL_EXPRESSION] = "call_expression",
    [T_NEW_EXPRESSION] = "new_expression",
    [T_MEMBER_EXPRESSION] = "member_expression",
    [T_IDENTIFIER] = "identifier",
    [T_PROPERTY_IDENTIFIER] = "property_identifier",
    [T_PRIVATE_PROPERTY_IDENTIFIER] = "private_property_identifier",
    [T_THIS] = "this",
    [T_SUPER] = "super",
    [T_ARGUMENTS] = "arguments",
    [T_TERNARY_EXPRESSION] = "ternary_expression",
    [T_BINARY_EXPRESSION] = "binary_expression",
    [T_PARENTHESIZED_EXPRESSION] = "parenthesized_expression",
    [T_SEQUENCE_EXPRESSION] = "sequence_expression",
    [T_TRUE] = "true",
    [T_NUMBER] = "number",
    [T_COMMENT] = "comment",
    [T_STRING] = "string",
    [T_INTERFACE_DECLARATION] = "interface_declaration",
    [T_TYPE_ALIAS_DECLARATION] = "type_alias_declaration",
    [T_IMPORT_STATEMENT] = "import_statement",
};

static const char *const anon_names[] = {"&&", "||", "??"};

enum {
    TF_BODY,
    TF_CONDITION,
    TF_CONSEQUENCE,
    TF_ALTERNATIVE,
    TF_VALUE,
    TF_INITIALIZER,
    TF_INCREMENT,
    TF_RIGHT,
    TF_HANDLER,
    TF_FINALIZER,
    TF_FUNCTION,
    TF_CONSTRUCTOR,
    TF_ARGUMENTS,
    TF_OBJECT,
    TF_PROPERTY,
    TF_OPERATOR,
    TF_LEFT,
    TF_DECLARATION,
    TF_NAME,
    TF__COUNT
};

static const char *const field_names[TF__COUNT] = {
    "body",        "condition",   "consequence", "alternative", "value",
    "initializer", "increment",   "right",       "handler",     "finalizer",
    "function",    "constructor", "arguments",   "object",      "property",
    "operator",    "left",        "declaration", "name",
};

/* Per grammar: TypeScript (0) and TSX, which JavaScript is parsed with (1). */
static gx_types types[2];
static TSFieldId fid[2][TF__COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_tables(void)
{
    for (int g = 0; g < 2; g++) {
        const TSLanguage *lang = graph__language(g ? GRAPH_LANG_TSX : GRAPH_LANG_TYPESCRIPT);
        graph__types_init(&types[g], lang, type_names, T__NAMED_COUNT, anon_names,
                          sizeof anon_names / sizeof *anon_names);
        for (int i = 0; i < TF__COUNT; i++)
            fid[g][i] = ts_language_field_id_for_name(lang, field_names[i],
                                                      (uint32_t)strlen(field_names[i]));
    }
}

#define LOOP_ENTER 0.5f

typedef struct tf {
    gx_fb fb;
    gx_file *f;
    const char *src;
    const gx_types *types;
    const TSFieldId *fid;
    gx_cursors cur;
    /* Functions whose flow is to be built, with their symbols. */
    core_vec(TSNode) todo;
    core_vec(int32_t) todo_sym;
    uint8_t *claimed; /* symbols already given a function node */
    core_buf name;
} tf;

static unsigned ty(const tf *p, TSNode n)
{
    return ts_node_is_null(n) ? T_OTHER : gx_type(p->types, n);
}

static TSNode fld(const tf *p, TSNode n, int f)
{
    return ts_node_is_null(n) ? gx_null() : ts_node_child_by_field_id(n, p->fid[f]);
}

static TSTreeCursor *kids(tf *p, int depth, TSNode n)
{
    if (depth > GX_MAX_DEPTH || ts_node_is_null(n))
        return NULL;
    TSTreeCursor *c = gx_cursor(&p->cur, depth, n);
    return ts_tree_cursor_goto_first_child(c) ? c : NULL;
}

static bool is_fn(unsigned t)
{
    return t == T_FUNCTION_EXPRESSION || t == T_FUNCTION || t == T_GENERATOR_FUNCTION ||
           t == T_ARROW_FUNCTION || t == T_FUNCTION_DECLARATION ||
           t == T_GENERATOR_FUNCTION_DECLARATION || t == T_METHOD_DEFINITION;
}

static uint32_t stmt(tf *p, TSNode n, uint32_t cur, int depth);
static uint32_t expr(tf *p, TSNode n, uint32_t cur, int depth);

static uint32_t stmts(tf *p, TSNode n, uint32_t cur, int depth)
{
    TSTreeCursor *c = kids(p, depth, n);
    if (!c)
        return cur;
    do {
        TSNode s = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(s))
            cur = stmt(p, s, cur, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
    return cur;
}

/* (x), (0, f), x! and x as T: what is inside (comments aside). */
static TSNode unwrap(const tf *p, TSNode n)
{
    for (int i = 0; i < 16 && !ts_node_is_null(n); i++) {
        unsigned t = ty(p, n);
        if (t == T_PARENTHESIZED_EXPRESSION || t == T_SEQUENCE_EXPRESSION) {
            uint32_t k = ts_node_named_child_count(n);
            while (k && ty(p, ts_node_named_child(n, k - 1)) == T_COMMENT)
                k--;
            if (!k)
                break;
            n = ts_node_named_child(n, k - 1);
        } else {
            break;
        }
    }
    return n;
}

/* The last name of a callee ("debug" for this.log.debug, "default" for
 * (0, debug_1.default)), into p->name. */
static const char *callee_name(tf *p, TSNode fn)
{
    core_buf_reset(&p->name);
    TSNode id = unwrap(p, fn);
    if (ty(p, id) == T_MEMBER_EXPRESSION)
        id = fld(p, id, TF_PROPERTY);
    unsigned t = ty(p, id);
    if (t == T_IDENTIFIER || t == T_PROPERTY_IDENTIFIER || t == T_PRIVATE_PROPERTY_IDENTIFIER) {
        uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
        if (t == T_PRIVATE_PROPERTY_IDENTIFIER && b > a && p->src[a] == '#')
            a++;
        core_buf_append(&p->name, p->src + a, b - a);
    } else if (t == T_SUPER) {
        core_buf_puts(&p->name, "constructor");
    }
    return p->name.data ? p->name.data : "";
}

/* When the walk made a symbol of a function node: claims it (so a
 * callback on the same lines is not taken for it) and puts the function
 * on the list to build. */
static bool defer_fn(tf *p, TSNode fn)
{
    int32_t s = graph__fb_sym(&p->fb, gx_line(fn), graph__end_line(fn), NULL, p->claimed);
    if (s < 0)
        return false;
    p->claimed[s] = 1;
    core_vec_push(&p->todo, fn);
    core_vec_push(&p->todo_sym, s);
    return true;
}

/* A function's body inline at cur, where it may run or not (a callback):
 * returns the point after it. */
static uint32_t inline_fn(tf *p, TSNode fn, uint32_t cur, int depth)
{
    if (cur == FB_NONE)
        return FB_NONE;
    uint32_t s = graph__fb_join(&p->fb), after = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, cur, s, 0.5f);
    graph__fb_edge(&p->fb, cur, after, 0.5f);
    fb_saved sv = graph__fb_inline_begin(&p->fb, after);
    TSNode body = fld(p, fn, TF_BODY);
    uint32_t e = ty(p, body) == T_STATEMENT_BLOCK ? stmts(p, body, s, depth + 1)
                                                  : expr(p, body, s, depth + 1);
    graph__fb_inline_end(&p->fb, sv);
    graph__fb_edge(&p->fb, e, after, 1);
    return after;
}

/* A function node met in the code: its own flow later when it is a
 * symbol, else written inline here. */
static uint32_t fn_node(tf *p, TSNode fn, uint32_t cur, int depth)
{
    return defer_fn(p, fn) ? cur : inline_fn(p, fn, cur, depth);
}

/* A function handed on by name: this.onClose, done, this.done.bind(x). */
static bool handed_name(const tf *p, TSNode a, TSNode *named)
{
    unsigned t = ty(p, a);
    if (t == T_CALL_EXPRESSION) {
        TSNode fn = fld(p, a, TF_FUNCTION);
        if (ty(p, fn) != T_MEMBER_EXPRESSION)
            return false;
        TSNode prop = fld(p, fn, TF_PROPERTY);
        uint32_t s = ts_node_start_byte(prop), e = ts_node_end_byte(prop);
        if (e - s != 4 || memcmp(p->src + s, "bind", 4) != 0)
            return false;
        a = fld(p, fn, TF_OBJECT);
        t = ty(p, a);
    }
    if (t != T_IDENTIFIER && t != T_MEMBER_EXPRESSION)
        return false;
    *named = a;
    return true;
}

/* What a call's arguments hand on runs, or not, after the call. */
static uint32_t callbacks(tf *p, TSNode args, uint32_t cur, int depth)
{
    TSTreeCursor *c = kids(p, depth, args);
    if (!c)
        return cur;
    TSNode fns[32];
    uint32_t nf = 0;
    do {
        TSNode a = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(a) && nf < 32)
            fns[nf++] = a;
    } while (ts_tree_cursor_goto_next_sibling(c));
    for (uint32_t i = 0; i < nf && cur != FB_NONE; i++) {
        TSNode a = unwrap(p, fns[i]), named;
        if (is_fn(ty(p, a))) {
            cur = fn_node(p, a, cur, depth + 1);
        } else if (handed_name(p, a, &named)) {
            uint32_t s = graph__fb_join(&p->fb), after = graph__fb_join(&p->fb);
            graph__fb_edge(&p->fb, cur, s, 0.5f);
            graph__fb_edge(&p->fb, cur, after, 0.5f);
            uint32_t r =
                graph__fb_item(&p->fb, s, GX_FLOW_REF, callee_name(p, named), gx_line(named));
            graph__fb_edge(&p->fb, r, after, 1);
            cur = after;
        }
    }
    return cur;
}

static uint32_t call(tf *p, TSNode n, uint32_t cur, int depth)
{
    bool is_new = ty(p, n) == T_NEW_EXPRESSION;
    TSNode fn = fld(p, n, is_new ? TF_CONSTRUCTOR : TF_FUNCTION), args = fld(p, n, TF_ARGUMENTS);
    /* The receiver's calls first (f(x).g()), then the arguments' (not the
     * functions handed on: they run after). */
    TSNode inner = unwrap(p, fn);
    if (ty(p, inner) == T_MEMBER_EXPRESSION)
        cur = expr(p, fld(p, inner, TF_OBJECT), cur, depth + 1);
    else if (!is_fn(ty(p, inner)))
        cur = expr(p, inner, cur, depth + 1);
    TSTreeCursor *c = kids(p, depth, args);
    if (c) {
        do {
            TSNode a = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(a) && !is_fn(ty(p, unwrap(p, a))))
                cur = expr(p, a, cur, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    cur = graph__fb_item(&p->fb, cur, GX_FLOW_CALL, callee_name(p, fn), gx_line(n));
    /* (function () {...})(): the function runs now. */
    if (is_fn(ty(p, inner)))
        cur = fn_node(p, inner, cur, depth + 1);
    return callbacks(p, args, cur, depth + 1);
}

static uint32_t maybe(tf *p, TSNode a, uint32_t cur, int depth)
{
    if (cur == FB_NONE)
        return FB_NONE;
    uint32_t s = graph__fb_join(&p->fb), after = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, cur, s, 0.5f);
    graph__fb_edge(&p->fb, cur, after, 0.5f);
    graph__fb_edge(&p->fb, expr(p, a, s, depth + 1), after, 1);
    return after;
}

static void defer_class(tf *p, TSNode body, int depth);

static uint32_t expr(tf *p, TSNode n, uint32_t cur, int depth)
{
    if (ts_node_is_null(n) || cur == FB_NONE)
        return cur;
    if (depth > GX_MAX_DEPTH) {
        p->f->too_deep++;
        return cur;
    }
    unsigned t = ty(p, n);
    if (is_fn(t))
        return fn_node(p, n, cur, depth);
    switch (t) {
    case T_CALL_EXPRESSION:
    case T_NEW_EXPRESSION:
        return call(p, n, cur, depth);
    case T_IDENTIFIER:
    case T_COMMENT:
    case T_STRING:
        return cur;
    case T_CLASS:
    case T_CLASS_DECLARATION:
    case T_ABSTRACT_CLASS_DECLARATION:
        defer_class(p, fld(p, n, TF_BODY), depth + 1);
        return cur;
    case T_TERNARY_EXPRESSION: {
        cur = expr(p, fld(p, n, TF_CONDITION), cur, depth + 1);
        if (cur == FB_NONE)
            return FB_NONE;
        uint32_t sa = graph__fb_join(&p->fb), sb = graph__fb_join(&p->fb),
                 out = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, sa, 0.5f);
        graph__fb_edge(&p->fb, cur, sb, 0.5f);
        graph__fb_edge(&p->fb, expr(p, fld(p, n, TF_CONSEQUENCE), sa, depth + 1), out, 1);
        graph__fb_edge(&p->fb, expr(p, fld(p, n, TF_ALTERNATIVE), sb, depth + 1), out, 1);
        return out;
    }
    case T_BINARY_EXPRESSION: {
        unsigned op = ty(p, fld(p, n, TF_OPERATOR));
        if (op == T_AND_AND || op == T_OR_OR || op == T_QQ) {
            cur = expr(p, fld(p, n, TF_LEFT), cur, depth + 1);
            return maybe(p, fld(p, n, TF_RIGHT), cur, depth);
        }
        break;
    }
    default:
        break;
    }
    TSTreeCursor *c = kids(p, depth, n);
    if (!c)
        return cur;
    do {
        TSNode k = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(k) && ts_node_child_count(k) > 0)
            cur = expr(p, k, cur, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
    return cur;
}

/* A class's methods and function-valued fields: their own flows. */
static void defer_class(tf *p, TSNode body, int depth)
{
    TSTreeCursor *c = kids(p, depth, body);
    if (!c)
        return;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        unsigned t = ty(p, m);
        TSNode fn = t == T_METHOD_DEFINITION         ? m
                    : t == T_PUBLIC_FIELD_DEFINITION ? unwrap(p, fld(p, m, TF_VALUE))
                                                     : gx_null();
        if (!ts_node_is_null(fn) && is_fn(ty(p, fn)))
            defer_fn(p, fn);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static bool always_true(const tf *p, TSNode cond)
{
    cond = unwrap(p, cond);
    unsigned t = ty(p, cond);
    if (t == T_TRUE)
        return true;
    if (t == T_NUMBER) {
        uint32_t a = ts_node_start_byte(cond), b = ts_node_end_byte(cond);
        return !(b - a == 1 && p->src[a] == '0');
    }
    return false;
}

/* if / else if / else: the arms evenly (no else: an empty one). */
static uint32_t if_stmt(tf *p, TSNode n, uint32_t cur, int depth)
{
    TSNode conds[256], arms[256];
    uint32_t na = 0;
    bool has_else = false;
    for (TSNode k = n; !ts_node_is_null(k) && na < 256;) {
        conds[na] = fld(p, k, TF_CONDITION);
        arms[na++] = fld(p, k, TF_CONSEQUENCE);
        TSNode alt = fld(p, k, TF_ALTERNATIVE);
        if (ts_node_is_null(alt))
            break;
        TSNode s = ts_node_named_child(alt, 0);
        if (ty(p, s) == T_IF_STATEMENT) {
            k = s;
            continue;
        }
        if (na < 256) {
            conds[na] = gx_null();
            arms[na++] = s;
            has_else = true;
        }
        break;
    }
    /* The first condition runs before any arm; each other one starts its arm. */
    cur = expr(p, conds[0], cur, depth + 1);
    if (cur == FB_NONE)
        return FB_NONE;
    float w = 1.0f / (float)(na + !has_else);
    uint32_t out = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, cur, out, has_else ? 0 : w);
    for (uint32_t i = 0; i < na; i++) {
        uint32_t s = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, s, w);
        if (i > 0)
            s = expr(p, conds[i], s, depth + 1);
        graph__fb_edge(&p->fb, stmt(p, arms[i], s, depth + 1), out, 1);
    }
    return out;
}

/* Loops: init; head [test]; body; update; back to the head. */
static uint32_t loop_stmt(tf *p, TSNode n, uint32_t cur, int depth)
{
    unsigned t = ty(p, n);
    if (t == T_FOR_STATEMENT)
        cur = stmt(p, fld(p, n, TF_INITIALIZER), cur, depth + 1);
    else if (t == T_FOR_IN_STATEMENT)
        cur = expr(p, fld(p, n, TF_RIGHT), cur, depth + 1);
    uint32_t head = graph__fb_after(&p->fb, cur);
    if (head == FB_NONE)
        return FB_NONE;
    TSNode cond = fld(p, n, TF_CONDITION);
    uint32_t body = graph__fb_join(&p->fb), out = graph__fb_join(&p->fb);
    if (t == T_DO_STATEMENT) {
        /* The body once, then the test. */
        graph__fb_edge(&p->fb, head, body, 1);
        uint32_t test = graph__fb_join(&p->fb);
        graph__fb_loop_push(&p->fb, out, test);
        graph__fb_edge(&p->fb, stmt(p, fld(p, n, TF_BODY), body, depth + 1), test, 1);
        graph__fb_loop_pop(&p->fb);
        test = expr(p, cond, test, depth + 1);
        float again = always_true(p, cond) ? 1.0f : LOOP_ENTER;
        graph__fb_edge(&p->fb, test, head, again);
        graph__fb_edge(&p->fb, test, out, 1 - again);
        return out;
    }
    uint32_t test = t == T_FOR_IN_STATEMENT ? head : expr(p, cond, head, depth + 1);
    float enter = t == T_WHILE_STATEMENT && always_true(p, cond) ? 1.0f : LOOP_ENTER;
    graph__fb_edge(&p->fb, test, body, enter);
    graph__fb_edge(&p->fb, test, out, 1 - enter);
    uint32_t next = graph__fb_join(&p->fb);
    graph__fb_loop_push(&p->fb, out, next);
    graph__fb_edge(&p->fb, stmt(p, fld(p, n, TF_BODY), body, depth + 1), next, 1);
    graph__fb_loop_pop(&p->fb);
    graph__fb_edge(&p->fb, expr(p, fld(p, n, TF_INCREMENT), next, depth + 1), head, 1);
    return out;
}

static uint32_t switch_stmt(tf *p, TSNode n, uint32_t cur, int depth)
{
    cur = expr(p, fld(p, n, TF_VALUE), cur, depth + 1);
    TSNode cases[512];
    uint32_t nc = 0;
    bool has_default = false;
    TSTreeCursor *c = kids(p, depth, fld(p, n, TF_BODY));
    if (c) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            unsigned t = ty(p, k);
            if ((t == T_SWITCH_CASE || t == T_SWITCH_DEFAULT) && nc < 512) {
                cases[nc++] = k;
                has_default |= t == T_SWITCH_DEFAULT;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (cur == FB_NONE)
        return FB_NONE;
    uint32_t out = graph__fb_join(&p->fb);
    float w = 1.0f / (float)(nc + !has_default);
    graph__fb_edge(&p->fb, cur, out, has_default ? 0 : w);
    graph__fb_loop_push(&p->fb, out, graph__fb_continue(&p->fb));
    uint32_t fall = FB_NONE;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t s = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, s, w);
        graph__fb_edge(&p->fb, fall, s, 1);
        /* The case's statements: its children but the value. */
        TSNode value = fld(p, cases[i], TF_VALUE);
        TSTreeCursor *cc = kids(p, depth, cases[i]);
        if (cc) {
            do {
                TSNode k = ts_tree_cursor_current_node(cc);
                if (!ts_node_is_named(k) || ty(p, k) == T_COMMENT ||
                    (!ts_node_is_null(value) && ts_node_eq(k, value)))
                    continue;
                s = stmt(p, k, s, depth + 1);
            } while (ts_tree_cursor_goto_next_sibling(cc));
        }
        fall = s;
    }
    graph__fb_edge(&p->fb, fall, out, 1);
    graph__fb_loop_pop(&p->fb);
    return out;
}

static uint32_t try_stmt(tf *p, TSNode n, uint32_t cur, int depth)
{
    if (cur == FB_NONE)
        return FB_NONE;
    TSNode handler = fld(p, n, TF_HANDLER), fin = fld(p, n, TF_FINALIZER);
    uint32_t dispatch = ts_node_is_null(handler) ? FB_NONE : graph__fb_join(&p->fb);
    graph__fb_try_push(&p->fb, dispatch, cur);
    uint32_t e = stmts(p, fld(p, n, TF_BODY), graph__fb_after(&p->fb, cur), depth + 1);
    graph__fb_try_pop(&p->fb);
    uint32_t fin_start = graph__fb_after(&p->fb, e);
    if (fin_start == FB_NONE)
        fin_start = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, stmts(p, fld(p, handler, TF_BODY), dispatch, depth + 1), fin_start, 1);
    return stmts(p, fld(p, fin, TF_BODY), fin_start, depth + 1);
}

static uint32_t stmt(tf *p, TSNode n, uint32_t cur, int depth)
{
    if (ts_node_is_null(n))
        return cur;
    if (depth > GX_MAX_DEPTH) {
        p->f->too_deep++;
        return cur;
    }
    unsigned t = ty(p, n);
    switch (t) {
    case T_FUNCTION_DECLARATION:
    case T_GENERATOR_FUNCTION_DECLARATION:
        defer_fn(p, n);
        return cur;
    case T_CLASS_DECLARATION:
    case T_ABSTRACT_CLASS_DECLARATION:
        defer_class(p, fld(p, n, TF_BODY), depth + 1);
        return cur;
    case T_INTERFACE_DECLARATION:
    case T_TYPE_ALIAS_DECLARATION:
    case T_IMPORT_STATEMENT:
    case T_COMMENT:
        return cur;
    case T_STATEMENT_BLOCK:
        return stmts(p, n, cur, depth);
    case T_IF_STATEMENT:
        return if_stmt(p, n, cur, depth);
    case T_FOR_STATEMENT:
    case T_FOR_IN_STATEMENT:
    case T_WHILE_STATEMENT:
    case T_DO_STATEMENT:
        return loop_stmt(p, n, cur, depth);
    case T_SWITCH_STATEMENT:
        return switch_stmt(p, n, cur, depth);
    case T_TRY_STATEMENT:
        return try_stmt(p, n, cur, depth);
    case T_LABELED_STATEMENT:
        return stmt(p, fld(p, n, TF_BODY), cur, depth + 1);
    case T_RETURN_STATEMENT:
    case T_THROW_STATEMENT:
        return graph__fb_exit(&p->fb, expr(p, n, cur, depth), t == T_THROW_STATEMENT);
    case T_BREAK_STATEMENT:
    case T_CONTINUE_STATEMENT:
        return graph__fb_leave(&p->fb, cur, t == T_BREAK_STATEMENT);
    default:
        return expr(p, n, cur, depth);
    }
}

/* The flow of one function the walk made a symbol of. */
static void function_flow(tf *p, TSNode fn, int32_t sym)
{
    uint32_t cur = graph__fb_begin(&p->fb, sym);
    TSNode body = fld(p, fn, TF_BODY);
    cur = ty(p, body) == T_STATEMENT_BLOCK ? stmts(p, body, cur, 1) : expr(p, body, cur, 1);
    graph__fb_end(&p->fb, cur);
}

void graph__ts_flow(graph_lang lang, gx_file *f, const char *src, TSNode root)
{
    pthread_once(&once, init_tables);
    tf *p = core_xcalloc(1, sizeof *p);
    int g = lang == GRAPH_LANG_TYPESCRIPT ? 0 : 1;
    p->types = &types[g];
    p->fid = fid[g];
    p->f = f;
    p->src = src;
    p->claimed = core_xcalloc(f->syms.n ? f->syms.n : 1, 1);
    graph__fb_init(&p->fb, f);
    uint32_t cur = graph__fb_begin(&p->fb, -1);
    graph__fb_end(&p->fb, stmts(p, root, cur, 0));
    for (size_t i = 0; i < p->todo.n; i++)
        function_flow(p, p->todo.v[i], p->todo_sym.v[i]);
    graph__fb_free(&p->fb);
    graph__cursors_free(&p->cur);
    core_vec_free(&p->todo);
    core_vec_free(&p->todo_sym);
    free(p->claimed);
    core_buf_free(&p->name);
    free(p);
}
