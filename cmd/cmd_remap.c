/*
 * pmrag remap: a model trained on one release's graph carried onto the
 * next release's (model_load_onto re-maps it; the report is map/'s).
 */
#include "cli.h"
#include "commands.h"
#include "graph.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_remap(int argc, char **argv)
{
    const char *model_path = NULL, *graph_path = NULL, *old_path = NULL, *out_path = NULL;
    const char *min_sim = NULL;
    unsigned max = 50;
    bool json = false, quiet = false;
    const cli_opt opts[] = {
        {"model", 0, CLI_STR, &model_path, "FILE", "model file from pmrag mine (required)", 0, 0},
        {"graph", 0, CLI_STR, &graph_path, "FILE",
         "graph file of the new release, from pmrag index (required)", 0, 0},
        {"old-graph", 0, CLI_STR, &old_path, "FILE",
         "graph file the model was trained on: tells the kept from the moved, and carries "
         "activities no template made by their functions' names",
         0, 0},
        {"output", 'o', CLI_STR, &out_path, "FILE", "the re-mapped model (required)", 0, 0},
        {"min-similarity", 0, CLI_STR, &min_sim, "S",
         "least similarity of a reworded template to follow, 0..1 (default 0.6)", 0, 0},
        {"max", 0, CLI_UINT, &max, "N", "lines of the report after the counts (default 50; 0: all)",
         0, 1000000},
        {"json", 0, CLI_FLAG, &json, NULL, "print the report as JSON", 0, 0},
        {"quiet", 'q', CLI_FLAG, &quiet, NULL, "no notes on stderr", 0, 0},
    };
    const cli_cmd cmd = {
        "remap",
        "--model FILE --graph FILE -o FILE [--old-graph FILE] [--json]",
        "Carries a model onto another release's graph.",
        "A model names the symbols of the graph it was trained on. After a release\n"
        "(lines moved, functions renamed, messages reworded, paths added and removed)\n"
        "this finds every activity of the model on the new graph by what it is: a\n"
        "template's activity follows its text to wherever it is now (kept, or moved);\n"
        "one whose text no site has any more takes the most similar text no other\n"
        "activity has (changed, with the similarity as its confidence); one with\n"
        "nothing similar keeps its statistics and predicts no symbol (gone). Activities\n"
        "no template made (messages mapped by constants, tokens, code attributes) keep\n"
        "their functions by name with --old-graph, else are mapped again (again). The\n"
        "contexts and counts are kept as they are. The report lists what did not stay\n"
        "in place, and the sites of the new graph whose template no activity knows\n"
        "(new). 'pmrag predict' and 'pmrag eval' re-map a --model of another graph the\n"
        "same way.\n"
        "JSON: {\"remapped\",\"old_graph\",\"activities\",\"kept\",\"moved\",\"found\",\n"
        "\"changed\",\"gone\",\"again\",\"new_sites\",\"items\":[{\"kind\",\"activity\",\n"
        "\"from\",\"similarity\",\"where\"}],\"new\":[{\"where\",\"template\"}]}.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag remap --model v1.model --graph v2.pmg --old-graph v1.pmg -o v2.model\n"
        "pmrag remap --model v1.model --graph v2.pmg -o v2.model --json --max 0",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (!model_path || !graph_path || !out_path)
        return cli_usage_error(&cmd, "missing %s",
                               !model_path   ? "--model FILE"
                               : !graph_path ? "--graph FILE"
                                             : "-o FILE");
    model_load_opts lo = {.remap = true};
    if (min_sim) {
        char *end;
        lo.min_similarity = strtod(min_sim, &end);
        if (*end || !(lo.min_similarity > 0 && lo.min_similarity <= 1))
            return cli_usage_error(&cmd, "--min-similarity takes a number in (0, 1], not '%s'",
                                   min_sim);
    }
    graph *g = NULL, *old = NULL;
    map_mapper *m = NULL;
    model_joint *md = NULL;
    map_remap rep = {0};
    char why[1024];
    if ((rc = cli_open_graph(cmd.name, graph_path, &g)) != 0)
        goto out;
    if (old_path && (rc = cli_open_graph(cmd.name, old_path, &old)) != 0)
        goto out;
    lo.old = old;
    lo.report = &rep;
    map_mapper_opts mo = {.log = cli_logger(quiet)};
    if ((rc = model_load_onto(model_path, g, &mo, &lo, &m, &md, why, sizeof why)) != 0) {
        cli_error(cmd.name, "%s", why);
        rc = cli_exit_status(rc);
        goto out;
    }
    if ((rc = model_save(md, out_path)) != 0) {
        rc = cli_error(cmd.name, "cannot write %s: %s", out_path, core_strerror(rc));
        goto out;
    }
    core_buf b = {0};
    map_remap_format(&rep, m, json, max, &b);
    if (json)
        core_buf_putc(&b, '\n');
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
out:
    map_remap_free(&rep);
    model_free(md);
    map_mapper_free(m);
    if (old)
        graph_close(old);
    if (g)
        graph_close(g);
    return rc;
}
