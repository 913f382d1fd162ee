#!/usr/bin/env python3
# The plugin's documentation cache, docs/plugins/gst_plugins_cache.json, as
# GStreamer's modules keep theirs: what gst-pinned-plugins-scanner
# (docs/plugins-scanner.c) finds in the built plugin, keys sorted, indented
# by 4, so that a change to an element shows as a small diff in review.
# hotdoc's gst extension builds the element reference from it.
#
#   docs/plugins-cache.py --scanner SCANNER --cache CACHE --output OUTPUT
#       [--update | --check [--inspect GST_INSPECT] [--interop yes|no]]
#       PLUGIN...
#
# Writes the cache of PLUGIN into OUTPUT. --update also writes it to CACHE
# (the committed one) where it differs. --check fails with the diff where
# it differs from CACHE, and where gst-inspect-1.0 (--inspect) shows the
# elements' details or properties otherwise than the cache has them; it
# skips (77) in a build without cuda-interop against a cache with
# memory:CUDAMemory (--interop no), whose pad templates are not the same.
#
# As GStreamer's gst-plugins-doc-cache-generator, the keys an object of
# CACHE lists in its "unstable-values" keep their committed value (the
# plugin's "url", which is the build's package-origin option).
#
# The scanner runs on a registry of its own in OUTPUT's folder with no other
# plugin (an installed gst-pinned is not read).
import argparse
import difflib
import json
import os
import re
import subprocess
import sys

UPDATE = 'ninja -C {build} plugins_doc_caches'


def scan(args, env):
    tmp = args.output + '.tmp'
    run = subprocess.run([args.scanner, tmp] + args.plugins, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout)
        sys.exit('{} failed ({})'.format(args.scanner, run.returncode))
    with open(tmp, encoding='utf-8') as f:
        data = json.load(f)
    os.remove(tmp)
    return data


def keep_unstable(new, old):
    if not isinstance(new, dict) or not isinstance(old, dict):
        return
    unstable = old.get('unstable-values', [])
    if isinstance(unstable, str):
        unstable = [unstable]
    if unstable:
        new['unstable-values'] = old['unstable-values']
    for key in unstable:
        if key in old:
            new[key] = old[key]
    for key, value in new.items():
        if key not in unstable and key in old:
            keep_unstable(value, old[key])


def dump(data):
    return json.dumps(data, indent=4, sort_keys=True,
                      ensure_ascii=False) + '\n'


