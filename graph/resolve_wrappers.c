/*
 * Resolution: logging wrappers.
 *
 * A wrapper logs a message its caller passes (see gx_call in graph_int.h):
 * the log record's text is the caller's argument, so each call to a
 * wrapper becomes an emit site of the caller, with the caller's template.
 * A wrapper's "shapes" say where a call passes the message and the level,
 * and what text the wrapper puts around the message. The direct ones come
 * from logging calls whose message is a parameter; a function that passes
 * a parameter on to a wrapper is a wrapper too (found to a fixpoint).
 * Callees are resolved as any call is, with one more fallback: `x.m(...)`
 * on a receiver that cannot be resolved goes to the wrapper methods named
 * m (those of a class named like the receiver attribute, if any: `
 * self._transport._log` prefers Transport._log; else all of them).
 * A message may also be what a function of ours formats and returns
 * (gx_arg.ret, gx_emit.ret), at a wrapper's call or a logging call: the
 * site then has the first format that function returns.
 */
#include "resolve_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define WRAP_MAX_SHAPES 8   /* per function: more are rare and add little */
#define WRAP_MAX_TARGETS 16 /* callees of one call */
#define WRAP_MAX_AFFIX 1024 /* bytes of text a chain of wrappers may add */
#define WRAP_MAX_ROUNDS 16  /* the chains seen in practice are 2-3 deep */

typedef struct {
    int32_t msg_pos;    /* where a call passes the message; -1 = by keyword only */
    const char *msg_kw; /* or under this keyword; NULL = positional only */
    int32_t lvl_pos;    /* lvl_param: where a call passes the level */
    const char *lvl_kw;
    bool lvl_param; /* the level is an argument of the call; else `level` */
    uint8_t level;
    const char *pre, *post; /* templates around the caller's message ("" = none) */
    uint32_t logger;        /* string offset of the logger name; 0 = unknown */
    /* shapes of a class: 1 + where its calls pass the logger it logs to
     * (gx_call.logger_at); 0 = none */
    uint32_t logger_at;
    /* slot: pre or post holds GX_SLOT once, where the text a call passes
     * at slot_pos / slot_kw goes (see gx_arg) */
    int32_t slot_pos;
    const char *slot_kw;
    bool slot;
    /* the message is this table's entry that the caller's text keys
     * (gx_arg.table), the table's path read from symbol table_at */
    const char *table;
    uint32_t table_at;
    /* the message joins the caller's positional arguments from msg_pos on
     * with this separator (gx_arg.joined) */
    const char *joined;
    bool joined_fmt; /* ... as util.format does (gx_arg.joined_fmt) */
    /* the message is the JSON text of what the caller passes
     * (gx_arg.json): an object literal's (gx_arg.json_tmpl) */
    bool json;
    const char *msg_name; /* the message parameter's name; NULL = not known */
    bool fallback;        /* a reading of the call's sites kept as a fallback */
} wshape;

typedef struct {
    uint32_t file;
    const gx_call *c;
    uint32_t from;           /* calling symbol */
    uint32_t tfirst, tcount; /* resolved callees in wrap.targets */
    bool fallback;           /* unresolved `x.m(...)`: wrapper methods named m */
} wcall;

typedef core_vec(uint32_t) lead_vec;

/* The formats a function returns (wrap_returns): a message handed on
 * from its call may be any of them (`return [sql, 'begin']`). */
#define WRET_MAX 4
typedef struct {
    uint32_t tmpl[WRET_MAX];
    uint8_t style[WRET_MAX];
    uint8_t n;
} wret;

/* A call that hands its function's text on to a wrapper (wrap_leads). */
typedef struct {
    uint32_t from, to;
} hand_on;

typedef struct {
    rs *r;
    ctx c;
    core_arena scratch;
    core_vec(wshape) * shapes; /* per symbol */
    uint8_t *used;             /* per symbol: some call passes it a message */
    core_vec(wcall) calls;
    core_vec(uint32_t) targets;
    wret *returns;      /* per symbol: the formats it returns */
    uint8_t *returning; /* per symbol: returns[] has some */
    uint8_t *acts;      /* per symbol: a wrapper that acts on the text it logs (wrap_acting) */
    uint8_t *direct;    /* per symbol: a logging call of its own logs a parameter */
    lead_vec *leads;    /* per symbol: the acting wrappers its message ends at (wrap_leads) */
} wrap;

