/*
 * map_int.h - private to map/: what its files share (the byte classes of
 * masking and matching, the external command's reply parser, the
 * mapper's side of the dictionary codec).
 */
#ifndef PMRAG_MAP_INT_H
#define PMRAG_MAP_INT_H

#include "map.h"
#include "ppr.h"

/* ---- byte classes (mask.c) ---- */

/* Byte classes as the C locale has them (pmrag never sets another), one
 * table load each: masking looks at every byte of every distinct message,
 * and matching at the byte before each start it tries. */
enum { MAP__DIGIT = 1, MAP__ALNUM = 2, MAP__WORD = 4, MAP__HEX = 8, MAP__SPACE = 16 };
extern const uint8_t map__byte_class[256];

static inline bool is_digit(unsigned char c)
{
    return map__byte_class[c] & MAP__DIGIT;
}

static inline bool is_alnum(unsigned char c)
{
    return map__byte_class[c] & MAP__ALNUM;
}

/* Letters, digits, '_' and every byte of a UTF-8 sequence. */
static inline bool is_word(unsigned char c)
{
    return map__byte_class[c] & MAP__WORD;
}

static inline bool is_hex(unsigned char c)
{
    return map__byte_class[c] & MAP__HEX;
}

/* ' ' \t \n \v \f \r */
static inline bool is_space(unsigned char c)
{
    return map__byte_class[c] & MAP__SPACE;
}

/* Whether a site's message is made to be logged elsewhere: a string
 * constant's, or one a constructor takes (an exception's), which the
 * matcher and the re-mapping both treat as constants. */
static inline bool map__emit_is_const(const graph_emit *e)
{
    return e->kind == GRAPH_EMIT_CONST ||
           (e->kind == GRAPH_EMIT_CALL && (e->flags & GRAPH_EF_CTOR));
}

/* ---- errors logged whole, messages rendered as JSON or key=value pairs
 * (errtext.c) ---- */

/*
 * The text the code gave an error that s[0, n) renders whole: its stack
 * (`TypeError: bad input` and the frames after it, line breaks as bytes
 * or as backslash n), or its properties as JSON (`message`, else the
 * stack's first line), however far it goes when cut short. Writes it to
 * out; false when s is no such rendering.
 */
bool map__error_message(const char *s, size_t n, core_buf *out);
/*
 * An error's one-line rendering, `Name: text` and nothing after it
 * (JavaScript's `String(err)`, `${err}`): the text into out and the name
 * into *name, *name_len. Such a line is as often a message of its own
 * (`Note: cache cold`), so it is the error's only when the code makes an
 * error of that class with a text that explains the rest (the mapper's
 * check).
 */
bool map__error_named(const char *s, size_t n, const char **name, size_t *name_len, core_buf *out);

/*
 * The next string member of the JSON object s[0, n) (members whose value
 * is no string, nested objects and arrays among them, are passed over),
 * its escapes read, into out; as far as it goes when the object was cut
 * short. *at is where the reading goes on: 0 for the first member. False
 * when s is no object or has no more such members.
 */
bool map__json_next(const char *s, size_t n, size_t *at, core_buf *out);

/*
 * A message a structured logger renders as the event's text followed by
 * its fields as key=value pairs (`invoice_created amount=100
 * customer=acme`, `upload failed reason='disk full'`): the length of the
 * text before the pairs, its blanks trimmed; n when s ends in no pair or
 * is nothing but pairs. loose: an unquoted value may go on past a blank
 * (`plate=K-LM 7 capacity=1`, a formatter joining `${k}=${v}`), up to the
 * next pair, the pairs starting at the first.
 */
size_t map__kv_head(const char *s, size_t n, bool loose);

/* A message the debug module wrote to a terminal, with the time since
 * the namespace's last line after it (`connect :: host db1 +12ms`): the
 * length of the text before it, blanks trimmed; n when there is none. */
size_t map__elapsed_head(const char *s, size_t n);

/* The length of s[0, n)'s first line (up to a line break, as a byte or
 * as backslash n, or a carriage return). */
size_t map__first_line(const char *s, size_t n);
/* Whether s[0, n) opens with a stack's own head: `Name: message` and the
 * frames after it (an error logged whole, `console.error(err)`). */
bool map__stack_head(const char *s, size_t n);
/* One frame of a JavaScript stack (`at NAME (FILE:LINE:COL)`, `at
 * FILE:LINE:COL`): its file's path (a file: URL's path), its line, and
 * the last part of its function's name (`parse` of `at Object.parse [as
 * p] (...)`, empty for an anonymous one). */
