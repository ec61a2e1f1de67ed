/*
 * The buffered reader under every file format.
 *
 * zlib's gzread decompresses gzip data and passes anything else through
 * as it is, so compression is recognised by content (the magic bytes), not
 * by the file name. The buffer grows only when one line does not fit, and
 * never past the record cap, so a file of any size is read in bounded
 * memory.
 */
#include "ingest_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READER_INITIAL (256 * 1024)
/* zlib's own input buffer: larger than its 8 KiB default, for fewer
 * read() calls. */
#define READER_GZBUF (128 * 1024)

int ingest__reader_open(ingest__reader *r, const char *path, size_t max, char *why, size_t whylen)
{
    memset(r, 0, sizeof *r);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = -errno;
        return core_fail(why, whylen, err, "%s: %s", path, core_strerror(err));
    }
    struct stat st;
    int err = fstat(fd, &st) != 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : 0;
    if (err) {
        close(fd);
        return core_fail(why, whylen, err, "%s: %s", path, core_strerror(err));
    }
    r->gz = gzdopen(fd, "rb");
    if (!r->gz) {
        close(fd);
        return core_fail(why, whylen, -ENOMEM, "%s: %s", path, core_strerror(-ENOMEM));
    }
    gzbuffer(r->gz, READER_GZBUF);
    r->path = path;
    r->max = max;
    r->cap = READER_INITIAL < max + 1 ? READER_INITIAL : max + 1;
    r->buf = core_xmalloc(r->cap);
    return 0;
}

/* The error zlib recorded, as a code and a message naming the offset. */
static int gz_failure(ingest__reader *r, char *why, size_t whylen)
{
    int zerr = Z_OK;
    const char *msg = gzerror(r->gz, &zerr);
    if (zerr == Z_ERRNO) {
        int err = errno ? -errno : -EIO;
        return core_fail(why, whylen, err, "%s: read error: %s", r->path, core_strerror(err));
    }
    if (zerr == Z_MEM_ERROR)
        return core_fail(why, whylen, -ENOMEM, "%s: %s", r->path, core_strerror(-ENOMEM));
    if (zerr == Z_BUF_ERROR)
        msg = "unexpected end of file (truncated)";
    return core_fail(why, whylen, CORE_ECORRUPT, "%s: byte %llu: gzip data is corrupt: %s", r->path,
                     (unsigned long long)ingest__reader_offset(r), msg ? msg : "unknown error");
}

int ingest__reader_fill(ingest__reader *r, char *why, size_t whylen)
{
    if (r->eof)
        return 0;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->scan -= r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        if (r->cap > r->max)
            return core_fail(why, whylen, CORE_ELIMIT, "%s: record longer than %zu bytes", r->path,
                             r->max);
        size_t cap = r->cap * 2;
        if (cap > r->max + 1 || cap < r->cap)
            cap = r->max + 1;
        r->buf = core_xrealloc(r->buf, cap);
        r->cap = cap;
    }
    size_t room = r->cap - r->len;
    if (room > INT32_MAX)
        room = INT32_MAX;
    errno = 0;
    int n = gzread(r->gz, r->buf + r->len, (unsigned)room);
    if (n < 0)
        return gz_failure(r, why, whylen);
    if (n == 0) {
        /* gzread reports a truncated stream by returning what it had and
         * leaving Z_BUF_ERROR behind. */
        int zerr = Z_OK;
        gzerror(r->gz, &zerr);
        if (zerr != Z_OK)
            return gz_failure(r, why, whylen);
        r->eof = true;
        return 0;
    }
    r->len += (size_t)n;
    return n;
}

int ingest__reader_line(ingest__reader *r, const char **p, size_t *n, char *why, size_t whylen)
{
    size_t start, end;
    for (;;) {
        char *nl = r->scan < r->len ? memchr(r->buf + r->scan, '\n', r->len - r->scan) : NULL;
        if (nl) {
            start = r->pos;
            end = (size_t)(nl - r->buf);
            r->pos = end + 1;
            break;
        }
        r->scan = r->len;
        if (r->len - r->pos > r->max)
            return core_fail(why, whylen, CORE_ELIMIT, "%s:%llu: line longer than %zu bytes",
                             r->path, (unsigned long long)r->line + 1, r->max);
        int rc = ingest__reader_fill(r, why, whylen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (r->pos == r->len)
                return 0;
            start = r->pos;
            end = r->len;
            r->pos = r->len;
            break;
        }
    }
    r->scan = r->pos;
    r->line++;
    if (end > start && r->buf[end - 1] == '\r')
        end--;
    *p = r->buf + start;
    *n = end - start;
    return 1;
}

uint64_t ingest__reader_offset(const ingest__reader *r)
{
    if (!r->gz)
        return 0;
    z_off_t off = gzoffset(r->gz);
    return off < 0 ? 0 : (uint64_t)off;
}

void ingest__reader_close(ingest__reader *r)
{
    if (r->gz)
        gzclose_r(r->gz);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int ingest__reader_text_line(ingest__reader *r, const char **p, size_t *n, char *why, size_t whylen)
{
    for (;;) {
        int rc = ingest__reader_line(r, p, n, why, whylen);
        if (rc <= 0)
            return rc;
        for (size_t i = 0; i < *n; i++)
            if ((*p)[i] != ' ' && (*p)[i] != '\t' && (*p)[i] != '\r')
                return 1;
    }
}