static bool is_function(const rs *r, uint32_t s)
{
    return r->sy[s].kind == GRAPH_SYM_FUNCTION || r->sy[s].kind == GRAPH_SYM_METHOD;
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool shape_eq(const wshape *a, const wshape *b)
{
    return a->msg_pos == b->msg_pos && str_eq(a->msg_kw, b->msg_kw) &&
           a->lvl_param == b->lvl_param && a->lvl_pos == b->lvl_pos &&
           str_eq(a->lvl_kw, b->lvl_kw) && a->level == b->level && strcmp(a->pre, b->pre) == 0 &&
           strcmp(a->post, b->post) == 0 && a->logger == b->logger &&
           a->logger_at == b->logger_at && a->slot == b->slot && str_eq(a->table, b->table) &&
           str_eq(a->joined, b->joined) && a->joined_fmt == b->joined_fmt &&
           a->table_at == b->table_at && a->json == b->json && a->fallback == b->fallback &&
           (!a->slot || (a->slot_pos == b->slot_pos && str_eq(a->slot_kw, b->slot_kw)));
}

/* How many GX_SLOT bytes t holds. */
static size_t slots_in(const char *t)
{
    size_t n = 0;
    for (; (t = strchr(t, GX_SLOT)) != NULL; t++)
        n++;
    return n;
}

/* Adds a shape to s; true if it is new. */
static bool add_shape(wrap *w, uint32_t s, const wshape *sh)
{
    if (sh->msg_pos < 0 && !sh->msg_kw)
        return false;
    /* A slot no call can fill, or text of the source's own that holds the
     * mark: no shape. */
    if (sh->slot &&
        ((sh->slot_pos < 0 && !sh->slot_kw) || slots_in(sh->pre) + slots_in(sh->post) != 1))
        return false;
    for (size_t i = 0; i < w->shapes[s].n; i++)
        if (shape_eq(&w->shapes[s].v[i], sh))
            return false;
    if (w->shapes[s].n >= WRAP_MAX_SHAPES)
        return false;
    core_vec_push(&w->shapes[s], *sh);
    return true;
}

/* a + b + c into the arena ("" for NULL parts); NULL if longer than max. */
static const char *join3(core_arena *a, const char *x, const char *y, const char *z, size_t max)
{
    size_t nx = x ? strlen(x) : 0, ny = y ? strlen(y) : 0, nz = z ? strlen(z) : 0;
    if (nx + ny + nz > max)
        return NULL;
    char *p = core_arena_alloc(a, nx + ny + nz + 1);
    memcpy(p, x ? x : "", nx);
    memcpy(p + nx, y ? y : "", ny);
    memcpy(p + nx + ny, z ? z : "", nz);
    p[nx + ny + nz] = 0;
    return p;
}

/* pre and post of a shape with its slot filled with v (a template), into
 * the arena; false if longer than max. */
static bool fill_slot(core_arena *a, const char **pre, const char **post, const char *v, size_t max)
{
    const char **t = strchr(*pre, GX_SLOT) ? pre : post;
    const char *at = strchr(*t, GX_SLOT);
    if (!at)
        return true;
    const char *head = core_arena_strndup(a, *t, (size_t)(at - *t));
    const char *filled = join3(a, head, v, at + 1, max);
    if (!filled)
        return false;
    *t = filled;
    return true;
}

/*
 * The argument of call c that the callee receives at position pos (after
 * self) or under keyword kw. A `*args` splat covers the positions from its
 * own on: *shift says how far into it pos is.
 */
/* Is a an object literal's JSON text and nothing else (gx_arg.json_tmpl)? */
static bool json_only(const gx_arg *a)
{
    return a->json_tmpl && !a->tmpl && !a->ref && !a->ret && !a->fwd && !a->splat &&
           a->level == GRAPH_LEVEL_NONE;
}

/* The argument a call passes at pos or under kw; one that only a JSON
 * text wrapper reads counts only with json. */
static const gx_arg *arg_at_as(const gx_file *x, const gx_call *c, int32_t pos, const char *kw,
                               bool json, int32_t *shift)
{
    const gx_arg *splat = NULL;
    *shift = 0;
    for (uint32_t i = 0; i < c->nargs; i++) {
        const gx_arg *a = &x->args.v[c->arg0 + i];
        if (!json && json_only(a))
            continue;
        if (a->kw) {
            if (kw && strcmp(a->kw, kw) == 0)
                return a;
            continue;
        }
        if (pos < 0 || a->pos == UINT32_MAX)
            continue;
        if (a->splat) {
            if (a->pos <= (uint32_t)pos && !splat)
                splat = a;
        } else if (a->pos == (uint32_t)pos) {
            return a;
        }
    }
    if (splat)
        *shift = pos - (int32_t)splat->pos;
    return splat;
}

static const gx_arg *arg_at(const gx_file *x, const gx_call *c, int32_t pos, const char *kw,
                            int32_t *shift)
{
    return arg_at_as(x, c, pos, kw, false, shift);
}

/* Who takes the text that message argument m (fwd) passes on from
 * function from: from's callers, or, for what its class's constructor
 * took (gx_arg.field), the calls of the class. */
static uint32_t shape_owner(const rs *r, uint32_t from, const gx_arg *m)
{
    return m->field ? class_of(r, from) : from;
}

/* The direct shape of a logging call whose message passes on a parameter. */
static void seed_shape(wrap *w, uint32_t fi, const gx_call *c, uint32_t from)
{
    rs *r = w->r;
    const gx_file *x = xfile(r, fi);
    if (c->msg_arg < 0 || !is_function(r, from))
        return;
    const gx_arg *m = &x->args.v[c->arg0 + (uint32_t)c->msg_arg];
    const gb_emit *em = &r->g->emits.v[r->emit_base[fi] + (uint32_t)c->emit];
    wshape sh = {.msg_pos = m->fwd_pos,
                 .msg_kw = m->fwd_kw,
                 .lvl_pos = -1,
                 .level = em->level,
                 .pre = m->pre ? m->pre : "",
                 .post = m->post ? m->post : "",
                 .logger = em->logger,
                 .logger_at = em->logger ? 0 : c->logger_at,
                 .slot = m->slot,
                 .slot_pos = m->slot_pos,
                 .slot_kw = m->slot_kw,
                 .table = m->table,
                 .table_at = m->table ? from : 0,
                 .joined = m->joined,
                 .joined_fmt = m->joined_fmt,
                 .json = m->json,
                 .msg_name = m->fwd_name,
                 .fallback = (m->flags & GRAPH_EF_FALLBACK) != 0};
    if (c->level_arg >= 0) {
        const gx_arg *l = &x->args.v[c->arg0 + (uint32_t)c->level_arg];
        if (l->fwd && !l->splat) {
            sh.lvl_param = true;
            sh.lvl_pos = l->fwd_pos;
            sh.lvl_kw = l->fwd_kw;
            sh.level = GRAPH_LEVEL_CUSTOM;
        }
    }
    uint32_t to = shape_owner(r, from, m);
    if (to == GRAPH_NONE)
        return;
    add_shape(w, to, &sh);
    if (em->kind != GRAPH_EMIT_CALL && (sh.msg_pos >= 0 || sh.msg_kw))
        w->direct[to] = 1;
}

/* Normalised for comparing a receiver name with a class name:
 * "_transport" and "Transport" both give "transport". */
static size_t norm_name(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        char ch = s[i];
        if (ch == '_')
            continue;
        out[k++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    return k;
}

/* Is class cls in the MRO of class of? */
static bool in_mro(const rs *r, uint32_t of, uint32_t cls)
{
    if (of == GRAPH_NONE || !r->mro[of])
        return of == cls;
    for (const uint32_t *m = r->mro[of]; *m != UINT32_MAX; m++)
        if (*m == cls)
            return true;
    return false;
}

/* Length of the top-level package part of a symbol's qualname. */
static size_t top_package(const rs *r, uint32_t s, const char **q)
{
    *q = core_strtab_str(&r->g->strs, r->g->syms.v[s].qualname);
    return strcspn(*q, ".");
}

/*
 * The callees of an unresolved `recv.m(...)` made in from: the wrapper
 * methods named m. When there are several, the nearest kind wins: those
 * of a class named like recv (`self._transport._log` -> Transport._log),
 * else of a class whose name starts or ends with it (`client._log` ->
 * SSHClient._log), else those of the caller's own class and its bases
 * (`self` seen from a nested function), else those of the caller's
 * top-level package; else all of them. Only methods of the caller's
 * language (Python, or TS/JS) count. For TS/JS, whose method names (get,
 * on, emit) are shared by unrelated classes far more often, only the
 * first three kinds do. only: the methods to look among (NULL: the
 * wrappers). min_tier: the nearest kind that may count (3: a class named
 * like recv at least), and then never from itself.
 */
static uint32_t fallback_among(wrap *w, uint32_t from, const char *callee, const uint8_t *only,
                               uint32_t min_tier, uint32_t *out, uint32_t cap)
{
    rs *r = w->r;
    size_t mlen;
    const char *m = graph__rs_last_part(callee, &mlen);
    const char *end = m - 1; /* the dot before m */
    const char *rb = end;
    while (rb > callee && rb[-1] != '.')
        rb--;
    char want[64], got[64];
    size_t wn = norm_name(rb, (size_t)(end - rb), want, sizeof want);
    uint32_t own_cls = class_of(r, from);
    const char *fq;
    size_t fpl = top_package(r, from, &fq);
    bool py = is_python(r, graph__rs_file_of(r, from));
    uint32_t best = py ? 0 : 2, n = 0;
    if (best < min_tier)
        best = min_tier;
    uint32_t it;
    for (uint32_t s = core_smap_get(&r->methods, m, mlen, &it); s != UINT32_MAX;
         s = core_smap_next(&r->methods, m, mlen, &it)) {
        if (!(only ? only[s] : w->shapes[s].n > 0) || is_python(r, graph__rs_file_of(r, s)) != py ||
            (min_tier && s == from))
            continue;
        uint32_t cls = r->sy[s].parent;
        const char *cn = cls != GRAPH_NONE ? r->sy[cls].name : "";
        size_t gn = norm_name(cn, strlen(cn), got, sizeof got);
        const char *sq;
        size_t spl = top_package(r, s, &sq);
        bool affix = wn >= 3 && gn >= wn &&
                     (memcmp(want, got, wn) == 0 || memcmp(want, got + gn - wn, wn) == 0);
        uint32_t tier = affix && gn == wn                                  ? 4
                        : affix                                            ? 3
                        : own_cls != GRAPH_NONE && in_mro(r, own_cls, cls) ? 2
                        : spl == fpl && memcmp(sq, fq, fpl) == 0           ? 1
                                                                           : 0;
        if (tier < best)
            continue;
        if (tier > best) {
            best = tier;
            n = 0;
        }
        if (n < cap)
            out[n++] = s;
    }
    return n;
}

/*
 * Whether the callee of a call, resolved to e, may be looked for among
 * methods by its name (fallback_among). That is for receivers of unknown
 * type. self's own methods are known (self.m() that resolves to nothing
 * comes from a base outside the repository). An attribute of self holding
 * something from outside the repository may still be one of ours
 * (self.transport = weakref.proxy(transport)); a module's attribute may
 * not.
 */
static bool may_fall_back(const char *callee, const ent *e)
{
    size_t mlen;
    const char *m = graph__rs_last_part(callee, &mlen);
    const char *dot = strchr(callee, '.');
    bool own = callee[0] == '@' && dot && dot == m - 1;
    bool from_self =
        strncmp(callee, "@self.", 6) == 0 || strncmp(callee, "@cls.", 5) == 0 || callee[0] == '?';
    return dot && !own && (e->k == E_NONE || (e->k == E_EXT && from_self)) &&
           !(mlen > 4 && m[0] == '_' && m[1] == '_');
}

/* Resolves the callee of every recorded call that is not a logging call
 * itself (those seed the shapes; a candidate site seeds them and may be a
 * call of a wrapper too). */
static void wrap_targets(wrap *w)
{
    rs *r = w->r;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        if (!x)
            continue;
        for (size_t k = 0; k < x->calls.n; k++) {
            const gx_call *c = &x->calls.v[k];
            wcall wc = {(uint32_t)fi,           c, sym_of(r, (uint32_t)fi, c->from),
                        (uint32_t)w->targets.n, 0, false};
            int fail;
            w->c.depth = 0;
            ent e = graph__rs_resolve_path(&w->c, wc.from, c->callee, strlen(c->callee), &fail);
            core_arena_reset(&w->scratch);
            /* A logging call that passes its function's *args on to a
             * function of ours (`log.error(*args, **kwargs)` where log is
             * an object of the repository's) is no wrapper of its own:
             * the callee's shape says what level and text it logs. */
            bool splat = c->emit >= 0 && c->msg_arg >= 0 &&
                         x->args.v[c->arg0 + (uint32_t)c->msg_arg].splat && e.k == E_SYM &&
                         is_function(r, e.id);
            /* A logging call by its name (`log.trace(...)`) that reaches
             * a function of ours is also recorded as that function's
             * call: should it be a wrapper, its shapes say what the
             * message is and what text it adds, and the reading by name
             * goes (wrap_drop_candidates). */
            bool ours = e.k == E_SYM && is_function(r, e.id) && e.id != wc.from;
            if (c->emit >= 0 && !splat) {
                bool by_name =
                    r->g->emits.v[r->emit_base[fi] + (uint32_t)c->emit].kind != GRAPH_EMIT_CALL;
                if (!(by_name && ours && r->idx->files.v[fi].lang != GRAPH_LANG_PYTHON &&
                      graph__local_module_member(x, c->callee)))
                    seed_shape(w, (uint32_t)fi, c, wc.from);
                if (by_name)
                    continue;
            }
            size_t mlen;
            const char *m = graph__rs_last_part(c->callee, &mlen);
            bool self_call = strncmp(c->callee, "@self.", 6) == 0;
            uint32_t ov[WRAP_MAX_TARGETS], nov = 0;
            /* Calling an instance runs its class's __call__ (`log('',
             * 'HTTP')` on a module's LogManager). */
            if (e.k == E_INST) {
                w->c.depth = 0;
                e = graph__rs_class_member(&w->c, e.id, "__call__", 8, true, 0);
                core_arena_reset(&w->scratch);
            }
            /* Making an instance: a class whose methods log what its
             * constructor took (gx_arg.field) has the shapes. */
            if (e.k == E_SYM && r->sy[e.id].kind == GRAPH_SYM_CLASS) {
                core_vec_push(&w->targets, e.id);
            } else if (e.k == E_SYM && is_function(r, e.id)) {
                core_vec_push(&w->targets, e.id);
                if (self_call && r->sy[e.id].kind == GRAPH_SYM_METHOD) {
                    uint32_t cls = class_of(r, wc.from);
                    if (cls != GRAPH_NONE)
                        graph__rs_collect_overrides(r, cls, m, mlen, ov, &nov, WRAP_MAX_TARGETS, 0);
                }
            } else if (e.k == E_NONE && self_call && !strchr(c->callee + 6, '.')) {
                uint32_t cls = class_of(r, wc.from);
                if (cls != GRAPH_NONE)
                    graph__rs_collect_overrides(r, cls, m, mlen, ov, &nov, WRAP_MAX_TARGETS, 0);
            }
            for (uint32_t i = 0; i < nov; i++)
                if (!(w->targets.n > wc.tfirst && w->targets.v[wc.tfirst] == ov[i]))
                    core_vec_push(&w->targets, ov[i]);
            wc.tcount = (uint32_t)(w->targets.n - wc.tfirst);
            wc.fallback = wc.tcount == 0 && may_fall_back(c->callee, &e);
            if (c->ours_only && wc.tcount == 0 && !wc.fallback)
                continue;
            core_vec_push(&w->calls, wc);
        }
    }
}

/* The callees of a call: resolved ones, or the fallback. */
static uint32_t wcall_targets(wrap *w, const wcall *wc, uint32_t *out)
{
    if (wc->fallback)
        /* A logging call recorded only in case it reaches a wrapper of
         * ours: one whose class its receiver is named after, never the
         * function it is made in (`this.logger.log(...)` inside log()). */
        return fallback_among(w, wc->from, wc->c->callee, NULL, wc->c->ours_only ? 3 : 0, out,
                              WRAP_MAX_TARGETS);
    uint32_t n = wc->tcount < WRAP_MAX_TARGETS ? wc->tcount : WRAP_MAX_TARGETS;
    if (n)
        memcpy(out, w->targets.v + wc->tfirst, n * sizeof *out);
    return n;
}

/* The level a call gives a wrapper of shape sh: fixed, or its argument. */
static uint8_t call_level(const gx_file *x, const gx_call *c, const wshape *sh)
{
    if (!sh->lvl_param)
        return sh->level;
    int32_t shift;
    const gx_arg *l = arg_at(x, c, sh->lvl_pos, sh->lvl_kw, &shift);
    return l && l->level != GRAPH_LEVEL_NONE ? l->level : (uint8_t)GRAPH_LEVEL_CUSTOM;
}

/* The constant emit a name (ref, read from symbol from) resolves to;
 * GRAPH_NONE when none (or no name). */
static uint32_t constant_named(wrap *w, uint32_t from, const char *ref)
{
    if (!ref)
        return GRAPH_NONE;
    int fail;
    w->c.depth = 0;
    ent e = graph__rs_resolve_path(&w->c, from, ref, strlen(ref), &fail);
    core_arena_reset(&w->scratch);
    return e.k == E_CONST ? e.id : GRAPH_NONE;
}

/* Call c's positional argument at pos, or NULL. */
static const gx_arg *positional_at(const gx_file *x, const gx_call *c, uint32_t pos)
{
    for (uint32_t i = 0; i < c->nargs; i++) {
        const gx_arg *o = &x->args.v[c->arg0 + i];
        if (!o->kw && o->pos == pos)
            return o;
    }
    return NULL;
}

/* The message a call of a joining wrapper (shape s) makes: its
 * positional arguments from s's on, each one's text or a hole, with s's
 * separator between; "" when it passes none there, or spreads a list
 * among them, which hides how many there are. */
static const char *joined_text(wrap *w, const gx_file *x, const gx_call *c, const wshape *s)
{
    if (s->msg_pos < 0)
        return "";
    uint32_t end = 0;
    bool spread = false;
    for (uint32_t i = 0; i < c->nargs; i++) {
        const gx_arg *a = &x->args.v[c->arg0 + i];
        if (a->kw)
            continue;
        if (a->pos == UINT32_MAX || a->splat)
            spread = true;
        else if (a->pos + 1 + a->nafter > end)
            end = a->pos + 1 + a->nafter;
    }
    if (spread || end <= (uint32_t)s->msg_pos)
        return "";
    gx_tmpl t = {0};
    for (uint32_t pos = (uint32_t)s->msg_pos; pos < end; pos++) {
        if (pos > (uint32_t)s->msg_pos)
            graph__tmpl_literal(&t, s->joined, strlen(s->joined));
        const gx_arg *a = positional_at(x, c, pos);
        /* (An argument's template is in the template form already.) */
        core_buf_puts(&t.buf, a && a->tmpl ? a->tmpl : "%s");
        /* util.format: a string literal first is a format whose
         * directives take the arguments after it (the holes of a
         * template literal or a concatenation are their own values). */
        if (s->joined_fmt && pos == (uint32_t)s->msg_pos && a && a->tmpl &&
            (a->style == GRAPH_STYLE_PERCENT || a->style == GRAPH_STYLE_PLAIN))
            pos += graph__tmpl_holes(a->tmpl);
    }
    const char *out = core_arena_strndup(&w->r->arena, t.buf.data ? t.buf.data : "", t.buf.len);
    graph__tmpl_free(&t);
    return out;
}

static bool has_words(const char *t);

/* The argument a call gives shape s's message: the one at its place, or,
 * for a joining wrapper, one made of the arguments it joins (in *tmp);
 * NULL when none (or a joined message with no words). */
static const gx_arg *message_arg(wrap *w, const gx_file *x, const gx_call *c, const wshape *s,
                                 gx_arg *tmp, int32_t *shift)
{
    if (s->json) {
        /* What JSON.stringify makes of an object literal; of anything
         * else passed here nothing is known. */
        const gx_arg *a = arg_at_as(x, c, s->msg_pos, s->msg_kw, true, shift);
        if (!a || a->fwd || a->splat)
            return a;
        if (!a->json_tmpl)
            return NULL;
        *tmp = *a;
        tmp->tmpl = a->json_tmpl;
        tmp->ref = tmp->ret = tmp->table = NULL;
        tmp->style = GRAPH_STYLE_TEMPLATE;
        return tmp;
    }
    if (!s->joined)
        return arg_at(x, c, s->msg_pos, s->msg_kw, shift);
    *shift = 0;
    const char *t = joined_text(w, x, c, s);
    if (!has_words(t))
        return NULL;
    memset(tmp, 0, sizeof *tmp);
    tmp->tmpl = t;
    tmp->style = GRAPH_STYLE_CONCAT;
    tmp->pos = (uint32_t)s->msg_pos;
    return tmp;
}

/* The constant a shape's table holds under the key a call passes as its
 * message (m: a literal, `reject("card_declined", ...)`), or GRAPH_NONE. */
static uint32_t table_entry(wrap *w, const wshape *s, const gx_arg *m)
{
    if (!m || m->fwd || !m->tmpl || !m->tmpl[0] || strchr(m->tmpl, '%'))
        return GRAPH_NONE;
    char name[512];
    int n = snprintf(name, sizeof name, "%s[%s]", s->table, m->tmpl);
    if (n <= 0 || (size_t)n >= sizeof name)
        return GRAPH_NONE;
    uint32_t c = constant_named(w, s->table_at, name);
    const gb_graph *g = w->r->g;
    return c < g->emits.n && g->emits.v[c].tmpl && g->emits.v[c].style != GRAPH_STYLE_REF
               ? c
               : GRAPH_NONE;
}

/* What a call puts in a shape's slot by passing argument a there (NULL:
 * none): the template it passes; else a hole (text known at run time, or
 * a parameter left at its default). */
static const char *arg_slot_text(wrap *w, uint32_t from, const gx_arg *a)
{
    if (!a || a->splat || a->fwd)
        return "%s";
    if (a->tmpl)
        return a->tmpl;
    /* A constant named there (`trace(DEBUG, TRACER_NAME, text)`): its text. */
    const gb_graph *g = w->r->g;
    uint32_t c = constant_named(w, from, a->ref);
    if (c < g->emits.n && g->emits.v[c].tmpl && g->emits.v[c].style != GRAPH_STYLE_REF)
        return core_strtab_str(&g->strs, g->emits.v[c].tmpl);
    return "%s";
}

/* What call c (made in symbol from) puts in the slot of shape s. */
static const char *slot_text(wrap *w, uint32_t from, const gx_file *x, const gx_call *c,
                             const wshape *s)
{
    int32_t shift;
    return arg_slot_text(w, from, arg_at(x, c, s->slot_pos, s->slot_kw, &shift));
}

/* The slot of s, as call c (made in a function that may be a wrapper
 * too) fills it, into d's pre and post: the caller's text, or its own
 * parameter passed on, which makes it d's slot. False when it cannot
 * be: two slots, or too long. */
static bool pass_slot(wrap *w, uint32_t from, const gx_file *x, const gx_call *c, const wshape *s,
                      wshape *d)
{
    if (!s->slot)
        return true;
    int32_t shift;
    const gx_arg *a = arg_at(x, c, s->slot_pos, s->slot_kw, &shift);
    if (!a || !a->fwd)
        return fill_slot(&w->r->arena, &d->pre, &d->post, arg_slot_text(w, from, a),
                         WRAP_MAX_AFFIX);
    if (a->slot)
        return false;
    static const char mark[2] = {GX_SLOT, 0};
    const char *v = join3(&w->r->arena, a->pre, mark, a->post, WRAP_MAX_AFFIX);
    d->slot = true;
    d->slot_pos = a->fwd_pos < 0 ? -1 : a->fwd_pos + shift;
    d->slot_kw = a->splat ? NULL : a->fwd_kw;
    return v && fill_slot(&w->r->arena, &d->pre, &d->post, v, WRAP_MAX_AFFIX);
}

/* Once the shapes are known: the logging calls by name recorded only in
 * case they reached a wrapper of ours go where they reach none (read by
 * their method's name alone, as before they were recorded). */
static void drop_unreached(wrap *w)
{
    size_t k = 0;
    for (size_t i = 0; i < w->calls.n; i++) {
        uint32_t t[WRAP_MAX_TARGETS];
        const wcall *wc = &w->calls.v[i];
        if (!wc->c->ours_only || wcall_targets(w, wc, t))
            w->calls.v[k++] = *wc;
    }
    w->calls.n = k;
}

/* One round: callers that pass a parameter on to a wrapper become
 * wrappers. True if any shape was added. */
static bool wrap_round(wrap *w)
{
    rs *r = w->r;
    bool changed = false;
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        if (!is_function(r, wc->from))
            continue;
        const gx_file *x = xfile(r, wc->file);
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++) {
            for (size_t j = 0; j < w->shapes[t[k]].n; j++) {
                wshape s = w->shapes[t[k]].v[j];
                int32_t shift;
                const gx_arg *m = arg_at(x, wc->c, s.msg_pos, s.msg_kw, &shift);
                if (!m || !m->fwd || (s.table && (m->pre || m->post || m->table)) ||
                    (s.json && (m->json || m->pre || m->post)))
                    continue;
                /* A joining wrapper's own *args passed on whole: joined
                 * the same way; anything else at its place is a site. */
                if (s.joined && !(m->splat && !m->joined && shift == 0))
                    continue;
                wshape d = {.msg_pos = m->fwd_pos < 0 ? -1 : m->fwd_pos + shift,
                            .msg_kw = m->splat ? NULL : m->fwd_kw,
                            .lvl_pos = -1,
                            .level = s.level,
                            .logger = s.logger,
                            .pre = s.pre,
                            .post = s.post,
                            .table = s.table,
                            .table_at = s.table_at,
                            .joined = s.joined,
                            .joined_fmt = s.joined_fmt,
                            .json = s.json || m->json,
                            .msg_name = m->fwd_name,
                            .fallback = s.fallback || (m->flags & GRAPH_EF_FALLBACK)};
                /* The shape's slot first: the caller's message may bring
                 * one of its own. */
                if (!pass_slot(w, wc->from, x, wc->c, &s, &d) || (m->slot && d.slot))
                    continue;
                if (m->slot) {
                    d.slot = true;
                    d.slot_pos = m->slot_pos;
                    d.slot_kw = m->slot_kw;
                }
                d.pre = join3(&r->arena, d.pre, m->pre, NULL, WRAP_MAX_AFFIX);
                d.post = join3(&r->arena, m->post, d.post, NULL, WRAP_MAX_AFFIX);
                if (!d.pre || !d.post)
                    continue;
                if (s.lvl_param) {
                    int32_t ls;
                    const gx_arg *l = arg_at(x, wc->c, s.lvl_pos, s.lvl_kw, &ls);
                    if (l && l->fwd) {
                        d.lvl_param = true;
                        d.lvl_pos = l->fwd_pos < 0 ? -1 : l->fwd_pos + ls;
                        d.lvl_kw = l->splat ? NULL : l->fwd_kw;
                        d.level = GRAPH_LEVEL_CUSTOM;
                    } else {
                        d.level = call_level(x, wc->c, &s);
                    }
                }
                uint32_t to = shape_owner(r, wc->from, m);
                /* The logger its constructor took, for the class's own
                 * shapes only. */
                if (m->field && to == class_of(r, t[k]))
                    d.logger_at = s.logger_at;
                if (to != GRAPH_NONE)
                    changed |= add_shape(w, to, &d);
            }
        }
    }
    return changed;
}

