/* Files renamed into place when complete. See outfile.h. */
#include "loadgen/output/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lg_outfile_open(struct lg_outfile *f, const char *path)
{
    f->fd = -1;
    f->path = strdup(path);
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    size_t len = strlen(path) + 16;
    f->tmp = malloc(len);
    if (!f->path || !f->tmp) {
        lg_outfile_abandon(f);
        errno = ENOMEM;
        return -1;
    }
    /* beside the target, so the rename stays within one file system */
    snprintf(f->tmp, len, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
    f->fd = mkstemp(f->tmp);
    if (f->fd < 0) {
        int err = errno;
        free(f->tmp);
        f->tmp = NULL;
        lg_outfile_abandon(f);
        errno = err;
        return -1;
    }
    fchmod(f->fd, 0644); /* mkstemp makes it 0600; the tools always wrote 0644 */
    return 0;
}

int lg_outfile_commit(struct lg_outfile *f)
{
    int rc = 0;
    if (f->fd >= 0 && close(f->fd) < 0) rc = -1;
    f->fd = -1;
    if (rc == 0 && f->tmp && rename(f->tmp, f->path) < 0) rc = -1;
    int err = errno;
    if (rc == 0) {
        free(f->tmp);
        f->tmp = NULL;
    }
    lg_outfile_abandon(f);
    errno = err;
    return rc;
}

void lg_outfile_abandon(struct lg_outfile *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->tmp) unlink(f->tmp);
    free(f->tmp);
    free(f->path);
    f->tmp = f->path = NULL;
}
