/* assets.h - the dashboard's files, compiled in by web/embed.py (web_assets.c). */
#ifndef RC_WEB_ASSETS_H
#define RC_WEB_ASSETS_H

#include <stddef.h>

typedef struct rc_web_asset {
    const char *path; /* "/" for index.html, else "/NAME" */
    const char *type; /* Content-Type */
    const unsigned char *data;
    size_t len;
} rc_web_asset;

extern const rc_web_asset rc_web_assets[]; /* ends with a row whose path is NULL */

#endif