/* A template cut to GRAPH_TEMPLATE_MAX (at a character boundary, without
 * half of a "%%"); true if it was cut. */
static bool cut_template(char *s)
{
    size_t n = strlen(s);
    if (n <= GRAPH_TEMPLATE_MAX)
        return false;
    n = core_utf8_valid_prefix(s, GRAPH_TEMPLATE_MAX);
    size_t pct = 0;
    while (pct < n && s[n - 1 - pct] == '%')
        pct++;
    if (pct % 2)
        n--;
    s[n] = 0;
    return true;
}

/* Whether an argument names a string constant of ours (resolved from the
 * calling symbol). */
static bool names_constant(wrap *w, const wcall *wc, const gx_arg *m)
{
    return constant_named(w, wc->from, m->ref) != GRAPH_NONE;
}

/* Adds a reading to what function s returns, once. */
static void add_return(wret *rt, uint32_t tmpl, uint8_t style)
{
    for (uint8_t i = 0; i < rt->n; i++)
        if (rt->tmpl[i] == tmpl)
            return;
    if (rt->n < WRET_MAX) {
        rt->tmpl[rt->n] = tmpl;
        rt->style[rt->n++] = style;
    }
}

/* Each function's returned formats (its unnamed constant sites:
 * graph__py_add_returned, graph__ts_add_returned), for the calls that
 * log what it returns. */
