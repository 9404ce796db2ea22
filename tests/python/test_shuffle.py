# SPDX-License-Identifier: Apache-2.0
"""tinyldp.shuffle_epsilon: FMT21's bounds as the CLI prints them (docs/privacy-model.md)."""
import pytest

import tinyldp


def test_reference_row():
    s = tinyldp.shuffle_epsilon(4.0, 1_000_000, 1e-6)
    assert abs(s["closed_form"] - 0.2016) < 5e-4
    assert 0.0493 - 5e-5 <= s["numerical_lower"] <= s["numerical_upper"] <= 0.0501 + 5e-5


def test_outside_the_closed_form():
    s = tinyldp.shuffle_epsilon(4.0, 50)
    assert s["closed_form"] is None and 0 < s["numerical_upper"] <= 4.0


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-6])
def test_bad_delta_refused(delta):
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        tinyldp.shuffle_epsilon(1.0, 1000, delta)
