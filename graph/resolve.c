/*
 * Resolution: from per-file extractions to one graph. Module names, global
 * symbol ids and qualified names; lookup tables; then every reference is
 * resolved to the symbol it names, giving typed edges.
 *
 * What stays unknown is left unresolved and counted, except a call `x.m()`
 * on an unknown receiver when exactly one method in the repository is
 * named m (weight 0.5).
 *
 * Phases: tables and base classes single-threaded (bases need names, and
 * class hierarchies need bases), and the parameters typed by the calls
 * that pass them names; then the references of each file in parallel,
 * reading the tables only; then logging wrappers, which need the calls
 * resolved; then the structural edges.
 */
#include "resolve_int.h"

#include <stdlib.h>
#include <string.h>

void graph__resolve(gb_index *idx, gb_graph *g)
{
    rs r;
    memset(&r, 0, sizeof r);
    r.idx = idx;
    r.g = g;
    core_arena_init(&r.arena, 0);
    for (size_t i = 0; i < idx->files.n; i++)
        if (idx->files.v[i].x)
            core_smap_add(&r.paths, idx->files.v[i].rel, strlen(idx->files.v[i].rel), (uint32_t)i);
    graph__rs_build_symbols(&r);
    graph__rs_build_tables(&r);
    graph__rs_build_hierarchy(&r);
    graph__rs_build_passes(&r);
    unsigned threads = idx->opts->threads ? idx->opts->threads : core_ncpus();
    if (threads > 64)
        threads = 64;
    graph__rs_resolve_refs(&r, threads);
    graph__rs_resolve_wrappers(&r);
    graph__rs_structural_edges(&r);

    for (uint32_t s = 0; s < r.nsym; s++)
        core_vec_free(&r.subs[s]);
    free(r.subs);
    free(r.mro);
    free(r.ext_base);
    free(r.sy);
    free(r.classlike);
    free(r.bind);
    free(r.imp);
    free(r.exp);
    free(r.star_first);
    free(r.star);
    free(r.emit_base);
    free(r.pass);
    free(r.ptype);
    core_smap_free(&r.modules);
    core_smap_free(&r.prefixes);
    core_smap_free(&r.paths);
    core_smap_free(&r.methods);
    core_smap_free(&r.names);
    km_free(&r.children);
    km_free(&r.binds);
    km_free(&r.attrs);
    km_free(&r.imports);
    km_free(&r.consts);
    km_free(&r.exports);
    km_free(&r.containers);
    km_free(&r.passes);
    core_arena_free(&r.arena);
}
