/*
 * fuzz.h - what the libFuzzer targets in tests/fuzz share.
 *
 * Each target feeds one parser of untrusted bytes and checks what the
 * parser promises (an event's case id is never empty, values respect the
 * limits, an error leaves the output as it was, ...): a broken promise
 * aborts, and libFuzzer reports it like a crash. Logs are dropped: every
 * target passes a logger without a callback.
 *
 * Threading: the helpers keep state of their own (the memory file) and
 * are for the fuzzing thread only.
 */
#ifndef PMRAG_FUZZ_H
#define PMRAG_FUZZ_H

#include "core.h"
#include "ingest.h"

#include <stddef.h>
#include <stdint.h>

/* The entry points libFuzzer calls (declared here for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Aborts with file, line and the failed condition. */
#define FUZZ_CHECK(c)                                                                              \
    do {                                                                                           \
        if (!(c))                                                                                  \
            fuzz_fail(__FILE__, __LINE__, #c);                                                     \
    } while (0)

_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/*
 * A path whose file holds exactly data[0, size): one memory file (memfd)
 * per process, rewritten for each input and named /proc/self/fd/N, so the
 * file parsers read it through open() as they read any file. Valid until
 * the next call.
 */
const char *fuzz_file(const uint8_t *data, size_t size);

/*
 * Checks an event from any decoder and reads every byte it points to (so
 * that AddressSanitizer sees a pointer into freed or foreign memory):
 * case id non-empty, activity and attributes present. max_str, when not
 * 0, bounds the activity and every value but the case id's (not keys:
 * the in-memory decoders leave case keys whole, the file formats do not
 * cut); a case id is never cut, and max_case_id, when not 0, bounds it.
 */
void fuzz_check_event(const ingest_event *ev, size_t max_str, size_t max_case_id);

/* Where the targets put values they compute only to have them read. */
extern volatile size_t fuzz_sink;

/* The same data as a NUL-terminated copy (for parsers of C strings);
 * free() it. */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif
