"""The `interior_optimum` claim kind (a sweet spot, e.g. the batch size of ding-ext-bsize-*), on the
hand-made table of test_claims: throughput a = 100, 80, 50; c = 30, 31, 20 at theta 0, 0.5, 0.9."""
from __future__ import annotations

import pytest

from ccbench.analysis.claims import FAILED, HELD, NO_DATA
from test_claims import check, make_table


@pytest.mark.parametrize("claim, outcome", [
    ({"kind": "interior_optimum", "series": "c", "along": "theta"}, HELD),                       # peak at 0.5
    ({"kind": "interior_optimum", "series": "a", "along": "theta"}, FAILED),                     # peak at 0
    ({"kind": "interior_optimum", "series": ["a", "c"], "along": "theta"}, FAILED),
    ({"kind": "interior_optimum", "series": "c", "along": "theta", "direction": "min"}, FAILED),  # lowest at 0.9
])
def test_interior_optimum(claim, outcome):
    result = check(claim)
    assert result.outcome == outcome, result.detail
    assert result.asserted


def test_interior_optimum_names_where_the_optimum_is():
    detail = check({"kind": "interior_optimum", "series": "a", "along": "theta", "at": {"threads": 1}}).detail
    assert detail == "a at threads=1: highest at theta=0.0 [at the edge of the sweep]"


def test_interior_optimum_needs_three_swept_values():
    assert check({"kind": "interior_optimum", "series": "c", "along": "threads"}).outcome == NO_DATA


def test_interior_optimum_with_a_missing_point_is_no_data():
    assert check({"kind": "interior_optimum", "series": "c", "along": "theta"},
                 make_table(drop=("c", 0.5, 2))).outcome == NO_DATA
