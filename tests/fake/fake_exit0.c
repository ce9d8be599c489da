/* fake_exit0.c — a stand-in driver library (build/libfake_exit0.so, loaded
 * through KC_LIBCUDA) whose constructor ends the process with exit(0), as a
 * broken or hostile library can: kcontract must fail and say so, never exit
 * 0 silently (tests/test_trust.c). */
#include <stdlib.h>

__attribute__((constructor)) static void fake_exit0_ctor(void)
{
    exit(0);
}
