/*
 * Python control flow (flow_int.h): after the walk, each function's body
 * (and the file's top level) read again as statements, in the order they
 * run, into the flow builder. Calls are items in evaluation order (the
 * receiver's calls, then the arguments', then the call itself); a name
 * or attribute passed as an argument is a callback that may run after
 * the call. Nested functions and methods are flows of their own; lambdas
 * and class bodies are left out.
 */
#include "flow_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_OTHER = 0,
    P_MODULE,
    P_FUNCTION_DEFINITION,
    P_CLASS_DEFINITION,
    P_DECORATED_DEFINITION,
    P_BLOCK,
    P_IF_STATEMENT,
    P_ELIF_CLAUSE,
    P_ELSE_CLAUSE,
    P_WHILE_STATEMENT,
    P_FOR_STATEMENT,
    P_TRY_STATEMENT,
    P_EXCEPT_CLAUSE,
    P_EXCEPT_GROUP_CLAUSE,
    P_FINALLY_CLAUSE,
    P_WITH_STATEMENT,
    P_WITH_CLAUSE,
    P_WITH_ITEM,
    P_MATCH_STATEMENT,
    P_CASE_CLAUSE,
    P_RETURN_STATEMENT,
    P_RAISE_STATEMENT,
    P_BREAK_STATEMENT,
    P_CONTINUE_STATEMENT,
    P_CALL,
    P_ATTRIBUTE,
    P_IDENTIFIER,
    P_KEYWORD_ARGUMENT,
    P_ARGUMENT_LIST,
    P_LAMBDA,
    P_CONDITIONAL_EXPRESSION,
    P_BOOLEAN_OPERATOR,
    P_LIST_COMPREHENSION,
    P_SET_COMPREHENSION,
    P_DICTIONARY_COMPREHENSION,
    P_GENERATOR_EXPRESSION,
    P_FOR_IN_CLAUSE,
    P_COMMENT,
    P_TRUE,
    P_INTEGER,
    P__COUNT
};

static const char *const type_names[P__COUNT] = {
    [P_MODULE] = "module",
    [P_FUNCTION_DEFINITION] = "function_definition",
    [P_CLASS_DEFINITION] = "class_definition",
    [P_DECORATED_DEFINITION] = "decorated_definition",
    [P_BLOCK] = "block",
    [P_IF_STATEMENT] = "if_statement",
    [P_ELIF_CLAUSE] = "elif_clause",
    [P_ELSE_CLAUSE] = "else_clause",
    [P_WHILE_STATEMENT] = "while_statement",
    [P_FOR_STATEMENT] = "for_statement",
    [P_TRY_STATEMENT] = "try_statement",
    [P_EXCEPT_CLAUSE] = "except_clause",
    [P_EXCEPT_GROUP_CLAUSE] = "except_group_clause",
    [P_FINALLY_CLAUSE] = "finally_clause",
    [P_WITH_STATEMENT] = "with_statement",
    [P_WITH_CLAUSE] = "with_clause",
    [P_WITH_ITEM] = "with_item",
    [P_MATCH_STATEMENT] = "match_statement",
    [P_CASE_CLAUSE] = "case_clause",
    [P_RETURN_STATEMENT] = "return_statement",
    [P_RAISE_STATEMENT] = "raise_statement",
    [P_BREAK_STATEMENT] = "break_statement",
    [P_CONTINUE_STATEMENT] = "continue_statement",
    [P_CALL] = "call",
    [P_ATTRIBUTE] = "attribute",
    [P_IDENTIFIER] = "identifier",
    [P_KEYWORD_ARGUMENT] = "keyword_argument",
    [P_ARGUMENT_LIST] = "argument_list",
    [P_LAMBDA] = "lambda",
    [P_CONDITIONAL_EXPRESSION] = "conditional_expression",
    [P_BOOLEAN_OPERATOR] = "boolean_operator",
    [P_LIST_COMPREHENSION] = "list_comprehension",
    [P_SET_COMPREHENSION] = "set_comprehension",
    [P_DICTIONARY_COMPREHENSION] = "dictionary_comprehension",
    [P_GENERATOR_EXPRESSION] = "generator_expression",
    [P_FOR_IN_CLAUSE] = "for_in_clause",
    [P_COMMENT] = "comment",
    [P_TRUE] = "true",
    [P_INTEGER] = "integer",
};

