/* Table-driven configuration: YAML files, KEY=VALUE overrides, reference. */
#include "core.h"
#include "core_cfg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

typedef struct {
    char *text; /* the value as written */
    double num; /* INT, DOUBLE */
    bool b;     /* BOOL */
    char *origin;
} cfg_value;

struct core_cfg {
    const core_cfg_item *table;
    size_t n;
    cfg_value *v;
};

static int find(const core_cfg_item *table, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].key, key) == 0)
            return (int)i;
    return -1;
}

/* Parses text for item it into *out; on error writes the reason (without
 * location) and returns false. */
static bool parse_value(const core_cfg_item *it, const char *text, cfg_value *out, char *why,
                        size_t whylen)
{
    out->num = 0;
    out->b = false;
    switch (it->type) {
    case CORE_CFG_BOOL: {
        static const char *const yes[] = {"true", "yes", "on", "1"};
        static const char *const no[] = {"false", "no", "off", "0"};
        for (size_t i = 0; i < 4; i++) {
            if (strcasecmp(text, yes[i]) == 0) {
                out->b = true;
                return true;
            }
            if (strcasecmp(text, no[i]) == 0)
                return true;
        }
        snprintf(why, whylen, "'%s' is not true or false", text);
        return false;
    }
    case CORE_CFG_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        /* strtoll and strtod skip leading white space, which a quoted
         * value may carry (even a line break, which the dump cannot
         * write back as it is): not a number either. */
        if (!*text || isspace((unsigned char)*text) || *end || errno || (double)v < it->min ||
            (double)v > it->max) {
            snprintf(why, whylen, "'%s' is not a whole number from %.0f to %.0f", text, it->min,
                     it->max);
            return false;
        }
        out->num = (double)v;
        return true;
    }
    case CORE_CFG_DOUBLE: {
        char *end;
        double v = strtod(text, &end);
        if (!*text || isspace((unsigned char)*text) || *end || !isfinite(v) || v < it->min ||
            v > it->max) {
            snprintf(why, whylen, "'%s' is not a number from %g to %g", text, it->min, it->max);
            return false;
        }
        out->num = v;
        return true;
    }
    case CORE_CFG_STRING:
        /* YAML is UTF-8: a value that is not could not be written back
         * (core_cfg_dump). */
        if (core_utf8_valid_prefix(text, strlen(text)) != strlen(text)) {
            snprintf(why, whylen, "value is not valid UTF-8");
            return false;
        }
        return true;
    case CORE_CFG_ENUM:
        for (const char *const *c = it->choices; c && *c; c++)
            if (strcmp(*c, text) == 0)
                return true;
        {
            core_buf b = {0};
            for (const char *const *c = it->choices; c && *c; c++)
                core_buf_printf(&b, "%s%s", c == it->choices ? "" : ", ", *c);
            snprintf(why, whylen, "'%s' is not one of %s", text, b.data ? b.data : "");
            core_buf_free(&b);
        }
        return false;
    }
    return false;
}

core_cfg *core_cfg_new(const core_cfg_item *table, size_t n)
{
    core_cfg *c = core_xcalloc(1, sizeof *c);
    c->table = table;
    c->n = n;
    c->v = core_xcalloc(n ? n : 1, sizeof *c->v);
    for (size_t i = 0; i < n; i++) {
        char why[256];
        if (!parse_value(&table[i], table[i].def, &c->v[i], why, sizeof why))
            core_panic("config default of %s: %s", table[i].key, why);
        c->v[i].text = core_xstrdup(table[i].def);
        c->v[i].origin = core_xstrdup("default");
    }
    return c;
}

void core_cfg_free(core_cfg *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].text);
        free(c->v[i].origin);
    }
    free(c->v);
    free(c);
}

/* A pending change, applied only when the whole file is valid. */
typedef struct {
    int index;
    cfg_value val;
} change;

typedef core_vec(change) changes;

static void drop_changes(changes *ch)
{
    for (size_t i = 0; i < ch->n; i++) {
        free(ch->v[i].val.text);
        free(ch->v[i].val.origin);
    }
    core_vec_free(ch);
}

static void apply_changes(core_cfg *c, changes *ch)
{
    for (size_t i = 0; i < ch->n; i++) {
        cfg_value *dst = &c->v[ch->v[i].index];
        free(dst->text);
        free(dst->origin);
        *dst = ch->v[i].val;
    }
    core_vec_free(ch);
}

