#!/usr/bin/env python3
# Runs a meson build folder's tests JOBS at a time, without meson (the GPU
# machine's meson cannot read a build folder configured elsewhere): for
# the sanitizer step, where each test under compute-sanitizer runs many
# times slower and the machine has cores to spare. Reads
# BUILD/meson-info/intro-tests.json (each test's command, environment,
# working folder, timeout, suites); prints a line a test as it ends and
# 'N passed, N failed, N skipped'; exit 77 is a skip, as in meson.
#
#   parallel-tests.py BUILD [--suite NAME ...] [--test NAME ...]
#                     [--wrap COMMAND] [-j JOBS] [-v]
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument('build')
ap.add_argument('--suite', action='append', default=[])
ap.add_argument('--test', action='append', default=[],
                help='only the tests of this name')
ap.add_argument('--wrap', default='', help='command to run each test under')
ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1)
ap.add_argument('-v', action='store_true', help="print every test's output")
ap.add_argument('--logdir', help="write each test's whole output to "
                "LOGDIR/NAME.log")
args = ap.parse_args()

tests = []
for t in json.load(open(os.path.join(args.build, 'meson-info',
                                     'intro-tests.json'))):
    suites = [s.split(':')[-1] for s in t.get('suite', [])]
    if args.suite and not set(args.suite) & set(suites + t.get('suite', [])):
        continue
    if args.test and t['name'] not in args.test:
        continue
    tests.append((t, suites))


def run(test):
    t, suites = test
    env = dict(os.environ)
    env.update(t.get('env') or {})
    start = time.time()
    try:
        p = subprocess.run(shlex.split(args.wrap) + t['cmd'],
                           cwd=t.get('workdir') or args.build, env=env,
                           capture_output=True, text=True, errors='replace',
                           timeout=(t.get('timeout') or 30) * 4)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out = -1, 'TIMEOUT after %ss' % e.timeout
    return t['name'], suites, rc, out, time.time() - start


counts = {'passed': 0, 'failed': 0, 'skipped': 0}
with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
    # As each ends: a run cut short keeps what finished.
    done = concurrent.futures.as_completed([pool.submit(run, t)
                                            for t in tests])
    for name, suites, rc, out, took in (f.result() for f in done):
        kind = 'skipped' if rc == 77 else 'passed' if rc == 0 else 'failed'
        counts[kind] += 1
        if args.logdir:
            os.makedirs(args.logdir, exist_ok=True)
            with open(os.path.join(args.logdir, name + '.log'), 'w') as f:
                f.write(out)
        print('%-8s %-40s %7.2fs  [%s]' % (kind.upper(), name, took,
                                           ','.join(suites)), flush=True)
        if args.v or kind == 'failed':
            lines = out.splitlines()
            # A wrapping tool's lines (compute-sanitizer's, on its stdout)
            # ahead of the tail, which the test's log may fill.
            # So are a check's failures (file:line:F:...), which a long
            # log pushes out of it.
            tail = [line for line in lines[:-40] if '=========' in line or
                    ':F:' in line or ':E:' in line]
            print('\n'.join('    ' + line for line in tail + lines[-40:]),
                  flush=True)
print('%d passed, %d failed, %d skipped' % (counts['passed'],
                                            counts['failed'],
                                            counts['skipped']))
sys.exit(1 if counts['failed'] else 0)
