/* Names of the graph's enumerations, as used in JSON and on the command line. */
#include "graph_int.h"

#include <string.h>

const char *graph_sym_kind_name(graph_sym_kind k)
{
    static const char *n[] = {"module", "class", "interface", "enum", "type", "function", "method"};
    return (unsigned)k < GRAPH_SYM__COUNT ? n[k] : "?";
}

const char *graph_edge_type_name(graph_edge_type t)
{
    static const char *n[] = {"calls", "imports", "inherits", "uses", "accesses", "member_of"};
    return (unsigned)t < GRAPH_EDGE__COUNT ? n[t] : "?";
}

const char *graph_emit_kind_name(graph_emit_kind k)
{
    static const char *n[] = {"log", "print", "warn", "span", "event", "const", "call"};
    return (unsigned)k < GRAPH_EMIT__COUNT ? n[k] : "?";
}

const char *graph_style_name(graph_style s)
{
    static const char *n[] = {"none",     "plain",  "percent", "brace",  "fstring",
                              "template", "concat", "ref",     "dynamic"};
    return (unsigned)s < GRAPH_STYLE__COUNT ? n[s] : "?";
}

const char *graph_level_name(graph_level l)
{
    static const char *n[] = {"none",    "trace", "debug",    "info",  "notice",
                              "warning", "error", "critical", "custom"};
    return (unsigned)l < GRAPH_LEVEL__COUNT ? n[l] : "?";
}

const char *graph_lang_name(graph_lang l)
{
    static const char *n[] = {"python", "typescript", "tsx", "javascript"};
    return (unsigned)l < GRAPH_LANG__COUNT ? n[l] : "?";
}

int graph_lang_mask_parse(const char *list, unsigned *mask)
{
    static const struct {
        const char *name;
        unsigned mask;
    } names[] = {
        {"py", 1u << GRAPH_LANG_PYTHON},      {"python", 1u << GRAPH_LANG_PYTHON},
        {"ts", 1u << GRAPH_LANG_TYPESCRIPT},  {"typescript", 1u << GRAPH_LANG_TYPESCRIPT},
        {"tsx", 1u << GRAPH_LANG_TSX},        {"js", 1u << GRAPH_LANG_JAVASCRIPT},
        {"jsx", 1u << GRAPH_LANG_JAVASCRIPT}, {"javascript", 1u << GRAPH_LANG_JAVASCRIPT},
    };
    unsigned m = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        bool ok = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (strlen(names[i].name) == n && strncmp(names[i].name, p, n) == 0) {
                m |= names[i].mask;
                ok = true;
            }
        }
        if (!ok && n > 0)
            return CORE_EUSAGE;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!m)
        return CORE_EUSAGE;
    *mask = m;
    return 0;
}

bool graph__lang_of_path(const char *path, graph_lang *out)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot)
        return false;
    static const struct {
        const char *ext;
        graph_lang lang;
    } exts[] = {
        {".py", GRAPH_LANG_PYTHON},      {".pyi", GRAPH_LANG_PYTHON},
        {".ts", GRAPH_LANG_TYPESCRIPT},  {".mts", GRAPH_LANG_TYPESCRIPT},
        {".cts", GRAPH_LANG_TYPESCRIPT}, {".tsx", GRAPH_LANG_TSX},
        {".js", GRAPH_LANG_JAVASCRIPT},  {".mjs", GRAPH_LANG_JAVASCRIPT},
        {".cjs", GRAPH_LANG_JAVASCRIPT}, {".jsx", GRAPH_LANG_JAVASCRIPT},
    };
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        if (strcmp(dot, exts[i].ext) == 0) {
            *out = exts[i].lang;
            return true;
        }
    }
    return false;
}
