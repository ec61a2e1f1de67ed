/* pmrag: one binary, subcommands. */
#include "cli.h"
#include "commands.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#ifndef PMRAG_VERSION
#define PMRAG_VERSION "dev"
#endif

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"index", cmd_index, "Builds a graph file from Python, TypeScript and JavaScript sources."},
    {"symbols", cmd_symbols, "Lists the symbols of a graph file."},
    {"graph", cmd_graph,
     "Reads a graph file: its statistics (stats) and a symbol's neighbourhood (show)."},
    {"map", cmd_map,
     "Maps a log's events to activities and the activities to the symbols that emit them."},
    {"mine", cmd_mine, "Learns a model (activities, directly-follows contexts) from a log."},
    {"query", cmd_query, "Ranks the functions that emit a trace's next event."},
    {"remap", cmd_remap, "Carries a model onto another release's graph."},
    {"eval", cmd_eval, "Scores next-event localization on a log's test split, with baselines."},
    {"predict", cmd_predict,
     "Writes the ranked next emitters of every prefix of a log's test cases."},
    {"ppr", cmd_ppr,
     "Runs personalized PageRank from seed nodes, on a graph file or an edge list."},
    {"impact", cmd_impact, "Lists the symbols that depend on a symbol (its blast radius)."},
    {"bench", cmd_bench, "Benchmarks built into pmrag (bench ppr)."},
    {"config", cmd_config, "Shows the effective configuration, or the reference of its keys."},
    {"serve", cmd_serve,
     "Runs the daemon: OTLP/HTTP, OTLP/gRPC and Kafka in, predictions out (Kafka, HTTP, stdout)."},
    {"state", cmd_state, "Inspects a daemon's state directory (dump, stats)."},
    {"kafka-mock", cmd_kafka_mock,
     "Runs librdkafka's mock Kafka cluster (for tests, and for trying pmrag with kcat)."},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: pmrag COMMAND [ARGS]\n\n"
                 "pmrag predicts which code is about to run: a code graph, an event log and\n"
                 "personalized PageRank.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'pmrag COMMAND --help' describes a command, with examples. Every command\n"
                 "takes --quiet, --config FILE and --set KEY=VALUE.\n");
    cli_help_footer(out);
}

int main(int argc, char **argv)
{
    /* Writes to a closed pipe (pmrag symbols | head) end quietly. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("pmrag %s\n", PMRAG_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "pmrag: unknown command '%s' (see 'pmrag --help')\n", cmd);
    return 2;
}
