/*
 * target.c - where the Pyroscope push client sends and as whom: the application name and
 * labels checked as the server parses them, the ingest URL built from the server's, and the
 * credentials of the auth file.  Private to src/fleet (target.h).
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/push.h"
#include "fleet/target.h"

void
profil_push_say(char *err, size_t errlen, const char *fmt, const char *subject)
{
	if (errlen > 0)
		snprintf(err, errlen, fmt, subject);
}

/*
 * Pyroscope's labelset.Parse and validate.go: the name's characters are letters, digits and
 * _ . - /; a label's, letters, digits, _ and .; a value ends at , or } and is trimmed of space.
 */
int
profil_push_name_ok(const char *s, const char *also)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '.' && strchr(also, *s) == NULL)
			return 0;
	return 1;
}

/* A label's value: printable ASCII, without the space labelset.Parse trims nor , = { }. */
static int
value_ok(const char *v)
{
	if (*v == '\0')
		return 0;
	for (; *v != '\0'; v++)
		if ((unsigned char)*v < 0x21 || (unsigned char)*v > 0x7e || strchr(",={}", *v))
			return 0;
	return 1;
}

void
profil_push_label_fix(char *value)
{
	for (; *value != '\0'; value++) {
		char one[2] = { *value, '\0' };

		if (!value_ok(one))
			*value = '_';
	}
}

int
profil_push_labels_ok(const char *labels, char *err, size_t errlen)
{
	char *copy = strdup(labels), *save = NULL, *kv, *v;
	int ok = 1;

	if (copy == NULL)
		return -ENOMEM;
	for (kv = strtok_r(copy, ",", &save); ok && kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		if ((v = strchr(kv, '=')) == NULL) {
			profil_push_say(err, errlen, "a label is not key=value: '%s'", kv);
			ok = 0;
			break;
		}
		*v++ = '\0';
		if (!profil_push_name_ok(kv, "") || strcmp(kv, "__name__") == 0) {
			profil_push_say(err, errlen,
			    "a label's key has characters Pyroscope refuses: '%s'",
			    kv);
			ok = 0;
		} else if (!value_ok(v)) {
			profil_push_say(err, errlen,
			    "a label's value is empty or has space , = { } or non-ASCII: '%s'", v);
			ok = 0;
		}
	}
	if (ok && (labels[0] == ',' || strstr(labels, ",,") != NULL ||
	    labels[strlen(labels) - 1] == ',')) {
		profil_push_say(err, errlen, "the labels have an empty one: '%s'", labels);
		ok = 0;
	}
	free(copy);
	return ok ? 0 : -EINVAL;
}

/* "http(s)://host[:port][/prefix]" + "/ingest?name=APP{labels}&format=pprof&spyName=profil". */
int
profil_push_url_prefix(CURL *easy, const struct profil_push_opts *o, char **prefix, char *err,
    size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *query = NULL, *frag = NULL, *path = NULL, *base = NULL;
	char *name = NULL, *esc = NULL;
	int rc = -EINVAL;

	if (u == NULL)
		return -ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, o->url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
		profil_push_say(err, errlen, "not an http:// or https:// URL: '%s'", o->url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0) == CURLUE_OK) {
		profil_push_say(err, errlen,
		    "the server's URL has a query or fragment: '%s'", o->url);
		goto out;
	}
	rc = -ENOMEM;
	if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK)
		goto out;
	{
		size_t n = strlen(path);
		char *ingest = malloc(n + sizeof("/ingest"));

		if (ingest == NULL)
			goto out;
		while (n > 0 && path[n - 1] == '/')
			n--;
		memcpy(ingest, path, n);
		strcpy(ingest + n, "/ingest");
		n = curl_url_set(u, CURLUPART_PATH, ingest, 0) != CURLUE_OK;
		free(ingest);
		if (n || curl_url_get(u, CURLUPART_URL, &base, 0) != CURLUE_OK)
			goto out;
	}
	if (asprintf(&name, "%s{%s}", o->app, o->labels != NULL ? o->labels : "") < 0) {
		name = NULL;
		goto out;
	}
	if ((esc = curl_easy_escape(easy, name, 0)) == NULL)
		goto out;
	if (asprintf(prefix, "%s?name=%s&format=pprof&spyName=profil", base, esc) < 0) {
		*prefix = NULL;
		goto out;
	}
	rc = 0;
out:
	curl_free(esc);
	free(name);
	curl_free(base);
	curl_free(path);
	curl_free(frag);
	curl_free(query);
	curl_free(scheme);
	curl_url_cleanup(u);
	return rc;
}

/* The auth file's first line: "user:password" for basic auth, else a bearer token. */
int
profil_push_auth_read(const char *path, char **userpwd, char **bearer, char *err, size_t errlen)
{
	char line[4096];
	FILE *f = fopen(path, "re");
	size_t n;

	if (f == NULL) {
		int e = errno;

		if (errlen > 0)
			snprintf(err, errlen, "cannot read the auth file (%s): '%s'", strerror(e),
			    path);
		return -e;
	}
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (n == 0 || strpbrk(line, " \t") != NULL) {
		profil_push_say(err, errlen,
		    "the auth file's first line is empty or has blanks: '%s'", path);
		explicit_bzero(line, sizeof(line));
		return -EINVAL;
	}
	if (strchr(line, ':') != NULL) {
		*userpwd = strdup(line);
	} else if (asprintf(bearer, "Authorization: Bearer %s", line) < 0) {
		*bearer = NULL;
	}
	explicit_bzero(line, sizeof(line));
	return *userpwd != NULL || *bearer != NULL ? 0 : -ENOMEM;
}
