/* fake_exit0_raw.c — a stand-in driver library (build/libfake_exit0_raw.so,
 * loaded through KC_LIBCUDA) whose constructor ends the process with
 * _exit(0): unlike exit(0) no on_exit handler sees it, so only a process
 * that does not load the library itself can judge it (tests/test_break.c). */
#include <unistd.h>

__attribute__((constructor)) static void fake_exit0_raw_ctor(void)
{
    _exit(0);
}
