/* runlist.c — a comma-separated list of runs (see runlist.h). */
#include "stats/runlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void runlist_free(struct runlist *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->paths[i]);
    free(list->paths);
    list->paths = NULL;
    list->n = 0;
}

int runlist_split(const char *arg, struct runlist *list, char *error, size_t error_size)
{
    list->paths = NULL;
    list->n = 0;
    size_t items = 1;
    for (const char *c = arg; *c; c++)
        items += *c == ',';
    list->paths = calloc(items, sizeof *list->paths);
    if (list->paths == NULL) return -2;
    const char *start = arg;
    for (size_t i = 0; i < items; i++) {
        size_t len = strcspn(start, ",");
        if (len == 0) {
            snprintf(error, error_size, "'%s': an empty name in the list of runs", arg);
            runlist_free(list);
            return -1;
        }
        list->paths[i] = strndup(start, len);
        if (list->paths[i] == NULL) {
            runlist_free(list);
            return -2;
        }
        list->n++;
        start += len + 1;
    }
    for (size_t i = 0; i < list->n; i++) {
        if (list->n > 1 && strcmp(list->paths[i], "-") == 0) {
            snprintf(error, error_size, "'%s': standard input (-) cannot be one of several runs",
                     arg);
            runlist_free(list);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(list->paths[i], list->paths[j]) == 0) {
                snprintf(error, error_size, "'%s': %s is named twice", arg, list->paths[i]);
                runlist_free(list);
                return -1;
            }
    }
    return 0;
}
