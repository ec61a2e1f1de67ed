/*
 * Python extraction: messages held in local variables.
 *
 * `msg = "Authentication ({}) failed.".format(m); self._log(INFO, msg)`:
 * the message is built in a local before the call. While a function body
 * is walked, every binding of a plain name in it is recorded in order
 * (px.locals; a nested def keeps its own, and module and class bodies are
 * not followed: their strings are constants, see graph__py_add_const()),
 * so a call that passes such a name looks back over the bindings seen so
 * far instead of rescanning the body.
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
#include "py_int.h"

#include <string.h>

#define LOCAL_MAX_LOOP 16 /* values of `for name in (...)` recorded */

/* The innermost arms being walked. Beyond LOCAL_MAX_NEST, those kept
 * are outer ones: still arms the point is in. */
py_branches graph__py_cur_branches(const px *x)
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
void graph__py_add_local(px *x, TSNode name, py_local_kind kind, TSNode value, uint32_t stmt,
                         TSNode blk)
{
    uint32_t a = ts_node_start_byte(name);
    py_local l = {.name = x->src + a,
                  .len = ts_node_end_byte(name) - a,
                  .stmt = stmt,
                  .blk_start = is_null(blk) ? x->blk_start : ts_node_start_byte(blk),
                  .blk_end = is_null(blk) ? x->blk_end : ts_node_end_byte(blk),
                  .value = value,
                  .br = graph__py_cur_branches(x),
                  .kind = (uint8_t)kind};
    core_vec_push(&x->locals, l);
}

/* `name = value` in a function body: `a if c else b` gives both values
 * (one statement, so they go together); `name = name + b` is `name += b`. */
void graph__py_local_assign(px *x, TSNode name, TSNode value, TSNode stmt)
{
    uint32_t at = ts_node_start_byte(stmt);
    TSNode v = unparen(value);
    TSNode head = v;
    for (int i = 0;
         i < 32 && !is_null(head) && ty(head) == N_BINARY_OPERATOR && binop(head) == A_PLUS; i++)
        head = unparen(fieldn(head, F_LEFT));
    if (!ts_node_eq(head, v) && !is_null(head) && ty(head) == N_IDENTIFIER) {
        if (same_text(x, name, head)) {
            graph__py_add_local(x, name, LOC_AUG, v, at, gx_null());
            x->locals.v[x->locals.n - 1].self_plus = true;
            return;
        }
    }
    if (!is_null(v) && ty(v) == N_CONDITIONAL_EXPRESSION) {
        TSNode a = ts_node_named_child(v, 0), b = ts_node_named_child(v, 2);
        if (!is_null(a) && !is_null(b)) {
            graph__py_add_local(x, name, LOC_SET, a, at, gx_null());
            graph__py_add_local(x, name, LOC_SET, b, at, gx_null());
            return;
        }
    }
    graph__py_add_local(x, name, LOC_SET, v, at, gx_null());
}

/*
 * `for name in ("a", "b"):` gives name each value in the loop body
 * (paramiko logs two messages that way). Any other loop over a plain name
 * binds it to something unknown.
 */