static void wrap_returns(wrap *w)
{
    rs *r = w->r;
    gb_graph *g = r->g;
    w->returns = core_xcalloc(r->nsym + 1, sizeof *w->returns);
    w->returning = core_xcalloc(r->nsym + 1, 1);
    for (size_t i = 0; i < g->emits.n; i++) {
        const gb_emit *e = &g->emits.v[i];
        if (e->kind == GRAPH_EMIT_CONST && e->tmpl && !(e->flags & GRAPH_EF_MEMBER) &&
            e->symbol < r->nsym && !core_strtab_str(&g->strs, e->name)[0] &&
            is_function(r, e->symbol))
            add_return(&w->returns[e->symbol], e->tmpl, e->style);
    }
    /* And the one word it returns (`return 'commit'`, `return ['begin']`,
     * `return [sql, 'begin']`: a statement's keyword, a mode's name),
     * however often; none of a function that returns several words. */
    const char **word = core_xcalloc(r->nsym + 1, sizeof *word);
    uint8_t *words = core_xcalloc(r->nsym + 1, 1);
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        for (size_t i = 0; x && i < x->lits.n; i++) {
            const gx_lit *l = &x->lits.v[i];
            uint32_t s = l->sym >= 0 ? sym_of(r, (uint32_t)fi, l->sym) : GRAPH_NONE;
            if (l->target || s >= r->nsym || words[s] == 2)
                continue;
            if (!words[s] || strcmp(word[s], l->text) != 0)
                words[s]++;
            word[s] = l->text;
        }
    }
    for (uint32_t s = 0; s < r->nsym; s++) {
        if (words[s] == 1)
            add_return(&w->returns[s], core_strtab_intern(&g->strs, word[s], strlen(word[s])),
                       GRAPH_STYLE_PLAIN);
        w->returning[s] = w->returns[s].n != 0;
    }
    free(word);
    free(words);
}

/* The formats the function at path (gx_arg.ret), resolved from symbol
 * from, returns, into out; false if none is known. */
static bool format_returned(wrap *w, uint32_t from, const char *path, wret *out)
{
    int fail;
    w->c.depth = 0;
    ent e = graph__rs_resolve_path(&w->c, from, path, strlen(path), &fail);
    core_arena_reset(&w->scratch);
    out->n = 0;
    if (e.k == E_SYM) {
        if (e.id < w->r->nsym)
            *out = w->returns[e.id];
        return out->n != 0;
    }
    /* A receiver of unknown type (`this.platform.commitSQL()`): the
     * methods of that name that return a format, among the nearest (each
     * platform's statements), all their formats. */
    uint32_t t[WRET_MAX + 1];
    uint32_t nt = may_fall_back(path, &e)
                      ? fallback_among(w, from, path, w->returning, 0, t, WRET_MAX + 1)
                      : 0;
    for (uint32_t i = 0; nt <= WRET_MAX && i < nt; i++)
        for (uint8_t k = 0; k < w->returns[t[i]].n; k++)
            add_return(out, w->returns[t[i]].tmpl[k], w->returns[t[i]].style[k]);
    return out->n != 0;
}

