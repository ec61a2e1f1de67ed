/*
 * Text similarity over the symbols of a graph (graph.h): the tokenizer,
 * the index, and TF-IDF cosine and BM25 queries.
 *
 * The index is an inverted file: for each token, its postings (document,
 * weight) sorted by document. Both models' per-document weights depend
 * only on the document, so they are computed once at build time and a
 * query is a weighted sum of the postings of its tokens. Queries merge the
 * posting lists document by document (a heap of cursors), so they need no
 * accumulator per document and allocate only in proportion to the query.
 */
#include "graph.h"
#include "map_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_BM25_K1 1.2
#define TEXT_BM25_B 0.75

/* The longest masked placeholder a query may hold ("<num>", "<*>"). */
#define TEXT_MASK_MAX 16

/* ------------------------------------------------------------------ */
/* Tokenizer                                                           */
/* ------------------------------------------------------------------ */

/* Sorted, for bsearch. English words and the words of code that every
 * other docstring or signature holds. */
static const char *const stop_words[] = {
    "an",     "and",      "are",  "args",  "as",    "at",   "be",    "been",      "but",
    "by",     "can",      "cls",  "const", "def",   "do",   "does",  "false",     "for",
    "from",   "function", "has",  "have",  "if",    "in",   "into",  "is",        "it",
    "its",    "kwargs",   "let",  "none",  "null",  "of",   "on",    "or",        "our",
    "return", "returns",  "self", "so",    "than",  "that", "the",   "their",     "then",
    "there",  "these",    "they", "this",  "those", "to",   "true",  "undefined", "var",
    "was",    "we",       "were", "which", "will",  "with", "would", "you",       "your",
};

typedef struct {
    const char *s;
    size_t n;
} text_key;

static int stop_cmp(const void *a, const void *b)
{
    const text_key *k = a;
    const char *w = *(const char *const *)b;
    size_t wn = strlen(w);
    int c = memcmp(k->s, w, k->n < wn ? k->n : wn);
    if (c)
        return c;
    return k->n < wn ? -1 : k->n > wn;
}

static bool is_stop_word(const char *s, size_t n)
{
    text_key k = {s, n};
    return bsearch(&k, stop_words, sizeof stop_words / sizeof stop_words[0], sizeof stop_words[0],
                   stop_cmp) != NULL;
}

/* Character classes. OTHER is a byte >= 0x80: part of a word, no case. */
enum { TC_SEP = 0, TC_LOWER, TC_UPPER, TC_DIGIT, TC_OTHER };

static int tok_class(unsigned char c)
{
    if (c >= 'a' && c <= 'z')
        return TC_LOWER;
    if (c >= 'A' && c <= 'Z')
        return TC_UPPER;
    if (c >= '0' && c <= '9')
        return TC_DIGIT;
    return c >= 0x80 ? TC_OTHER : TC_SEP;
}

typedef void (*text_tok_fn)(void *ud, const char *tok, size_t len);

/* Filters, lower-cases and passes on one piece of a word; returns 1 if it
 * was passed on. */
static size_t tok_piece(const char *s, size_t n, text_tok_fn fn, void *ud)
{
    if (n < 2 || n > MAP_TOKEN_MAX || tok_class((unsigned char)s[0]) == TC_DIGIT)
        return 0;
    char buf[MAP_TOKEN_MAX];
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
    if (is_stop_word(buf, n))
        return 0;
    if (fn)
        fn(ud, buf, n);
    return 1;
}

/* Does a case boundary fall between w[i-1] and w[i] (0 < i < n)? */
static bool tok_split_at(const char *w, size_t n, size_t i)
{
    int p = tok_class((unsigned char)w[i - 1]), c = tok_class((unsigned char)w[i]);
    if (c != TC_UPPER)
        return false;
    if (p == TC_LOWER || p == TC_DIGIT)
        return true;
    if (p != TC_UPPER || i + 1 >= n || tok_class((unsigned char)w[i + 1]) != TC_LOWER)
        return false;
    /* "HTTPServer": the last capital starts the next word, unless what
     * follows is a lone plural 's' ("URLs"). */
    return !(w[i + 1] == 's' && (i + 2 >= n || tok_class((unsigned char)w[i + 2]) != TC_LOWER));
}

