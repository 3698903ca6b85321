/*
 * mcs_packet_text.h - one map item as SuperPMI's MethodContext::dmp<Packet> prints it
 * (superpmi-shared/methodcontext.cpp and spmidumphelper.h/.cpp; the commits are in
 * superpmi/SUPERPMI.md "Dump texts"), for the packets whose layouts mcz knows. mcs -dump uses it.
 *
 * Where SuperPMI would read outside the map (a pool index that names no chunk, a
 * SigInstHandleMap index past its end), the text says <unknown> instead. CorInfoType names
 * come from mcs_print_prim (-dumpMap's and -ildump's names: int32, class NAME...), where
 * SuperPMI's dump prints its short names (int, class...).
 */
#ifndef MCS_PACKET_TEXT_H
#define MCS_PACKET_TEXT_H

#include "mcs_context.h"

/*
 * Prints item i of m, the map of the packet named `name` (mcz_packet_name's: "CompileMethod",
 * "CR_CompileMethod"), in mc of JIT-EE version v, without a line break. Returns false, printing nothing,
 * when the packet's layout is not known here or the map's item size is not that layout's: the
 * caller then prints the item's bytes.
 */
bool mcs_packet_text(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const char *name,
                     const mcz_map *m, uint32_t i);

#endif /* MCS_PACKET_TEXT_H */
