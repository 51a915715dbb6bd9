"""ccopt._progress: the progress switch takes exactly what its error message offers."""

from __future__ import annotations

import numpy as np
import pytest

from ccopt._progress import check_progress, progress_bar
from ccopt.exceptions import InvalidParameterError


@pytest.mark.parametrize("enabled", [None, 0, 1, 0.0, [], object(), "never", np.int64(1)])
def test_anything_but_a_bool_or_always_is_refused(enabled):
    # None, 0, 1 and arbitrary objects were read by truth value, though the message rules them out.
    with pytest.raises(InvalidParameterError, match=r"^progress must be True, False or 'always', got "):
        progress_bar(3, enabled=enabled)


@pytest.mark.parametrize(("enabled", "expected"), [(True, True), (False, False), (np.bool_(True), True),
                                                   (np.bool_(False), False), ("always", "always")])
def test_bools_numpy_bools_and_always_are_accepted(enabled, expected):
    assert check_progress(enabled) == expected
    assert type(check_progress(enabled)) is type(expected)
    with progress_bar(2, enabled=enabled) as bar:
        bar.update(2)


def test_the_message_shows_a_numpy_scalar_as_a_plain_number():
    with pytest.raises(InvalidParameterError, match=r"got 1\.$"):
        check_progress(np.int64(1))


def test_the_subgradient_configuration_checks_progress_when_it_is_made():
    # Before, a bad value was refused only once the run started and made its bar.
    from ccopt.lagrange.driver import SubgradientConfig

    with pytest.raises(InvalidParameterError, match="progress must be True, False or 'always', got 1"):
        SubgradientConfig(progress=1)
    assert SubgradientConfig(progress="always").progress == "always"
