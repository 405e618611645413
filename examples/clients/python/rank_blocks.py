#!/usr/bin/env python3
"""Rank thread-block sizes of a kernel through the polyvol HTTP API.

Start the server with `polyvol serve`, which prints its URL and its API
token, then run for example

    export POLYVOL_API_TOKEN=<the token polyvol serve printed>
    python3 rank_blocks.py --url http://127.0.0.1:8080 --example star3d-r4
    python3 rank_blocks.py --spec my-kernel.yaml --device H100-SXM --threads 256

The script asks /api/predict once per block shape (every shape of --threads
threads whose sides are powers of two, x at least --min-x) and prints the
shapes ranked by predicted GLup/s. It uses only the Python standard library,
as a code generator that calls polyvol would.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request


def block_shapes(threads, min_x):
    """Every (x, y, z) with x*y*z == threads, powers of two, x >= min_x, z <= 64."""
    shapes = []
    x = min_x
    while x <= threads:
        y = 1
        while x * y <= threads:
            z = threads // (x * y)
            if x * y * z == threads and x <= 1024 and y <= 1024 and z <= 64:
                shapes.append((x, y, z))
            y *= 2
        x *= 2
    return shapes


def predict(url, token, request):
    """POST one request to /api/predict and return the decoded report."""
    body = json.dumps(request).encode()
    req = urllib.request.Request(url.rstrip("/") + "/api/predict", data=body,
                                 headers={"Content-Type": "application/json",
                                          "X-Polyvol-Token": token})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the polyvol serve URL")
    parser.add_argument("--token", default=os.environ.get("POLYVOL_API_TOKEN"),
                        help="the API token polyvol serve printed (default: $POLYVOL_API_TOKEN)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--example", default="star3d-r4", help="an embedded example spec")
    source.add_argument("--spec", help="a kernel spec file (YAML or JSON), sent as text")
    parser.add_argument("--device", default="A100-40GB", help="GPU name (polyvol devices)")
    parser.add_argument("--threads", type=int, default=512, help="threads per block")
    parser.add_argument("--min-x", type=int, default=32, help="smallest block extent along x")
    args = parser.parse_args()
    if not args.token:
        print("rank_blocks: no API token: pass --token or set POLYVOL_API_TOKEN "
              "to the token polyvol serve printed at start-up", file=sys.stderr)
        return 2

    base = {"device": args.device}
    if args.spec:
        with open(args.spec, encoding="utf-8") as f:
            base["spec"] = f.read()
    else:
        base["example"] = args.example

    ranked = []
    for shape in block_shapes(args.threads, args.min_x):
        block = ",".join(str(v) for v in shape)
        try:
            report = predict(args.url, args.token, dict(base, block=block))
        except urllib.error.HTTPError as err:
            detail = json.load(err)  # {error, file, line, column, field}
            where = f" (spec line {detail['line']}, column {detail.get('column', '?')})" if "line" in detail else ""
            print(f"rank_blocks: block {block}: {detail['error']}{where}", file=sys.stderr)
            return 2
        except urllib.error.URLError as err:
            print(f"rank_blocks: cannot reach {args.url}: {err.reason}", file=sys.stderr)
            return 2
        prediction = report["prediction"]
        ranked.append((prediction["GLups"], block, prediction["limiter"]))

    ranked.sort(key=lambda r: (-r[0], r[1]))
    print(f"{'rank':>4}  {'block':<10} {'GLup/s':>8}  limiter")
    for i, (glups, block, limiter) in enumerate(ranked, 1):
        print(f"{i:>4}  {block:<10} {glups:>8.2f}  {limiter}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
