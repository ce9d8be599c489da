#!/usr/bin/env python3
"""run_timeline.py — where a run's wall goes, from its --json report and,
when given, the GPU's utilization samples (tools/gpu-env.sh's gpu_smi: one
`timestamp, utilization %, memory MiB` line every 200 ms).

  python3 bench/run_timeline.py REPORT.json [SAMPLES.smi] [--name NAME]

Prints, for the run:
  - per worker, its spans by kind of item, in order: `san-ctl` (controls
    planted for the sanitizer, gate 5), `gate1-ctl` (controls planted for
    gate 1), `san` (`:sanitize` items), `alone` (other items with nothing
    beside them in their worker), `inflight` (items that overlapped another
    of their worker's); a span is a run of one kind, gaps under 0.5 s joined
    (the first 16 a worker);
  - with samples, the GPU's utilization per second of the run (the mean of
    that second's samples, the first sample taken as the run's start) and
    `ramp_s`: the first second that opens five in a row each at least 80%
    busy (the end of the start's idle phase; the last second if none);
  - one machine-readable line:
    TIMELINE name=NAME wall_s=W items=N gpu_s=G busy=B ramp_s=R idle_before_ramp_s=I
    gpu_s: the utilization summed over the samples x their mean spacing;
    busy: gpu_s / wall (wall: the last item's end, from the first worker's
    start); idle_before_ramp_s: the GPU-idle seconds before the ramp (what a
    schedule that fed the GPU from the start could win at most there).
    Fields with no samples print `-`.

Utilization is nvidia-smi's: the share of time a kernel of any context ran,
not how many SMs it filled (docs/performance.md). Exit status 2 on a report
with no item lines or an unreadable file, naming it."""
import collections
import datetime
import json
import sys

SPANS_SHOWN = 16        # a worker's spans printed; a serial run alternates kinds hundreds of times


def fail(msg):
    print(f"run_timeline.py: {msg}", file=sys.stderr)
    sys.exit(2)


def items(path):
    try:
        with open(path) as f:
            rows = [json.loads(l) for l in f if l.startswith('{"type":"item"')]
    except (OSError, ValueError) as e:
        fail(f"cannot read the report {path}: {e}")
    rows = [r for r in rows if not r.get('cached')]
    if not rows:
        fail(f"{path} holds no item that ran (expected the --json report of a run, one object a line)")
    return rows


def kind(r, byw):
    if r['kind'] == 'control' and r.get('gate') == 5:
        return 'san-ctl'
    if r['kind'] == 'control' and r.get('gate') == 1:
        return 'gate1-ctl'
    if r['name'].endswith(':sanitize'):
        return 'san'
    beside = any(o is not r and o['start_s'] < r['end_s'] and o['end_s'] > r['start_s'] for o in byw[r['worker']])
    return 'inflight' if beside else 'alone'


def spans(rows, byw):
    """Per worker: [(kind, start, end, count)], runs of one kind, gaps under 0.5 s joined."""
    out = {}
    for w, wr in sorted(byw.items()):
        seq = []
        for r in sorted(wr, key=lambda r: r['start_s']):
            k = kind(r, byw)
            if seq and seq[-1][0] == k and r['start_s'] - seq[-1][2] < 0.5:
                seq[-1] = (k, seq[-1][1], max(seq[-1][2], r['end_s']), seq[-1][3] + 1)
            else:
                seq.append((k, r['start_s'], r['end_s'], 1))
        out[w] = seq
    return out


def samples(path):
    """[(seconds from the first sample, utilization %)]."""
    out, t0 = [], None
    try:
        with open(path) as f:
            for line in f:
                p = [x.strip() for x in line.split(',')]
                if len(p) < 2 or not p[1].isdigit():
                    continue
                try:
                    t = datetime.datetime.strptime(p[0], '%Y/%m/%d %H:%M:%S.%f')
                except ValueError:
                    continue
                t0 = t0 or t
                out.append(((t - t0).total_seconds(), int(p[1])))
    except OSError as e:
        fail(f"cannot read the samples {path}: {e}")
    if not out:
        fail(f"{path} holds no sample (expected nvidia-smi's 'timestamp, utilization, memory' lines)")
    return out


def main(argv):
    name, args = None, []
    it = iter(argv)
    for a in it:
        if a == '--name':
            name = next(it, None) or fail("--name needs a value")
        else:
            args.append(a)
    if not 1 <= len(args) <= 2:
        fail("usage: run_timeline.py REPORT.json [SAMPLES.smi] [--name NAME]")
    rows = items(args[0])
    name = name or args[0].rsplit('/', 1)[-1].removesuffix('.json')
    byw = collections.defaultdict(list)
    for r in rows:
        byw[r['worker']].append(r)
    wall = max(r['end_s'] for r in rows)
    print(f"{name}: {len(rows)} items, the last ending at {wall:.1f} s")
    for w, seq in spans(rows, byw).items():
        more = f", ... {len(seq) - SPANS_SHOWN} more" if len(seq) > SPANS_SHOWN else ""
        print(f"  w{w}: " + ", ".join(f"{k} x{n} {a:.1f}-{b:.1f}" for k, a, b, n in seq[:SPANS_SHOWN]) + more)
    gpu_s = ramp = idle = '-'
    if len(args) == 2:
        s = samples(args[1])
        per = collections.defaultdict(list)
        for t, u in s:
            per[int(t)].append(u)
        secs = sorted(per)
        mean = {k: sum(per[k]) / len(per[k]) for k in secs}
        print("  GPU busy % per second: " + " ".join(f"{k}:{mean[k]:.0f}" for k in secs))
        step = (s[-1][0] - s[0][0]) / (len(s) - 1) if len(s) > 1 else 0.2
        gpu = sum(u for _, u in s) / 100 * step
        gpu_s = f"{gpu:.1f}"
        r = next((k for k in secs if all(mean.get(j, 0) >= 80 for j in range(k, k + 5))), secs[-1])
        ramp = f"{r}"
        idle = f"{sum(1 - mean[k] / 100 for k in secs if k < r):.1f}"
        busy = f"{gpu / wall:.2f}" if wall > 0 else '-'
    else:
        busy = '-'
    print(f"TIMELINE name={name} wall_s={wall:.1f} items={len(rows)} gpu_s={gpu_s} busy={busy} "
          f"ramp_s={ramp} idle_before_ramp_s={idle}")


if __name__ == '__main__':
    main(sys.argv[1:])
