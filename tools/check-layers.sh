#!/bin/sh
# check-layers.sh — the layer rule of src/ (docs/layout.md), checked.
#
# src/ has one folder per layer, lowest first in the Makefile's SRC_LAYERS
# (util < proc < core < cuda < gates < report < run < app). A file in
# src/<layer>/ may include, by quoted name, a header of its own layer or of a
# lower one, and any public header of include/; never one of a higher layer.
# Every quoted include is resolved the way the compiler resolves it (the
# including file's folder, then include/, then the layers' folders) and every
# .c/.h under src/ must sit in a layer's folder: nothing is skipped.
#
# usage: tools/check-layers.sh [ROOT]   (ROOT: the tree to check, default the
#        repository this script is in; its Makefile names the layers)
# Exit 0 when the rule holds; 1 with one line per violation on stderr
# ("FILE:LINE: includes "H" (src/<layer>/H, layer X) above its own layer Y");
# 2 when ROOT is not a tree it can read. `make test` runs it before the
# Criterion tests; tests/test_layers.c plants violations to prove it fails.
set -u
root=${1:-$(dirname "$0")/..}
me="check-layers"
rerun="tools/check-layers.sh${1:+ $1}"
if [ ! -f "$root/Makefile" ] || [ ! -d "$root/src" ]; then
    echo "$me: '$root' is no source tree (expected ROOT/Makefile and ROOT/src/)" >&2
    exit 2
fi
layers=$(sed -n 's/^SRC_LAYERS[[:space:]]*:*=[[:space:]]*//p' "$root/Makefile")
if [ -z "$layers" ]; then
    echo "$me: $root/Makefile has no 'SRC_LAYERS := ...' line (the layers, lowest first)" >&2
    exit 2
fi
cd "$root" || exit 2
# Every file of src/ (any depth), then awk: resolve each quoted include.
files=$(find src -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
[ -n "$files" ] || { echo "$me: $root/src has no .c or .h file" >&2; exit 2; }
# A file outside the layers'"'"' folders would escape the rule: refused.
bad=0
for f in $files; do
    d=${f#src/}; d=${d%%/*}
    case " $layers " in *" $d "*) [ "$f" = "src/$d/${f##*/}" ] && continue ;; esac
    echo "$f: is in no layer: every file of src/ sits in src/<layer>/, a layer of SRC_LAYERS in the Makefile ($layers)" >&2
    bad=$((bad + 1))
done
headers=$(find src include -type f -name '*.h' 2>/dev/null | LC_ALL=C sort)
# shellcheck disable=SC2086
printf '%s\n' $headers | LC_ALL=C awk -v layers="$layers" -v me="$me" -v rerun="$rerun" -v bad="$bad" '
    BEGIN {
        n = split(layers, order, " ")
        for (i = 1; i <= n; i++) rank[order[i]] = i
        chain = order[1]; for (i = 2; i <= n; i++) chain = chain " < " order[i]
    }
    # First input (standard input): the headers. src/<layer>/h.h or include/h.h.
    FILENAME == "-" {
        k = split($0, p, "/")
        if (p[1] == "include" && k == 2) public[p[2]] = 1
        else if (p[1] == "src" && k == 3 && (p[2] in rank)) {
            if (p[3] in where) dup[p[3]] = dup[p[3]] ", src/" p[2] "/" p[3]
            else where[p[3]] = p[2]
        }
        next
    }
    FNR == 1 {
        k = split(FILENAME, p, "/")
        layer = (k == 3 && (p[2] in rank)) ? p[2] : ""
    }
    layer != "" && /^[ \t]*#[ \t]*include[ \t]*"/ {
        h = $0; sub(/^[^"]*"/, "", h); sub(/".*$/, "", h)
        if (h in dup) {
            printf "%s:%d: includes \"%s\", which more than one layer has (src/%s/%s%s): one name, one header\n", FILENAME, FNR, h, where[h], h, dup[h] > "/dev/stderr"
            bad++; next
        }
        # The compiler: the including file'"'"'s folder, then include/, then the layers.
        if (h in public) next
        if (!(h in where)) {
            printf "%s:%d: includes \"%s\", which is in no layer folder of src/ nor in include/\n", FILENAME, FNR, h > "/dev/stderr"
            bad++; next
        }
        if (where[h] != layer && rank[where[h]] > rank[layer]) {
            printf "%s:%d: includes \"%s\" (src/%s/%s, layer %s) above its own layer %s; a file includes only its own layer and lower ones (%s): move what it needs down (docs/layout.md)\n", FILENAME, FNR, h, where[h], h, where[h], layer, chain > "/dev/stderr"
            bad++
        }
    }
    END {
        if (bad) {
            printf "%s: %d violation(s) of the layer rule; rerun: %s\n", me, bad, rerun > "/dev/stderr"
            exit 1
        }
    }
' - $files
