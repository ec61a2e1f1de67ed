/*
 * map/text.c: the identifier-aware tokenizer, and TF-IDF and BM25
 * queries over a tiny hand-made repository whose scores are worked out by
 * hand below.
 */
#include "graph.h"
#include "map.h"
#include "unit_graph.h"

#include <math.h>

/* ---- tokenizer ---- */

static void join_token(void *ud, const char *tok, size_t len)
{
    core_buf *b = ud;
    if (b->len)
        core_buf_putc(b, ' ');
    core_buf_append(b, tok, len);
}

TEST(tokenize_table)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"load_credentials", "load credentials"},
        {"HttpClient.send_request", "http client send request"},
        {"HTTPServerError", "http server error"},
        {"XMLHttpRequest", "xml http request"},
        {"IOError", "io error"},
        /* Digits stay with the letters before them; a capital after a
         * digit starts a word. */
        {"get_URL2", "get url2"},
        {"md5Hash sha256 v2Client", "md5 hash sha256 v2 client"},
        /* A lone plural 's' after an acronym stays with it. */
        {"getURLs APIs IDsFor", "get urls apis ids"},
        {"ASet", "set"},
        /* Numbers, hex, sizes and ordinals start with a digit: dropped. */
        {"The cost of a 404 in 10ms for 0x1f, 2nd try", "cost try"},
        {"self.this_is_it", ""},
        {"x y_z --verbose=true", "verbose"},
        {"kebab-case/path.to:thing", "kebab case path thing"},
        /* UTF-8 passes through as letters without case. */
        {"naïve café", "naïve café"},
        {"\xc3\x89"
         "COLE normale",
         "\xc3\x89"
         "cole normale"},
        {"日本 é", "日本 é"},
        {"", ""},
        /* Masks are ordinary text to the tokenizer (queries skip them). */
        {"user <num> <*>", "user num"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        core_buf b = {0};
        core_buf_puts(&b, "");
        size_t n = map_tokenize(cases[i].in, strlen(cases[i].in), join_token, &b);
        CHECK_STR(b.data, cases[i].want);
        /* The count is the number of tokens, also without a callback. */
        size_t words = 0;
        for (const char *p = cases[i].want; *p; p++)
            words += (p == cases[i].want || p[-1] == ' ');
        CHECK_INT(n, words);
        CHECK_INT(map_tokenize(cases[i].in, strlen(cases[i].in), NULL, NULL), words);
        core_buf_free(&b);
    }
}

TEST(tokenize_long_tokens)
{
    char s[MAP_TOKEN_MAX + 2];
    memset(s, 'q', sizeof s);
    CHECK_INT(map_tokenize(s, MAP_TOKEN_MAX, NULL, NULL), 1);
    CHECK_INT(map_tokenize(s, MAP_TOKEN_MAX + 1, NULL, NULL), 0);
    /* Only the pieces that are too long are dropped. */
    s[MAP_TOKEN_MAX + 1] = 'Q';
    CHECK_INT(map_tokenize(s, sizeof s, NULL, NULL), 0);
    memcpy(s, "okAy", 4);
    CHECK_INT(map_tokenize(s, 4, NULL, NULL), 2);
}

/* ---- the repository ---- */

static const char creds_py[] = "\"\"\"Credential helpers.\"\"\"\n"
                               "import logging\n"
                               "import os\n"
                               "\n"
                               "logger = logging.getLogger(__name__)\n"
                               "\n"
                               "\n"
                               "def load_credentials(path):\n"
                               "    \"\"\"Load credentials from the environment or a file.\"\"\"\n"
                               "    logger.info(\"Loading credentials from %s\", path)\n"
                               "    return os.environ.get(\"TOKEN\")\n"
                               "\n"
                               "\n"
                               "def rotate_keys():\n"
                               "    \"\"\"Rotate the signing keys.\"\"\"\n"
                               "    logger.warning(\"Rotating %d keys\", 3)\n";

static const char client_py[] =
    "import logging\n"
    "\n"
    "log = logging.getLogger(\"client\")\n"
    "\n"
    "MSG_RETRY = \"Retrying request after timeout\"\n"
    "\n"
    "\n"
    "class HttpClient:\n"
    "    \"\"\"A tiny HTTP client.\"\"\"\n"
    "\n"
    "    def send_request(self, url):\n"
    "        \"\"\"Send one HTTP request and return the response.\"\"\"\n"
    "        log.debug(\"Sending request to %(url)s\", {\"url\": url})\n"
    "        return None\n"
    "\n"
    "    def retry(self):\n"
    "        log.warning(MSG_RETRY)\n"
    "\n"
    "    def close(self):\n"
    "        log.info(\"Connection closed\")\n";

