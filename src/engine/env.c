/*
 * The environment, read and written without the program's getenv(3) and setenv(3).  bash
 * exports functions of those names that keep the environment in its own variable table, filled
 * in its main(): from a constructor, which runs before main, bash's getenv sees nothing and
 * bash's setenv writes where bash then throws it away.  The C library's environ array is the
 * one the kernel put on the stack, and main's envp is that same array.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

const char *
profil_env_get(const char *name)
{
	size_t len = strlen(name);
	char **e;

	if (environ == NULL)
		return NULL;
	for (e = environ; *e != NULL; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/*
 * Points the existing entry for the name at entry ("NAME=value", storage that lives as long as
 * the process), in place: a program whose main() copies its envp (bash) sees it, where a new
 * array made by setenv(3) would be lost.  Returns 0, or -ENOENT if the name is not there.
 */
int
profil_env_replace(char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t len = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
	char **e;

	if (environ == NULL)
		return -ENOENT;
	for (e = environ; *e != NULL; e++) {
		if (strncmp(*e, entry, len) == 0 && (*e)[len] == '=') {
			*e = entry;
			return 0;
		}
	}
	return -ENOENT;
}
