/* Credentials for the server tests (see unit_creds.h). */
#include "unit_creds.h"

#include <sys/stat.h>

char *unit_token_file(const char *text)
{
    char *p = strdup(unit_write_str("token", text));
    CHECK_OK(chmod(p, 0600));
    return p;
}

void unit_make_cert(const char *name, char **cert, char **key)
{
    char c[1024], k[1024], cmd[4096];
    snprintf(c, sizeof c, "%s/%s.crt", unit_tmpdir(), name);
    snprintf(k, sizeof k, "%s/%s.key", unit_tmpdir(), name);
    snprintf(cmd, sizeof cmd,
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
             "-keyout '%s' -out '%s' -days 2 -subj /CN=localhost "
             "-addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null",
             k, c);
    if (system(cmd) != 0)
        unit_fail(__FILE__, __LINE__, "openssl req failed (is openssl installed?): %s", cmd);
    CHECK_OK(chmod(k, 0600));
    *cert = strdup(c);
    *key = strdup(k);
}
