/*
 * core_cfg.h - configuration as a table (core_cfg_item): YAML files,
 * KEY=VALUE overrides, validation and the reference text, all from it.
 *
 * Threading and ownership: a core_cfg is built and changed on one thread;
 * once loaded, its getters may be called from any number of threads (it
 * is not changed any more). Strings it returns are owned by it, valid
 * until core_cfg_free. The table is borrowed for the core_cfg's life.
 */
#ifndef PMRAG_CORE_CFG_H
#define PMRAG_CORE_CFG_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

/*
 * Configuration is a table: every key with its type, default, bounds and
 * help. The same table parses YAML files and KEY=VALUE overrides,
 * validates (errors name the file, line and key, and the allowed range),
 * and prints the reference. Keys are dotted paths ("ppr.alpha"); in YAML
 * they nest as mappings (ppr: {alpha: 0.2}).
 */
typedef enum {
    CORE_CFG_BOOL,
    CORE_CFG_INT,
    CORE_CFG_DOUBLE,
    CORE_CFG_STRING,
    CORE_CFG_ENUM, /* one of choices */
} core_cfg_type;

typedef struct core_cfg_item {
    const char *key;
    core_cfg_type type;
    const char *def;            /* the default, as it would be written */
    double min, max;            /* INT and DOUBLE: inclusive bounds */
    const char *const *choices; /* ENUM: NULL-terminated */
    const char *help;
} core_cfg_item;

typedef struct core_cfg core_cfg;

/* Values of every key of the table (borrowed; it must outlive the
 * config), starting at their defaults. */
core_cfg *core_cfg_new(const core_cfg_item *table, size_t n);
void core_cfg_free(core_cfg *c);

/*
 * Reads a YAML file over the current values. Unknown keys, wrong types,
 * values out of range and YAML syntax errors are refused with
 * "FILE:LINE: ..." in why (then nothing is changed). CORE_EFORMAT on such
 * errors, an errno if the file cannot be read.
 */
int core_cfg_load(core_cfg *c, const char *path, char *why, size_t whylen);
/* One KEY=VALUE setting (from the command line); CORE_EUSAGE with why. */
int core_cfg_set(core_cfg *c, const char *assignment, char *why, size_t whylen);
/* Sets key to value, remembering origin (e.g. the flag that gave it);
 * CORE_EUSAGE with the reason in why (the value and the allowed range, or
 * an unknown key). */
int core_cfg_put(core_cfg *c, const char *key, const char *value, const char *origin, char *why,
                 size_t whylen);

/* Current values; the key must be in the table with that type (a
 * mismatch is a programming error and aborts). Strings are valid until
 * the key is set again or the config is freed. */
bool core_cfg_bool(const core_cfg *c, const char *key);
int64_t core_cfg_int(const core_cfg *c, const char *key);
double core_cfg_double(const core_cfg *c, const char *key);
const char *core_cfg_str(const core_cfg *c, const char *key);
/* Any key's current value as it was written ("0.2", "yes"); NULL for a
 * key not in the table. */
const char *core_cfg_text(const core_cfg *c, const char *key);
/* Where the current value came from: "default", "FILE:LINE", "--set". */
const char *core_cfg_origin(const core_cfg *c, const char *key);
/* True when the key was given (by a file, --set or a flag), not left at
 * its default. */
bool core_cfg_is_set(const core_cfg *c, const char *key);

/*
 * Reads and parses a YAML file (at most 16 MiB) into *doc, libyaml's
 * yaml_document_t, which the caller frees with yaml_document_delete().
 * Errors: "PATH: reason" (the file's errno) or "PATH:LINE: problem"
 * (CORE_EFORMAT) in why. For every module that reads YAML.
 */
struct yaml_document_s;
int core_yaml_load_file(const char *path, struct yaml_document_s *doc, char *why, size_t whylen);

/* The reference: a Markdown table of the keys (key, type and range,
 * default, help). */
void core_cfg_reference(const core_cfg_item *table, size_t n, core_buf *out);
/* The current values as YAML, each with its origin in a comment; every
 * section is written once, its keys together, whatever the table order. */
void core_cfg_dump(const core_cfg *c, core_buf *out);

#ifdef __cplusplus
}
#endif
#endif
