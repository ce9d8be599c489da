/* fuzz_stubs.c — what the fuzz targets link instead of the generated fatbin
 * table (build/gen/fatbin_table.c, nvcc's output): no kernel image, as the
 * parsers never load one. */
#include "fatbin.h"

const kc_fatbin kc_fatbins[1] = { { 0 } };
const int kc_fatbin_count = 0;