size_t map_tokenize(const char *s, size_t n, void (*fn)(void *ud, const char *tok, size_t len),
                    void *ud)
{
    size_t count = 0, i = 0;
    while (i < n) {
        if (tok_class((unsigned char)s[i]) == TC_SEP) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < n && tok_class((unsigned char)s[i]) != TC_SEP)
            i++;
        const char *w = s + start;
        size_t wn = i - start, piece = 0;
        for (size_t j = 1; j < wn; j++)
            if (tok_split_at(w, wn, j)) {
                count += tok_piece(w + piece, j - piece, fn, ud);
                piece = j;
            }
        count += tok_piece(w + piece, wn - piece, fn, ud);
    }
    return count;
}

/*
 * Tokenizes a stored template without its holes (graph_tmpl_step): the
 * text between two holes is tokenized as it is.
 */
static void tokenize_template(const char *s, text_tok_fn fn, void *ud)
{
    size_t n = strlen(s), seg = 0;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        size_t k = graph_tmpl_step(s, n, i, &pc);
        if (pc.hole) {
            map_tokenize(s + seg, i - seg, fn, ud);
            seg = i + k;
        }
        i += k;
    }
    map_tokenize(s + seg, n - seg, fn, ud);
}

/* Tokenizes a query, skipping masked placeholders ("<num>", "<*>"). */
static void tokenize_query(const char *s, size_t n, text_tok_fn fn, void *ud)
{
    if (n == 0)
        return;
    size_t seg = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<')
            continue;
        size_t j = i + 1;
        while (j < n && j - i - 1 <= TEXT_MASK_MAX &&
               (s[j] == '_' || s[j] == '*' ||
                (tok_class((unsigned char)s[j]) != TC_SEP &&
                 tok_class((unsigned char)s[j]) != TC_OTHER)))
            j++;
        size_t len = j - i - 1;
        if (j < n && s[j] == '>' && len >= 1 && len <= TEXT_MASK_MAX) {
            map_tokenize(s + seg, i - seg, fn, ud);
            seg = j + 1;
            i = j;
        }
    }
    map_tokenize(s + seg, n - seg, fn, ud);
}

/* ------------------------------------------------------------------ */
/* The index                                                           */
/* ------------------------------------------------------------------ */

typedef struct text_posting {
    uint32_t doc;
    float tfidf; /* (1 + ln tf) * idf / |doc| */
    float bm25;  /* idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)) */
} text_posting;

struct map_text {
    core_strtab vocab; /* token strings */
    core_map term_of;  /* vocab offset -> term id */
    uint32_t nterms, ndocs;
    uint32_t *doc_sym;  /* document -> symbol id (increasing) */
    float *idf;         /* term -> TF-IDF idf */
    uint32_t *post_off; /* term -> first posting; nterms + 1 entries */
    text_posting *post;
};

/* One (term, tf) of a document. */
typedef struct text_entry {
    uint32_t term;
    uint32_t tf;
} text_entry;

typedef struct text_builder {
    map_text *t;
    uint32_t weight;          /* of the field being tokenized */
    core_vec(text_entry) occ; /* the current document's tokens */
    text_entry *ent;          /* every document's (term, tf), by document */
    size_t nent, capent;
    uint32_t *doc_off;     /* document -> first entry; ndocs + 1 */
    core_vec(uint32_t) df; /* term -> documents */
} text_builder;

static void build_token(void *ud, const char *tok, size_t len)
{
    text_builder *b = ud;
    map_text *t = b->t;
    uint32_t off = core_strtab_intern(&t->vocab, tok, len);
    bool inserted;
    uint64_t *slot = core_map_put(&t->term_of, off, &inserted);
    if (inserted) {
        *slot = b->df.n; /* the term's id: df has one entry per term */
        core_vec_push(&b->df, 0);
    }
    text_entry e = {(uint32_t)*slot, b->weight};
    core_vec_push(&b->occ, e);
}

static void build_field(text_builder *b, uint32_t weight, const char *s, size_t n)
{
    b->weight = weight;
    map_tokenize(s, n, build_token, b);
}

static int entry_cmp(const void *a, const void *b)
{
    const text_entry *x = a, *y = b;
    return x->term < y->term ? -1 : x->term > y->term;
}

