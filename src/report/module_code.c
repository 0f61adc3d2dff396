/*
 * module_code.c - the module kind for code that no file names.  A profile's JIT names (CODE
 * records: what the program's perf map and jitdump files said, copied when recording ended)
 * answer for the addresses they cover; anonymous memory without a name is one function,
 * "[anon]", so that its samples add up to one line rather than one per address.  The kernel's
 * code is named by the CODE records of kallsyms (source PROFIL_CODE_KERNEL), else "[kernel]".
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "profile/profile.h"
#include "report/module.h"

static void
code_open(struct profil_module *mod)
{
	/* Nothing to read: everything is in the profile. */
	mod->status = PROFIL_MODULE_PSEUDO;
}

static int
code_resolve(struct profil_module *mod, uint64_t offset, struct profil_location **out)
{
	struct profil_frame chain[1] = { { NULL, NULL, 0 } };
	const struct profil_file_code *c;

	if (mod->file == NULL)
		return profil_location_make(mod, offset, 0, mod->path, chain, 1, NULL, out);
	c = profil_file_code_find(mod->file, offset);
	/* Kernel code kallsyms did not name (kptr_restrict) is one function, never a guess. */
	if (strcmp(mod->path, PROFIL_KERNEL_PATH) == 0 && (c == NULL ||
	    c->source != PROFIL_CODE_KERNEL))
		return profil_location_make(mod, offset, 0, PROFIL_KERNEL_PATH, chain, 1, NULL,
		    out);
	if (c == NULL)
		return profil_location_make(mod, offset, 0, NULL, chain, 1, NULL, out);
	return profil_location_make(mod, offset, c->start, c->name, chain, 1, NULL, out);
}

static void
code_release(struct profil_module *mod)
{
	(void)mod;
}

const struct profil_module_kind profil_module_code = {
	.open = code_open,
	.resolve = code_resolve,
	.vaddr = NULL,
	.release = code_release,
};
