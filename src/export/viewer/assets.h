/*
 * assets.h - the viewer's style sheet and script (viewer.css, viewer.js beside this header),
 * compiled into the command by tools/embed.sh at build time, so the HTML export needs no file
 * at run time.  Not NUL-terminated: the lengths say where they end.
 */
#ifndef PROFIL_EXPORT_VIEWER_ASSETS_H
#define PROFIL_EXPORT_VIEWER_ASSETS_H

#include <stddef.h>

extern const char profil_viewer_css[];
extern const size_t profil_viewer_css_len;
extern const char profil_viewer_js[];
extern const size_t profil_viewer_js_len;

#endif /* PROFIL_EXPORT_VIEWER_ASSETS_H */
