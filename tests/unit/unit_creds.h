/*
 * Credentials for the unit tests of our servers (core_http, the OTLP/HTTP
 * and OTLP/gRPC receivers): a bearer-token file and a self-signed
 * certificate with its key, written below unit_tmpdir() as an operator
 * would write them. Each fails the running test instead of returning an
 * error. Kept out of unit.c because only these tests need openssl.
 */
#ifndef PMRAG_UNIT_CREDS_H
#define PMRAG_UNIT_CREDS_H

#include "unit.h"

/* A token file holding text (the token and usually a line end), mode 600;
 * its path, owned by the caller (free). */
char *unit_token_file(const char *text);
/* A self-signed certificate for 127.0.0.1 and localhost and its
 * unencrypted key (mode 600), made with the openssl command line; name is
 * the file stem. *cert and *key are the paths, owned by the caller (free). */
void unit_make_cert(const char *name, char **cert, char **key);

#endif
