/* Growing arrays: the one capacity-doubling rule every growing buffer of the
 * suite uses. */
#ifndef LOADGEN_GROW_H
#define LOADGEN_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Makes room for `need` elements of `size` bytes in the array *p holding
 * *cap, doubling from `first`. False, with nothing changed, when memory runs
 * out. `p` is the address of the array pointer (of any type). */
static inline bool lg_grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap : first;
    while (ncap < need)
        ncap *= 2;
    void **array = p;
    void *grown = realloc(*array, ncap * size);
    if (!grown) return false;
    *array = grown;
    *cap = ncap;
    return true;
}

#endif