/* The formats a call's message argument m is the result of. */
static bool returned_format(wrap *w, const wcall *wc, const gx_arg *m, wret *out)
{
    return m->ret && !m->tmpl && !m->ref && format_returned(w, wc->from, m->ret, out);
}

/* A logging call whose message is what a function of ours returns
 * (`log.debug(self._summary())`) has that function's format. */
static void log_returned(wrap *w)
{
    rs *r = w->r;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        for (size_t i = 0; x && i < x->emits.n; i++) {
            const gx_emit *em = &x->emits.v[i];
            gb_emit *o = &r->g->emits.v[r->emit_base[fi] + i];
            if (!em->ret || o->tmpl)
                continue;
            wret f;
            if (!format_returned(w, sym_of(r, (uint32_t)fi, em->sym), em->ret, &f))
                continue;
            /* One site per format, on the call's line. */
            gb_emit e = *o;
            for (uint8_t k = 0; k < f.n; k++) {
                e.tmpl = f.tmpl[k];
                e.style = f.style[k];
                if (k)
                    core_vec_push(&r->g->emits, e);
                else
                    r->g->emits.v[r->emit_base[fi] + i] = e;
            }
        }
    }
}

/* Does a call pass message text where a wrapper logs its parameter: a
 * literal, a constant, a format a function of ours returns, or a
 * parameter of a caller that is itself a wrapper used so? A path or a
 * count passed to a function that logs it ("Enter the directory:
 * ${dir}", or its own recursive call) is data, and the function no
 * wrapper. */
/* Does template t end in a sentence that a value completes: two words or
 * more since its last mark ("Connecting to database at ", "Using schema
 * "), not a tag or a label ("[app] ", "note: ", "(%s) %s ")? */
static bool ends_in_sentence(const char *t)
{
    size_t n = strlen(t);
    if (n < 2 || t[n - 1] != ' ' || !isalpha((unsigned char)t[n - 2]))
        return false;
    int words = 0, run = 0;
    for (size_t i = n; i-- > 0;) {
        unsigned char c = (unsigned char)t[i];
        if (isalpha(c)) {
            run++;
            continue;
        }
        words += run >= 2;
        run = 0;
        if (c != ' ')
            break; /* a mark, a digit or a hole's % */
    }
    return words + (run >= 2) >= 2;
}

static bool passes_message(wrap *w, const wcall *wc, uint32_t target, const wshape *s,
                           const gx_arg *m)
{
    if (!m || wc->from == target)
        return false;
    /* '' is a message where the wrapper adds text of its own. One word
     * handed to finish a sentence of the function's own
     * (`connect("localhost")` to `log.info("Connecting to database at " +
     * host)`) is a value it logs, not a message. */
    if (m->tmpl && m->tmpl[0] && !strchr(m->tmpl, ' ') && !s->slot && ends_in_sentence(s->pre))
        return false;
    if (m->tmpl)
        return m->tmpl[0] || s->slot || s->pre[0] || s->post[0];
    wret f;
    if (returned_format(w, wc, m, &f))
        return true;
    if (m->fwd)
        return w->used[wc->from] != 0;
    return names_constant(w, wc, m);
}

/* Marks the wrappers some call passes a message to; again while that
 * finds more (a wrapper calling a wrapper). */
static void wrap_used(wrap *w)
{
    bool changed = true;
    for (int round = 0; changed && round < WRAP_MAX_ROUNDS; round++) {
        changed = false;
        for (size_t i = 0; i < w->calls.n; i++) {
            const wcall *wc = &w->calls.v[i];
            const gx_file *x = xfile(w->r, wc->file);
            uint32_t t[WRAP_MAX_TARGETS];
            uint32_t nt = wcall_targets(w, wc, t);
            for (uint32_t k = 0; k < nt; k++) {
                for (size_t j = 0; j < w->shapes[t[k]].n && !w->used[t[k]]; j++) {
                    const wshape *s = &w->shapes[t[k]].v[j];
                    int32_t shift;
                    gx_arg tmp;
                    const gx_arg *m = message_arg(w, x, wc->c, s, &tmp, &shift);
                    if (passes_message(w, wc, t[k], s, m)) {
                        w->used[t[k]] = 1;
                        changed = true;
                    }
                }
            }
        }
    }
}

/* The positions a shape can say, as bits of a mask. */
#define WRAP_POS_BITS 32

/*
 * The wrappers that act on the text they log: the parameter logged is not
 * named like a message, and a call of theirs that logs nothing takes it
 * whole too (`query(sql)` that logs the statement and runs it, a
 * `send(line)` that logs the line and writes it). That text is data the
 * function works on, so what it logs is its own event, wherever the text
 * came from: the sites its callers' text makes are its own (wrap_emit).
 */
static void wrap_acting(wrap *w)
{
    rs *r = w->r;
    uint32_t *handed = core_xcalloc(r->nsym + 1, sizeof *handed);
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        const gx_call *c = wc->c;
        if (c->emit >= 0 || wc->from >= r->nsym || !w->used[wc->from])
            continue;
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        /* A call by name only (`self.conn.execute(statement)` in
         * Database.execute) reaches no wrapper by reaching the very
         * function it is made in: another object's method of that name. */
        bool logs = false;
        for (uint32_t k = 0; k < nt && !logs; k++)
            logs = w->used[t[k]] != 0 && !(wc->fallback && t[k] == wc->from);
        if (logs)
            continue;
        const gx_file *x = xfile(r, wc->file);
        for (uint32_t k = 0; k < c->nargs; k++) {
            const gx_arg *a = &x->args.v[c->arg0 + k];
            if (a->fwd && !a->splat && !a->pre && !a->post && a->fwd_pos >= 0 &&
                a->fwd_pos < WRAP_POS_BITS && a->fwd_name && !graph__message_like(a->fwd_name))
                handed[wc->from] |= 1u << a->fwd_pos;
        }
    }
    for (uint32_t s = 0; s < r->nsym; s++)
        for (size_t j = 0; handed[s] && j < w->shapes[s].n && !w->acts[s]; j++) {
            int32_t p = w->shapes[s].v[j].msg_pos;
            w->acts[s] = p >= 0 && p < WRAP_POS_BITS && (handed[s] >> p & 1u);
        }
    /* So is one that runs work its caller hands it, a function, and logs
     * the text that names that work (`executeQuery(query, cb)` awaits
     * cb(), then logs the statement with how long it took). */
    for (uint32_t s = 0; s < r->nsym; s++) {
        if (w->acts[s] || !(r->g->syms.v[s].flags & GRAPH_SF_RUNS_HANDED))
            continue;
        for (size_t j = 0; j < w->shapes[s].n && !w->acts[s]; j++) {
            const char *nm = w->shapes[s].v[j].msg_name;
            w->acts[s] = nm && !graph__message_like(nm);
        }
    }
    free(handed);
}

/* Does call wc hand a parameter of its function on as the message of
 * target t? */
static bool passes_on(wrap *w, const wcall *wc, uint32_t t)
{
    const gx_file *x = xfile(w->r, wc->file);
    for (size_t j = 0; j < w->shapes[t].n; j++) {
        const wshape *s = &w->shapes[t].v[j];
        int32_t shift;
        const gx_arg *m = arg_at(x, wc->c, s->msg_pos, s->msg_kw, &shift);
        if (m && m->fwd)
            return true;
    }
    return false;
}

/* Adds t to leads v, unless there or v is full; true if added. */
static bool add_lead(lead_vec *v, uint32_t t)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] == t)
            return false;
    if (v->n >= WRAP_MAX_TARGETS)
        return false;
    core_vec_push(v, t);
    return true;
}

/*
 * A wrapper that only builds a statement from its parameter and hands it
 * to a wrapper that acts on it (`loadPragma(t, kind)` running `this.query(
 * \`PRAGMA ${kind}...\`)`) logs nothing of its own: the statement its
 * callers' text makes is logged where it is run. Its leads are the acting
 * wrappers its message ends at, through any chain of such wrappers; its
 * callers' sites go to them (wrap_emit). A wrapper whose message also
 * reaches a logging call of its own, or a wrapper that does not act, has
 * none: there the callers' sites stand for it, as for any wrapper.
 */
static void wrap_leads(wrap *w)
{
    rs *r = w->r;
    uint32_t n = r->nsym;
    w->leads = core_xcalloc(n + 1, sizeof *w->leads);
    /* The calls that hand a wrapper's text on to another wrapper, found
     * once: from -> to. */
    core_vec(hand_on) hand = {0};
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        uint32_t f = wc->from;
        if (f >= n || w->direct[f] || !w->used[f] || w->acts[f])
            continue;
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++)
            if (w->used[t[k]] && passes_on(w, wc, t[k]))
                core_vec_push(&hand, ((hand_on){f, t[k]}));
    }
    uint8_t *mixed = core_xcalloc(n + 1, 1);
    for (bool again = true; again;) {
        for (uint32_t s = 0; s < n; s++)
            w->leads[s].n = 0;
        bool changed = true;
        for (int round = 0; changed && round < WRAP_MAX_ROUNDS; round++) {
            changed = false;
            for (size_t i = 0; i < hand.n; i++) {
                uint32_t f = hand.v[i].from, t = hand.v[i].to;
                if (mixed[f])
                    continue;
                if (w->acts[t])
                    changed |= add_lead(&w->leads[f], t);
                for (size_t j = 0; j < w->leads[t].n; j++)
                    changed |= add_lead(&w->leads[f], w->leads[t].v[j]);
            }
        }
        /* A text that also reaches a wrapper without leads. */
        again = false;
        for (size_t i = 0; i < hand.n; i++) {
            uint32_t f = hand.v[i].from, t = hand.v[i].to;
            if (!mixed[f] && w->leads[f].n && !w->acts[t] && !w->leads[t].n) {
                mixed[f] = 1;
                again = true;
            }
        }
    }
    free(mixed);
    core_vec_free(&hand);
}