/* Tokenizes one symbol into b->occ, then merges its tokens into entries. */
static int build_doc(text_builder *b, const graph *g, uint32_t id)
{
    graph_symbol s;
    graph_get_symbol(g, id, &s);
    b->occ.n = 0;
    build_field(b, 3, s.name, strlen(s.name));
    /* The qualname without the name at its end: module path and classes. */
    size_t ql = strlen(s.qualname), nl = strlen(s.name);
    if (nl <= ql && strcmp(s.qualname + ql - nl, s.name) == 0)
        ql -= nl;
    build_field(b, 1, s.qualname, ql);
    build_field(b, 1, s.doc, strlen(s.doc));
    uint32_t first, n = graph_symbol_emits(g, id, &first);
    b->weight = 2;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        /* Candidate calls are not known to log: their strings are as
         * likely keys and names as messages. */
        if (e.kind == GRAPH_EMIT_CALL)
            continue;
        if (e.style == GRAPH_STYLE_REF && e.ref_const != GRAPH_NONE)
            graph_get_emit(g, e.ref_const, &e);
        tokenize_template(e.tmpl, build_token, b);
    }

    if (b->occ.n > 1)
        qsort(b->occ.v, b->occ.n, sizeof *b->occ.v, entry_cmp);
    for (size_t i = 0; i < b->occ.n;) {
        text_entry m = b->occ.v[i++];
        while (i < b->occ.n && b->occ.v[i].term == m.term)
            m.tf += b->occ.v[i++].tf;
        if (b->nent == b->capent) {
            size_t cap = b->capent ? 2 * b->capent : 1024;
            text_entry *p = realloc(b->ent, cap * sizeof *p);
            if (!p)
                return -ENOMEM;
            b->ent = p;
            b->capent = cap;
        }
        b->ent[b->nent++] = m;
        b->df.v[m.term]++;
    }
    return b->nent > UINT32_MAX ? CORE_ELIMIT : 0;
}

static bool is_doc_kind(graph_sym_kind k, const map_text_opts *opts)
{
    return k == GRAPH_SYM_FUNCTION || k == GRAPH_SYM_METHOD ||
           (k == GRAPH_SYM_CLASS && opts && opts->classes);
}

/* Computes the weights and fills the postings from the entries. */
static int build_postings(text_builder *b)
{
    map_text *t = b->t;
    double n = t->ndocs;
    double *norm = malloc((t->ndocs ? t->ndocs : 1) * sizeof *norm);
    double *bm25_idf = malloc((t->nterms ? t->nterms : 1) * sizeof *bm25_idf);
    uint32_t *fill = malloc((t->nterms ? t->nterms : 1) * sizeof *fill);
    t->idf = malloc((t->nterms ? t->nterms : 1) * sizeof *t->idf);
    t->post_off = malloc(((size_t)t->nterms + 1) * sizeof *t->post_off);
    t->post = malloc((b->nent ? b->nent : 1) * sizeof *t->post);
    int rc = -ENOMEM;
    if (!norm || !bm25_idf || !fill || !t->idf || !t->post_off || !t->post)
        goto out;

    uint32_t off = 0;
    for (uint32_t i = 0; i < t->nterms; i++) {
        double df = b->df.v[i];
        t->idf[i] = (float)(log((n + 1) / (df + 1)) + 1);
        bm25_idf[i] = log(1 + (n - df + 0.5) / (df + 0.5));
        t->post_off[i] = fill[i] = off;
        off += b->df.v[i];
    }
    t->post_off[t->nterms] = off;

    double total_len = 0;
    for (uint32_t d = 0; d < t->ndocs; d++) {
        double sq = 0;
        for (uint32_t i = b->doc_off[d]; i < b->doc_off[d + 1]; i++) {
            double w = (1 + log(b->ent[i].tf)) * t->idf[b->ent[i].term];
            sq += w * w;
            total_len += b->ent[i].tf;
        }
        norm[d] = sqrt(sq);
    }
    double avgdl = n > 0 ? total_len / n : 0;

    for (uint32_t d = 0; d < t->ndocs; d++) {
        double dl = 0;
        for (uint32_t i = b->doc_off[d]; i < b->doc_off[d + 1]; i++)
            dl += b->ent[i].tf;
        for (uint32_t i = b->doc_off[d]; i < b->doc_off[d + 1]; i++) {
            const text_entry *e = &b->ent[i];
            double tf = e->tf;
            text_posting *p = &t->post[fill[e->term]++];
            p->doc = d;
            p->tfidf = (float)((1 + log(tf)) * t->idf[e->term] / norm[d]);
            p->bm25 = (float)(bm25_idf[e->term] * tf * (TEXT_BM25_K1 + 1) /
                              (tf + TEXT_BM25_K1 * (1 - TEXT_BM25_B + TEXT_BM25_B * dl / avgdl)));
        }
    }
    rc = 0;
out:
    free(fill);
    free(bm25_idf);
    free(norm);
    return rc;
}

