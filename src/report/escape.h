/*
 * escape.h - names as views print them.  Program, thread, path and symbol names come from the
 * profiled program and its files: an escape sequence in one (ESC ] 0 ; retitles a terminal,
 * ESC [ 2 J clears it) must show as text, and a tab or newline must not forge a column or a
 * row of --tsv output.  Internal to the profil command.
 */
#ifndef PROFIL_REPORT_ESCAPE_H
#define PROFIL_REPORT_ESCAPE_H

#include <stddef.h>

/* The longest escape of one byte, "\ooo". */
#define PROFIL_ESCAPE_MAX	4

/*
 * profil_escape - s as it may be printed: s itself when it needs no escape, else a copy in buf
 * (len bytes, truncated at a whole escape, always NUL-terminated when len > 0) with a
 * backslash as "\\", tab, newline and carriage return as "\t", "\n", "\r", and every other
 * control character, C1 control (U+0080 to U+009F) and byte that is not part of valid UTF-8
 * as "\ooo" in octal, as `ls -b` shows them.  Valid UTF-8 text passes unchanged.
 */
const char *profil_escape(const char *s, char *buf, size_t len);

/*
 * The same for a line of source text shown by --annotate: tabs stay tabs and backslashes stay
 * themselves (C source is full of them); control characters are still escaped.
 */
const char *profil_escape_text(const char *s, char *buf, size_t len);

/*
 * The inside of a JSON string holding s, a name as profil_escape() shows it (or a word of
 * ours): '"' and '\\' with a backslash, and, should one remain, a control character as
 * \u00XX and a C1 control or a byte that is not UTF-8 as \ufffd, so the result is always
 * valid JSON.  A JSON reader thus gets the name exactly as the text view shows it.  Truncated as
 * profil_escape() truncates; len at least 7 holds any one escape.
 */
const char *profil_escape_json(const char *s, char *buf, size_t len);

#endif /* PROFIL_REPORT_ESCAPE_H */
