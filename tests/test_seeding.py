import numpy as np
import pytest

from privopt import seeding


def test_same_key_same_stream_and_any_change_gives_another():
    base = seeding.rng("p", "e", {"r": 10, "eta": 0.2}, 3).random(8)
    assert np.array_equal(base, seeding.rng("p", "e", {"eta": 0.2, "r": 10}, 3).random(8))  # key order irrelevant
    for other in [
        seeding.rng("q", "e", {"r": 10, "eta": 0.2}, 3),
        seeding.rng("p", "f", {"r": 10, "eta": 0.2}, 3),
        seeding.rng("p", "e", {"r": 11, "eta": 0.2}, 3),
        seeding.rng("p", "e", {"r": 10, "eta": 0.25}, 3),
        seeding.rng("p", "e", {"r": 10, "eta": 0.2}, 4),
        seeding.rng("p", "e", {"r": 10.0, "eta": 0.2}, 3),  # 10 and 10.0 are different keys
    ]:
        assert not np.array_equal(base, other.random(8))


def test_stream_is_pinned_across_versions():
    # A change of this value silently changes every result table: bump it only on purpose.
    state = seeding.seed_sequence("chaturvedi2021", "fig1/dataset", {"m": 100}, 0).generate_state(2)
    assert state.tolist() == PINNED


def test_bad_seeds_and_keys_are_rejected():
    with pytest.raises(ValueError):
        seeding.rng("p", "e", {}, -1)
    with pytest.raises(ValueError):
        seeding.rng("p", "e", {}, 1.5)
    with pytest.raises(TypeError):
        seeding.rng("p", "e", {"x": object()}, 0)


PINNED = [1023237873, 2964248937]
