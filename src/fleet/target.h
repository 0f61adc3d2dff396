/*
 * target.h - the push client's target (target.c), for push.c: each function returns 0 or
 * -errno, with a message in err (at most errlen bytes) when the input is at fault.
 */
#ifndef PROFIL_FLEET_TARGET_H
#define PROFIL_FLEET_TARGET_H

#include <curl/curl.h>
#include <stddef.h>

struct profil_push_opts;

/* snprintf(err, errlen, fmt, subject) when there is room. */
void profil_push_say(char *err, size_t errlen, const char *fmt, const char *subject);
/* Whether s is a name: letters, digits, _ and the characters of also. */
int profil_push_name_ok(const char *s, const char *also);
/* "k=v,k2=v2" as Pyroscope's labelset parser takes it. */
int profil_push_labels_ok(const char *labels, char *err, size_t errlen);
/* *prefix: the ingest URL up to its times, "...ingest?name=APP{labels}&format=pprof&...". */
int profil_push_url_prefix(CURL *easy, const struct profil_push_opts *o, char **prefix,
    char *err, size_t errlen);
/* The auth file's first line: *userpwd for "user:password", else *bearer's header line. */
int profil_push_auth_read(const char *path, char **userpwd, char **bearer, char *err,
    size_t errlen);

#endif /* PROFIL_FLEET_TARGET_H */
