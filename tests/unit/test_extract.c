/*
 * Golden tests of the extractors: every source file below
 * tests/fixtures/extract/ is extracted and its dump (graph__file_dump,
 * with reads) compared with the file of the same name plus ".expected".
 * PMRAG_UPDATE_GOLDEN=1 rewrites the expected files instead; review the
 * diff before committing them.
 */
#include "graph_int.h"
#include "unit.h"

#include <dirent.h>
#include <sys/stat.h>

static int check_file(const char *path)
{
    graph_lang lang;
    if (!graph__lang_of_path(path, &lang))
        return 0;
    char *src;
    size_t n;
    if (core_read_file(path, 64u << 20, &src, &n) != 0)
        unit_fail(__FILE__, __LINE__, "cannot read %s", path);
    gx_file f;
    graph__file_init(&f);
    bool arena = graph__tsalloc_begin();
    graph__extract(lang, src, n, &f);
    core_buf got = {0};
    graph__file_dump(&f, &got, true);
    if (arena)
        graph__tsalloc_end();
    graph__file_free(&f);
    free(src);

    char exp_path[8192];
    snprintf(exp_path, sizeof exp_path, "%.4000s.expected", path);
    int failed = 0;
    if (getenv("PMRAG_UPDATE_GOLDEN")) {
        CHECK_OK(core_write_file_atomic(exp_path, got.data, got.len));
        printf("  updated %s\n", exp_path);
    } else {
        char *want;
        size_t wn;
        if (core_read_file(exp_path, 64u << 20, &want, &wn) != 0) {
            fprintf(stderr, "  %s: no expected output (run with PMRAG_UPDATE_GOLDEN=1)\n", path);
            failed = 1;
        } else {
            if (wn != got.len || memcmp(want, got.data, wn) != 0) {
                /* Show the first line that differs. */
                size_t line = 1, i = 0;
                while (i < wn && i < got.len && want[i] == got.data[i]) {
                    if (want[i] == '\n')
                        line++;
                    i++;
                }
                size_t ws = i, gs = i;
                while (ws > 0 && want[ws - 1] != '\n')
                    ws--;
                while (gs > 0 && got.data[gs - 1] != '\n')
                    gs--;
                int wl = (int)strcspn(want + ws, "\n"), gl = (int)strcspn(got.data + gs, "\n");
                fprintf(stderr, "  %s: line %zu differs\n    want: %.*s\n    got:  %.*s\n", path,
                        line, wl, want + ws, gl, got.data + gs);
                failed = 1;
            }
            free(want);
        }
    }
    core_buf_free(&got);
    return failed;
}

static int check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        unit_fail(__FILE__, __LINE__, "cannot open %s", dir);
    int failed = 0, seen = 0;
    struct dirent *e;
    /* Sorted order keeps the output stable. */
    static char names[512][256];
    int nn = 0;
    while ((e = readdir(d)) && nn < 512) {
        if (e->d_name[0] == '.' || core_str_ends_with(e->d_name, ".expected"))
            continue;
        snprintf(names[nn++], 256, "%.255s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%.3800s/%.255s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            failed += check_dir(path);
            continue;
        }
        graph_lang lang;
        if (graph__lang_of_path(path, &lang))
            seen++;
        failed += check_file(path);
    }
    (void)seen;
    return failed;
}

TEST(extract_python_golden)
{
    CHECK_INT(check_dir(unit_fixture("extract/python")), 0);
}

TEST(extract_typescript_golden)
{
    CHECK_INT(check_dir(unit_fixture("extract/typescript")), 0);
}
