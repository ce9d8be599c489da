#!/usr/bin/env python3
"""rss.py OUT: samples the resident memory of every kcontract and
compute-sanitizer process five times a second until killed (SIGTERM), then
writes OUT: each process's peak (role, tool, pid, MiB), and the peak of the
sum over all of them at one sample, by role. Roles: 'tool' (a
compute-sanitizer process), 'target' (kcontract --sanitize-target),
'kcontract' (a worker or the run's process)."""
import os, signal, sys, time

def procs():
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            argv = open(f'/proc/{p}/cmdline', 'rb').read().split(b'\0')
            rss = 0
            for line in open(f'/proc/{p}/status'):
                if line.startswith('VmRSS:'):
                    rss = int(line.split()[1]) * 1024
        except OSError:
            continue
        try:
            ppid = int(open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            ppid = 0
        words = [a.decode(errors='replace') for a in argv if a]
        if not words:
            continue
        base = os.path.basename(words[0])
        tool = words[words.index('--tool') + 1] if '--tool' in words[:-1] else '-'
        if base.startswith('compute-sanitiz'):
            yield int(p), ppid, 'tool', tool, rss
        elif base == 'kcontract' and '--sanitize-target' in words:
            yield int(p), ppid, 'target', tool, rss
        elif base == 'kcontract':
            yield int(p), ppid, 'kcontract', tool, rss

peak, best, stop = {}, {}, []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
while not stop:
    tot = {}
    seen = list(procs())
    tools = {pid: tool for pid, _, role, tool, _ in seen if role == 'tool'}
    for pid, ppid, role, tool, rss in seen:
        if role == 'target':
            tool = tools.get(ppid, '-')
        key = (role, tool, pid)
        peak[key] = max(peak.get(key, 0), rss)
        tot[role] = tot.get(role, 0) + rss
    tot['all'] = sum(tot.values())
    for k, v in tot.items():
        best[k] = max(best.get(k, 0), v)
    time.sleep(0.2)
with open(sys.argv[1], 'w') as f:
    for k, v in sorted(best.items()):
        f.write(f'peak sum {k}: {v / 2**20:.0f} MiB\n')
    for (role, tool, pid), v in sorted(peak.items(), key=lambda kv: -kv[1]):
        f.write(f'{role} {tool} {pid}: {v / 2**20:.0f} MiB\n')
