/* Error codes, logging and checked allocation. */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *core_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case CORE_EFORMAT:
        return "malformed input";
    case CORE_EVERSION:
        return "unsupported format version";
    case CORE_ECORRUPT:
        return "file is corrupted or truncated";
    case CORE_ELIMIT:
        return "limit exceeded";
    case CORE_ENOTFOUND:
        return "not found";
    case CORE_EAMBIGUOUS:
        return "ambiguous name";
    case CORE_EUSAGE:
        return "invalid usage";
    case CORE_EENDIAN:
        return "written on a machine of the other byte order";
    default:
        break;
    }
    if (err < 0 && err > -4096) {
        /* strerror() is not guaranteed reentrant, but glibc's returns a
         * static table entry for known codes, which is all we pass it. */
        return strerror(-err);
    }
    return "unknown error";
}

int core_fail(char *why, size_t whylen, int err, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return err;
}

const char *core_log_level_name(core_log_level level)
{
    static const char *names[] = {"debug", "info", "note", "warning", "error"};
    if ((unsigned)level > CORE_LOG_ERROR)
        return "log";
    return names[level];
}

void core_logf(const core_logger *lg, core_log_level level, const char *fmt, ...)
{
    if (!lg || !lg->fn || level < lg->min)
        return;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        lg->fn(lg->ud, level, small);
        return;
    }
    char *big = core_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    lg->fn(lg->ud, level, big);
    free(big);
}

_Noreturn void core_panic(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pmrag: fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void *core_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (CORE_UNLIKELY(!p))
        core_panic("out of memory (%zu bytes)", n);
    return p;
}

void *core_xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (CORE_UNLIKELY(!p))
        core_panic("out of memory (%zu x %zu bytes)", count, n);
    return p;
}

void *core_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (CORE_UNLIKELY(!q))
        core_panic("out of memory (%zu bytes)", n);
    return q;
}

char *core_xstrndup(const char *s, size_t n)
{
    char *p = core_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *core_xstrdup(const char *s)
{
    return core_xstrndup(s, strlen(s));
}

void core__vec_reserve(void **v, size_t *cap, size_t elem, size_t want)
{
    if (want <= *cap)
        return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < want) {
        if (ncap > SIZE_MAX / 2 / elem)
            core_panic("vector too large (%zu elements of %zu bytes)", want, elem);
        ncap *= 2;
    }
    *v = core_xrealloc(*v, ncap * elem);
    *cap = ncap;
}
