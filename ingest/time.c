/*
 * Times: ISO 8601 / RFC 3339 text and Unix epoch numbers to nanoseconds,
 * and back.
 *
 * Calendar arithmetic is Howard Hinnant's days_from_civil/civil_from_days
 * (proleptic Gregorian, no tables, exact for every year we can hold).
 */
#include "ingest.h"

#include <stdio.h>
#include <string.h>

#define NS_PER_SEC 1000000000LL

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(int64_t y, unsigned m)
{
    static const unsigned char days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads exactly k digits at *p (before end) into *v. */
static bool digits(const char **p, const char *end, int k, unsigned *v)
{
    const char *s = *p;
    if (end - s < k)
        return false;
    unsigned x = 0;
    for (int i = 0; i < k; i++) {
        if (!is_digit(s[i]))
            return false;
        x = x * 10 + (unsigned)(s[i] - '0');
    }
    *v = x;
    *p = s + k;
    return true;
}

/* Fraction digits at *p as nanoseconds times unit / 1e9 (digits past the
 * resolution are read and dropped). At least one digit. */
static bool fraction(const char **p, const char *end, int64_t unit, int64_t *out)
{
    const char *s = *p;
    int64_t v = 0, scale = unit;
    if (s == end || !is_digit(*s))
        return false;
    for (; s < end && is_digit(*s); s++) {
        scale /= 10;
        v += (*s - '0') * scale;
    }
    *p = s;
    *out = v;
    return true;
}

/* sec * 1e9 + frac without overflow, and never INGEST_NO_TIME. */
static int combine(int64_t sec, int64_t frac, int64_t *ns)
{
    int64_t v;
    if (__builtin_mul_overflow(sec, NS_PER_SEC, &v) || __builtin_add_overflow(v, frac, &v) ||
        v == INGEST_NO_TIME)
        return CORE_EFORMAT;
    *ns = v;
    return 0;
}

/* [+-]digits[.digits]: Unix time in a unit chosen by magnitude. */
static int parse_epoch(const char *p, const char *end, int64_t *ns)
{
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (p == end || !is_digit(*p))
        return CORE_EFORMAT;
    uint64_t v = 0;
    for (; p < end && is_digit(*p); p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return CORE_EFORMAT;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return CORE_EFORMAT;
    int64_t unit = v < 100000000000ull         ? NS_PER_SEC
                   : v < 100000000000000ull    ? 1000000
                   : v < 100000000000000000ull ? 1000
                                               : 1;
    int64_t frac = 0;
    if (p < end) {
        if (*p != '.')
            return CORE_EFORMAT;
        p++;
        if (!fraction(&p, end, unit, &frac) || p != end)
            return CORE_EFORMAT;
    }
    int64_t whole, r;
    if (__builtin_mul_overflow((int64_t)v, unit, &whole) || __builtin_add_overflow(whole, frac, &r))
        return CORE_EFORMAT;
    if (neg)
        r = -r;
    if (r == INGEST_NO_TIME)
        return CORE_EFORMAT;
    *ns = r;
    return 0;
}

/* The zone at *p: Z, UTC, GMT, +HH, +HHMM, +HH:MM (or -). */
static bool zone(const char **pp, const char *end, int64_t *off_sec)
{
    const char *p = *pp;
    if (p < end && *p == ' ')
        p++;
    if (p == end)
        return false;
    if (*p == 'Z' || *p == 'z') {
        *off_sec = 0;
        *pp = p + 1;
        return true;
    }
    if (end - p >= 3 && (memcmp(p, "UTC", 3) == 0 || memcmp(p, "GMT", 3) == 0)) {
        *off_sec = 0;
        *pp = p + 3;
        return true;
    }
    if (*p != '+' && *p != '-')
        return false;
    int sign = *p++ == '-' ? -1 : 1;
    unsigned hh, mm = 0;
    if (!digits(&p, end, 2, &hh) || hh > 23)
        return false;
    if (p < end && *p == ':') {
        p++;
        if (!digits(&p, end, 2, &mm))
            return false;
    } else if (p < end && is_digit(*p) && !digits(&p, end, 2, &mm)) {
        return false;
    }
    if (mm > 59)
        return false;
    *off_sec = sign * (int64_t)(hh * 3600 + mm * 60);
    *pp = p;
    return true;
}

static int parse_iso(const char *p, const char *end, int64_t *ns)
{
    unsigned y, mo, d, h = 0, mi = 0, s = 0;
    int64_t frac = 0, off = 0;
    if (!digits(&p, end, 4, &y) || p == end || *p++ != '-' || !digits(&p, end, 2, &mo) ||
        p == end || *p++ != '-' || !digits(&p, end, 2, &d))
        return CORE_EFORMAT;
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
        return CORE_EFORMAT;
    if (p < end) {
        if (*p != 'T' && *p != 't' && *p != ' ')
            return CORE_EFORMAT;
        p++;
        if (!digits(&p, end, 2, &h) || p == end || *p++ != ':' || !digits(&p, end, 2, &mi))
            return CORE_EFORMAT;
        if (p < end && *p == ':') {
            p++;
            if (!digits(&p, end, 2, &s))
                return CORE_EFORMAT;
            if (p < end && (*p == '.' || *p == ',')) {
                p++;
                if (!fraction(&p, end, NS_PER_SEC, &frac))
                    return CORE_EFORMAT;
            }
        }
        /* 60 is a leap second: it reads as the next minute's 00. */
        if (h > 23 || mi > 59 || s > 60)
            return CORE_EFORMAT;
        if (p < end && !zone(&p, end, &off))
            return CORE_EFORMAT;
        if (p != end)
            return CORE_EFORMAT;
    }
    int64_t sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off;
    return combine(sec, frac, ns);
}

int ingest_parse_time(const char *s, size_t n, int64_t *ns)
{
    const char *p = s, *end = s + n;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        end--;
    if (p == end)
        return CORE_EFORMAT;
    /* A date starts with four digits and a '-'; anything else numeric is
     * an epoch number. */
    if (end - p >= 5 && is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3]) &&
        p[4] == '-')
        return parse_iso(p, end, ns);
    return parse_epoch(p, end, ns);
}

void ingest_format_time(int64_t ns, char *buf, size_t len)
{
    if (!len)
        return;
    if (ns == INGEST_NO_TIME) {
        buf[0] = 0;
        return;
    }
    int64_t sec = ns / NS_PER_SEC, frac = ns % NS_PER_SEC;
    if (frac < 0) {
        frac += NS_PER_SEC;
        sec--;
    }
    int64_t days = sec / 86400, rem = sec % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(buf, len, "%04lld-%02u-%02uT%02u:%02u:%02u.%09lldZ", (long long)y, m, d,
             (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60),
             (long long)frac);
}
