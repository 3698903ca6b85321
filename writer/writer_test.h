/*
 * writer_test.h - a hook for the writer's unit tests, not part of the API: it holds the
 * compression workers still, so a test can fill the queue and see what a full queue does.
 */
#ifndef MCZ_WRITER_TEST_H
#define MCZ_WRITER_TEST_H

#include <stdbool.h>

#include "mcz.h"

/* While paused, no worker takes a chunk or trains the dictionary. Unpause before closing. */
void mcz_wr_test_pause(mcz_writer *w, bool paused);

#endif /* MCZ_WRITER_TEST_H */
