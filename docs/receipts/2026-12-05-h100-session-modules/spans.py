#!/usr/bin/env python3
"""spans.py LOGDIR: for each all-*.json report in LOGDIR (this receipt's runs
of every item), the `:sanitize` items, the controls planted for the sanitizer
(gate 5) and the items in flight (as ../2026-12-05-h200-alone-first/kinds.py
counts them): per group the count, item-seconds and span (first start, last
end); and for each san-*.json the sum of each tool's seconds over the item
lines ("[memcheck N s, racecheck N s, ...]" in each item's message)."""
import collections, glob, json, os, re, sys

def rows(path):
    return [r for r in (json.loads(l) for l in open(path) if l.strip()) if r.get('type') == 'item']

def in_flight(r):
    n, k = r['name'], r['kind']
    return not (n.endswith(':sanitize') or n.endswith(':limits') or k == 'suite' or
                (k == 'control' and r.get('gate') in (1, 5)) or n.startswith('cub.') or n.startswith('cublas_'))

def span(items):
    return '%d items, item-s %.1f, span %.1f-%.1f s' % (len(items), sum(r['seconds'] for r in items),
                                                       min(r['start_s'] for r in items), max(r['end_s'] for r in items))

d = sys.argv[1]
for path in sorted(glob.glob(os.path.join(d, 'all-*.json'))):
    its = rows(path)
    print(os.path.basename(path))
    print('  :sanitize items       ', span([r for r in its if r['name'].endswith(':sanitize')]))
    print('  sanitizer controls    ', span([r for r in its if r['kind'] == 'control' and r.get('gate') == 5]))
    print('  items in flight       ', span([r for r in its if in_flight(r)]))
for path in sorted(glob.glob(os.path.join(d, 'san-*.json'))):
    tools = collections.Counter()
    for r in rows(path):
        for t, s in re.findall(r'(memcheck|racecheck|initcheck|synccheck) ([0-9.]+) s', r['message']):
            tools[t] += float(s)
    print(os.path.basename(path), 'tool time %.1f s:' % sum(tools.values()),
          ', '.join('%s %.1f' % (t, tools[t]) for t in ('memcheck', 'racecheck', 'initcheck', 'synccheck')))
