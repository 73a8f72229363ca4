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
        with pytest.raises(RuntimeError, match="CUDA, which is not available"):
            device.pick("cuda")


def test_pick_takes_a_torch_device():
    """Finding 5: pick(torch.device("cpu")) raised AttributeError."""
    assert device.pick(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(TypeError, match="device name"):
        device.pick(3)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_absent_device_blames_the_right_setting(monkeypatch):
    """Finding 5: pick("cuda") without CUDA said "unset EMBEDBOOK_DEVICE" though it was never set."""
    monkeypatch.delenv("EMBEDBOOK_DEVICE", raising=False)
    with pytest.raises(RuntimeError) as err:
        device.pick("cuda")
    assert "EMBEDBOOK_DEVICE" not in str(err.value)
    monkeypatch.setenv("EMBEDBOOK_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="unset EMBEDBOOK_DEVICE"):
        device.pick()


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
