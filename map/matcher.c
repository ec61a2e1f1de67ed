/*
 * The template matcher: emit-site templates compiled into PCRE2 patterns.
 *
 * The matcher keeps one entry per emit site with literal text. Its pattern
 * is the template with every literal byte escaped and every hole made a
 * lazy "(?s:.*?)", anchored at both ends. Candidates for a message come
 * from two hash indexes: templates that start with literal text are filed
 * under their first literal bytes, templates that start with a hole under
 * their last (when they end with literal text), each under the longest
 * key of 1, 2, 3, 4, 6, ... 32 bytes that the run allows, so that the many
 * templates sharing an opener ("Retrying ...", "Failed to ...") spread
 * over many keys and a message is tried against a handful of patterns.
 * The rest (holes at both ends) are tried when their longest literal piece
 * occurs in the message, found through an index of its first 4 bytes.
 */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "map_int.h"

#include <ctype.h>
#include <pcre2.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Templates                                                           */
/* ------------------------------------------------------------------ */

typedef struct mt_entry {
    pcre2_code *re;   /* NULL for a call that says nothing (silent) */
    uint32_t emit;    /* the emit site */
    uint32_t tmpl;    /* the emit whose template it is (a constant for REF sites) */
    uint32_t literal; /* literal bytes */
    uint32_t head;    /* literal bytes before the first hole */
    /* Of them, the blanks that only part holes ("%s %s"): a message
     * shows them whether or not the template is its own. */
    uint32_t loose;
    uint8_t level; /* graph_level */
    uint8_t kind;  /* graph_emit_kind */
    bool jit;      /* JIT-compiled (which fails where memory may not be made executable) */
    bool is_const;
    bool full_only; /* starts with a hole and ends with literal text: no partial match */
    bool aside;     /* in a file set aside (map_matcher_opts.aside) */
    /* A format a function returns (a constant without a name): a piece a
     * caller may log whole, or put in its own message, so it explains a
     * message only when no logging site or named constant does. */
    bool returned;
    bool logger_named; /* the site names its logger (not taken from its module) */
    /* The template as written beside one with a helper's literal filled
     * in (GRAPH_EF_FALLBACK): it gives way to other sites (drop_twins). */
    bool twin;
    /* The text of an error made and thrown there (GRAPH_EF_CTOR and
     * GRAPH_EF_THROWN), or a warning's: shown by what catches it. */
    bool caught;
    uint32_t symbol;
    const char *logger; /* site's logger name, or its module's name */
    /* The longest literal piece without a newline, tab or carriage return
     * (for the loose list: a message that matches contains it, whether it
     * escapes those characters or not). */
    const char *anchor;
    uint32_t anchor_len;
    /* For the prefix and suffix indexes: the literal text the key was
     * taken from, as far as it goes without a newline, tab or carriage
     * return (a message that matches starts, or ends, with it). */
    const char *fix;
    uint32_t fix_len;
} mt_entry;

/* Per entry, what a walk of a prefix or suffix key's chain looks at
 * before the entry itself: its fixed text's length and the (up to) 8 bytes
 * of it next to the key (after a prefix key, before a suffix key),
 * zero-padded. The entries of a crowded key ("Retrying ...") mostly differ
 * there, and this array stays in cache where the entries and their texts
 * do not. */
typedef struct fix_peek {
    uint64_t next8;
    uint32_t fix_len;
    uint8_t key; /* the key's length */
} fix_peek;

struct map_matcher {
    const graph *g;
    map_matcher_opts o;
    mt_entry *e;
    fix_peek *peek;
    uint32_t n;
    core_map prefix; /* hash(len, bytes) -> head in chain (+1) */
    core_map suffix;
    /* The loggers of logging sites, for logger_has_sites(): key_hash of
     * a site's logger (bit 1) and of each of its '.'/':' suffixes (bit 2). */
    core_map loggers;
    uint32_t *chain;  /* next entry with the same key, or UINT32_MAX */
    uint32_t *schain; /* the same for suffix keys */
    uint32_t *loose;  /* loose entries with an anchor shorter than 4 bytes */
    uint32_t nloose;
    /* Logging calls handed no argument at all (`log.trace()`): the entries
     * an empty message matches, and no other. */
    uint32_t *silent;
    uint32_t nsilent;
    /* Loose entries by lbits_hash of their anchor's first 4 bytes: the
     * newest in lhead, the others chained in lchain; lbits has a bit per
     * hash that any has, the filter read for every byte of a message. */
    uint32_t *lhead;
    uint32_t *lchain;
    uint64_t *lbits;
    uint32_t nlidx;
    size_t key_max; /* longest prefix key (partial_min bounds it) */
    /* Bit per key hash (masked with kmask) of the prefix and suffix keys:
     * most of a message's key lengths have no entry, and this answers
     * that from cache-resident bits. */
    uint64_t *kbits;
    uint64_t kmask;
    uint64_t first[4]; /* bit per first byte of the prefix index's entries */
    /* The key lengths (bit i: key_lens[i]) the prefix index holds for a
     * message whose first two bytes are these (pair_at), and the suffix
     * index for its last two: a message is hashed at those lengths only,
     * not at every length it allows. A one-byte key counts under every
     * second byte. */
    uint16_t *plens, *slens;
    core_arena arena;
    pcre2_match_context *mctx;
    bool jit;
    /* Log sites without text to match (map_matcher_unseen). */
    struct unseen {
        uint32_t emit;
        uint32_t file; /* of the site's symbol; UINT32_MAX if none */
        uint8_t level;
        /* A candidate call's: the logger is none the code names, but
         * what the call goes through (logger holds its receiver); only
         * map_matcher_unseen_calls answers with it. */
        bool call;
        const char *logger;
        /* What little literal text its template has, as a pattern of the
         * whole message; NULL: none (it renders anything). tight: the
         * same with a value without whitespace in each hole. */
        pcre2_code *re, *tight;
    } * unseen;
    uint32_t nunseen;
};

struct map_match_work {
    pcre2_match_data *md;
    uint32_t *hits;
    uint32_t nhits, cap;
    uint32_t *kept; /* the hits of the best start so far (decorated messages) */
    uint32_t nkept, kcap;
    uint32_t *seen; /* per entry: stamp of the last message it was tried on */
    uint32_t stamp;
    /* Decorated messages: the entries any start may match besides its
     * own prefix keys, found once per message (find_cands). */
    struct dcand {
        uint32_t id;
        uint32_t last; /* the last start it can match from */
        bool suffix;   /* from the suffix index: full matches only */
    } * dc;
    uint32_t ndc, dccap;
    /* The loose index's entries whose anchor the message holds, with
     * where, in the message's order: the same for every find_cands of one
     * message, so looked up once (lh_done). */
    struct lhit {
        uint32_t id, at;
    } * lh;
    uint32_t nlh, lhcap;
    bool lh_done;
    const uint8_t *listed; /* per emit: a candidate whose callee is proven */
};

/* A hole of a template, in its pattern (pat_literal escapes every
 * parenthesis of the text, so this is never a literal's). */
static const char HOLE_RE[] = "(?s:.*?)";
#define HOLE_RE_LEN (sizeof HOLE_RE - 1)

/* One literal byte of a template into the pattern. */
static void pat_literal(core_buf *p, unsigned char c)
{
    if (c == '\n') {
        core_buf_puts(p, "(?:\\n|\\\\n)");
    } else if (c == '\t') {
        core_buf_puts(p, "(?:\\t|\\\\t)");
    } else if (c == '\r') {
        core_buf_puts(p, "(?:\\r|\\\\r)");
    } else if (c == 0) {
        core_buf_puts(p, "\\x00");
    } else if (c < 0x80 && !isalnum(c) && c != ' ') {
        core_buf_putc(p, '\\');
        core_buf_putc(p, (char)c);
    } else {
        core_buf_putc(p, (char)c);
    }
}

/*
 * Parses a stored template: calls back for literal bytes and holes.
 * Literal text is gathered into lit (unescaped), and the first and last
 * literal runs are reported through the out-parameters.
 */
typedef struct tmpl_info {
    core_buf pat;
    core_buf lit;          /* every literal byte, runs separated by NUL */
    size_t first_len;      /* literal bytes before the first hole */
    size_t last_off;       /* offset in lit of the last run */
    size_t last_len;       /* its length, when the template ends with it */
    size_t best_off, best; /* the longest run */
    uint32_t holes;
    uint32_t literal;
    uint32_t loose; /* blank bytes of runs of blanks next to a hole (mt_entry) */
    /* A hole or a brace shown once or twice ("{{") came: the runs after
     * it are not what a message starts with. */
    bool cut;
    bool after_hole; /* the run being gathered follows a hole */
    bool blank_run;  /* and is blanks so far */
} tmpl_info;

/* The literal run being gathered ends (at a hole, or the template's
 * end): the first and longest runs are noted. */
static void run_end(tmpl_info *ti, size_t run_start, bool at_hole)
{
    size_t len = ti->lit.len - run_start;
    if (ti->blank_run && (ti->after_hole || at_hole))
        ti->loose += (uint32_t)len;
    if (!ti->cut)
        ti->first_len = len;
    if (len > ti->best) {
        ti->best = len;
        ti->best_off = run_start;
    }
    core_buf_putc(&ti->lit, '\0');
}

static void tmpl_parse(const char *t, tmpl_info *ti)
{
    core_buf_reset(&ti->pat);
    core_buf_reset(&ti->lit);
    ti->first_len = 0;
    ti->last_off = ti->last_len = ti->best_off = ti->best = 0;
    ti->holes = 0;
    ti->literal = 0;
    ti->loose = 0;
    ti->cut = false;
    ti->after_hole = ti->blank_run = false;
    core_buf_puts(&ti->pat, "\\A");
    size_t run_start = 0;
    bool in_run = false;
    size_t n = strlen(t);
    /* A line written with its end (`stream.write("...\n")`) is read back
     * without it by whatever collects lines: the line end is optional
     * (and no literal the message must show). */
    size_t end = n;
    while (n > 0 && (t[n - 1] == '\n' || t[n - 1] == '\r'))
        n--;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        i += graph_tmpl_step(t, n, i, &pc);
        if (pc.hole) {
            if (in_run) {
                run_end(ti, run_start, true);
                in_run = false;
            }
            ti->cut = true;
            ti->after_hole = true;
            /* Adjacent holes are one hole. */
            if (ti->pat.len < HOLE_RE_LEN ||
                memcmp(ti->pat.data + ti->pat.len - HOLE_RE_LEN, HOLE_RE, HOLE_RE_LEN) != 0)
                core_buf_puts(&ti->pat, HOLE_RE);
            ti->holes++;
            continue;
        }
        if (pc.twice) {
            /* Its own piece: no key or anchor spans a byte a message may
             * show once or twice. */
            if (in_run) {
                run_end(ti, run_start, false);
                in_run = false;
            }
            ti->cut = true;
            ti->after_hole = false;
            pat_literal(&ti->pat, (unsigned char)pc.lit);
            pat_literal(&ti->pat, (unsigned char)pc.lit);
            core_buf_putc(&ti->pat, '?');
            ti->literal++;
            continue;
        }
        pat_literal(&ti->pat, (unsigned char)pc.lit);
        if (!in_run) {
            run_start = ti->lit.len;
            in_run = true;
            ti->blank_run = true;
        }
        if (pc.lit != ' ' && pc.lit != '\t')
            ti->blank_run = false;
        core_buf_putc(&ti->lit, pc.lit);
        ti->literal++;
    }
    if (in_run) {
        ti->last_off = run_start;
        ti->last_len = ti->lit.len - run_start;
        run_end(ti, run_start, false);
    }
    for (size_t i = n; i < end; i++) {
        pat_literal(&ti->pat, (unsigned char)t[i]);
        core_buf_putc(&ti->pat, '?');
    }
    core_buf_puts(&ti->pat, "\\z");
}

