/* A stable text form of one file's extraction, for golden tests. */
#include "graph_int.h"

#include <stdio.h>

static const char *ref_kind_names[] = {"call", "new", "base", "type", "read", "write", "jsx"};
static const char *bind_kind_names[] = {"new", "type", "alias", "call", "local"};
static const char *import_kind_names[] = {"module", "name", "star"};
static const char *export_kind_names[] = {"name", "from", "star", "ns"};

/* label, then s as a JSON string or "-" if there is none. */
static void field(core_buf *b, const char *label, const char *s)
{
    core_buf_puts(b, label);
    if (s)
        core_buf_json_str(b, s, strlen(s));
    else
        core_buf_putc(b, '-');
}

static const char *sym_name(const gx_file *f, int32_t i)
{
    return i < 0 ? "<module>" : f->syms.v[i].name;
}

void graph__file_dump(const gx_file *f, core_buf *b, bool with_reads)
{
    core_buf_printf(b, "errors %u\n", f->errors);
    if (f->doc) {
        field(b, "doc ", f->doc);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->syms.n; i++) {
        const gx_sym *s = &f->syms.v[i];
        core_buf_printf(b, "sym %zu %s %s%s%s parent=%s lines=%u-%u flags=%#x", i,
                        graph_sym_kind_name((graph_sym_kind)s->kind),
                        s->container ? s->container : "", s->container ? "." : "", s->name,
                        sym_name(f, s->parent), s->start_line, s->end_line, s->flags);
        if (s->ret)
            core_buf_printf(b, " ret=%s", s->ret);
        if (s->doc)
            field(b, " doc=", s->doc);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->imports.n; i++) {
        const gx_import *m = &f->imports.v[i];
        core_buf_printf(b, "import %s line=%u in=%s", import_kind_names[m->kind], m->line,
                        sym_name(f, m->scope));
        field(b, " module=", m->module);
        field(b, " name=", m->name);
        field(b, " as=", m->alias);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->exports.n; i++) {
        const gx_export *e = &f->exports.v[i];
        core_buf_printf(b, "export %s line=%u", export_kind_names[e->kind], e->line);
        field(b, " name=", e->name);
        field(b, " local=", e->local);
        field(b, " module=", e->module);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->binds.n; i++) {
        const gx_bind *d = &f->binds.v[i];
        core_buf_printf(b, "bind %s line=%u in=%s %s =", bind_kind_names[d->kind], d->line,
                        sym_name(f, d->scope), d->name);
        field(b, " ", d->value);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->refs.n; i++) {
        const gx_ref *r = &f->refs.v[i];
        if (!with_reads && (r->kind == GX_REF_READ || r->kind == GX_REF_WRITE))
            continue;
        core_buf_printf(b, "ref %s line=%u from=%s %s\n", ref_kind_names[r->kind], r->line,
                        sym_name(f, r->from), r->path);
    }
    for (size_t i = 0; i < f->emits.n; i++) {
        const gx_emit *e = &f->emits.v[i];
        core_buf_printf(b, "emit %s line=%u in=%s style=%s level=%s",
                        graph_emit_kind_name((graph_emit_kind)e->kind), e->line,
                        sym_name(f, e->sym), graph_style_name((graph_style)e->style),
                        graph_level_name((graph_level)e->level));
        if (e->name)
            core_buf_printf(b, " name=%s", e->name);
        if (e->receiver && *e->receiver)
            core_buf_printf(b, " recv=%s", e->receiver);
        if (e->method && *e->method)
            core_buf_printf(b, " method=%s", e->method);
        if (e->logger)
            field(b, " logger=", e->logger);
        if (e->ref)
            core_buf_printf(b, " ref=%s", e->ref);
        core_buf_printf(b, " nargs=%u flags=%#x", e->nargs, e->flags);
        field(b, " tmpl=", e->tmpl);
        core_buf_putc(b, '\n');
    }
}