enum {
    PF_NAME,
    PF_BODY,
    PF_CONDITION,
    PF_CONSEQUENCE,
    PF_ALTERNATIVE,
    PF_LEFT,
    PF_RIGHT,
    PF_FUNCTION,
    PF_ARGUMENTS,
    PF_OBJECT,
    PF_ATTRIBUTE,
    PF_VALUE,
    PF_SUBJECT,
    PF_DEFINITION,
    PF__COUNT
};

static const char *const field_names[PF__COUNT] = {
    "name",     "body",      "condition", "consequence", "alternative", "left",    "right",
    "function", "arguments", "object",    "attribute",   "value",       "subject", "definition",
};

static gx_types types;
static TSFieldId fid[PF__COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_tables(void)
{
    const TSLanguage *lang = graph__language(GRAPH_LANG_PYTHON);
    graph__types_init(&types, lang, type_names, P__COUNT, NULL, 0);
    for (int i = 0; i < PF__COUNT; i++)
        fid[i] =
            ts_language_field_id_for_name(lang, field_names[i], (uint32_t)strlen(field_names[i]));
}

/* A loop's body runs (again) or not. */
#define LOOP_ENTER 0.5f

typedef struct pf {
    gx_fb fb;
    gx_file *f;
    const char *src;
    gx_cursors cur;
    core_vec(TSNode) todo; /* function definitions whose flow is to be built */
    core_buf name;
} pf;

static unsigned ty(TSNode n)
{
    return ts_node_is_null(n) ? P_OTHER : gx_type(&types, n);
}

static TSNode fld(TSNode n, int f)
{
    return ts_node_is_null(n) ? gx_null() : ts_node_child_by_field_id(n, fid[f]);
}

/* The first cursor over n's children at depth, or NULL (too deep, or no
 * children). */
static TSTreeCursor *kids(pf *p, int depth, TSNode n)
{
    if (depth > GX_MAX_DEPTH || ts_node_is_null(n))
        return NULL;
    TSTreeCursor *c = gx_cursor(&p->cur, depth, n);
    return ts_tree_cursor_goto_first_child(c) ? c : NULL;
}

static uint32_t stmt(pf *p, TSNode n, uint32_t cur, int depth);
static uint32_t expr(pf *p, TSNode n, uint32_t cur, int depth);

/* The statements of a block (or of any node holding statements), in turn. */
static uint32_t stmts(pf *p, TSNode n, uint32_t cur, int depth)
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

/* The last name of a callee ("debug" for self.log.debug), into p->name. */
static const char *callee_name(pf *p, TSNode fn)
{
    core_buf_reset(&p->name);
    TSNode id = ty(fn) == P_ATTRIBUTE ? fld(fn, PF_ATTRIBUTE) : fn;
    if (ty(id) == P_IDENTIFIER) {
        uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
        core_buf_append(&p->name, p->src + a, b - a);
    }
    return p->name.data ? p->name.data : "";
}

/* Whether an argument names something (x, self.x, a.b.c): a function
 * handed on, when it resolves to one. */
static bool is_path(TSNode a)
{
    for (int i = 0; i < 64; i++) {
        unsigned t = ty(a);
        if (t == P_IDENTIFIER)
            return true;
        if (t != P_ATTRIBUTE)
            return false;
        a = fld(a, PF_OBJECT);
    }
    return false;
}

/* Callbacks handed to the call just made: each runs, or not, after it. */
static uint32_t callbacks(pf *p, TSNode args, uint32_t cur, int depth)
{
    TSTreeCursor *c = kids(p, depth, args);
    if (!c)
        return cur;
    do {
        TSNode a = ts_tree_cursor_current_node(c);
        if (ty(a) == P_KEYWORD_ARGUMENT)
            a = fld(a, PF_VALUE);
        if (!is_path(a) || cur == FB_NONE)
            continue;
        uint32_t s = graph__fb_join(&p->fb), after = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, s, 0.5f);
        graph__fb_edge(&p->fb, cur, after, 0.5f);
        uint32_t r = graph__fb_item(&p->fb, s, GX_FLOW_REF, callee_name(p, a), gx_line(a));
        graph__fb_edge(&p->fb, r, after, 1);
        cur = after;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return cur;
}

static uint32_t call(pf *p, TSNode n, uint32_t cur, int depth)
{
    TSNode fn = fld(n, PF_FUNCTION), args = fld(n, PF_ARGUMENTS);
    /* The receiver's calls first (f(x).g()), then the arguments'. */
    if (ty(fn) == P_ATTRIBUTE)
        cur = expr(p, fld(fn, PF_OBJECT), cur, depth + 1);
    else if (ty(fn) != P_IDENTIFIER)
        cur = expr(p, fn, cur, depth + 1);
    TSTreeCursor *c = kids(p, depth, args);
    if (c) {
        do {
            TSNode a = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(a))
                cur = expr(p, ty(a) == P_KEYWORD_ARGUMENT ? fld(a, PF_VALUE) : a, cur, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    cur = graph__fb_item(&p->fb, cur, GX_FLOW_CALL, callee_name(p, fn), gx_line(n));
    return callbacks(p, args, cur, depth + 1);
}

/* Two ways on from cur, half each: through `a` (walked by expr) or past
 * it. */
static uint32_t maybe(pf *p, TSNode a, uint32_t cur, int depth)
{
    if (cur == FB_NONE)
        return FB_NONE;
    uint32_t s = graph__fb_join(&p->fb), after = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, cur, s, 0.5f);
    graph__fb_edge(&p->fb, cur, after, 0.5f);
    graph__fb_edge(&p->fb, expr(p, a, s, depth + 1), after, 1);
    return after;
}

/* [x for y in it() if c]: the first iterable once, then the rest as a
 * loop. */
static uint32_t comprehension(pf *p, TSNode n, uint32_t cur, int depth)
{
    TSTreeCursor *c = kids(p, depth, n);
    if (!c || cur == FB_NONE)
        return cur;
    bool first = true;
    TSNode parts[64];
    uint32_t np = 0;
    do {
        TSNode k = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(k))
            continue;
        if (first && ty(k) == P_FOR_IN_CLAUSE) {
            cur = expr(p, fld(k, PF_RIGHT), cur, depth + 1);
            first = false;
        } else if (np < 64) {
            parts[np++] = k;
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    uint32_t head = graph__fb_after(&p->fb, cur), body = graph__fb_join(&p->fb),
             out = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, head, body, LOOP_ENTER);
    graph__fb_edge(&p->fb, head, out, 1 - LOOP_ENTER);
    for (uint32_t i = 0; i < np; i++)
        body = expr(p, ty(parts[i]) == P_FOR_IN_CLAUSE ? fld(parts[i], PF_RIGHT) : parts[i], body,
                    depth + 1);
    graph__fb_edge(&p->fb, body, head, 1);
    return out;
}

static uint32_t expr(pf *p, TSNode n, uint32_t cur, int depth)
{
    if (ts_node_is_null(n) || cur == FB_NONE)
        return cur;
    if (depth > GX_MAX_DEPTH) {
        p->f->too_deep++;
        return cur;
    }
    switch (ty(n)) {
    case P_CALL:
        return call(p, n, cur, depth);
    case P_LAMBDA:
    case P_IDENTIFIER:
    case P_COMMENT:
    case P_FUNCTION_DEFINITION:
    case P_CLASS_DEFINITION:
        return cur;
    case P_CONDITIONAL_EXPRESSION: {
        /* a if c else b */
        TSNode a = ts_node_named_child(n, 0), cnd = ts_node_named_child(n, 1),
               b = ts_node_named_child(n, 2);
        cur = expr(p, cnd, cur, depth + 1);
        uint32_t sa = graph__fb_join(&p->fb), sb = graph__fb_join(&p->fb),
                 out = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, sa, 0.5f);
        graph__fb_edge(&p->fb, cur, sb, 0.5f);
        graph__fb_edge(&p->fb, expr(p, a, sa, depth + 1), out, 1);
        graph__fb_edge(&p->fb, expr(p, b, sb, depth + 1), out, 1);
        return out;
    }
    case P_BOOLEAN_OPERATOR:
        cur = expr(p, fld(n, PF_LEFT), cur, depth + 1);
        return maybe(p, fld(n, PF_RIGHT), cur, depth);
    case P_LIST_COMPREHENSION:
    case P_SET_COMPREHENSION:
    case P_DICTIONARY_COMPREHENSION:
    case P_GENERATOR_EXPRESSION:
        return comprehension(p, n, cur, depth);
    default: {
        TSTreeCursor *c = kids(p, depth, n);
        if (!c)
            return cur;
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(k) && ts_node_child_count(k) > 0)
                cur = expr(p, k, cur, depth + 1);
            else if (ty(k) == P_CALL)
                cur = expr(p, k, cur, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
        return cur;
    }
    }
}

/* A definition: its own flow later (a method's too, through its class). */
static void defer_def(pf *p, TSNode n, int depth)
{
    unsigned t = ty(n);
    if (t == P_DECORATED_DEFINITION) {
        defer_def(p, fld(n, PF_DEFINITION), depth + 1);
    } else if (t == P_FUNCTION_DEFINITION) {
        core_vec_push(&p->todo, n);
    } else if (t == P_CLASS_DEFINITION) {
        TSTreeCursor *c = kids(p, depth, fld(n, PF_BODY));
        if (!c)
            return;
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            unsigned kt = ty(k);
            if (kt == P_FUNCTION_DEFINITION || kt == P_CLASS_DEFINITION ||
                kt == P_DECORATED_DEFINITION)
                defer_def(p, k, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
}

static bool always_true(pf *p, TSNode cond)
{
    unsigned t = ty(cond);
    if (t == P_TRUE)
        return true;
    if (t == P_INTEGER) {
        uint32_t a = ts_node_start_byte(cond), b = ts_node_end_byte(cond);
        return !(b - a == 1 && p->src[a] == '0');
    }
    return false;
}

static uint32_t if_stmt(pf *p, TSNode n, uint32_t cur, int depth)
{
    cur = expr(p, fld(n, PF_CONDITION), cur, depth + 1);
    if (cur == FB_NONE)
        return FB_NONE;
    /* The arms: the consequence, each elif, the else (or none). */
    TSNode arms[256];
    uint32_t na = 0;
    bool has_else = false;
    arms[na++] = fld(n, PF_CONSEQUENCE);
    TSTreeCursor *c = kids(p, depth, n);
    if (c) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            unsigned t = ty(k);
            if ((t == P_ELIF_CLAUSE || t == P_ELSE_CLAUSE) && na < 256) {
                arms[na++] = k;
                has_else |= t == P_ELSE_CLAUSE;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    float w = 1.0f / (float)(na + !has_else);
    uint32_t out = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, cur, out, has_else ? 0 : w);
    for (uint32_t i = 0; i < na; i++) {
        uint32_t s = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, s, w);
        TSNode a = arms[i];
        if (ty(a) == P_ELIF_CLAUSE) {
            s = expr(p, fld(a, PF_CONDITION), s, depth + 1);
            a = fld(a, PF_CONSEQUENCE);
        } else if (ty(a) == P_ELSE_CLAUSE) {
            a = fld(a, PF_BODY);
        }
        graph__fb_edge(&p->fb, stmts(p, a, s, depth + 1), out, 1);
    }
    return out;
}

/* while / for: the head, the body entered or not (always for `while
 * True`), and an else clause run when the loop ends without a break. */
static uint32_t loop_stmt(pf *p, TSNode n, uint32_t cur, int depth)
{
    bool is_while = ty(n) == P_WHILE_STATEMENT;
    if (!is_while)
        cur = expr(p, fld(n, PF_RIGHT), cur, depth + 1);
    uint32_t head = graph__fb_after(&p->fb, cur);
    if (head == FB_NONE)
        return FB_NONE;
    TSNode cond = fld(n, PF_CONDITION);
    uint32_t test = is_while ? expr(p, cond, head, depth + 1) : head;
    float enter = is_while && always_true(p, cond) ? 1.0f : LOOP_ENTER;
    uint32_t body = graph__fb_join(&p->fb), done = graph__fb_join(&p->fb),
             out = graph__fb_join(&p->fb);
    graph__fb_edge(&p->fb, test, body, enter);
    graph__fb_edge(&p->fb, test, done, 1 - enter);
    graph__fb_loop_push(&p->fb, out, head);
    graph__fb_edge(&p->fb, stmts(p, fld(n, PF_BODY), body, depth + 1), head, 1);
    graph__fb_loop_pop(&p->fb);
    TSNode alt = fld(n, PF_ALTERNATIVE);
    graph__fb_edge(&p->fb,
                   stmts(p, ty(alt) == P_ELSE_CLAUSE ? fld(alt, PF_BODY) : alt, done, depth + 1),
                   out, 1);
    return out;
}

/* The block of an except or finally clause (its last named child). */
static TSNode clause_block(TSNode k)
{
    uint32_t nc = ts_node_named_child_count(k);
    for (uint32_t i = nc; i-- > 0;) {
        TSNode b = ts_node_named_child(k, i);
        if (gx_type(&types, b) == P_BLOCK)
            return b;
    }
    return gx_null();
}

/* try: the body, where a call may raise into the handlers (one of them,
 * evenly); the else clause after a body that did not; the finally clause
 * after either. */
static uint32_t try_stmt(pf *p, TSNode n, uint32_t cur, int depth)
{
    if (cur == FB_NONE)
        return FB_NONE;
    TSNode handlers[256], els = gx_null(), fin = gx_null();
    uint32_t nh = 0;
    TSTreeCursor *c = kids(p, depth, n);
    if (c) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            unsigned t = ty(k);
            if ((t == P_EXCEPT_CLAUSE || t == P_EXCEPT_GROUP_CLAUSE) && nh < 256)
                handlers[nh++] = k;
            else if (t == P_ELSE_CLAUSE)
                els = fld(k, PF_BODY);
            else if (t == P_FINALLY_CLAUSE)
                fin = clause_block(k);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    uint32_t dispatch = nh ? graph__fb_join(&p->fb) : FB_NONE;
    /* (An exception before the body's first call.) */
    graph__fb_try_push(&p->fb, dispatch, cur);
    uint32_t e = stmts(p, fld(n, PF_BODY), graph__fb_after(&p->fb, cur), depth + 1);
    graph__fb_try_pop(&p->fb);
    e = stmts(p, els, e, depth + 1);
    uint32_t fin_start = graph__fb_after(&p->fb, e);
    if (fin_start == FB_NONE)
        fin_start = graph__fb_join(&p->fb);
    for (uint32_t i = 0; i < nh; i++) {
        uint32_t s = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, dispatch, s, 1.0f / (float)nh);
        graph__fb_edge(&p->fb, stmts(p, clause_block(handlers[i]), s, depth + 1), fin_start, 1);
    }
    return stmts(p, fin, fin_start, depth + 1);
}

static uint32_t with_stmt(pf *p, TSNode n, uint32_t cur, int depth)
{
    TSTreeCursor *c = kids(p, depth, n);
    if (c) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            if (ty(k) == P_WITH_CLAUSE)
                cur = expr(p, k, cur, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    return stmts(p, fld(n, PF_BODY), cur, depth + 1);
}

static uint32_t match_stmt(pf *p, TSNode n, uint32_t cur, int depth)
{
    cur = expr(p, fld(n, PF_SUBJECT), cur, depth + 1);
    TSNode body = fld(n, PF_BODY);
    TSNode cases[256];
    uint32_t nc = 0;
    TSTreeCursor *c = kids(p, depth, body);
    if (c) {
        do {
            TSNode k = ts_tree_cursor_current_node(c);
            if (ty(k) == P_CASE_CLAUSE && nc < 256)
                cases[nc++] = k;
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (!nc || cur == FB_NONE)
        return cur;
    uint32_t out = graph__fb_join(&p->fb);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t s = graph__fb_join(&p->fb);
        graph__fb_edge(&p->fb, cur, s, 1.0f / (float)nc);
        graph__fb_edge(&p->fb, stmts(p, fld(cases[i], PF_CONSEQUENCE), s, depth + 1), out, 1);
    }
    return out;
}

static uint32_t stmt(pf *p, TSNode n, uint32_t cur, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        p->f->too_deep++;
        return cur;
    }
    switch (ty(n)) {
    case P_FUNCTION_DEFINITION:
    case P_CLASS_DEFINITION:
    case P_DECORATED_DEFINITION:
        defer_def(p, n, depth);
        return cur;
    case P_BLOCK:
        return stmts(p, n, cur, depth);
    case P_IF_STATEMENT:
        return if_stmt(p, n, cur, depth);
    case P_WHILE_STATEMENT:
    case P_FOR_STATEMENT:
        return loop_stmt(p, n, cur, depth);
    case P_TRY_STATEMENT:
        return try_stmt(p, n, cur, depth);
    case P_WITH_STATEMENT:
        return with_stmt(p, n, cur, depth);
    case P_MATCH_STATEMENT:
        return match_stmt(p, n, cur, depth);
    case P_RETURN_STATEMENT:
    case P_RAISE_STATEMENT:
        return graph__fb_exit(&p->fb, expr(p, n, cur, depth), ty(n) == P_RAISE_STATEMENT);
    case P_BREAK_STATEMENT:
    case P_CONTINUE_STATEMENT:
        return graph__fb_leave(&p->fb, cur, ty(n) == P_BREAK_STATEMENT);
    case P_COMMENT:
        return cur;
    default:
        return expr(p, n, cur, depth);
    }
}

/* The flow of one function definition, when the walk made it a symbol. */
static void function_flow(pf *p, TSNode n)
{
    TSNode name = fld(n, PF_NAME);
    if (ts_node_is_null(name))
        return;
    uint32_t a = ts_node_start_byte(name), b = ts_node_end_byte(name);
    char nm[256];
    if (b - a >= sizeof nm)
        return;
    memcpy(nm, p->src + a, b - a);
    nm[b - a] = 0;
    int32_t sym = graph__fb_sym(&p->fb, gx_line(n), graph__end_line(n), nm, NULL);
    if (sym < 0)
        return;
    uint32_t cur = graph__fb_begin(&p->fb, sym);
    graph__fb_end(&p->fb, stmts(p, fld(n, PF_BODY), cur, 1));
}

void graph__py_flow(gx_file *f, const char *src, TSNode root)
{
    pthread_once(&once, init_tables);
    pf *p = core_xcalloc(1, sizeof *p);
    p->f = f;
    p->src = src;
    graph__fb_init(&p->fb, f);
    uint32_t cur = graph__fb_begin(&p->fb, -1);
    graph__fb_end(&p->fb, stmts(p, root, cur, 0));
    for (size_t i = 0; i < p->todo.n; i++)
        function_flow(p, p->todo.v[i]);
    graph__fb_free(&p->fb);
    graph__cursors_free(&p->cur);
    core_vec_free(&p->todo);
    core_buf_free(&p->name);
    free(p);
}
