/* Event files: CSV, JSONL, XES and OTLP JSON, plain and gzip; times;
 * malformed input; bounded memory on a large file. */
#include "ingest.h"
#include "unit.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* Writes text gzip-compressed below the temp directory; returns the path. */
static const char *write_gz(const char *rel, const char *text)
{
    const char *path = unit_tmp_path(rel);
    gzFile gz = gzopen(path, "wb");
    CHECK(gz != NULL);
    size_t n = strlen(text);
    CHECK(n == 0 || gzwrite(gz, text, (unsigned)n) == (int)n);
    CHECK_INT(gzclose(gz), Z_OK);
    return path;
}

/* Every event of a file as text, one line each:
 *     LINE case|activity|TIME|key=val;key=val
 * and the code of the last ingest_file_next (0 at the end, or an error
 * with its message in why). */
typedef struct dump {
    core_buf text;
    int rc;
    char why[1024];
    ingest_format format;
    ingest_file_stats st;
} dump;

static void dump_event(core_buf *b, const ingest_event *ev)
{
    char t[40];
    ingest_format_time(ev->time_ns, t, sizeof t);
    core_buf_printf(b, "%llu %s|%s|%s|", (unsigned long long)ev->line, ev->case_id, ev->activity,
                    ev->time_ns == INGEST_NO_TIME ? "-" : t);
    for (uint32_t i = 0; i < ev->nattrs; i++)
        core_buf_printf(b, "%s%s=%s", i ? ";" : "", ev->attrs[i].key, ev->attrs[i].val);
    core_buf_putc(b, '\n');
}

static void read_all(const char *path, const ingest_file_opts *o, dump *d)
{
    memset(d, 0, sizeof *d);
    ingest_file *f;
    int rc = ingest_file_open(path, o, &f, d->why, sizeof d->why);
    if (rc) {
        d->rc = rc;
        return;
    }
    d->format = ingest_file_format(f);
    ingest_event ev;
    while ((rc = ingest_file_next(f, &ev, d->why, sizeof d->why)) == 1) {
        CHECK(ev.case_id && ev.case_id[0]);
        CHECK(ev.activity != NULL);
        dump_event(&d->text, &ev);
    }
    d->rc = rc;
    ingest_file_get_stats(f, &d->st);
    ingest_file_close(f);
}

/* Reads a file that must be good; returns its dump (caller frees). */
static char *read_good(const char *path, const ingest_file_opts *o)
{
    dump d;
    read_all(path, o, &d);
    if (d.rc != 0)
        unit_fail(__FILE__, __LINE__, "%s: %d %s", path, d.rc, d.why);
    return d.text.data ? d.text.data : core_xstrdup("");
}

#define CHECK_DUMP(path, opts, want)                                                               \
    do {                                                                                           \
        char *got_ = read_good(path, opts);                                                        \
        CHECK_STR(got_, want);                                                                     \
        free(got_);                                                                                \
    } while (0)

