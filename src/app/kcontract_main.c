/* kcontract_main.c — main() of libkcontract_main.a (the gtest_main model):
 * linked with a user's contracts and libkcontract, it makes the binary a
 * whole kcontract (kc_main: run, list, merge, info, every option). */
#include "kcontract.h"

int main(int argc, char **argv)
{
    return kc_main(argc, argv);
}
