"""The app icons (``python -m tables.push.icons`` rewrites static/icons/): a red heart on the green
felt, drawn in pure Python (an implicit heart curve, supersampled) and written as PNG with zlib."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

FELT = (15, 81, 50)
FELT_DARK = (6, 43, 24)
RED = (200, 16, 46)
LIGHT = (255, 236, 240)


def _png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + r for r in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _in_heart(x: float, y: float) -> bool:
    """(x² + y² - 1)³ - x² y³ <= 0, y up."""
    a = x * x + y * y - 1
    return a * a * a - x * x * y * y * y <= 0


def _in_rounded(u: float, v: float, radius: float) -> bool:
    """Inside a rounded square spanning [0, 1]²."""
    dx = max(radius - u, 0.0, u - (1 - radius))
    dy = max(radius - v, 0.0, v - (1 - radius))
    return dx * dx + dy * dy <= radius * radius


def render(size: int, heart_scale: float, radius: float, mono: bool = False,
           samples: int = 3) -> bytes:
    """One icon: ``heart_scale`` is the heart's width as a share of the icon; ``radius`` the
    corner radius (0 = full bleed, for maskable and Apple icons); ``mono`` a white heart alone
    (the notification badge)."""
    rows = []
    half = 1.2 / heart_scale  # the heart spans about x in [-1.2, 1.2]
    for py in range(size):
        row = bytearray()
        for px in range(size):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sy in range(samples):
                for sx in range(samples):
                    u = (px + (sx + 0.5) / samples) / size
                    v = (py + (sy + 0.5) / samples) / size
                    bg = radius == 0 or _in_rounded(u, v, radius)
                    x = (u - 0.5) * 2 * half
                    y = (0.5 - v) * 2 * half + 0.15
                    heart = _in_heart(x, y)
                    if mono:
                        color, alpha = (255, 255, 255), 1.0 if heart else 0.0
                    elif heart:
                        shine = _in_heart(x * 1.25 + 0.35, (y - 0.35) * 1.25)
                        color = RED if not shine or x > -0.2 else (226, 40, 70)
                        alpha = 1.0
                    elif bg:
                        t = v
                        color = tuple(int(FELT[i] * (1 - t) + FELT_DARK[i] * t)
                                      for i in range(3))  # type: ignore[assignment]
                        alpha = 1.0
                    else:
                        color, alpha = (0, 0, 0), 0.0
                    for i in range(3):
                        acc[i] += color[i] * alpha
                    acc[3] += alpha
            n = samples * samples
            a = acc[3]
            if a:
                row += bytes((round(acc[0] / a), round(acc[1] / a), round(acc[2] / a),
                              round(255 * a / n)))
            else:
                row += b"\x00\x00\x00\x00"
        rows.append(bytes(row))
    return _png(size, size, rows)


SVG = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
<defs><linearGradient id="f" x1="0" y1="0" x2="0" y2="1">
<stop offset="0" stop-color="#0f5132"/><stop offset="1" stop-color="#062b18"/>
</linearGradient></defs>
<rect width="512" height="512" rx="96" fill="url(#f)"/>
<path fill="#c8102e" d="M256 418C142 330 96 272 96 206c0-52 40-92 90-92 30 0 56 15 70 40 14-25
40-40 70-40 50 0 90 40 90 92 0 66-46 124-160 212z"/>
</svg>
"""

ICONS: dict[str, tuple[int, float, float, bool]] = {
    "icon-192.png": (192, 0.62, 0.19, False),
    "icon-512.png": (512, 0.62, 0.19, False),
    "icon-maskable-512.png": (512, 0.46, 0.0, False),
    "apple-touch-icon.png": (180, 0.56, 0.0, False),
    "badge-96.png": (96, 0.9, 0.0, True),
}


def main() -> None:
    out = Path(__file__).resolve().parent.parent / "static" / "icons"
    out.mkdir(parents=True, exist_ok=True)
    for name, (size, scale, radius, mono) in ICONS.items():
        (out / name).write_bytes(render(size, scale, radius, mono))
    (out / "icon.svg").write_text(SVG, encoding="utf-8")


if __name__ == "__main__":
    main()