def inspect_element(gst_inspect, name, env):
    out = subprocess.run([gst_inspect, name], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    details, props, section = {}, {}, None
    for line in out.stdout.splitlines():
        if line and not line.startswith(' '):
            section = line.rstrip(':')
            continue
        if section == 'Factory Details':
            m = re.match(r'  (\S[\w -]*?)\s{2,}(.*)$', line)
            if m:
                details[m.group(1).lower()] = m.group(2)
        elif section == 'Element Properties':
            m = re.match(r'  ([a-z][a-z0-9-]*)\s*: (.*)$', line)
            if m:
                props[m.group(1)] = m.group(2)
    return out.returncode, out.stdout, details, props


# Properties of GStreamer's own classes, which the cache leaves to
# GStreamer's documentation.
GSTREAMER_OWN = {'GstObject': {'name', 'parent'},
                 'GstBaseTransform': {'qos'},
                 'GstAggregator': {'emit-signals', 'latency',
                                   'min-upstream-latency', 'start-time',
                                   'start-time-selection'}}


def check_inspect(gst_inspect, cache, env):
    problems = []
    for plugin in cache.values():
        other = plugin.get('other-types', {})
        for name, element in sorted(plugin['elements'].items()):
            rc, text, details, props = inspect_element(gst_inspect, name, env)
            if rc != 0:
                problems.append('gst-inspect-1.0 {} failed ({}):\n{}'.format(
                    name, rc, text))
                continue
            for key in ('long-name', 'klass', 'description', 'author'):
                if details.get(key) != element.get(key):
                    problems.append('{}: {} is "{}" in gst-inspect-1.0, "{}" '
                                    'in the cache'.format(name, key,
                                                          details.get(key),
                                                          element.get(key)))
            rank = details.get('rank', '').split(' (')[0]
            if rank != element['rank']:
                problems.append('{}: rank {} in gst-inspect-1.0, {} in the '
                                'cache'.format(name, rank, element['rank']))
            cached, left = {}, set()
            for t in element['hierarchy']:
                source = element if t == element['hierarchy'][0] else \
                    other.get(t)
                if source is not None:
                    cached.update({p: v['blurb'] for p, v in
                                   source.get('properties', {}).items()})
                left |= GSTREAMER_OWN.get(t, set())
            for prop in sorted(set(props) | set(cached)):
                if prop not in cached:
                    if prop not in left:
                        problems.append('{}: property {} in gst-inspect-1.0, '
                                        'not in the cache'.format(name, prop))
                elif prop not in props:
                    problems.append('{}: property {} in the cache, not in '
                                    'gst-inspect-1.0'.format(name, prop))
                elif props[prop] != cached[prop]:
                    problems.append('{}: {} reads "{}" in gst-inspect-1.0, '
                                    '"{}" in the cache'.format(
                                        name, prop, props[prop], cached[prop]))
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--scanner', required=True)
    parser.add_argument('--cache', required=True)
    parser.add_argument('--output', required=True)
    parser.add_argument('--build-dir', default='build')
    parser.add_argument('--update', action='store_true')
    parser.add_argument('--check', action='store_true')
    parser.add_argument('--inspect')
    parser.add_argument('--interop', choices=['yes', 'no'])
    parser.add_argument('plugins', nargs='+')
    args = parser.parse_args()

    folder = os.path.dirname(os.path.abspath(args.output))
    env = dict(os.environ, GST_PLUGIN_SYSTEM_PATH_1_0='',
               GST_PLUGIN_PATH_1_0='',
               GST_REGISTRY_1_0=os.path.join(folder, 'registry-doc-cache.bin'))

    try:
        with open(args.cache, encoding='utf-8') as f:
            committed = f.read()
    except FileNotFoundError:
        committed = ''
    if args.check and args.interop == 'no' and \
            'memory:CUDAMemory' in committed:
        print('{} is of a build with cuda-interop (memory:CUDAMemory in the '
              'pad templates), this build has none: not compared'.format(
                  args.cache))
        return 77

    data = scan(args, env)
    if committed:
        keep_unstable(data, json.loads(committed))
    text = dump(data)
    with open(args.output, 'w', encoding='utf-8') as f:
        f.write(text)

    update = UPDATE.format(build=os.path.abspath(args.build_dir))
    if args.update:
        if text != committed:
            with open(args.cache, 'w', encoding='utf-8') as f:
                f.write(text)
            print('updated {}'.format(args.cache))
        else:
            print('{} is up to date'.format(args.cache))
    if not args.check:
        return 0

    status = 0
    if text != committed:
        sys.stdout.writelines(difflib.unified_diff(
            committed.splitlines(True), text.splitlines(True),
            'docs/plugins/gst_plugins_cache.json (committed)',
            '{} (the built plugin)'.format(os.path.abspath(args.output))))
        print('\nThe plugin registers its elements otherwise than '
              'docs/plugins/gst_plugins_cache.json says (above: - committed, '
              '+ built). Where the change is meant, update the cache with\n'
              '    {}\nand commit it.'.format(update))
        status = 1
    if args.inspect:
        ienv = dict(env, GST_PLUGIN_PATH_1_0=os.pathsep.join(
            os.path.dirname(os.path.abspath(p)) for p in args.plugins),
            GST_REGISTRY_1_0=os.path.join(folder, 'registry-doc-inspect.bin'))
        problems = check_inspect(args.inspect, data, ienv)
        if problems:
            print('\ngst-inspect-1.0 shows the elements otherwise than the '
                  'cache the scanner wrote:')
            print('\n'.join('  ' + p for p in problems))
            status = 1
    if status == 0:
        elements = sum(len(p['elements']) for p in data.values())
        print('{}: {} elements, as the built plugin registers them{}'.format(
            args.cache, elements,
            ' and gst-inspect-1.0 shows them' if args.inspect else ''))
    return status


if __name__ == '__main__':
    sys.exit(main())
