"""`.npz` archives and `.npy` files read with every array's header checked before a byte
of it is allocated, and without pickles.

Why: an array's header declares its shape, and a reader that believes it allocates what it
says: a compressed member of a few hundred bytes that claims 1.2 TB ends in a MemoryError.
So each header is read first (from the zip member's stream) and must agree with the bytes
the archive holds for it (a stored member: exactly; a deflated one: at most DEFLATE_RATIO
times its compressed size, as deflate can expand no more) and with what the caller expects
(`check`: the shapes a model's settings imply), before the array is read.

Members `np.savez` stored uncompressed are one read each straight from the file: `np.load`
reads a member through `zipfile`, in pieces, checking a CRC over every byte (22 ms for the
shipped 13 MB embeddings in a fresh process, against 8 ms for one read); model loading is a
third of a one-sentence run.  Without the CRC a flipped bit would go unnoticed, as in any
.npy file; the model's manifest (`senna.io.manifest`) holds a checksum of the whole file.
Compressed members (`np.savez_compressed`) go through `zipfile`, CRC included.
"""

from __future__ import annotations

import os
import struct
import zipfile
from collections.abc import Callable
from typing import BinaryIO

import numpy as np

from senna.io.manifest import open_regular

_LOCAL_HEADER = 30   # fixed part of a zip local file header; name and extra field follow
# deflate's best ratio is about 1032:1 (a long run of one byte); more means a lying header
DEFLATE_RATIO = 1100

_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0,
            (2, 0): np.lib.format.read_array_header_2_0,
            (3, 0): np.lib.format.read_array_header_2_0}   # 3.0: 2.0 with UTF-8 field names

#: `check(name, shape, dtype)` raises ValueError for an array the caller cannot use.
Check = Callable[[str, tuple[int, ...], np.dtype], None]


def _header(f: BinaryIO, where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran order, dtype) of the .npy stream at `f`'s position."""
    try:
        version = np.lib.format.read_magic(f)
    except ValueError:
        raise ValueError(f"{where}: not a .npy array") from None
    if version not in _HEADERS:
        raise ValueError(f"{where}: .npy format version {version} is not supported")
    shape, fortran, dtype = _HEADERS[version](f)
    if dtype.hasobject:
        raise ValueError(f"{where} holds Python objects")
    return shape, fortran, dtype


def _nbytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """Bytes of an array (Python ints: no overflow on absurd shapes)."""
    n = dtype.itemsize
    for d in shape:
        n *= d
    return n


def _read(f: BinaryIO, size: int, where: str, check: Check | None, name: str
          ) -> np.ndarray:
    """The array at `f`'s position, which `size` bytes (header included) must hold
    exactly; `f` is a real file (one `np.fromfile`) or a zip member's stream."""
    start = f.tell()
    shape, fortran, dtype = _header(f, where)
    if check is not None:
        check(name, shape, dtype)
    count, nbytes = _nbytes(shape, np.dtype(np.uint8)), _nbytes(shape, dtype)
    if f.tell() - start + nbytes != size:
        raise ValueError(f"{where} is not as long as its header says ({shape}, {dtype})")
    if isinstance(f, zipfile.ZipExtFile):
        data = np.empty(count, dtype=dtype)
        got = f.readinto(data.view(np.uint8)) if nbytes else 0
    else:
        data = np.fromfile(f, dtype=dtype, count=count)
        got = data.nbytes
    if got != nbytes:
        raise EOFError(f"{where} is cut short")
    return data.reshape(shape, order="F" if fortran else "C")


def load_npy(path: str | os.PathLike, check: Check | None = None) -> np.ndarray:
    """The array of a .npy file; its header is checked (`check(file name, ...)`) and must
    match the file's size before the array is read."""
    with open_regular(path) as f:   # a FIFO: refused, not waited on
        size = os.fstat(f.fileno()).st_size
        return _read(f, size, str(path), check, os.path.basename(path))


def load_npz(path: str | os.PathLike, check: Check | None = None) -> dict[str, np.ndarray]:
    """Every array of an .npz file (names without `.npy`), each header passed to `check`
    (with the name) and compared with the member's size before its array is read.  Raises
    ValueError (naming the file and the member), EOFError, OSError or zipfile.BadZipFile
    on a damaged file."""
    with open_regular(path) as f:   # a FIFO: refused, not waited on
        with zipfile.ZipFile(f) as z:
            infos = z.infolist()
            if any(i.flag_bits & 1 for i in infos):
                raise ValueError(f"{path}: encrypted members")
            packed = [i for i in infos if i.compress_type != zipfile.ZIP_STORED]
            out = _read_packed(z, packed, str(path), check)
        size = os.fstat(f.fileno()).st_size
        for info in infos:
            if info.compress_type == zipfile.ZIP_STORED:
                f.seek(_data_start(f, info, path))
                if f.tell() + info.file_size > size:
                    raise EOFError(f"{path}: {info.filename} is cut short")
                name = info.filename.removesuffix(".npy")
                out[name] = _read(f, info.file_size, f"{path}: {info.filename}", check, name)
    return out


def _data_start(f: BinaryIO, info: zipfile.ZipInfo, path: str | os.PathLike) -> int:
    """Offset of a stored member's bytes (after its local header)."""
    f.seek(info.header_offset)
    head = f.read(_LOCAL_HEADER)
    if len(head) != _LOCAL_HEADER or head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{path}: bad local header for {info.filename}")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    return info.header_offset + _LOCAL_HEADER + name_len + extra_len


def _read_packed(z: zipfile.ZipFile, infos: list[zipfile.ZipInfo], path: str,
                 check: Check | None) -> dict[str, np.ndarray]:
    """Compressed members, through `zipfile` (CRC checked)."""
    out = {}
    for info in infos:
        where = f"{path}: {info.filename}"
        if info.compress_type != zipfile.ZIP_DEFLATED:
            raise ValueError(f"{where}: compressed with a method other than deflate")
        if info.file_size > DEFLATE_RATIO * max(info.compress_size, 1):
            raise ValueError(f"{where} claims {info.file_size:,} bytes from "
                             f"{info.compress_size:,} compressed")
        with z.open(info) as f:
            name = info.filename.removesuffix(".npy")
            out[name] = _read(f, info.file_size, where, check, name)
    return out
