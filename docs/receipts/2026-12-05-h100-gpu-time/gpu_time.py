#!/usr/bin/env python3
"""gpu_time.py LOGDIR NAME: who held the GPU during run NAME, from
nvidia-smi pmon (pmon-NAME.txt: each process's 'sm' percent, the share of
the second in which one of its kernels ran) and ps every half second
(ps-NAME.txt: which process is which). Prints, per role, the GPU-seconds
(sm percent / 100 summed over the samples), and the seconds in which the
roles' sum was at least 90, under 50, and zero (no process had a kernel
running). Roles: 'worker' (kcontract run --worker), the compute-sanitizer
targets by tool ('memcheck', 'racecheck', ...), 'other' (a pid ps never saw)."""
import re, sys, collections, os

d, name = sys.argv[1], sys.argv[2]
parent, args = {}, {}
for line in open(os.path.join(d, f'ps-{name}.txt')):
    if line.startswith('@'): continue
    m = re.match(r'\s*(\d+)\s+(\d+)\s+(.*)', line)
    if m: parent[int(m[1])], args[int(m[1])] = int(m[2]), m[3]

def role(pid):
    seen = 0
    p = pid
    while p in args and seen < 8:
        a = args[p]
        t = re.search(r'compute-sanitizer --tool (\w+)', a)
        if t: return t[1]
        if '--worker' in a and p == pid: return 'worker'
        p, seen = parent.get(p), seen + 1
    return 'other' if pid not in args else 'other:' + args[pid][:40]

per = collections.Counter()
secs = collections.defaultdict(float)
for line in open(os.path.join(d, f'pmon-{name}.txt')):
    if line.startswith('#'): continue
    f = line.split()
    if len(f) < 5: continue
    t = f[0]
    secs.setdefault(t, 0.0)
    if f[2] == '-' or f[4] == '-': continue
    r = role(int(f[2]))
    per[r] += int(f[4]) / 100
    secs[t] += int(f[4])
n = len(secs)
print(f"{name}: {n} samples (s); GPU-seconds by role: " + ", ".join(f"{r} {v:.1f}" for r, v in per.most_common()))
print(f"  sum {sum(per.values()):.1f} GPU-s; seconds with the sum >= 90%: {sum(1 for v in secs.values() if v >= 90)}, "
      f"< 50%: {sum(1 for v in secs.values() if v < 50)}, 0%: {sum(1 for v in secs.values() if v == 0)}")
