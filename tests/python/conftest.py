"""Shared fixtures: a seeded RNG whose seed is printed (rerun with PTXSIM_TEST_SEED=<seed>)."""
import os
import random

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("PTXSIM_TEST_SEED", random.randrange(2**32)))
    print(f"[seed] {request.node.name}: PTXSIM_TEST_SEED={seed}")
    return np.random.default_rng(seed)