/* The line of the first logging call of each function (0: none): where
 * a wrapper that acts on its text logs it. */
static uint32_t *own_log_lines(const gb_graph *g, uint32_t nsym)
{
    uint32_t *line = core_xcalloc(nsym + 1, sizeof *line);
    for (size_t i = 0; i < g->emits.n; i++) {
        const gb_emit *e = &g->emits.v[i];
        if (e->symbol < nsym && e->kind == GRAPH_EMIT_LOG && !(e->flags & GRAPH_EF_WRAPPER) &&
            (line[e->symbol] == 0 || e->line < line[e->symbol]))
            line[e->symbol] = e->line;
    }
    return line;
}

/* Does template t hold text other than blanks and holes? */
static bool has_words(const char *t)
{
    size_t n = strlen(t);
    graph_tmpl_piece pc;
    for (size_t i = 0, k; i < n; i += k) {
        k = graph_tmpl_step(t, n, i, &pc);
        if (!pc.hole && !strchr(" \t\n", pc.lit))
            return true;
    }
    return false;
}

/* The name of the logger call wc passes at position pos (a name bound
 * to one in its file), as a string offset; 0 when it is none. */
static uint32_t handed_logger(rs *r, const wcall *wc, uint32_t pos)
{
    const gx_file *x = xfile(r, wc->file);
    int32_t shift;
    const gx_arg *a = arg_at(x, wc->c, (int32_t)pos, NULL, &shift);
    if (!a || a->splat || !a->logger)
        return 0;
    const char *lg = a->logger;
    if (strcmp(lg, "__name__") == 0)
        lg = r->idx->files.v[wc->file].modname;
    return lg ? core_strtab_intern(&r->g->strs, lg, strlen(lg)) : 0;
}

/* The emit sites of the calls that pass a message to a wrapper: the
 * caller's, or, for a wrapper that acts on the text (wrap_acting), the
 * wrapper's own, at its logging call. */
/* Pushes site o (its symbol and line aside) once (made): at the call wc
 * of wrapper target, or at the acting wrappers that log the text
 * (wrap_acting, wrap_leads), on their own lines. */
static void put_sites(wrap *w, core_map *made, gb_emit *o, const wcall *wc, uint32_t target,
                      const uint32_t *own_line)
{
    gb_graph *g = w->r->g;
    const uint32_t *at = &target;
    size_t nat = 1;
    if (!w->acts[target]) {
        at = w->leads[target].v;
        nat = w->leads[target].n;
    }
    for (size_t a = 0; a < (nat ? nat : 1); a++) {
        o->symbol = wc->from;
        o->line = wc->c->line;
        if (nat) {
            o->symbol = at[a];
            o->line = own_line[at[a]] ? own_line[at[a]] : g->syms.v[at[a]].start_line;
        }
        /* Several callees may give the same site; and so may several
         * callers an acting wrapper's own, or it and its own call of the
         * wrapper. */
        const uint32_t key[] = {o->symbol, o->line, o->tmpl, o->ref, o->level, o->logger};
        bool ins;
        core_map_put(made, core_hash64(key, sizeof key, 0) >> 1, &ins);
        if (!ins)
            continue;
        core_vec_push(&g->emits, *o);
        g->syms.v[o->symbol].flags |= GRAPH_SF_LOGS;
        if (o->style == GRAPH_STYLE_REF || o->style == GRAPH_STYLE_DYNAMIC)
            g->syms.v[o->symbol].flags |= GRAPH_SF_LOGS_DYNAMIC;
    }
}

static void wrap_emit(wrap *w)
{
    rs *r = w->r;
    gb_graph *g = r->g;
    uint32_t *own_line = own_log_lines(g, r->nsym);
    core_map made = {0}; /* the sites made */
    /* An acting function that logs through a wrapper of ours logs where
     * it hands its text on: the first such call. */
    uint32_t *via = core_xcalloc(r->nsym + 1, sizeof *via);
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        uint32_t f = wc->from, t[WRAP_MAX_TARGETS];
        if (f >= r->nsym || !w->acts[f] || own_line[f])
            continue;
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++)
            if (t[k] != f && passes_on(w, wc, t[k]) && (!via[f] || wc->c->line < via[f]))
                via[f] = wc->c->line;
    }
    for (uint32_t s = 0; s < r->nsym; s++)
        if (!own_line[s])
            own_line[s] = via[s];
    free(via);
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        const gx_file *x = xfile(r, wc->file);
        const gx_call *c = wc->c;
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++) {
            /* A callee no message reaches is no wrapper: its calls are
             * not sites (a number passed to it is data). */
            if (!w->used[t[k]])
                continue;
            for (size_t j = 0; j < w->shapes[t[k]].n; j++) {
                const wshape *s = &w->shapes[t[k]].v[j];
                int32_t shift;
                gx_arg tmp;
                const gx_arg *m = message_arg(w, x, c, s, &tmp, &shift);
                if (!m || m->splat)
                    continue;
                /* A message built at run time (`self._log(ERROR, lines)`)
                 * is logged here all the same: a site without text, which
                 * the logger and position strategies can place. Around
                 * text the wrapper adds, nothing of it is known. */
                const char *pre = s->pre, *post = s->post;
                if (s->slot &&
                    !fill_slot(&r->arena, &pre, &post, slot_text(w, wc->from, x, c, s), SIZE_MAX))
                    continue;
                /* A table's entry the caller's key names: its text. */
                uint32_t entry = GRAPH_NONE;
                if (s->table && (entry = table_entry(w, s, m)) == GRAPH_NONE)
                    continue;
                /* A message a function of ours formats and returns
                 * (`TRACE(www_authenticate(...))`): its format. */
                wret rf;
                const wret *rets =
                    entry == GRAPH_NONE && returned_format(w, wc, m, &rf) ? &rf : NULL;
                bool dynamic = !m->tmpl && !m->ref && !rets;
                bool affix = pre[0] || post[0];
                /* (A function acting on the text it hands on logs it
                 * itself: wrap_acting.) */
                bool acting = m->fwd && w->acts[wc->from];
                if (dynamic && ((m->fwd && !acting) || affix))
                    continue;
                /*
                 * A parameter passed on has its sites at the callers. With
                 * text of its own (TS: `user ${id} signed in`) it is a
                 * site here too, unless it only decorates what callers
                 * pass (`[say] ${text}`, text on one side) and callers
                 * were found: then, as for a wrapper's own logging call
                 * (wrap_drop_generic), those sites stand for it.
                 */
                if (m->fwd && !acting && w->used[wc->from] && (!m->pre || !m->post))
                    continue;
                gb_emit o = {0};
                o.kind = GRAPH_EMIT_LOG;
                o.level = call_level(x, c, s);
                o.logger = s->logger;
                if (!o.logger && s->logger_at && r->sy[t[k]].kind == GRAPH_SYM_CLASS)
                    o.logger = handed_logger(r, wc, s->logger_at - 1);
                o.nargs = m->nafter;
                const uint32_t flags =
                    m->flags | GRAPH_EF_WRAPPER | (s->fallback ? GRAPH_EF_FALLBACK : 0);
                size_t mlen;
                const char *meth = graph__rs_last_part(c->callee, &mlen);
                size_t rlen = meth > c->callee ? (size_t)(meth - c->callee) - 1 : 0;
                o.receiver = core_strtab_intern(&g->strs, c->callee, rlen);
                o.method = core_strtab_intern(&g->strs, meth, mlen);
                /* A site per format the function returns. */
                for (uint32_t ri = 0; ri < (rets ? rets->n : 1u); ri++) {
                    o.flags = flags;
                    o.style = dynamic ? GRAPH_STYLE_DYNAMIC : rets ? rets->style[ri] : m->style;
                    o.ref = 0;
                    o.ref_const = GRAPH_NONE;
                    o.tmpl = 0;
                    const char *tmpl = rets ? core_strtab_str(&g->strs, rets->tmpl[ri]) : m->tmpl;
                    if (entry != GRAPH_NONE) {
                        const gb_emit *en = &g->emits.v[entry];
                        tmpl = core_strtab_str(&g->strs, en->tmpl);
                        o.style = en->style;
                        o.ref = en->name;
                        o.ref_const = entry;
                    } else if (m->ref) {
                        uint32_t cid = constant_named(w, wc->from, m->ref);
                        if (affix) {
                            /* The text around the constant is known only with
                             * the constant's own text. */
                            if (cid == GRAPH_NONE || !g->emits.v[cid].tmpl)
                                continue;
                            tmpl = core_strtab_str(&g->strs, g->emits.v[cid].tmpl);
                        } else {
                            o.ref = core_strtab_intern(&g->strs, m->ref, strlen(m->ref));
                            o.ref_const = cid;
                        }
                    }
                    /* An empty message is a site only with words around it. */
                    if (tmpl && !tmpl[0] && !has_words(pre) && !has_words(post))
                        continue;
                    if (tmpl) {
                        char *full = (char *)join3(&w->scratch, pre, tmpl, post, SIZE_MAX);
                        if (cut_template(full))
                            o.flags |= GRAPH_EF_TRUNCATED;
                        o.tmpl = core_strtab_intern(&g->strs, full, strlen(full));
                        core_arena_reset(&w->scratch);
                        if (affix)
                            o.style = GRAPH_STYLE_CONCAT;
                    }
                    put_sites(w, &made, &o, wc, t[k], own_line);
                }
            }
        }
    }
    free(own_line);
    core_map_free(&made);
}

