/* A stable text form of one file's extraction, for golden tests. */
#include "graph_int.h"

#include <stdio.h>

static const char *ref_kind_names[] = {"call", "new", "base", "type", "read", "write", "jsx"};
static const char *bind_kind_names[] = {"new", "type", "alias", "call", "local"};
static const char *import_kind_names[] = {"module", "name", "star"};
static const char *export_kind_names[] = {"name", "from", "star", "ns"};

static void str_or_dash(core_buf *b, const char *s)
{
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
        core_buf_puts(b, "doc ");
        str_or_dash(b, f->doc);
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
        if (s->doc) {
            core_buf_puts(b, " doc=");
            str_or_dash(b, s->doc);
        }
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->imports.n; i++) {
        const gx_import *m = &f->imports.v[i];
        core_buf_printf(b, "import %s line=%u in=%s module=", import_kind_names[m->kind], m->line,
                        sym_name(f, m->scope));
        str_or_dash(b, m->module);
        core_buf_puts(b, " name=");
        str_or_dash(b, m->name);
        core_buf_puts(b, " as=");
        str_or_dash(b, m->alias);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->exports.n; i++) {
        const gx_export *e = &f->exports.v[i];
        core_buf_printf(b, "export %s line=%u name=", export_kind_names[e->kind], e->line);
        str_or_dash(b, e->name);
        core_buf_puts(b, " local=");
        str_or_dash(b, e->local);
        core_buf_puts(b, " module=");
        str_or_dash(b, e->module);
        core_buf_putc(b, '\n');
    }
    for (size_t i = 0; i < f->binds.n; i++) {
        const gx_bind *d = &f->binds.v[i];
        core_buf_printf(b, "bind %s line=%u in=%s %s = ", bind_kind_names[d->kind], d->line,
                        sym_name(f, d->scope), d->name);
        str_or_dash(b, d->value);
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
        if (e->logger) {
            core_buf_puts(b, " logger=");
            str_or_dash(b, e->logger);
        }
        if (e->ref)
            core_buf_printf(b, " ref=%s", e->ref);
        core_buf_printf(b, " nargs=%u flags=%#x tmpl=", e->nargs, e->flags);
        str_or_dash(b, e->tmpl);
        core_buf_putc(b, '\n');
    }
}
