/* The event-file driver (see fuzz_files.h). */
#include "fuzz_files.h"

#include <string.h>

static bool open_error_ok(int rc)
{
    return rc == CORE_EFORMAT || rc == CORE_ECORRUPT || rc == CORE_ELIMIT;
}

static void read_once(ingest_format fmt, const char *path, size_t size, const ingest_file_opts *o)
{
    ingest_file_opts opts = *o;
    opts.format = fmt;
    ingest_file *f;
    char why[1024] = "";
    int rc = ingest_file_open(path, &opts, &f, why, sizeof why);
    if (rc) {
        FUZZ_CHECK(open_error_ok(rc));
        FUZZ_CHECK(strstr(why, path) != NULL);
        return;
    }
    FUZZ_CHECK(ingest_file_format(f) != INGEST_FMT_AUTO);
    FUZZ_CHECK(fmt == INGEST_FMT_AUTO || ingest_file_format(f) == fmt);
    /* An event or a malformed record takes at least a byte or two of
     * input: more calls than that is a loop that does not end. */
    uint64_t events = 0, calls = 0, limit = 2 * (uint64_t)size + 16;
    ingest_file_stats st;
    for (;;) {
        FUZZ_CHECK(++calls <= limit);
        ingest_event ev;
        ingest_file_get_stats(f, &st);
        uint64_t records_before = st.records;
        rc = ingest_file_next(f, &ev, why, sizeof why);
        if (rc == 1) {
            fuzz_check_event(&ev, 0, 0);
            FUZZ_CHECK(ev.line >= 1);
            events++;
            continue;
        }
        if (rc == 0)
            break;
        FUZZ_CHECK(rc < 0 && why[0] != 0);
        ingest_file_get_stats(f, &st);
        /* A malformed record is skipped over; any other error ends the
         * file and comes again. */
        if (rc == CORE_EFORMAT && !opts.skip_bad && st.records > records_before)
            continue;
        char again[1024];
        FUZZ_CHECK(ingest_file_next(f, &ev, again, sizeof again) == rc);
        FUZZ_CHECK(strcmp(again, why) == 0);
        break;
    }
    ingest_file_get_stats(f, &st);
    FUZZ_CHECK(st.events == events);
    FUZZ_CHECK(st.bad <= st.records);
    FUZZ_CHECK(opts.skip_bad || st.bad == 0);
    ingest_file_close(f);
}

void fuzz_read_events(ingest_format fmt, const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    static const char *const case_attrs[] = {"c"};
    const ingest_file_opts opts[2] = {
        {0},
        {.case_key = "c",
         .activity_key = "a",
         .time_key = "t",
         .skip_bad = true,
         .case_attrs = case_attrs,
         .ncase_attrs = 1,
         .max_record = 64},
    };
    for (int i = 0; i < 2; i++)
        read_once(fmt, path, size, &opts[i]);
}
