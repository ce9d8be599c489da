#!/bin/sh
# check-layers.sh — the layer rule of src/ (docs/layout.md), checked.
#
# src/ has one folder per layer, lowest first in the Makefile's SRC_LAYERS
# (util < proc < core < cuda < gates < report < run < mutate < app). A file in
# src/<layer>/ may include, by quoted name, a header of its own layer or of a
# lower one, and any public header of include/; never one of a higher layer.
# Every quoted include is resolved the way the compiler resolves it (the
# including file's folder, then include/, then the layers' folders) and every
# .c/.h under src/ must sit in a layer's folder: nothing is skipped.
#
# No include cycle either: a module (src/<layer>/x.c with its x.h) must not
# include, through its .c or its .h, a module that includes it back, directly
# or through others. Within a layer the layer rule cannot see that; two such
# modules are one module in two files, and neither can be read or tested
# without the other. Each cycle is one line naming the modules and the
# include of each step.
#
# usage: tools/check-layers.sh [ROOT]   (ROOT: the tree to check, default the
#        repository this script is in; its Makefile names the layers)
# Exit 0 when the rule holds; 1 with one line per violation on stderr
# ("FILE:LINE: includes "H" (src/<layer>/H, layer X) above its own layer Y";
# "FILE:LINE: include cycle: A -> B -> A (...)");
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
        me_mod = FILENAME; sub(/\.[ch]$/, "", me_mod)
        node(me_mod)
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
            next
        }
        # The module graph: this file'"'"'s module includes the header'"'"'s (an
        # include against the layer rule, reported above, is left out: the
        # edges left go down or within a layer, so a cycle is one layer'"'"'s).
        to = "src/" where[h] "/" h; sub(/\.h$/, "", to)
        if (to != me_mod && !((me_mod, to) in edge)) {
            node(to)
            edge[me_mod, to] = FILENAME ":" FNR " includes \"" h "\""
            adj[me_mod, ++nadj[me_mod]] = to
        }
    }
    # Modules in the order first seen (files come sorted): the report is stable.
    function node(m) {
        if (!(m in seen_node)) { seen_node[m] = 1; nodes[++nnodes] = m }
    }
    # Depth first from u; an edge back to a module on the stack closes a cycle,
    # reported once (rotated to start at its least module).
    function dfs(u,    i, v, k, j, least, at, nxt, key, why, first, fl) {
        color[u] = 1; stack[++sp] = u
        for (i = 1; i <= nadj[u]; i++) {
            v = adj[u, i]
            if (color[v] == 1) {
                for (k = sp; k > 0 && stack[k] != v; k--) ;
                least = k
                for (j = k; j <= sp; j++) if (stack[j] < stack[least]) least = j
                key = ""; why = ""
                for (j = 0; j <= sp - k; j++) {
                    at = k + (least - k + j) % (sp - k + 1)
                    nxt = (at == sp) ? stack[k] : stack[at + 1]
                    key = key stack[at] " -> "
                    why = why (j ? "; " : "") edge[stack[at], nxt]
                    if (!j) first = edge[stack[at], nxt]
                }
                key = key stack[least]
                if (!(key in cycle_seen)) {
                    cycle_seen[key] = 1
                    split(first, fl, " ")
                    printf "%s: include cycle: %s (%s): modules that include each other, directly or through others, are one module in several files; move what they share into the lowest of them, or into a module below them (docs/layout.md)\n", fl[1], key, why > "/dev/stderr"
                    bad++
                }
            } else if (!color[v]) dfs(v)
        }
        sp--; color[u] = 2
    }
    END {
        for (n = 1; n <= nnodes; n++) if (!color[nodes[n]]) dfs(nodes[n])
        if (bad) {
            printf "%s: %d violation(s) of the layer rule; rerun: %s\n", me, bad, rerun > "/dev/stderr"
            exit 1
        }
    }
' - $files
