/*
 * A model carried onto the next release's graph (map_dict_remap,
 * model_load_onto): a template that moved follows its text, a reworded
 * one takes the similar text, a deleted one keeps its statistics and
 * predicts nothing, and a model of the same graph is left as it is.
 */
#include "map.h"
#include "model.h"
#include "unit.h"
#include "unit_graph.h"

#include <stdlib.h>
#include <string.h>

/* Release 1: three functions, four messages. */
static const char rel1_py[] = "import logging\n"
                              "log = logging.getLogger(\"app\")\n"
                              "\n"
                              "def start(x):\n"
                              "    log.info(\"starting job %s\", x)\n"
                              "    step(x)\n"
                              "\n"
                              "def step(x):\n"
                              "    log.info(\"step one for %s done\", x)\n"
                              "    finish(x)\n"
                              "\n"
                              "def finish(x):\n"
                              "    log.info(\"old path taken for %s\", x)\n"
                              "    log.info(\"finished job %s now\", x)\n";

/* Release 2: start renamed and moved down, step's message reworded, the
 * old path deleted, a new message added. */
static const char rel2_py[] = "import logging\n"
                              "log = logging.getLogger(\"app\")\n"
                              "\n"
                              "# the lines below moved\n"
                              "\n"
                              "def begin(x):\n"
                              "    log.info(\"starting job %s\", x)\n"
                              "    step(x)\n"
                              "\n"
                              "def step(x):\n"
                              "    log.info(\"step number one for %s done\", x)\n"
                              "    finish(x)\n"
                              "\n"
                              "def finish(x):\n"
                              "    log.info(\"finished job %s now\", x)\n"
                              "    log.info(\"brand new message %s here\", x)\n";

static graph *index_rel(const char *dir, const char *src)
{
    char rel[128], out[128];
    snprintf(rel, sizeof rel, "%s/app.py", dir);
    snprintf(out, sizeof out, "%s.graph", dir);
    unit_write_str(rel, src);
    graph_index_opts o = {.threads = 1};
    return unit_index_and_open(unit_tmp_path(dir), unit_tmp_path(out), &o, NULL);
}

/* src with add put before the first line that is at (NULL: at its end),
 * indexed as dir. */
static graph *index_rel_with(const char *dir, const char *src, const char *at, const char *add)
{
    const char *pos = at ? strstr(src, at) : NULL;
    size_t cut = pos ? (size_t)(pos - src) : strlen(src);
    core_buf b = {0};
    core_buf_append(&b, src, cut);
    core_buf_puts(&b, add);
    core_buf_puts(&b, src + cut);
    graph *g = index_rel(dir, b.data);
    core_buf_free(&b);
    return g;
}

/* The model at path, trained on g1, loaded onto g2 re-mapped, with g1
 * known as the old graph; what re-mapping did into *r (may be NULL). */
static void remap_onto(const char *path, const graph *g1, const graph *g2, map_remap *r,
                       map_mapper **m, model_joint **md)
{
    char why[256];
    model_load_opts lo = {.remap = true, .old = g1, .report = r};
    if (model_load_onto(path, g2, NULL, &lo, m, md, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "remap: %s", why);
}

static const char *const rel1_cases[] = {"starting job 1", "step one for 1 done",
                                         "old path taken for 1", "finished job 1 now"};

/* A model from 8 cases of msgs[0 .. n) in order, every other one without
 * msgs[skip] (none: UINT32_MAX), with parameters p (NULL: the defaults),
 * saved under name; its path. */
static const char *train_cases(const graph *g, const char *const *msgs, uint32_t n, uint32_t skip,
                               const model_params *p, const char *name)
{
    map_mapper *m;
    CHECK_OK(map_mapper_new(g, NULL, &m));
    uint32_t act[64], var[64], off[9] = {0};
    uint32_t k = 0;
    for (uint32_t c = 0; c < 8; c++) {
        uint32_t prev = UINT32_MAX;
        for (uint32_t i = 0; i < n && k < 64; i++) {
            if (i == skip && c % 2)
                continue;
            map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .learn = true};
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act[k], &var[k]);
            prev = act[k++];
        }
        off[c + 1] = k;
    }
    char why[256];
    CHECK_OK(map_mapper_finish(m, why, sizeof why));
    model_params dflt = model_params_default();
    model_seqs s = {act, var, off, 8};
    model_joint *md;
    CHECK_OK(model_train(m, &s, p ? p : &dflt, &md));
    const char *path = unit_tmp_path(name);
    CHECK_OK(model_save(md, path));
    model_free(md);
    map_mapper_free(m);
    return path;
}

