#!/usr/bin/env python3
"""analyse.py LOGDIR: for each --json report in LOGDIR (one object a line),
the run's shape: wall (the last item's end), items, per worker its items and
end, the span of the sanitizer items (':sanitize' and controls planted for
the sanitizer, gate 5), of the items that shared a worker with another (in
flight) and the item-seconds of those that ran with nothing beside them in
their worker, and the sanitizer's tools summed from the :sanitize lines."""
import json, re, sys, glob, os, collections

def rows(path):
    return [json.loads(l) for l in open(path) if l.startswith('{"type":"item"')]

def tools(msg):
    g = re.search(r'memcheck ([0-9.]+) s, racecheck ([0-9.]+) s.*initcheck ([0-9.]+) s, synccheck ([0-9.]+) s', msg)
    return [float(x) for x in g.groups()] if g else None

for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    rs = [r for r in rows(path) if not r.get('cached')]
    if not rs: continue
    san = [r for r in rs if r['name'].endswith(':sanitize') or (r['kind'] == 'control' and r.get('gate') == 5)]
    byw = collections.defaultdict(list)
    for r in rs: byw[r['worker']].append(r)
    alone, shared = [], []
    for w, wr in byw.items():
        for r in wr:
            ov = any(o is not r and o['start_s'] < r['end_s'] and o['end_s'] > r['start_s'] for o in wr)
            (shared if ov else alone).append(r)
    t = [0.0] * 4
    for r in rs:
        x = tools(r['message']) if r['name'].endswith(':sanitize') else None
        if x: t = [a + b for a, b in zip(t, x)]
    span = lambda v: (round(min(r['start_s'] for r in v), 1), round(max(r['end_s'] for r in v), 1)) if v else None
    print(f"{os.path.basename(path)}: wall {max(r['end_s'] for r in rs):.1f} s, {len(rs)} items, item-s {sum(r['seconds'] for r in rs):.1f}")
    print("  workers: " + ", ".join(f"w{w} {len(v)} to {max(r['end_s'] for r in v):.1f}" for w, v in sorted(byw.items())))
    print(f"  sanitizer items {len(san)} span {span(san)} item-s {sum(r['seconds'] for r in san):.1f}; "
          f"tools mem/race/init/sync {'/'.join(f'{x:.1f}' for x in t)}")
    print(f"  in flight {len(shared)} span {span(shared)} item-s {sum(r['seconds'] for r in shared):.1f}; "
          f"alone (not sanitizer) {len([r for r in alone if r not in san])} item-s {sum(r['seconds'] for r in alone if r not in san):.1f}")
