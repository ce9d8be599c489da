/* fuzz_stubs.c — what the fuzz targets link instead of the embedded harness
 * image (build/fatbin/harness.o, nvcc's output): no kernel image, as the
 * parsers never load one; only the symbol src/cuda/harness.c refers to. */
const int kc_embedded_harness = 0;
