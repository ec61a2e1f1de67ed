/* The runner behind unit.h. */
#define _GNU_SOURCE
#include "unit.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UNIT_FIXTURES
#define UNIT_FIXTURES "."
#endif

struct unit_test {
    const char *name;
    unit_fn fn;
};
static struct unit_test tests[512];
static int ntests;
static char tmpdir[256];

void unit_register(const char *name, unit_fn fn)
{
    if (ntests < (int)(sizeof tests / sizeof tests[0]))
        tests[ntests++] = (struct unit_test){name, fn};
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

const char *unit_tmpdir(void)
{
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/pmrag-unit-XXXXXX", base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    return tmpdir;
}

const char *unit_fixture(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", UNIT_FIXTURES, rel);
    return path;
}

const char *unit_tmp_path(const char *rel)
{
    /* A ring of buffers, so that a test can hold several paths at once. */
    static char ring[8][4096];
    static unsigned next;
    char *path = ring[next++ % 8];
    snprintf(path, sizeof ring[0], "%s/%s", unit_tmpdir(), rel);
    return path;
}

const char *unit_write(const char *rel, const char *content, size_t n)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", unit_tmpdir(), rel);
    /* Create parent directories. */
    for (char *p = path + strlen(unit_tmpdir()) + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(content, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return path;
}

const char *unit_write_str(const char *rel, const char *text)
{
    return unit_write(rel, text, strlen(text));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    /* Tests chmod files to 000 to make them unreadable; removal does not
     * care about the mode of the file itself. */
    return remove(p);
}

static int run_one(const struct unit_test *t, unsigned timeout)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        alarm(timeout);
        t->fn();
        if (tmpdir[0])
            nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        fflush(NULL);
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (WIFSIGNALED(st))
        fprintf(stderr, "  killed by signal %d%s\n", WTERMSIG(st),
                WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
    return 1;
}

int main(int argc, char **argv)
{
    unsigned timeout = 120;
    const char *env = getenv("UNIT_TIMEOUT");
    if (env)
        timeout = (unsigned)atoi(env);
    int failed = 0, ran = 0;
    for (int i = 0; i < ntests; i++) {
        bool want = argc < 2;
        for (int a = 1; a < argc; a++)
            if (strcmp(argv[a], tests[i].name) == 0)
                want = true;
        if (!want)
            continue;
        ran++;
        int rc = run_one(&tests[i], timeout);
        printf("%s %s\n", rc ? "FAIL" : "ok  ", tests[i].name);
        failed += rc;
    }
    if (ran == 0) {
        fprintf(stderr, "no test matched\n");
        return 2;
    }
    printf("%d/%d passed\n", ran - failed, ran);
    return failed ? 1 : 0;
}