typedef struct {
    const core_cfg *c;
    const char *path;
    yaml_document_t *doc;
    changes ch;
    char *why;
    size_t whylen;
} loader;

static bool load_fail(loader *l, const yaml_node_t *at, const char *fmt, ...) CORE_PRINTF(3, 4);
static bool load_fail(loader *l, const yaml_node_t *at, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->why, l->whylen, "%s:%zu: %s", l->path, at ? at->start_mark.line + 1 : 0, msg);
    return false;
}

static bool walk_mapping(loader *l, const yaml_node_t *map, const char *prefix, int depth)
{
    if (depth > 16)
        return load_fail(l, map, "nesting too deep");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(l->doc, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE)
            return load_fail(l, k ? k : map, "keys must be plain names");
        char key[256];
        int kn = snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "",
                          (const char *)k->data.scalar.value);
        if (kn < 0 || (size_t)kn >= sizeof key)
            return load_fail(l, k, "key too long");
        int idx = find(l->c->table, l->c->n, key);
        size_t kl = strlen(key);
        bool section = false;
        for (size_t i = 0; i < l->c->n && !section; i++)
            section = strncmp(l->c->table[i].key, key, kl) == 0 && l->c->table[i].key[kl] == '.';
        /* Only a plain scalar is "no value": a quoted "" is an empty
         * string (what core_cfg_dump writes for one). */
        bool empty =
            v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
            (v->data.scalar.length == 0 || strcmp((const char *)v->data.scalar.value, "~") == 0 ||
             strcmp((const char *)v->data.scalar.value, "null") == 0);
        if (section && v->type == YAML_MAPPING_NODE) {
            if (!walk_mapping(l, v, key, depth + 1))
                return false;
            continue;
        }
        if (section && empty) /* every key of it commented out */
            continue;
        if (section)
            return load_fail(l, k, "'%s' is a section; give its keys under it", key);
        if (idx < 0)
            return load_fail(l, k, "unknown key '%s' (see pmrag config --reference)", key);
        if (v->type != YAML_SCALAR_NODE)
            return load_fail(l, v, "key '%s' takes a single value, not a %s", key,
                             v->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
        for (size_t i = 0; i < l->ch.n; i++)
            if (l->ch.v[i].index == idx)
                return load_fail(l, k, "key '%s' is given twice (first at %s)", key,
                                 l->ch.v[i].val.origin);
        const char *text = (const char *)v->data.scalar.value;
        if (empty)
            return load_fail(l, v, "key '%s' has no value", key);
        change chg = {idx, {0}};
        char why[320];
        if (!parse_value(&l->c->table[idx], text, &chg.val, why, sizeof why))
            return load_fail(l, v, "key '%s': %s", key, why);
        chg.val.text = core_xstrdup(text);
        char origin[512];
        snprintf(origin, sizeof origin, "%s:%zu", l->path, v->start_mark.line + 1);
        chg.val.origin = core_xstrdup(origin);
        core_vec_push(&l->ch, chg);
    }
    return true;
}

int core_cfg_load(core_cfg *c, const char *path, char *why, size_t whylen)
{
    yaml_document_t doc;
    int rc = core_yaml_load_file(path, &doc, why, whylen);
    if (rc)
        return rc;
    loader l = {c, path, &doc, {0}, why, whylen};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool ok = true;
    if (root) {
        if (root->type == YAML_MAPPING_NODE)
            ok = walk_mapping(&l, root, "", 0);
        else if (!(root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0))
            ok = load_fail(&l, root, "the top level must be a mapping of keys");
    }
    yaml_document_delete(&doc);
    if (!ok) {
        drop_changes(&l.ch);
        return CORE_EFORMAT;
    }
    apply_changes(c, &l.ch);
    return 0;
}

int core_cfg_put(core_cfg *c, const char *key, const char *value, const char *origin, char *why,
                 size_t whylen)
{
    int idx = find(c->table, c->n, key);
    if (idx < 0) {
        snprintf(why, whylen, "unknown key '%s' (see pmrag config --reference)", key);
        return CORE_EUSAGE;
    }
    cfg_value val = {0};
    if (!parse_value(&c->table[idx], value, &val, why, whylen))
        return CORE_EUSAGE;
    val.text = core_xstrdup(value);
    val.origin = core_xstrdup(origin);
    free(c->v[idx].text);
    free(c->v[idx].origin);
    c->v[idx] = val;
    return 0;
}

