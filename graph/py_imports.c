/*
 * Python extraction: imports, and the classes type annotations name.
 */
#include "py_int.h"

#include <string.h>

/* ---- imports ---- */

static void add_import(px *x, gx_import_kind kind, const char *module, const char *name,
                       const char *alias, const py_scope *sc, TSNode at)
{
    gx_import im = {.module = module,
                    .name = name,
                    .alias = alias,
                    .scope = sc->sym,
                    .line = gx_line(at),
                    .kind = (uint8_t)kind};
    core_vec_push(&x->f->imports, im);
    /* Names the emit detector needs to see through. */
    const char *local = alias;
    const char *full = NULL;
    if (kind == GX_IMP_MODULE) {
        if (alias)
            full = module;
    } else if (kind == GX_IMP_NAME && module[0] != '.') {
        full = graph__path_join(x->f, module, name, strlen(name));
    }
    if (local && full) {
        py_alias a = {local, full};
        core_vec_push(&x->aliases, a);
    }
}

/* An import statement: its imports, and the aliases the emit detector
 * sees names through (px.aliases). */
void graph__py_do_import(px *x, TSNode n, const py_scope *sc, int depth)
{
    unsigned t = ty(n);
    if (t == N_IMPORT_STATEMENT) {
        TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
        if (!ts_tree_cursor_goto_first_child(c))
            return;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ty(ch) == N_DOTTED_NAME) {
                add_import(x, GX_IMP_MODULE, text(x, ch), NULL, NULL, sc, n);
            } else if (ty(ch) == N_ALIASED_IMPORT) {
                TSNode nm = fieldn(ch, F_NAME), al = fieldn(ch, F_ALIAS);
                if (!is_null(nm) && !is_null(al))
                    add_import(x, GX_IMP_MODULE, text(x, nm), NULL, text(x, al), sc, n);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    /* from MODULE import a, b as c / * */
    TSNode mod = fieldn(n, F_MODULE_NAME);
    if (is_null(mod))
        return;
    /* ".", "..", ".pkg.mod": dots give the level. */
    const char *module = ty(mod) == N_RELATIVE_IMPORT
                             ? graph__text_squeeze(x->f, x->src, mod, " \t\\\n")
                             : text(x, mod);
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        TSFieldId fid = ts_tree_cursor_current_field_id(c);
        if (fid == graph__py_fid[F_MODULE_NAME])
            continue;
        if (ty(ch) == N_WILDCARD_IMPORT) {
            add_import(x, GX_IMP_STAR, module, "*", NULL, sc, n);
        } else if (ty(ch) == N_DOTTED_NAME) {
            const char *nm = text(x, ch);
            add_import(x, GX_IMP_NAME, module, nm, nm, sc, n);
        } else if (ty(ch) == N_ALIASED_IMPORT) {
            TSNode nm = fieldn(ch, F_NAME), al = fieldn(ch, F_ALIAS);
            if (!is_null(nm) && !is_null(al))
                add_import(x, GX_IMP_NAME, module, text(x, nm), text(x, al), sc, n);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* ---- type annotations ---- */

static bool is_dotted_name(const char *v)
{
    return strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
               strlen(v) &&
           v[0] != '.' && !(v[0] >= '0' && v[0] <= '9');
}

/* Type annotation -> TYPE refs for every name in it. */
void graph__py_type_refs(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (is_null(n) || depth > GX_MAX_DEPTH)
        return;
    unsigned t = ty(n);
    if (t == N_IDENTIFIER || t == N_ATTRIBUTE) {
        add_ref(x, GX_REF_TYPE, graph__py_path_of(x, n, sc, 0), sc->sym, n);
        return;
    }
    if (t == N_STRING) {
        /* A forward reference: "Foo" or "pkg.Foo". */
        const char *v = graph__py_string_value(x, n);
        if (v && *v && is_dotted_name(v))
            add_ref(x, GX_REF_TYPE, v, sc->sym, n);
        return;
    }
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch))
                graph__py_type_refs(x, ch, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
}

/* The class a type annotation names, unwrapping Optional[X] and X | None. */
const char *graph__py_annotation_class(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (is_null(n) || depth > 16)
        return NULL;
    switch (ty(n)) {
    case N_TYPE:
    case N_TYPE_PARAMETER: {
        TSNode inner = ts_node_named_child(n, 0);
        return graph__py_annotation_class(x, inner, sc, depth + 1);
    }
    case N_IDENTIFIER:
    case N_ATTRIBUTE:
        return graph__py_path_of(x, n, sc, 0);
    case N_STRING: {
        /* A forward reference names a class only if it is a dotted name
         * ("Order", "models.Order"; not "list[Order]"). */
        const char *v = graph__py_string_value(x, n);
        return v && *v && is_dotted_name(v) ? v : NULL;
    }
    case N_GENERIC_TYPE: {
        TSNode head = ts_node_named_child(n, 0);
        if (!is_null(head) && (text_eq(x, head, "Optional") || text_eq(x, head, "typing.Optional")))
            return graph__py_annotation_class(x, ts_node_named_child(n, 1), sc, depth + 1);
        return NULL;
    }
    case N_UNION_TYPE:
    case N_BINARY_OPERATOR: {
        /* X | None */
        TSNode l = ts_node_named_child(n, 0), r = ts_node_named_child(n, 1);
        if (!is_null(r) && text_eq(x, r, "None"))
            return graph__py_annotation_class(x, l, sc, depth + 1);
        if (!is_null(l) && text_eq(x, l, "None"))
            return graph__py_annotation_class(x, r, sc, depth + 1);
        return NULL;
    }
    default:
        return NULL;
    }
}