/* Is an emit a logging call of its function's own that shows no text of
 * its own: a message made at run time, or a format an object holds
 * (`self.access_log_format`, set from a configuration), not a constant's? */
static bool textless_log(const gb_graph *g, const gb_emit *e)
{
    if (e->kind != GRAPH_EMIT_LOG || (e->flags & GRAPH_EF_WRAPPER))
        return false;
    if (e->style == GRAPH_STYLE_DYNAMIC)
        return true;
    return e->style == GRAPH_STYLE_REF && e->ref &&
           strncmp(core_strtab_str(&g->strs, e->ref), "@self.", 6) == 0;
}

/* Whether class c or a class it inherits from has a method that logs a
 * parameter as its message (has_wrap). */
static bool logger_class(const rs *r, const uint8_t *has_wrap, uint32_t c)
{
    if (c == GRAPH_NONE)
        return false;
    if (has_wrap[c])
        return true;
    for (const uint32_t *m = r->mro[c]; m && *m != UINT32_MAX; m++)
        if (has_wrap[*m])
            return true;
    return false;
}

/*
 * Logging facades. A logger object of the application's (a class whose
 * `info(message)`, `error(message)`... log the message they are given)
 * may have methods that
 * log a message made of what their callers hand them, not text of theirs:
 * `access(request, response, took)` renders an access line from them. Such
 * a method only logs, as its wrapper siblings do, and its calls are the
 * events, as a wrapper's are: each call becomes a site of the caller with
 * the method's own (its format held in a name, or none), and the method's
 * own site stands for nothing more. A method of such a class that hands
 * its parameters on to a facade is one too (a subclass's override that
 * also counts the request). Runs after wrap_emit: a function that logs
 * its own text through a wrapper is that text's emitter.
 */
static void wrap_facades(wrap *w)
{
    rs *r = w->r;
    gb_graph *g = r->g;
    uint32_t n = r->nsym;
    uint8_t *fac = core_xcalloc(n + 1, 1), *has_wrap = core_xcalloc(n + 1, 1);
    uint8_t *shown = core_xcalloc(n + 1, 1), *found = core_xcalloc(n + 1, 1);
    uint8_t *bare = core_xcalloc(n + 1, 1), *held = core_xcalloc(n + 1, 1);
    uint32_t *root = core_xmalloc((n + 1) * sizeof *root);
    for (uint32_t s = 0; s < n; s++) {
        root[s] = GRAPH_NONE;
        uint32_t c = class_of(r, s);
        if (w->shapes[s].n && !w->acts[s] && !w->leads[s].n && c != GRAPH_NONE)
            has_wrap[c] = 1;
    }
    for (size_t i = 0; i < g->emits.n; i++) {
        const gb_emit *e = &g->emits.v[i];
        if (e->symbol >= n || e->kind != GRAPH_EMIT_LOG)
            continue;
        if (textless_log(g, e)) {
            bare[e->symbol] = 1;
            held[e->symbol] |= e->style == GRAPH_STYLE_REF;
        } else if (!(e->flags & GRAPH_EF_EXC_INFO)) {
            /* (An exception logged with its traceback is the method's
             * failure to render, not a line of its own.) */
            shown[e->symbol] = 1;
        }
    }
    /* What a method is for, its exception handlers aside (an access line
     * it fails to render is logged there), and whether its callers hand
     * it anything to make the line of: one that reads what it logs from
     * elsewhere (the current request, kept per thread) is its emitter. */
    uint8_t *works = core_xcalloc(n + 1, 1), *takes = core_xcalloc(n + 1, 1);
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        for (size_t k = 0; x && k < x->syms.n; k++) {
            works[sym_of(r, (uint32_t)fi, (int32_t)k)] = x->syms.v[k].body_effects;
            takes[sym_of(r, (uint32_t)fi, (int32_t)k)] = x->syms.v[k].takes_args;
        }
    }
    bool any = false;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t c = class_of(r, s);
        bool logger = logger_class(r, has_wrap, c);
        if ((logger || (c != GRAPH_NONE && held[s])) && !w->used[s] && bare[s] && !shown[s] &&
            (!works[s] || !logger) && takes[s]) {
            fac[s] = 1;
            root[s] = s;
            any = true;
        }
    }
    /* Those that hand their parameters on to one. */
    for (int round = 0; any && round < WRAP_MAX_ROUNDS; round++) {
        bool more = false;
        for (size_t i = 0; i < w->calls.n; i++) {
            const wcall *wc = &w->calls.v[i];
            uint32_t f = wc->from, c = f < n ? class_of(r, f) : GRAPH_NONE;
            /* In a logger class, an override may do more (count the
             * request) and still be the facade; elsewhere, and for a
             * method of another name (the handler's finish_response,
             * which writes the response and then hands it on), only one
             * that does nothing else is. */
            bool logger = logger_class(r, has_wrap, c);
            /* (One that acts on the text it hands on is its emitter.) */
            if (fac[f] || w->used[f] || w->acts[f] || shown[f] || (!logger && bare[f]))
                continue;
            const gx_file *x = xfile(r, wc->file);
            bool fwd = false;
            for (uint32_t k = 0; k < wc->c->nargs && !fwd; k++)
                fwd = x->args.v[wc->c->arg0 + k].fwd;
            /* (A call the names alone resolve goes to the facades among
             * the methods of its name, as their calls below do.) */
            uint32_t t[WRAP_MAX_TARGETS];
            uint32_t nt = !fwd ? 0
                          : wc->fallback
                              ? fallback_among(w, f, wc->c->callee, fac, 0, t, WRAP_MAX_TARGETS)
                              : wcall_targets(w, wc, t);
            for (uint32_t k = 0; k < nt && !fac[f]; k++)
                if (fac[t[k]] &&
                    (!works[f] || (logger && strcmp(r->sy[f].name, r->sy[t[k]].name) == 0))) {
                    fac[f] = 1;
                    root[f] = root[t[k]];
                    more = true;
                }
        }
        if (!more)
            break;
    }
    /* Their calls, wherever made: each a site of the caller, with the
     * own sites of the facade the callee leads to. */
    size_t nfirst = g->emits.n;
    core_vec(uint32_t) roots = {0};
    for (size_t q = 0; any && q < nfirst; q++) {
        uint32_t sy = g->emits.v[q].symbol;
        if (sy < n && fac[sy] && root[sy] == sy && textless_log(g, &g->emits.v[q]))
            core_vec_push(&roots, (uint32_t)q);
    }
    for (size_t fi = 0; any && fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        for (size_t k = 0; x && k < x->refs.n; k++) {
            const gx_ref *ref = &x->refs.v[k];
            if (ref->kind != GX_REF_CALL)
                continue;
            uint32_t from = sym_of(r, (uint32_t)fi, ref->from);
            if (from >= n || fac[from] || !is_function(r, from))
                continue;
            size_t mlen;
            const char *m = graph__rs_last_part(ref->path, &mlen);
            uint32_t it;
            bool named = false;
            for (uint32_t s = core_smap_get(&r->methods, m, mlen, &it); s != UINT32_MAX && !named;
                 s = core_smap_next(&r->methods, m, mlen, &it))
                named = fac[s];
            if (!named)
                continue;
            int fail;
            w->c.depth = 0;
            ent e = graph__rs_resolve_path(&w->c, from, ref->path, strlen(ref->path), &fail);
            core_arena_reset(&w->scratch);
            uint32_t t[WRAP_MAX_TARGETS], nt = 0;
            if (e.k == E_SYM && e.id < n && fac[e.id])
                t[nt++] = e.id;
            else if (e.k != E_SYM && may_fall_back(ref->path, &e))
                nt = fallback_among(w, from, ref->path, fac, 0, t, WRAP_MAX_TARGETS);
            for (uint32_t j = 0; j < nt; j++) {
                uint32_t top = root[t[j]], ne = 0;
                for (size_t q = 0; q < roots.n; q++) {
                    if (g->emits.v[roots.v[q]].symbol != top)
                        continue;
                    gb_emit o = g->emits.v[roots.v[q]];
                    o.symbol = from;
                    o.line = ref->line;
                    o.flags |= GRAPH_EF_WRAPPER;
                    bool dup = false;
                    for (size_t k2 = nfirst; k2 < g->emits.n && !dup; k2++) {
                        const gb_emit *p = &g->emits.v[k2];
                        dup = p->symbol == o.symbol && p->line == o.line && p->tmpl == o.tmpl &&
                              p->ref == o.ref;
                    }
                    if (dup)
                        continue;
                    core_vec_push(&g->emits, o);
                    g->syms.v[from].flags |= GRAPH_SF_LOGS | GRAPH_SF_LOGS_DYNAMIC;
                    ne++;
                }
                if (ne) {
                    found[top] = 1;
                    found[t[j]] = 1;
                }
            }
        }
    }
    /* Where calls were found, the facade's own sites go (compact_emits). */
    for (size_t q = 0; q < nfirst; q++) {
        gb_emit *e = &g->emits.v[q];
        if (e->symbol < n && found[e->symbol] && root[e->symbol] == e->symbol &&
            textless_log(g, e)) {
            e->kind = GRAPH_EMIT_CALL;
            e->style = GRAPH_STYLE_NONE;
        }
    }
    for (uint32_t s = 0; s < n; s++)
        if (fac[s] && root[s] != GRAPH_NONE && found[root[s]])
            g->syms.v[s].flags |= GRAPH_SF_WRAPPER;
    core_vec_free(&roots);
    free(fac);
    free(has_wrap);
    free(held);
    free(shown);
    free(found);
    free(bare);
    free(works);
    free(takes);
    free(root);
}