int core_cfg_set(core_cfg *c, const char *assignment, char *why, size_t whylen)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        snprintf(why, whylen, "'%s' is not KEY=VALUE", assignment);
        return CORE_EUSAGE;
    }
    char key[256];
    snprintf(key, sizeof key, "%.*s", (int)(eq - assignment), assignment);
    char reason[320];
    int rc = core_cfg_put(c, key, eq + 1, "--set", reason, sizeof reason);
    if (rc) {
        if (find(c->table, c->n, key) < 0)
            snprintf(why, whylen, "%s", reason);
        else
            snprintf(why, whylen, "key '%s': %s", key, reason);
    }
    return rc;
}

static const cfg_value *get(const core_cfg *c, const char *key, core_cfg_type type)
{
    int idx = find(c->table, c->n, key);
    if (idx < 0 || c->table[idx].type != type)
        core_panic("config key %s is not a %d", key, (int)type);
    return &c->v[idx];
}

bool core_cfg_bool(const core_cfg *c, const char *key)
{
    return get(c, key, CORE_CFG_BOOL)->b;
}

int64_t core_cfg_int(const core_cfg *c, const char *key)
{
    return (int64_t)get(c, key, CORE_CFG_INT)->num;
}

double core_cfg_double(const core_cfg *c, const char *key)
{
    return get(c, key, CORE_CFG_DOUBLE)->num;
}

const char *core_cfg_str(const core_cfg *c, const char *key)
{
    int idx = find(c->table, c->n, key);
    if (idx < 0 || (c->table[idx].type != CORE_CFG_STRING && c->table[idx].type != CORE_CFG_ENUM))
        core_panic("config key %s is not a string", key);
    return c->v[idx].text;
}

const char *core_cfg_text(const core_cfg *c, const char *key)
{
    int idx = find(c->table, c->n, key);
    return idx < 0 ? NULL : c->v[idx].text;
}

const char *core_cfg_origin(const core_cfg *c, const char *key)
{
    int idx = find(c->table, c->n, key);
    return idx < 0 ? NULL : c->v[idx].origin;
}

bool core_cfg_is_set(const core_cfg *c, const char *key)
{
    const char *o = core_cfg_origin(c, key);
    return o && strcmp(o, "default") != 0;
}

static void type_text(const core_cfg_item *it, core_buf *out)
{
    switch (it->type) {
    case CORE_CFG_BOOL:
        core_buf_puts(out, "true/false");
        break;
    case CORE_CFG_INT:
        core_buf_printf(out, "integer %.0f..%.0f", it->min, it->max);
        break;
    case CORE_CFG_DOUBLE:
        core_buf_printf(out, "number %g..%g", it->min, it->max);
        break;
    case CORE_CFG_STRING:
        core_buf_puts(out, "string");
        break;
    case CORE_CFG_ENUM:
        for (const char *const *c = it->choices; c && *c; c++)
            core_buf_printf(out, "%s`%s`", c == it->choices ? "" : ", ", *c);
        break;
    }
}

void core_cfg_reference(const core_cfg_item *table, size_t n, core_buf *out)
{
    core_buf_puts(out, "| key | type | default | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        core_buf_printf(out, "| `%s` | ", table[i].key);
        type_text(&table[i], out);
        if (table[i].def[0])
            core_buf_printf(out, " | `%s` | %s |\n", table[i].def, table[i].help);
        else
            core_buf_printf(out, " | (empty) | %s |\n", table[i].help);
    }
}

/*
 * A YAML double-quoted scalar that reads back as s (valid UTF-8: values
 * are checked when set): quotes and backslashes escaped, and so is every
 * character YAML refuses in a stream (C0 and C1 controls, DEL, U+FEFF,
 * U+FFFE, U+FFFF) or would fold into a space (line breaks: LF, CR, NEL,
 * LS, PS).
 */
static void dump_string(core_buf *out, const char *s)
{
    const unsigned char *t = (const unsigned char *)s;
    size_t n = strlen(s);
    core_buf_putc(out, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = t[i];
        size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        if (len > n - i || core_utf8_valid_prefix(s + i, len) != len)
            len = 1; /* not reached for a checked value; copied as it is */
        unsigned cp = c;
        if (len > 1) {
            cp = c & (0x7fu >> len);
            for (size_t k = 1; k < len; k++)
                cp = (cp << 6) | (t[i + k] & 0x3fu);
        }
        if (cp == '"' || cp == '\\')
            core_buf_printf(out, "\\%c", (char)cp);
        else if (cp == '\n')
            core_buf_puts(out, "\\n");
        else if (cp == '\t')
            core_buf_puts(out, "\\t");
        else if (cp < 0x20 || cp == 0x7f)
            core_buf_printf(out, "\\x%02x", cp);
        else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
                 cp == 0xfffe || cp == 0xffff)
            core_buf_printf(out, "\\u%04x", cp);
        else
            core_buf_append(out, s + i, len);
        i += len;
    }
    core_buf_putc(out, '"');
}

