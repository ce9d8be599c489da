/* gate_checks.h — gates 2, 3 and 4 on a case whose first launch passed
 * gate 1 (gate2.c, gate3.c, gate4.c). Each returns 0 or the failing gate
 * (-1 internal), the failure in k->why. */
#ifndef KC_GATE_CHECKS_H
#define KC_GATE_CHECKS_H
#include "case.h"
#include "launch.h"

/* Bounds and writes on buffer set 0 (K relaunched to confirm unwritten elements). */
int kc_gate2(kc_gpu *gpu, const kc_kernels *K, kc_case *k);
/* The reference --reference asks for, then accuracy of every output of set 0. */
int kc_gate3(kc_gpu *gpu, kc_case *k);
/* A relaunch of K on buffer set 1, compared bitwise with set 0's outputs. */
int kc_gate4(kc_gpu *gpu, const kc_kernels *K, kc_case *k);
#endif
