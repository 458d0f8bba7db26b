"""A root-motion clip whose measured speed disagrees with its declared speed.

Armed by ``[clips.*] speed_mps`` on a clip whose ``movement_owner_xz`` is not
``"gameplay"`` (an absent owner counts as root motion); any other clip is not
judged (no finding, no gap). Speed = horizontal
endpoint displacement of the clip's travel bone (the highest node above the
hips that this clip animates, else the hips; ``measure speed`` shows it) over
the duration (an out-and-back path measures ~0; a clip that turns is read along
the arc it walks, docs/measure.md). Tolerance = the clip's
``speed_tolerance_mps``, else this check's ``default_tolerance_mps``.

* **stray pin**: measured < ``travel_threshold_mps`` but the pin is at or above
  it → error: the clip carries almost no root motion (a stray pin, or an
  in-place clip declared as root motion). No second finding.
* otherwise measured outside ``speed_mps ± tolerance`` → error: playback scaled
  by this pin will slide or moonwalk. Compared in float32 (the f32 cap rule of
  ``loop-closure``): a root authored to travel exactly at a bound passes,
  whatever float32 positions leave in the last bits of the measured speed.
  A clip whose keys start after 0 s (an export range from frame 1) holds its
  first pose until then, and that hold is part of the measured speed; the
  message then also gives the speed over the keys alone (when it shows other
  digits than the measured speed), and says when that one meets the pin (start
  the keys at 0 s).

Both: measured = speed, expected = the pin, bone = the travel bone.

Coverage gaps (scope ``root_motion_speed``): ``roles_unresolved`` when neither
Root nor Hips resolves; ``measurement_unavailable`` when the speed cannot be
measured.
"""

from __future__ import annotations

from animsmith.checks._clip import TRAVEL_THRESHOLD_MPS, expect_value
from animsmith.checks.base import Option
from animsmith.checks.in_place import measured_speed_or_gap
from animsmith.core.tolerance import f32_outside

ID = "root-motion-speed"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("roles: root or hips", "config: [clips.*] speed_mps (movement_owner_xz not \"gameplay\")")
CONFIG = {
    "default_tolerance_mps": Option(
        0.1, "number", "Tolerance for a speed_mps pin that declares no speed_tolerance_mps.", minimum=0.0
    ),
    "travel_threshold_mps": Option(
        TRAVEL_THRESHOLD_MPS,
        "number",
        "Below this measured speed a clip carries almost no root motion (a pin at or above it is a stray pin).",
        minimum=0.0,
    ),
}


def check(ctx):
    pin = expect_value(ctx, "speed_mps")
    if pin is None or expect_value(ctx, "movement_owner_xz") == "gameplay":
        return
    pin = float(pin)
    tol = float(expect_value(ctx, "speed_tolerance_mps", ctx.options["default_tolerance_mps"]))
    speed, bone, gap = measured_speed_or_gap(ctx, "root_motion_speed")
    if gap is not None:
        yield gap
        return
    threshold = float(ctx.options["travel_threshold_mps"])
    clip = ctx.clip.name
    if speed < threshold and pin >= threshold:
        yield ctx.finding(
            f"declared speed {pin:.2f} m/s but the clip carries almost no root motion ({speed:.2f} m/s) "
            "— stray pin, or an in-place clip declared as root-motion",
            clip=clip,
            bone=bone,
            measured=speed,
            expected=pin,
        )
    elif f32_outside(speed, pin, tol):
        yield ctx.finding(
            f"measured root-motion speed {speed:.2f} m/s disagrees with the declared {pin:.2f} ± {tol:.2f} m/s "
            "— playback scaled by this pin will slide or moonwalk" + _late_start_note(ctx, speed, pin, tol),
            clip=clip,
            bone=bone,
            measured=speed,
            expected=pin,
        )


def _late_start_note(ctx, speed: float, pin: float, tol: float) -> str:
    """When the keys start after 0 s: the hold before the first key is part of the measured
    speed, so say so and give the speed over the keys alone (and whether it meets the pin),
    unless the two speeds show the same digits."""
    from animsmith.core.trajectory import speed_over_keys_mps

    start = float(ctx.analysis.start_s)
    keyed = speed_over_keys_mps(ctx.analysis.speed, start)
    if keyed is None or f"{keyed:.2f}" == f"{speed:.2f}":
        return ""  # a start within float noise of 0 changes no shown digit: nothing to say
    within = not f32_outside(keyed, pin, tol)
    return (f"; its keys start at {start:.3f}s and the first pose is held until then, so over its keys alone it "
            f"travels at {keyed:.2f} m/s" + (", within the pin: start the keys at 0 s" if within else ""))