/* Key lengths of the prefix and suffix indexes. */
static const uint8_t key_lens[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
#define KEY_MAX 32
#define NKEY_LENS (sizeof key_lens / sizeof key_lens[0])

/* The longest key length <= k (k >= 1). */
static size_t key_fit(size_t k)
{
    size_t i = NKEY_LENS;
    while (i > 1 && key_lens[i - 1] > k)
        i--;
    return key_lens[i - 1];
}

/* Up to 8 bytes of s, zero-padded; and the mask of n bytes of them. */
static inline uint64_t bytes8(const char *s, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, s, n < 8 ? n : 8);
    return v;
}

static inline uint64_t mask8(size_t n)
{
    uint64_t v = 0;
    memset(&v, 0xff, n < 8 ? n : 8);
    return v;
}

/* Whether the n bytes at s may equal those peek holds for a key of length
 * k: false only when they surely differ. */
static inline bool peek_agrees(const fix_peek *p, size_t k, const char *s, size_t n)
{
    return p->key != k || n == 0 || ((bytes8(s, n) ^ p->next8) & mask8(n)) == 0;
}

/* Index of two bytes in plens / slens (a one-byte text: b = 0). */
static inline size_t pair_at(unsigned char a, unsigned char b)
{
    return a | (size_t)b << 8;
}

/* Notes a key of length key_lens[ki] whose outer byte is a (the first
 * for a prefix, the last for a suffix) and next one b. */
static void lens_add(uint16_t *lens, size_t ki, unsigned char a, unsigned char b)
{
    if (key_lens[ki] > 1) {
        lens[pair_at(a, b)] |= (uint16_t)(1u << ki);
        return;
    }
    for (unsigned c = 0; c < 256; c++)
        lens[pair_at(a, (unsigned char)c)] |= (uint16_t)(1u << ki);
}

/* The index of key length k in key_lens. */
static size_t key_index(size_t k)
{
    size_t i = 0;
    while (key_lens[i] != k)
        i++;
    return i;
}

/* Literal bytes usable as an index key: up to max, and never across a
 * newline, tab or carriage return (the log may have escaped them). */
static size_t key_len(const char *s, size_t n, size_t max)
{
    size_t k = 0;
    while (k < n && k < max && s[k] != '\n' && s[k] != '\t' && s[k] != '\r')
        k++;
    return k;
}

/* The same at the end of s[0..n). */
static size_t key_len_back(const char *s, size_t n, size_t max)
{
    size_t k = 0;
    while (k < n && k < max && s[n - 1 - k] != '\n' && s[n - 1 - k] != '\t' && s[n - 1 - k] != '\r')
        k++;
    return k;
}

#define LBITS (1u << 16)

static uint32_t lbits_hash(const char *s)
{
    uint32_t v;
    memcpy(&v, s, 4);
    return (v * 2654435761u) >> 16;
}

static uint64_t key_hash(const char *s, size_t k)
{
    uint64_t h = core_hash64(s, k, 0x6d61746368ull + k);
    return h == UINT64_MAX ? 0 : h;
}

static void index_add(core_map *m, uint32_t *chain, uint64_t key, uint32_t id)
{
    bool ins;
    uint64_t *v = core_map_put(m, key, &ins);
    chain[id] = ins ? UINT32_MAX : (uint32_t)(*v - 1);
    *v = (uint64_t)id + 1;
}

/* Notes a logging site's logger in m->loggers. */
static void logger_note(map_matcher *m, const char *s)
{
    size_t n = strlen(s);
    bool ins;
    *core_map_put(&m->loggers, key_hash(s, n), &ins) |= 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == ':')
            *core_map_put(&m->loggers, key_hash(s + i + 1, n - i - 1), &ins) |= 2;
}

/* Whether some logging site's logger may agree with rec
 * (map__logger_agrees): rec is one, or a suffix of one, or one is a
 * suffix of rec. A hash collision says yes: it only costs a look. */
static bool logger_has_sites(const map_matcher *m, const char *rec)
{
    size_t n = strlen(rec);
    if (core_map_get(&m->loggers, key_hash(rec, n)))
        return true;
    for (size_t i = 0; i < n; i++) {
        if (rec[i] != '.' && rec[i] != ':')
            continue;
        const uint64_t *v = core_map_get(&m->loggers, key_hash(rec + i + 1, n - i - 1));
        if (v && (*v & 1))
            return true;
    }
    return false;
}

/* The logger a site logs through: the one its code names, or else, in
 * Python, its module's (as logging.getLogger(__name__) gives). */
static const char *site_logger(const graph *g, const graph_emit *e)
{
    if (e->logger[0] || e->symbol == GRAPH_NONE)
        return e->logger;
    graph_symbol s, ms;
    graph_file_info f;
    graph_get_symbol(g, e->symbol, &s);
    graph_get_file(g, s.file_id, &f);
    /* Python names loggers after modules (`getLogger(__name__)`); a
     * JavaScript logger's name is the application's or the service's,
     * and that it reads like a file's name says nothing. */
    if (f.lang != GRAPH_LANG_PYTHON)
        return e->logger;
    graph_get_symbol(g, f.module, &ms);
    return ms.qualname;
}

static bool usable(const graph_emit *e)
{
    if (e->style == GRAPH_STYLE_NONE || e->style == GRAPH_STYLE_DYNAMIC)
        return false;
    return true;
}

static bool wrapper_site(const graph *g, const graph_emit *e)
{
    if (e->symbol == GRAPH_NONE)
        return false;
    graph_symbol s;
    graph_get_symbol(g, e->symbol, &s);
    return (s.flags & GRAPH_SF_WRAPPER) != 0;
}

/* Whether a name a message came from is an attribute of an object
 * (`self.fmt`, `this.format`: "@self.fmt"), not a constant of a module or
 * class. */
static bool held_by_object(const char *ref)
{
    return ref && strncmp(ref, "@self.", 6) == 0;
}

/* The site whose template e logs (itself, or the constant it names) in
 * *src and *tid; false when it logs no known text. */
static bool site_text(const graph *g, const graph_emit *e, graph_emit *src, uint32_t *tid)
{
    if (!usable(e))
        return false;
    *src = *e;
    if (e->style == GRAPH_STYLE_REF) {
        if (e->ref_const == GRAPH_NONE)
            return false;
        *tid = e->ref_const;
        graph_get_emit(g, *tid, src);
        if (!usable(src) || src->style == GRAPH_STYLE_REF)
            return false;
    }
    return src->tmpl[0] != '\0';
}

/* The matcher's options with their defaults, its PCRE2 settings and its
 * arrays, sized for ne emit sites. */
static map_matcher *matcher_alloc(const graph *g, const map_matcher_opts *o, uint32_t ne)
{
    map_matcher *m = core_xcalloc(1, sizeof *m);
    m->g = g;
    if (o)
        m->o = *o;
    if (m->o.partial_min == 0)
        m->o.partial_min = 64;
    if (m->o.match_limit == 0)
        m->o.match_limit = 100000;
    core_arena_init(&m->arena, 0);
    uint32_t jit_ok = 0;
    pcre2_config(PCRE2_CONFIG_JIT, &jit_ok);
    m->jit = jit_ok != 0;
    m->mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(m->mctx, m->o.match_limit);
    pcre2_set_depth_limit(m->mctx, m->o.match_limit);

    size_t n1 = ne ? ne : 1;
    m->e = core_xcalloc(n1, sizeof *m->e);
    m->peek = core_xcalloc(n1, sizeof *m->peek);
    m->chain = core_xmalloc(n1 * sizeof *m->chain);
    m->schain = core_xmalloc(n1 * sizeof *m->schain);
    m->loose = core_xmalloc(n1 * sizeof *m->loose);
    m->silent = core_xmalloc(n1 * sizeof *m->silent);
    m->lchain = core_xmalloc(n1 * sizeof *m->lchain);
    m->lbits = core_xcalloc(LBITS / 64, sizeof *m->lbits);
    m->lhead = core_xmalloc(LBITS * sizeof *m->lhead);
    memset(m->lhead, 0xff, LBITS * sizeof *m->lhead);
    /* At least 16 bits per template: few false positives. */
    size_t nk = 1u << 16;
    while (nk < (size_t)ne * 16)
        nk *= 2;
    m->kbits = core_xcalloc(nk / 64, sizeof *m->kbits);
    m->kmask = nk - 1;
    m->plens = core_xcalloc(1u << 16, sizeof *m->plens);
    m->slens = core_xcalloc(1u << 16, sizeof *m->slens);
    /* A message of partial_min bytes, cut short, still holds any key. */
    m->key_max = key_fit(m->o.partial_min < KEY_MAX ? (m->o.partial_min > 4 ? m->o.partial_min : 4)
                                                    : KEY_MAX);
    m->unseen = core_xmalloc(n1 * sizeof *m->unseen);
    return m;
}

/* Whether a site is in a file whose role is set aside. */
static bool site_aside(const map_matcher *m, const graph_emit *e)
{
    if (!m->o.aside || e->symbol == GRAPH_NONE)
        return false;
    graph_symbol sy;
    graph_get_symbol(m->g, e->symbol, &sy);
    graph_file_info fi;
    graph_get_file(m->g, sy.file_id, &fi);
    return (m->o.aside >> fi.role) & 1u;
}

/* map_int.h. The instance's own methods (`self.wait(...)`) are its
 * class's code, which the graph follows; a function of ours that logs
 * (`bus.log(msg)`) places its callers' records at its wrapper sites. */
bool map__through_object(const graph *g, uint32_t id, const char *receiver)
{
    if (!receiver[0] || receiver[0] == '?' || (receiver[0] == '@' && !strchr(receiver, '.')))
        return false;
    uint32_t t = graph_emit_callee(g, id);
    if (t == GRAPH_NONE)
        return true;
    graph_symbol s;
    graph_get_symbol(g, t, &s);
    return !(s.flags & (GRAPH_SF_LOGS | GRAPH_SF_WRAPPER | GRAPH_SF_TAKES_TEXT));
}

/* A site without text to match: a log call (not a wrapper's own, whose
 * callers' sites stand for it, nor one set aside) joins the sites
 * map_matcher_unseen answers from, and a candidate call on a receiver
 * (text made at run time, or next to none: `'  %s'`) those
 * map_matcher_unseen_calls does. ti: its template's parse when it has
 * some literal text, else NULL. */
static void note_unseen(map_matcher *m, uint32_t id, const graph_emit *e, const tmpl_info *ti)
{
    bool span = e->kind == GRAPH_EMIT_SPAN || e->kind == GRAPH_EMIT_EVENT;
    bool call = e->kind == GRAPH_EMIT_CALL && map__through_object(m->g, id, e->receiver);
    if ((e->kind != GRAPH_EMIT_LOG && !span && !call) || wrapper_site(m->g, e) || site_aside(m, e))
        return;
    pcre2_code *re = NULL, *tight = NULL;
    if (ti) {
        int err;
        PCRE2_SIZE off;
        re = pcre2_compile((PCRE2_SPTR)ti->pat.data, ti->pat.len, 0, &err, &off, NULL);
        /* The same pattern with a value without whitespace in each hole. */
        core_buf t = {0};
        for (size_t i = 0; i < ti->pat.len;) {
            if (ti->pat.len - i >= HOLE_RE_LEN &&
                memcmp(ti->pat.data + i, HOLE_RE, HOLE_RE_LEN) == 0) {
                core_buf_puts(&t, "\\S*");
                i += HOLE_RE_LEN;
            } else {
                core_buf_putc(&t, ti->pat.data[i++]);
            }
        }
        tight = pcre2_compile((PCRE2_SPTR)t.data, t.len, 0, &err, &off, NULL);
        core_buf_free(&t);
    }
    uint32_t file = UINT32_MAX;
    if (e->symbol != GRAPH_NONE) {
        graph_symbol sy;
        graph_get_symbol(m->g, e->symbol, &sy);
        file = sy.file_id;
    }
    /* A span's or span event's name built at run time (`f"{method}
     * {route}"`) is at the level its records come with (level_code's
     * codes from 100). */
    uint8_t level = span   ? (uint8_t)(100 + e->kind)
                    : call ? (uint8_t)graph_level_of_method(e->method, strlen(e->method))
                           : (uint8_t)e->level;
    m->unseen[m->nunseen++] = (struct unseen){
        id, file, level, call, call ? e->receiver : site_logger(m->g, e), re, tight};
}

