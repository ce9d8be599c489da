#!/usr/bin/env python3
"""kernel_time.py — where the GPU's own time goes in a traced run (issue 23).

Reads the per-process traces libkc_kernel_time.so wrote (DIR/ktime.<pid>.tsv:
kind, start_ns, end_ns, context, stream, grid or bytes, block, name; see
bench/kernel_time_inject.c) and prints, in seconds of GPU time:

  - the span from the first activity to the last, and the union of every
    activity (the time at least one kernel, memset or copy of any traced
    process was on the GPU: what a perfect packing could not go under);
  - the same union and the plain sum by role:
      inputs     kc_gen_fill (the Philox input generators)
      checks     kc_check_* (gates 2 and 3 on the device)
      poison     kc_smem_poison (gate 2's shared-memory fill)
      reference  kernels of a *_ref module (the float64 device references)
      kernel     kernels of a family's module or of a control's variant
      harness    the harness module's other kernels
      library    kernels no bundled module holds (cuBLAS, CUB, ...)
      memset, copy (copy.<kind>: CUPTI's copy kind, 1 host to device,
                 2 device to host, 8 device to device)
  - the plain sum by family for the kernels under test and the references;
  - the 25 kernels with the most time; and every kernel, memset and copy
    kind with its role, family, count and GPU-seconds into TRACE_DIR/kernels.tsv
    (what a receipt keeps when it drops the raw traces);
  - one machine-readable line: BENCH kernel_time name=... span_s=...
    union_s=... sum_s=... then role=union_s pairs.

A kernel is placed in a module by its name (mangled as the trace gives it)
among the .text.<name> sections of every FATBIN_DIR/*.fatbin (build/fatbin):
a name held by several modules (a control's variant keeps its family's kernel
names) is counted for the family of the first, '@<control>' stripped.

Under time slicing a kernel's start and end are when it began and ended on
the GPU, so its duration includes the slices other contexts held; the union
is the bound that stays true.

Usage: kernel_time.py TRACE_DIR [--fatbins build/fatbin] [--name NAME]
A file's last line cut short (its process ended while writing it) and blank
lines are counted apart too (cut=); any other line that is not a record is an
error.

Activities CUPTI hands back without timestamps (their context faulted, or they
were still open at the forced flush at exit) are counted apart (untimed=) and
their processes named, never summed.

Errors: a TRACE_DIR without ktime.*.tsv, or a line that is not 8 fields with
numbers where they belong, is named (file, line) and the script exits 2.
"""
import argparse
import collections
import glob
import os
import re
import sys

HARNESS_ROLES = (("kc_gen_", "inputs"), ("kc_check_", "checks"), ("kc_smem_poison", "poison"))


def die(msg):
    print(f"kernel_time.py: {msg}", file=sys.stderr)
    sys.exit(2)


def module_map(fatbin_dir):
    """kernel name -> fatbin base name (first one, sorted), from .text.<name> sections."""
    names = {}
    for path in sorted(glob.glob(os.path.join(fatbin_dir, "*.fatbin"))):
        base = os.path.basename(path)[: -len(".fatbin")]
        with open(path, "rb") as f:
            data = f.read()
        for m in re.finditer(rb"\.text\.([A-Za-z_$][\w$.]*)\x00", data):
            names.setdefault(m.group(1).decode(), base)
    return names


def role_and_family(kind, name, modules):
    if kind == "S":
        return "memset", "-"
    if kind == "C":
        return "copy", "-"
    for prefix, role in HARNESS_ROLES:
        if name.startswith(prefix):
            return role, "-"
    mod = modules.get(name)
    if mod is None:
        return "library", "-"
    if mod == "harness":
        return "harness", "-"
    fam = mod.split("@")[0]
    if fam.endswith("_ref"):
        return "reference", fam[: -len("_ref")]
    return "kernel", fam


def read_traces(trace_dir):
    if not os.path.isdir(trace_dir):
        die(f"{trace_dir}: not a directory (expected the DIR given to bench/kernel_time.sh)")
    files = sorted(glob.glob(os.path.join(trace_dir, "ktime.*.tsv")))
    if not files:
        die(f"{trace_dir}: no ktime.<pid>.tsv: no process initialized CUDA under the trace library")
    recs, lost, lost_files, cut = [], collections.Counter(), set(), 0
    for path in files:
        with open(path, errors="replace") as f:
            lines = f.readlines()
        for n, line in enumerate(lines, 1):
            parts = line.rstrip("\n").split("\t")
            if not line.strip() or (n == len(lines) and not line.endswith("\n")):
                cut += 1
                continue
            if len(parts) != 8 or parts[0] not in ("K", "S", "C"):
                die(f"{path}:{n}: expected 8 tab-separated fields starting with K, S or C, got {line[:80]!r}")
            try:
                start, end = int(parts[1]), int(parts[2])
            except ValueError:
                die(f"{path}:{n}: start and end must be integers (ns), got {parts[1]!r} {parts[2]!r}")
            if start == 0 or end < start:
                lost[parts[0]] += 1  # no timestamps: its context faulted, or it was open at the forced flush
                lost_files.add(os.path.basename(path))
                continue
            recs.append((parts[0], start, end, parts[7], os.path.basename(path)))
    return files, recs, lost, lost_files, cut


