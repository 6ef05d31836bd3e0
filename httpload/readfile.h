/* Reading a whole file given on the command line (a --data @FILE body, a
 * --targets file and the bodies it names) into memory, at start, with a
 * size limit: /dev/zero or a wrong path must end in a message, not in a
 * machine out of memory. */
#ifndef HTTPLOAD_READFILE_H
#define HTTPLOAD_READFILE_H

#include <stddef.h>
#include <stdint.h>

/* The largest file read: bodies and target lists beyond it are refused. */
#define READFILE_LIMIT ((size_t)256 << 20)

/* The file's bytes (malloc'd, NUL-terminated past len) and their length, or
 * NULL with a reason in why ("No such file or directory", "larger than 256
 * MiB", or lg_no_memory when memory ran out). */
uint8_t *read_whole_file(const char *path, size_t *len, const char **why);

#endif
