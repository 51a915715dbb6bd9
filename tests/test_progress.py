"""ccopt._progress: the progress switch takes exactly what its error message offers."""

from __future__ import annotations

import inspect
import sys
import time

import numpy as np
import pytest

import ccopt
from ccopt._progress import check_progress, progress_bar
from ccopt.exceptions import InvalidParameterError
from tests._terminal import Terminal


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


ESTIMATORS = ["KMeans", "COPKMeans", "PCKMeans", "BHKMeans", "LCC", "KMeansS", "PCS", "MLKMeans", "GreedyMLKMeans"]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_shows_progress_by_default(name):
    # The defaults differed (False for five estimators, True for four) while README promised a bar
    # for BH-kmeans, whose default was False.
    assert inspect.signature(getattr(ccopt, name)).parameters["progress"].default is True


def test_on_a_terminal_a_bar_waits_before_it_is_drawn(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress_bar(3, enabled=True, desc="quick") as bar:
        bar.update(3)
    assert terminal.getvalue() == ""  # a loop shorter than DRAW_AFTER leaves the terminal alone

    monkeypatch.setattr("ccopt._progress.DRAW_AFTER", 0.01)
    with progress_bar(3, enabled=True, desc="slow") as bar:
        time.sleep(0.2)  # past tqdm's own 0.1-s refresh interval
        bar.update(3)
    assert "slow" in terminal.getvalue()


def test_a_quick_fit_on_a_terminal_prints_nothing_unless_always(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    ccopt.PCKMeans(2, random_state=0).fit(X, ml=[(0, 1)], cl=[(1, 2)])
    assert terminal.getvalue() == ""
    ccopt.PCKMeans(2, random_state=0, progress="always").fit(X, ml=[(0, 1)], cl=[(1, 2)])
    assert "PCKmeans" in terminal.getvalue()


def test_impact_scores_with_progress_off_draws_no_bar_of_its_inner_k_means(monkeypatch):
    # Its unconstrained k-means start was built with the estimators' default progress=True, so
    # on a terminal `progress=False` and `ccopt score --quiet` still showed "KMeans restarts".
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("ccopt._progress.DRAW_AFTER", 0.0)  # every bar that is on draws at once
    X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    ccopt.impact_scores(X, 2, ml=[(0, 1)], cl=[(2, 3)], criterion="mssc", max_iter=3, random_state=0,
                        progress=False)
    assert terminal.getvalue() == ""


@pytest.mark.parametrize("enabled", ["never", "False", "ALWAYS", ""])
def test_a_progress_string_other_than_always_is_refused(enabled):
    with pytest.raises(InvalidParameterError, match="progress must be True, False or 'always'"):
        progress_bar(3, enabled=enabled)


def test_progress_bar_without_a_total_and_closed_on_error(capsys):
    with pytest.raises(RuntimeError, match="boom"), progress_bar(None, enabled="always", desc="unknown") as bar:
        bar.update(2)
        raise RuntimeError("boom")
    assert "unknown" in capsys.readouterr().err
    with progress_bar(None, enabled=False) as bar:
        bar.update(5)
    assert capsys.readouterr().err == ""