int map_text_build(const graph *g, const map_text_opts *opts, map_text **out)
{
    map_text *t = core_xcalloc(1, sizeof *t);
    core_strtab_init(&t->vocab);
    text_builder b = {.t = t};
    int rc = -ENOMEM;

    uint32_t nsyms = graph_nsymbols(g), ndocs = 0;
    t->doc_sym = malloc((nsyms ? nsyms : 1) * sizeof *t->doc_sym);
    b.doc_off = malloc(((size_t)nsyms + 1) * sizeof *b.doc_off);
    if (!t->doc_sym || !b.doc_off)
        goto fail;
    for (uint32_t id = 0; id < nsyms; id++) {
        graph_symbol s;
        graph_get_symbol(g, id, &s);
        if (!is_doc_kind(s.kind, opts))
            continue;
        if (opts && opts->aside) {
            graph_file_info fi;
            graph_get_file(g, s.file_id, &fi);
            if ((opts->aside >> fi.role) & 1u)
                continue;
        }
        b.doc_off[ndocs] = (uint32_t)b.nent;
        t->doc_sym[ndocs++] = id;
        if ((rc = build_doc(&b, g, id)) != 0)
            goto fail;
    }
    b.doc_off[ndocs] = (uint32_t)b.nent;
    t->ndocs = ndocs;
    t->nterms = (uint32_t)b.df.n;
    if ((rc = build_postings(&b)) != 0)
        goto fail;

    core_vec_free(&b.occ);
    core_vec_free(&b.df);
    free(b.ent);
    free(b.doc_off);
    *out = t;
    return 0;

fail:
    core_vec_free(&b.occ);
    core_vec_free(&b.df);
    free(b.ent);
    free(b.doc_off);
    map_text_free(t);
    return rc;
}

size_t map_text_bytes(const map_text *t)
{
    if (!t)
        return 0;
    return sizeof *t + core_strtab_bytes(&t->vocab) + core_map_bytes(&t->term_of) +
           (size_t)t->ndocs * sizeof *t->doc_sym + (size_t)t->nterms * sizeof *t->idf +
           ((size_t)t->nterms + 1) * sizeof *t->post_off +
           (t->post_off ? (size_t)t->post_off[t->nterms] * sizeof *t->post : 0);
}

void map_text_free(map_text *t)
{
    if (!t)
        return;
    core_strtab_free(&t->vocab);
    core_map_free(&t->term_of);
    free(t->doc_sym);
    free(t->idf);
    free(t->post_off);
    free(t->post);
    free(t);
}

uint32_t map_text_ndocs(const map_text *t)
{
    return t->ndocs;
}

uint32_t map_text_nterms(const map_text *t)
{
    return t->nterms;
}

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

/* A token of the query: a term of the index, or an unknown token (term
 * UINT32_MAX) told apart from the others by its hash. */
typedef struct text_qtok {
    uint32_t term;
    uint32_t count;
    uint64_t hash;
} text_qtok;

typedef struct text_query {
    const map_text *t;
    core_vec(text_qtok) tok;
} text_query;

static void query_token(void *ud, const char *tok, size_t len)
{
    text_query *q = ud;
    text_qtok x = {UINT32_MAX, 1, 0};
    uint32_t off = core_strtab_find(&q->t->vocab, tok, len);
    const uint64_t *id = off == UINT32_MAX ? NULL : core_map_get(&q->t->term_of, off);
    if (id)
        x.term = (uint32_t)*id;
    else
        x.hash = core_hash64(tok, len, 0);
    core_vec_push(&q->tok, x);
}

static int qtok_cmp(const void *a, const void *b)
{
    const text_qtok *x = a, *y = b;
    if (x->term != y->term)
        return x->term < y->term ? -1 : 1;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Tokenizes the query into q->tok, one entry per distinct token with its
 * count, known terms first in term order. Returns how many are known. */
static size_t query_parse(text_query *q, const char *s, size_t n)
{
    tokenize_query(s, n, query_token, q);
    if (q->tok.n > 1)
        qsort(q->tok.v, q->tok.n, sizeof *q->tok.v, qtok_cmp);
    size_t m = 0, known = 0;
    for (size_t i = 0; i < q->tok.n; i++) {
        if (m > 0 && qtok_cmp(&q->tok.v[m - 1], &q->tok.v[i]) == 0) {
            q->tok.v[m - 1].count++;
            continue;
        }
        q->tok.v[m++] = q->tok.v[i];
        known += q->tok.v[i].term != UINT32_MAX;
    }
    q->tok.n = m;
    return known;
}

/* A position in one query term's postings, with the term's query weight. */
typedef struct text_cursor {
    const text_posting *p, *end;
    double w;
} text_cursor;

static void cursor_down(text_cursor *h, size_t n, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && h[c + 1].p->doc < h[c].p->doc)
            c++;
        if (h[i].p->doc <= h[c].p->doc)
            return;
        text_cursor x = h[i];
        h[i] = h[c];
        h[c] = x;
        i = c;
    }
}