/* A model of release 1 (order 2), every other case skipping the old
 * path, saved under name. */
static const char *train_rel1(const graph *g, const char *name)
{
    model_params p = model_params_default();
    p.order = 2;
    return train_cases(g, rel1_cases, 4, 2, &p, name);
}

static const map_remap_act *remap_of(const map_remap *r, const map_mapper *m, const char *text)
{
    uint32_t a = map_mapper_find(m, text);
    if (a == UINT32_MAX || a >= r->nacts)
        unit_fail(__FILE__, __LINE__, "no activity '%s'", text);
    return &r->acts[a];
}

/* The one symbol an activity predicts, by name ("" for none). */
static const char *symbol_of(const map_mapper *m, const char *text)
{
    map_activity pa;
    map_mapper_activity(m, map_mapper_find(m, text), &pa);
    if (pa.nsyms == 0)
        return "";
    CHECK_INT(pa.nsyms, 1);
    graph_symbol s;
    graph_get_symbol(map_mapper_graph(m), pa.syms[0], &s);
    return s.qualname;
}

TEST(remap_follows_moved_reworded_and_deleted_templates)
{
    graph *g1 = index_rel("rel1", rel1_py), *g2 = index_rel("rel2", rel2_py);
    const char *path = train_rel1(g1, "rel1.model");
    map_mapper *m;
    model_joint *md;
    char why[256];
    /* Refused unless re-mapping is asked for. */
    CHECK_INT(model_load(path, g2, NULL, &m, &md, why, sizeof why), CORE_EUSAGE);
    map_remap r;
    model_load_opts lo = {.remap = true, .old = g1, .report = &r};
    if (model_load_onto(path, g2, NULL, &lo, &m, &md, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "remap: %s", why);
    CHECK(r.remapped && r.old_known);
    /* Moved to another function and line: it follows its text. */
    CHECK_INT(remap_of(&r, m, "starting job %s")->kind, MAP_REMAP_MOVED);
    CHECK_STR(symbol_of(m, "starting job %s"), "app.begin");
    /* Moved lines in the same function. */
    CHECK_INT(remap_of(&r, m, "finished job %s now")->kind, MAP_REMAP_MOVED);
    CHECK_STR(symbol_of(m, "finished job %s now"), "app.finish");
    /* Reworded: the activity takes the new text, with a confidence. */
    const map_remap_act *ch = remap_of(&r, m, "step number one for %s done");
    CHECK_INT(ch->kind, MAP_REMAP_CHANGED);
    CHECK(ch->similarity > 0.6f && ch->similarity < 1.0f);
    CHECK_STR(core_strtab_str(&r.texts, ch->from), "step one for %s done");
    CHECK_STR(symbol_of(m, "step number one for %s done"), "app.step");
    CHECK(map_mapper_find(m, "step one for %s done") == UINT32_MAX);
    /* Deleted: kept (its id, its count), predicting nothing. */
    uint32_t gone = map_mapper_find(m, "old path taken for %s");
    CHECK(gone != UINT32_MAX);
    CHECK_INT(remap_of(&r, m, "old path taken for %s")->kind, MAP_REMAP_GONE);
    CHECK_STR(symbol_of(m, "old path taken for %s"), "");
    map_activity pa;
    map_mapper_activity(m, gone, &pa);
    CHECK_INT(pa.count, 4);
    CHECK_INT(r.count[MAP_REMAP_MOVED], 2);
    CHECK_INT(r.count[MAP_REMAP_CHANGED], 1);
    CHECK_INT(r.count[MAP_REMAP_GONE], 1);
    /* The new message is a new site no activity knows. */
    CHECK_INT(r.nnew, 1);
    graph_emit e;
    graph_get_emit(g2, r.new_sites[0], &e);
    CHECK_STR(e.tmpl, "brand new message %s here");
    /* The reworded message of release 2 maps to the model's activity, and
     * the model still knows what follows it. */
    const char *msg = "step number one for 7 done";
    map_event ev = {.text = msg, .len = strlen(msg)};
    uint32_t a, v;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    CHECK_INT(a, map_mapper_find(m, "step number one for %s done"));
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    uint32_t start = map_mapper_find(m, "starting job %s");
    uint32_t pre[2] = {start, a}, pv[2] = {UINT32_MAX, UINT32_MAX};
    model_pred pred[3];
    uint32_t n = model_rank(md, w, pre, pv, 2, 3, pred);
    CHECK(n >= 1);
    graph_symbol s;
    graph_get_symbol(g2, pred[0].symbol, &s);
    CHECK_STR(s.qualname, "app.finish");
    model_work_free(w);
    /* Saved, it is a model of release 2. */
    const char *p2 = unit_tmp_path("rel2.model");
    CHECK_OK(model_save(md, p2));
    map_mapper *m2;
    model_joint *md2;
    if (model_load(p2, g2, NULL, &m2, &md2, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "load: %s", why);
    CHECK_INT(map_mapper_nactivities(m2), map_mapper_nactivities(m));
    model_free(md2);
    map_mapper_free(m2);
    model_free(md);
    map_mapper_free(m);
    map_remap_free(&r);

    /* Without the old graph: the same sites, kept and moved not told apart. */
    lo = (model_load_opts){.remap = true, .report = &r};
    if (model_load_onto(path, g2, NULL, &lo, &m, &md, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "remap: %s", why);
    CHECK(!r.old_known);
    CHECK_INT(remap_of(&r, m, "starting job %s")->kind, MAP_REMAP_FOUND);
    CHECK_STR(symbol_of(m, "starting job %s"), "app.begin");
    CHECK_INT(remap_of(&r, m, "step number one for %s done")->kind, MAP_REMAP_CHANGED);
    CHECK_INT(remap_of(&r, m, "old path taken for %s")->kind, MAP_REMAP_GONE);
    model_free(md);
    map_mapper_free(m);
    map_remap_free(&r);

    /* The wrong old graph is refused. */
    lo = (model_load_opts){.remap = true, .old = g2, .report = &r};
    CHECK_INT(model_load_onto(path, g2, NULL, &lo, &m, &md, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "old graph") != NULL);
    map_remap_free(&r);

    /* On its own graph nothing is re-mapped. */
    lo = (model_load_opts){.remap = true, .report = &r};
    CHECK_OK(model_load_onto(path, g1, NULL, &lo, &m, &md, why, sizeof why));
    CHECK(!r.remapped);
    map_remap_free(&r);
    model_free(md);
    map_mapper_free(m);
    graph_close(g1);
    graph_close(g2);
}

/* A reworded template too far from anything stays gone, and one new text
 * goes to one activity at most. */
TEST(remap_similarity_floor)
{
    graph *g1 = index_rel("sim1", rel1_py);
    char *src = core_xstrdup(rel1_py);
    /* Every message of step and finish replaced by unrelated text. */
    const char *from[] = {"step one for %s done", "old path taken for %s"};
    const char *to[] = {"zq %s", "zz %s xx"};
    core_buf b = {0};
    core_buf_puts(&b, src);
    for (int i = 0; i < 2; i++) {
        char *at = strstr(b.data, from[i]);
        CHECK(at != NULL);
        size_t pos = (size_t)(at - b.data), fl = strlen(from[i]);
        core_buf nb = {0};
        core_buf_append(&nb, b.data, pos);
        core_buf_puts(&nb, to[i]);
        core_buf_puts(&nb, b.data + pos + fl);
        core_buf_free(&b);
        b = nb;
    }
    graph *g2 = index_rel("sim2", b.data);
    core_buf_free(&b);
    free(src);
    const char *path = train_rel1(g1, "rel1.model");
    map_mapper *m;
    model_joint *md;
    char why[256];
    map_remap r;
    model_load_opts lo = {.remap = true, .old = g1, .report = &r};
    CHECK_OK(model_load_onto(path, g2, NULL, &lo, &m, &md, why, sizeof why));
    CHECK_INT(remap_of(&r, m, "step one for %s done")->kind, MAP_REMAP_GONE);
    CHECK_INT(remap_of(&r, m, "old path taken for %s")->kind, MAP_REMAP_GONE);
    CHECK_INT(remap_of(&r, m, "starting job %s")->kind, MAP_REMAP_KEPT);
    CHECK_INT(r.nnew, 2);
    /* The report says so. */
    core_buf rep = {0};
    map_remap_format(&r, m, false, 0, &rep);
    core_buf_putc(&rep, '\0');
    CHECK(strstr(rep.data, "2 kept, 0 moved, 0 changed, 2 gone") != NULL);
    CHECK(strstr(rep.data, "new     \"zq %s\"") != NULL);
    core_buf_free(&rep);
    map_remap_free(&r);
    model_free(md);
    map_mapper_free(m);
    graph_close(g1);
    graph_close(g2);
}

/* An exception's message, logged by the caller that catches it: the
 * mapping takes it as a constant's. Release 2 moves the raise. */
static const char exc1_py[] = "import logging\n"
                              "log = logging.getLogger(\"app\")\n"
                              "\n"
                              "class Refused(Exception):\n"
                              "    pass\n"
                              "\n"
                              "def check(host):\n"
                              "    raise Refused(f\"host key not trusted for host {host}\")\n"
                              "\n"
                              "def connect(host):\n"
                              "    log.info(\"connecting to %s\", host)\n"
                              "    try:\n"
                              "        check(host)\n"
                              "    except Refused as e:\n"
                              "        log.error(str(e))\n";

TEST(remap_keeps_an_exceptions_message)
{
    graph *g1 = index_rel("exc1", exc1_py),
          *g2 = index_rel_with("exc2", exc1_py, "def check", "# moved\n\n");
    static const char *const msgs[] = {"connecting to db1", "host key not trusted for host db1"};
    const char *path = train_cases(g1, msgs, 2, UINT32_MAX, NULL, "exc1.model");
    map_mapper *m;
    model_joint *md;
    char why[256];
    map_remap r;
    model_load_opts lo = {.remap = true, .old = g1, .report = &r};
    CHECK_OK(model_load_onto(path, g2, NULL, &lo, &m, &md, why, sizeof why));
    /* The constructor's message moved with it: not gone. */
    const map_remap_act *x = remap_of(&r, m, "host key not trusted for host %s");
    CHECK_INT(x->kind, MAP_REMAP_MOVED);
    CHECK_INT(r.count[MAP_REMAP_GONE], 0);
    map_remap_free(&r);
    model_free(md);
    map_mapper_free(m);
    graph_close(g1);
    graph_close(g2);
}

/* Maps msgs into m (an activity each, unless one it has already). */
static void map_into(map_mapper *m, const char *const *msgs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a, v;
        map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .learn = true};
        map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    }
    char why[256];
    CHECK_OK(map_mapper_finish(m, why, sizeof why));
}

/* A daemon's activities made online come after its model's: re-mapped as
 * the ids they had, one whose text the new mapper has already an alias of
 * it (the text still finds the mapper's own), one whose message was
 * reworded not taking the text the mapper's own took. */
TEST(remap_after_a_mappers_own_activities)
{
    graph *g1 = index_rel("own1", rel1_py), *g2 = index_rel("own2", rel2_py);
    /* Online on release 1: these three, after "step one" (the model's). */
    map_mapper *m1;
    CHECK_OK(map_mapper_new(g1, NULL, &m1));
    static const char *const base1[] = {"step one for 1 done"};
    static const char *const online[] = {"finished job 1 now", "starting job 1",
                                         "old path taken for 1"};
    map_into(m1, base1, 1);
    uint32_t first1 = map_mapper_nactivities(m1);
    map_into(m1, online, 3);
    uint32_t n = map_mapper_nactivities(m1) - first1;
    CHECK_INT(n, 3);
    core_buf data = {0};
    size_t off[3];
    for (uint32_t i = 0; i < n; i++) {
        off[i] = data.len;
        map_dict_put_activity(m1, first1 + i, &data);
    }
    map_remap_rec recs[3];
    for (uint32_t i = 0; i < n; i++)
        recs[i] =
            (map_remap_rec){data.data + off[i], (i + 1 < n ? off[i + 1] : data.len) - off[i], 0};
    /* Release 2's mapper: the model's activities, re-mapped, are the
     * reworded step and the start. */
    map_mapper *m2;
    CHECK_OK(map_mapper_new(g2, NULL, &m2));
    static const char *const base2[] = {"step number one for 1 done", "starting job 1"};
    map_into(m2, base2, 2);
    uint32_t first = map_mapper_nactivities(m2);
    uint32_t start = map_mapper_find(m2, "starting job %s");
    CHECK(start != UINT32_MAX && start < first);
    map_remap r;
    map_remap_opts ro = {.old = g1, .old_nsymbols = graph_nsymbols(g1), .first = first};
    char why[256] = "";
    CHECK_OK(map_dict_remap(m2, recs, n, &ro, &r, why, sizeof why));
    CHECK_INT(map_mapper_nactivities(m2), first + n);
    CHECK_INT(r.first, first);
    /* The same ids, in order; the texts find the ones they found. */
    map_activity pa;
    map_mapper_activity(m2, first, &pa);
    CHECK_STR(pa.text, "finished job %s now");
    CHECK_INT(r.acts[0].kind, MAP_REMAP_MOVED);
    CHECK_INT(map_mapper_find(m2, "finished job %s now"), first);
    map_mapper_activity(m2, first + 1, &pa);
    CHECK_STR(pa.text, "starting job %s");
    CHECK_INT(map_mapper_find(m2, "starting job %s"), start);
    /* The deleted path is gone, and took no text the mapper has. */
    map_mapper_activity(m2, first + 2, &pa);
    CHECK_STR(pa.text, "old path taken for %s");
    CHECK_INT(r.acts[2].kind, MAP_REMAP_GONE);
    CHECK_INT(pa.nsyms, 0);
    map_remap_free(&r);
    core_buf_free(&data);
    map_mapper_free(m1);
    map_mapper_free(m2);
    graph_close(g1);
    graph_close(g2);
}

/* Release 3 of rel1: the same, and a new function that logs the
 * finishing message too. */
static const char rel3_tail_py[] = "\n"
                                   "def wrap_up(x):\n"
                                   "    log.info(\"finished job %s now\", x)\n";

/* A message the new release logs at one more place takes that site too:
 * only a site the old release had, and the activity was narrowed away
 * from, stays out. */
TEST(remap_takes_a_messages_added_site)
{
    graph *g1 = index_rel("add1", rel1_py),
          *g3 = index_rel_with("add3", rel1_py, NULL, rel3_tail_py);
    const char *path = train_rel1(g1, "add1.model");
    map_mapper *m;
    model_joint *md;
    map_remap r;
    remap_onto(path, g1, g3, &r, &m, &md);
    map_activity pa;
    map_mapper_activity(m, map_mapper_find(m, "finished job %s now"), &pa);
    CHECK_INT(pa.nsyms, 2);
    bool wrap_up = false;
    for (uint32_t i = 0; i < pa.nsyms; i++) {
        graph_symbol s;
        graph_get_symbol(g3, pa.syms[i], &s);
        wrap_up |= strcmp(s.qualname, "app.wrap_up") == 0;
    }
    CHECK(wrap_up);
    CHECK_STR(symbol_of(m, "starting job %s"), "app.start");
    map_remap_free(&r);
    model_free(md);
    map_mapper_free(m);
    graph_close(g1);
    graph_close(g3);
}

/* A codebase's own logging wrapper: a method of an object the code does
 * not know, whose calls are sites only once messages prove them. */
static const char wrap1_py[] = "import logging\n"
                               "log = logging.getLogger(\"app\")\n"
                               "\n"
                               "class Job:\n"
                               "    def __init__(self, logger, bus):\n"
                               "        self.logger = logger\n"
                               "        self.bus = bus\n"
                               "\n"
                               "    def start(self, x):\n"
                               "        self.logger.debug2(\"starting job %s\", x)\n"
                               "        self.step(x)\n"
                               "\n"
                               "    def step(self, x):\n"
                               "        self.logger.debug2(\"step one for %s done\", x)\n"
                               "        log.info(\"finished job %s now\", x)\n";

/* Release 2: a new call of the wrapper, and a new call of something else
 * with a message-like text. */
static const char wrap2_tail_py[] = "\n"
                                    "    def stop(self, x):\n"
                                    "        self.logger.debug2(\"brand new stop for %s\", x)\n"
                                    "        self.bus.publish(\"job stopped for %s now\", x)\n";

TEST(remap_counts_new_calls_of_a_logging_wrapper)
{
    graph *g1 = index_rel("wrap1", wrap1_py),
          *g2 = index_rel_with("wrap2", wrap1_py, NULL, wrap2_tail_py);
    static const char *const msgs[] = {"starting job 1", "step one for 1 done",
                                       "finished job 1 now"};
    const char *path = train_cases(g1, msgs, 3, UINT32_MAX, NULL, "wrap1.model");
    map_mapper *m;
    model_joint *md;
    map_remap r;
    remap_onto(path, g1, g2, &r, &m, &md);
    CHECK_STR(symbol_of(m, "starting job %s"), "app.Job.start");
    /* The wrapper's new call is a new site; the other call is not. */
    CHECK_INT(r.nnew, 1);
    graph_emit e;
    graph_get_emit(g2, r.new_sites[0], &e);
    CHECK_STR(e.tmpl, "brand new stop for %s");
    map_remap_free(&r);
    model_free(md);
    map_mapper_free(m);
    graph_close(g1);
    graph_close(g2);
}

/* The top-1 symbol after the prefix msgs[0 .. n), mapped by m. */
static const char *top1_after(const model_joint *md, map_mapper *m, const char *const *msgs,
                              uint32_t n)
{
    uint32_t act[8], var[8], prev = UINT32_MAX;
    for (uint32_t i = 0; i < n && i < 8; i++) {
        map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .learn = true};
        map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act[i], &var[i]);
        prev = act[i];
    }
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred pred[3];
    uint32_t k = model_rank(md, w, act, var, n, 3, pred);
    model_work_free(w);
    if (k == 0)
        return "";
    graph_symbol s;
    graph_get_symbol(map_mapper_graph(m), pred[0].symbol, &s);
    return s.qualname;
}

