"""The smallest text of a figure as a reader sees it: the font sizes its PDF draws text with and its width.

Every figure is saved twice with the same tight bounding box (``privopt.plotting.save``): the PDF, whose text
operators carry each font size in points and whose page is the figure's width in points, and the PNG the report
embeds.  Shown ``D`` CSS px wide (96 px to the inch), text of ``s`` pt in a figure ``w`` pt wide reads as
``s · (D / 96) / (w / 72)`` pt: :func:`displayed_pt`.  The size of a text is the first font size of its
text object (``BT … ET``): the exponent of a tick label "10⁵", which matplotlib draws inside the same object at
0.7 of the label's size, is not counted, as :func:`privopt.plotting.min_text_pt` counts the texts' own sizes.
"""

from __future__ import annotations

import os
import re
import zlib
from pathlib import Path

__all__ = ["pdf_text_sizes", "displayed_pt", "readable_width", "MIN_PT"]

#: the smallest text a reader should have to read, in points
MIN_PT = 8.0

_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_TEXT = re.compile(rb"\bBT\b(.*?)\bET\b", re.S)
_FONT = re.compile(rb"/F\w* ([\d.]+) Tf")
_BOX = re.compile(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]")


def pdf_text_sizes(path: str | os.PathLike) -> tuple[float, float]:
    """(smallest font size in pt, page width in pt) of a one-page PDF as matplotlib writes it (content streams
    Flate-compressed or plain); the size is inf when the figure draws no text."""
    raw = Path(path).read_bytes()
    box = _BOX.search(raw)
    if box is None:
        raise ValueError(f"{path}: no /MediaBox, not a PDF page matplotlib wrote")
    sizes: list[float] = []
    for m in _STREAM.finditer(raw):
        data = m[1]
        try:
            data = zlib.decompress(data)
        except zlib.error:
            pass
        for text in _TEXT.finditer(data):
            first = _FONT.search(text[1])
            if first is not None and float(first[1]) > 0:
                sizes.append(float(first[1]))
    return (min(sizes) if sizes else float("inf")), float(box[3]) - float(box[1])


def displayed_pt(size_pt: float, width_pt: float, shown_css_px: float) -> float:
    """Text of ``size_pt`` in a figure ``width_pt`` wide, shown ``shown_css_px`` CSS pixels wide, in pt.

    >>> round(displayed_pt(8.0, 720.0, 960.0), 3)  # a 10-inch figure shown 10 inches wide
    8.0
    >>> displayed_pt(8.0, 720.0, 480.0)
    4.0
    """
    return size_pt * (shown_css_px / 96) / (width_pt / 72)


def readable_width(size_pt: float, width_pt: float, least_pt: float = MIN_PT) -> int:
    """The CSS width (px) to show a figure ``width_pt`` wide whose smallest text is ``size_pt``: its own size
    (an inch of figure an inch of screen), wider where that makes its smallest text at least ``least_pt``.

    >>> readable_width(8.0, 720.0), readable_width(6.0, 720.0)
    (960, 1280)
    """
    natural = width_pt / 72 * 96
    scale = max(1.0, least_pt / size_pt) if size_pt != float("inf") else 1.0
    return int(-(-round(natural * scale * 1000) // 1000))