/* The next entry, for site id (its template tid's pattern re): what
 * matching and tie-breaking read of it, and its anchor. */
static void entry_add(map_matcher *m, pcre2_code *re, uint32_t id, uint32_t tid,
                      const graph_emit *e, const tmpl_info *ti)
{
    mt_entry *x = &m->e[m->n++];
    x->jit =
        re && m->jit && pcre2_jit_compile(re, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD) == 0;
    x->re = re;
    x->emit = id;
    x->tmpl = tid;
    x->literal = ti->literal;
    x->loose = ti->loose;
    x->head = (uint32_t)(ti->cut ? ti->first_len : ti->literal);
    x->level = (uint8_t)e->level;
    /* A candidate call's level is its method's, when that is a level
     * word (`diag.error(...)`, `this.log.debug(...)`). */
    if (e->kind == GRAPH_EMIT_CALL && e->level == GRAPH_LEVEL_NONE && e->method)
        x->level = (uint8_t)graph_level_of_method(e->method, strlen(e->method));
    x->kind = (uint8_t)e->kind;
    x->is_const = map__emit_is_const(e);
    x->returned = e->kind == GRAPH_EMIT_CONST && e->name[0] == '\0';
    x->symbol = e->symbol;
    x->aside = site_aside(m, e);
    x->logger = site_logger(m->g, e);
    x->logger_named = e->logger[0] != '\0';
    if (x->kind == GRAPH_EMIT_LOG && !x->is_const && x->logger && x->logger[0])
        logger_note(m, x->logger);
    x->twin = (e->flags & GRAPH_EF_FALLBACK) != 0;
    x->caught = e->kind == GRAPH_EMIT_WARN ||
                (e->flags & (GRAPH_EF_CTOR | GRAPH_EF_THROWN)) == (GRAPH_EF_CTOR | GRAPH_EF_THROWN);
    /* The anchor: the longest piece of lit (runs separated by NUL)
     * between newlines, tabs and carriage returns. */
    size_t a_off = 0, a_len = 0;
    for (size_t i = 0, p = 0; i <= ti->lit.len; i++) {
        char c = i < ti->lit.len ? ti->lit.data[i] : '\0';
        if (c == '\0' || c == '\n' || c == '\t' || c == '\r') {
            if (i - p > a_len) {
                a_off = p;
                a_len = i - p;
            }
            p = i + 1;
        }
    }
    x->anchor = core_arena_strndup(&m->arena, ti->lit.data + a_off, a_len);
    x->anchor_len = (uint32_t)a_len;
}

/* Files entry me under the index a message finds it through: its first
 * literal bytes (the prefix index), else its last (the suffix index),
 * else its anchor (the loose index), else the short loose list. */
static void entry_index(map_matcher *m, uint32_t me, const tmpl_info *ti)
{
    mt_entry *x = &m->e[me];
    size_t k;
    const char *last = ti->lit.data + ti->last_off;
    size_t ks = ti->last_len > 0 ? key_len_back(last, ti->last_len, ti->last_len) : 0;
    if (ti->first_len > 0 && (k = key_len(ti->lit.data, ti->first_len, m->key_max)) > 0) {
        size_t f = key_len(ti->lit.data, ti->first_len, ti->first_len);
        x->fix = core_arena_strndup(&m->arena, ti->lit.data, f);
        x->fix_len = (uint32_t)f;
        k = key_fit(k);
        m->peek[me] = (fix_peek){bytes8(x->fix + k, f - k), (uint32_t)f, (uint8_t)k};
        uint64_t h = key_hash(ti->lit.data, k);
        index_add(&m->prefix, m->chain, h, me);
        m->kbits[(h & m->kmask) / 64] |= 1ull << (h % 64);
        unsigned char c0 = (unsigned char)ti->lit.data[0];
        m->first[c0 / 64] |= 1ull << (c0 % 64);
        lens_add(m->plens, key_index(k), c0, k > 1 ? (unsigned char)ti->lit.data[1] : 0);
    } else if (ks > 0 && (x->anchor_len < 4 || ks >= x->anchor_len)) {
        /* Key on the last bytes, again not across a newline. */
        x->fix = core_arena_strndup(&m->arena, last + ti->last_len - ks, ks);
        x->fix_len = (uint32_t)ks;
        k = key_fit(ks < KEY_MAX ? ks : KEY_MAX);
        size_t t = ks - k < 8 ? ks - k : 8;
        m->peek[me] = (fix_peek){bytes8(x->fix + ks - k - t, t), (uint32_t)ks, (uint8_t)k};
        const char *key = last + ti->last_len - k;
        uint64_t h = key_hash(key, k);
        index_add(&m->suffix, m->schain, h, me);
        m->kbits[(h & m->kmask) / 64] |= 1ull << (h % 64);
        lens_add(m->slens, key_index(k), (unsigned char)key[k - 1],
                 k > 1 ? (unsigned char)key[k - 2] : 0);
    } else if (x->anchor_len >= 4) {
        /* Holes at both ends, or a last run shorter than the anchor
         * ("%s (%s)", "%s done"): on the anchor, the most telling
         * piece. The latter, like the suffix index, never match a
         * message cut short. */
        x->full_only = ks > 0;
        uint32_t b = lbits_hash(x->anchor);
        m->lchain[me] = m->lhead[b];
        m->lhead[b] = me;
        m->lbits[b / 64] |= 1ull << (b % 64);
        m->nlidx++;
    } else {
        m->loose[m->nloose++] = me;
    }
}

/* Where another site renders the message with a template as written, a
 * fallback twin goes: the helper's literal it lacks would be in the
 * message had its site logged it (`blue('Job OK')`). */
static void drop_twins(const map_matcher *m, map_match_work *w)
{
    bool plain = false;
    for (uint32_t i = 0; i < w->nhits && !plain; i++)
        plain = !m->e[w->hits[i]].twin;
    if (!plain)
        return;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++)
        if (!m->e[w->hits[i]].twin)
            w->hits[keep++] = w->hits[i];
    w->nhits = keep;
}

/* A logging call handed nothing (`if (log.trace())`, bunyan's test of
 * its level, which a logger of the same calls writes as a record without
 * a message): the one site an empty message comes from. */
static bool says_nothing(const graph_emit *e)
{
    return e->kind == GRAPH_EMIT_LOG && e->style == GRAPH_STYLE_NONE && !e->tmpl[0] && !e->ref[0] &&
           e->nargs == 0;
}

/* (No pattern: an empty message is the one thing it matches, and
 * match_silent() alone reaches it.) */
static void silent_add(map_matcher *m, uint32_t id, const graph_emit *e, tmpl_info *ti)
{
    tmpl_parse("", ti);
    entry_add(m, NULL, id, id, e, ti);
    m->silent[m->nsilent++] = m->n - 1;
}

int map_matcher_build(const graph *g, const map_matcher_opts *o, map_matcher **out)
{
    uint32_t ne = graph_nemits(g);
    map_matcher *m = matcher_alloc(g, o, ne);
    tmpl_info ti = {0};
    /* A constant a function returns for its callers to log is that
     * function's text (its GRAPH_EF_MEMBER site), not its owner's. */
    uint8_t *returned = core_xcalloc(ne + 1, 1);
    for (uint32_t id = 0; id < ne; id++) {
        graph_emit e;
        graph_get_emit(g, id, &e);
        if (e.kind == GRAPH_EMIT_CONST && (e.flags & GRAPH_EF_MEMBER) && e.ref_const < ne)
            returned[e.ref_const] = 1;
    }
    for (uint32_t id = 0; id < ne; id++) {
        graph_emit e, src;
        graph_get_emit(g, id, &e);
        if (returned[id])
            continue;
        uint32_t tid = id;
        bool some = site_text(g, &e, &src, &tid), text = some;
        if (text) {
            tmpl_parse(src.tmpl, &ti);
            /* Nothing literal, or next to nothing: "%s". A template with
             * a short separator ("%s: %s") is kept: weak, but the only
             * text some messages have (a key and a value, logged through
             * a helper), and ties go to more literal templates. */
            text = !(ti.best < 2 && ti.literal < 3);
        }
        if (!text) {
            note_unseen(m, id, &e, some && ti.literal > 0 ? &ti : NULL);
            if (says_nothing(&e))
                silent_add(m, id, &e, &ti);
            continue;
        }
        /* A format an object holds (`self.access_log_format`, set from
         * its configuration) logs the text found for it, the default, or
         * any other: a site with text, and one without. */
        if (e.style == GRAPH_STYLE_REF && held_by_object(e.ref))
            note_unseen(m, id, &e, NULL);
        int err;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)ti.pat.data, ti.pat.len, 0, &err, &off, NULL);
        if (!re)
            continue; /* cannot happen with escaped literals; be safe */
        entry_add(m, re, id, tid, &e, &ti);
        entry_index(m, m->n - 1, &ti);
    }
    free(returned);
    core_buf_free(&ti.pat);
    core_buf_free(&ti.lit);
    *out = m;
    return 0;
}

void map_matcher_free(map_matcher *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->n; i++)
        pcre2_code_free(m->e[i].re);
    pcre2_match_context_free(m->mctx);
    core_map_free(&m->prefix);
    core_map_free(&m->suffix);
    core_map_free(&m->loggers);
    free(m->e);
    free(m->peek);
    free(m->chain);
    free(m->schain);
    free(m->loose);
    free(m->silent);
    free(m->lchain);
    free(m->lbits);
    free(m->lhead);
    free(m->kbits);
    free(m->plens);
    free(m->slens);
    core_arena_free(&m->arena);
    for (uint32_t i = 0; i < m->nunseen; i++) {
        pcre2_code_free(m->unseen[i].re);
        pcre2_code_free(m->unseen[i].tight);
    }
    free(m->unseen);
    free(m);
}

uint32_t map_matcher_count(const map_matcher *m)
{
    return m->n;
}

/* Bytes of a compiled pattern, its JIT code included. */
static size_t re_bytes(const pcre2_code *re)
{
    size_t size = 0, jit = 0;
    if (!re)
        return 0;
    pcre2_pattern_info(re, PCRE2_INFO_SIZE, &size);
    pcre2_pattern_info(re, PCRE2_INFO_JITSIZE, &jit);
    return size + jit;
}

size_t map_matcher_bytes(const map_matcher *m)
{
    if (!m)
        return 0;
    /* as matcher_alloc sized them */
    size_t ne = graph_nemits(m->g), n1 = ne ? ne : 1, nk = m->kmask + 1;
    size_t b = sizeof *m +
               n1 * (sizeof *m->e + sizeof *m->peek + sizeof *m->chain + sizeof *m->schain +
                     sizeof *m->loose + sizeof *m->silent + sizeof *m->lchain + sizeof *m->unseen) +
               LBITS / 8 + LBITS * sizeof *m->lhead + nk / 8 +
               2 * ((size_t)1 << 16) * sizeof *m->plens + core_map_bytes(&m->prefix) +
               core_map_bytes(&m->suffix) + core_map_bytes(&m->loggers) + m->arena.used;
    for (uint32_t i = 0; i < m->n; i++)
        b += re_bytes(m->e[i].re);
    for (uint32_t i = 0; i < m->nunseen; i++)
        b += re_bytes(m->unseen[i].re) + re_bytes(m->unseen[i].tight);
    return b;
}

