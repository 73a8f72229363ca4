"""Tests for embedbook.timing."""

import pytest
import torch

from embedbook import timing


def test_one_cpu_thread_restores_the_thread_count():
    before = torch.get_num_threads()
    with timing.one_cpu_thread("cpu"):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError):
        with timing.one_cpu_thread("cpu"):
            raise RuntimeError("inside")
    assert torch.get_num_threads() == before
