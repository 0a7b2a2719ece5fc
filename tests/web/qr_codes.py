"""Reading the QR codes of the table cards as a phone would (zbarimg, Debian's zbar-tools)
and the PDF's pages as images and text (pdftoppm and pdftotext, Debian's poppler-utils).
.ci/run installs both; without them a test is skipped, and fails under CI=true."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.servers import running_under_ci

TOOLS = {"zbarimg": "zbar-tools", "pdftoppm": "poppler-utils", "pdftotext": "poppler-utils"}


def qr_tools_require() -> None:
    """Skip (fail under CI) when a tool is missing."""
    missing = sorted({package for tool, package in TOOLS.items() if shutil.which(tool) is None})
    if missing:
        reason = f"the QR decoder and PDF tools are not installed (apt: {' '.join(missing)})"
        if running_under_ci():
            pytest.fail(reason)
        pytest.skip(reason)


def qr_decoded(image: Path) -> list[str]:
    """The texts of every QR code zbarimg finds in ``image`` (none: an empty list)."""
    run = subprocess.run(
        ["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(image)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert run.returncode in (0, 4), run.stderr  # 4: no code found
    return [line for line in run.stdout.splitlines() if line]


def pdf_page_images(pdf: Path, *, dpi: int = 150) -> list[Path]:
    """Each page of ``pdf`` as a PNG, as a printer would draw it."""
    prefix = pdf.with_suffix("")
    subprocess.run(
        ["pdftoppm", "-r", str(dpi), "-png", str(pdf), str(prefix)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return sorted(pdf.parent.glob(f"{prefix.name}-*.png"))


def pdf_text(pdf: Path) -> str:
    """The text of ``pdf``, its whitespace (line breaks of wrapped cells) made single spaces."""
    run = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=60
    )
    return " ".join(run.stdout.split())
