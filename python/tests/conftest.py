"""Shared fixtures: every test runs on the default context (VKSORT_DEVICE, else the best device; lavapipe in
CI), and under VKSORT_VALIDATION=1 (as `./dev test` sets) any validation message fails the test."""

import numpy as np
import pytest

import vksort


@pytest.fixture(autouse=True)
def no_validation_errors():
    ctx = vksort.default_context()
    ctx.take_validation_errors()
    yield
    errors = ctx.take_validation_errors()
    assert not errors, "validation errors:\n" + "\n".join(errors)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
