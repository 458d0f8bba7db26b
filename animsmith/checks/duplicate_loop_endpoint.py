"""A declared loop whose last key repeats its first pose on every channel, or whose keys start after 0 s.

Armed by ``[clips.*] loop = true`` (otherwise not judged). Judged on the
authored keys, not on sampled poses: every channel with 2 or more keys ends
at the clip duration and its last key is its first key's pose, and at least
one channel with 3 or more keys moves (a one-key channel holds one pose for
all time and takes no part). "The same pose" allows what float storage and
exporters leave behind, judged in model space: translations within 0.1 mm
(after the scales above the bone and ``[rig] units``), rotations within
0.01° (sign-invariant), scales within 1e-4 relative (docs/transform.md,
"Endpoint tolerance"). Then the closing key is a
duplicate of frame 0: a runtime that steps frame by frame and wraps from the
last frame to the first shows that pose twice (a one-frame hitch per cycle);
one that wraps time modulo the duration (glTF players such as three.js, and
engines importing the last frame as the first) does not. Warning, time = clip
duration, measured = redundant closing keys per channel (1), expected 0; the
message gives the duration an open cycle would have. Dropping the closing key
makes the wrap a real frame step, which ``loop-closure`` then judges against
its caps (a walk moves more than 1 cm per frame): set them per clip
(``max_loop_position_delta_m`` …) or turn this check off for runtimes that
wrap time.

A declared loop whose keys all start after 0 s (an export range that begins at
frame 1, or a clip cut from a longer take) is a second warning: a runtime plays
a clip from 0 s and clamps before the first key, so it holds the first pose for
that long on every cycle (a hitch; a stall when it is long). Time = the first
key, measured = that hold in seconds, expected 0. The loop checks
(``loop-closure``, ``loop-seam-*``) judge the cycle on the keys' own span, so
the hold is reported here once, not as a seam.

This is the same predicate as ``measure``'s ``loop_endpoint_mode =
"duplicated_endpoint"`` (one definition in ``animsmith.core.analysis``). A
root-motion loop's travel bone ends one stride on from where it began, so its
keys never repeat on every channel and it is not reported: the runtimes that
play root motion (engines extracting it, glTF players) wrap time, and the
closing key is what tells them how far one cycle travels.

Coverage gap (scope ``duplicate_loop_endpoint``): ``measurement_unavailable``
when the clip has no channels, a channel's key times are non-finite or not
strictly increasing, or a key value or CUBICSPLINE tangent is non-finite
(left to ``nan`` / ``time-monotonic``).
"""

from __future__ import annotations

import numpy as np

from animsmith.checks._clip import expect_value, malformed_key_values

ID = "duplicate-loop-endpoint"
SEVERITY = "warning"
SCOPE = "clip"
NEEDS = ("config: [clips.*] loop = true",)
CONFIG = {}


def malformed_times_reason(ctx):
    """Why the authored keys cannot be compared, or None."""
    clip = ctx.clip
    if not clip.channels:
        return "clip has no channels"
    for ch in clip.channels:
        t = np.asarray(ch.times, dtype=np.float64)
        if not np.all(np.isfinite(t)):
            return "a channel has non-finite key times"
        if t.size > 1 and np.any(np.diff(t) <= 0):
            return "a channel's key times are not strictly increasing"
    return malformed_key_values(ctx)


def open_cycle_duration_s(clip) -> float:
    """Duration after dropping every channel's closing key: the latest second-to-last key time."""
    return max(float(ch.times[-2]) for ch in clip.channels if ch.key_count >= 2)


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    clip = ctx.clip
    why = malformed_times_reason(ctx)
    if why:
        yield ctx.gap(
            "measurement_unavailable",
            f"authored endpoint analysis unavailable: {why}",
            scope="duplicate_loop_endpoint",
            subjects=[clip.name],
        )
        return
    start = float(clip.start_s)
    if start > 0.0:
        yield ctx.finding(
            f"declared loop starts at {start:.6f}s, not 0: every channel's first key is after 0, so a "
            f"runtime that plays the clip from 0 holds the first pose for {start:.3f}s on every cycle; "
            f"move the keys to start at 0 (an export range that begins at frame 1 writes its first key "
            f"at 1/fps)",
            clip=clip.name,
            time_s=start,
            measured=start,
            expected=0.0,
        )
    duplicated, _ = ctx.analysis.duplicated_endpoint
    if not duplicated:
        return
    before = float(clip.duration_s)
    after = open_cycle_duration_s(clip)
    yield ctx.finding(
        f"declared loop repeats its first pose at the authored endpoint: the last key of all "
        f"{len(clip.channels)} channel(s) duplicates key 0, so a runtime that steps frames and wraps to the "
        f"first shows that pose twice (one that wraps time modulo the duration does not); for a frame-stepping "
        f"runtime drop the closing key for an open cycle ({before:.6f}s -> {after:.6f}s) and let loop-closure "
        f"allow one frame step",
        clip=clip.name,
        time_s=before,
        measured=1,
        expected=0,
    )