/* The first key of the table (at or before i) that starts with the first
 * plen bytes of key i: where the section those bytes name first appears. */
static size_t section_first(const core_cfg *c, size_t i, size_t plen)
{
    for (size_t j = 0; j < i; j++)
        if (strncmp(c->table[j].key, c->table[i].key, plen) == 0)
            return j;
    return i;
}

/* Dump order: level by level, a section (or a key) ranks where it first
 * appears in the table, so every key of a section is printed under one
 * heading even when the table lists the section's keys apart. */
static int dump_cmp(const core_cfg *c, size_t a, size_t b)
{
    const char *ka = c->table[a].key, *kb = c->table[b].key;
    size_t off = 0;
    for (;;) {
        const char *da = strchr(ka + off, '.'), *db = strchr(kb + off, '.');
        size_t ra = da ? section_first(c, a, (size_t)(da - ka) + 1) : a;
        size_t rb = db ? section_first(c, b, (size_t)(db - kb) + 1) : b;
        if (ra != rb)
            return ra < rb ? -1 : 1;
        if (!da || !db) /* one group at this level: the same key */
            return 0;
        off = (size_t)(da - ka) + 1;
    }
}

void core_cfg_dump(const core_cfg *c, core_buf *out)
{
    /* Insertion sort: a table has tens of keys. */
    size_t *order = core_xmalloc((c->n ? c->n : 1) * sizeof *order);
    for (size_t i = 0; i < c->n; i++) {
        size_t k = i;
        for (; k > 0 && dump_cmp(c, order[k - 1], i) > 0; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    /* Nested YAML, sections opened as the keys (in dump order) need. */
    const char *prev = "";
    size_t prev_len = 0;
    for (size_t oi = 0; oi < c->n; oi++) {
        size_t i = order[oi];
        const char *key = c->table[i].key;
        /* The longest section prefix shared with the previous key. */
        size_t common = 0;
        for (size_t k = 0; key[k] && k < prev_len && key[k] == prev[k]; k++)
            if (key[k] == '.')
                common = k + 1;
        int depth = 0;
        for (size_t k = 0; k < common; k++)
            depth += key[k] == '.';
        const char *p = key + common;
        for (const char *dot = strchr(p, '.'); dot; dot = strchr(p, '.')) {
            core_buf_printf(out, "%*s%.*s:\n", 2 * depth, "", (int)(dot - p), p);
            depth++;
            p = dot + 1;
        }
        /* A key left at its default is shown commented out, so that the
         * dump read back as a file sets exactly what was set. */
        bool dflt = strcmp(c->v[i].origin, "default") == 0;
        core_buf_printf(out, "%*s%s%s: ", 2 * depth, "", dflt ? "# " : "", p);
        if (c->table[i].type == CORE_CFG_STRING) {
            dump_string(out, c->v[i].text);
        } else {
            core_buf_puts(out, c->v[i].text);
        }
        if (dflt)
            core_buf_puts(out, "  (default)\n");
        else
            core_buf_printf(out, "  # %s\n", c->v[i].origin);
        prev = key;
        prev_len = strlen(key);
    }
    free(order);
}

int core_yaml_load_file(const char *path, struct yaml_document_s *doc, char *why, size_t whylen)
{
    char *data;
    size_t n;
    int rc = core_read_file(path, 16u << 20, &data, &n);
    if (rc) {
        snprintf(why, whylen, "%s: %s", path, core_strerror(rc));
        return rc;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        core_panic("out of memory (yaml parser)");
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, n);
    rc = 0;
    if (!yaml_parser_load(&parser, doc)) {
        snprintf(why, whylen, "%s:%zu: %s", path, parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "YAML syntax error");
        rc = CORE_EFORMAT;
    }
    /* The document holds copies of what it needs. */
    yaml_parser_delete(&parser);
    free(data);
    return rc;
}
