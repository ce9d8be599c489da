#!/usr/bin/env python3
"""rmwait.py — samples, 10 times a second until killed, every process of a
kcontract run and what it waits on in the kernel (/proc/PID/stat's state,
/proc/PID/wchan), and prints one line a second:

    t=<s since start> alive=<n> D=<n in uninterruptible sleep> rm=<n of them in
    the NVIDIA driver's resource-manager locks (os_acquire_rwlock_*,
    os_acquire_mutex)> rm_by_role=<worker:n,target:n,sanitizer:n,parent:n>

(counts are sums of the second's ten samples: 10 = one process the whole
second). Usage: rmwait.py OUTFILE (a receipt's device script runs it in the
background beside the run it watches)."""
import os, sys, time

def role(cmd):
    if 'compute-sanitizer' in cmd or 'TreeLauncher' in cmd: return 'sanitizer'
    if '--sanitize-target' in cmd: return 'target'
    if '--worker' in cmd: return 'worker'
    if 'kcontract' in cmd: return 'parent'
    return None

def main(out):
    roles, t0, last = {}, time.time(), None
    agg = None
    with open(out, 'w', buffering=1) as f:
        while True:
            now = time.time()
            sec = int(now - t0)
            if agg is None or sec != agg['sec']:
                if agg: f.write('t=%d alive=%d D=%d rm=%d rm_by_role=%s\n' % (agg['sec'], agg['alive'], agg['D'], agg['rm'],
                                ','.join('%s:%d' % kv for kv in sorted(agg['roles'].items()))))
                agg = {'sec': sec, 'alive': 0, 'D': 0, 'rm': 0, 'roles': {}}
            for p in os.listdir('/proc'):
                if not p.isdigit(): continue
                try:
                    with open('/proc/%s/stat' % p) as s: fields = s.read().rsplit(')', 1)[1].split()
                    st, key = fields[0], (p, fields[19])       # state; the pid with its start time (pids recur)
                    if key not in roles:
                        with open('/proc/%s/cmdline' % p, 'rb') as c: roles[key] = role(c.read().replace(b'\0', b' ').decode('utf-8', 'replace'))
                    r = roles[key]
                    if not r or st == 'Z': continue
                    agg['alive'] += 1
                    if st != 'D': continue
                    agg['D'] += 1
                    with open('/proc/%s/wchan' % p) as w: wc = w.read()
                    if wc.startswith('os_acquire'):
                        agg['rm'] += 1
                        agg['roles'][r] = agg['roles'].get(r, 0) + 1
                except (OSError, IndexError):
                    pass
            time.sleep(max(0.0, 0.1 - (time.time() - now)))

if __name__ == '__main__':
    main(sys.argv[1])
