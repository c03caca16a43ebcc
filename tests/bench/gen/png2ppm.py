#!/usr/bin/python3
"""png2ppm.py IN.png OUT.ppm - converts an 8-bit, non-interlaced PNG
(gray, RGB, gray+alpha, RGBA) into a binary PPM using only the standard
library, so the realism benchmark needs no image package. Alpha is dropped."""
import struct
import sys
import zlib


def main(src, dst):
    data = open(src, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit(f'{src}: not a PNG')
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    chans = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or chans is None or interlace:
        sys.exit(f'{src}: unsupported PNG (depth {depth}, type {ctype})')
    raw = zlib.decompress(b''.join(idat))
    stride = w * chans
    prev = bytearray(stride)
    out = bytearray()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(chans, stride):
                line[i] = (line[i] + line[i - chans]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                a = line[i - chans] if i >= chans else 0
                line[i] = (line[i] + ((a + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - chans] if i >= chans else 0
                b = prev[i]
                c = prev[i - chans] if i >= chans else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        prev = line
        for x in range(w):
            px = line[x * chans:(x + 1) * chans]
            out += bytes(px[:1] * 3) if chans <= 2 else bytes(px[:3])
    with open(dst, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (w, h))
        f.write(out)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