map_match_work *map_match_work_new(const map_matcher *m)
{
    map_match_work *w = core_xcalloc(1, sizeof *w);
    w->md = pcre2_match_data_create(1, NULL);
    if (!w->md)
        core_panic("out of memory (pcre2 match data)");
    w->cap = 64;
    w->hits = core_xmalloc(w->cap * sizeof *w->hits);
    w->kcap = 64;
    w->kept = core_xmalloc(w->kcap * sizeof *w->kept);
    w->seen = core_xcalloc(m->n ? m->n : 1, sizeof *w->seen);
    return w;
}

void map_match_work_free(map_match_work *w)
{
    if (!w)
        return;
    pcre2_match_data_free(w->md);
    free(w->hits);
    free(w->kept);
    free(w->seen);
    free(w->dc);
    free(w->lh);
    free(w);
}

void map_match_work_listed(map_match_work *w, const uint8_t *listed)
{
    w->listed = listed;
}

/* 1: full match, 2: partial (message cut short), 0: none. */
static int try_entry(const map_matcher *m, map_match_work *w, uint32_t id, const char *msg,
                     size_t len, bool partial)
{
    if (w->seen[id] == w->stamp)
        return 0;
    w->seen[id] = w->stamp;
    const mt_entry *x = &m->e[id];
    uint32_t opt = partial ? PCRE2_PARTIAL_HARD : 0;
    int rc = x->jit ? pcre2_jit_match(x->re, (PCRE2_SPTR)msg, len, 0, opt, w->md, m->mctx)
                    : pcre2_match(x->re, (PCRE2_SPTR)msg, len, 0, opt, w->md, m->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_PARTIAL)
        return 2;
    return 0;
}

static void add_hit(map_match_work *w, uint32_t id)
{
    if (w->nhits == w->cap) {
        w->cap *= 2;
        w->hits = core_xrealloc(w->hits, w->cap * sizeof *w->hits);
    }
    w->hits[w->nhits++] = id;
}

/* The literal text a hit shows: all of its template's, or, when the
 * message was cut short, only what comes before the first hole (what
 * surely matched). */
static uint32_t hit_literal(const mt_entry *x, bool partial)
{
    return partial ? x->head : x->literal;
}

/* Decoration starts want logging sites with at least need literal bytes
 * (0: every entry); with listed, sites of a logging shape the extractors
 * know, not mere candidate calls. */
static bool decor_fits(const mt_entry *x, bool partial, uint32_t need, bool listed)
{
    return need == 0 || (!x->is_const && hit_literal(x, partial) >= need &&
                         !(listed && x->kind == GRAPH_EMIT_CALL));
}

static void collect_prefix(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                           bool partial, uint32_t need, bool listed)
{
    /* Every key length the message allows, and the key bytes must not
     * cross an escaped newline either ("\\n" in the message). */
    size_t kmax = key_len(msg, len, m->key_max);
    for (size_t i = 0; i + 1 < kmax; i++)
        if (msg[i] == '\\' && (msg[i + 1] == 'n' || msg[i + 1] == 't' || msg[i + 1] == 'r')) {
            kmax = i;
            break;
        }
    if (kmax == 0)
        return;
    unsigned lens = m->plens[pair_at((unsigned char)msg[0], kmax > 1 ? (unsigned char)msg[1] : 0)];
    for (size_t ki = NKEY_LENS; ki-- > 0;) {
        size_t k = key_lens[ki];
        if (k > kmax || !(lens & (1u << ki)))
            continue;
        uint64_t h = key_hash(msg, k);
        if (!(m->kbits[(h & m->kmask) / 64] & (1ull << (h % 64))))
            continue;
        uint64_t *v = core_map_get(&m->prefix, h);
        for (uint32_t id = v ? (uint32_t)(*v - 1) : UINT32_MAX; id != UINT32_MAX;
             id = m->chain[id]) {
            /* The message starts with the head (or, cut short, with part
             * of it), or the pattern need not be run. */
            const fix_peek *q = &m->peek[id];
            size_t c = q->fix_len <= len ? q->fix_len : partial ? len : 0;
            if ((c < q->fix_len && !partial) || (c > k && !peek_agrees(q, k, msg + k, c - k)))
                continue;
            const mt_entry *x = &m->e[id];
            if (memcmp(msg, x->fix, c) != 0 || !decor_fits(x, partial, need, listed))
                continue;
            if (try_entry(m, w, id, msg, len, partial) == (partial ? 2 : 1))
                add_hit(w, id);
        }
    }
}

/* Record level -> graph_level; "SPAN"/"EVENT" -> 100 + emit kind. */
static int level_code(const char *s)
{
    static const struct {
        char name[8]; /* zero-padded; "critical" fills it */
        int code;
    } t[] = {
        {"trace", GRAPH_LEVEL_TRACE},       {"silly", GRAPH_LEVEL_TRACE},
        {"verbose", GRAPH_LEVEL_DEBUG},     {"debug", GRAPH_LEVEL_DEBUG},
        {"info", GRAPH_LEVEL_INFO},         {"notice", GRAPH_LEVEL_NOTICE},
        {"warn", GRAPH_LEVEL_WARNING},      {"warning", GRAPH_LEVEL_WARNING},
        {"error", GRAPH_LEVEL_ERROR},       {"err", GRAPH_LEVEL_ERROR},
        {"critical", GRAPH_LEVEL_CRITICAL}, {"fatal", GRAPH_LEVEL_CRITICAL},
        {"span", 100 + GRAPH_EMIT_SPAN},    {"event", 100 + GRAPH_EMIT_EVENT},
    };
    /* Lowered once (ASCII, as strcasecmp in the C locale) into 8 bytes,
     * zero-padded as the names are, then compared as integers: every
     * record has a level, so this runs once per message. */
    char low[8] = {0};
    size_t n = s ? strnlen(s, sizeof low + 1) : 0;
    if (n == 0 || n > sizeof low)
        return -1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + ('a' - 'A') : s[i]);
    uint64_t k, name;
    memcpy(&k, low, sizeof k);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        memcpy(&name, t[i].name, sizeof name);
        if (k == name)
            return t[i].code;
    }
    return -1;
}

bool map__logger_agrees(const char *site, const char *rec)
{
    if (!site[0])
        return false;
    if (strcmp(site, rec) == 0)
        return true;
    /* "botocore.hooks" vs a module "hooks" indexed from inside the
     * package: equal on a '.' or ':' boundary suffix. */
    size_t a = strlen(site), b = strlen(rec);
    if (a < b && (rec[b - a - 1] == '.' || rec[b - a - 1] == ':') && strcmp(rec + b - a, site) == 0)
        return true;
    if (b < a && (site[a - b - 1] == '.' || site[a - b - 1] == ':') &&
        strcmp(site + a - b, rec) == 0)
        return true;
    return false;
}

/* The length of site when it names an ancestor of logger rec in Python's
 * dotted hierarchy (rec begins with site and a '.'), else 0. */
static size_t ancestor_len(const char *site, const char *rec)
{
    size_t a = strlen(site);
    return a && strncmp(site, rec, a) == 0 && rec[a] == '.' ? a : 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void new_stamp(const map_matcher *m, map_match_work *w)
{
    if (++w->stamp == 0) {
        memset(w->seen, 0, (m->n ? m->n : 1) * sizeof *w->seen);
        w->stamp = 1;
    }
}

static uint32_t hits_literal(const map_matcher *m, const map_match_work *w, bool partial,
                             bool sites_only);

/* The hits of msg in w->hits, whole or, when it is long enough and the
 * whole matches nothing that covers half of it, cut short (a message cut
 * at a length limit): the way with the most literal text. True if that
 * was cut short. */
static void dc_add(map_match_work *w, uint32_t id, size_t last, bool suffix)
{
    if (w->ndc == w->dccap) {
        w->dccap = w->dccap ? 2 * w->dccap : 64;
        w->dc = core_xrealloc(w->dc, w->dccap * sizeof *w->dc);
    }
    w->dc[w->ndc++] = (struct dcand){id, (uint32_t)last, suffix};
}

/*
 * The entries the suffix index (with suffix) and the loose anchors point
 * to, each with the last start it can match from. The whole message uses
 * them as they are; every decoration start of it ends where it ends and
 * sees the same anchors, so one lookup (sites_only: starts want logging
 * sites; want_last: the last place of an anchor) serves them all.
 */
static void loose_hits(const map_matcher *m, map_match_work *w, const char *msg, size_t len)
{
    w->nlh = 0;
    w->lh_done = true;
    if (m->nlidx == 0)
        return;
    const uint64_t *bits = m->lbits;
    for (size_t i = 0; i + 4 <= len; i++) {
        uint32_t b = lbits_hash(msg + i);
        if (!(bits[b / 64] & (1ull << (b % 64))))
            continue;
        for (uint32_t id = m->lhead[b]; id != UINT32_MAX; id = m->lchain[id]) {
            const mt_entry *x = &m->e[id];
            if (x->anchor_len > len - i || memcmp(msg + i, x->anchor, x->anchor_len) != 0)
                continue;
            if (w->nlh == w->lhcap) {
                w->lhcap = w->lhcap ? 2 * w->lhcap : 64;
                w->lh = core_xrealloc(w->lh, w->lhcap * sizeof *w->lh);
            }
            w->lh[w->nlh++] = (struct lhit){id, (uint32_t)i};
        }
    }
}

static void find_cands(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                       bool suffix, bool sites_only, bool want_last)
{
    w->ndc = 0;
    size_t smax = suffix ? key_len_back(msg, len, KEY_MAX) : 0;
    unsigned lens = smax == 0 ? 0
                              : m->slens[pair_at((unsigned char)msg[len - 1],
                                                 smax > 1 ? (unsigned char)msg[len - 2] : 0)];
    for (size_t ki = NKEY_LENS; ki-- > 0 && suffix;) {
        size_t k = key_lens[ki];
        if (k > smax || !(lens & (1u << ki)) ||
            (k >= 2 && msg[len - k] == '\\' &&
             (msg[len - k + 1] == 'n' || msg[len - k + 1] == 't')))
            continue;
        uint64_t h = key_hash(msg + len - k, k);
        if (!(m->kbits[(h & m->kmask) / 64] & (1ull << (h % 64))))
            continue;
        uint64_t *v = core_map_get(&m->suffix, h);
        for (uint32_t id = v ? (uint32_t)(*v - 1) : UINT32_MAX; id != UINT32_MAX;
             id = m->schain[id]) {
            const fix_peek *q = &m->peek[id];
            size_t t = q->fix_len - k < 8 ? q->fix_len - k : 8;
            if (q->fix_len > len || (q->fix_len > k && !peek_agrees(q, k, msg + len - k - t, t)))
                continue;
            const mt_entry *x = &m->e[id];
            if (!(sites_only && x->is_const) &&
                memcmp(msg + len - x->fix_len, x->fix, x->fix_len) == 0)
                dc_add(w, id, len - x->fix_len, true);
        }
    }
    if (!w->lh_done)
        loose_hits(m, w, msg, len);
    for (uint32_t i = 0; i < w->nlh; i++)
        if (!(sites_only && m->e[w->lh[i].id].is_const))
            dc_add(w, w->lh[i].id, w->lh[i].at, false);
    for (uint32_t i = 0; i < m->nloose; i++) {
        const mt_entry *x = &m->e[m->loose[i]];
        if (sites_only && x->is_const)
            continue;
        size_t last = len;
        if (x->anchor_len) {
            const char *at = memmem(msg, len, x->anchor, x->anchor_len);
            if (!at)
                continue;
            for (const char *nx; want_last && (nx = memmem(at + 1, len - (size_t)(at + 1 - msg),
                                                           x->anchor, x->anchor_len)) != NULL;)
                at = nx;
            last = (size_t)(at - msg);
        }
        dc_add(w, m->loose[i], last, false);
    }
}

/* Tries what find_cands found from start k (with need and listed as
 * decor_fits takes them). */
static void try_cands(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                      size_t k, bool partial, uint32_t need, bool listed)
{
    for (uint32_t i = 0; i < w->ndc; i++) {
        const struct dcand *d = &w->dc[i];
        const mt_entry *x = &m->e[d->id];
        if (d->last < k || (partial && (d->suffix || x->full_only)) ||
            !decor_fits(x, partial, need, listed))
            continue;
        if (try_entry(m, w, d->id, msg + k, len - k, partial) == (partial ? 2 : 1))
            add_hit(w, d->id);
    }
}

/* The entries matching msg + k. The whole message (k = 0) tries every
 * entry its keys and anchors point to; a decoration start wants only
 * logging sites with need literal bytes: its own prefix keys, and what
 * find_cands found once for the whole message. */
/* Of the hits from n0 on, those in files set aside go when any other is
 * there. */
static void drop_aside(const map_matcher *m, map_match_work *w, uint32_t n0)
{
    bool other = false;
    for (uint32_t i = n0; i < w->nhits && !other; i++)
        other = !m->e[w->hits[i]].aside;
    if (!other)
        return;
    uint32_t k = n0;
    for (uint32_t i = n0; i < w->nhits; i++)
        if (!m->e[w->hits[i]].aside)
            w->hits[k++] = w->hits[i];
    w->nhits = k;
}

static void collect_at(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                       size_t k, bool partial, uint32_t need, bool listed)
{
    uint32_t n0 = w->nhits;
    if (k == 0) {
        collect_prefix(m, w, msg, len, partial, 0, false);
        find_cands(m, w, msg, len, !partial, false, false);
        try_cands(m, w, msg, len, 0, partial, 0, false);
    } else {
        /* Most starts begin with a byte no template's head does. */
        unsigned char c0 = (unsigned char)msg[k];
        if (m->first[c0 / 64] & (1ull << (c0 % 64)))
            collect_prefix(m, w, msg + k, len - k, partial, need, listed);
        try_cands(m, w, msg, len, k, partial, need, listed);
    }
    if (m->o.aside)
        drop_aside(m, w, n0);
}

/* The hits of msg from start k, whole or, when that shows little and the
 * message may have been cut short, as a prefix of a rendering; returns
 * whether they are of the cut-short kind. */
static bool hits_of(const map_matcher *m, map_match_work *w, const char *msg, size_t len, size_t k,
                    uint32_t need, bool listed)
{
    w->nhits = 0;
    new_stamp(m, w);
    collect_at(m, w, msg, len, k, false, need, listed);
    size_t rest = len - k;
    if (rest < m->o.partial_min)
        return false;
    uint32_t full = w->nhits ? hits_literal(m, w, false, false) : 0;
    if (2 * (size_t)full >= rest)
        return false;
    uint32_t n = w->nhits;
    new_stamp(m, w);
    collect_at(m, w, msg, len, k, true, need, listed);
    uint32_t part = 0;
    /* The partial hits follow the full ones: compare the two groups. */
    for (uint32_t i = n; i < w->nhits; i++) {
        uint32_t l = m->e[w->hits[i]].head;
        if (l > part)
            part = l;
    }
    if (part <= full) {
        w->nhits = n;
        return false;
    }
    memmove(w->hits, w->hits + n, (w->nhits - n) * sizeof *w->hits);
    w->nhits -= n;
    return true;
}

/* The most literal text among the hits; with sites_only, among those
 * that are logging sites rather than bare constants. */
static uint32_t hits_literal(const map_matcher *m, const map_match_work *w, bool partial,
                             bool sites_only)
{
    uint32_t best = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        if (sites_only && m->e[w->hits[i]].is_const)
            continue;
        uint32_t l = hit_literal(&m->e[w->hits[i]], partial);
        if (l > best)
            best = l;
    }
    return best;
}