typedef struct map_frame {
    char path[1024];
    char name[256];
    uint32_t line;
} map_frame;
/* The next frame of a JavaScript stack in s[0, n) from *at on that names
 * a file and a line, into f, *at moved past it; false when none is left
 * (frames in no file, `at JSON.parse (<anonymous>)` or `node:...`, are
 * passed over). */
bool map__stack_frame(const char *s, size_t n, size_t *at, map_frame *f);

/* Whether candidate call site id, on receiver, goes through an object a
 * logger's messages can be seen going through (not "?", what another call
 * returned; not the instance itself, "@self"; not a function of ours that
 * logs, whose sites place its records). */
bool map__through_object(const graph *g, uint32_t id, const char *receiver);

/* ---- the external command's reply (llm.c) ---- */

/*
 * Reads the reply of map_llm_map()'s command to one batch: the items
 * first .. first + n - 1 of the call, numbered 0 .. n - 1 in the request;
 * label names the batch in warnings. For each proposed symbol that
 * resolves with a confidence in (0, 1], calls fn(ud, first + id, symbol,
 * confidence); what does not is skipped with a warning to log (map.h
 * describes the reply). Returns 0, or CORE_EFORMAT with the reason in why
 * when data[0, len) is not such a reply at all. Borrows everything; data
 * need not be NUL-terminated. Factored out of map_llm_map() so that the
 * fuzz target (tests/fuzz/fuzz_llm_reply.c) reaches it without a process.
 */
int map__llm_parse_reply(const graph *g, const char *data, size_t len, size_t first, size_t n,
                         const char *label, const core_logger *log,
                         void (*fn)(void *ud, size_t item, uint32_t symbol, float conf), void *ud,
                         char *why, size_t whylen);

/* ---- the dictionary codec's access to the mapper (mapper.c) ---- */

/* The activity every message past max_activities folds into: activity 0
 * of every mapper. */
#define MAP__OTHER_TEXT "<other>"

/* An activity's template candidates (or constant owners), and
 * re-creating activities in their saved order, which gives them their
 * saved ids. */
uint32_t map__candidates(const map_mapper *m, uint32_t act, const uint32_t **cands,
                         bool *has_const);
/* Whether an activity's text was read out of an error's rendering
 * (map__error_message): the dictionary keeps it with has_const. */
bool map__error_text(const map_mapper *m, uint32_t act);
/* How a restored activity differs from a saved one's (remap.c): left for
 * map_mapper_finish to map again (untried), and the emit sites whose
 * template now stands for it (a matched message goes to it, whatever its
 * text). */
typedef struct map__restore_how {
    bool untried;
    const uint32_t *emits;
    uint32_t nemits;
    /* A text m has already makes a new activity all the same, which its
     * text does not find (map_dict_restore_activity's alias). */
    bool alias;
    bool error_text; /* map__error_text */
} map__restore_how;
/* how: NULL for a record restored as saved. */
uint32_t map__restore(map_mapper *m, const map_activity *a, const uint32_t *cands, uint32_t ncand,
                      bool has_const, const map__restore_how *how);

/* An activity record decoded (dict.c): text borrows the record, the
 * arrays are owned (map__dict_rec_free). nsym bounds the symbol ids of
 * the graph the record was written for. */
typedef struct map__dict_rec {
    const char *text;
    uint32_t tl;
    map_strategy strategy;
    bool has_const, error_text;
    uint32_t nsyms, ncand;
    uint32_t *syms, *cands;
    float *conf;
} map__dict_rec;
int map__dict_decode(const void *rec, size_t len, uint32_t nsym, map__dict_rec *out);
void map__dict_rec_free(map__dict_rec *r);

/* ---- emit sites as the mapper reads them (mapper.c) ---- */

/* The template's text (a constant's, for sites that log one by name). */
const char *map__template_text(const graph *g, uint32_t emit);
/* Distinct symbols that emit sites stand for, in order (a candidate call
 * to a function that does its own logging is that function's). */
uint32_t map__emit_symbols(const graph *g, const uint32_t *emits, uint32_t n, uint32_t *out);
/* Which emits of m's graph call a callee (receiver and method) that at
 * least as many distinct sites of sites[0..n) call as make the mapper
 * take its other calls for logging calls (as callee_prove lists one):
 * a flag per emit into out (graph_nemits of m's graph). */
void map__listed_by(const map_mapper *m, const uint32_t *sites, uint32_t n, uint8_t *out);
/* Whether symbol u is in a file whose role m sets aside (tests, examples,
 * vendored code, unless include_tests). */
bool map__symbol_aside(const map_mapper *m, uint32_t u);

/* ---- a case's events revised (mapper.c, variants told apart by the case) ---- */

