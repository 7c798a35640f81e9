"""The cross-field rules of figure configs (crossfield.py): what the schema
cannot express is refused when a figure is loaded, each problem naming the
file and the field at fault and what is allowed."""
from __future__ import annotations

import pytest

from test_config import assert_reported, sweep_threads

BAD_CONFIGS = [
    ("claim names a series that does not exist",
     lambda d: d["claims"][0].update(numerator="bcc"), "claims[0].numerator",
     "'bcc' is not a series of this figure; series: silo, occ"),
    ("unknown profile",
     lambda d: d.update(profiles={"huge": {"repetitions": 2}}), "profiles.huge",
     "unknown profile; profiles: quick, repeated"),
    ("a profile may only override existing axes",
     lambda d: d.update(profiles={"quick": {"axes": {"threads": [1, 2]}}}), "profiles.quick.axes.threads",
     "is not an axis of this figure; axes: theta"),
    ("swept parameter also fixed",
     lambda d: d["base"].update(theta=0.5), "base.theta", "is swept in axes"),
    ("figure sets what profiles set",
     lambda d: d["base"].update(duration=60), "base.duration", "set it per profile under profiles.<name>.base"),
    ("claim at an unswept value",
     lambda d: d["claims"][0].update(at={"theta": 0.7}), "claims[0].at.theta", "0.7 is not swept under profile"),
    ("no protocol",
     lambda d: d["series"][0]["params"].pop("cc"), "series[0]", "no value for cc"),
    ("conditional claim without condition",
     lambda d: d["claims"][0].update(check="conditional"), "claims[0].condition", "required when check is conditional"),
    ("plot x not an axis",
     lambda d: d["plot"].update(x="threads"), "plot.x", "'threads' is not allowed; allowed: theta"),
    ("threads not a positive integer",
     lambda d: d["base"].update(threads=0), "base.threads", "0 is not allowed: threads must be a positive integer"),
    ("swept threads not integers",
     sweep_threads([1, 2.5]), "axes.threads", "2.5 is not allowed: threads must be a positive integer"),
    ("follow names no axis",
     lambda d: d.update(follow={"warehouses": "threads"}), "follow.warehouses", "follows 'threads', which is not an axis"),
    ("followed parameter also fixed",
     lambda d: (d.update(follow={"table_size": "theta"}), d["base"].update(table_size=5)), "follow.table_size",
     "is set by its axis at every point"),
    ("protocol name cannot name a binary",
     lambda d: d["series"][1]["params"].update(cc="Silo/2"), "series[1].params.cc", "'Silo/2' is not a protocol name"),
]


@pytest.mark.parametrize("change, field_path, message", [case[1:] for case in BAD_CONFIGS],
                         ids=[case[0] for case in BAD_CONFIGS])
def test_each_cross_field_problem_is_reported_with_file_and_field_path(sandbox, change, field_path, message):
    assert_reported(sandbox, change, field_path, message)
