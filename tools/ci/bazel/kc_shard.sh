#!/bin/sh
# One Bazel test shard: kcontract run over $KC_PATTERNS and the test's args;
# the shard comes from Bazel's variables (no --shard needed).
set -f
exec "$KC_BIN" run $KC_PATTERNS "$@"
