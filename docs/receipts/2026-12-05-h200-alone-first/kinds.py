#!/usr/bin/env python3
"""kinds.py LOGDIR: for each --json report in LOGDIR, its items by kind as
the dispatch sees them: the sanitizer's (':sanitize' and controls planted
for gate 5), controls planted for gate 1 (one at a time), library kernels
and their controls (CUB, cuBLAS), suites, ':limits' (these four go alone)
and the items that share (in flight); per kind the count, the item-seconds
and the span (first start, last end). The run's shape per worker:
../2026-12-05-h100-phases/analyse.py LOGDIR."""
import json, sys, glob, os, collections

def kind(r):
    n, k = r['name'], r['kind']
    if n.endswith(':sanitize') or (k == 'control' and r.get('gate') == 5): return 'sanitizer'
    if n.endswith(':limits'): return 'limits'
    if k == 'suite': return 'suite'
    if k == 'control' and r.get('gate') == 1: return 'gate-1 control'
    if n.startswith('cub.') or n.startswith('cublas_'): return 'library'
    return 'shares'

for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    rs = [json.loads(l) for l in open(path) if l.startswith('{"type":"item"')]
    if not rs: continue
    by = collections.defaultdict(list)
    for r in rs: by[kind(r)].append(r)
    print(f"{os.path.basename(path)}: wall {max(r['end_s'] for r in rs):.1f} s")
    for k, v in sorted(by.items()):
        print(f"  {k:15s} {len(v):4d} items, item-s {sum(r['seconds'] for r in v):6.1f}, "
              f"span {min(r['start_s'] for r in v):.1f}-{max(r['end_s'] for r in v):.1f} s")
