import pytest
import torch

from embedbook import device


def test_pick_returns_available_device():
    assert device.pick().type in ("cuda", "mps", "cpu")
    assert device.pick("cpu") == torch.device("cpu")


def test_pick_rejects_unknown_and_unavailable(monkeypatch):
    with pytest.raises(ValueError, match="unknown device"):
        device.pick("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            device.pick("cuda")


def test_seed_everything_repeats_draws():
    device.seed_everything(3)
    a = torch.randn(5)
    device.seed_everything(3)
    assert torch.equal(a, torch.randn(5))
    with pytest.raises(ValueError):
        device.seed_everything(-1)


def test_describe_has_versions():
    info = device.describe()
    assert info["torch"] == torch.__version__ and "device" in info