/* After an event the release added (an activity the re-mapped model has
 * no node for), the model predicts what followed the events before it,
 * not the event's own emitter again. The code's share is off, as
 * calibration leaves it: the contexts alone must do it. */
TEST(remap_predicts_past_an_added_event)
{
    /* Release 2: a message added in step, between its own and finish's. */
    graph *g1 = index_rel("ins1", rel1_py),
          *g2 = index_rel_with("ins2", rel1_py, "    finish(x)\n",
                               "    log.info(\"checking the inputs of %s\", x)\n");
    model_params p = model_params_default();
    p.order = 2;
    p.code_prior = 0;
    const char *path = train_cases(g1, rel1_cases, 4, 2, &p, "ins1.model");
    map_mapper *m;
    model_joint *md;
    remap_onto(path, g1, g2, NULL, &m, &md);
    static const char *const pre[] = {"starting job 1", "step one for 1 done",
                                      "checking the inputs of 1"};
    CHECK_STR(top1_after(md, m, pre, 2), "app.finish");
    CHECK_STR(top1_after(md, m, pre, 3), "app.finish");
    /* Saved, it is a model of release 2 that still ranks so. */
    const char *p2 = unit_tmp_path("ins2.model");
    CHECK_OK(model_save(md, p2));
    model_free(md);
    map_mapper_free(m);
    char why[256];
    if (model_load(p2, g2, NULL, &m, &md, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "load: %s", why);
    CHECK_STR(top1_after(md, m, pre, 3), "app.finish");
    model_free(md);
    map_mapper_free(m);
    graph_close(g1);
    graph_close(g2);
}

/* A dictionary record of a template's activity, as map_dict_put_activity
 * writes one, naming symbol sym. */
static void put_template_rec(core_buf *out, const char *text, uint32_t sym)
{
    size_t tl = strlen(text);
    core_buf_put_le(out, tl, 4);
    core_buf_append(out, text, tl);
    core_buf_putc(out, (char)MAP_BY_TEMPLATE);
    core_buf_putc(out, 0);
    core_buf_put_le(out, 1, 4);
    core_buf_put_le(out, sym, 4);
    core_buf_put_f32(out, 1.0f);
    core_buf_put_le(out, 0, 4);
}

/* A model's activities on the graph they were mapped on are not stale,
 * whatever names follow their template: one site's ("TEMPLATE @A"), or a
 * member of a group the logger narrowed ("TEMPLATE @A|B @B"). A text no
 * site logs is. */
TEST(remap_stale_reads_every_name_suffix)
{
    graph *g = index_rel("stale1", rel1_py);
    uint32_t start = unit_sym(g, "app.start"), step = unit_sym(g, "app.step");
    const char *texts[] = {"starting job %s", "starting job %s @app.start",
                           "starting job %s @app.start|app.step @app.start",
                           "no site logs this %s @app.step"};
    core_buf data = {0};
    size_t off[5];
    for (int i = 0; i < 4; i++) {
        off[i] = data.len;
        put_template_rec(&data, texts[i], i == 3 ? step : start);
    }
    off[4] = data.len;
    map_remap_rec recs[4];
    for (int i = 0; i < 4; i++)
        recs[i] = (map_remap_rec){data.data + off[i], off[i + 1] - off[i], 0};
    CHECK_INT(map_dict_stale(g, recs, 3), 0);
    CHECK_INT(map_dict_stale(g, recs, 4), 1);
    core_buf_free(&data);
    graph_close(g);
}

/* Variants naming their modes (map__value_told), which log alike, and a
 * message that ends with a word in brackets of its own. */
static const char told1_py[] = "import logging\n"
                               "log = logging.getLogger(\"app\")\n"
                               "\n"
                               "class Client(object):\n"
                               "    def __init__(self, mode):\n"
                               "        log.info(\"Client initialized for %s.\", mode)\n"
                               "    def modes(self):\n"
                               "        return ['eventlet', 'threading']\n"
                               "    def close(self):\n"
                               "        log.info(\"connection closed (timeout)\")\n"
                               "    def send(self, p):\n"
                               "        log.info(\"sending %s\", p)\n"
                               "\n"
                               "class AsyncClient(Client):\n"
                               "    def modes(self):\n"
                               "        return ['aiohttp']\n"
                               "    async def send(self, p):\n"
                               "        log.info(\"sending %s\", p)\n";

TEST(remap_follows_a_template_named_by_a_value)
{
    graph *g1 = index_rel("told1", told1_py);
    graph *g2 = index_rel_with("told2", told1_py, "class Client", "# moved\n\n");
    static const char *const msgs[] = {"Client initialized for threading.",
                                       "connection closed (timeout)"};
    const char *path = train_cases(g1, msgs, 2, UINT32_MAX, NULL, "told.model");
    map_remap r;
    map_mapper *m;
    model_joint *md;
    remap_onto(path, g1, g2, &r, &m, &md);
    CHECK_INT(remap_of(&r, m, "Client initialized for %s. (threading)")->kind, MAP_REMAP_MOVED);
    CHECK_STR(symbol_of(m, "Client initialized for %s. (threading)"), "app.Client.__init__");
    CHECK_INT(remap_of(&r, m, "connection closed (timeout)")->kind, MAP_REMAP_MOVED);
    CHECK_STR(symbol_of(m, "connection closed (timeout)"), "app.Client.close");
    CHECK_INT(r.count[MAP_REMAP_GONE], 0);
    map_remap_free(&r);
    model_free(md);
    map_mapper_free(m);
    graph_close(g2);
    graph_close(g1);
}