/*
 * Decorations. A logging function may put text of its own before what
 * its caller's literal renders: a level ("BASIC:"), a context
 * ("[conn=3, chan=1] "), a component's name. When the message as a whole
 * matches nothing, or only a template that covers little of it, the match
 * is tried again after each separator in its first DECOR_MAX bytes: the
 * start whose logging sites have the most literal text wins, if that is
 * at least 8 bytes and more than twice what the whole message matched.
 * Bare constants do not count there: a short constant ("ssh-rsa") found
 * at the tail of a message explains nothing about what came before it.
 */
#define DECOR_MAX 96

/* Whether a decoration may end before msg[k]: after a separator, but not
 * one that joins a token's words (`ecdsa-sha2-nistp256`, `v1.2`,
 * `lib/x`): a logging function puts a blank, a bracket or a colon after
 * what it adds, and a literal found inside a token says nothing of the
 * text before it. */
static bool decoration_ends(const char *msg, size_t len, size_t k)
{
    if (k == 0)
        return true;
    unsigned char c = (unsigned char)msg[k - 1];
    if (is_word(c))
        return false;
    return !((c == '-' || c == '.' || c == '/') && k >= 2 && k < len &&
             is_word((unsigned char)msg[k - 2]) && is_word((unsigned char)msg[k]));
}

/*
 * A call passing a literal to a function whose own logging call renders
 * the whole message too (`with timed(log, f"label purchase from {c}")`
 * into `log.log(level, "%s took %.0f ms", operation, ms)`): the literal
 * is an argument of that function's template, and the logging call is
 * where the event comes from. The call's hit goes.
 */
static void drop_calls_into(const map_matcher *m, map_match_work *w)
{
    bool calls = false, sites = false;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        calls |= x->kind == GRAPH_EMIT_CALL;
        sites |= x->kind != GRAPH_EMIT_CALL && !x->is_const;
    }
    if (!calls || !sites)
        return;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        bool into = false;
        if (x->kind == GRAPH_EMIT_CALL) {
            uint32_t f = graph_emit_callee(m->g, x->emit);
            for (uint32_t j = 0; j < w->nhits && f != GRAPH_NONE && !into; j++) {
                const mt_entry *y = &m->e[w->hits[j]];
                if (y->kind == GRAPH_EMIT_CALL || y->is_const)
                    continue;
                graph_emit e;
                graph_get_emit(m->g, y->emit, &e);
                into = e.symbol == f;
            }
        }
        if (!into)
            w->hits[keep++] = w->hits[i];
    }
    w->nhits = keep;
}

/*
 * Data a logger printed as it is (`log.debug("%s %s", direction, line)`
 * over a wire transcript, SQL text, a row) holds literals the code passes
 * elsewhere: a header value handed to a client library, a statement
 * handed to a driver. When a message's only hits are such calls (out of
 * the repository, so nothing of ours logs what they take), they explain
 * only part of it, and the record's logger has sites at its level whose
 * templates are nothing but placeholders, the calls are no evidence: the
 * logger's data sites are where it came from, and the logger and
 * position strategies place it.
 */
static bool data_of_logger(const map_matcher *m, const map_match_work *w, const char *logger,
                           int lc)
{
    if (!logger || !logger[0] || lc < 0 || lc >= 100)
        return false;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->kind != GRAPH_EMIT_CALL || (w->listed && w->listed[x->emit]) ||
            graph_emit_callee(m->g, x->emit) != GRAPH_NONE)
            return false;
    }
    for (uint32_t i = 0; i < m->nunseen; i++)
        if (!m->unseen[i].call && m->unseen[i].level == lc &&
            map__logger_agrees(m->unseen[i].logger, logger))
            return true;
    return false;
}

static size_t level_word_end(const char *msg, size_t lim);

/* Whether site x's literal text is a level's name and nothing but blanks
 * and punctuation around it ("ERROR: %s", "[warn] %s"): what a formatter
 * writes before any message. All of it is then its anchor. */
static bool level_only(const mt_entry *x)
{
    const char *a = x->anchor;
    size_t n = x->anchor_len, end = a && n == x->literal ? level_word_end(a, n) : SIZE_MAX;
    if (end == SIZE_MAX)
        return false;
    size_t start = end;
    while (start > 0 && isalpha((unsigned char)a[start - 1]))
        start--;
    for (size_t i = 0; i < n; i++)
        if ((i < start || i >= end) && isalnum((unsigned char)a[i]))
            return false;
    return true;
}

/*
 * A print writes no logger's record: a record of a logger the code logs
 * to, whose only hits are prints that say nothing but a level's name
 * (`sys.stderr.write(f"ERROR: {exc}")` over a line a child process
 * printed, `ERROR: No matching distribution ...`, which a site of that
 * logger relayed), is not theirs.
 */
static bool relayed_not_printed(const map_matcher *m, const map_match_work *w, const char *logger)
{
    if (!logger || !logger[0] || w->nhits == 0)
        return false;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->kind != GRAPH_EMIT_PRINT || !level_only(x))
            return false;
    }
    if (logger_has_sites(m, logger))
        return true;
    for (uint32_t i = 0; i < m->nunseen; i++)
        if (!m->unseen[i].call && map__logger_agrees(m->unseen[i].logger, logger))
            return true;
    return false;
}

/* Copies n ids into *dst (growing it to *cap), as the hits of the best
 * start found so far, or back. */
static void copy_ids(uint32_t **dst, uint32_t *cap, const uint32_t *src, uint32_t n)
{
    if (n > *cap) {
        *cap = n;
        *dst = core_xrealloc(*dst, *cap * sizeof **dst);
    }
    memcpy(*dst, src, n * sizeof *src);
}

/* The flags (GRAPH_SF_*) of the function a call site calls, 0 when the
 * call is not resolved to one of ours. */
static uint32_t callee_flags(const map_matcher *m, uint32_t emit)
{
    uint32_t f = graph_emit_callee(m->g, emit);
    if (f == GRAPH_NONE)
        return 0;
    graph_symbol s;
    graph_get_symbol(m->g, f, &s);
    return s.flags;
}

/* Whether entry x logs: a logging site, a call that names a level
 * (`debug(...)`), is listed, or reaches a function of ours that logs or
 * takes text. A literal handed to `list.unshift` or `Buffer.from` is none. */
static bool loud_entry(const map_matcher *m, const map_match_work *w, const mt_entry *x)
{
    const uint32_t logs = GRAPH_SF_LOGS | GRAPH_SF_WRAPPER | GRAPH_SF_TAKES_TEXT;
    return x->kind != GRAPH_EMIT_CALL || x->level != GRAPH_LEVEL_NONE ||
           (w->listed && w->listed[x->emit]) || (callee_flags(m, x->emit) & logs);
}

/* Whether any hit logs (loud_entry). */
static bool any_loud(const map_matcher *m, const map_match_work *w)
{
    for (uint32_t i = 0; i < w->nhits; i++)
        if (loud_entry(m, w, &m->e[w->hits[i]]))
            return true;
    return false;
}

/* Whether every hit is a quiet call's bare token: one literal, no hole
 * and no blank (`"application/octet-stream"` handed to a header table's
 * `setdefault`). A decorated message whose rest is such a token shows a
 * value, as a field of its line (`... type=application/octet-stream`); it
 * says nothing of where the line was made. */
static bool only_quiet_tokens(const map_matcher *m, const map_match_work *w, bool loud)
{
    if (w->nhits == 0 || loud)
        return false;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->head != x->literal || x->anchor_len != x->literal ||
            memchr(x->anchor, ' ', x->anchor_len))
            return false;
    }
    return true;
}

/*
 * A literal a call hands to a function of ours that logs nothing (a string
 * built for the wire, an exception's text) is where such text is made, not
 * where a record comes from. When a logging site of the record's own
 * logger, at its level, with literal text of its own, also renders the
 * message, that site is the evidence, however much more literal text the
 * call holds: `"%s %s HTTP/1.1" % (method, path)` handed to an encoder
 * renders `> POST / HTTP/1.1` better than `"> %s"` does, but only the
 * latter logs it. own_site_among() tells whether such a site is among the
 * hits; drop_quiet_calls() drops those calls.
 */