/* How near a group's candidates are to symbol src over the code graph
 * (one value per candidate, valid until the next call on m). */
const float *map__near(map_mapper *m, uint32_t src, uint32_t group);
/* The activity of one candidate of a group ("TEMPLATE @qualname"), made
 * when new; UINT32_MAX past the cap on activities. */
uint32_t map__member(map_mapper *m, uint32_t group, uint32_t sym);
/* The group that member act was made for, or UINT32_MAX. */
uint32_t map__member_group(const map_mapper *m, uint32_t act);
/* Whether some case showed a group's variants running side by side. */
bool map__side_by_side(const map_mapper *m, uint32_t group);
/* Whether the candidates of a group are variants and sym is a method an
 * object of every candidate's class runs (one they all inherit, none
 * overrides): it tells none of them. */
bool map__runs_in_all(const map_mapper *m, uint32_t group, uint32_t sym);
/* One event counted for activity to instead of from. */
void map__recount(map_mapper *m, uint32_t from, uint32_t to);
/* Whether a group's candidates are variants (a class's methods and its
 * subclasses' overrides, sites in parallel files, or methods of classes
 * of no common base that log texts alike), which the case's other events
 * tell apart. */
bool map__variants(const map_mapper *m, uint32_t group);
/* Whether symbols cands[0..nc) are variants, as map__variants says of a
 * group's candidates. */
bool map__variant_syms(const map_mapper *m, const uint32_t *cands, uint32_t nc);
/* Whether a site's logger name agrees with a record's ("botocore.hooks"
 * with a module "hooks" indexed from inside its package). */
bool map__logger_agrees(const char *site, const char *rec);
/* Adds to syms[0..n) (weights w) the methods of the same name that the
 * sibling classes of each one's class have of their own, where those
 * classes log alike (a platform's or a worker kind's variant of the same
 * step), each with the weight of the one it mirrors, up to cap in all;
 * returns the new count. Nearness to what a case ran cannot tell such
 * variants apart, so a placement by nearness keeps them all, for the
 * class the case names to choose (class_pick). */
uint32_t map__add_sibling_variants(const graph *g, uint32_t *syms, double *w, uint32_t n,
                                   uint32_t cap);
/* Whether two of syms[0..n) are the same-named methods of two classes
 * of one hierarchy that log alike (such as map__add_sibling_variants
 * adds): variants a class the case names tells apart. */
bool map__has_sibling_variants(const graph *g, const uint32_t *syms, uint32_t n);
/* The class whose method sym is, or GRAPH_NONE. */
uint32_t map__class_of(const graph *g, uint32_t sym);
/* The class whose method sym is, else sym's module. */
uint32_t map__container_of(const graph *g, uint32_t sym);
/* The class whose method sym is, or is nested in; else GRAPH_NONE. */
uint32_t map__enclosing_class(const graph *g, uint32_t sym);
/* Whether classes a and b are one or have a base in common. */
bool map__one_hierarchy(const graph *g, uint32_t a, uint32_t b);
/* The class a message of activity act names by a word of text (its
 * variant's), as the class of the object the case runs, or GRAPH_NONE;
 * only classes whose name tells sites of one text apart are named (see
 * map__told_words_init). */
uint32_t map__class_told(const map_mapper *m, uint32_t act, const char *text);
void map__told_classes_init(map_mapper *m);
/* What mapping an event reads of its case: its recent activities
 * (oldest first, at most MAP_RECENT), and the variants its earlier events'
 * values named (map_told_note). */
typedef struct map__case {
    const uint32_t *recent;
    uint32_t nrecent;
    const uint32_t *told;
    uint32_t ntold;
} map__case;
/* The candidate of a group of variants that the case's recent activities
 * and the variants it was told point at (map_mapper_revise's rule over
 * them), or GRAPH_NONE; *several when they point at different variants
 * (the case runs several: the recent events' nearness is to decide). */
uint32_t map__pick_recent(map_mapper *m, uint32_t group, const map__case *c, bool *several);
/* Whether name occurs in text[0..len) as a whole identifier. */
bool map__names_word(const char *text, size_t len, const char *name);
/* A method whose code holds, as a literal, a word message text[0..len)
 * shows outside tmpl's own text, where the same-named method of a class
 * it inherits from or that inherits from it does not hold it (a mode one
 * variant names): the variant the message tells runs, or GRAPH_NONE. The
 * word is text[*wo..*wo + *wn). */
uint32_t map__value_told(const map_mapper *m, const char *tmpl, const char *text, size_t len,
                         size_t *wo, size_t *wn);
/* Finds the words that name a variant in m's graph (map__value_told's
 * table), once. */
void map__told_words_init(map_mapper *m);

#endif
