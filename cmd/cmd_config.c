/* pmrag config: the effective configuration, one key, or the reference. */
#include "cli.h"
#include "commands.h"
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_config(int argc, char **argv)
{
    const char *cfg_path = NULL, *get = NULL;
    bool reference = false;
    cli_list sets = {0};
    const cli_opt opts[] = {
        CLI_CONFIG_OPTS(&cfg_path, &sets),
        {"get", 0, CLI_STR, &get, "KEY", "print the value of one key only", 0, 0},
        {"reference", 0, CLI_FLAG, &reference, NULL,
         "print every key with its type, range, default and meaning (Markdown)", 0, 0},
    };
    const cli_cmd cmd = {
        "config",
        "[--config FILE] [--set KEY=VALUE]... [--get KEY | --reference]",
        "Shows the effective configuration, or the reference of its keys.",
        "Shows the effective configuration: every key with its value and where the\n"
        "value came from (default, FILE:LINE, --set). A file with an error is refused\n"
        "with its line, so this also checks a file before a daemon is given it."
        "\n\n"
        "A configuration file is YAML; dotted keys nest as mappings:\n"
        "  ppr:\n"
        "    alpha: 0.2\n"
        "    profile: debug\n"
        "    weights:\n"
        "      reverse: 0.2\n"
        "Commands take it with --config FILE; --set KEY=VALUE and their own flags\n"
        "override it. ppr.weights.* keys that are given override the profile's.\n"
        "Secret values in kafka.properties (passwords, keys, tokens) are shown as\n"
        "<redacted>, by --get too.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag config --config pmrag.yaml\n"
        "pmrag config --set ppr.alpha=0.2 --get ppr.alpha\n"
        "pmrag config --reference >docs/configuration.md",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    core_buf b = {0};
    if (reference) {
        bool other = cfg_path || get || sets.n;
        free(sets.v);
        if (other)
            return cli_usage_error(&cmd, "--reference takes no other option");
        core_cfg_reference(pmrag_config_table, pmrag_config_count, &b);
    } else {
        core_cfg *cfg;
        rc = cli_config(&cmd, cfg_path, &sets, &cfg);
        free(sets.v);
        if (rc)
            return rc;
        /* A configuration shown is often pasted somewhere: no passwords. */
        config_redact_secrets(cfg);
        if (get) {
            if (!pmrag_config_default(get)) {
                core_cfg_free(cfg);
                return cli_usage_error(&cmd, "--get: unknown key '%s'", get);
            }
            core_buf_printf(&b, "%s\n", core_cfg_text(cfg, get));
        } else {
            core_cfg_dump(cfg, &b);
            ppr_weights w;
            config_ppr_weights(cfg, &w);
            char text[256];
            ppr_weights_format(&w, text, sizeof text);
            core_buf_printf(&b, "# effective edge weights: %s\n", text);
        }
        core_cfg_free(cfg);
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    return rc;
}
