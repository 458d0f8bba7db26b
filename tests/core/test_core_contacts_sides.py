"""Which bone stands for a side's foot (animsmith.core.contacts.side_foot_bone): the foot
role, else the toe role; the foot-slide check and the report's contact bars both ask it."""

from animsmith.core.contacts import side_foot_bone
from animsmith.core.roles import RoleMap


def test_foot_role_wins_over_toe():
    roles = RoleMap(bones={"left_foot": 4, "left_toe": 5, "right_toe": 9})
    assert side_foot_bone(roles, "left") == 4
    assert side_foot_bone(roles, "right") == 9  # no right foot: its toe


def test_side_without_foot_or_toe_has_no_bone():
    roles = RoleMap(bones={"left_foot": 0, "hips": 1})
    assert side_foot_bone(roles, "right") is None
    assert side_foot_bone(None, "left") is None
    assert side_foot_bone(roles, "middle") is None


def test_bone_zero_is_a_bone():
    assert side_foot_bone(RoleMap(bones={"right_foot": 0, "right_toe": 3}), "right") == 0