void graph__py_local_loop(px *x, TSNode loop)
{
    TSNode left = fieldn(loop, F_LEFT), right = unparen(fieldn(loop, F_RIGHT));
    TSNode body = fieldn(loop, F_BODY);
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
            graph__py_add_local(x, left, LOC_SET, v, at, body);
            n++;
        }
        if (n)
            return;
    }
    graph__py_add_local(x, left, LOC_OTHER, gx_null(), at, gx_null());
}

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
void graph__py_local_paths(local_scan *s, uint32_t end, uint32_t pos, const py_branches *br,
                           const uint32_t *augs, uint32_t naug)
{
    for (uint32_t i = end; i-- > s->lo;) {
        if (!s->budget || s->n >= s->cap) {
            s->cut = true;
            return;
        }
        s->budget--;
        const py_local *e = &s->v[i];
        if (!local_is(s, e) || exclusive(&e->br, br))
            continue;
        if (e->kind == LOC_OTHER)
            s->cut = true; /* a value not known may reach it */
        if (e->kind == LOC_SET) {
            local_push(s, i, augs, naug);
        } else if (e->kind == LOC_AUG && naug < LOCAL_MAX_AUGS) {
            /* What it appends to is whatever reached it. */
            uint32_t more[LOCAL_MAX_AUGS];
            more[0] = i;
            if (naug)
                memcpy(more + 1, augs, naug * sizeof *augs);
            graph__py_local_paths(s, i, e->stmt, &e->br, more, naug + 1);
        }
        if (e->blk_start <= pos && pos < e->blk_end) {
            /* It runs on every path to pos: nothing before it reaches
             * pos, but the other values of the same statement do. */
            while (i > s->lo && s->v[i - 1].stmt == e->stmt && s->v[i - 1].kind == LOC_SET &&
                   local_is(s, &s->v[i - 1]))
                local_push(s, --i, augs, naug);
            if (naug == 0)
                s->covered = true;
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
        mi = graph__py_build_message(x, v[p->base].value, with_args, sc, depth + 1);
    } else {
        bool literal = false;
        for (uint32_t k = 0; k <= p->naug; k++) {
            const py_local *e = &v[k ? p->aug[k - 1] : p->base];
            TSNode parts[32];
            uint32_t np = 1;
            parts[0] = e->value;
            if (e->self_plus) {
                /* name = name + a + b: the parts after the name. */
                np = graph__py_plus_parts(e->value, parts, 32, 0, 0);
                if (np < 2) {
                    graph__tmpl_hole(&x->tmpl);
                    continue;
                }
            }
            for (uint32_t i = e->self_plus ? 1 : 0; i < np; i++) {
                size_t len = x->tmpl.buf.len;
                uint32_t holes = x->tmpl.holes;
                msg_info sub = graph__py_build_message(x, parts[i], with_args, sc, depth + 1);
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
bool graph__py_local_name(px *x, TSNode e, const py_scope *sc)
{
    if (!sc->in_function || is_null(e) || ty(e) != N_IDENTIFIER || graph__py_param_named(x, sc, e))
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

bool graph__py_self_attr(px *x, TSNode e, const py_scope *sc)
{
    if (!sc->in_function || !sc->self_name || is_null(e) || ty(e) != N_ATTRIBUTE)
        return false;
    TSNode o = fieldn(e, F_OBJECT), a = fieldn(e, F_ATTRIBUTE);
    return !is_null(o) && ty(o) == N_IDENTIFIER && text_eq(x, o, sc->self_name) && !is_null(a) &&
           ty(a) == N_IDENTIFIER;
}

/* The scan of the bindings of id (a name, or `self.name`, by its text)
 * that may reach the call `at`, into paths (LOCAL_MAX_ALTS of them at
 * most, and cap). */
static local_scan local_scan_of(px *x, TSNode id, TSNode at, const py_scope *sc, local_path *paths,
                                uint32_t cap)
{
    uint32_t a = ts_node_start_byte(id);
    local_scan s = {.v = x->locals.v,
                    .name = x->src + a,
                    .len = ts_node_end_byte(id) - a,
                    .lo = sc->locals_base,
                    .out = paths,
                    .cap = cap < LOCAL_MAX_ALTS ? cap : LOCAL_MAX_ALTS,
                    .budget = LOCAL_BUDGET};
    if (x->locals.n <= sc->locals_base)
        return s;
    py_branches br = graph__py_cur_branches(x);
    graph__py_local_paths(&s, (uint32_t)x->locals.n, ts_node_start_byte(at), &br, NULL, 0);
    return s;
}

/* The paths by which the local named by id reaches the call `at`: how
 * many. */
static uint32_t local_reach(px *x, TSNode id, TSNode at, const py_scope *sc, local_path *paths,
                            uint32_t cap)
{
    if (!graph__py_local_name(x, id, sc))
        return 0;
    return local_scan_of(x, id, at, sc, paths, cap).n;
}

uint32_t graph__py_bound_values(px *x, TSNode e, TSNode at, const py_scope *sc, TSNode *out,
                                uint32_t cap)
{
    bool attr = graph__py_self_attr(x, e, sc);
    if (!attr && !graph__py_local_name(x, e, sc))
        return 0;
    local_path paths[LOCAL_MAX_ALTS];
    local_scan s = local_scan_of(x, e, at, sc, paths, LOCAL_MAX_ALTS);
    if (s.cut || s.n == 0 || s.n > cap || (attr && !s.covered))
        return 0;
    for (uint32_t k = 0; k < s.n; k++) {
        if (paths[k].naug)
            return 0;
        out[k] = x->locals.v[paths[k].base].value;
    }
    return s.n;
}

TSNode graph__py_bound_format(px *x, TSNode id, TSNode at, const py_scope *sc)
{
    if (!sc->in_function || is_null(id) || ty(id) != N_IDENTIFIER ||
        graph__py_param_named(x, sc, id))
        return gx_null();
    local_path paths[LOCAL_MAX_ALTS];
    local_scan s = local_scan_of(x, id, at, sc, paths, LOCAL_MAX_ALTS);
    if (s.cut || s.n != 1 || paths[0].naug)
        return gx_null();
    TSNode v = unparen(x->locals.v[paths[0].base].value);
    return !is_null(v) && is_stringish(ty(v)) ? v : gx_null();
}

/* Whether m's template is among out[0..n). */
static bool msg_listed(const local_msg *out, uint32_t n, const local_msg *m)
{
    for (uint32_t j = 0; j < n; j++)
        if (same_str(out[j].tmpl, m->tmpl) && out[j].style == m->style)
            return true;
    return false;
}

/*
 * A message chosen where it is passed: `a if c else b`, each branch's
 * message as a local's several bindings give theirs, when both are
 * templates; `a or b`, a's alone when it is one (a message with text is
 * never empty, so b is never taken). 0 otherwise: a branch of text known
 * only at run time (`r or "refused"`, r a server's reply) keeps the
 * message one of run-time text, as it was.
 */
static uint32_t branch_messages(px *x, TSNode e, bool with_args, const py_scope *sc, int depth,
                                local_msg *out, uint32_t cap)
{
    TSNode br[2] = {gx_null(), gx_null()};
    uint32_t nbr = 0;
    if (ty(e) == N_CONDITIONAL_EXPRESSION) {
        br[nbr++] = ts_node_named_child(e, 0);
        br[nbr++] = ts_node_named_child(e, 2);
    } else if (ty(e) == N_BOOLEAN_OPERATOR && binop(e) == A_OR) {
        br[nbr++] = fieldn(e, F_LEFT);
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < nbr; k++) {
        if (is_null(br[k]))
            return 0;
        local_msg m = {0};
        msg_info mi = graph__py_build_message(x, br[k], with_args, sc, depth + 1);
        m.tmpl = graph__tmpl_take(&x->tmpl, x->f, &m.flags);
        m.style = (uint8_t)mi.style;
        if (!template_style(mi.style) || !m.tmpl || !has_text(m.tmpl))
            return 0;
        if (n < cap && !msg_listed(out, n, &m))
            out[n++] = m;
    }
    return n;
}

/*
 * The messages the local named by id may hold at the call `at`, distinct,
 * nearest binding first, at most cap (and LOCAL_MAX_ALTS); 0 if none is
 * known. with_args: the call passes logging arguments. A message chosen
 * at the call (branch_messages) gives its branches' messages the same way.
 */
uint32_t graph__py_local_messages(px *x, TSNode id, TSNode at, bool with_args, const py_scope *sc,
                                  int depth, local_msg *out, uint32_t cap)
{
    if (cap > LOCAL_MAX_ALTS)
        cap = LOCAL_MAX_ALTS;
    if (!is_null(id) && (ty(id) == N_CONDITIONAL_EXPRESSION || ty(id) == N_BOOLEAN_OPERATOR))
        return depth > GX_MAX_DEPTH ? 0 : branch_messages(x, id, with_args, sc, depth, out, cap);
    local_path paths[LOCAL_MAX_ALTS];
    uint32_t np = local_reach(x, id, at, sc, paths, cap);
    uint32_t n = 0;
    for (uint32_t k = 0; k < np; k++) {
        local_msg m;
        if (local_build(x, &paths[k], with_args, sc, depth, &m) && !msg_listed(out, n, &m))
            out[n++] = m;
    }
    return n;
}

/* The nodes of a function body looked at, at most, for a parameter kept. */
#define STORED_BUDGET 16384

/* The next node of the function fn after c's, not in a function, lambda
 * or class nested in it (graph__walk_next). */
static bool fn_next(TSTreeCursor *c, TSNode fn)
{
    TSNode n = ts_tree_cursor_current_node(c);
    unsigned t = ty(n);
    return graph__walk_next(c, fn,
                            ts_node_eq(n, fn) || (t != N_FUNCTION_DEFINITION && t != N_LAMBDA &&
                                                  t != N_CLASS_DEFINITION));
}

/* The name a return value v gives whole or joined by a string (`lines`,
 * `"\n".join(lines)`), or null. */
static TSNode returned_name(px *x, TSNode v)
{
    v = unparen(v);
    if (is_null(v) || ty(v) == N_IDENTIFIER)
        return v;
    if (ty(v) != N_CALL)
        return gx_null();
    TSNode fn = fieldn(v, F_FUNCTION), args = fieldn(v, F_ARGUMENTS);
    if (is_null(fn) || ty(fn) != N_ATTRIBUTE || is_null(args) ||
        ts_node_named_child_count(args) != 1)
        return gx_null();
    TSNode attr = fieldn(fn, F_ATTRIBUTE), obj = unparen(fieldn(fn, F_OBJECT));
    TSNode a = unparen(ts_node_named_child(args, 0));
    return !is_null(attr) && text_eq(x, attr, "join") && !is_null(obj) && ty(obj) == N_STRING &&
                   !is_null(a) && ty(a) == N_IDENTIFIER
               ? a
               : gx_null();
}

bool graph__py_returns_list(px *x, TSNode fn, TSNode name)
{
    if (is_null(fn) || ty(fn) != N_FUNCTION_DEFINITION)
        return false;
    uint32_t n0 = ts_node_start_byte(name), nl = ts_node_end_byte(name) - n0;
    const char *a = x->src + ts_node_start_byte(fn), *end = x->src + ts_node_end_byte(fn);
    if (!graph__word_beside(a, end, x->src + n0, nl, "return ", NULL) &&
        !graph__word_beside(a, end, x->src + n0, nl, "join(", NULL))
        return false;
    /* A function's pieces are met one after another: its returns are
     * read once. */
    uint32_t f0 = ts_node_start_byte(fn) + 1;
    if (graph__names_reset(&x->rl, f0)) {
        uint32_t budget = STORED_BUDGET;
        TSTreeCursor c = ts_tree_cursor_new(fn);
        do {
            TSNode n = ts_tree_cursor_current_node(&c);
            TSNode r = ty(n) == N_RETURN_STATEMENT && ts_node_named_child_count(n) == 1
                           ? returned_name(x, ts_node_named_child(n, 0))
                           : gx_null();
            if (!is_null(r))
                graph__names_add(&x->rl, ts_node_start_byte(r),
                                 ts_node_end_byte(r) - ts_node_start_byte(r));
        } while (--budget && fn_next(&c, fn));
        ts_tree_cursor_delete(&c);
    }
    return graph__names_has(&x->rl, x->src, n0, nl);
}

bool graph__py_param_stored(px *x, TSNode at, const char *name)
{
    TSNode fn = at;
    while (!is_null(fn) && ty(fn) != N_FUNCTION_DEFINITION)
        fn = ts_node_parent(fn);
    if (is_null(fn))
        return false;
    bool found = false;
    uint32_t budget = STORED_BUDGET;
    TSTreeCursor c = ts_tree_cursor_new(fn);
    do {
        TSNode n = ts_tree_cursor_current_node(&c);
        if (ty(n) != N_ASSIGNMENT)
            continue;
        unsigned l = ty(fieldn(n, F_LEFT));
        TSNode r = unparen(fieldn(n, F_RIGHT));
        if ((l == N_ATTRIBUTE || l == N_SUBSCRIPT) && !is_null(r) && ty(r) == N_IDENTIFIER &&
            text_eq(x, r, name)) {
            found = true;
            break;
        }
    } while (--budget && fn_next(&c, fn));
    ts_tree_cursor_delete(&c);
    return found;
}