/* Is a a worse hit than b (lower score, or the same and a later symbol)? */
static bool hit_worse(const map_text_hit *a, const map_text_hit *b)
{
    return a->score < b->score || (a->score == b->score && a->symbol > b->symbol);
}

/* The top-k heap, worst at the root. */
static void hit_down(map_text_hit *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && hit_worse(&h[c + 1], &h[c]))
            c++;
        if (!hit_worse(&h[c], &h[i]))
            return;
        map_text_hit x = h[i];
        h[i] = h[c];
        h[c] = x;
        i = c;
    }
}

static void hit_up(map_text_hit *h, uint32_t i)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!hit_worse(&h[i], &h[p]))
            return;
        map_text_hit x = h[i];
        h[i] = h[p];
        h[p] = x;
        i = p;
    }
}

static int hit_cmp(const void *a, const void *b)
{
    const map_text_hit *x = a, *y = b;
    return hit_worse(x, y) ? 1 : hit_worse(y, x) ? -1 : 0;
}

/*
 * Merges the postings of the query's known terms document by document,
 * keeping the k best sums of w * weight (scale applied to each sum) in
 * out. bm25 selects the posting weight.
 */
static uint32_t query_run(const map_text *t, const text_query *q, size_t known, bool bm25,
                          double scale, uint32_t k, map_text_hit *out)
{
    text_cursor *h = core_xmalloc((known ? known : 1) * sizeof *h);
    size_t nh = 0;
    for (size_t i = 0; i < known; i++) {
        const text_qtok *x = &q->tok.v[i];
        text_cursor c = {t->post + t->post_off[x->term], t->post + t->post_off[x->term + 1], 0};
        if (bm25)
            c.w = x->count;
        else
            c.w = (1 + log(x->count)) * t->idf[x->term];
        if (c.p < c.end)
            h[nh++] = c;
    }
    for (size_t i = nh; i-- > 0;)
        cursor_down(h, nh, i);

    uint32_t nout = 0;
    while (nh > 0) {
        uint32_t doc = h[0].p->doc;
        double sum = 0;
        while (nh > 0 && h[0].p->doc == doc) {
            sum += h[0].w * (bm25 ? h[0].p->bm25 : h[0].p->tfidf);
            if (++h[0].p == h[0].end)
                h[0] = h[--nh];
            cursor_down(h, nh, 0);
        }
        double v = sum * scale;
        map_text_hit hit = {t->doc_sym[doc], (float)(!bm25 && v > 1 ? 1 : v)};
        if (nout < k) {
            out[nout] = hit;
            hit_up(out, nout++);
        } else if (hit_worse(&out[0], &hit)) {
            out[0] = hit;
            hit_down(out, nout, 0);
        }
    }
    free(h);
    if (nout > 1)
        qsort(out, nout, sizeof *out, hit_cmp);
    return nout;
}

uint32_t map_text_tfidf(const map_text *t, const char *query, size_t qlen, uint32_t k,
                        map_text_hit *out)
{
    if (k == 0 || t->ndocs == 0)
        return 0;
    text_query q = {.t = t};
    size_t known = query_parse(&q, query, qlen);
    uint32_t n = 0;
    if (known > 0) {
        double unknown_idf = log((double)t->ndocs + 1) + 1, sq = 0;
        for (size_t i = 0; i < q.tok.n; i++) {
            const text_qtok *x = &q.tok.v[i];
            double w = (1 + log(x->count)) * (i < known ? t->idf[x->term] : unknown_idf);
            sq += w * w;
        }
        n = query_run(t, &q, known, false, 1 / sqrt(sq), k, out);
    }
    core_vec_free(&q.tok);
    return n;
}

uint32_t map_text_bm25(const map_text *t, const char *query, size_t qlen, uint32_t k,
                       map_text_hit *out)
{
    if (k == 0 || t->ndocs == 0)
        return 0;
    text_query q = {.t = t};
    size_t known = query_parse(&q, query, qlen);
    uint32_t n = known > 0 ? query_run(t, &q, known, true, 1, k, out) : 0;
    core_vec_free(&q.tok);
    return n;
}
