/* Private to sink/: the live view's files, built into the binary
 * (sink/embed.cmake writes ui_assets.c from sink/ui/). */
#ifndef PMRAG_SINK_UI_ASSETS_H
#define PMRAG_SINK_UI_ASSETS_H

#include <stddef.h>

typedef struct sink__asset {
    const char *path;  /* the URL path it is served at */
    const char *ctype; /* its Content-Type */
    const unsigned char *data;
    size_t len;
} sink__asset;

extern const sink__asset sink__assets[];
extern const size_t sink__nassets;

#endif
