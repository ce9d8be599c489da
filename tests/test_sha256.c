/* test_sha256.c — SHA-256 through libcrypto (src/util/sha256.h): FIPS
 * 180-4's test vectors, and a file's digest as sha256sum prints it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "support/run_output.h"

static void hex_of(const void *p, size_t n, char hex[65])
{
    unsigned char d[32];
    cr_assert_eq(kc_sha256_bytes(p, n, d), 0, "kc_sha256_bytes failed (is libcrypto.so.3 installed? "
                 "tools/install-deps.sh installs libssl3)");
    kc_sha256_hex(d, hex);
}

Test(sha256, known_vectors)
{
    char hex[65];
    hex_of("", 0, hex);
    cr_expect_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, hex);
    cr_expect_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";   /* 56 bytes: two blocks of padding */
    hex_of(two, strlen(two), hex);
    cr_expect_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    static char million[1000000];
    memset(million, 'a', sizeof million);
    hex_of(million, sizeof million, hex);
    cr_expect_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
Test(sha256, a_file_as_sha256sum_prints_it, .timeout = 30)
{
    char dir[512], path[600], cmd[2048];
    kc_tmp_dir(dir, sizeof dir, "sha256");
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(cmd, sizeof cmd, "head -c 200003 /dev/urandom > '%s'; sha256sum < '%s' | cut -c1-64 > '%s.sum'", path, path, path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0);
    unsigned char d[32];
    char hex[65], want[100];
    cr_expect_eq(kc_sha256_fd(fd, d), 0);
    close(fd);
    kc_sha256_hex(d, hex);
    snprintf(cmd, sizeof cmd, "%s.sum", path);
    snprintf(want, sizeof want, "%s", kc_out_file(cmd));
    want[strcspn(want, "\n")] = 0;
    cr_expect_str_eq(hex, want);
    kc_rm_rf(dir);
}
