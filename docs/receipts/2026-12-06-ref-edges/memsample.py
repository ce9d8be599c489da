#!/usr/bin/env python3
"""memsample.py ROOT_PID OUT — samples, every 0.2 s until ROOT_PID ends, the
host memory (RSS, /proc/PID/statm) of every process below ROOT_PID (a
kcontract --jobs run): per worker (ROOT_PID's direct children), the sum over
the processes below it (its compute-sanitizer sessions and their targets)
and the sum with the worker; per process, its peak; every second, each
process's GPU memory (nvidia-smi --query-compute-apps) and, from call 6 on,
its sum per worker (the processes below it, and with it). Writes the peaks
to OUT. A receipt's measuring tool (issue 23: the memory plan does not count
the sanitizer's sessions), not part of kcontract."""
import os, subprocess, sys, time

root, out = int(sys.argv[1]), sys.argv[2]
page = os.sysconf("SC_PAGE_SIZE")


def procs():
    par, rss, cmd = {}, {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
            with open(f"/proc/{d}/statm") as f:
                r = int(f.read().split()[1]) * page
            with open(f"/proc/{d}/cmdline", "rb") as f:
                c = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        p = int(d)
        par[p] = int(s[s.rindex(")") + 2:].split()[1])
        rss[p], cmd[p] = r, c
    return par, rss, cmd


peak_below, peak_with, peak_n, peak_proc, peak_tree, peak_gpu = {}, {}, {}, {}, 0, {}
peak_gpu_below, peak_gpu_with = {}, {}
gpu_t = 0.0
while os.path.exists(f"/proc/{root}"):
    par, rss, cmd = procs()
    kids = {}
    for p, q in par.items():
        kids.setdefault(q, []).append(p)
    tree = 0
    under = {}      # worker -> the pids below it
    for w in kids.get(root, []):
        stack, below, n = list(kids.get(w, [])), 0, 0
        under[w] = set()
        while stack:
            p = stack.pop()
            under[w].add(p)
            below += rss.get(p, 0)
            n += 1
            stack.extend(kids.get(p, []))
            key = (cmd.get(p, "?")[:160])
            if rss.get(p, 0) > peak_proc.get(key, (0, 0))[0]:
                peak_proc[key] = (rss[p], p)
        tag = f"worker pid {w}"
        peak_below[tag] = max(peak_below.get(tag, 0), below)
        peak_with[tag] = max(peak_with.get(tag, 0), below + rss.get(w, 0))
        peak_n[tag] = max(peak_n.get(tag, 0), n)
        tree += below + rss.get(w, 0)
    peak_tree = max(peak_tree, tree + rss.get(root, 0))
    if time.time() - gpu_t >= 1.0:
        gpu_t = time.time()
        try:
            q = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                               capture_output=True, text=True, timeout=5).stdout
            use = {}
            for line in q.splitlines():
                pid, mib = [x.strip() for x in line.split(",")]
                use[int(pid)] = int(mib)
                key = cmd.get(int(pid), "?")[:160]
                peak_gpu[key] = max(peak_gpu.get(key, 0), int(mib))
            for w, pids in under.items():
                tag = f"worker pid {w}"
                b = sum(use.get(p, 0) for p in pids)
                peak_gpu_below[tag] = max(peak_gpu_below.get(tag, 0), b)
                peak_gpu_with[tag] = max(peak_gpu_with.get(tag, 0), b + use.get(w, 0))
        except Exception as e:  # noqa: BLE001 - a receipt tool: say it and go on
            print(f"memsample: nvidia-smi: {e}", file=sys.stderr)
    time.sleep(0.2)

gib = lambda b: b / 2**30
with open(out, "w") as f:
    f.write(f"whole tree peak RSS {gib(peak_tree):.2f} GiB\n")
    for tag in sorted(peak_below, key=lambda t: -peak_below[t]):
        f.write(f"{tag}: below it peak {gib(peak_below[tag]):.2f} GiB, with it {gib(peak_with[tag]):.2f} GiB, "
                f"at most {peak_n[tag]} processes below\n")
    for tag in sorted(peak_gpu_below, key=lambda t: -peak_gpu_below[t]):
        if peak_gpu_with[tag]:
            f.write(f"{tag}: GPU memory below it peak {peak_gpu_below[tag]} MiB, with it {peak_gpu_with[tag]} MiB "
                    f"(sampled each second)\n")
    f.write("processes by peak RSS (GiB, pid, command):\n")
    for key, (b, p) in sorted(peak_proc.items(), key=lambda kv: -kv[1][0])[:25]:
        f.write(f"  {gib(b):6.2f} {p:7d} {key}\n")
    f.write("processes by peak GPU memory (MiB, command; sampled each second):\n")
    for key, m in sorted(peak_gpu.items(), key=lambda kv: -kv[1])[:25]:
        f.write(f"  {m:7d} {key}\n")
