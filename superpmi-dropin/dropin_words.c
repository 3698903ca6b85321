/* dropin_words.c - a growing, NULL-terminated argv. */
#include <stdlib.h>
#include <string.h>

#include "dropin.h"

void dropin_words_add(dropin_words *w, const char *word)
{
    if (w->count + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        char **grown = realloc(w->word, cap * sizeof *grown);
        if (!grown) {
            tool_error("out of memory");
            exit(DROPIN_FATAL);
        }
        w->word = grown;
        w->cap = cap;
    }
    char *copy = strdup(word);
    if (!copy) {
        tool_error("out of memory");
        exit(DROPIN_FATAL);
    }
    w->word[w->count++] = copy;
    w->word[w->count] = NULL;
}

void dropin_words_free(dropin_words *w)
{
    for (size_t k = 0; k < w->count; k++)
        free(w->word[k]);
    free(w->word);
    memset(w, 0, sizeof *w);
}