static const char store_py[] = "def save_token(token):\n"
                               "    \"\"\"Save the token; credentials are cached.\"\"\"\n"
                               "    print(\"saved token\")\n"
                               "\n"
                               "\n"
                               "def f(x):\n"
                               "    return x\n"
                               "\n"
                               "\n"
                               "class Cache:\n"
                               "    def get(self, key):\n"
                               "        pass\n"
                               "\n"
                               "    def put(self, key, value):\n"
                               "        pass\n";

/*
 * The documents (token: weighted tf; name x3, rest of the qualname x1,
 * docstring x1, emit templates x2), N = 9:
 *   creds.load_credentials  load 4, credentials 6, creds 1, environment 1,
 *                           file 1, loading 2                       dl 15
 *   creds.rotate_keys       rotate 4, keys 6, creds 1, signing 1,
 *                           rotating 2                              dl 14
 *   client.HttpClient.send_request  send 4, request 6, client 2, http 2,
 *                           one 1, response 1, sending 2            dl 18
 *                           ("%(url)s" is a directive: no "url")
 *   client.HttpClient.retry retry 3, client 2, http 1, and through
 *                           MSG_RETRY: retrying 2, request 2, after 2,
 *                           timeout 2                               dl 14
 *   client.HttpClient.close close 3, client 2, http 1, connection 2,
 *                           closed 2                                dl 10
 *   store.save_token        save 4, token 6, store 1, credentials 1,
 *                           cached 1, saved 2                       dl 15
 *   store.f                 store 1 ("f" is one letter)             dl 1
 *   store.Cache.get         get 3, store 1, cache 1                 dl 5
 *   store.Cache.put         put 3, store 1, cache 1                 dl 5
 * Total length 97, avgdl = 97 / 9.
 */
static graph *open_repo(void)
{
    unit_write_str("repo/creds.py", creds_py);
    unit_write_str("repo/client.py", client_py);
    unit_write_str("repo/store.py", store_py);
    graph_index_opts o = {0};
    o.threads = 1;
    return unit_index_and_open(unit_tmp_path("repo"), unit_tmp_path("repo.graph"), &o, NULL);
}

static map_text *build(const graph *g)
{
    map_text *t = NULL;
    CHECK_OK(map_text_build(g, NULL, &t));
    CHECK(t != NULL);
    return t;
}

static uint32_t tfidf(const map_text *t, const char *q, uint32_t k, map_text_hit *out)
{
    return map_text_tfidf(t, q, strlen(q), k, out);
}

static uint32_t bm25(const map_text *t, const char *q, uint32_t k, map_text_hit *out)
{
    return map_text_bm25(t, q, strlen(q), k, out);
}

