/* Files and paths. */
#define _GNU_SOURCE
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int core_read_file(const char *path, size_t max, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    int err = 0;
    char *buf = NULL;
    if (fstat(fd, &st) < 0) {
        err = -errno;
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        err = -EISDIR;
        goto fail;
    }
    /* Regular files are read in one go; anything else (a pipe, a device)
     * is read until end of file, up to the limit. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        err = CORE_ELIMIT;
        goto fail;
    }
    buf = malloc(cap);
    if (!buf) {
        err = -ENOMEM;
        goto fail;
    }
    size_t n = 0;
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                err = CORE_ELIMIT;
                goto fail;
            }
            size_t ncap = cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                err = -ENOMEM;
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = -errno;
            goto fail;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max) {
            err = CORE_ELIMIT;
            goto fail;
        }
    }
    close(fd);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
fail:
    free(buf);
    close(fd);
    return err;
}

int core_mmap_open(const char *path, core_mmap *m)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    }
    if (st.st_size == 0) {
        close(fd);
        m->data = NULL;
        m->size = 0;
        return 0;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = p == MAP_FAILED ? -errno : 0;
    close(fd);
    if (err)
        return err;
    m->data = p;
    m->size = (size_t)st.st_size;
    return 0;
}

void core_mmap_close(core_mmap *m)
{
    if (m->data)
        munmap((void *)m->data, m->size);
    m->data = NULL;
    m->size = 0;
}

int core_write_file_atomic(const char *path, const void *data, size_t n)
{
    size_t plen = strlen(path);
    char *tmp = core_xmalloc(plen + 32);
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    int err = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        err = -errno;
        free(tmp);
        return err;
    }
    const char *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err = -errno;
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) < 0) {
        err = -errno;
        goto fail;
    }
    if (close(fd) < 0) {
        fd = -1;
        err = -errno;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) < 0) {
        err = -errno;
        goto fail;
    }
    free(tmp);
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    return err;
}

bool core_str_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* ---- glob ---- */

/* Matches a class at *pp against c; advances *pp past the class. Returns
 * -1 for a malformed class (then '[' is taken literally). */
static int glob_class(const char **pp, char c)
{
    const char *p = *pp + 1;
    bool neg = false;
    if (*p == '!' || *p == '^') {
        neg = true;
        p++;
    }
    bool hit = false;
    bool first = true;
    while (*p && (*p != ']' || first)) {
        first = false;
        char lo = *p;
        if (lo == '\\' && p[1])
            lo = *++p;
        char hi = lo;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hi = p[2];
            if (hi == '\\' && p[3])
                hi = p[3], p++;
            p += 2;
        }
        if (c >= lo && c <= hi)
            hit = true;
        p++;
    }
    if (*p != ']')
        return -1;
    *pp = p + 1;
    return hit != neg;
}

/* Matches one component pattern [p, pe) against one component [s, se). */
static bool glob_component(const char *p, const char *pe, const char *s, const char *se)
{
    const char *star_p = NULL, *star_s = NULL;
    while (s < se) {
        if (p < pe && *p == '*') {
            star_p = ++p;
            star_s = s;
            continue;
        }
        if (p < pe) {
            const char *q = p;
            bool ok;
            if (*q == '?') {
                ok = true;
                q++;
            } else if (*q == '[') {
                const char *save = q;
                int r = glob_class(&q, *s);
                if (r < 0) {
                    q = save + 1;
                    ok = *s == '[';
                } else {
                    ok = r == 1;
                }
                if (q > pe)
                    ok = false;
            } else {
                if (*q == '\\' && q + 1 < pe)
                    q++;
                ok = *q == *s;
                q++;
            }
            if (ok) {
                p = q;
                s++;
                continue;
            }
        }
        if (!star_p)
            return false;
        p = star_p;
        s = ++star_s;
    }
    while (p < pe && *p == '*')
        p++;
    return p == pe;
}

static const char *comp_end(const char *s)
{
    const char *e = strchr(s, '/');
    return e ? e : s + strlen(s);
}

/* Matches a '/'-separated pattern against a '/'-separated path, with '**'
 * standing for zero or more whole components. */
static bool glob_path(const char *p, const char *s)
{
    for (;;) {
        if (!*p)
            return !*s;
        const char *pe = comp_end(p);
        if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
            const char *rest = *pe ? pe + 1 : pe;
            if (!*rest)
                return true;
            for (const char *t = s;;) {
                if (glob_path(rest, t))
                    return true;
                const char *te = comp_end(t);
                if (!*te)
                    return false;
                t = te + 1;
            }
        }
        if (!*s)
            return false;
        const char *se = comp_end(s);
        if (!glob_component(p, pe, s, se))
            return false;
        p = *pe ? pe + 1 : pe;
        s = *se ? se + 1 : se;
        if (!*p && *s)
            return false;
    }
}

bool core_glob_match(const char *pattern, const char *path)
{
    size_t plen = strlen(pattern);
    char tmp[1024];
    /* A trailing '/' only says "a directory"; we match names. */
    if (plen > 1 && pattern[plen - 1] == '/' && plen < sizeof tmp) {
        memcpy(tmp, pattern, plen - 1);
        tmp[plen - 1] = 0;
        pattern = tmp;
    }
    while (pattern[0] == '.' && pattern[1] == '/')
        pattern += 2;
    if (!strchr(pattern, '/')) {
        const char *pe = pattern + strlen(pattern);
        for (const char *s = path;;) {
            const char *se = comp_end(s);
            if (glob_component(pattern, pe, s, se))
                return true;
            if (!*se)
                return false;
            s = se + 1;
        }
    }
    if (pattern[0] == '/')
        pattern++;
    return glob_path(pattern, path);
}
