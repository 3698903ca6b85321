/*
 * input_info.c - what a program may ask of an input besides its bytes (mcz.h, "Inputs"): whether
 * reading it costs requests, and the walk-in-order hint its mapping takes.
 */
#include "mcz_common.h"
#include "../io/source.h"

bool mcz_input_remote(const mcz_input *in)
{
    return in && mcz_src_remote(in);
}

void mcz_input_drop_behind(const mcz_input *in, uint64_t *dropped, uint64_t pos)
{
    if (in && dropped)
        mcz_src_drop_behind(in, dropped, pos);
}