#define CHECK_NEAR(a, b, eps)                                                                      \
    do {                                                                                           \
        double unit_x = (a), unit_y = (b);                                                         \
        if (!(fabs(unit_x - unit_y) <= (eps)))                                                     \
            unit_fail(__FILE__, __LINE__, "%s ~ %s: %.9g != %.9g", #a, #b, unit_x, unit_y);        \
    } while (0)

#define CHECK_HIT(hit, g, qualname) CHECK_INT((hit).symbol, unit_sym(g, qualname))

TEST(documents_and_vocabulary)
{
    graph *g = open_repo();
    map_text *t = build(g);
    CHECK_INT(map_text_ndocs(t), 9);
    /* The distinct tokens of the table above. */
    CHECK_INT(map_text_nterms(t), 32);
    map_text_free(t);

    map_text_opts o = {.classes = true};
    CHECK_OK(map_text_build(g, &o, &t));
    CHECK_INT(map_text_ndocs(t), 11);
    /* The class is a document of its own: "tiny" is only in its doc. */
    map_text_hit h[4];
    CHECK_INT(bm25(t, "tiny", 4, h), 1);
    CHECK_HIT(h[0], g, "client.HttpClient");
    map_text_free(t);
    graph_close(g);
}

TEST(tfidf_ranks_the_function_that_logs_it)
{
    graph *g = open_repo();
    map_text *t = build(g);
    /* The index needs nothing of the graph once built. */
    graph_close(g);
    g = open_repo();

    map_text_hit h[9];
    /* "from" is a stop word, "env" is unknown, "loading" is only in
     * load_credentials' message, "credentials" also in save_token's doc. */
    CHECK_INT(tfidf(t, "Loading credentials from env", 9, h), 2);
    CHECK_HIT(h[0], g, "creds.load_credentials");
    CHECK_HIT(h[1], g, "store.save_token");
    CHECK(h[0].score > h[1].score && h[1].score > 0 && h[0].score <= 1);

    /* The constant's template counts for the function that logs it. */
    CHECK(tfidf(t, "Retrying request after <num> timeout", 9, h) >= 2);
    CHECK_HIT(h[0], g, "client.HttpClient.retry");
    CHECK(tfidf(t, "Sending request to <*>", 9, h) >= 2);
    CHECK_HIT(h[0], g, "client.HttpClient.send_request");

    /*
     * One known token: the cosine is that token's weight in the document
     * over the document's norm. close: idf = ln((N+1)/(df+1)) + 1 with
     * N = 9 is ln(10/2)+1 = 2.609438 for close, connection and closed
     * (df 1), ln(10/4)+1 = 1.916291 for client and http (df 3); weights
     * (1 + ln tf) * idf: close (1+ln 3) * 2.609438 = 5.476198, client
     * (1+ln 2) * 1.916291 = 3.244562, http 1.916291, connection and
     * closed (1+ln 2) * 2.609438 = 4.418162. Norm sqrt(29.988750 +
     * 10.527184 + 3.672170 + 2 * 19.520159) = 9.122961; cosine
     * 4.418162 / 9.122961 = 0.484290.
     */
    CHECK_INT(tfidf(t, "connection", 9, h), 1);
    CHECK_HIT(h[0], g, "client.HttpClient.close");
    CHECK_NEAR(h[0].score, 0.484290, 1e-5);
    /* Masks are skipped: the same query and score. */
    CHECK_INT(tfidf(t, "<num> connection <HEX> <*>", 9, h), 1);
    CHECK_NEAR(h[0].score, 0.484290, 1e-5);
    /* An unknown word counts in the query's norm with df 0: idf ln(10)+1 =
     * 3.302585; the query's norm sqrt(2.609438^2 + 3.302585^2) = 4.209066;
     * 0.484290 * 2.609438 / 4.209066 = 0.300239. */
    CHECK_INT(tfidf(t, "connection bogus", 9, h), 1);
    CHECK_NEAR(h[0].score, 0.300239, 1e-5);
    /* A document scored against its own text. */
    CHECK_INT(tfidf(t,
                    "close close close client client http connection connection "
                    "closed closed",
                    1, h),
              1);
    CHECK_HIT(h[0], g, "client.HttpClient.close");
    CHECK_NEAR(h[0].score, 1.0, 1e-6);

    map_text_free(t);
    graph_close(g);
}

TEST(bm25_by_hand)
{
    graph *g = open_repo();
    map_text *t = build(g);
    map_text_hit h[9];
    /*
     * "credentials": df 2, N 9: idf = ln(1 + (9 - 2 + 0.5) / (2 + 0.5)) =
     * ln 4 = 1.386294. avgdl = 97/9 = 10.777778; both documents have
     * dl 15, so K = 1.2 * (0.25 + 0.75 * 15 / 10.777778) = 1.552577.
     *   load_credentials, tf 6: 1.386294 * 6 * 2.2 / (6 + K) = 2.422893
     *   save_token, tf 1:       1.386294 * 1 * 2.2 / (1 + K) = 1.194811
     */
    CHECK_INT(bm25(t, "credentials", 9, h), 2);
    CHECK_HIT(h[0], g, "creds.load_credentials");
    CHECK_NEAR(h[0].score, 2.422893, 1e-5);
    CHECK_HIT(h[1], g, "store.save_token");
    CHECK_NEAR(h[1].score, 1.194811, 1e-5);
    /* A repeated query token counts again. */
    CHECK_INT(bm25(t, "credentials Credentials", 9, h), 2);
    CHECK_NEAR(h[0].score, 2 * 2.422893, 2e-5);

    CHECK_INT(bm25(t, "Loading credentials from env", 9, h), 2);
    CHECK_HIT(h[0], g, "creds.load_credentials");
    CHECK(bm25(t, "Retrying request after timeout", 9, h) >= 2);
    CHECK_HIT(h[0], g, "client.HttpClient.retry");
    /* %(url)s was a directive: "url" is not in any document. */
    CHECK_INT(bm25(t, "url", 9, h), 0);
    map_text_free(t);
    graph_close(g);
}

TEST(ties_k_and_empty_queries)
{
    graph *g = open_repo();
    map_text *t = build(g);
    map_text_hit h[32];
    /* get and put are the same document but for their names: a tie,
     * broken by symbol id. */
    uint32_t get = unit_sym(g, "store.Cache.get"), put = unit_sym(g, "store.Cache.put");
    for (int m = 0; m < 2; m++) {
        uint32_t n = m ? bm25(t, "cache", 32, h) : tfidf(t, "cache", 32, h);
        CHECK_INT(n, 2);
        CHECK(h[0].score == h[1].score);
        CHECK_INT(h[0].symbol, get < put ? get : put);
        CHECK_INT(h[1].symbol, get < put ? put : get);
    }
    /* k larger than the matches, and smaller. */
    CHECK_INT(bm25(t, "store", 32, h), 4);
    for (int i = 0; i + 1 < 4; i++)
        CHECK(h[i].score > h[i + 1].score ||
              (h[i].score == h[i + 1].score && h[i].symbol < h[i + 1].symbol));
    map_text_hit top[2];
    CHECK_INT(bm25(t, "store", 2, top), 2);
    CHECK(top[0].symbol == h[0].symbol && top[1].symbol == h[1].symbol);
    CHECK(top[0].score == h[0].score && top[1].score == h[1].score);
    CHECK_INT(tfidf(t, "client", 1, top), 1);
    CHECK_INT(tfidf(t, "client", 32, h), 3);
    CHECK(top[0].symbol == h[0].symbol);

    /* Nothing to match. */
    CHECK_INT(tfidf(t, "", 32, h), 0);
    CHECK_INT(bm25(t, "", 32, h), 0);
    CHECK_INT(map_text_tfidf(t, NULL, 0, 32, h), 0);
    CHECK_INT(map_text_bm25(t, NULL, 0, 32, h), 0);
    CHECK_INT(tfidf(t, "  the of a <*> 42 ", 32, h), 0);
    CHECK_INT(tfidf(t, "zebra quux", 32, h), 0);
    CHECK_INT(bm25(t, "zebra quux", 32, h), 0);
    CHECK_INT(tfidf(t, "credentials", 0, NULL), 0);
    CHECK_INT(bm25(t, "credentials", 0, NULL), 0);
    /* A query not NUL-terminated: only qlen bytes count. */
    CHECK_INT(map_text_bm25(t, "cachecredentials", 5, 32, h), 2);
    map_text_free(t);
    graph_close(g);
}

TEST(no_documents)
{
    /* Modules, an import edge, and no function. (Not an empty directory:
     * graph/write.c passes NULL to qsort when there are no edges.) */
    unit_write_str("empty/a.py", "import b\n");
    unit_write_str("empty/b.py", "X = 1\n");
    graph_index_opts o = {0};
    graph *g = unit_index_and_open(unit_tmp_path("empty"), unit_tmp_path("empty.graph"), &o, NULL);
    map_text *t = build(g);
    CHECK_INT(map_text_ndocs(t), 0);
    map_text_hit h[4];
    CHECK_INT(tfidf(t, "anything", 4, h), 0);
    CHECK_INT(bm25(t, "anything", 4, h), 0);
    map_text_free(t);
    map_text_free(NULL);
    graph_close(g);
}

/* Several threads query one index at once (ASan/TSan see any sharing). */
typedef struct {
    const map_text *t;
    int bad;
} par_ctx;

static void par_query(void *arg, unsigned i)
{
    par_ctx *c = arg;
    static const char *const qs[] = {"Loading credentials from env", "Retrying request", "cache",
                                     "store client http"};
    map_text_hit want[9], got[9];
    for (int r = 0; r < 200; r++) {
        const char *q = qs[(i + (unsigned)r) % 4];
        uint32_t n = map_text_bm25(c->t, q, strlen(q), 9, want);
        uint32_t m = map_text_tfidf(c->t, q, strlen(q), 9, got);
        if (n == 0 || m != n)
            __atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
    }
}

TEST(parallel_queries)
{
    graph *g = open_repo();
    par_ctx c = {build(g), 0};
    CHECK_OK(core_parallel(4, par_query, &c));
    CHECK_INT(c.bad, 0);
    map_text_free((map_text *)c.t);
    graph_close(g);
}