def union_ns(intervals):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace_dir", help="the DIR bench/kernel_time.sh wrote ktime.<pid>.tsv into")
    ap.add_argument("--fatbins", default="build/fatbin", help="the build's fatbin folder, to place kernels in modules")
    ap.add_argument("--name", default="run", help="the run's name on every line and in the BENCH line")
    a = ap.parse_args()
    if not os.path.isdir(a.fatbins):
        die(f"--fatbins {a.fatbins}: not a directory (expected the build's fatbin folder, build/fatbin)")
    modules = module_map(a.fatbins)
    files, recs, lost, lost_files, cut = read_traces(a.trace_dir)
    if not recs:
        die(f"{a.trace_dir}: {len(files)} trace files but no timed activity in them "
            f"({sum(lost.values())} without timestamps, {cut} lines cut or blank)")
    by_role = collections.defaultdict(list)
    fam_sum = collections.Counter()
    kern_sum, kern_n = collections.Counter(), collections.Counter()
    for kind, s, e, name, _ in recs:
        role, fam = role_and_family(kind, name, modules)
        by_role[role].append((s, e))
        if role in ("kernel", "reference"):
            fam_sum[(fam, role)] += e - s
        kern_sum[(kind, name, role, fam)] += e - s
        kern_n[(kind, name, role, fam)] += 1
    span = max(r[2] for r in recs) - min(r[1] for r in recs)
    every = [(r[1], r[2]) for r in recs]
    total_union, total_sum = union_ns(every), sum(e - s for s, e in every)
    sec = lambda ns: ns / 1e9
    print(f"{a.name}: {len(files)} traced processes, {len(recs)} activities, {len(modules)} kernel names in {a.fatbins}")
    if lost:
        print(f"{a.name}: {sum(lost.values())} activities without timestamps (kernels {lost['K']}, memsets {lost['S']}, "
              f"copies {lost['C']}; their context faulted, or they were still open at a forced flush), not counted; in {len(lost_files)} "
              f"processes: {' '.join(sorted(lost_files))}")
    if cut:
        print(f"{a.name}: {cut} lines cut short or blank (a process ended while writing), not counted")
    print(f"{a.name}: span {sec(span):.3f} s; GPU busy (union of every activity) {sec(total_union):.3f} s; "
          f"sum of durations {sec(total_sum):.3f} s")
    print(f"{a.name}: by role (union s / sum s / count):")
    roles = sorted(by_role, key=lambda r: -sum(e - s for s, e in by_role[r]))
    role_union = {}
    for r in roles:
        iv = by_role[r]
        role_union[r] = union_ns(iv)
        print(f"  {r:10s} {sec(role_union[r]):8.3f} {sec(sum(e - s for s, e in iv)):8.3f} {len(iv):8d}")
    print(f"{a.name}: by family, kernels under test and references (sum s):")
    fams = collections.defaultdict(dict)
    for (fam, role), ns in fam_sum.items():
        fams[fam][role] = ns
    for fam in sorted(fams, key=lambda f: -sum(fams[f].values())):
        k, r = fams[fam].get("kernel", 0), fams[fam].get("reference", 0)
        print(f"  {fam:24s} kernel {sec(k):7.3f}  reference {sec(r):7.3f}")
    print(f"{a.name}: the 25 kernels with the most time (sum s, count, mean ms, role, family):")
    for key, ns in [kv for kv in kern_sum.most_common() if kv[0][0] == "K"][:25]:
        _, name, role, fam = key
        print(f"  {sec(ns):8.3f} {kern_n[key]:7d} {ns / kern_n[key] / 1e6:9.3f}  {role:9s} {fam:20s} {name[:90]}")
    table = os.path.join(a.trace_dir, "kernels.tsv")
    with open(table, "w") as f:
        f.write("kind\tname\trole\tfamily\tcount\tseconds\n")
        for key, ns in kern_sum.most_common():
            f.write("\t".join(key) + f"\t{kern_n[key]}\t{sec(ns):.6f}\n")
    print(f"{a.name}: every kernel, memset and copy kind with its count and GPU-seconds: {table}")
    pairs = " ".join(f"{r}={sec(role_union[r]):.3f}" for r in roles)
    print(f"BENCH kernel_time name={a.name} procs={len(files)} activities={len(recs)} untimed={sum(lost.values())} cut={cut} span_s={sec(span):.3f} "
          f"union_s={sec(total_union):.3f} sum_s={sec(total_sum):.3f} {pairs}")


if __name__ == "__main__":
    main()