#define CHECK_HAS(s, sub)                                                                          \
    do {                                                                                           \
        if (!strstr((s), (sub)))                                                                   \
            unit_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", (s), (sub));           \
    } while (0)

/* Reads a file that must fail with err; checks that why names the path
 * and each of up to three substrings. */
static void check_fails(const char *path, const ingest_file_opts *o, int err, const char *a,
                        const char *b, const char *c)
{
    dump d;
    read_all(path, o, &d);
    core_buf_free(&d.text);
    if (d.rc != err)
        unit_fail(__FILE__, __LINE__, "%s: expected %d, got %d (%s)", path, err, d.rc, d.why);
    CHECK_HAS(d.why, path);
    if (a)
        CHECK_HAS(d.why, a);
    if (b)
        CHECK_HAS(d.why, b);
    if (c)
        CHECK_HAS(d.why, c);
}

typedef struct log_capture {
    int warn, note;
    char first[512];
} log_capture;

static void capture(void *ud, core_log_level level, const char *msg)
{
    log_capture *c = ud;
    if (level == CORE_LOG_WARN && c->warn++ == 0)
        snprintf(c->first, sizeof c->first, "%s", msg);
    if (level == CORE_LOG_NOTE)
        c->note++;
}

/* ------------------------------------------------------------------ */
/* Times                                                               */
/* ------------------------------------------------------------------ */

TEST(time_parsing_table)
{
    static const struct {
        const char *s;
        int64_t ns;
    } good[] = {
        {"2026-11-21T07:36:47.499635+00:00", 1795246607499635000},
        {"2026-11-21T07:36:47Z", 1795246607000000000},
        {"2026-11-21T07:36:47z", 1795246607000000000},
        {"2026-11-21T07:36:47", 1795246607000000000},
        {"2026-11-21 07:36:47", 1795246607000000000},
        {"2026-11-21t07:36:47", 1795246607000000000},
        {" 2026-11-21T07:36:47Z ", 1795246607000000000},
        {"2026-11-21T07:36:47+05:30", 1795226807000000000},
        {"2026-11-21T07:36:47+0530", 1795226807000000000},
        {"2026-11-21T07:36:47-0800", 1795275407000000000},
        {"2026-11-21T07:36:47-08:00", 1795275407000000000},
        {"2026-11-21T07:36:47-08", 1795275407000000000},
        {"2026-11-21T07:36:47 UTC", 1795246607000000000},
        {"2026-11-21T07:36:47 +00:00", 1795246607000000000},
        {"2026-11-21T07:36:47.1Z", 1795246607100000000},
        {"2026-11-21T07:36:47.12Z", 1795246607120000000},
        {"2026-11-21T07:36:47.123Z", 1795246607123000000},
        {"2026-11-21T07:36:47.1234", 1795246607123400000},
        {"2026-11-21T07:36:47.12345", 1795246607123450000},
        {"2026-11-21T07:36:47.123456", 1795246607123456000},
        {"2026-11-21T07:36:47.1234567", 1795246607123456700},
        {"2026-11-21T07:36:47.12345678", 1795246607123456780},
        {"2026-11-21T07:36:47.123456789Z", 1795246607123456789},
        {"2026-11-21T07:36:47.123456789123Z", 1795246607123456789},
        {"2026-11-21 07:36:47,5", 1795246607500000000},
        {"2026-11-21T07:36", 1795246560000000000},
        {"2026-11-21T07:36+05:00", 1795228560000000000},
        {"2026-11-21", 1795219200000000000},
        {"2024-02-29", 1709164800000000000},
        {"1969-12-31T23:59:59Z", -1000000000},
        {"1969-12-31T23:59:59.5Z", -500000000},
        {"2262-04-11T23:47:16Z", 9223372036000000000},
        {"1677-09-21T00:12:44Z", -9223372036000000000},
        /* Epoch numbers by magnitude. */
        {"1795246607", 1795246607000000000},
        {"1795246607499", 1795246607499000000},
        {"1795246607499635", 1795246607499635000},
        {"1795246607499635123", 1795246607499635123},
        {"1795246607.25", 1795246607250000000},
        {"0", 0},
        {"-1", -1000000000},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t ns = 42;
        int rc = ingest_parse_time(good[i].s, strlen(good[i].s), &ns);
        if (rc != 0 || ns != good[i].ns)
            unit_fail(__FILE__, __LINE__, "'%s': rc %d, %lld != %lld", good[i].s, rc, (long long)ns,
                      (long long)good[i].ns);
    }
    static const char *const bad[] = {"",
                                      " ",
                                      "abc",
                                      "2026-13-01",
                                      "2026-00-10",
                                      "2026-02-29",
                                      "2023-02-29",
                                      "2026-04-31",
                                      "2026-11-21T25:00:00",
                                      "2026-11-21T07:60:00",
                                      "2026-11-21T07:36:61",
                                      "2026-11-21T07:36:47+24:00",
                                      "2026-11-21T07:36:47+05:60",
                                      "2026-11-21T07:36:47.",
                                      "2026-11-21T07:36:47Zjunk",
                                      "2026-11-21T",
                                      "2026-11-21T07",
                                      "2026-11-21Z",
                                      "2026-1-21",
                                      "12:00:00",
                                      "9999-01-01",
                                      "1600-01-01",
                                      "99999999999999999999",
                                      "1795246607.",
                                      "1e9",
                                      "2026-11-21T07:36:47+5",
                                      "--1",
                                      "1677-09-21T00:12:43.145224192Z"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ns = 42;
        int rc = ingest_parse_time(bad[i], strlen(bad[i]), &ns);
        if (rc != CORE_EFORMAT || ns != 42)
            unit_fail(__FILE__, __LINE__, "'%s' was accepted (rc %d, %lld)", bad[i], rc,
                      (long long)ns);
    }
    /* Not NUL-terminated: only n bytes are read. */
    int64_t ns;
    CHECK_OK(ingest_parse_time("2026-11-21T07:36:47Zgarbage", 20, &ns));
    CHECK(ns == 1795246607000000000);
}

TEST(time_formatting)
{
    char buf[32];
    ingest_format_time(1795246607499635000, buf, sizeof buf);
    CHECK_STR(buf, "2026-11-21T07:36:47.499635000Z");
    ingest_format_time(0, buf, sizeof buf);
    CHECK_STR(buf, "1970-01-01T00:00:00.000000000Z");
    ingest_format_time(-500000000, buf, sizeof buf);
    CHECK_STR(buf, "1969-12-31T23:59:59.500000000Z");
    ingest_format_time(1709164800000000001, buf, sizeof buf);
    CHECK_STR(buf, "2024-02-29T00:00:00.000000001Z");
    ingest_format_time(INT64_MAX, buf, sizeof buf);
    CHECK_STR(buf, "2262-04-11T23:47:16.854775807Z");
    ingest_format_time(INT64_MIN + 1, buf, sizeof buf);
    CHECK_STR(buf, "1677-09-21T00:12:43.145224193Z");
    ingest_format_time(INGEST_NO_TIME, buf, sizeof buf);
    CHECK_STR(buf, "");
    /* Round trips. */
    uint64_t state = 7;
    for (int i = 0; i < 10000; i++) {
        int64_t t = (int64_t)core_splitmix64(&state), back;
        if (t == INGEST_NO_TIME)
            continue;
        ingest_format_time(t, buf, sizeof buf);
        CHECK_OK(ingest_parse_time(buf, strlen(buf), &back));
        CHECK(back == t);
    }
}

TEST(format_names)
{
    for (int i = 0; i < INGEST_FMT__COUNT; i++) {
        ingest_format f;
        CHECK_OK(ingest_format_parse(ingest_format_name((ingest_format)i), &f));
        CHECK_INT(f, i);
    }
    CHECK_STR(ingest_format_name(INGEST_FMT_OTLP_JSON), "otlp-json");
    ingest_format f = INGEST_FMT_XES;
    CHECK_INT(ingest_format_parse("parquet", &f), CORE_EUSAGE);
    CHECK_INT(f, INGEST_FMT_XES);
    CHECK_STR(ingest_format_name(INGEST_FMT__COUNT), "?");
}

/* ------------------------------------------------------------------ */
/* CSV                                                                 */
/* ------------------------------------------------------------------ */

static const char csv_good[] =
    "\xef\xbb\xbf"
    "case_id,activity,timestamp,note\r\n"
    "c1,start,2026-11-21T07:36:47Z,plain\r\n"
    "c1,\"say \"\"hi\"\", then go\",2026-11-21T07:36:48.5+00:00,\"line one\r\nline two\"\r\n"
    "\r\n"
    "\"c2\",end,,\"\"\r\n"
    "c2,\"\"\"quoted\"\"\",1795246607,last";

static const char csv_good_dump[] =
    "2 c1|start|2026-11-21T07:36:47.000000000Z|note=plain\n"
    "3 c1|say \"hi\", then go|2026-11-21T07:36:48.500000000Z|note=line one\r\nline two\n"
    "6 c2|end|-|note=\n"
    "7 c2|\"quoted\"|2026-11-21T07:36:47.000000000Z|note=last\n";

TEST(csv_quoting_bom_crlf)
{
    const char *path = unit_write_str("good.csv", csv_good);
    CHECK_DUMP(path, NULL, csv_good_dump);
    dump d;
    read_all(path, NULL, &d);
    CHECK_INT(d.format, INGEST_FMT_CSV);
    CHECK_INT(d.st.records, 4);
    CHECK_INT(d.st.events, 4);
    CHECK_INT(d.st.bad, 0);
    CHECK_INT(d.st.bytes, sizeof csv_good - 1);
    core_buf_free(&d.text);
    /* The same compressed, found by content, not by name. */
    CHECK_DUMP(write_gz("good.csv.gz", csv_good), NULL, csv_good_dump);
    CHECK_DUMP(write_gz("good-csv.data", csv_good), NULL, csv_good_dump);
    /* LF line ends, a trailing newline, no BOM. */
    CHECK_DUMP(unit_write_str("lf.csv", "case_id,activity\nc,a\nc,\"b\nc\"\n\n"), NULL,
               "2 c|a|-|\n3 c|b\nc|-|\n");
    /* An empty file and a header alone have no events. */
    CHECK_DUMP(unit_write_str("empty.csv", ""), NULL, "");
    CHECK_DUMP(unit_write_str("header.csv", "case_id,activity\r\n"), NULL, "");
}

TEST(csv_pm4py_and_overridden_names)
{
    const char *path =
        unit_write_str("pm4py.csv", "case:concept:name,concept:name,time:timestamp,org:resource\n"
                                    "1,register,2026-11-21 07:36:47.123+01:00,ann\n"
                                    "1,check,2026-11-21 08:00:00+01:00,bob\n");
    CHECK_DUMP(path, NULL,
               "2 1|register|2026-11-21T06:36:47.123000000Z|org:resource=ann\n"
               "3 1|check|2026-11-21T07:00:00.000000000Z|org:resource=bob\n");
    /* Both names present: case_id wins, the other is an attribute. */
    CHECK_DUMP(unit_write_str("both.csv", "case:concept:name,activity,case_id\nx,a,y\n"), NULL,
               "2 y|a|-|case:concept:name=x\n");
    /* Overridden names; the defaults are then ordinary columns. */
    const char *ov = unit_write_str("ov.csv", "session,msg,ts,activity\n"
                                              "s1,hello,2026-11-21,act\n");
    ingest_file_opts o = {.case_key = "session", .activity_key = "msg", .time_key = "ts"};
    CHECK_DUMP(ov, &o, "2 s1|hello|2026-11-21T00:00:00.000000000Z|activity=act\n");
    /* A given time key is required. */
    o.time_key = "when";
    check_fails(ov, &o, CORE_EFORMAT, ":1: no column 'when'", "session, msg, ts, activity", NULL);
}

TEST(csv_missing_header_column_names_it)
{
    const char *path = unit_write_str("nohdr.csv", "case_id,timestamp,resource\nc,2026-01-01,r\n");
    ingest_file *f = NULL;
    char why[512];
    CHECK_INT(ingest_file_open(path, NULL, &f, why, sizeof why), CORE_EFORMAT);
    CHECK(f == NULL);
    CHECK_HAS(why, path);
    CHECK_HAS(why, ":1:");
    CHECK_HAS(why, "'activity' or 'concept:name'");
    CHECK_HAS(why, "case_id, timestamp, resource");
    path = unit_write_str("nocase.csv", "\n\nactivity\na\n");
    check_fails(path, NULL, CORE_EFORMAT, ":3: no column 'case_id' or 'case:concept:name'",
                "(activity)", NULL);
}

/* ------------------------------------------------------------------ */
/* JSONL                                                               */
/* ------------------------------------------------------------------ */

static const char jsonl_good[] =
    "{\"case_id\": 42, \"activity\": \"pay\", \"timestamp\": 1795246607123, \"ok\": true, "
    "\"no\": false, \"n\": 1.5, \"big\": -12345678901, \"obj\": {\"x\": [1, \"y\", null], "
    "\"z\": {}}, \"nul\": null, \"s\": \"caf\\u00e9\"}\n"
    "\n"
    "   \r\n"
    "{\"concept:name\": \"ship\", \"case:concept:name\": \"c\", \"time:timestamp\": "
    "\"2026-11-21T07:36:47+00:00\"}\n"
    "{\"case_id\": \"c\", \"activity\": \"end\", \"timestamp\": null}";

static const char jsonl_good_dump[] =
    "1 42|pay|2026-11-21T07:36:47.123000000Z|ok=true;no=false;n=1.5;big=-12345678901;"
    "obj={\"x\":[1,\"y\",null],\"z\":{}};s=caf\xc3\xa9\n"
    "4 c|ship|2026-11-21T07:36:47.000000000Z|\n"
    "5 c|end|-|\n";

TEST(jsonl_with_non_string_values)
{
    CHECK_DUMP(unit_write_str("good.jsonl", jsonl_good), NULL, jsonl_good_dump);
    CHECK_DUMP(write_gz("good.ndjson.gz", jsonl_good), NULL, jsonl_good_dump);
    dump d;
    read_all(write_gz("good-jsonl", jsonl_good), NULL, &d);
    CHECK_INT(d.rc, 0);
    CHECK_INT(d.format, INGEST_FMT_JSONL);
    CHECK_INT(d.st.events, 3);
    CHECK_INT(d.st.records, 3);
    core_buf_free(&d.text);
    /* A BOM before the first object. */
    const char *bom =
        unit_write_str("bom.json", "\xef\xbb\xbf{\"case_id\":\"a\",\"activity\":\"b\"}");
    CHECK_DUMP(bom, NULL, "1 a|b|-|\n");
}

/* ------------------------------------------------------------------ */
/* XES                                                                 */
/* ------------------------------------------------------------------ */

static const char xes_good[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<log xes.version=\"1.0\" xmlns=\"http://www.xes-standard.org/\">\n"
    "  <extension name=\"Concept\" prefix=\"concept\" uri=\"http://x/concept.xesext\"/>\n"
    "  <global scope=\"event\"><string key=\"concept:name\" value=\"__INVALID__\"/></global>\n"
    "  <classifier name=\"Activity\" keys=\"concept:name\"/>\n"
    "  <string key=\"concept:name\" value=\"the log\"/>\n"
    "  <trace>\n"
    "    <string key=\"concept:name\" value=\"t1\"/>\n"
    "    <string key=\"org:dept\" value=\"sales &amp; more\"/>\n"
    "    <event>\n"
    "      <string key=\"concept:name\" value=\"register\"/>\n"
    "      <date key=\"time:timestamp\" value=\"2026-11-21T07:36:47.499+01:00\"/>\n"
    "      <int key=\"cost\" value=\"12\"/>\n"
    "      <string key=\"note\" value=\"a\"><string key=\"meta\" value=\"ignored\"/></string>\n"
    "      <float key=\"w\" value=\"0.5\"/><boolean key=\"ok\" value=\"true\"/>\n"
    "      <id key=\"uid\" value=\"6f1c\"/><list key=\"l\"><values><int key=\"x\" "
    "value=\"1\"/></values></list>\n"
    "    </event>\n"
    "    <event><string key=\"concept:name\" value=\"check\"/></event>\n"
    "  </trace>\n"
    "  <trace>\n"
    "    <string key=\"concept:name\" value=\"t2\"/>\n"
    "    <event>\n"
    "      <date key=\"time:timestamp\" value=\"2026-11-21T08:00:00Z\"/>\n"
    "      <string key=\"concept:name\" value=\"register\"/>\n"
    "    </event>\n"
    "  </trace>\n"
    "</log>\n";

static const char xes_good_dump[] =
    "10 t1|register|2026-11-21T06:36:47.499000000Z|cost=12;note=a;w=0.5;ok=true;uid=6f1c;"
    "case:org:dept=sales & more\n"
    "18 t1|check|-|case:org:dept=sales & more\n"
    "22 t2|register|2026-11-21T08:00:00.000000000Z|\n";

TEST(xes_traces_and_attributes)
{
    CHECK_DUMP(unit_write_str("good.xes", xes_good), NULL, xes_good_dump);
    CHECK_DUMP(write_gz("good.xes.gz", xes_good), NULL, xes_good_dump);
    dump d;
    read_all(write_gz("good-xes", xes_good), NULL, &d);
    CHECK_INT(d.rc, 0);
    CHECK_INT(d.format, INGEST_FMT_XES);
    core_buf_free(&d.text);
    /* The trace's attributes are keys like any other. */
    ingest_file_opts o = {.case_key = "case:org:dept", .skip_bad = true};
    char *got = read_good(unit_tmp_path("good.xes"), &o);
    CHECK_HAS(got, "10 sales & more|register|");
    free(got);
}

TEST(xes_streams_across_chunks)
{
    /* Enough events for many reads, and trace attributes that must live
     * across them. */
    const char *path = unit_tmp_path("many.xes.gz");
    gzFile gz = gzopen(path, "wb1");
    CHECK(gz != NULL);
    gzputs(gz, "<log>\n");
    int ntraces = 2000, per = 10;
    for (int t = 0; t < ntraces; t++) {
        gzprintf(gz,
                 "<trace><string key=\"concept:name\" value=\"case-%d\"/>\n"
                 "<string key=\"pad\" value=\"%0200d\"/>\n",
                 t, t);
        for (int e = 0; e < per; e++)
            gzprintf(gz,
                     "<event><string key=\"concept:name\" value=\"act-%d\"/>"
                     "<int key=\"i\" value=\"%d\"/></event>\n",
                     e, t * per + e);
        gzputs(gz, "</trace>\n");
    }
    gzputs(gz, "</log>\n");
    CHECK_INT(gzclose(gz), Z_OK);
    ingest_file *f;
    char why[512];
    CHECK_OK(ingest_file_open(path, NULL, &f, why, sizeof why));
    ingest_event ev;
    int n = 0;
    while (ingest_file_next(f, &ev, why, sizeof why) == 1) {
        char want[64];
        snprintf(want, sizeof want, "case-%d", n / per);
        CHECK_STR(ev.case_id, want);
        snprintf(want, sizeof want, "act-%d", n % per);
        CHECK_STR(ev.activity, want);
        CHECK_INT(ev.nattrs, 2);
        CHECK_STR(ev.attrs[1].key, "case:pad");
        CHECK_INT(strlen(ev.attrs[1].val), 200);
        CHECK_INT(atoi(ev.attrs[0].val), n);
        CHECK_INT(ev.line, 2 + (n / per) * (per + 3) + 2 + n % per);
        n++;
    }
    CHECK_INT(n, ntraces * per);
    ingest_file_close(f);
}

/* ------------------------------------------------------------------ */
/* OTLP JSON                                                           */
/* ------------------------------------------------------------------ */

static const char otlp_traces[] =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
    "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"shop\"}},"
    "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"res-case\"}}]},"
    "\"scopeSpans\":[{\"scope\":{\"name\":\"shop.lib\",\"version\":\"1\"},\"spans\":["
    /* A span attribute wins over the resource's, even of a later key. */
    "{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\","
    "\"parentSpanId\":\"\",\"name\":\"checkout\",\"kind\":2,"
    "\"startTimeUnixNano\":\"1795246607499635123\",\"endTimeUnixNano\":\"1795246608000000000\","
    "\"attributes\":[{\"key\":\"enduser.id\",\"value\":{\"stringValue\":\"span-user\"}},"
    "{\"key\":\"code.function.name\",\"value\":{\"stringValue\":\"shop.checkout\"}},"
    "{\"key\":\"n\",\"value\":{\"intValue\":\"42\"}},"
    "{\"key\":\"m\",\"value\":{\"intValue\":7}},"
    "{\"key\":\"d\",\"value\":{\"doubleValue\":1.5}},"
    "{\"key\":\"b\",\"value\":{\"boolValue\":true}},"
    "{\"key\":\"arr\",\"value\":{\"arrayValue\":{\"values\":[{\"stringValue\":\"x\"},"
    "{\"intValue\":\"3\"}]}}},"
    "{\"key\":\"kv\",\"value\":{\"kvlistValue\":{\"values\":[{\"key\":\"k\","
    "\"value\":{\"boolValue\":false}}]}}},"
    "{\"key\":\"empty\",\"value\":{}}],\"status\":{}},"
    /* No case attribute: the resource's. */
    "{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"aaaa\","
    "\"parentSpanId\":\"eee19b7ec3c1b174\",\"name\":\"pay\",\"startTimeUnixNano\":"
    "1795246607600000000}"
    "]}]},"
    /* No case attribute anywhere: the trace id. Old scope names. */
    "{\"resource\":{\"attributes\":[]},\"instrumentationLibrarySpans\":[{"
    "\"instrumentationLibrary\":{\"name\":\"old\"},\"spans\":[{\"traceId\":\"abcdef\","
    "\"spanId\":\"01\",\"name\":\"legacy\"}]}]}]}\n";

static const char otlp_logs[] =
    "{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"session.id\","
    "\"value\":{\"stringValue\":\"sess-9\"}}]},\"scopeLogs\":[{\"scope\":{\"name\":\"app\"},"
    "\"logRecords\":[{\"timeUnixNano\":\"0\",\"observedTimeUnixNano\":\"1795246607000000000\","
    "\"severityNumber\":9,\"severityText\":\"INFO\",\"body\":{\"stringValue\":\"order placed\"},"
    "\"attributes\":[{\"key\":\"code.filepath\",\"value\":{\"stringValue\":\"shop/cart.py\"}},"
    "{\"key\":\"code.lineno\",\"value\":{\"intValue\":\"17\"}}],"
    "\"traceId\":\"\",\"spanId\":\"\"},"
    "{\"timeUnixNano\":\"1795246607500000000\",\"body\":{\"kvlistValue\":{\"values\":["
    "{\"key\":\"event\",\"value\":{\"stringValue\":\"x\"}}]}},\"traceId\":\"tt\","
    "\"attributes\":[{\"key\":\"case.id\",\"value\":{\"stringValue\":\"own\"}}]},"
    "{\"eventName\":\"browser.click\"}]}]}]}\n";

static const char otlp_dump[] =
    "1 span-user|checkout|2026-11-21T07:36:47.499635123Z|enduser.id=span-user;"
    "code.function.name=shop.checkout;n=42;m=7;d=1.5;b=true;arr=[\"x\",3];kv={\"k\":false};"
    "empty=;trace_id=5b8efff798038103d269b633813fc60c;span_id=eee19b7ec3c1b174;"
    "scope.name=shop.lib\n"
    "1 res-case|pay|2026-11-21T07:36:47.600000000Z|trace_id=5b8efff798038103d269b633813fc60c;"
    "span_id=aaaa;parent_span_id=eee19b7ec3c1b174;scope.name=shop.lib\n"
    "1 abcdef|legacy|-|trace_id=abcdef;span_id=01;scope.name=old\n"
    "3 sess-9|order placed|2026-11-21T07:36:47.000000000Z|code.filepath=shop/cart.py;"
    "code.lineno=17;severity_text=INFO;severity_number=9;scope.name=app\n"
    "3 own|{\"event\":\"x\"}|2026-11-21T07:36:47.500000000Z|case.id=own;trace_id=tt;"
    "scope.name=app\n"
    "3 sess-9|browser.click|-|scope.name=app\n";

TEST(otlp_json_traces_and_logs)
{
    core_buf text = {0};
    core_buf_puts(&text, otlp_traces);
    core_buf_puts(&text, "\n");
    core_buf_puts(&text, otlp_logs);
    CHECK_DUMP(unit_write_str("otel.json", text.data), NULL, otlp_dump);
    CHECK_DUMP(write_gz("otel.jsonl.gz", text.data), NULL, otlp_dump);
    dump d;
    read_all(unit_write_str("otel-noext", text.data), NULL, &d);
    CHECK_INT(d.rc, 0);
    CHECK_INT(d.format, INGEST_FMT_OTLP_JSON);
    CHECK_INT(d.st.records, 2);
    CHECK_INT(d.st.events, 6);
    core_buf_free(&d.text);
    /* Given case attributes, in their order. */
    const char *const keys[] = {"service.name"};
    ingest_file_opts o = {.case_attrs = keys, .ncase_attrs = 1};
    char *got = read_good(unit_write_str("traces.json", otlp_traces), &o);
    CHECK(strncmp(got, "1 shop|checkout|", 16) == 0);
    free(got);
    /* Forced format. */
    o = (ingest_file_opts){.format = INGEST_FMT_OTLP_JSON};
    got = read_good(unit_write_str("otel.txt", otlp_logs), &o);
    CHECK(strncmp(got, "1 sess-9|order placed|", 22) == 0);
    free(got);
    core_buf_free(&text);
}

static int count_emit(void *ud, const ingest_event *ev)
{
    (void)ev;
    (*(int *)ud)++;
    return 0;
}

static int stop_emit(void *ud, const ingest_event *ev)
{
    (void)ud;
    (void)ev;
    return -ECANCELED;
}

TEST(otlp_json_decode_errors)
{
    char why[512];
    int n = 0;
    CHECK_OK(ingest_otlp_json_decode(otlp_traces, strlen(otlp_traces), NULL, 0, count_emit, &n, why,
                                     sizeof why));
    CHECK_INT(n, 3);
    CHECK_INT(ingest_otlp_json_decode(otlp_traces, strlen(otlp_traces), NULL, 0, stop_emit, NULL,
                                      why, sizeof why),
              -ECANCELED);
    CHECK_OK(ingest_otlp_json_decode("{}", 2, NULL, 0, count_emit, &n, why, sizeof why));
    static const struct {
        const char *json, *a, *b;
    } bad[] = {
        {"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"t\"},{\"traceId\":\"t\","
         "\"startTimeUnixNano\":\"soon\"}]}]}]}",
         "resourceSpans[0].scopeSpans[0].spans[1]", "field 'startTimeUnixNano': not a time"},
        {"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"x\"}]}]}]}", "spans[0]",
         "no case id"},
        {"{\"resourceLogs\":{}}", "field 'resourceLogs'", "not an array"},
        {"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"t\",\"attributes\":"
         "[{\"value\":{}}]}]}]}]}",
         "field 'attributes'", "no key"},
        {"{\"resourceSpans\": [", "column", "invalid JSON"},
        {"[1]", "not a JSON object", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(ingest_otlp_json_decode(bad[i].json, strlen(bad[i].json), NULL, 0, count_emit, &n,
                                          why, sizeof why),
                  CORE_EFORMAT);
        CHECK_HAS(why, bad[i].a);
        if (bad[i].b)
            CHECK_HAS(why, bad[i].b);
    }
}

/* ------------------------------------------------------------------ */
/* Malformed input                                                     */
/* ------------------------------------------------------------------ */

TEST(malformed_records_name_path_line_and_field)
{
    const char *hdr = "case_id,activity,timestamp\n";
    static const struct {
        const char *name, *body, *a, *b, *c;
    } csv[] = {
        {"time.csv", "c,a,2026-01-01\nc,b,2026-13-01\n", ":3:", "field 'timestamp'",
         "not an ISO 8601 time: '2026-13-01'"},
        {"count.csv", "c,a,2026-01-01\nc,b\n", ":3:", "expected 3 fields, got 2", NULL},
        {"count2.csv", "c,\"a\nb\",x,y\n", ":2:", "expected 3 fields, got 4", NULL},
        {"case.csv", "c,a,\n,b,\n", ":3:", "field 'case_id'", "empty case id"},
        {"quote.csv", "c,\"a\"b,\n", ":2:", "field 'activity'", "after the closing quote"},
        {"open.csv", "c,a,\nc,\"b,\n\n", ":3:", "field 'activity'", "not closed"},
    };
    for (size_t i = 0; i < sizeof csv / sizeof csv[0]; i++) {
        core_buf b = {0};
        core_buf_printf(&b, "%s%s", hdr, csv[i].body);
        check_fails(unit_write_str(csv[i].name, b.data), NULL, CORE_EFORMAT, csv[i].a, csv[i].b,
                    csv[i].c);
        char gzname[64];
        snprintf(gzname, sizeof gzname, "%s.gz", csv[i].name);
        check_fails(write_gz(gzname, b.data), NULL, CORE_EFORMAT, csv[i].a, csv[i].b, csv[i].c);
        core_buf_free(&b);
    }
    static const struct {
        const char *name, *body, *a, *b, *c;
    } other[] = {
        {"bad.jsonl", "{\"case_id\":\"c\",\"activity\":\"a\"}\n{\"case_id\": }\n",
         ":2:", "invalid JSON", "column"},
        {"arr.jsonl", "\n[1,2]\n", ":2:", "not a JSON object", NULL},
        {"noact.jsonl", "{\"case_id\":\"c\"}\n", ":1:", "no field 'activity' or 'concept:name'",
         NULL},
        {"time.jsonl", "{\"case_id\":\"c\",\"activity\":\"a\",\"timestamp\":\"yesterday\"}\n",
         ":1:", "field 'timestamp'", "'yesterday'"},
        {"case.jsonl", "{\"case_id\":\"\",\"activity\":\"a\"}\n", ":1:", "field 'case_id'", NULL},
        {"date.xes",
         "<log>\n<trace><string key=\"concept:name\" value=\"t\"/>\n<event>\n"
         "<date key=\"time:timestamp\" value=\"2026-02-30\"/>\n"
         "<string key=\"concept:name\" value=\"a\"/></event></trace></log>\n",
         ":3:", "field 'time:timestamp'", "'2026-02-30'"},
        {"noname.xes",
         "<log><trace><event><string key=\"concept:name\" value=\"a\"/></event>"
         "</trace></log>",
         ":1:", "no field 'case_id' or 'case:concept:name'", NULL},
        {"syntax.xes", "<log>\n<trace>\n<event></trace>\n</log>\n", ":3:", "XML error", NULL},
        {"cut.xes", "<log>\n<trace>\n", "XML error", NULL, NULL},
        {"root.xes", "<html></html>", ":1:", "not an XES log", "<html>"},
        {"otel.json",
         "{\"resourceSpans\":[]}\n{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":"
         "\"t\",\"startTimeUnixNano\":\"-5\"}]}]}]}\n",
         ":2:", "field 'startTimeUnixNano'", "spans[0]"},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        check_fails(unit_write_str(other[i].name, other[i].body), NULL, CORE_EFORMAT, other[i].a,
                    other[i].b, other[i].c);
        char gzname[64];
        snprintf(gzname, sizeof gzname, "%s.gz", other[i].name);
        check_fails(write_gz(gzname, other[i].body), NULL, CORE_EFORMAT, other[i].a, other[i].b,
                    other[i].c);
    }
    /* A fatal error ends the file: later calls repeat it. */
    const char *path = unit_write_str("syntax2.xes", "<log><trace></event></log>");
    ingest_file *f;
    char why[512];
    ingest_event ev;
    CHECK_OK(ingest_file_open(path, NULL, &f, why, sizeof why));
    CHECK_INT(ingest_file_next(f, &ev, why, sizeof why), CORE_EFORMAT);
    why[0] = 0;
    CHECK_INT(ingest_file_next(f, &ev, why, sizeof why), CORE_EFORMAT);
    CHECK_HAS(why, "XML error");
    ingest_file_close(f);
    /* A malformed record is reported, and reading goes on after it. */
    path = unit_write_str("goes-on.csv", "case_id,activity\nc\nc,b\n");
    CHECK_OK(ingest_file_open(path, NULL, &f, why, sizeof why));
    CHECK_INT(ingest_file_next(f, &ev, why, sizeof why), CORE_EFORMAT);
    CHECK_HAS(why, ":2: expected 2 fields, got 1");
    CHECK_INT(ingest_file_next(f, &ev, why, sizeof why), 1);
    CHECK_STR(ev.activity, "b");
    CHECK_INT(ingest_file_next(f, &ev, why, sizeof why), 0);
    ingest_file_close(f);
}

TEST(skip_bad_keeps_the_good_records)
{
    const char *path = unit_write_str("mixed.csv", "case_id,activity,timestamp\n"
                                                   "c,a,2026-01-01\n"
                                                   "c,b,2026-13-01\n"
                                                   "c,c\n"
                                                   ",d,\n"
                                                   "c,e,\n");
    log_capture cap = {0};
    ingest_file_opts o = {.skip_bad = true, .log = {capture, &cap, CORE_LOG_DEBUG}};
    dump d;
    read_all(path, &o, &d);
    CHECK_INT(d.rc, 0);
    CHECK_STR(d.text.data, "2 c|a|2026-01-01T00:00:00.000000000Z|\n6 c|e|-|\n");
    CHECK_INT(d.st.records, 5);
    CHECK_INT(d.st.events, 2);
    CHECK_INT(d.st.bad, 3);
    CHECK_INT(cap.warn, 3);
    CHECK_INT(cap.note, 0);
    CHECK_HAS(cap.first, path);
    CHECK_HAS(cap.first, ":3: field 'timestamp'");
    core_buf_free(&d.text);

    /* Many bad records: 20 warnings, then one note with the total. */
    core_buf b = {0};
    core_buf_puts(&b, "{\"case_id\":\"c\",\"activity\":\"first\"}\n");
    for (int i = 0; i < 30; i++)
        core_buf_puts(&b, i % 2 ? "not json\n" : "{\"case_id\":\"c\"}\n");
    core_buf_puts(&b, "{\"case_id\":\"c\",\"activity\":\"last\"}\n");
    memset(&cap, 0, sizeof cap);
    read_all(unit_write_str("mixed.jsonl", b.data), &o, &d);
    CHECK_INT(d.rc, 0);
    CHECK_STR(d.text.data, "1 c|first|-|\n32 c|last|-|\n");
    CHECK_INT(d.st.bad, 30);
    CHECK_INT(cap.warn, 20);
    CHECK_INT(cap.note, 1);
    core_buf_free(&d.text);
    core_buf_free(&b);

    /* XES: a bad event among good ones. */
    read_all(unit_write_str("mixed.xes",
                            "<log><trace><string key=\"concept:name\" value=\"t\"/>\n"
                            "<event><string key=\"concept:name\" value=\"a\"/></event>\n"
                            "<event><date key=\"time:timestamp\" value=\"x\"/></event>\n"
                            "<event><string key=\"concept:name\" value=\"b\"/></event>\n"
                            "</trace></log>\n"),
             &o, &d);
    CHECK_INT(d.rc, 0);
    CHECK_STR(d.text.data, "2 t|a|-|\n4 t|b|-|\n");
    CHECK_INT(d.st.bad, 1);
    core_buf_free(&d.text);

    /* OTLP: a bad line is skipped whole. */
    core_buf_printf(&b,
                    "%s{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"t\"},"
                    "{\"name\":\"no case\"}]}]}]}\n%s",
                    otlp_traces, otlp_logs);
    read_all(unit_write_str("mixed-otel.json", b.data), &o, &d);
    CHECK_INT(d.rc, 0);
    CHECK_INT(d.st.records, 3);
    CHECK_INT(d.st.events, 6);
    CHECK_INT(d.st.bad, 1);
    core_buf_free(&d.text);
    core_buf_free(&b);

    /* Fatal errors are not skipped. */
    check_fails(unit_write_str("syntax.xes", "<log><trace></event></log>"), &o, CORE_EFORMAT,
                "XML error", NULL, NULL);
}

TEST(truncated_and_corrupt_gzip_are_errors)
{
    core_buf b = {0};
    core_buf_puts(&b, "case_id,activity,timestamp\n");
    uint64_t state = 1;
    for (int i = 0; i < 20000; i++)
        core_buf_printf(&b, "case-%d,activity %llu,2026-01-01T00:00:%02dZ\n", i % 97,
                        (unsigned long long)(core_splitmix64(&state) % 1000), i % 60);
    const char *gzpath = write_gz("full.csv.gz", b.data);
    struct stat st;
    CHECK(stat(gzpath, &st) == 0);
    char *data;
    size_t len;
    CHECK_OK(core_read_file(gzpath, 1 << 30, &data, &len));
    /* Cut in the middle of the deflate stream, and just before the trailer. */
    size_t cuts[] = {len / 2, len - 4, 15};
    for (size_t i = 0; i < 3; i++) {
        const char *path = unit_write("cut.csv.gz", data, cuts[i]);
        dump d;
        read_all(path, NULL, &d);
        core_buf_free(&d.text);
        if (d.rc != CORE_ECORRUPT)
            unit_fail(__FILE__, __LINE__, "cut at %zu: %d %s", cuts[i], d.rc, d.why);
        CHECK_HAS(d.why, path);
        CHECK_HAS(d.why, "truncated");
    }
    /* A damaged checksum in the trailer. */
    for (size_t i = len - 8; i < len - 4; i++)
        data[i] ^= 0x5a;
    const char *path = unit_write("bad.csv.gz", data, len);
    dump d;
    read_all(path, NULL, &d);
    core_buf_free(&d.text);
    CHECK_INT(d.rc, CORE_ECORRUPT);
    CHECK_HAS(d.why, path);
    CHECK_HAS(d.why, "gzip data is corrupt");
    free(data);
    core_buf_free(&b);
}

TEST(open_errors)
{
    ingest_file *f = NULL;
    char why[512];
    const char *missing = unit_tmp_path("missing.csv");
    CHECK_INT(ingest_file_open(missing, NULL, &f, why, sizeof why), -ENOENT);
    CHECK_HAS(why, missing);
    CHECK_INT(ingest_file_open(unit_tmpdir(), NULL, &f, why, sizeof why), -EISDIR);
    CHECK(f == NULL);
}

TEST(records_over_the_cap_are_errors)
{
    core_buf b = {0};
    core_buf_puts(&b, "case_id,activity\nc,a\nc,\"");
    for (int i = 0; i < 5000; i++)
        core_buf_puts(&b, "long\n");
    core_buf_puts(&b, "\"\nc,b\n");
    ingest_file_opts o = {.max_record = 4096, .skip_bad = true};
    check_fails(unit_write_str("big.csv", b.data), &o, CORE_ELIMIT, ":3:", "record longer", NULL);
    core_buf_reset(&b);
    core_buf_puts(&b, "{\"case_id\":\"c\",\"activity\":\"a\"}\n{\"case_id\":\"");
    for (int i = 0; i < 100000; i++)
        core_buf_puts(&b, "long");
    core_buf_puts(&b, "\"}\n");
    check_fails(write_gz("big.jsonl.gz", b.data), &o, CORE_ELIMIT, ":2:", "longer than 4096", NULL);
    /* XES: an event's attributes, and one huge piece of markup. */
    core_buf_reset(&b);
    core_buf_puts(&b, "<log><trace><string key=\"concept:name\" value=\"t\"/>\n<event>\n");
    for (int i = 0; i < 1000; i++)
        core_buf_printf(&b, "<string key=\"k%d\" value=\"v\"/>\n", i);
    core_buf_puts(&b, "</event></trace></log>\n");
    check_fails(unit_write_str("big.xes", b.data), &o, CORE_ELIMIT, ":2:", "event larger than 4096",
                NULL);
    core_buf_reset(&b);
    core_buf_puts(&b, "<log><trace><string key=\"concept:name\" value=\"t\"/>\n<event>\n"
                      "<string key=\"concept:name\" value=\""); /* line 3 */
    for (int i = 0; i < 200000; i++)
        core_buf_puts(&b, "long");
    core_buf_puts(&b, "\"/></event></trace></log>\n");
    check_fails(unit_write_str("huge.xes", b.data), &o, CORE_ELIMIT, ":3:", "longer than 4096",
                NULL);
    /* Under the cap, a line may be longer than the reader's first buffer. */
    o.max_record = 0;
    dump d;
    read_all(unit_tmp_path("big.jsonl.gz"), &o, &d);
    CHECK_INT(d.rc, 0);
    CHECK_INT(d.st.events, 1);
    CHECK_INT(d.st.bad, 1);
    core_buf_free(&d.text);
    core_buf_free(&b);
}

TEST(format_detection)
{
    static const struct {
        const char *name, *body;
        ingest_format want;
    } cases[] = {
        {"a.CSV", "<x>,case_id,activity\n", INGEST_FMT_CSV},
        {"a.tsv", "case_id,activity\n", INGEST_FMT_CSV},
        {"b", "  \n{\"case_id\":\"c\",\"activity\":\"a\"}\n", INGEST_FMT_JSONL},
        {"c", "\n<?xml version=\"1.0\"?><log/>", INGEST_FMT_XES},
        {"d.json", "{\"resourceLogs\":[]}\n", INGEST_FMT_OTLP_JSON},
        {"e.ndjson", "{\"case_id\":\"c\",\"activity\":\"a\"}\n{\"resourceLogs\":[]}\n",
         INGEST_FMT_JSONL},
        {"f.xes", "", INGEST_FMT_XES},
        {"g", "", INGEST_FMT_CSV},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int gz = 0; gz < 2; gz++) {
            char name[64];
            snprintf(name, sizeof name, "%s%s", cases[i].name, gz ? ".gz" : "");
            const char *path =
                gz ? write_gz(name, cases[i].body) : unit_write_str(name, cases[i].body);
            ingest_file *f;
            char why[512];
            int rc = ingest_file_open(path, NULL, &f, why, sizeof why);
            if (rc)
                unit_fail(__FILE__, __LINE__, "%s: %s", name, why);
            CHECK_INT(ingest_file_format(f), cases[i].want);
            ingest_file_close(f);
        }
    }
    /* A forced format wins over the name. */
    ingest_file_opts o = {.format = INGEST_FMT_JSONL};
    CHECK_DUMP(unit_write_str("j.csv", "{\"case_id\":\"c\",\"activity\":\"a\"}"), &o, "1 c|a|-|\n");
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

static long max_rss_kb(void)
{
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return ru.ru_maxrss;
}

TEST(large_gzip_csv_in_constant_memory)
{
    /* About 50 MB of CSV, written a row at a time so that writing does not
     * raise the high-water mark. */
    const char *path = unit_tmp_path("large.csv.gz");
    gzFile gz = gzopen(path, "wb1");
    CHECK(gz != NULL);
    CHECK_INT(gzbuffer(gz, 1 << 17), 0);
    gzputs(gz, "case_id,activity,timestamp,resource,message\n");
    uint64_t state = 99, rows = 0, bytes = 0;
    char row[256];
    while (bytes < 50u << 20) {
        uint64_t r = core_splitmix64(&state);
        int n = snprintf(row, sizeof row,
                         "case-%llu,step %llu,2026-11-21T07:%02llu:%02llu.%06lluZ,worker-%llu,"
                         "\"payload %016llx, \"\"quoted\"\"\"\n",
                         (unsigned long long)(rows / 7), (unsigned long long)(r % 40),
                         (unsigned long long)(r >> 8) % 60, (unsigned long long)(r >> 16) % 60,
                         (unsigned long long)(r >> 24) % 1000000,
                         (unsigned long long)(r >> 44) % 16, (unsigned long long)r);
        CHECK_INT(gzwrite(gz, row, (unsigned)n), n);
        bytes += (uint64_t)n;
        rows++;
    }
    CHECK_INT(gzclose(gz), Z_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0);

    long before = max_rss_kb();
    uint64_t t0 = core_now_ns();
    ingest_file *f;
    char why[512];
    CHECK_OK(ingest_file_open(path, NULL, &f, why, sizeof why));
    ingest_event ev;
    uint64_t n = 0, last_bytes = 0;
    int rc;
    while ((rc = ingest_file_next(f, &ev, why, sizeof why)) == 1) {
        n++;
        if ((n & 0xffff) == 0 || n == rows) {
            CHECK_INT(ev.line, n + 1);
            CHECK_INT(ev.nattrs, 2);
            CHECK_HAS(ev.attrs[1].val, ", \"quoted\"");
            ingest_file_stats s;
            ingest_file_get_stats(f, &s);
            CHECK(s.bytes >= last_bytes);
            last_bytes = s.bytes;
        }
    }
    CHECK_INT(rc, 0);
    CHECK_INT(n, rows);
    ingest_file_stats s;
    ingest_file_get_stats(f, &s);
    CHECK_INT(s.events, rows);
    CHECK_INT(s.bytes, st.st_size);
    ingest_file_close(f);
    double secs = (double)(core_now_ns() - t0) / 1e9;
    long growth = max_rss_kb() - before;
    fprintf(stderr, "  %llu rows, %.1f MB of CSV (%.1f MB gzip) in %.2f s, max RSS +%ld KiB\n",
            (unsigned long long)rows, (double)bytes / 1e6, (double)st.st_size / 1e6, secs, growth);
    CHECK(growth < 8 * 1024);
}
