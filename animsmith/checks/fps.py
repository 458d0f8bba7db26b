"""Duration and key times off the declared frame grid.

Armed by ``[clips.*] fps``; a clip without a declared fps is not judged (no
finding, no gap). With ``fps`` declared:

* ``duration · fps`` further than ``max_frame_error`` frames from a whole
  number → warning (measured = frames, expected = the nearest whole count):
  the clip was sliced mid-frame or exported at another rate;
* the worst key time over every channel with ``|t · fps − round(t · fps)| >
  max_frame_error`` → one warning naming its bone and time (resampling
  drift). Non-finite key times are left to ``nan``.

A declared fps that is not a finite positive number is the coverage gap
``invalid_declared_fps`` (scope ``frame_grid``).
"""

from __future__ import annotations

import math

import numpy as np

from animsmith.checks._clip import bone_name, expect_value
from animsmith.checks.base import Option

ID = "fps"
SEVERITY = "warning"
SCOPE = "clip"
NEEDS = ("config: [clips.*] fps",)
CONFIG = {
    "max_frame_error": Option(
        0.1,
        "number",
        "Largest distance, in frames, of the duration or a key time from the declared frame grid.",
        minimum=0.0,
    ),
}


def frame_error(times_s, fps: float) -> np.ndarray:
    """|t·fps − round(t·fps)| in frames (NaN for non-finite t)."""
    with np.errstate(invalid="ignore", over="ignore"):
        frames = np.asarray(times_s, dtype=np.float64) * fps
        return np.abs(frames - np.round(frames))


def _fps_label(fps: float) -> str:
    return f"{fps:g}"


def check(ctx):
    fps = expect_value(ctx, "fps")
    if fps is None:
        return
    clip = ctx.clip
    try:
        fps = float(fps)
    except (TypeError, ValueError):
        fps = float("nan")
    if not (math.isfinite(fps) and fps > 0):
        yield ctx.gap(
            "invalid_declared_fps",
            f"declared fps {fps!r} is not a finite positive number; the frame grid cannot be checked",
            scope="frame_grid",
            subjects=[clip.name],
        )
        return
    cap = float(ctx.options["max_frame_error"])
    label = _fps_label(fps)

    duration = float(clip.duration_s)
    frames = duration * fps
    if math.isfinite(frames) and abs(frames - round(frames)) > cap:
        yield ctx.finding(
            f"duration {duration:.4f}s is {frames:.2f} frames at {label} fps — not a whole frame count; "
            "a slice cut mid-frame?",
            clip=clip.name,
            time_s=duration,
            measured=frames,
            expected=float(round(frames)),
        )

    worst = None  # (error_frames, time_s, channel)
    for ch in clip.channels:
        if ch.key_count == 0:
            continue
        err = frame_error(ch.times, fps)
        if not np.any(np.isfinite(err)):
            continue
        k = int(np.nanargmax(err))
        if err[k] > cap and (worst is None or err[k] > worst[0]):
            worst = (float(err[k]), float(ch.times[k]), ch)
    if worst is not None:
        err, t, ch = worst
        yield ctx.finding(
            f"{ch.path} key at {t:.4f}s sits {err:.2f} frames off the {label} fps grid (worst offender) "
            "— resampling drift?",
            clip=clip.name,
            bone=bone_name(ctx, ch.bone),
            time_s=t,
            measured=err,
            expected=cap,
        )
