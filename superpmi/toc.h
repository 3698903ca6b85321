/*
 * toc.h - reading a .mct from a source (io/source.h): a file, a stream, a URL.
 */
#ifndef MCZ_SUPERPMI_TOC_H
#define MCZ_SUPERPMI_TOC_H

#include "../io/source.h"

/* mcz_toc_parse over the whole of src (one view: a remote table is fetched whole). */
int mcz_toc_load(mcz_src *src, bool validate, mcz_toc_entry **entries, uint32_t *count,
                 mcz_diag *diag);

#endif /* MCZ_SUPERPMI_TOC_H */
