/*
 * A small unit-test runner: TEST(name) registers a test; each test runs in
 * its own forked process with a timeout, so one crash or hang is reported
 * as that test's failure and the others still run.
 *
 *   ./test_core            run every test
 *   ./test_core NAME...    run the named tests
 */
#ifndef PMRAG_UNIT_H
#define PMRAG_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*unit_fn)(void);
void unit_register(const char *name, unit_fn fn);
void unit_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* A directory private to this test process (removed at exit). */
const char *unit_tmpdir(void);
/* Path of a fixture below tests/fixtures. */
const char *unit_fixture(const char *rel);
/* Path of rel below unit_tmpdir(); valid until eight more calls. */
const char *unit_tmp_path(const char *rel);
/* Writes a file below unit_tmpdir() and returns its path. */
const char *unit_write(const char *rel, const char *content, size_t n);
/* unit_write() of a NUL-terminated text. */
const char *unit_write_str(const char *rel, const char *text);

#define TEST(name)                                                                                 \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void unit_reg_##name(void)                                 \
    {                                                                                              \
        unit_register(#name, name);                                                                \
    }                                                                                              \
    static void name(void)

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c))                                                                                  \
            unit_fail(__FILE__, __LINE__, "CHECK(%s)", #c);                                        \
    } while (0)

#define CHECK_INT(a, b)                                                                            \
    do {                                                                                           \
        long long unit_a = (long long)(a), unit_b = (long long)(b);                                \
        if (unit_a != unit_b)                                                                      \
            unit_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, unit_a, unit_b);       \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *unit_a = (a), *unit_b = (b);                                                   \
        if (!unit_a || !unit_b || strcmp(unit_a, unit_b) != 0)                                     \
            unit_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,                    \
                      unit_a ? unit_a : "(null)", unit_b ? unit_b : "(null)");                     \
    } while (0)

#define CHECK_OK(e)                                                                                \
    do {                                                                                           \
        int unit_rc = (e);                                                                         \
        if (unit_rc != 0)                                                                          \
            unit_fail(__FILE__, __LINE__, "%s returned %d", #e, unit_rc);                          \
    } while (0)

#endif
