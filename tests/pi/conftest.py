"""Shared fixtures for the Raspberry Pi area: the rendered kit (rendering once keeps the tests fast)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.kit import write_kit

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware_config"


@pytest.fixture(scope="session")
def kit_png(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    """The 5-seat kit written as PNG by the real writer, read back as a greyscale image."""
    out = tmp_path_factory.mktemp("kit") / "kit.png"
    written = write_kit(out, seats=5)
    assert written == [out], "the 5-seat kit should fit on one A4 sheet"
    image = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert image is not None
    return out, image