static bool own_site_among(const map_matcher *m, const map_match_work *w, const char *logger,
                           int lc)
{
    if (!logger || !logger[0])
        return false;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->kind == GRAPH_EMIT_LOG && !x->is_const && x->literal > 0 &&
            (lc < 0 || x->level == lc) && map__logger_agrees(x->logger, logger))
            return true;
    }
    return false;
}

static void drop_quiet_calls(const map_matcher *m, map_match_work *w)
{
    const uint32_t logs = GRAPH_SF_LOGS | GRAPH_SF_WRAPPER | GRAPH_SF_TAKES_TEXT;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        bool quiet = false;
        /* (A call of a function the code does not have, `fetch(url)`,
         * writes no record of a logger of ours either.) */
        if (x->kind == GRAPH_EMIT_CALL && !(w->listed && w->listed[x->emit]))
            quiet = graph_emit_callee(m->g, x->emit) == GRAPH_NONE ||
                    !(callee_flags(m, x->emit) & logs);
        if (!quiet)
            w->hits[keep++] = w->hits[i];
    }
    w->nhits = keep;
}

/* Drops the hits of one kind of site. */
static void drop_kind(const map_matcher *m, map_match_work *w, uint8_t kind)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++)
        if (m->e[w->hits[i]].kind != kind)
            w->hits[keep++] = w->hits[i];
    w->nhits = keep;
}

/* The least a literal that is the whole rest of a decorated message
 * must be: shorter ones ("OK", "ok") are said by too much code. */
#define EXACT_MIN 4

/*
 * Of the hits, those whose literal is all of a rest of rest bytes and
 * that log it: a logging site, or a call handing it to a function of ours
 * that logs the text it is given. A short literal handed anywhere else
 * ("none" compared or packed, "ssh-rsa" written to the wire) is no
 * message, whatever it ends.
 */
static void keep_logged_whole(const map_matcher *m, map_match_work *w, uint32_t rest)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        bool logs = x->kind == GRAPH_EMIT_LOG ? !x->is_const
                    : x->kind == GRAPH_EMIT_CALL
                        ? (callee_flags(m, x->emit) & GRAPH_SF_TAKES_TEXT) != 0
                        : false;
        if (x->literal == rest && logs)
            w->hits[keep++] = w->hits[i];
    }
    w->nhits = keep;
}

/* Whether t[0..n) (trailing spaces aside) is a tag's text: one token
 * framed by signs that are not letters or digits, one of them its last
 * (`[QUERY]: `, `-> `); not a word and its colon (`version: ` labels a
 * value). */
static bool tag_text(const char *t, size_t n)
{
    while (n > 0 && t[n - 1] == ' ')
        n--;
    if (n == 0 || is_word((unsigned char)t[n - 1]))
        return false;
    uint32_t signs = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == ' ')
            return false;
        signs += !is_word((unsigned char)t[i]);
    }
    return signs >= 2;
}

/* Whether entry x is a tag and a hole: a call building text (not a
 * logging call, not a proven logging function's) whose literal text is
 * all a tag before its first hole. */
static bool tag_entry(const map_match_work *w, const mt_entry *x)
{
    return x->kind == GRAPH_EMIT_CALL && !(w->listed && w->listed[x->emit]) && x->literal &&
           x->head == x->literal && x->anchor_len == x->literal &&
           tag_text(x->anchor, x->anchor_len);
}

/* The tag the hits all are, msg's first bytes: the literal text each
 * puts before its first hole, when that is all the literal text each has,
 * as long in all of them, and one token framed by signs that are not
 * letters or digits, one of them its last (`[QUERY]: %s`, `-> %s`), in
 * calls that build text, not logging calls; else 0. Words before a value
 * are prose that names it (`setting transport %s`, `Handshake: KEX
 * algorithm: %s`), and so is a word and its colon (`version: %s`). */
static size_t decoration_of(const map_matcher *m, const map_match_work *w, size_t len)
{
    uint32_t head = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (!tag_entry(w, x) || (head && x->head != head))
            return 0;
        head = x->head;
    }
    /* (msg begins with the tag: every hit matched it whole.) */
    return head <= len ? head : 0;
}

/* Whether a logging or printing site that is no error's own text is
 * among the hits (as drop_caught_heads() looks for one). */
static bool catcher_among(const map_matcher *m, const map_match_work *w)
{
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if ((x->kind == GRAPH_EMIT_LOG || x->kind == GRAPH_EMIT_PRINT) && !x->is_const &&
            !x->caught && !(m->o.aside && x->aside) && x->literal >= 3)
            return true;
    }
    return false;
}

/* Drops the whole hits that are an error's or a warning's text opening
 * with a hole, beside a logging site's that renders the whole message
 * too: that hole took the site's own words (`run %s aborted: %s` logging
 * `(e as Error).message`, "B3: transmittance 1.5 out of (0, 1]" made by
 * `${id}: transmittance ...`), and the site, which catches the error,
 * logged it. Returns whether any was dropped. */
static bool drop_caught_heads(const map_matcher *m, map_match_work *w)
{
    if (!catcher_among(m, w))
        return false;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (!(x->caught && x->head == 0 && x->literal > 0))
            w->hits[keep++] = w->hits[i];
    }
    bool dropped = keep < w->nhits;
    w->nhits = keep;
    return dropped;
}

/* Drops the hits that are warnings (`warnings.warn(...)`). A warning's
 * text inside a message a logging site renders whole was re-logged by
 * that site (`log.warning("job %s: %s", job, w.message)` over what
 * `catch_warnings(record=True)` caught), as an error's text is by its
 * catcher: the runtime shows a warning of its own with its file, line
 * and category, which no logging site's template renders. */
static void drop_warnings(const map_matcher *m, map_match_work *w)
{
    drop_kind(m, w, GRAPH_EMIT_WARN);
}

/*
 * A message the whole of which matched little: the starts after a
 * separator in its first DECOR_MAX bytes are tried as the caller's text
 * after a decoration the logging function put before it. The start whose
 * hits have the most literal bytes wins, when that is at least 8 and more
 * than bar (twice what the whole message matched); w->hits then holds its
 * hits. A shorter rest wins too when a literal that is logged is all of
 * it, hole for hole nothing, at least EXACT_MIN bytes and bar: a command
 * a client hands its logging send function ("C: QUIT", the "C: " its
 * logger's) is said whole by that literal, where "%s: %s" says only its
 * separator. When a site of the record's own logger renders the whole
 * message (whole_own), a rest only quiet calls render is no start
 * (own_site_among()): `"< %s"` logs `< HTTP/1.1 200 OK`, a status line
 * handed to an encoder does not. No start wins by code set aside (tests):
 * a test's literal inside a decorated message is no evidence that it was
 * logged there.
 * Where the whole message matched only a tag (decor: the length of the
 * literal text its templates, none a logging site's, put before their
 * holes, all of it), the start right after it owes the whole match
 * nothing: `[QUERY]: %s`, a piece a file logger builds its lines of,
 * says what it writes before whatever it is handed, and a literal logged
 * whole that is the rest ("COMMIT") says what it was handed; the bars
 * apply to the other starts. Where the whole match is no evidence
 * (weak: calls building text, covering little of it), a literal that a
 * logging site or a proven call logs and that is all of a short rest
 * owes it nothing either.
 * Returns the start (0: the whole message), and updates *best and
 * *partial to the winner's.
 */
/* The least literal text a start after a decoration naming a level must
 * show, rendered whole from there. */
#define LEVELED_MIN 5

/* Where the first word of msg[0, lim) that is a level's name ends (`DEBUG
 * sync: `, `2026-12-06 10:00:01 [warn] `); SIZE_MAX when none is. A
 * decoration that holds one is a formatter's, so what follows it is a
 * message however short. */