/*
 * A wrapper's own logging call has the caller's message as (part of) its
 * message: its template, if any ("[chan %s] %s"), matches every message
 * the wrapper logs and names the wrapper, never the caller. When calls
 * to the wrapper were found, the sites at the calls stand for it.
 */
static void wrap_drop_generic(wrap *w)
{
    rs *r = w->r;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        if (!x)
            continue;
        for (size_t k = 0; k < x->calls.n; k++) {
            const gx_call *c = &x->calls.v[k];
            if (c->emit < 0 || !w->used[sym_of(r, (uint32_t)fi, c->from)])
                continue;
            gb_emit *em = &r->g->emits.v[r->emit_base[fi] + (uint32_t)c->emit];
            if (em->tmpl) {
                em->tmpl = 0;
                em->style = GRAPH_STYLE_DYNAMIC;
                /* What it logs is its callers' text. */
                r->g->syms.v[em->symbol].flags |= GRAPH_SF_LOGS_DYNAMIC;
            }
        }
    }
}

/*
 * Functions that log a non-literal message that may be their callers'
 * text: one whose logging call passes on a parameter (a wrapper's shape,
 * whether or not a call was seen to pass it text), or one to which some
 * call passes message-like text (a literal with a space or a hole in it,
 * or a constant) though how it makes its message of it is not known
 * (`_pre(self, msg)`, `msg % args` first). One no call passes text to,
 * and whose message is no parameter, logs a message of its own making.
 */
static void wrap_takes_text(wrap *w)
{
    rs *r = w->r;
    gb_graph *g = r->g;
    for (uint32_t s = 0; s < r->nsym; s++)
        if (w->shapes[s].n > 0 && (g->syms.v[s].flags & GRAPH_SF_LOGS_DYNAMIC))
            g->syms.v[s].flags |= GRAPH_SF_TAKES_TEXT;
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        const gx_file *x = xfile(r, wc->file);
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++) {
            uint32_t *fl = &g->syms.v[t[k]].flags;
            if (t[k] == wc->from || !(*fl & GRAPH_SF_LOGS_DYNAMIC) || (*fl & GRAPH_SF_TAKES_TEXT))
                continue;
            for (uint32_t a = 0; a < wc->c->nargs; a++) {
                const gx_arg *m = &x->args.v[wc->c->arg0 + a];
                bool text = m->tmpl ? strchr(m->tmpl, ' ') || m->style != GRAPH_STYLE_PLAIN
                                    : names_constant(w, wc, m);
                if (text) {
                    *fl |= GRAPH_SF_TAKES_TEXT;
                    break;
                }
            }
        }
    }
}

/* Where (symbol, line) a call reaches a logging wrapper. */
static uint64_t call_key(uint32_t symbol, uint32_t line)
{
    return core_hash_u64(((uint64_t)symbol << 32) | line) >> 1;
}

/* Where (symbol, line) a call to callee (len bytes) reaches a wrapper. */
static uint64_t named_call_key(uint32_t symbol, uint32_t line, const char *callee, size_t len)
{
    return (call_key(symbol, line) ^ core_hash64(callee, len, 0)) >> 1;
}

/* A call that reaches a wrapper is no candidate of its own: the wrapper
 * says what it logs (a site of the caller, or none when the call only
 * passes its own caller's message on). Nor is a logging call by its
 * method's name that reaches one of ours (`logging.trace(...)`, recorded
 * as that call too): the wrapper's reading replaces the name's. */
static void wrap_drop_candidates(wrap *w)
{
    gb_graph *g = w->r->g;
    core_map at = {0}, named = {0};
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        bool wrapper = false, other = false;
        for (uint32_t k = 0; k < nt; k++) {
            wrapper |= w->shapes[t[k]].n > 0;
            other |= w->shapes[t[k]].n > 0 && t[k] != wc->from;
        }
        if (!wrapper)
            continue;
        *core_map_put(&at, call_key(wc->from, wc->c->line), NULL) = 1;
        if (other && !wc->fallback && w->r->idx->files.v[wc->file].lang != GRAPH_LANG_PYTHON)
            *core_map_put(
                &named, named_call_key(wc->from, wc->c->line, wc->c->callee, strlen(wc->c->callee)),
                NULL) = 1;
    }
    for (size_t i = 0; i < g->emits.n; i++) {
        gb_emit *e = &g->emits.v[i];
        bool drop = e->kind == GRAPH_EMIT_CALL && core_map_get(&at, call_key(e->symbol, e->line));
        if (!drop && e->kind == GRAPH_EMIT_LOG && !(e->flags & GRAPH_EF_WRAPPER) && named.n) {
            const char *recv = core_strtab_str(&g->strs, e->receiver);
            const char *meth = core_strtab_str(&g->strs, e->method);
            char *callee = (char *)join3(&w->scratch, recv, ".", meth, SIZE_MAX);
            drop = core_map_get(&named,
                                named_call_key(e->symbol, e->line, callee, strlen(callee))) != NULL;
            core_arena_reset(&w->scratch);
        }
        if (drop) {
            e->kind = GRAPH_EMIT_CALL;
            e->style = GRAPH_STYLE_NONE;
            e->tmpl = 0;
        }
    }
    core_map_free(&at);
    core_map_free(&named);
}

/* Drops the candidates wrap_drop_candidates emptied, renumbering the
 * constant references (after everything that indexes emits by file). */
static void compact_emits(rs *r)
{
    gb_graph *g = r->g;
    uint32_t *to = core_xmalloc((g->emits.n ? g->emits.n : 1) * sizeof *to);
    size_t n = 0;
    for (size_t i = 0; i < g->emits.n; i++) {
        const gb_emit *e = &g->emits.v[i];
        bool gone = e->kind == GRAPH_EMIT_CALL && e->style == GRAPH_STYLE_NONE;
        to[i] = gone ? GRAPH_NONE : (uint32_t)n;
        if (!gone)
            g->emits.v[n++] = *e;
    }
    g->emits.n = n;
    for (size_t i = 0; i < n; i++) {
        gb_emit *e = &g->emits.v[i];
        if (e->ref_const != GRAPH_NONE)
            e->ref_const = to[e->ref_const];
    }
    free(to);
}

/* Emit sites at the calls of logging wrappers; after graph__rs_resolve_refs(),
 * whose emits they join. */
void graph__rs_resolve_wrappers(rs *r)
{
    wrap w;
    memset(&w, 0, sizeof w);
    w.r = r;
    core_arena_init(&w.scratch, 0);
    w.c = (ctx){r, 0, &w.scratch};
    w.shapes = core_xcalloc(r->nsym + 1, sizeof *w.shapes);
    w.used = core_xcalloc(r->nsym + 1, 1);
    w.direct = core_xcalloc(r->nsym + 1, 1);
    wrap_targets(&w);
    wrap_returns(&w);
    log_returned(&w);
    for (int round = 0; round < WRAP_MAX_ROUNDS && wrap_round(&w); round++)
        ;
    drop_unreached(&w);
    wrap_used(&w);
    w.acts = core_xcalloc(r->nsym + 1, 1);
    wrap_acting(&w);
    wrap_leads(&w);
    for (uint32_t s = 0; s < r->nsym; s++)
        if (w.used[s] && !w.acts[s] && !w.leads[s].n && is_function(r, s))
            r->g->syms.v[s].flags |= GRAPH_SF_WRAPPER;
    wrap_emit(&w);
    wrap_facades(&w);
    wrap_drop_candidates(&w);
    wrap_drop_generic(&w);
    wrap_takes_text(&w);
    compact_emits(r);
    for (uint32_t s = 0; s < r->nsym; s++) {
        core_vec_free(&w.shapes[s]);
        core_vec_free(&w.leads[s]);
    }
    free(w.shapes);
    free(w.leads);
    free(w.direct);
    free(w.used);
    free(w.acts);
    core_vec_free(&w.calls);
    core_vec_free(&w.targets);
    free(w.returns);
    free(w.returning);
    core_arena_free(&w.scratch);
}
