"""The simulator benchmark script exists and prints its three headline numbers (no timing asserted)."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_sim_prints_the_three_numbers():
    script = os.path.join(ROOT, "benchmarks", "bench_sim.py")
    res = subprocess.run([sys.executable, script, "--batch", "500"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert re.search(r"^two-bone IK: [\d,]+ solves/s", out, re.M)
    m = re.search(r"^FABRIK 3-segment: [\d,]+ solves/s \(max residual ([\d.]+) mm", out, re.M)
    assert m and float(m.group(1)) <= 0.1  # the residual bound the target is stated at
    assert re.search(r"^whole catalog validated \(5 creatures x walk test \+ 4 terrains\): [\d.]+ s", out, re.M)
    assert len(re.findall(r"^LOD ", out, re.M)) == 3
