/*
 * pmrag serve: the daemon (serve/). Options in, the configuration read,
 * signals handed to the daemon as flags; everything else is serve.h.
 */
#include "cli.h"
#include "commands.h"
#include "serve.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The daemon the signal handlers talk to (serve_stop and serve_reload only
 * set flags: safe in a handler). */
static serve *volatile g_serve;

static void on_signal(int sig)
{
    serve *s = g_serve;
    if (!s)
        return;
    if (sig == SIGHUP)
        serve_reload(s);
    else
        serve_stop(s);
}

int cmd_serve(int argc, char **argv)
{
    serve_opts so = {0};
    const char *cfg_path = NULL;
    cli_list sets = {0};
    bool quiet = false;
    const cli_opt opts[] = {
        {"graph", 0, CLI_STR, &so.graph_path, "FILE", "graph file from pmrag index (required)", 0,
         0},
        {"model", 0, CLI_STR, &so.model_path, "FILE",
         "model file from pmrag mine (default: model.bootstrap_log, or no history)", 0, 0},
        {"overrides", 0, CLI_STR, &so.overrides_path, "FILE",
         "YAML rules mapping activity patterns to symbols", 0, 0},
        {"ready-file", 0, CLI_STR, &so.ready_file, "FILE",
         "write the listening addresses and topics here (JSON, atomically) once everything is up",
         0, 0},
        {"quiet", 'q', CLI_FLAG, &quiet, NULL, "no notes on stderr", 0, 0},
        CLI_CONFIG_OPTS(&cfg_path, &sets),
    };
    const cli_cmd cmd = {
        "serve",
        "--graph FILE [--model FILE] [--config FILE] [--set KEY=VALUE ...] [--ready-file FILE]",
        "Runs the daemon: OTLP/HTTP, OTLP/gRPC and Kafka in, predictions out (Kafka, HTTP, "
        "stdout).",
        "The daemon: events from OTLP/HTTP (otlp.listen, 127.0.0.1:4318: POST /v1/traces,\n"
        "/v1/logs), OTLP/gRPC (otlp.grpc_listen, 127.0.0.1:4317: the trace and logs services'\n"
        "Export) and Kafka go through the mapping to their case's state, and every event\n"
        "gives one prediction of the functions that emit the case's next event: to the\n"
        "Kafka output topic (key: case id), to stdout with serve.stdout, and through the\n"
        "HTTP API (GET /v1/cases/ID, POST /v1/query, /metrics, /livez, /readyz)."
        "\n\n"
        "With no kafka.brokers, OTLP only; kafka.embedded=true runs an embedded Kafka\n"
        "(librdkafka's mock cluster, in memory: for trying pmrag, it keeps nothing across\n"
        "restarts) for the input and output topics; the ready file tells its address.\n"
        "State (cases, online activities, input offsets) lives in state.dir and survives\n"
        "restarts. SIGTERM or SIGINT: drain, flush, commit, exit 0. SIGHUP: reload the graph\n"
        "and the model (a file that cannot be used leaves both as they are); a new release's\n"
        "graph re-maps the model and the online activities onto it, and keeps every case.\n"
        "POST /v1/admin/reload on the API does the same (only with api.token_file).\n"
        "The API listener also serves the live view (GET /), the event streams (GET /v1/stream)\n"
        "and the online accuracy (GET /v1/stats).\n"
        "Keys: 'pmrag config --reference'.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag serve --graph app.pmg --model app.model --config pmrag.yaml\n"
        "pmrag serve --graph app.pmg --set kafka.embedded=true --ready-file ready.json\n"
        "pmrag serve --graph app.pmg --model app.model --set "
        "ui.source_url='https://git.example.com/app/blob/{rev}/{file}#L{line}' --set "
        "ui.source_rev=v1.4.2",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    rc = cli_config(&cmd, cfg_path, &sets, &so.cfg);
    free(sets.v);
    if (rc)
        return rc;
    if (!so.graph_path) {
        core_cfg_free(so.cfg);
        return cli_usage_error(&cmd, "missing --graph FILE");
    }
    so.log = cli_daemon_logger(quiet);
    /* A daemon says what it does: start-up, model changes, expiry. */
    if (!quiet)
        so.log.min = CORE_LOG_INFO;
    serve *s;
    char why[1024];
    rc = serve_open(&so, &s, why, sizeof why);
    if (rc) {
        cli_error(cmd.name, "%s", why);
        return cli_exit_status(rc);
    }
    /* Signals: a flag each; the engine looks at them between cycles. */
    g_serve = s;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    rc = serve_run(s) ? 1 : 0;
    g_serve = NULL;
    serve_close(s);
    return rc;
}