static size_t level_word_end(const char *msg, size_t lim)
{
    for (size_t i = 0; i < lim;) {
        if (!isalpha((unsigned char)msg[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < lim && isalpha((unsigned char)msg[j]))
            j++;
        char word[9];
        if (j - i >= 3 && j - i < sizeof word && (j == lim || !isalnum((unsigned char)msg[j]))) {
            memcpy(word, msg + i, j - i);
            word[j - i] = 0;
            int c = level_code(word);
            if (c >= 0 && c < 100)
                return j;
        }
        i = j;
    }
    return SIZE_MAX;
}

/* Whether the hits at a start are a site of the record's own logger at
 * its level rendering the whole rest with at least LEVELED_MIN literal
 * bytes, and as many as the whole message matched (have), which no site
 * of that logger renders (whole_own): then the rest is
 * that site's message whatever decoration came before it, however short
 * (`%(threadName)s: %(message)s` over `wrote %s`, where the whole
 * `thumb_0: wrote beach_320.webp` fits a returned `"%s_%d.webp"`). */
static bool own_rest(const map_matcher *m, map_match_work *w, const char *msg, size_t len, size_t k,
                     const char *logger, int lc, uint32_t have, uint32_t *lit)
{
    uint32_t need = have > LEVELED_MIN ? have : LEVELED_MIN;
    if (need > len - k || hits_of(m, w, msg, len, k, need, true))
        return false;
    if (m->o.aside && w->nhits && m->e[w->hits[0]].aside)
        return false;
    drop_warnings(m, w);
    if (!own_site_among(m, w, logger, lc))
        return false;
    *lit = hits_literal(m, w, false, true);
    return *lit >= need;
}

static size_t best_start(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                         const char *logger, int lc, bool whole_listed, bool whole_own,
                         size_t decor, bool weak, uint32_t *best, bool *partial)
{
    uint32_t bar = 2 * *best;
    size_t skip = 0;
    copy_ids(&w->kept, &w->kcap, w->hits, w->nhits);
    w->nkept = w->nhits;
    bool kept_partial = *partial;
    bool kept_loud = false; /* a start won with a hit that logs */
    /* Whole hits that are all an error's text opening with a hole (as
     * drop_caught_heads() sees them) took whatever a decoration put
     * before the message too: a logging site rendering the rest whole
     * after the decoration is the error's catcher (`%(threadName)s:
     * render of %s failed: %s` over a raise's `{src}: width {w} beyond
     * ...`), however little literal text it has. */
    bool heads = w->nhits > 0 && !*partial;
    for (uint32_t i = 0; i < w->nhits && heads; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        heads = x->caught && x->head == 0;
    }
    size_t lim = len > 4 ? len - 4 : 0;
    if (lim > DECOR_MAX)
        lim = DECOR_MAX;
    size_t lv_end = SIZE_MAX - 1; /* not looked for yet */
    /* (Asked only when a site of the record's logger may render a rest.) */
    bool own_ok = logger && logger[0] && !whole_own && !heads && logger_has_sites(m, logger);
    if (lim > 0)
        find_cands(m, w, msg, len, true, true, true);
    for (size_t k = 1; k <= lim; k++) {
        /* A boundary: after a separator (a template may start with
         * blanks or punctuation of its own). */
        if (!decoration_ends(msg, len, k))
            continue;
        /* What a start must show; past where the rest is too short
         * to hold it, no start can (but the decoration's end). */
        bool after_decor = (k == decor || heads) && skip == 0;
        uint32_t have = after_decor ? 0 : *best, must = after_decor ? 0 : bar;
        uint32_t need = (have > must ? have : must) + 1;
        uint32_t floor = 8;
        if (need < floor) {
            /* (Looked for once, and only where the floor decides.) */
            if (lv_end == SIZE_MAX - 1)
                lv_end = level_word_end(msg, lim);
            if (k >= lv_end)
                floor = LEVELED_MIN;
            need = floor;
        }
        size_t rest = len - k;
        bool exact_only = need > rest;
        /* After a whole match that is no evidence (weak_calls()), a
         * literal that is logged and all of a short rest is tried
         * whatever that match showed (`(job-9581) begin`, which "(%s)
         * %s" of a call building text fits). */
        bool below = rest < must || rest <= have;
        bool weak_exact = weak && exact_only && skip == 0 && rest >= EXACT_MIN;
        if (exact_only && !weak_exact && (rest < EXACT_MIN || below)) {
            if (k < decor)
                continue;
            break;
        }
        /* The tag's template renders every message it is handed: what
         * was handed may be any call's that the text reaches a logging
         * call through (keep_logged_whole). */
        bool p = hits_of(m, w, msg, len, k, exact_only ? (uint32_t)rest : need,
                         whole_listed && !(after_decor && exact_only));
        if (exact_only && !p)
            keep_logged_whole(m, w, (uint32_t)rest);
        if (whole_own) {
            drop_quiet_calls(m, w);
            /* A print writes no logger's record: its text inside a
             * record of the logger a site at the start logs to is what
             * that site relayed (`log.info("agent[%s]: %s", volume,
             * line)` over each line a child process printed). */
            drop_kind(m, w, GRAPH_EMIT_PRINT);
        }
        if (m->o.aside && w->nhits && m->e[w->hits[0]].aside)
            w->nhits = 0; /* (drop_aside left only such hits) */
        if (whole_listed)
            drop_warnings(m, w);
        uint32_t lit = w->nhits ? hits_literal(m, w, p, true) : 0;
        /* A later start inside what a logging site matched from an
         * earlier one is a value it shows when only quiet calls hand that
         * text anywhere: `Handshake: KEX algorithm: %s` explains the
         * algorithm's name that a list's unshift() was handed. */
        bool loud = any_loud(m, w);
        bool won = !((kept_loud && !loud) || only_quiet_tokens(m, w, loud)) &&
                   !(heads && skip == 0 && k != decor && (p || !loud || !catcher_among(m, w))) &&
                   (exact_only ? !p && lit == rest
                               : lit > have && lit > must && (lit >= 8 || (lit >= floor && !p)));
        /* The bars above weigh literal text from anywhere in the code;
         * the record's own logger names where to look. */
        if (!won && own_ok && !exact_only && lit < 8 &&
            own_rest(m, w, msg, len, k, logger, lc, have, &lit)) {
            won = true;
            p = false;
            loud = true;
        }
        if (weak_exact && below && !loud)
            won = false;
        if (won) {
            *best = lit;
            skip = k;
            kept_partial = p;
            kept_loud = loud;
            copy_ids(&w->kept, &w->kcap, w->hits, w->nhits);
            w->nkept = w->nhits;
        }
    }
    copy_ids(&w->hits, &w->cap, w->kept, w->nkept);
    w->nhits = w->nkept;
    *partial = kept_partial;
    return skip;
}

/* Keeps the hits with the most literal text; then sites logging a
 * template before bare constants holding one as specific. Returns that
 * most literal length; *any_site says whether a site (not a constant)
 * is among them. */
/* Literal bytes, blanks between holes aside, from which those blanks no
 * longer tell templates apart (keep_most_literal). */
#define LOOSE_WORDS_MIN 8

static uint32_t keep_most_literal(const map_matcher *m, map_match_work *w, bool partial,
                                  bool *any_site)
{
    /* Returned formats only where nothing else renders the message. */
    bool other = false;
    for (uint32_t i = 0; i < w->nhits && !other; i++)
        other = !m->e[w->hits[i]].returned;
    if (other) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < w->nhits; i++)
            if (!m->e[w->hits[i]].returned)
                w->hits[k++] = w->hits[i];
        w->nhits = k;
    }
    /* Blanks that only part holes tell templates apart no more than the
     * holes do ("Executed (%s): %s %s" and "Executed (%s): %s%s" both say
     * "Executed (...): SELECT 1"), among templates whose words say
     * something (a template of next to no words, "%s: %s", is as weak as
     * the blank, and the most literal of those stays the one). */
    bool loose = !partial;
    uint32_t most = 0, best = 0;
    for (uint32_t i = 0; i < w->nhits && loose; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->literal - x->loose > most)
            most = x->literal - x->loose;
    }
    if (most < LOOSE_WORDS_MIN)
        loose = false;
    if (!loose)
        most = hits_literal(m, w, partial, false);
    uint32_t keep = 0;
    *any_site = false;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (hit_literal(x, partial) - (loose ? x->loose : 0) == most) {
            w->hits[keep++] = w->hits[i];
            *any_site |= !x->is_const;
            if (hit_literal(x, partial) > best)
                best = hit_literal(x, partial);
        }
    }
    w->nhits = keep;
    keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++)
        if (m->e[w->hits[i]].is_const != *any_site)
            w->hits[keep++] = w->hits[i];
    w->nhits = keep;
    return best;
}

/* Whether site x logs at a level of its own: a logging call's method, a
 * constant's use, a candidate call's method that names a level. */
static bool logs_at_a_level(const mt_entry *x)
{
    return x->kind == GRAPH_EMIT_LOG || x->kind == GRAPH_EMIT_CONST ||
           (x->kind == GRAPH_EMIT_CALL && x->level != GRAPH_LEVEL_NONE);
}

/* Whether site x logs at a known level other than lc, a record's level. */
static bool other_level(const mt_entry *x, int lc)
{
    return logs_at_a_level(x) && x->level > GRAPH_LEVEL_NONE && x->level < GRAPH_LEVEL_CUSTOM &&
           x->level != lc;
}

/*
 * Sites that log at a known level other than the record's did not log it:
 * dropped before the most literal is chosen (a debug record of
 * "\n{attrs}" is not the trace call of a template with more text around
 * its holes that renders it too), all of them when none is left: the
 * record is then no match of theirs. Sites at a level they are given
 * (logger.log(level, ...)) stay. Returns MAP_MATCH_LEVEL when it dropped
 * some.
 */
static uint32_t drop_other_levels(const map_matcher *m, map_match_work *w, int lc)
{
    if (lc <= GRAPH_LEVEL_NONE || lc >= GRAPH_LEVEL_CUSTOM)
        return 0;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->nhits; i++)
        if (!other_level(&m->e[w->hits[i]], lc))
            w->hits[keep++] = w->hits[i];
    if (keep == w->nhits)
        return 0;
    w->nhits = keep;
    return MAP_MATCH_LEVEL;
}

/* Ties narrowed to the sites of the record's logger, then to those at its
 * level (or, lc >= 100, of its kind: span or span event), each only when
 * that keeps some and drops some. Returns the MAP_MATCH_ flags of the
 * narrowings made. */
static uint32_t narrow_ties(const map_matcher *m, map_match_work *w, const char *logger, int lc)
{
    uint32_t flags = 0, keep;
    if (w->nhits > 1 && logger && logger[0]) {
        keep = 0;
        for (uint32_t i = 0; i < w->nhits; i++)
            if (map__logger_agrees(m->e[w->hits[i]].logger, logger))
                w->hits[keep++] = w->hits[i];
        if (keep == 0) {
            /* None agrees: a site whose logger is an ancestor of the
             * record's (`harbor.yard` of `harbor.yard.straddle1`, a child
             * made by getChild or named under it) may have logged it
             * through that child; the nearest ancestors first. */
            size_t best = 0;
            for (uint32_t i = 0; i < w->nhits; i++) {
                size_t a = ancestor_len(m->e[w->hits[i]].logger, logger);
                if (a > best) {
                    best = a;
                    keep = 0;
                }
                if (a && a == best)
                    w->hits[keep++] = w->hits[i];
            }
        }
        if (keep == 0) {
            /* Those that name another logger did not log it. One whose
             * logger is only its module's name (the logger it logs
             * through is not known: one handed to a constructor) may
             * have. */
            for (uint32_t i = 0; i < w->nhits; i++)
                if (!m->e[w->hits[i]].logger_named)
                    w->hits[keep++] = w->hits[i];
        }
        if (keep > 0 && keep < w->nhits) {
            w->nhits = keep;
            flags |= MAP_MATCH_LOGGER;
        }
    }
    if (w->nhits > 1 && lc >= 0) {
        keep = 0;
        for (uint32_t i = 0; i < w->nhits; i++) {
            const mt_entry *x = &m->e[w->hits[i]];
            bool ok = lc >= 100 ? x->kind == lc - 100 : logs_at_a_level(x) && x->level == lc;
            if (ok)
                w->hits[keep++] = w->hits[i];
        }
        if (keep > 0 && keep < w->nhits) {
            w->nhits = keep;
            flags |= MAP_MATCH_LEVEL;
        }
    }
    return flags;
}

/* The hits' emit ids, in id order (deterministic), deduplicated: up to
 * max into emits; returns how many there are. */
static uint32_t hit_emits(const map_matcher *m, map_match_work *w, uint32_t *emits, uint32_t max)
{
    for (uint32_t i = 0; i < w->nhits; i++)
        w->hits[i] = m->e[w->hits[i]].emit;
    qsort(w->hits, w->nhits, sizeof *w->hits, cmp_u32);
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->nhits; i++)
        if (n == 0 || w->hits[n - 1] != w->hits[i])
            w->hits[n++] = w->hits[i];
    for (uint32_t i = 0; i < n && i < max; i++)
        emits[i] = w->hits[i];
    return n;
}

/* Whether every hit's literal text is one piece of a name (letters,
 * digits and underscores: `temporary_` in `%stemporary_%s`): what a call
 * puts into a longer text, not a message's wording (a sign, `Refused:`,
 * is wording). */
static bool name_part_hits(const map_matcher *m, const map_match_work *w)
{
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->anchor_len != x->literal)
            return false;
        for (uint32_t k = 0; k < x->anchor_len; k++)
            if (!isalnum((unsigned char)x->anchor[k]) && x->anchor[k] != '_')
                return false;
    }
    return w->nhits > 0;
}

/* An empty message: the calls that say nothing, at its level and of its
 * logger as a template's sites are. */
static map_match match_silent(const map_matcher *m, map_match_work *w, const char *logger, int lc,
                              uint32_t *emits, uint32_t max)
{
    map_match r = {0};
    w->nhits = 0;
    for (uint32_t i = 0; i < m->nsilent; i++)
        add_hit(w, m->silent[i]);
    if (m->o.aside)
        drop_aside(m, w, 0);
    r.flags |= drop_other_levels(m, w, lc);
    if (w->nhits == 0)
        return (map_match){0};
    r.nmatched = w->nhits;
    r.flags |= narrow_ties(m, w, logger, lc);
    if (m->o.aside && m->e[w->hits[0]].aside)
        r.flags |= MAP_MATCH_ASIDE;
    r.nemits = hit_emits(m, w, emits, max);
    return r;
}

/* Whether a hit is a listed shape: a site that logs (not a format a
 * function returns), or a call proven to log. */
static bool listed_among(const map_matcher *m, const map_match_work *w)
{
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if ((x->kind != GRAPH_EMIT_CALL && !x->returned) || (w->listed && w->listed[x->emit]))
            return true;
    }
    return false;
}

/* Whether the hits, best literal bytes of a message of said bytes, cover
 * little of it: "%s %s: %s" matches anything, and neither does a word a
 * call puts into a long text (a table's `temporary_` name in a statement
 * built elsewhere). Candidate calls (no listed shape) that do are no
 * evidence (weak_calls). */
static bool covers_little(const map_matcher *m, const map_match_work *w, uint32_t best, size_t said)
{
    return 3 * (size_t)best < said &&
           (best < 10 || 10 * (size_t)best < said || name_part_hits(m, w));
}

static bool weak_calls(const map_matcher *m, const map_match_work *w, uint32_t best, size_t said)
{
    return !listed_among(m, w) && covers_little(m, w, best, said);
}

/* The most a tag after the message may be. */
#define TAIL_TAG_MAX 256

