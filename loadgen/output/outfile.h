/* A file a reader sees whole or not at all (-o, --meta): written under a
 * temporary name in the same directory and renamed into place when complete;
 * a run that ends without it removes the temporary file. */
#ifndef LOADGEN_OUTFILE_H
#define LOADGEN_OUTFILE_H

struct lg_outfile {
    char *path; /* where it goes */
    char *tmp;  /* where it is written */
    int fd;     /* -1 when not open */
};

/* Creates the temporary file: -1 with errno when it cannot (a usage error:
 * found before the run, not after it). */
int lg_outfile_open(struct lg_outfile *f, const char *path);
/* Closes and renames the file into place: -1 with errno when it cannot. */
int lg_outfile_commit(struct lg_outfile *f);
/* Removes the temporary file (safe when never opened or already committed). */
void lg_outfile_abandon(struct lg_outfile *f);

#endif
