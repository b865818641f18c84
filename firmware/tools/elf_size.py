#!/usr/bin/env python3
"""Flash and static RAM of a 32-bit little-endian ARM ELF, from its section headers.

flash = every allocated section with contents (vector table, text, rodata,
        and the initial values of .data);
ram   = every allocated section placed at or above --ram-base (data, bss,
        uninit; the stack is not counted).

Usage: elf_size.py [--ram-base 0x20000000] [--budget FLASH_KIB RAM_KIB] ELF...
With --budget, exits 1 when an image needs more flash or RAM than that.
"""
import struct
import sys

SHT_PROGBITS = 1
SHT_NOBITS = 8
SHF_ALLOC = 0x2


def sections(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise SystemExit(f"{path}: not a 32-bit little-endian ELF")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)
    headers = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = headers[shstrndx][4]

    def name(off):
        end = data.index(b"\0", strtab_off + off)
        return data[strtab_off + off:end].decode()

    for h in headers:
        sh_name, sh_type, sh_flags, sh_addr, _off, sh_size = h[:6]
        yield name(sh_name), sh_type, sh_flags, sh_addr, sh_size


def measure(path, ram_base):
    flash = ram = 0
    detail = []
    for name, typ, flags, addr, size in sections(path):
        if not flags & SHF_ALLOC or size == 0:
            continue
        if typ == SHT_PROGBITS:
            flash += size
        if addr >= ram_base:
            ram += size
        detail.append(f"{name}={size}")
    return flash, ram, detail


def main(argv):
    ram_base = 0x20000000
    budget = None
    paths = []
    it = iter(argv)
    for arg in it:
        if arg == "--ram-base":
            ram_base = int(next(it), 0)
        elif arg == "--budget":
            budget = (int(next(it)) * 1024, int(next(it)) * 1024)
        else:
            paths.append(arg)
    if not paths:
        raise SystemExit(__doc__)
    for path in paths:
        flash, ram, detail = measure(path, ram_base)
        print(f"{path}: flash {flash} B ({flash / 1024:.1f} KiB), static RAM {ram} B ({ram / 1024:.1f} KiB)  [{' '.join(detail)}]")
        if budget and (flash > budget[0] or ram > budget[1]):
            raise SystemExit(
                f"{path}: over the budget of {budget[0] // 1024} KiB of flash and {budget[1] // 1024} KiB of static RAM"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
