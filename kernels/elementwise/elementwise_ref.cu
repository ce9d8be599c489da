// elementwise_ref.cu — the float64 device references of
// kernels/elementwise/elementwise_contract.c, one kernel per host reference,
// each for every dtype (inputs read through kc_dref_in), on the default grid
// (KC_GRID_STRIDE):
//   axpy_ref          axpy.{f32,f16,bf16}       y = a * x + y  (ref_axpy: a*x rounded, then + y)
//   residual_add_ref  residual_add.{f16,bf16}   out = x + residual  (ref_residual_add)
// One multiply and one add in double, unfused (-fmad=false): bitwise equal.
#include "kcontract_device.cuh"

enum { AXPY_X = 0, AXPY_Y = 1, AXPY_A = 2 };
enum { RES_OUT = 0, RES_X = 1, RES_R = 2 };

extern "C" __global__ void axpy_ref(kc_dref r)
{
    const double a = r.scalar[AXPY_A];
    KC_GRID_STRIDE(i, r.count[AXPY_Y]) r.out[AXPY_Y][i] = a * kc_dref_in(r, AXPY_X, i) + kc_dref_in(r, AXPY_Y, i);
}

extern "C" __global__ void residual_add_ref(kc_dref r)
{
    KC_GRID_STRIDE(i, r.count[RES_OUT]) r.out[RES_OUT][i] = kc_dref_in(r, RES_X, i) + kc_dref_in(r, RES_R, i);
}