/*
 * A message whose whole matched little, and that ends in a tag a
 * formatter or an adapter appended after the caller's text (`all 2
 * shipments booked [carrier=parcelo]`, a LoggerAdapter's process()
 * adding its context): one bracketed group, `[...]`, `(...)` or `{...}`,
 * after a space, at most TAIL_TAG_MAX bytes. The text before it is tried
 * as the message; it wins, w->hits then holding its hits, when a logging
 * site matches it with at least 8 literal bytes and more than twice what
 * the whole message showed. A literal that merely sits in a call says
 * nothing of a tag after it.
 */
static void trailing_tag(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                         uint32_t *best, bool *partial)
{
    static const char open[] = "[({", close[] = "])}";
    const char *c = len ? strchr(close, msg[len - 1]) : NULL;
    if (!c || !msg[len - 1])
        return;
    char o = open[c - close];
    size_t at = len - 1;
    while (at > 0 && len - at <= TAIL_TAG_MAX && msg[at] != o)
        at--;
    if (at < 2 || msg[at] != o || msg[at - 1] != ' ' || len - at > TAIL_TAG_MAX)
        return;
    size_t e = at - 1;
    uint32_t keep_n = w->nhits;
    copy_ids(&w->kept, &w->kcap, w->hits, w->nhits);
    bool p = hits_of(m, w, msg, e, 0, 0, false);
    drop_calls_into(m, w);
    uint32_t k = 0, lit = 0;
    for (uint32_t i = 0; i < w->nhits; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        if (x->kind == GRAPH_EMIT_CALL && !(w->listed && w->listed[x->emit]))
            continue;
        w->hits[k++] = w->hits[i];
        uint32_t l = hit_literal(x, p);
        lit = l > lit ? l : lit;
    }
    w->nhits = k;
    if (k && lit >= 8 && lit > 2 * *best) {
        *best = lit;
        *partial = p;
        return;
    }
    copy_ids(&w->hits, &w->cap, w->kept, keep_n);
    w->nhits = keep_n;
}

map_match map_matcher_match(const map_matcher *m, map_match_work *w, const char *msg, size_t len,
                            const char *logger, const char *level, uint32_t *emits, uint32_t max)
{
    map_match r = {0};
    w->lh_done = false;
    if (len == 0)
        return match_silent(m, w, logger, level_code(level), emits, max);
    bool partial = hits_of(m, w, msg, len, 0, 0, false);
    uint32_t best = w->nhits ? hits_literal(m, w, partial, false) : 0;
    /* A message a logging shape renders whole ("job %s" for "job
     * shipment.track") is explained; only another logging shape, not a
     * call that merely passes a literal somewhere, may say it was
     * decorated instead. A test's shape is no such evidence (a test's
     * `'[%s] %s'` would keep the product's calls from every message a
     * logging function decorates with brackets). */
    bool whole_listed = false;
    for (uint32_t i = 0; i < w->nhits && !whole_listed; i++) {
        const mt_entry *x = &m->e[w->hits[i]];
        whole_listed = x->kind != GRAPH_EMIT_CALL && !x->is_const && !(m->o.aside && x->aside) &&
                       hit_literal(x, partial) >= 3;
    }
    if (whole_listed && !partial && drop_caught_heads(m, w))
        best = w->nhits ? hits_literal(m, w, partial, false) : 0;
    /* Span and span event names are what the code passed: no logger puts
     * anything before them. */
    int lc = level_code(level);
    bool named = lc >= 100;
    /* A tag is a piece a formatter puts on a line, not a message some
     * logging site words ("setting transport %s" names a value). */
    size_t decor = partial || whole_listed || named ? 0 : decoration_of(m, w, len);
    if ((2 * (size_t)best < len || (decor && len - decor >= EXACT_MIN)) && !named) {
        size_t skip =
            best_start(m, w, msg, len, logger, lc, whole_listed, own_site_among(m, w, logger, lc),
                       decor, weak_calls(m, w, best, len), &best, &partial);
        r.decoration = (uint32_t)skip;
        if (skip)
            r.flags |= MAP_MATCH_DECORATED;
    }
    /* A tag and nothing after it that the code says: the message is
     * whatever the tag's writer was handed, from anywhere, and the
     * strategies for text no template renders place it. */
    if (decor && !r.decoration)
        return (map_match){0};
    if (2 * (size_t)best < len && !named && !r.decoration)
        trailing_tag(m, w, msg, len, &best, &partial);
    if (partial)
        r.flags |= MAP_MATCH_PARTIAL;
    if (w->nhits == 0)
        return r;
    r.nmatched = w->nhits;
    drop_calls_into(m, w);
    if (own_site_among(m, w, logger, lc))
        drop_quiet_calls(m, w);
    r.flags |= drop_other_levels(m, w, lc);
    if (w->nhits == 0 || /* (no site logs at its level: no match) */
        relayed_not_printed(m, w, logger))
        return (map_match){0};
    bool any_site;
    best = keep_most_literal(m, w, partial, &any_site);
    drop_twins(m, w);
    if (!any_site)
        r.flags |= MAP_MATCH_CONST;
    r.literal = best;
    size_t said = len - r.decoration;
    if (!listed_among(m, w) && (covers_little(m, w, best, said) ||
                                ((r.decoration || partial) && data_of_logger(m, w, logger, lc)))) {
        r.nmatched = 0;
        r.literal = 0;
        r.flags = 0;
        r.decoration = 0;
        return r;
    }
    r.flags |= narrow_ties(m, w, logger, lc);
    if (m->o.aside && m->e[w->hits[0]].aside)
        r.flags |= MAP_MATCH_ASIDE; /* (drop_aside left only such hits) */
    r.nemits = hit_emits(m, w, emits, max);
    return r;
}

/* The first of n records (size bytes each, from base, sorted by the
 * emit id at offset off) whose emit id is not below emit, by bisection;
 * n when none is. */
static uint32_t first_of_emit(const void *base, size_t size, size_t off, uint32_t n, uint32_t emit)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, at;
        memcpy(&at, (const char *)base + (size_t)mid * size + off, sizeof at);
        if (at < emit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t map_matcher_renders(const map_matcher *m, map_match_work *w, uint32_t emit,
                             const char *msg, size_t len)
{
    uint32_t best = 0;
    /* Entries are made in emit order. */
    uint32_t lo = first_of_emit(m->e, sizeof *m->e, offsetof(mt_entry, emit), m->n, emit);
    for (uint32_t id = lo; id < m->n && m->e[id].emit == emit; id++) {
        const mt_entry *x = &m->e[id];
        /* (A tag renders whatever its writer is handed, from anywhere.) */
        if (x->literal < 3 || x->literal <= best || tag_entry(w, x))
            continue;
        /* A quiet call's literal (`defineProperty(trx, 'index', ...)`)
         * renders a whole message or none: that a logging function put
         * a decoration before it is a guess on a guess. */
        size_t lim = loud_entry(m, w, x) ? DECOR_MAX : 0;
        for (size_t k = 0; k < len && k <= lim; k++) {
            if (!decoration_ends(msg, len, k))
                continue;
            PCRE2_SPTR s = (PCRE2_SPTR)(msg + k);
            int rc = x->jit ? pcre2_jit_match(x->re, s, len - k, 0, 0, w->md, m->mctx)
                            : pcre2_match(x->re, s, len - k, 0, 0, w->md, m->mctx);
            if (rc >= 0) {
                best = x->literal;
                break;
            }
        }
    }
    return best;
}

/* Which unseen sites a record can come from: by its logger's name, or by
 * the files its logger was shown to log from; or the candidate calls
 * through receivers that `through` accepts. */
typedef struct unseen_q {
    const char *logger;
    const uint32_t *files;
    uint32_t nfiles;
    bool (*through)(void *ud, const char *receiver);
    void *ud;
    const map_matcher *m; /* with through: the message its sites render */
    map_match_work *w;
    const char *msg;
    size_t len;
} unseen_q;

static bool unseen_fits(const struct unseen *u, const unseen_q *q)
{
    if (u->call || q->through)
        return u->call && q->through && q->through(q->ud, u->logger) &&
               (!u->re ||
                pcre2_match(u->re, (PCRE2_SPTR)q->msg, q->len, 0, 0, q->w->md, q->m->mctx) >= 0);
    if (q->logger)
        return map__logger_agrees(u->logger, q->logger);
    for (uint32_t i = 0; i < q->nfiles; i++)
        if (q->files[i] == u->file)
            return true;
    return false;
}

/* Whether a record at level code lc can come from unseen site u by its
 * kind: a span's name or a span event's only from a site of that kind,
 * a log record never from one. */
static bool unseen_kind_agrees(const struct unseen *u, int lc)
{
    bool span_site = u->level >= 100, span_rec = lc >= 100;
    return span_site == span_rec && (!span_site || u->level == lc);
}

static uint32_t unseen_select(const map_matcher *m, const unseen_q *q, const char *level,
                              uint32_t *emits, uint32_t max)
{
    int lc = level_code(level);
    uint32_t n = 0, at_level = 0;
    /* Two passes: the sites that fit, then (when that narrows them) those
     * of the record's level too. A site whose level is an argument or a
     * method of its own (logger.log(level, ...), log(detail, ...)) may be
     * at any. */
    for (uint32_t i = 0; i < m->nunseen; i++)
        if (unseen_fits(&m->unseen[i], q) && unseen_kind_agrees(&m->unseen[i], lc)) {
            n++;
            at_level += m->unseen[i].level == lc || m->unseen[i].level == GRAPH_LEVEL_CUSTOM;
        }
    bool by_level = at_level > 0 && at_level < n;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->nunseen; i++)
        if (unseen_fits(&m->unseen[i], q) && unseen_kind_agrees(&m->unseen[i], lc) &&
            (!by_level || m->unseen[i].level == lc || m->unseen[i].level == GRAPH_LEVEL_CUSTOM)) {
            if (k < max)
                emits[k] = m->unseen[i].emit;
            k++;
        }
    return k;
}

bool map_matcher_unseen_takes(const map_matcher *m, map_match_work *w, uint32_t emit,
                              const char *msg, size_t len, const char *logger, const char *level,
                              bool shown)
{
    /* note_unseen adds the sites in emit order. */
    uint32_t lo = first_of_emit(m->unseen, sizeof *m->unseen, offsetof(struct unseen, emit),
                                m->nunseen, emit);
    if (lo == m->nunseen || m->unseen[lo].emit != emit || m->unseen[lo].call)
        return false;
    const struct unseen *u = &m->unseen[lo];
    int lc = level_code(level);
    if ((shown && !u->tight) || !unseen_kind_agrees(u, lc) ||
        (lc >= 0 && u->level != GRAPH_LEVEL_NONE && u->level != GRAPH_LEVEL_CUSTOM &&
         u->level != lc))
        return false;
    /* Only a logger the code names: a module's name is what a site
     * logging through `self.log` is given when nothing else is known. */
    graph_emit e;
    graph_get_emit(m->g, emit, &e);
    if (e.logger[0] && logger && logger[0] && !map__logger_agrees(e.logger, logger))
        return false;
    const pcre2_code *re = shown ? u->tight : u->re;
    return !re || pcre2_match(re, (PCRE2_SPTR)msg, len, 0, 0, w->md, m->mctx) >= 0;
}

uint32_t map_matcher_unseen(const map_matcher *m, const char *logger, const uint32_t *files,
                            uint32_t nfiles, const char *level, uint32_t *emits, uint32_t max)
{
    if (logger && logger[0])
        return unseen_select(m, &(unseen_q){.logger = logger}, level, emits, max);
    if (nfiles == 0)
        return 0;
    return unseen_select(m, &(unseen_q){.files = files, .nfiles = nfiles}, level, emits, max);
}

uint32_t map_matcher_unseen_calls(const map_matcher *m, map_match_work *w, const char *msg,
                                  size_t len, bool (*through)(void *ud, const char *receiver),
                                  void *ud, const char *level, uint32_t *emits, uint32_t max)
{
    return unseen_select(
        m, &(unseen_q){.through = through, .ud = ud, .m = m, .w = w, .msg = msg, .len = len}, level,
        emits, max);
}
