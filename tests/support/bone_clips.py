"""A small skeleton (with a duplicated bone name) and one keyed clip for the bone checks.
"""

from __future__ import annotations

from animsmith.model import Asset, Channel, Clip, Skeleton


def asset(names=("root", "hips", "spine", "spine"), keyed=(1,)):
    sk = Skeleton.build(list(names), [-1, 0, 1, 1][: len(names)])
    chans = [Channel.make(b, "rotation", [0, 1], [[0, 0, 0, 1], [0, 0, 0, 1]]) for b in keyed]
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans, index=0), Clip(name="idle", channels=[], index=1)])
